//! `softhal`: the command line of the softhal software Direct3D HAL.
//!
//! In: command-line arguments and files (raw DP2 command buffers, DP2
//! assembly, captures). Out: disassembly, assembled streams, validation
//! verdicts, benchmark figures, replayed frames. Exit codes: 0 success, 1
//! the input is invalid (a stream or capture that does not parse, a
//! benchmark that failed, a replay whose answers differ under `--check`
//! or whose GPU work ran past `--timeout`), 2 usage or I/O error (a
//! `--threads` above `softhal_pipeline::limits::MAX_THREADS` included).
//! Every verb's `--help` carries an example.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod bench_dp2;
mod capture_verbs;
mod demo;
mod dp2;
mod noise;
mod soak;
mod workloads;

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
#[command(name = "softhal", version, about, long_about = None)]
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
        after_help = "Example:\n  softhal validate frame.bin --fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE --json\n  softhal validate testdata/captures/gouraud-strip.shcap.txt\n\nExit status: 0 valid, 1 invalid (the error names the byte offset), 2 usage or I/O error."
    )]
    Validate(dp2::StreamArgs),
    /// Assemble DP2 assembly text (.dp2s) into a raw command buffer (a text
    /// capture into a binary capture).
    #[command(
        after_help = "Example:\n  softhal asm testdata/dp2/all-opcodes.dp2s -o all.bin\n  softhal asm testdata/captures/gouraud-strip.shcap.txt -o strip.shcap"
    )]
    Asm(dp2::AsmArgs),
    /// Render the built-in scene through the full DP2 path to a PNG.
    #[command(after_help = "Example:\n  softhal demo -o demo.png --width 800 --height 600")]
    Demo(demo::DemoArgs),
    /// Replay a capture: write every presented frame and each context's
    /// final render target as PNG, print FNV-1a 64 checksums.
    #[command(
        after_help = "Example:\n  softhal render testdata/captures/gouraud-strip.shcap.txt -o out --check\n  softhal render heavy.shcap --timeout 500\n\nExit status: 0 ok, 1 invalid capture, (--check) an answer differs from the recorded one, or GPU work ran past --timeout, 2 usage or I/O error."
    )]
    Render(capture_verbs::RenderArgs),
    /// Summarize a capture: calls, DP2 commands per opcode, surfaces, errors.
    #[command(
        after_help = "Example:\n  softhal info testdata/captures/malformed-call.shcap.txt --json"
    )]
    Info(capture_verbs::InfoArgs),
    /// Run the W1–W6 benchmark workloads (shared/bench/WORKLOADS.md).
    #[command(after_help = "Example:\n  softhal bench --workload W1 --threads 2 --json")]
    Bench(bench::BenchArgs),
    /// Load-test one driver with several contexts: valid, mutated and
    /// adversarial streams, a bit-exact canary, memory and object counts.
    #[command(
        after_help = "Example:\n  softhal soak --seconds 60 --contexts 4 --json\n\nExit status: 0 every check passed (no panic, expected answers, canary identical, objects back to baseline), 1 a check failed, 2 set-up error."
    )]
    Soak(soak::SoakArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Verb::Disasm(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::disasm(&a.file)
        }
        Verb::Validate(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::validate(&a.file, a.json)
        }
        Verb::Asm(a) if capture_verbs::is_capture_file(&a.file) => {
            capture_verbs::asm(&a.file, &a.output)
        }
        Verb::Disasm(a) => dp2::disasm(&a),
        Verb::Validate(a) => dp2::validate(&a),
        Verb::Asm(a) => dp2::asm(&a),
        Verb::Render(a) => capture_verbs::render(&a),
        Verb::Info(a) => capture_verbs::info(&a),
        Verb::Bench(a) => bench::run(&a),
        Verb::Soak(a) => soak::run(&a),
        Verb::Demo(a) => demo::run(&a),
    }
}
