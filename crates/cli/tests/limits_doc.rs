//! `docs/limits.md` cannot go stale: every `pub const` of every `limits`
//! module (`crates/*/src/limits.rs`, `crates/pipeline/src/texture/limits.rs`)
//! is listed there by name with the value the source evaluates to, and
//! every constant the page lists exists. Plus spot checks, through the
//! public APIs, that exceeding the main caps is a documented error and not
//! an allocation.

use softhal_device::{limits, DrawPrimitives2Data, Driver, Format, SurfaceDesc, SurfaceKind};
use softhal_wire::names::codes;
use softhal_wire::DecodeOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every limits module, as a path relative to the repository root.
fn modules() -> Vec<String> {
    let mut out = Vec::new();
    let crates = std::fs::read_dir(root().join("crates")).expect("crates/ exists");
    for entry in crates.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().join("src/limits.rs").is_file() {
            out.push(format!("crates/{name}/src/limits.rs"));
        }
    }
    out.push("crates/pipeline/src/texture/limits.rs".to_string());
    out.sort();
    out
}

/// A constant's value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn int(self) -> i128 {
        match self {
            Num::Int(i) => i,
            Num::Float(f) => f as i128,
        }
    }
    fn float(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
    fn parse(s: &str) -> Option<Num> {
        let s = s.replace('_', "");
        if s.contains('.') {
            s.parse().ok().map(Num::Float)
        } else {
            s.parse().ok().map(Num::Int)
        }
    }
}

/// The `pub const NAME: T = EXPR;` items of a Rust source, comments
/// removed: (name, expression).
fn consts(src: &str) -> Vec<(String, String)> {
    let code: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("pub const ") {
        rest = &rest[i + "pub const ".len()..];
        let colon = rest.find(':').expect("a typed const");
        let eq = rest.find('=').expect("an initialised const");
        let semi = rest.find(';').expect("a terminated const");
        out.push((
            rest[..colon].trim().to_string(),
            rest[eq + 1..semi].trim().to_string(),
        ));
        rest = &rest[semi..];
    }
    out
}

/// Evaluates a constant expression of a limits module: literals, other
/// constants (`NAME`, `crate::limits::NAME`), `+ - * / << >>`, parentheses
/// and `as` casts.
struct Eval<'a> {
    toks: Vec<String>,
    pos: usize,
    lookup: &'a dyn Fn(&str) -> Num,
}

impl Eval<'_> {
    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let cs: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < cs.len() {
            let c = cs[i];
            if c.is_whitespace() {
                i += 1;
            } else if c.is_alphanumeric() || c == '_' {
                let start = i;
                while i < cs.len()
                    && (cs[i].is_alphanumeric()
                        || cs[i] == '_'
                        || cs[i] == ':'
                        || (cs[i] == '.' && cs[start].is_ascii_digit()))
                {
                    i += 1;
                }
                out.push(cs[start..i].iter().collect());
            } else if (c == '<' || c == '>') && cs.get(i + 1) == Some(&c) {
                out.push(format!("{c}{c}"));
                i += 2;
            } else {
                out.push(c.to_string());
                i += 1;
            }
        }
        out
    }
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }
    fn next(&mut self) -> String {
        self.pos += 1;
        self.toks[self.pos - 1].clone()
    }
    fn atom(&mut self) -> Num {
        let t = self.next();
        let v = if t == "(" {
            let v = self.shift();
            assert_eq!(self.next(), ")");
            v
        } else if t == "-" {
            match self.atom() {
                Num::Int(i) => Num::Int(-i),
                Num::Float(f) => Num::Float(-f),
            }
        } else if let Some(n) = Num::parse(&t) {
            n
        } else {
            (self.lookup)(t.rsplit("::").next().unwrap_or(&t))
        };
        while self.peek() == Some("as") {
            self.next();
            self.next();
        }
        v
    }
    fn product(&mut self) -> Num {
        let mut v = self.atom();
        while let Some(op @ ("*" | "/")) = self.peek() {
            let op = op.to_string();
            self.next();
            let r = self.atom();
            v = match (v, r, op.as_str()) {
                (Num::Int(a), Num::Int(b), "*") => Num::Int(a * b),
                (Num::Int(a), Num::Int(b), _) => Num::Int(a / b),
                (a, b, "*") => Num::Float(a.float() * b.float()),
                (a, b, _) => Num::Float(a.float() / b.float()),
            };
        }
        v
    }
    fn sum(&mut self) -> Num {
        let mut v = self.product();
        while let Some(op @ ("+" | "-")) = self.peek() {
            let op = op.to_string();
            self.next();
            let r = self.product();
            v = match (v, r, op.as_str()) {
                (Num::Int(a), Num::Int(b), "+") => Num::Int(a + b),
                (Num::Int(a), Num::Int(b), _) => Num::Int(a - b),
                (a, b, "+") => Num::Float(a.float() + b.float()),
                (a, b, _) => Num::Float(a.float() - b.float()),
            };
        }
        v
    }
    fn shift(&mut self) -> Num {
        let mut v = self.sum();
        while let Some(op @ ("<<" | ">>")) = self.peek() {
            let op = op.to_string();
            self.next();
            let r = self.sum().int() as u32;
            v = Num::Int(if op == "<<" {
                v.int() << r
            } else {
                v.int() >> r
            });
        }
        v
    }
}

/// (module path, constant name) → value, evaluated from the sources.
fn source_values() -> BTreeMap<(String, String), Num> {
    let mut exprs: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for m in modules() {
        let src = std::fs::read_to_string(root().join(&m)).expect("readable");
        exprs.insert(m, consts(&src));
    }
    fn eval(
        exprs: &BTreeMap<String, Vec<(String, String)>>,
        module: &str,
        name: &str,
        depth: usize,
    ) -> Num {
        assert!(depth < 16, "{module}: {name} is defined in terms of itself");
        let (_, expr) = exprs[module]
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{module}: {name} not found"));
        // `crate::limits::X` refers to the crate's root limits module.
        let crate_root = module
            .split("/src/")
            .next()
            .map(|c| format!("{c}/src/limits.rs"))
            .unwrap_or_default();
        let path_expr = expr.contains("crate::limits::");
        let lookup = |n: &str| {
            let here = exprs[module].iter().any(|(k, _)| k == n);
            if here && !(path_expr && module != crate_root) {
                eval(exprs, module, n, depth + 1)
            } else {
                eval(exprs, &crate_root, n, depth + 1)
            }
        };
        let mut e = Eval {
            toks: Eval::tokens(expr),
            pos: 0,
            lookup: &lookup,
        };
        let v = e.shift();
        assert_eq!(
            e.pos,
            e.toks.len(),
            "{module}: cannot evaluate {name} = {expr}"
        );
        v
    }
    let mut out = BTreeMap::new();
    for (m, list) in &exprs {
        for (name, _) in list {
            out.insert((m.clone(), name.clone()), eval(&exprs, m, name, 0));
        }
    }
    out
}

/// (module path, constant name) → value, as `docs/limits.md` lists them.
fn documented_values() -> BTreeMap<(String, String), Num> {
    let doc = std::fs::read_to_string(root().join("docs/limits.md")).expect("docs/limits.md");
    let mut out = BTreeMap::new();
    let mut module: Option<String> = None;
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            module = h
                .split_whitespace()
                .find(|w| w.ends_with("limits.rs"))
                .map(str::to_string);
            continue;
        }
        let Some(m) = &module else { continue };
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`').to_string();
        let token = cells[2].split_whitespace().next().unwrap_or("");
        let value = Num::parse(&token.replace(',', ""))
            .unwrap_or_else(|| panic!("docs/limits.md: {m}: {name}: cannot read value {token:?}"));
        let key = (m.clone(), name);
        assert!(
            out.insert(key.clone(), value).is_none(),
            "docs/limits.md lists {key:?} twice"
        );
    }
    out
}

fn same(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x == y,
        _ => a.float() == b.float(),
    }
}

#[test]
fn limits_doc_lists_every_limit_with_its_value() {
    let src = source_values();
    let doc = documented_values();
    assert!(src.len() > 50, "only {} limits found", src.len());
    let mut problems = Vec::new();
    for (key, v) in &src {
        match doc.get(key) {
            None => problems.push(format!(
                "{}: {} = {v:?} is not in docs/limits.md",
                key.0, key.1
            )),
            Some(d) if !same(*d, *v) => problems.push(format!(
                "{}: {} is {v:?} in the source but {d:?} in docs/limits.md",
                key.0, key.1
            )),
            Some(_) => {}
        }
    }
    for key in doc.keys() {
        if !src.contains_key(key) {
            problems.push(format!(
                "docs/limits.md lists {} in {}, which has no such constant",
                key.1, key.0
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/limits.md is stale:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_evaluator_reads_expressions() {
    let none = |_: &str| Num::Int(7);
    let eval = |s: &str| {
        let mut e = Eval {
            toks: Eval::tokens(s),
            pos: 0,
            lookup: &none,
        };
        e.shift()
    };
    assert_eq!(eval("256 * 1024 * 1024 + 4096"), Num::Int(268_439_552));
    assert_eq!(eval("64 << 20"), Num::Int(64 << 20));
    assert_eq!(eval("3 + 2 + 4 + X"), Num::Int(16));
    assert_eq!(eval("((X / 2) * 3) as usize * 24"), Num::Int(216));
    assert_eq!(eval("-16384.0"), Num::Float(-16384.0));
    assert_eq!(eval("16_384"), Num::Int(16384));
}

// ------------------------------------------------------------ spot checks

/// The codes a cap may be reported as (docs/limits.md).
fn documented_limit_code(code: u32) -> bool {
    [
        codes::DDERR_OUTOFMEMORY,
        codes::DDERR_INVALIDPARAMS,
        codes::D3DHAL_OUTOFCONTEXTS,
        codes::D3DERR_COMMAND_UNPARSED,
    ]
    .contains(&code)
}

fn run_stream(driver: &mut Driver, ctx: u32, src: &str) -> (u32, u32, usize) {
    let opts = DecodeOptions {
        vertex_stride: 20,
        base_align: 0,
    };
    let bytes = softhal_wire::text::assemble_with(src, opts).expect("valid assembly");
    let cb = driver
        .create_command_buffer_with(&bytes)
        .expect("a command buffer");
    let mut d = DrawPrimitives2Data::new(ctx, cb, bytes.len() as u32);
    driver.draw_primitives2(&mut d);
    driver.destroy_surface(cb).expect("destroyable");
    (d.ddrval, d.dw_error_offset, bytes.len())
}

#[test]
fn every_cap_is_a_documented_error() {
    let mut driver = Driver::new(1).expect("a driver");
    let too_wide = limits::MAX_TEXTURE_DIMENSION + 1;
    // Surfaces beyond the dimension caps: errors, nothing allocated. (A
    // render target one pixel too wide is the known finding below.)
    for desc in [
        SurfaceDesc::render_target(Format::X8R8G8B8, u32::MAX, u32::MAX),
        SurfaceDesc::texture(Format::A8R8G8B8, 1, too_wide, 1),
        SurfaceDesc::texture(Format::A8R8G8B8, 16, 16, limits::MAX_MIP_LEVELS + 1),
        SurfaceDesc::volume_texture(Format::A8R8G8B8, 4, 4, limits::MAX_VOLUME_DEPTH + 1, 1),
        SurfaceDesc::buffer(SurfaceKind::VertexBuffer { implicit: false }, u32::MAX),
        SurfaceDesc::buffer(
            SurfaceKind::CommandBuffer,
            (limits::MAX_BUFFER_BYTES + 1) as u32,
        ),
    ] {
        let e = driver
            .create_surface(desc)
            .expect_err("a surface beyond a cap must be refused");
        assert!(
            documented_limit_code(e.ddrval()),
            "{desc:?}: {e} is reported as {:#x}",
            e.ddrval()
        );
    }

    // Contexts: the (MAX_CONTEXTS + 1)-th is D3DHAL_OUTOFCONTEXTS.
    let rt = driver
        .create_render_target(Format::X8R8G8B8, 8, 8)
        .expect("a render target");
    let contexts: Vec<u32> = (0..limits::MAX_CONTEXTS)
        .map(|_| driver.context_create(rt, None).expect("within the cap"))
        .collect();
    let e = driver
        .context_create(rt, None)
        .expect_err("one context past the cap");
    assert_eq!(
        Driver::context_create_ddrval(&e),
        codes::D3DHAL_OUTOFCONTEXTS
    );
    for c in &contexts[1..] {
        driver.context_destroy(*c).expect("live");
    }
    let ctx = contexts[0];

    // Per-context caps reached through DP2: the command past the cap fails
    // at its own offset and the ones before it took effect.
    let light = format!("CREATELIGHT {{ dwIndex={} }}\n", limits::MAX_LIGHTS);
    let (ddrval, offset, _) = run_stream(
        &mut driver,
        ctx,
        &format!("CREATELIGHT {{ dwIndex=0 }}\n{light}"),
    );
    assert_eq!(ddrval, codes::D3DERR_COMMAND_UNPARSED);
    assert_eq!(
        offset, 8,
        "CREATELIGHT past MAX_LIGHTS fails at its own offset"
    );

    let mut blocks = String::new();
    for i in 1..=limits::MAX_STATE_BLOCKS + 1 {
        blocks.push_str(&format!(
            "STATESET {{ dwOperation=D3DHAL_STATESETBEGIN dwParam={i} sbType=D3DSBT_ALL }}\n\
             STATESET {{ dwOperation=D3DHAL_STATESETEND dwParam={i} sbType=D3DSBT_ALL }}\n"
        ));
    }
    let (ddrval, offset, len) = run_stream(&mut driver, ctx, &blocks);
    assert_eq!(
        ddrval,
        codes::D3DERR_COMMAND_UNPARSED,
        "state blocks past MAX_STATE_BLOCKS"
    );
    assert!(offset > 0 && (offset as usize) < len);
    assert!(driver.context(ctx).expect("live").state_blocks.len() <= limits::MAX_STATE_BLOCKS);

    let mut queries = String::new();
    for i in 1..=limits::MAX_QUERIES + 1 {
        queries.push_str(&format!(
            "CREATEQUERY {{ dwQueryID={i} QueryType=D3DQUERYTYPE_OCCLUSION }}\n"
        ));
    }
    let (ddrval, offset, len) = run_stream(&mut driver, ctx, &queries);
    assert_eq!(
        ddrval,
        codes::D3DERR_COMMAND_UNPARSED,
        "queries past MAX_QUERIES"
    );
    assert_eq!(offset as usize, len - len / (limits::MAX_QUERIES + 1));
    assert_eq!(
        driver.context(ctx).expect("live").queries.len(),
        limits::MAX_QUERIES
    );
}

#[test]
fn capture_caps_are_load_errors() {
    // A text capture whose surface asks for more than the device allows
    // loads (the capture format does not cap dimensions) and its replay
    // answers with the device's refusal — no allocation, no panic.
    let src =
        ".capture 1\nsurface 0x1 render_target format=D3DFMT_X8R8G8B8 width=9000 height=9000\n";
    let c =
        softhal_capture::load(src.as_bytes(), None).expect("dimensions are the device's to refuse");
    let r = softhal_capture::replay(&c, 1, |_, _| {}).expect("a driver");
    let answer = r
        .answers
        .iter()
        .flatten()
        .next()
        .expect("the create answer");
    assert_ne!(
        answer.ddrval,
        codes::D3D_OK,
        "a 9000x9000 target must be refused"
    );
    // Binary: a record declaring a payload past MAX_RECORD_BYTES is refused
    // by its length alone.
    let mut bytes = softhal_capture::binary::header();
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&0u16.to_le_bytes());
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(softhal_capture::load(&bytes, None).is_err());
}

/// Found by the robustness work: a render target or depth buffer one
/// pixel wider than the limit was refused by the pipeline, and the device
/// reported that as `D3DERR_DRIVERINTERNALERROR` (the code of a caught
/// panic) instead of a documented parameter/limit error.
#[test]
fn an_oversized_render_target_is_a_documented_error() {
    let mut driver = Driver::new(1).expect("a driver");
    for desc in [
        SurfaceDesc::render_target(Format::X8R8G8B8, limits::MAX_TEXTURE_DIMENSION + 1, 1),
        SurfaceDesc::depth_stencil(Format::D24S8, 1, limits::MAX_TEXTURE_DIMENSION + 1),
    ] {
        let e = driver.create_surface(desc).expect_err("refused");
        assert!(
            documented_limit_code(e.ddrval()),
            "{desc:?}: {e} is {:#x}",
            e.ddrval()
        );
    }
}
