//! `softhal`: the command line of the softhal software Direct3D HAL.
//!
//! In: command-line arguments and files (raw DP2 command buffers, DP2
//! assembly, captures). Out: disassembly, assembled streams, validation
//! verdicts, benchmark figures, replayed frames. Exit codes: 0 success, 1
//! the input is invalid (a stream or capture that does not parse, a
//! benchmark that failed, a replay whose answers differ under `--check`
//! or whose GPU work ran past `--timeout`), 2 usage or I/O error (a
//! `--threads` above `softhal_pipeline::limits::MAX_THREADS` included).
//! Every verb's `--help` carries an example. Every
//! verb that takes `--json` prints one JSON object on stdout in every
//! outcome: on failure `{"ok": false, "error": {"kind", "message", ...}}`
//! ([`fail`]), where a byte offset is always `error_offset`. A closed
//! stdout (`softhal ... | head`) ends the verb quietly ([`quiet_on_broken_pipe`]).

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use std::process::ExitCode;

mod bench;
mod bench_dp2;
mod bench_sweep;
mod capture_verbs;
mod compare;
mod demo;
mod dp2;
mod inspect;
mod noise;
mod pixel_history;
mod shader;
mod soak;
#[cfg(feature = "viewer")]
mod view;
mod workloads;

/// Rasterizer threads of every verb that renders, unless `--threads` says
/// otherwise (0 or 1: the calling thread).
pub const DEFAULT_THREADS: usize = 2;

/// Parses `--threads` (every verb): 0 to
/// `softhal_pipeline::limits::MAX_THREADS`; more is a usage error (exit
/// 2) before anything is created.
pub(crate) fn threads_arg(s: &str) -> Result<usize, String> {
    let max = softhal_pipeline::limits::MAX_THREADS;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!(
            "expected a thread count from 0 to {max} (softhal_pipeline::limits::MAX_THREADS)"
        )),
    }
}

/// softhal: a memory-safe software Direct3D HAL (DP2 command streams → pixels).
#[derive(Parser, Debug)]
#[command(
    name = "softhal",
    version,
    about = "softhal: a memory-safe software Direct3D HAL (DP2 command streams → pixels)",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Verb,
}

#[derive(Subcommand, Debug)]
enum Verb {
    /// Print a DP2 command buffer one command per line, with DDK names (a
    /// capture: its canonical text form).
    #[command(
        after_help = "Example:\n  softhal disasm frame.bin --fvf 0x1c4\n  softhal disasm frame.bin --json\n  softhal disasm session.shcap > session.shcap.txt"
    )]
    Disasm(dp2::StreamArgs),
    /// Check that every command of a DP2 command buffer parses (or that a
    /// capture loads).
    #[command(
        after_help = "Example:\n  softhal validate frame.bin --fvf 'D3DFVF_XYZRHW|D3DFVF_DIFFUSE' --json\n  softhal validate testdata/captures/gouraud-strip.shcap.txt\n\nExit status: 0 valid, 1 invalid (the error names the byte offset), 2 usage or I/O error."
    )]
    Validate(dp2::StreamArgs),
    /// Assemble DP2 assembly text (.dp2s) into a raw command buffer (a text
    /// capture into a binary capture).
    #[command(
        after_help = "Example:\n  softhal asm testdata/dp2/all-opcodes.dp2s -o all.bin\n  softhal asm testdata/captures/gouraud-strip.shcap.txt -o strip.shcap\n  softhal asm testdata/dp2/all-opcodes.dp2s > all.bin"
    )]
    Asm(dp2::AsmArgs),
    /// Render the built-in scene through the full DP2 path to a PNG.
    #[command(
        after_help = "Example:\n  softhal demo -o demo.png --width 800 --height 600\n  softhal demo -o demo.png --capture demo.shcap"
    )]
    Demo(demo::DemoArgs),
    /// Replay a capture: write every presented frame and each context's
    /// final render target as PNG, print FNV-1a 64 checksums.
    #[command(
        after_help = "Example:\n  softhal render testdata/captures/gouraud-strip.shcap.txt -o out --check\n  softhal render heavy.shcap --timeout 500\n  softhal render game.shcap -o out --frames 10..12 --every-draw\n  softhal render game.shcap --checksums-only --json\n  softhal render testdata/captures/gouraud-strip.shcap.txt -o out --check --against testdata/goldens/captures\n\nImages: out/frame-0001.png … for each Flip / Present in order, out/final-0001.png … for each live context's render target at the end, out/draw-0001-0003.png (--every-draw, --calls) for the render target after DrawPrimitives2 call 3 (counted over the capture), which draws into frame 1.\n\nExit status: 0 ok, 1 invalid or cut capture, a call the driver refused that the capture did not record as refused (unless --allow-refused), GPU work that ran past --timeout, or (--check) an answer that differs from the recorded one, 2 usage or I/O error."
    )]
    Render(capture_verbs::RenderArgs),
    /// Compare two PNGs, or two folders of PNGs paired by name: per-channel
    /// differing pixels, max difference, PSNR; difference images.
    #[command(
        after_help = "Example:\n  softhal compare expected.png actual.png --tolerance 2\n  softhal compare goldens/ out/ --diff diffs --json\n\nExit status: 0 every pair within the tolerance, 1 a pixel beyond it, a size that differs or an image on one side only, 2 usage or I/O error."
    )]
    Compare(compare::CompareArgs),
    /// Summarize a capture: calls, DP2 commands per opcode, surfaces, errors.
    #[command(
        after_help = "Example:\n  softhal info testdata/captures/malformed-call.shcap.txt --json"
    )]
    Info(capture_verbs::InfoArgs),
    /// Write a static HTML report of a capture's replay: frames, calls,
    /// commands, each draw's render target, depth, textures, counts, time
    /// and state, refused calls, pixel history.
    #[command(
        after_help = "Example:\n  softhal inspect testdata/samples/demo.shcap -o report\n  softhal inspect game.shcap -o report --frames 3..4 --max-draws 500\n  softhal inspect testdata/captures/malformed-call.shcap.txt -o report --pixel 40,40\n\nOpen report/index.html in a browser (file://, no server). Exit status: 0 report written, 1 invalid capture, 2 usage or I/O error."
    )]
    Inspect(inspect::InspectArgs),
    #[command(
        after_help = "Example:\n  softhal pixel-history testdata/captures/gouraud-strip.shcap.txt --pixel 20,30\n  softhal pixel-history game.shcap --pixel 320,240 --frame 3 --json\n\nEvery DrawPrimitives2 command whose draws produced a fragment at the pixel, with each fragment's tests (scissor, alpha, stencil, depth: the values compared), shaded colour, blend inputs, factors and result, and the pixel before and after (docs/pixel-history.md).\n\nExit status: 0 ok (an empty history too), 1 invalid or cut capture, 2 usage or I/O error."
    )]
    PixelHistory(pixel_history::PixelHistoryArgs),
    /// Run the benchmark workloads (W1–W10; docs/benchmarks.md), or
    /// the fixed-function state sweep (--sweep).
    #[command(
        after_help = "Examples:\n  softhal bench --workload W1 --threads 2 --json\n  softhal bench --sweep --threads 2"
    )]
    Bench(bench::BenchArgs),
    /// Load-test one driver with several contexts: valid, mutated and
    /// adversarial streams, a bit-exact canary, memory and object counts.
    #[command(
        after_help = "Example:\n  softhal soak --seconds 60 --contexts 4 --json\n\nExit status: 0 every check passed (no panic, expected answers, canary identical, objects back to baseline), 1 a check failed, 2 set-up error."
    )]
    Soak(soak::SoakArgs),
    /// Open a window that plays a capture: pause, step frame by frame and
    /// draw by draw, save the shown image (cargo feature `viewer`).
    #[cfg(feature = "viewer")]
    #[command(
        after_help = "Example:\n  softhal view testdata/samples/demo.shcap --scale 2\n  softhal view game.shcap --frames 10..20 --paused\n  softhal view testdata/samples/demo.shcap --exit-after-frames 1 --screenshot shot.png\n\nKeys: Space play/pause, Right or N next frame, Left or P previous frame, D next draw (the render target after each DrawPrimitives2 call of the next frame), S save the shown image as PNG in the working folder (frame-0003.png, draw-0002-0017.png, as render names them), Q or Escape quit.\n\nExit status: 0 the window was closed, 1 invalid or cut capture, or the replay failed, 2 usage or I/O error, or no display."
    )]
    View(view::ViewArgs),
}

/// A verb's failure: one line on stderr (`softhal: MESSAGE`) and, with
/// `json`, `{"ok": false, "error": {"kind": KIND, "message": MESSAGE,
/// ...detail}}` on stdout. `code`: 1 invalid input, 2 usage or I/O.
pub fn fail(json_out: bool, code: u8, kind: &str, message: &str, detail: Value) -> ExitCode {
    eprintln!("softhal: {message}");
    if json_out {
        println!(
            "{}",
            json!({ "ok": false, "error": error_json(kind, message, detail) })
        );
    }
    ExitCode::from(code)
}

/// The `error` object of every verb's JSON: kind, message, and the
/// fields of `detail` (an object: `error_offset`, `line`, `record`, ...).
pub fn error_json(kind: &str, message: &str, detail: Value) -> Value {
    let mut e = json!({ "kind": kind, "message": message });
    if let (Some(e), Value::Object(d)) = (e.as_object_mut(), detail) {
        e.extend(d);
    }
    e
}

/// Output to a closed pipe (`softhal disasm big.bin | head`) ends the
/// process quietly with status 0, as Unix tools do, instead of the panic
/// `println!` raises (the Rust runtime ignores SIGPIPE, so the write fails
/// with `BrokenPipe`). Other panics keep the default report.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    softhal_capture::logging::init_from_env();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Arguments clap cannot read are a usage error like any other:
            // in JSON too when `--json` was asked for (help and version
            // are not errors).
            let asked_json = std::env::args().skip(1).any(|a| a == "--json");
            if asked_json && e.use_stderr() {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                let m = first.strip_prefix("error: ").unwrap_or(first);
                let detail = json!({ "usage": text });
                println!(
                    "{}",
                    json!({ "ok": false, "error": error_json("usage", m, detail) })
                );
            }
            e.exit()
        }
    };
    match cli.command {
        Verb::Disasm(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::disasm(&a.file, a.json)
        }
        Verb::Validate(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::validate(&a.file, a.json)
        }
        Verb::Asm(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::asm(&a.file, a.output.as_deref())
        }
        Verb::Disasm(a) if a.shader || shader::file_is_tokens(&a.file) => {
            shader::disasm(&a.file, a.json)
        }
        Verb::Validate(a) if a.shader || shader::file_is_tokens(&a.file) => {
            shader::validate(&a.file, a.json)
        }
        Verb::Asm(a) if a.shader || shader::file_is_source(&a.file) => {
            shader::asm(&a.file, a.output.as_deref())
        }
        Verb::Disasm(a) => dp2::disasm(&a),
        Verb::Validate(a) => dp2::validate(&a),
        Verb::Asm(a) => dp2::asm(&a),
        Verb::Render(a) => capture_verbs::render(&a),
        Verb::Info(a) => capture_verbs::info(&a),
        Verb::Inspect(a) => inspect::run(&a),
        Verb::PixelHistory(a) => pixel_history::run(&a),
        Verb::Compare(a) => compare::run(&a),
        Verb::Bench(a) => bench::run(&a),
        Verb::Soak(a) => soak::run(&a),
        Verb::Demo(a) => demo::run(&a),
        #[cfg(feature = "viewer")]
        Verb::View(a) => view::run(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Splits one example line as a POSIX shell would (quotes, no
    /// expansions); `None` if it holds an unquoted `|`, `;` or `&` (a
    /// `D3DFVF_A|D3DFVF_B` pasted unquoted is a pipe into a command named
    /// D3DFVF_B). A `>` redirection ends the arguments.
    fn shell_words(line: &str) -> Option<Vec<String>> {
        let mut words = Vec::new();
        let mut cur: Option<String> = None;
        let mut quote = None;
        for ch in line.chars() {
            match (quote, ch) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => cur.get_or_insert_with(String::new).push(c),
                (None, '\'' | '"') => {
                    quote = Some(ch);
                    cur.get_or_insert_with(String::new);
                }
                (None, '|' | ';' | '&') => return None,
                (None, '>') => break,
                (None, c) if c.is_whitespace() => words.extend(cur.take()),
                (None, c) => cur.get_or_insert_with(String::new).push(c),
            }
        }
        words.extend(cur.take());
        Some(words)
    }

    /// Every example of every verb's `--help`, pasted into a shell, is one
    /// softhal command whose arguments parse.
    #[test]
    fn every_help_example_parses_as_pasted() {
        let mut cmd = Cli::command();
        let mut seen = 0;
        for sub in cmd.get_subcommands_mut() {
            let help = sub.render_long_help().to_string();
            let examples = help
                .lines()
                .skip_while(|l| !l.starts_with("Example"))
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .map(str::trim);
            for line in examples {
                let words = shell_words(line).unwrap_or_else(|| {
                    panic!("{}: unquoted shell operator in {line:?}", sub.get_name())
                });
                assert_eq!(words.first().map(String::as_str), Some("softhal"), "{line}");
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("{line:?} does not parse: {e}");
                }
                seen += 1;
            }
        }
        assert!(seen >= 8, "{seen} examples");
    }

    /// Every verb that takes `--threads` defaults to `DEFAULT_THREADS`.
    #[test]
    fn every_threads_option_has_the_one_default() {
        let cmd = Cli::command();
        let defaults: Vec<(String, Vec<String>)> = cmd
            .get_subcommands()
            .filter_map(|sub| {
                let arg = sub.get_arguments().find(|a| a.get_id() == "threads")?;
                let d = arg
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().to_string())
                    .collect();
                Some((sub.get_name().to_string(), d))
            })
            .collect();
        let names: Vec<&str> = defaults.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "demo",
                "render",
                "inspect",
                "pixel-history",
                "bench",
                "soak"
            ]
        );
        for (name, d) in &defaults {
            assert_eq!(d, &[DEFAULT_THREADS.to_string()], "{name}");
        }
    }

    /// The top-level help names every verb.
    #[test]
    fn the_top_level_help_lists_every_verb() {
        let help = Cli::command().render_long_help().to_string();
        for verb in [
            "disasm",
            "validate",
            "asm",
            "demo",
            "render",
            "compare",
            "info",
            "inspect",
            "pixel-history",
            "bench",
            "soak",
        ] {
            assert!(help.contains(&format!("  {verb} ")), "{verb}: {help}");
        }
        assert!(
            !help.contains("disasm, asm, validate, bench, demo"),
            "{help}"
        );
    }
}
