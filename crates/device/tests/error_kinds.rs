//! Every error kind has a witness, and `docs/errors.md` is generated from
//! the witnesses (P14 of the reliability design).
//!
//! For each kind of [`DeviceError`], [`DecodeErrorKind`] and
//! [`PipelineError`] this file holds the smallest input that produces it
//! through the public API (a DP2 stream, a driver call, bytes handed to the
//! decoder), runs it, and checks the kind and the DDI code the caller sees.
//! Kinds no input can reach through the layer above are listed with the
//! kind that guards them. Submission kinds are produced by the per-code
//! tests of `crates/submit/tests/render.rs`, named here and checked to
//! exist. The page lists the message each witness actually produced.
//! `SOFTHAL_BLESS=1` rewrites the page; otherwise it must match.

mod common;

use common::*;
use softhal_device::*;
use softhal_pipeline::PipelineError;
use softhal_submit::SubmitError;
use softhal_wire::names::codes;
use softhal_wire::{DecodeErrorKind, DecodeOptions, Decoder};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// One documented kind.
struct Row {
    kind: &'static str,
    /// The code the caller sees.
    code: u32,
    /// The input that produces it, or what guards it.
    witness: String,
    /// The message of the error (the witness's, else the example's).
    message: String,
}

/// The failure of the last DP2 call of `s`.
fn failure(s: &Scene) -> DeviceError {
    s.drv.last_error().expect("the call failed").error.clone()
}

/// Runs DP2 assembly `src` on a fresh 8×8 scene with a quad of user
/// vertices; the call must fail at a command (`D3DERR_COMMAND_UNPARSED`).
fn dp2_command(src: &str) -> DeviceError {
    let mut s = Scene::new(8, 8, false);
    let o = s.run(src, &quad(0.0, 0.0, 8.0, 8.0, 0.5, 0xFFFF_FFFF));
    assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED, "{src}");
    failure(&s)
}

/// Like [`dp2_command`] for raw command bytes.
fn dp2_bytes(bytes: &[u8]) -> DeviceError {
    let mut s = Scene::new(8, 8, false);
    let o = s.run_bytes(bytes, &[]);
    assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED, "{bytes:?}");
    failure(&s)
}

/// A triangle list drawn with user vertices of FVF `fvf` (`stride` bytes).
fn dp2_fvf(fvf: u32, stride: u32) -> DeviceError {
    let mut s = Scene::new(8, 8, false);
    let o = s.run_fvf(
        "TRIANGLELIST count=1 wVStart=0",
        fvf,
        stride,
        &vec![0u8; 3 * stride as usize],
    );
    assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED);
    failure(&s)
}

/// A driver call that must fail.
fn call<T: std::fmt::Debug>(r: Result<T, DeviceError>) -> DeviceError {
    r.expect_err("the call fails")
}

/// The witnesses of every [`DeviceError`] kind: (description, error, code
/// the caller sees).
fn device_witnesses() -> Vec<(&'static str, DeviceError, u32)> {
    let unparsed = codes::D3DERR_COMMAND_UNPARSED;
    let mut out: Vec<(&'static str, DeviceError, u32)> = Vec::new();
    let mut cmd = |what: &'static str, e: DeviceError| out.push((what, e, unparsed));
    cmd(
        "DP2 `INDEXEDTRIANGLELIST` whose payload is cut off",
        dp2_bytes(&[3, 0, 1, 0, 0, 0]),
    );
    cmd(
        "DP2 opcode 200 with no `D3dParseUnknownCommand` hook",
        dp2_bytes(&[200, 0, 0, 0]),
    );
    cmd(
        "DP2 `RENDERSTATE { RenderState=300 }`",
        dp2_command("RENDERSTATE { RenderState=300 dwState=0 }"),
    );
    cmd(
        "DP2 `SETTRANSFORM { xfrmType=99 }`",
        dp2_command("SETTRANSFORM { xfrmType=99 _11=1.0 }"),
    );
    cmd(
        "DP2 `STATESET` END without BEGIN",
        dp2_command("STATESET { dwOperation=D3DHAL_STATESETEND dwParam=1 sbType=D3DSBT_ALL }"),
    );
    cmd(
        "DP2 `CREATEPIXELSHADER` whose tokens carry a vertex-shader version",
        dp2_command("CREATEPIXELSHADER { dwHandle=0x20 code=hex:0101feff0000ffff }"),
    );
    cmd(
        "DP2 `CREATEPIXELSHADER` of ps_2_0 `mov oC0, c40` (ps_2_0 has c0–c31)",
        dp2_command(
            "CREATEPIXELSHADER { dwHandle=0x21 code=hex:0002ffff0100000200080f802800e4a0ffff0000 }",
        ),
    );
    cmd(
        "DP2 draw with a stream frequency divider of 3",
        dp2_command(
            "SETVERTEXSHADER { dwHandle=0x44 }\nSETSTREAMSOURCEUM { dwStream=0 dwStride=20 }\n\
             SETSTREAMSOURCEFREQ { dwStream=0 dwDivider=3 }\n\
             DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }",
        ),
    );
    cmd("DP2 draw with FVF 0x45 (reserved bit 0)", dp2_fvf(0x45, 20));
    cmd(
        "DP2 draw with FVF 0x40 (a colour, no position)",
        dp2_fvf(0x40, 4),
    );
    // Call-level failures: the entry point's own code.
    let mut s = Scene::new(8, 8, false);
    let e = call(s.drv.destroy_surface(0xDEAD));
    out.push(("`destroy_surface(0xDEAD)`", e.clone(), e.ddrval()));
    let vb = s.drv.create_vertex_buffer(64, false).unwrap();
    let e = call(s.drv.context_create(vb, None));
    out.push((
        "`context_create` with a vertex buffer as the render target",
        e.clone(),
        e.ddrval(),
    ));
    let mut desc = SurfaceDesc::render_target(Format::A8R8G8B8, 8, 8);
    desc.format = D3dFormat(50);
    let e = call(s.drv.create_surface(desc));
    out.push(("a render target of D3DFORMAT 50", e.clone(), e.ddrval()));
    let e = call(s.drv.create_render_target(Format::A8R8G8B8, 0, 16));
    out.push(("a render target 0 pixels wide", e.clone(), e.ddrval()));
    let e = loop {
        if let Err(e) = s.drv.context_create(s.rt, None) {
            break e;
        }
    };
    out.push((
        "the 65th context of a driver",
        e.clone(),
        Driver::context_create_ddrval(&e),
    ));
    let e = loop {
        if let Err(e) = s.drv.create_render_target(Format::A8R8G8B8, 8192, 8192) {
            break e;
        }
    };
    out.push((
        "8192×8192 render targets until the driver's 2 GiB of surfaces is used",
        e.clone(),
        e.ddrval(),
    ));
    let dev = s
        .drv
        .gpu_context_of(s.ctx)
        .expect("the context's GPU context");
    let e = call(s.drv.render_context_destroy(dev));
    out.push((
        "`render_context_destroy` of a D3D context's own GPU context",
        e.clone(),
        e.ddrval(),
    ));
    // DP2 call-level failures: ddrval, no command handled.
    let mut s = Scene::new(8, 8, false);
    let cb = s.drv.create_command_buffer_with(&asm(NOCULL)).unwrap();
    let mut d = DrawPrimitives2Data::new(0x1234, cb, 8);
    s.drv.draw_primitives2(&mut d);
    out.push(("DP2 with `dwhContext` 0x1234", failure(&s), d.ddrval));
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 13);
    s.drv.draw_primitives2(&mut d);
    out.push((
        "DP2 whose `dwCommandLength` runs past the command buffer",
        failure(&s),
        d.ddrval,
    ));
    s.drv.flip(s.rt).unwrap();
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 8);
    s.drv.draw_primitives2(&mut d);
    out.push((
        "DP2 while the render target's flip is pending",
        failure(&s),
        d.ddrval,
    ));
    out
}

#[test]
fn every_device_error_kind_has_a_witness_input() {
    let all: BTreeSet<&str> = DeviceError::examples()
        .iter()
        .map(DeviceError::kind)
        .collect();
    let mut seen = BTreeSet::new();
    for (what, e, code) in device_witnesses() {
        assert!(
            seen.insert(e.kind()),
            "{what}: a second witness of {}",
            e.kind()
        );
        // Outside DP2 commands the caller sees the kind's own code.
        if code != codes::D3DERR_COMMAND_UNPARSED && e.kind() != "limit" {
            assert_eq!(code, e.ddrval(), "{what}: {e}");
        }
    }
    assert_eq!(seen, all, "kinds without a witness input");
}

/// [`DecodeErrorKind`]: the bytes that produce each, decoded with a 20-byte
/// vertex stride (`None`: the kind no bytes can reach, and why).
fn decode_witnesses() -> Vec<(&'static str, Result<DecodeErrorKind, &'static str>)> {
    let first_error = |bytes: &[u8], stride: u32| {
        let opts = DecodeOptions {
            vertex_stride: stride,
            base_align: 0,
        };
        Decoder::new(bytes, opts)
            .find_map(Result::err)
            .expect("the bytes fail to decode")
            .kind
    };
    let resume = || {
        let mut d = Decoder::new(&[0u8; 16], DecodeOptions::default());
        d.next();
        d.resume_at(0).expect_err("a resume backwards fails").kind
    };
    let unknown = softhal_wire::decode_all(&[200, 0, 0, 0], DecodeOptions::default())
        .expect_err("tools refuse unknown opcodes")
        .kind;
    vec![
        ("2 bytes: half a command header", Ok(first_error(&[3, 0], 20))),
        ("`INDEXEDTRIANGLELIST` count 1 with 2 payload bytes", Ok(first_error(&[3, 0, 1, 0, 0, 0], 20))),
        ("`TRIANGLEFAN_IMM` count 1 without its 3 vertices", Ok(first_error(&[23, 0, 1, 0, 0, 0, 0, 0], 20))),
        ("`TRIANGLEFAN_IMM` decoded with vertex stride 0", Ok(first_error(&[23, 0, 1, 0, 0, 0, 0, 0], 0))),
        ("`RESPONSEQUERY` whose `dwTotalSize` is 4", Ok(first_error(&[88, 0, 1, 0, 4, 0, 0, 0], 20))),
        ("opcode 200 given to `decode_all` (tools; the device hands it to the hook)", Ok(unknown)),
        ("`Decoder::resume_at` a target behind the current command", Ok(resume())),
        (
            "guarded: sizes are computed in 64 bits from 16-bit counts and 32-bit strides, which cannot overflow",
            Err("count_overflow"),
        ),
    ]
}

#[test]
fn every_decode_error_kind_has_a_witness_or_a_guard() {
    let all: BTreeSet<&str> = DecodeErrorKind::examples()
        .iter()
        .map(DecodeErrorKind::code)
        .collect();
    let seen: BTreeSet<&str> = decode_witnesses()
        .iter()
        .map(|(_, k)| k.as_ref().map_or_else(|g| *g, DecodeErrorKind::code))
        .collect();
    assert_eq!(seen, all);
}

/// [`PipelineError`]: the device reaches `bad_dimensions` with a 0-wide
/// render target; every other kind is a second check (P13) behind the
/// device kind named, or comes from the host's side of the pipeline.
fn pipeline_guards() -> Vec<(&'static str, &'static str)> {
    vec![
        ("bad_dimensions", "a render target 0 pixels wide"),
        (
            "bad_pitch",
            "guarded: the device computes every pitch itself",
        ),
        (
            "surface_too_large",
            "guarded by `limit` / `out_of_memory` (surface caps)",
        ),
        ("bad_format", "guarded by `unsupported_format`"),
        (
            "depth_too_small",
            "guarded by `invalid_params` (`context_create` checks the depth buffer's size)",
        ),
        (
            "target_size_mismatch",
            "guarded by `invalid_params` (a draw or CLEAR with render targets of different sizes) and by the kernel's DRAW / CLEAR check",
        ),
        (
            "bad_vertex_layout",
            "guarded by `fvf`, `no_position` and `bad_value` (declarations)",
        ),
        (
            "bad_program",
            "guarded: the device does not hand the pipeline shaders yet (a draw with a shader bound fails with `unsupported` before any packet)",
        ),
        (
            "vertex_buffer_too_small",
            "guarded by `out_of_range` (every draw's vertex range)",
        ),
        (
            "index_buffer_too_small",
            "guarded by `out_of_range` (every draw's index range)",
        ),
        (
            "thread_pool",
            "`Driver::new` when the system refuses a rasterizer thread",
        ),
        (
            "png",
            "PNG export (`softhal` CLI, `Driver::image`) when the file cannot be written",
        ),
        (
            "too_many_threads",
            "`Driver::new` (every thread-count entry) above `MAX_THREADS`",
        ),
        (
            "stopped",
            "the GPU watchdog (timeout or cancellation); the kernel turns it into a hung context, `device_removed`",
        ),
    ]
}

#[test]
fn every_pipeline_error_kind_is_reached_or_guarded() {
    let all: BTreeSet<&str> = PipelineError::examples()
        .iter()
        .map(PipelineError::kind)
        .collect();
    let listed: BTreeSet<&str> = pipeline_guards().iter().map(|(k, _)| *k).collect();
    assert_eq!(listed, all);
    let reached = device_witnesses()
        .into_iter()
        .find_map(|(_, e, _)| match e {
            DeviceError::Pipeline(p) => Some(p.kind()),
            _ => None,
        });
    assert_eq!(reached, Some("bad_dimensions"));
}

/// [`SubmitError`]: the test of `crates/submit/tests/render.rs` that
/// submits a buffer producing each kind and checks the HRESULT.
fn submit_witnesses() -> Vec<(&'static str, &'static str)> {
    vec![
        ("privileged", "privileged_packets_in_user_buffers"),
        ("invalid_instruction", "invalid_instructions"),
        ("invalid_shader", "invalid_shaders"),
        ("invalid_handle", "invalid_handles"),
        ("locked_allocation", "locked_allocation_that_cannot_move"),
        ("invalid_user_buffer", "invalid_user_buffers"),
        ("limit", "limits_are_out_of_memory"),
        ("invalid_arg", "bad_call_parameters_are_invalidarg"),
        (
            "device_removed",
            "a_hung_context_refuses_submissions_with_device_removed",
        ),
    ]
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn every_submit_error_kind_has_a_witness_test() {
    let all: BTreeSet<&str> = SubmitError::examples()
        .iter()
        .map(SubmitError::kind)
        .collect();
    let listed: BTreeSet<&str> = submit_witnesses().iter().map(|(k, _)| *k).collect();
    assert_eq!(listed, all);
    let tests = std::fs::read_to_string(root().join("crates/submit/tests/render.rs")).unwrap();
    for (kind, test) in submit_witnesses() {
        assert!(
            tests.contains(&format!("#[test]\nfn {test}()")),
            "{kind}: no test {test}"
        );
    }
}

/// A code's name; DirectDraw-era entry points (`ddraw`) name the values
/// they share with COM by their `DDERR_` names.
fn code_name(code: u32, ddraw: bool) -> String {
    let com = codes::format_hresult(code);
    match code {
        codes::DDERR_INVALIDPARAMS if ddraw => format!("`DDERR_INVALIDPARAMS` (`{com}`)"),
        codes::DDERR_OUTOFMEMORY if ddraw => format!("`DDERR_OUTOFMEMORY` (`{com}`)"),
        _ => format!("`{com}`"),
    }
}

/// The error as a fresh driver would report it: handles are tagged per
/// driver, so a wrong-kind handle is shown as the first surface's.
fn stable(e: DeviceError) -> DeviceError {
    match e {
        DeviceError::WrongKind {
            expected, actual, ..
        } => DeviceError::WrongKind {
            handle: 0x0001_0002,
            expected,
            actual,
        },
        e => e,
    }
}

/// A section: `intro`, then a table of `rows` (`|` in messages escaped).
fn table(out: &mut String, intro: &str, rows: impl IntoIterator<Item = Row>, ddraw: bool) {
    out.push_str(intro);
    out.push_str("| kind | code | witness | message |\n|---|---|---|---|\n");
    for r in rows {
        let code = code_name(r.code, ddraw);
        let msg = r.message.replace('|', "\\|");
        writeln!(out, "| `{}` | {code} | {} | {msg} |", r.kind, r.witness).unwrap();
    }
}

/// The example of kind `kind` among `examples`.
fn example<E>(examples: &[E], name: fn(&E) -> &'static str, kind: &str) -> E
where
    E: Clone,
{
    examples.iter().find(|e| name(e) == kind).unwrap().clone()
}

fn page() -> String {
    let mut out = String::from(
        "# Errors and the DDI codes they map to\n\n\
         Generated by `crates/device/tests/error_kinds.rs` from the error types'\n\
         `kind()` names and from one witness per kind: the input that produces it\n\
         through the public API, which the test runs (the message column is what\n\
         that run produced). Regenerate with\n\
         `SOFTHAL_BLESS=1 cargo test --release -p softhal-device --test error_kinds`.\n\
         Each kind maps to exactly one code at each boundary; `Driver::last_error()`\n\
         and the typed errors keep the kind and its numbers.\n\n",
    );
    let mut dev: Vec<Row> = device_witnesses()
        .into_iter()
        .map(|(what, e, code)| Row {
            kind: e.kind(),
            code,
            witness: what.to_string(),
            message: stable(e).to_string(),
        })
        .collect();
    dev.sort_by_key(|r| r.kind);
    table(
        &mut out,
        "## Device (`DeviceError`)\n\n\
         Inside `D3dDrawPrimitives2`, a command that fails to decode or validate\n\
         stops the call with `D3DERR_COMMAND_UNPARSED` and `dwErrorOffset` at the\n\
         command (every command before it took effect). Call-level failures (bad\n\
         context, command range, pending flip) return the kind's own code with\n\
         `dwErrorOffset` = `dwCommandOffset`, and so do the other entry points\n\
         (surface creation, `context_create` — which reports `limit` as\n\
         `D3DHAL_OUTOFCONTEXTS` — lock, `D3dClear2`, ...). The code column is what\n\
         the witness's caller saw.\n\n",
        dev,
        true,
    );
    let examples = DecodeErrorKind::examples();
    table(
        &mut out,
        "\nA kind's code outside DP2 commands is `DeviceError::ddrval`; wrapped\n\
         errors take theirs from the layer below (next sections).\n\n\
         ## Decoding (`DecodeErrorKind`, inside `decode`)\n\n\
         Always `D3DERR_COMMAND_UNPARSED` at the command's offset in DP2.\n\n",
        decode_witnesses().into_iter().map(|(what, k)| {
            let (kind, message) = match k {
                Ok(k) => (k.code(), k.to_string()),
                Err(g) => (
                    g,
                    format!("(example) {}", example(&examples, DecodeErrorKind::code, g)),
                ),
            };
            Row {
                kind,
                code: codes::D3DERR_COMMAND_UNPARSED,
                witness: what.to_string(),
                message,
            }
        }),
        true,
    );
    let examples = PipelineError::examples();
    table(
        &mut out,
        "\n## Pipeline (`PipelineError`, inside `pipeline`)\n\n\
         The pipeline validates every draw, clear and surface again before the\n\
         first pixel is written. Through the device only `bad_dimensions` is\n\
         reachable; every other kind is guarded by the device kind named, so\n\
         reaching one from DP2 input would be a device bug (the fuzz builds keep\n\
         these checks on). Messages are the kinds' examples.\n\n",
        pipeline_guards().into_iter().map(|(kind, guard)| {
            let e = example(&examples, PipelineError::kind, kind);
            Row {
                kind,
                code: DeviceError::Pipeline(e.clone()).ddrval(),
                witness: guard.to_string(),
                message: e.to_string(),
            }
        }),
        true,
    );
    let examples = SubmitError::examples();
    table(
        &mut out,
        "\n## Render callback (`SubmitError`, `Kmd::render`, `softhal_render_cb`)\n\n\
         A rejected submission changes nothing. The witness is the test of\n\
         `crates/submit/tests/render.rs` that submits such a buffer and checks\n\
         the code; messages are the kinds' examples. (At `softhal_render_cb`,\n\
         arguments the C boundary refuses before the kernel sees them are\n\
         `E_INVALIDARG`: `docs/c-api.md`.)\n\n",
        submit_witnesses().into_iter().map(|(kind, test)| {
            let e = example(&examples, SubmitError::kind, kind);
            Row {
                kind,
                code: e.hresult(),
                witness: format!("`{test}`"),
                message: e.to_string(),
            }
        }),
        false,
    );
    out.push_str(
        "\n## The C boundary\n\n\
         Before a call reaches the device: a NULL or misaligned `D3DHAL_*DATA`\n\
         pointer makes a DDI callback return `DDHAL_DRIVER_NOTHANDLED`; a bad\n\
         argument pointer or range is `DDERR_INVALIDPARAMS` / `E_INVALIDARG`; an\n\
         unknown object pointer is `DDERR_INVALIDOBJECT` (contexts:\n\
         `D3DHAL_CONTEXT_BAD`); a panic caught at the boundary (a bug) is\n\
         `D3DERR_DRIVERINTERNALERROR`. See `docs/c-api.md`, *Errors*.\n",
    );
    out
}

#[test]
fn docs_errors_md_is_generated_from_the_witnesses() {
    let path = root().join("docs/errors.md");
    let want = page();
    if std::env::var_os("SOFTHAL_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/errors.md is stale: run `SOFTHAL_BLESS=1 cargo test --release -p softhal-device --test error_kinds`"
    );
}
