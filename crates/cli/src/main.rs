//! `softhal`: the command line of the softhal software Direct3D HAL.
//!
//! In: command-line arguments and files (raw DP2 command buffers, DP2
//! assembly). Out: disassembly, assembled streams, validation verdicts,
//! benchmark figures. Exit codes: 0 success, 1 the input is invalid (a
//! stream that does not parse, a benchmark that failed), 2 usage or I/O
//! error. Every verb's `--help` carries an example.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod demo;
mod dp2;
mod workloads;

/// softhal: a memory-safe software Direct3D HAL (DP2 command streams → pixels).
#[derive(Parser, Debug)]
#[command(name = "softhal", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Verb,
}

#[derive(Subcommand, Debug)]
enum Verb {
    /// Print a DP2 command buffer one command per line, with DDK names.
    #[command(
        after_help = "Example:\n  softhal disasm frame.bin --fvf 0x1c4\n  softhal disasm frame.bin --json"
    )]
    Disasm(dp2::StreamArgs),
    /// Check that every command of a DP2 command buffer parses.
    #[command(
        after_help = "Example:\n  softhal validate frame.bin --fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE --json\n\nExit status: 0 valid, 1 invalid (the error names the byte offset), 2 usage or I/O error."
    )]
    Validate(dp2::StreamArgs),
    /// Assemble DP2 assembly text (.dp2s) into a raw command buffer.
    #[command(after_help = "Example:\n  softhal asm testdata/dp2/all-opcodes.dp2s -o all.bin")]
    Asm(dp2::AsmArgs),
    /// Render the built-in scene through the full DP2 path to a PNG.
    #[command(after_help = "Example:\n  softhal demo -o demo.png --width 800 --height 600")]
    Demo(demo::DemoArgs),
    /// Run the W1–W6 benchmark workloads (shared/bench/WORKLOADS.md).
    #[command(after_help = "Example:\n  softhal bench --workload W1 --threads 2 --json")]
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Verb::Disasm(a) => dp2::disasm(&a),
        Verb::Validate(a) => dp2::validate(&a),
        Verb::Asm(a) => dp2::asm(&a),
        Verb::Bench(a) => bench::run(&a),
        Verb::Demo(a) => demo::run(&a),
    }
}
