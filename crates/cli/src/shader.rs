//! The shader-token verbs: `disasm`, `validate` and `asm` on a file of
//! raw Direct3D shader tokens (what D3DXAssembleShader writes, `.vso` /
//! `.pso`) or of Direct3D shader assembly.
//!
//! In: the file; it is taken as shader tokens when `--shader` is given or
//! when its first DWORD is a shader version token (0xFFFE0101–0xFFFE0300,
//! 0xFFFF0101–0xFFFF0300; as a DP2 stream those bytes would be a command
//! with a non-zero `bReserved`, which no runtime writes), and as shader
//! assembly when its first line that is not blank or a comment is a
//! version (`vs_2_0`, `ps.1.4`). Out: the assembly, a verdict, or the
//! tokens (little-endian); errors name the rule (`kind`) and the byte
//! offset of the offending token (`error_offset`) or the line.

use serde_json::{json, Value};
use softhal_shader::{text, Profile, ShaderError};
use std::path::Path;
use std::process::ExitCode;

/// True when the file starts with a shader version token.
pub fn file_is_tokens(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && looks_like_tokens(&head)
}

/// True when the file is shader assembly (see [`looks_like_source`]).
pub fn file_is_source(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|s| looks_like_source(&s))
}

/// True when `bytes` start with a shader version token.
pub fn looks_like_tokens(bytes: &[u8]) -> bool {
    bytes
        .get(..4)
        .and_then(softhal_shader::tokens_from_le_bytes)
        .and_then(|t| t.first().copied())
        .and_then(Profile::from_token)
        .is_some()
}

/// True when the first line that is not blank or a comment names a shader
/// version.
pub fn looks_like_source(src: &str) -> bool {
    src.lines()
        .map(|l| l.split(';').next().unwrap_or_default())
        .map(|l| l.split("//").next().unwrap_or_default().trim())
        .find(|l| !l.is_empty())
        .is_some_and(|l| Profile::from_name(&l.replace('.', "_")).is_some())
}

fn read(path: &Path, json_out: bool) -> Result<Vec<u8>, ExitCode> {
    std::fs::read(path).map_err(|e| {
        let m = format!("cannot read {}: {e}", path.display());
        crate::fail(json_out, 2, "io", &m, Value::Null)
    })
}

fn shader_error(path: &Path, json_out: bool, e: &ShaderError) -> ExitCode {
    let m = format!("{}: invalid shader: {e}", path.display());
    let detail = json!({ "error_offset": e.byte_offset(), "dword": e.dword });
    crate::fail(json_out, 1, e.kind(), &m, detail)
}

fn tokens(path: &Path, json_out: bool) -> Result<Vec<u32>, ExitCode> {
    let bytes = read(path, json_out)?;
    softhal_shader::tokens_from_le_bytes(&bytes).ok_or_else(|| {
        let m = format!(
            "{}: {} bytes are not a whole number of DWORD tokens",
            path.display(),
            bytes.len()
        );
        crate::fail(
            json_out,
            1,
            "truncated",
            &m,
            json!({ "error_offset": bytes.len() / 4 * 4 }),
        )
    })
}

/// `softhal disasm --shader`: the assembly of the tokens. A stream that
/// parses but breaks a rule of its version is printed, and the rule is
/// reported (exit status 1).
pub fn disasm(path: &Path, json_out: bool) -> ExitCode {
    let t = match tokens(path, json_out) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let shader = match softhal_shader::parse(&t) {
        Ok(s) => s,
        Err(e) => return shader_error(path, json_out, &e),
    };
    let listing = text::disassemble(&shader);
    let profile = shader.profile;
    let verdict = softhal_shader::validate(shader).err();
    if json_out {
        let error = verdict.as_ref().map(|e| {
            crate::error_json(
                e.kind(),
                &e.to_string(),
                json!({ "error_offset": e.byte_offset(), "dword": e.dword }),
            )
        });
        println!(
            "{}",
            json!({ "ok": verdict.is_none(), "version": profile.name(), "text": listing, "error": error })
        );
    } else {
        print!("{listing}");
    }
    match verdict {
        None => ExitCode::SUCCESS,
        Some(e) => {
            eprintln!("softhal: {}: invalid shader: {e}", path.display());
            ExitCode::from(1)
        }
    }
}

/// `softhal validate --shader`: does the driver accept these tokens?
pub fn validate(path: &Path, json_out: bool) -> ExitCode {
    let t = match tokens(path, json_out) {
        Ok(t) => t,
        Err(code) => return code,
    };
    match softhal_shader::parse_and_validate(&t) {
        Ok(v) => {
            let instructions = v
                .shader()
                .instructions
                .iter()
                .filter(|i| !i.opcode.is_declaration())
                .count();
            if json_out {
                println!(
                    "{}",
                    json!({ "ok": true, "valid": true, "version": v.profile().name(), "instructions": instructions, "tokens": t.len() })
                );
            } else {
                println!(
                    "{}: valid {} shader, {instructions} instruction(s), {} token(s)",
                    path.display(),
                    v.profile().name(),
                    t.len()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => shader_error(path, json_out, &e),
    }
}

/// `softhal asm --shader`: assembly → tokens. The shader must validate
/// (write a broken one as DWORDs by other means).
pub fn asm(path: &Path, output: Option<&Path>) -> ExitCode {
    let bytes = match read(path, false) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let Ok(src) = String::from_utf8(bytes) else {
        let m = format!("{}: not shader assembly (binary input)", path.display());
        return crate::fail(false, 1, "not_text", &m, Value::Null);
    };
    let shader = match text::assemble(&src) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}:{}", path.display(), e.kind);
            return ExitCode::from(1);
        }
    };
    let t = shader.to_tokens();
    if let Err(e) = softhal_shader::validate(shader) {
        return shader_error(path, false, &e);
    }
    let out: Vec<u8> = t.iter().flat_map(|w| w.to_le_bytes()).collect();
    crate::dp2::write_output(output, &out)
}
