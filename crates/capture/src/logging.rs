//! Logging: the `SOFTHAL_LOG` filter.
//!
//! softhal's crates emit [`tracing`] events for what a host may want to
//! see when something goes wrong: DrawPrimitives2 calls the device refused
//! (opcode, `dwErrorOffset`, reason), render-callback submissions the
//! kernel refused, contexts the GPU watchdog removed, capture start and
//! stop, replayed answers that differ from the recorded ones (the list is
//! in `docs/environment.md`). None is on a per-pixel or per-vertex path;
//! with no subscriber installed each costs one relaxed atomic load.
//!
//! In: the environment variable [`LOG_ENV`] (`SOFTHAL_LOG`), a filter in
//! `tracing-subscriber`'s `EnvFilter` syntax (`warn`,
//! `softhal_device=debug`, `softhal_submit=warn,softhal_capture=debug`).
//! Out: [`init_from_env`] installs, once per process, a global subscriber
//! that writes the events the filter lets through to stderr, one line
//! each. The CLI calls it at start-up and the C library when a driver is
//! created. [`subscriber`] builds the same subscriber over any writer (for
//! tests, and for Rust hosts that want softhal's format).
//! Guarantees: never panics; does nothing when the variable is unset or
//! empty, or when the process already has a global subscriber (a Rust
//! host's own wins); a filter that does not parse is reported once on
//! stderr and installs nothing.

use tracing_subscriber::fmt::MakeWriter;

/// The environment variable holding the log filter: `docs/environment.md`.
pub const LOG_ENV: &str = "SOFTHAL_LOG";

/// softhal's subscriber: the events `filter` lets through (in `EnvFilter`
/// syntax), one line each (level, target, message, fields), written to
/// `writer`, with colours only if `ansi`.
pub fn subscriber<W>(
    filter: &str,
    writer: W,
    ansi: bool,
) -> Result<impl tracing::Subscriber + Send + Sync, String>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = tracing_subscriber::EnvFilter::builder()
        .parse(filter)
        .map_err(|e| format!("{LOG_ENV}={filter:?}: {e}"))?;
    Ok(tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(ansi)
        .finish())
}

/// Installs the `SOFTHAL_LOG` subscriber (stderr) the first time it is
/// called in the process, if the variable is set and not empty; later
/// calls do nothing. See the module documentation.
pub fn init_from_env() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Some(filter) = std::env::var_os(LOG_ENV).filter(|v| !v.is_empty()) else {
            return;
        };
        let filter = filter.to_string_lossy();
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
        match subscriber(&filter, std::io::stderr, ansi) {
            // Another global subscriber (the host's) is kept.
            Ok(s) => {
                let _ = tracing::subscriber::set_global_default(s);
            }
            Err(e) => eprintln!("softhal: {e}; logging stays off"),
        }
    });
}
