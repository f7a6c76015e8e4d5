//! `softhal bench` (placeholder until the pipeline benchmark lands).
use std::process::ExitCode;
/// Arguments of `softhal bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {}
/// Runs the benchmark.
pub fn run(_a: &BenchArgs) -> ExitCode {
    eprintln!("softhal bench: not available yet");
    ExitCode::from(2)
}
