//! The DP2 stream verbs: `disasm`, `validate`, `asm`.
//!
//! In: a file of raw little-endian DP2 command bytes (or DP2 assembly for
//! `asm`), the vertex format (needed by the `_IMM` opcodes) and the buffer's
//! address alignment. Out: text or JSON on stdout, one-line errors on
//! stderr naming the file, the byte offset and the command. With no
//! `D3dParseUnknownCommand` host here, an unknown opcode ends the walk as an
//! error of kind `unknown_opcode`. With `--json` the byte offset of a
//! stream error is `error_offset` (as `dwErrorOffset`), in an `error` object.

use serde_json::{json, Value};
use softhal_wire::text::{self, Disassembly};
use softhal_wire::{names, DecodeError, DecodeOptions, Decoder};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments shared by `disasm` and `validate`.
#[derive(clap::Args, Debug)]
pub struct StreamArgs {
    /// The raw command bytes (little-endian, as the runtime wrote them).
    pub file: PathBuf,
    /// The vertex format (`dwVertexType`) in hex or as D3DFVF_ names; needed
    /// to size the inline vertices of TRIANGLEFAN_IMM / LINELIST_IMM.
    #[arg(long, value_name = "HEX")]
    pub fvf: Option<String>,
    /// The buffer's address modulo 4 (the _IMM opcodes align their vertices
    /// to the absolute address).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub base_align: usize,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// The file holds Direct3D shader tokens, not DP2 commands (detected
    /// without this flag when it starts with a shader version token).
    #[arg(long)]
    pub shader: bool,
}

/// Arguments of `asm`.
#[derive(clap::Args, Debug)]
pub struct AsmArgs {
    /// DP2 assembly source (see docs/dp2-assembly.md).
    pub file: PathBuf,
    /// Where to write the command bytes (default: stdout, unless it is a
    /// terminal).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The file is Direct3D shader assembly (`vs_2_0` ...), assembled to
    /// tokens (detected without this flag from its first line).
    #[arg(long)]
    pub shader: bool,
}

/// Writes an assembled file to `output`, or to stdout when there is none
/// (refused on a terminal: the bytes are binary).
pub fn write_output(output: Option<&std::path::Path>, bytes: &[u8]) -> ExitCode {
    use std::io::{IsTerminal, Write};
    let written = match output {
        Some(path) => {
            std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None if std::io::stdout().is_terminal() => {
            Err("the output is binary: give -o FILE or redirect stdout to a file".to_string())
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                // A closed pipe is the reader's choice (see `main`).
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| format!("cannot write to stdout: {e}")),
            }
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => crate::fail(false, 2, "io", &m, Value::Null),
    }
}

/// `--fvf` takes hex (with or without `0x`, so `44` is 0x44) or `D3DFVF_` names.
fn parse_fvf(s: &str) -> Option<u32> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return u32::from_str_radix(digits, 16).ok();
    }
    names::parse_fvf(s)
}

struct Input {
    bytes: Vec<u8>,
    fvf: Option<u32>,
    opts: DecodeOptions,
}

fn load(a: &StreamArgs) -> Result<Input, ExitCode> {
    let usage_error = |m: &str| crate::fail(a.json, 2, "usage", m, Value::Null);
    let bytes = std::fs::read(&a.file).map_err(|e| {
        crate::fail(
            a.json,
            2,
            "io",
            &format!("cannot read {}: {e}", a.file.display()),
            Value::Null,
        )
    })?;
    let fvf = match &a.fvf {
        None => None,
        Some(s) => {
            Some(parse_fvf(s).ok_or_else(|| usage_error(&format!("--fvf: cannot read {s:?}")))?)
        }
    };
    let vertex_stride = match fvf {
        None => 0,
        Some(f) => {
            softhal_wire::fvf::vertex_stride(f).map_err(|e| usage_error(&format!("--fvf: {e}")))?
        }
    };
    Ok(Input {
        bytes,
        fvf,
        opts: DecodeOptions {
            vertex_stride,
            base_align: a.base_align & 3,
        },
    })
}

fn error_json(e: &DecodeError) -> Value {
    crate::error_json(
        e.kind.code(),
        &e.to_string(),
        json!({ "error_offset": e.offset, "opcode": e.opcode }),
    )
}

fn human_error(file: &std::path::Path, e: &DecodeError) -> String {
    format!("{}: invalid DP2 stream {e}", file.display())
}

/// `softhal disasm`.
pub fn disasm(a: &StreamArgs) -> ExitCode {
    let input = match load(a) {
        Ok(i) => i,
        Err(code) => return code,
    };
    if a.json {
        let mut commands = Vec::new();
        let mut error = None;
        for item in Decoder::new(&input.bytes, input.opts) {
            match item {
                Ok(cmd) if matches!(cmd.command, softhal_wire::Command::Unknown { .. }) => {
                    let op = cmd.header.command;
                    error = Some(DecodeError {
                        offset: cmd.offset,
                        opcode: Some(op),
                        kind: softhal_wire::DecodeErrorKind::UnknownOpcode { opcode: op },
                    });
                    break;
                }
                Ok(cmd) => {
                    let line = text::format_command(&cmd);
                    let (op, args) = line.split_once(' ').unwrap_or((line.as_str(), ""));
                    commands.push(json!({
                        "offset": cmd.offset,
                        "op": op,
                        "opcode": cmd.header.command,
                        "count": cmd.header.count.get(),
                        "size": cmd.size,
                        "args": args,
                    }));
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let failed = error.is_some();
        if let Some(e) = &error {
            eprintln!("{}", human_error(&a.file, e));
        }
        let out = json!({
            "ok": !failed,
            "commands": commands,
            "error": error.as_ref().map(error_json),
        });
        println!("{out}");
        return if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    let Disassembly { text, error } = text::disassemble(&input.bytes, input.fvf, input.opts);
    print!("{text}");
    match error {
        None => ExitCode::SUCCESS,
        Some(e) => {
            eprintln!("{}", human_error(&a.file, &e));
            ExitCode::from(1)
        }
    }
}

/// `softhal validate`.
pub fn validate(a: &StreamArgs) -> ExitCode {
    let input = match load(a) {
        Ok(i) => i,
        Err(code) => return code,
    };
    match softhal_wire::decode_all(&input.bytes, input.opts) {
        Ok(cmds) => {
            if a.json {
                println!(
                    "{}",
                    json!({ "ok": true, "valid": true, "commands": cmds.len(), "bytes": input.bytes.len() })
                );
            } else {
                println!(
                    "{}: valid, {} command(s), {} byte(s)",
                    a.file.display(),
                    cmds.len(),
                    input.bytes.len()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if a.json {
                println!(
                    "{}",
                    json!({ "ok": false, "valid": false, "error": error_json(&e) })
                );
            }
            eprintln!("{}", human_error(&a.file, &e));
            ExitCode::from(1)
        }
    }
}

/// `softhal asm`.
pub fn asm(a: &AsmArgs) -> ExitCode {
    let raw = match std::fs::read(&a.file) {
        Ok(s) => s,
        Err(e) => {
            let m = format!("cannot read {}: {e}", a.file.display());
            return crate::fail(false, 2, "io", &m, Value::Null);
        }
    };
    let Ok(src) = String::from_utf8(raw) else {
        let m = format!(
            "{}: not DP2 assembly (binary input; `softhal disasm` lists a command buffer)",
            a.file.display()
        );
        return crate::fail(false, 1, "not_text", &m, Value::Null);
    };
    let bytes = match text::assemble(&src) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}:{}: {}", a.file.display(), e.line, e.message);
            return ExitCode::from(1);
        }
    };
    write_output(a.output.as_deref(), &bytes)
}
