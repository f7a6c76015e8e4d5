//! `softhal bench --sweep`: the W2 mesh under a fixed list of
//! fixed-function state combinations, to find the slow paths a frame of
//! mixed state would hit.
//!
//! In: the bench arguments (threads, SIMD, `--frames`, noise control).
//! Out: one row per combination (name, textures, Mpix/s, checksum) and, per
//! texture count, the slowest combination's throughput as a fraction of the
//! fastest's. Every combination draws the 200 full-screen quads of W2
//! (157,286,400 pixels per frame) through `DrawPrimitives2`, with the states
//! of the row on top of the workloads' common ones; the textures are the
//! workloads' colour map and light map, stored in the row's format.

use serde_json::json;
use std::process::ExitCode;

use crate::bench::{frame_checksum, time_batches, BenchArgs, FrameSource};
use crate::bench_dp2::{bind_texture, render_states, stage_states, Dp2Rig, Dp2Setup, Dp2Texture};
use crate::workloads;
use softhal_device::Format;

/// One combination: a name, its texture count and its setup.
pub struct Combination {
    /// What the combination is, in D3D terms.
    pub name: &'static str,
    /// Textures sampled per pixel.
    pub textures: usize,
    /// Target format, textures and states.
    pub setup: Dp2Setup,
}

const BLEND: &[(&str, &str)] = &[
    ("D3DRS_ALPHABLENDENABLE", "TRUE"),
    ("D3DRS_SRCBLEND", "D3DBLEND_SRCALPHA"),
    ("D3DRS_DESTBLEND", "D3DBLEND_INVSRCALPHA"),
];
const VERTEX_FOG: &[(&str, &str)] = &[
    ("D3DRS_FOGENABLE", "TRUE"),
    ("D3DRS_FOGCOLOR", "0xff8099b3"),
    ("D3DRS_FOGTABLEMODE", "D3DFOG_NONE"),
    ("D3DRS_FOGVERTEXMODE", "D3DFOG_NONE"),
];
const ALPHA_TEST: &[(&str, &str)] = &[
    ("D3DRS_ALPHATESTENABLE", "TRUE"),
    ("D3DRS_ALPHAFUNC", "D3DCMP_GREATER"),
    ("D3DRS_ALPHAREF", "0x80"),
];

/// Stage `stage`: `op(arg1, arg2)` for colour and alpha alike.
fn op(stage: u32, op: &str, arg1: &str, arg2: &str) -> String {
    stage_states(
        stage,
        &[
            ("D3DTSS_COLOROP", op),
            ("D3DTSS_COLORARG1", arg1),
            ("D3DTSS_COLORARG2", arg2),
            ("D3DTSS_ALPHAOP", op),
            ("D3DTSS_ALPHAARG1", arg1),
            ("D3DTSS_ALPHAARG2", arg2),
            ("D3DTSS_TEXCOORDINDEX", "0"),
        ],
    )
}

/// Stage 0 passing the diffuse colour and alpha through (no texture).
fn diffuse_only() -> String {
    op(0, "D3DTOP_SELECTARG1", "D3DTA_DIFFUSE", "D3DTA_DIFFUSE")
}

/// Stage 0 = `op0` of the colour map and the diffuse colour.
fn base(op0: &str) -> String {
    bind_texture(0, 0) + &op(0, op0, "D3DTA_TEXTURE", "D3DTA_DIFFUSE")
}

/// Stage `stage` = `op_(texture slot, CURRENT)`.
fn layer(stage: u32, slot: usize, op_: &str) -> String {
    bind_texture(stage, slot) + &op(stage, op_, "D3DTA_TEXTURE", "D3DTA_CURRENT")
}

fn rs(states: &[(&str, &str)]) -> String {
    render_states(states)
}

/// The fixed list of combinations (at least 32; the order is the table's).
pub fn combinations() -> Vec<Combination> {
    let colour = |format| Dp2Texture {
        format,
        texels: workloads::w3_texture(),
    };
    let light = || Dp2Texture {
        format: Format::A8R8G8B8,
        texels: workloads::w10_light_map(),
    };
    let argb = Format::A8R8G8B8;
    let c = |name: &'static str, target: Format, textures: Vec<Dp2Texture>, states: String| {
        let mut setup = Dp2Setup::new(workloads::FVF, None);
        setup.target = target;
        let n = textures.len();
        setup.textures = textures;
        setup.states = states;
        Combination {
            name,
            textures: n,
            setup,
        }
    };
    let depth = |mut comb: Combination, func: &'static str| {
        comb.setup.z = Some(func);
        comb
    };
    let r565 = Format::R5G6B5;
    vec![
        // No texture.
        c("gouraud", argb, vec![], String::new()),
        c(
            "flat shading",
            argb,
            vec![],
            rs(&[("D3DRS_SHADEMODE", "D3DSHADE_FLAT")]),
        ),
        c(
            "vertex-alpha blend",
            argb,
            vec![],
            diffuse_only() + &rs(BLEND),
        ),
        c(
            "additive blend ONE/ONE",
            argb,
            vec![],
            diffuse_only()
                + &rs(&[
                    ("D3DRS_ALPHABLENDENABLE", "TRUE"),
                    ("D3DRS_SRCBLEND", "D3DBLEND_ONE"),
                    ("D3DRS_DESTBLEND", "D3DBLEND_ONE"),
                ]),
        ),
        c(
            "multiplicative blend DESTCOLOR/ZERO",
            argb,
            vec![],
            diffuse_only()
                + &rs(&[
                    ("D3DRS_ALPHABLENDENABLE", "TRUE"),
                    ("D3DRS_SRCBLEND", "D3DBLEND_DESTCOLOR"),
                    ("D3DRS_DESTBLEND", "D3DBLEND_ZERO"),
                ]),
        ),
        c(
            "alpha test GREATER",
            argb,
            vec![],
            diffuse_only() + &rs(ALPHA_TEST),
        ),
        depth(
            c("depth LESSEQUAL", argb, vec![], String::new()),
            "D3DCMP_LESSEQUAL",
        ),
        c("vertex fog", argb, vec![], rs(VERTEX_FOG)),
        c(
            "table fog LINEAR",
            argb,
            vec![],
            rs(&[
                ("D3DRS_FOGENABLE", "TRUE"),
                ("D3DRS_FOGCOLOR", "0xff8099b3"),
                ("D3DRS_FOGTABLEMODE", "D3DFOG_LINEAR"),
                ("D3DRS_FOGSTART", "0.0"),
                ("D3DRS_FOGEND", "1.0"),
            ]),
        ),
        c(
            "table fog EXP",
            argb,
            vec![],
            rs(&[
                ("D3DRS_FOGENABLE", "TRUE"),
                ("D3DRS_FOGCOLOR", "0xff8099b3"),
                ("D3DRS_FOGTABLEMODE", "D3DFOG_EXP"),
                ("D3DRS_FOGDENSITY", "1.0"),
            ]),
        ),
        c(
            "specular add",
            argb,
            vec![],
            rs(&[("D3DRS_SPECULARENABLE", "TRUE")]),
        ),
        c(
            "stencil ALWAYS/INCR",
            argb,
            vec![],
            rs(&[
                ("D3DRS_STENCILENABLE", "TRUE"),
                ("D3DRS_STENCILFUNC", "D3DCMP_ALWAYS"),
                ("D3DRS_STENCILPASS", "D3DSTENCILOP_INCR"),
            ]),
        ),
        c(
            "colour writes RGB only",
            argb,
            vec![],
            rs(&[("D3DRS_COLORWRITEENABLE", "7")]),
        ),
        c("R5G6B5 target", r565, vec![], String::new()),
        c(
            "R5G6B5 target, vertex-alpha blend",
            r565,
            vec![],
            diffuse_only() + &rs(BLEND),
        ),
        depth(
            c(
                "particles: blend, depth test, vertex fog",
                argb,
                vec![],
                diffuse_only()
                    + &rs(BLEND)
                    + &rs(VERTEX_FOG)
                    + &rs(&[("D3DRS_ZWRITEENABLE", "FALSE")]),
            ),
            "D3DCMP_LESSEQUAL",
        ),
        // One texture.
        c(
            "texture MODULATE",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE"),
        ),
        c(
            "texture MODULATE, blend",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE") + &rs(BLEND),
        ),
        c(
            "texture MODULATE, point filter",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE")
                + &stage_states(
                    0,
                    &[
                        ("D3DTSS_MAGFILTER", "D3DTEXF_POINT"),
                        ("D3DTSS_MINFILTER", "D3DTEXF_POINT"),
                    ],
                ),
        ),
        c(
            "texture SELECTARG1 (decal)",
            argb,
            vec![colour(argb)],
            base("D3DTOP_SELECTARG1"),
        ),
        c("texture ADD", argb, vec![colour(argb)], base("D3DTOP_ADD")),
        c(
            "texture MODULATE2X",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE2X"),
        ),
        c(
            "texture BLENDDIFFUSEALPHA",
            argb,
            vec![colour(argb)],
            base("D3DTOP_BLENDDIFFUSEALPHA"),
        ),
        c(
            "texture BLENDTEXTUREALPHA",
            argb,
            vec![colour(argb)],
            base("D3DTOP_BLENDTEXTUREALPHA"),
        ),
        c(
            "texture MODULATE, alpha test",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE") + &rs(ALPHA_TEST),
        ),
        c(
            "texture MODULATE, vertex fog",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE") + &rs(VERTEX_FOG),
        ),
        c(
            "texture MODULATE, specular",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE") + &rs(&[("D3DRS_SPECULARENABLE", "TRUE")]),
        ),
        depth(
            c(
                "texture MODULATE, depth test",
                argb,
                vec![colour(argb)],
                base("D3DTOP_MODULATE"),
            ),
            "D3DCMP_LESSEQUAL",
        ),
        c(
            "R5G6B5 texture MODULATE",
            argb,
            vec![colour(r565)],
            base("D3DTOP_MODULATE"),
        ),
        c(
            "A4R4G4B4 texture MODULATE, blend",
            argb,
            vec![colour(Format::A4R4G4B4)],
            base("D3DTOP_MODULATE") + &rs(BLEND),
        ),
        c(
            "A1R5G5B5 texture MODULATE, alpha test",
            argb,
            vec![colour(Format::A1R5G5B5)],
            base("D3DTOP_MODULATE") + &rs(ALPHA_TEST),
        ),
        c(
            "texture MODULATE, CLAMP addressing",
            argb,
            vec![colour(argb)],
            base("D3DTOP_MODULATE")
                + &stage_states(
                    0,
                    &[
                        ("D3DTSS_ADDRESSU", "D3DTADDRESS_CLAMP"),
                        ("D3DTSS_ADDRESSV", "D3DTADDRESS_CLAMP"),
                    ],
                ),
        ),
        c(
            "texture MODULATE on an R5G6B5 target",
            r565,
            vec![colour(argb)],
            base("D3DTOP_MODULATE"),
        ),
        c(
            "texture MODULATE TFACTOR",
            argb,
            vec![colour(argb)],
            bind_texture(0, 0)
                + &op(0, "D3DTOP_MODULATE", "D3DTA_TEXTURE", "D3DTA_TFACTOR")
                + &rs(&[("D3DRS_TEXTUREFACTOR", "0xff80c0ff")]),
        ),
        // Two textures.
        c(
            "DX7 surface: texture x diffuse, 2x light map, specular, alpha test, fog",
            argb,
            vec![colour(argb), light()],
            base("D3DTOP_MODULATE")
                + &layer(1, 1, "D3DTOP_MODULATE2X")
                + &rs(&[("D3DRS_SPECULARENABLE", "TRUE")])
                + &rs(&[
                    ("D3DRS_ALPHATESTENABLE", "TRUE"),
                    ("D3DRS_ALPHAFUNC", "D3DCMP_GREATER"),
                    ("D3DRS_ALPHAREF", "0x20"),
                ])
                + &rs(VERTEX_FOG),
        ),
        c(
            "light map MODULATE",
            argb,
            vec![colour(argb), light()],
            base("D3DTOP_MODULATE") + &layer(1, 1, "D3DTOP_MODULATE"),
        ),
        c(
            "detail ADDSIGNED",
            argb,
            vec![colour(argb), light()],
            base("D3DTOP_MODULATE") + &layer(1, 1, "D3DTOP_ADDSIGNED"),
        ),
        c(
            "two textures, blend",
            argb,
            vec![colour(argb), light()],
            base("D3DTOP_MODULATE") + &layer(1, 1, "D3DTOP_MODULATE") + &rs(BLEND),
        ),
        // Three textures.
        c(
            "base x light map x detail",
            argb,
            vec![colour(argb), light(), colour(argb)],
            base("D3DTOP_MODULATE")
                + &layer(1, 1, "D3DTOP_MODULATE2X")
                + &layer(2, 2, "D3DTOP_ADDSIGNED"),
        ),
        c(
            "three textures, blend, vertex fog",
            argb,
            vec![colour(argb), light(), colour(argb)],
            base("D3DTOP_MODULATE")
                + &layer(1, 1, "D3DTOP_MODULATE")
                + &layer(2, 2, "D3DTOP_MODULATE")
                + &rs(BLEND)
                + &rs(VERTEX_FOG),
        ),
    ]
}

/// Runs the sweep: every combination, then the slowest / fastest ratio of
/// each texture count.
pub fn run(args: &BenchArgs) -> ExitCode {
    let mesh = workloads::quads();
    let pixels = 157_286_400.0 / 1e6;
    let mut rows = Vec::new();
    if !args.json {
        println!(
            "{:<72} {:>3} {:>10}  {:<16}",
            "combination", "tex", "Mpix/s", "checksum"
        );
    }
    let wanted = |c: &Combination| {
        args.only
            .as_ref()
            .is_none_or(|o| c.name.contains(o.as_str()))
    };
    for comb in combinations().into_iter().filter(wanted) {
        let measured =
            Dp2Rig::new(&mesh, &comb.setup, args.threads, !args.no_simd).and_then(|mut rig| {
                let t = time_batches(&mut rig, pixels, args, true)?;
                Ok((t, frame_checksum(FrameSource::color(&rig)?)))
            });
        match measured {
            Ok((t, checksum)) => {
                let value = (t.median * 1000.0).round() / 1000.0;
                let row = json!({
                    "combination": comb.name,
                    "textures": comb.textures,
                    "value": value,
                    "metric": "Mpix/s",
                    "noisy": t.noisy,
                    "checksum": format!("{checksum:016x}"),
                    "threads": args.threads,
                });
                if args.json {
                    println!("{row}");
                } else {
                    println!(
                        "{:<72} {:>3} {:>10.3}  {:016x}{}",
                        comb.name,
                        comb.textures,
                        value,
                        checksum,
                        if t.noisy { "  NOISY" } else { "" }
                    );
                }
                rows.push((comb.textures, comb.name, value));
            }
            Err(e) => {
                let m = format!("bench --sweep: {}: {e}", comb.name);
                return crate::fail(
                    args.json,
                    1,
                    "bench",
                    &m,
                    json!({ "combination": comb.name }),
                );
            }
        }
    }
    for textures in 0..=3 {
        let of: Vec<_> = rows.iter().filter(|r| r.0 == textures).collect();
        let (Some(slow), Some(fast)) = (
            of.iter().min_by(|a, b| a.2.total_cmp(&b.2)),
            of.iter().max_by(|a, b| a.2.total_cmp(&b.2)),
        ) else {
            continue;
        };
        let ratio = if fast.2 > 0.0 { slow.2 / fast.2 } else { 0.0 };
        let summary = json!({
            "summary": true,
            "textures": textures,
            "slowest": slow.1,
            "slowest_value": slow.2,
            "fastest": fast.1,
            "fastest_value": fast.2,
            "slowest_over_fastest": (ratio * 1000.0).round() / 1000.0,
        });
        if args.json {
            println!("{summary}");
        } else {
            println!(
                "{textures} texture(s): slowest {:.1} ({}) = {:.3} x fastest {:.1} ({})",
                slow.2, slow.1, ratio, fast.2, fast.1
            );
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_has_at_least_32_combinations_each_assembling() {
        let all = combinations();
        assert!(all.len() >= 32, "{}", all.len());
        let mut names = std::collections::HashSet::new();
        for comb in &all {
            assert!(names.insert(comb.name), "duplicate name {}", comb.name);
            assert_eq!(comb.textures, comb.setup.textures.len(), "{}", comb.name);
            // Texture handles stand in as 1, 2, 3: every state must assemble.
            let mut states = comb.setup.states.clone();
            for slot in 0..comb.textures {
                states = states.replace(&format!("$T{slot}"), &(slot + 1).to_string());
            }
            assert!(
                !states.contains("$T"),
                "{}: unbound texture slot",
                comb.name
            );
            softhal_wire::text::assemble(&states).unwrap_or_else(|e| panic!("{}: {e}", comb.name));
        }
        for n in 0..=3 {
            assert!(
                all.iter().filter(|c| c.textures == n).count() >= 2,
                "two or more combinations with {n} textures"
            );
        }
    }
}
