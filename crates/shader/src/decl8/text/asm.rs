//! Reading `D3DVSD_*` text (the format the parent module describes)
//! back into a [`Dx8Declaration`].
//!
//! In: untrusted text. Out: the declaration, or a [`ShaderError`] of kind
//! `syntax` naming the 1-based line. Never panics; numbers, registers and
//! counts are range-checked before a token is built.

use crate::decl8::{DeclToken, Dx8Declaration, VsdType, REGISTER_COUNT, REGISTER_NAMES};
use crate::error::{ErrorKind, ShaderError};
use crate::text::strip_comment;

type R<T> = Result<T, String>;

fn number(s: &str) -> R<u32> {
    let s = s.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse::<u32>(),
    };
    parsed.map_err(|_| format!("bad number `{s}`"))
}

fn small(s: &str, max: u32, what: &str) -> R<u8> {
    let n = number(s)?;
    if n > max {
        return Err(format!("{what} {n} is above {max}"));
    }
    u8::try_from(n).map_err(|_| format!("{what} {n} is above {max}"))
}

fn register(s: &str, max: u8) -> R<u8> {
    let s = s.trim();
    let r = match REGISTER_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(s))
    {
        Some(i) => u8::try_from(i).map_err(|_| "register".to_string())?,
        None => small(s, u32::from(REGISTER_COUNT), "register")?,
    };
    if r > max {
        return Err(format!("register {s} is above {max}"));
    }
    Ok(r)
}

fn data_type(s: &str) -> R<VsdType> {
    let s = s.trim();
    VsdType::ALL
        .into_iter()
        .find(|t| t.name().eq_ignore_ascii_case(s))
        .or_else(|| number(s).ok().and_then(VsdType::from_u32))
        .ok_or_else(|| format!("unknown data type `{s}` (D3DVSDT_FLOAT1 … D3DVSDT_SHORT4)"))
}

fn dword(s: &str) -> R<u32> {
    let s = s.trim();
    if s.starts_with("0x") || s.starts_with("0X") {
        number(s)
    } else {
        s.parse::<f32>()
            .map(f32::to_bits)
            .map_err(|_| format!("bad value `{s}` (a float, or 0x and 8 hex digits)"))
    }
}

/// `NAME(a, b)` → (`NAME`, [`a`, `b`]).
fn call(line: &str) -> R<(&str, Vec<&str>)> {
    let (name, rest) = line
        .split_once('(')
        .ok_or_else(|| format!("expected D3DVSD_NAME(...), found `{line}`"))?;
    let args = rest
        .trim_end()
        .strip_suffix(')')
        .ok_or_else(|| format!("`{line}` lacks its closing `)`"))?;
    let args: Vec<&str> = if args.trim().is_empty() {
        Vec::new()
    } else {
        args.split(',').map(str::trim).collect()
    };
    Ok((name.trim(), args))
}

fn arity<'a, const N: usize>(name: &str, args: &[&'a str]) -> R<[&'a str; N]> {
    <[&str; N]>::try_from(args).map_err(|_| format!("{name} takes {N} argument(s)"))
}

/// A token whose data DWORDs are still being read from the lines after it.
struct Pending {
    token: DeclToken,
    /// DWORDs it takes.
    want: usize,
    got: Vec<u32>,
}

impl Pending {
    fn finish(self) -> R<DeclToken> {
        if self.got.len() != self.want {
            return Err(format!(
                "the token above takes {} data DWORDs, {} given",
                self.want,
                self.got.len()
            ));
        }
        Ok(match self.token {
            DeclToken::Const { register, .. } => DeclToken::Const {
                register,
                values: self
                    .got
                    .chunks_exact(4)
                    .filter_map(|c| <[u32; 4]>::try_from(c).ok())
                    .collect(),
            },
            DeclToken::Ext { info, .. } => DeclToken::Ext {
                info,
                data: self.got,
            },
            t => t,
        })
    }
}

fn macro_token(name: &str, args: &[&str]) -> R<Pending> {
    let upper = name.to_ascii_uppercase();
    let simple = |token| {
        Ok(Pending {
            token,
            want: 0,
            got: Vec::new(),
        })
    };
    let last = REGISTER_COUNT.saturating_sub(1);
    match upper.as_str() {
        "D3DVSD_NOP" => {
            arity::<0>(name, args)?;
            simple(DeclToken::Nop)
        }
        "D3DVSD_STREAM" => {
            let [s] = arity(name, args)?;
            simple(DeclToken::Stream(small(s, 15, "stream")?))
        }
        "D3DVSD_STREAM_TESS" => {
            arity::<0>(name, args)?;
            simple(DeclToken::StreamTess)
        }
        "D3DVSD_REG" => {
            let [r, t] = arity(name, args)?;
            simple(DeclToken::Reg {
                register: register(r, last)?,
                ty: data_type(t)?,
            })
        }
        "D3DVSD_SKIP" => {
            let [n] = arity(name, args)?;
            simple(DeclToken::Skip(small(n, 15, "DWORD count")?))
        }
        "D3DVSD_SKIPBYTES" => {
            let [n] = arity(name, args)?;
            simple(DeclToken::SkipBytes(small(n, 15, "byte count")?))
        }
        "D3DVSD_CONST" => {
            let [r, n] = arity(name, args)?;
            let register = small(r, 127, "constant register")?;
            let n = small(n, 15, "constant count")?;
            Ok(Pending {
                token: DeclToken::Const {
                    register,
                    values: Vec::new(),
                },
                want: usize::from(n).saturating_mul(4),
                got: Vec::new(),
            })
        }
        "D3DVSD_TESSNORMAL" => {
            let [i, o] = arity(name, args)?;
            simple(DeclToken::TessNormal {
                input: register(i, 15)?,
                output: register(o, last)?,
            })
        }
        "D3DVSD_TESSUV" => {
            let [r] = arity(name, args)?;
            simple(DeclToken::TessUv(register(r, last)?))
        }
        "D3DVSD_EXT" => {
            let [info, n] = arity(name, args)?;
            let info = number(info)?;
            if info > crate::decl8::token::EXT_INFO_MASK {
                return Err(format!(
                    "extension information {info:#x} is wider than 24 bits"
                ));
            }
            let n = small(n, 31, "extension DWORD count")?;
            Ok(Pending {
                token: DeclToken::Ext {
                    info,
                    data: Vec::new(),
                },
                want: usize::from(n),
                got: Vec::new(),
            })
        }
        _ => Err(format!("unknown declaration token `{name}`")),
    }
}

/// Reads a declaration's text back (see the module documentation).
pub fn assemble(text: &str) -> Result<Dx8Declaration, ShaderError> {
    let syntax = |line: usize, what: String| ShaderError::new(ErrorKind::Syntax { line, what }, 0);
    let mut tokens = Vec::new();
    // The line of each token, for the errors of the walk.
    let mut lines = Vec::new();
    let mut pending: Option<(usize, Pending)> = None;
    let mut ended = false;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n.saturating_add(1);
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if ended {
            return Err(syntax(line_no, "text after D3DVSD_END()".into()));
        }
        let is_macro = line
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("D3DVSD_"));
        if !is_macro {
            let Some((_, p)) = pending.as_mut() else {
                return Err(syntax(
                    line_no,
                    format!("`{line}`: data DWORDs belong after D3DVSD_CONST or D3DVSD_EXT"),
                ));
            };
            for v in line.split(',').map(str::trim) {
                if p.got.len() >= p.want {
                    return Err(syntax(
                        line_no,
                        format!("more than the {} data DWORDs the token takes", p.want),
                    ));
                }
                p.got.push(dword(v).map_err(|e| syntax(line_no, e))?);
            }
            continue;
        }
        if let Some((at, p)) = pending.take() {
            tokens.push(p.finish().map_err(|e| syntax(at, e))?);
            lines.push(at);
        }
        let (name, args) = call(line).map_err(|e| syntax(line_no, e))?;
        if name.eq_ignore_ascii_case("D3DVSD_END") {
            if !args.is_empty() {
                return Err(syntax(line_no, "D3DVSD_END takes no argument".into()));
            }
            ended = true;
            continue;
        }
        pending = Some((
            line_no,
            macro_token(name, &args).map_err(|e| syntax(line_no, e))?,
        ));
    }
    if let Some((at, p)) = pending.take() {
        tokens.push(p.finish().map_err(|e| syntax(at, e))?);
        lines.push(at);
    }
    if !ended {
        let last = text.lines().count().max(1);
        return Err(syntax(last, "the declaration has no D3DVSD_END()".into()));
    }
    Dx8Declaration::from_tokens(tokens, |i| i).map_err(|e| {
        let line = lines.get(e.dword).copied().unwrap_or(1);
        syntax(line, e.kind.to_string())
    })
}
