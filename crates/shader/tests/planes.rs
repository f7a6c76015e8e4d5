//! The register-plane executor against its twin, the reference
//! interpreter: programs using every instruction, modifier and register
//! file the plane executor runs (and the W7/W8 workload shaders) give the
//! same outputs, kills, depth and texture requests, bit for bit (any NaN
//! equal to any NaN), on random inputs and constants including NaN, ±∞,
//! 0, −0 and huge values, with some lanes inactive. Programs it does not
//! run (flow control, ps_1_x) are left to the reference. Inputs fed
//! through `Program::run_inputs` give what stored inputs give. The wide
//! entry for vertex shaders (`Program::run_wide`, 8, 16 and 32 lanes)
//! gives, lane by lane, what four-lane reference runs give, partial
//! batches and relative constants out of range included.

use std::cell::RefCell;

use softhal_shader::corpus::{EXAMPLES, W7_PS_TOKENS, W7_VS_TOKENS, W8_PS_TOKENS};
use softhal_shader::exec::{
    Constants, InputRegister, Inputs, Lanes, LodMode, Mask, NoTextures, Program, Registers,
    SampleRequest, Textures, WideFile, ALL_LANES, LANES,
};
use softhal_shader::ir::RegisterType;
use softhal_shader::parse_and_validate;
use softhal_shader::text::assemble;
use softhal_testkit::Rng;

fn program(text: &str) -> Program {
    let shader = assemble(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    Program::new(parse_and_validate(&shader.to_tokens()).unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// Straight-line programs covering what the plane executor runs.
const PROGRAMS: &[&str] = &[
    // vs_3_0 vertex texture fetch: `texldl` with a swizzled coordinate
    // and a partial write mask, two samplers.
    "vs_3_0
     dcl_position v0
     dcl_texcoord v1
     dcl_2d s0
     dcl_2d s3
     dcl_position o0
     dcl_texcoord o1
     dcl_texcoord1 o2
     texldl r0, v1, s0
     texldl r1.xz, v1.wzyx, s3
     mov r1.yw, v0
     mov o0, v0
     add o1, r0, r1
     mov o2, r0.wzyx",
    // Component-wise arithmetic, swizzles that read what an earlier
    // component of the same instruction wrote, modifiers.
    "vs_2_0
     dcl_position v0
     dcl_normal v1
     mov r0, v0
     mov r0.xy, r0.yx
     add r1, r0.wzyx, -v1
     sub r2.xz, -v1, r1.x
     mul r3, r2, v0.w
     mad r0.yzw, r0.x, r0, r0.y
     min r4, r0, -r1
     max r5, r0, r1
     slt r6, r0, r1
     sge r7, r0, r1.yyxx
     frc r8, r0
     abs r9, -r1
     sgn r10, r0, r1, r2
     lrp r11, r0.x, r1, r2
     mov oPos, r0
     mov oT0, r3
     mov oT1, r4
     mov oT2, r5
     mov oT3, r6
     add oT4, r7, r8
     add oT5, r9, r10
     mov oT6, r11
     mov oD0, v1",
    // Scalar and vector functions, matrices (one reading its own
    // destination), dst, crs, nrm, sincos, lit, pow.
    "vs_2_0
     def c20, 0.25, -0.5, 2.0, 24.0
     dcl_position v0
     dcl_normal v1
     m4x4 r0, v0, c0
     m4x4 r1, r1, c0
     m4x3 r2.xyz, v0, c4
     m3x4 r3, v1, c4
     m3x3 r4.xyz, v1, c8
     m3x2 r5.xy, v1.zxyw, c8
     rcp r6.x, v0.x
     rsq r6.yz, v1.y
     exp r6.w, v0.z
     log r7.x, v1.w
     expp r7.y, v1.x
     logp r7.zw, v0.y
     pow r8, r0.x, c20.w
     dst r9, r0, r1
     crs r10.xyz, r0, r1
     nrm r11, r1.yzxw
     mov oPos, r0
     add oT0, r1, r2
     add oT1, r3, r4
     add oT2, r5, r6
     add oT3, r7, r8
     add oT4, r9, r10
     sincos r2.xy, v0.x, c21, c22
     lit r3, r0
     add oT5, r11, r2
     mov oT6, r3
     mov oFog, r0.z
     mov oPts, r1.w",
    // vs_1_1: floor to a0, relative constants, expp/logp in their vs_1_1
    // form, oD#.
    "vs_1_1
     dcl_position v0
     dcl_blendindices v1
     mov a0.x, v1.x
     dp4 oPos.x, v0, c[a0.x + 10]
     dp4 oPos.y, v0, c[a0.x + 11]
     mov oPos.zw, c[a0.x + 2].yyxx
     expp oT0, v0.x
     logp oT1, v0.y
     mov oD0, c[a0.x + 90]
     mov oD1, -c[a0.x]",
    // mova rounding, relative matrix rows, out-of-range indices.
    "vs_2_0
     def c7, 3.0, 1.0, 0.0, 0.0
     dcl_position v0
     dcl_blendindices v1
     mul r0, v1, c7.x
     mova a0, r0
     m4x4 r1, v0, c[a0.y + 9]
     dp3 r2.x, v0, c[a0.w + 9]
     mov oPos, r1
     mov oT0, r2
     add oT2, c[a0.z + 250], c[a0.x]",
    // vs_3_0 outputs.
    "vs_3_0
     dcl_position v0
     dcl_texcoord3 v2
     dcl_position o0
     dcl_texcoord0 o1.xy
     dcl_color o3
     m4x4 o0, v0, c0
     mad o1.xy, v2_abs, c4, -c5_abs
     mov_sat o3, v2.wzyx",
    // Pixel: texture instructions, saturate, dp2add, cnd/cmp, texkill,
    // derivatives.
    "ps_2_0
     def c0, 0.5, -0.25, 2.0, 1.0
     dcl t0
     dcl t1.xyz
     dcl v0
     dcl_2d s0
     dcl_cube s1
     texld r0, t0, s1
     texldp r1, t0, s0
     texldb r2, t1, s0
     texkill t0
     dp2add r3, r0, r1, c0.x
     cmp r4, -r0.x, r1, r2
     cmp r5, r1, r2, -r0
     mad_sat r6, r0, c0.z, c0.y
     add r7, r3, r4
     add r7, r7, r5
     mul r7, r7, r6
     mov oC0, r7
     mov oC1, v0",
    "ps_2_x
     dcl t0
     dcl v1
     dcl_2d s2
     dsx r0, t0
     dsy r1, t0.yxzw
     texldd r2, t0, s2, r0, r1
     mul r3, r2, v1
     add oC0, r3, r0
     mov oDepth, r1.x",
    // ps_3_0: vPos, vFace, texldl, depth saturate.
    "ps_3_0
     dcl vPos.xy
     dcl vFace
     dcl_texcoord0 v0
     dcl_color0 v1
     dcl_2d s0
     mul r0, vPos.xyxy, c0
     mul r1, vFace, v1
     texldl r2, v0, s0
     add r2, r2, r0
     texkill r1
     add oC0, r2, r1
     mov_sat oDepth, v0.w",
    // `nrm` whose destination is a source component of a later channel
    // (found by the shader_exec fuzz target).
    "ps_3_0
     dcl_texcoord1 v9
     mov r0, v9
     nrm r0.x, r0
     nrm r0, r0.zxxz
     frc r0, r0.zxxz
     mov oC0, r0",
    // The result of a whole-vector function read back by a swizzle.
    "ps_2_0
     dcl t0
     nrm r0, t0
     mul r1, r0.wzyx, r0
     rsq r1.w, r1.x
     mov oC0, r1",
];

/// Random test data: the suites' generator, with values that are mostly
/// ordinary and sometimes the special ones.
trait Values {
    fn value(&mut self) -> f32;
    fn vec4(&mut self) -> [f32; 4];
}

impl Values for Rng {
    fn value(&mut self) -> f32 {
        let r = self.next();
        match r % 16 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => 1.0,
            6 => 1e30,
            7 => ((r >> 8) % 64) as f32,
            _ => ((r >> 16) as u32 as f32 / u32::MAX as f32) * 8.0 - 4.0,
        }
    }

    fn vec4(&mut self) -> [f32; 4] {
        [self.value(), self.value(), self.value(), self.value()]
    }
}

/// A texture unit answering from the request's bits, and recording the
/// requests.
#[derive(Default)]
struct Recorder {
    requests: RefCell<Vec<SampleRequest>>,
}

impl Textures for Recorder {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        self.requests.borrow_mut().push(*r);
        std::array::from_fn(|l| {
            let c = r.coords[l];
            [c[1] * 0.5, c[0] + 1.0, f32::from(r.sampler), c[3] - c[2]]
        })
    }
}

/// Bits with every NaN made the same.
fn bits(x: f32) -> u32 {
    if x.is_nan() {
        0x7FC0_0000
    } else {
        x.to_bits()
    }
}

fn same_lanes(a: &[[f32; 4]], b: &[[f32; 4]]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| bits(*p) == bits(*q)))
}

fn same_registers(a: &Registers, b: &Registers) -> bool {
    let files = |r: &Registers| -> Vec<[f32; 4]> {
        r.rast_out
            .iter()
            .chain(&r.attr_out)
            .chain(&r.texcrd_out)
            .chain(&r.color_out)
            .flatten()
            .copied()
            .collect()
    };
    same_lanes(&files(a), &files(b))
        && a.killed == b.killed
        && a.depth_written == b.depth_written
        && a.depth_out.map(bits) == b.depth_out.map(bits)
}

/// Requests are equal in the lanes they ask for (the others may hold
/// anything: [`SampleRequest::mask`]).
fn same_requests(a: &[SampleRequest], b: &[SampleRequest]) -> bool {
    let masked = |r: &SampleRequest, v: &Lanes| -> Vec<[f32; 4]> {
        (0..LANES)
            .filter(|l| r.mask & (1 << l) != 0)
            .map(|l| v[l])
            .collect()
    };
    let lod = |r: &SampleRequest| -> Vec<u32> {
        let v = match r.lod {
            LodMode::Gradients { bias } => bias,
            LodMode::Level(level) => level,
        };
        (0..LANES)
            .filter(|l| r.mask & (1 << l) != 0)
            .map(|l| bits(v[l]))
            .collect()
    };
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.sampler == y.sampler
                && x.mask == y.mask
                && same_lanes(&masked(x, &x.coords), &masked(y, &y.coords))
                && same_lanes(&masked(x, &x.ddx), &masked(y, &y.ddx))
                && same_lanes(&masked(x, &x.ddy), &masked(y, &y.ddy))
                && matches!(x.lod, LodMode::Level(_)) == matches!(y.lod, LodMode::Level(_))
                && lod(x) == lod(y)
        })
}

/// Runs `p` on both executors `rounds` times with random inputs and
/// constants, asserting equal results.
fn twin(name: &str, p: &Program, rounds: u64) {
    assert!(p.runs_on_planes(), "{name}: the plane executor refuses it");
    for seed in 0..rounds {
        let mut rng = Rng(seed.wrapping_mul(0x1234_5678_9ABC_DEF1) ^ 0x5EED);
        let constants = Constants {
            float: (0..256).map(|_| rng.vec4()).collect(),
            int: Vec::new(),
            bool: Vec::new(),
        };
        let bound = p.bind(&constants);
        let mut regs = Registers::new(p);
        for r in regs.input.iter_mut().chain(regs.texcoord.iter_mut()) {
            *r = std::array::from_fn(|_| rng.vec4());
        }
        // Blend indices that reach the bones and past them.
        if let Some(r) = regs.input.get_mut(1) {
            for (l, v) in r.iter_mut().enumerate() {
                if seed % 3 != 0 {
                    *v = [(l * 7) as f32, (seed % 90) as f32, 40.0, 2.5];
                }
            }
        }
        regs.position = std::array::from_fn(|l| [(l & 1) as f32, (l >> 1) as f32, 0.0, 0.0]);
        regs.face = [if seed % 2 == 0 { 1.0 } else { -1.0 }; LANES];
        let mask: Mask = match seed % 4 {
            0 => ALL_LANES,
            1 => 0b0101,
            2 => 0b1110,
            _ => (rng.next() % 16) as Mask,
        };
        let mut reference = regs.clone();
        let (tp, tr) = (Recorder::default(), Recorder::default());
        // Twice on the same registers: the second run starts from the
        // first's leftovers, which must not matter.
        for _ in 0..2 {
            let sp = p.run(&mut regs, &bound, &tp, mask);
            let sr = p.run_reference(&mut reference, &bound, &tr, mask);
            assert_eq!(sp, sr, "{name} seed {seed}: stats");
            assert!(
                same_registers(&regs, &reference),
                "{name} seed {seed} mask {mask:#x}:\nplanes    {regs:?}\nreference {reference:?}"
            );
            assert!(
                same_requests(&tp.requests.borrow(), &tr.requests.borrow()),
                "{name} seed {seed}: texture requests differ"
            );
        }
    }
}

#[test]
fn plane_executor_matches_the_reference_on_every_instruction_it_runs() {
    for text in PROGRAMS {
        twin(text.lines().next().unwrap_or(""), &program(text), 200);
    }
}

#[test]
fn plane_executor_runs_the_workload_shaders_exactly() {
    for (name, tokens) in [
        ("W7 vs", W7_VS_TOKENS),
        ("W7 ps", W7_PS_TOKENS),
        ("W8 ps", W8_PS_TOKENS),
    ] {
        let p = Program::new(parse_and_validate(tokens).unwrap());
        twin(name, &p, 300);
    }
}

#[test]
fn programs_with_flow_control_or_ps_1_x_stay_with_the_reference() {
    for text in EXAMPLES {
        let p = program(text);
        let straight = !text.lines().any(|l| {
            let op = l.split_whitespace().next().unwrap_or("");
            matches!(
                op,
                "if" | "ifc" | "rep" | "loop" | "call" | "callnz" | "setp" | "breakc" | "label"
            ) || op.starts_with('(')
                || op.starts_with('+')
        });
        if text.starts_with("ps_1") || !straight {
            assert!(!p.runs_on_planes(), "{text}");
        }
    }
}

/// A caller's inputs as planes, from per-lane vectors.
struct StoredInputs {
    input: Vec<Lanes>,
    texcoord: Vec<Lanes>,
    position: Lanes,
    face: [f32; LANES],
}

impl Inputs for StoredInputs {
    fn load(&self, reg: InputRegister, out: &mut [[f32; LANES]; 4]) {
        let v = match reg {
            InputRegister::Input(i) => self.input.get(usize::from(i)).copied(),
            InputRegister::Texture(i) => self.texcoord.get(usize::from(i)).copied(),
            InputRegister::Position => Some(self.position),
            InputRegister::Face => Some(self.face.map(|f| [f; 4])),
        }
        .unwrap_or([[0.0; 4]; LANES]);
        *out = std::array::from_fn(|c| std::array::from_fn(|l| v[l][c]));
    }
}

#[test]
fn run_inputs_computes_what_run_computes_with_the_inputs_stored() {
    // Programs of both executors: the workload shaders and every
    // straight-line program (plane executor), and the examples with flow
    // control and ps_1_x (reference interpreter).
    let mut programs: Vec<Program> = PROGRAMS.iter().map(|t| program(t)).collect();
    programs.extend(EXAMPLES.iter().map(|t| program(t)));
    for tokens in [W7_VS_TOKENS, W7_PS_TOKENS, W8_PS_TOKENS] {
        programs.push(Program::new(parse_and_validate(tokens).unwrap()));
    }
    for (n, p) in programs.iter().enumerate() {
        let mut rng = Rng(n as u64 ^ 0xF00D);
        let constants = Constants {
            float: (0..256).map(|_| rng.vec4()).collect(),
            int: vec![[3, 0, 1, 0]; 16],
            bool: vec![true; 16],
        };
        let bound = p.bind(&constants);
        let mut stored = Registers::new(p);
        for r in stored.input.iter_mut().chain(stored.texcoord.iter_mut()) {
            *r = std::array::from_fn(|_| rng.vec4());
        }
        stored.position = std::array::from_fn(|l| [(l & 1) as f32, (l >> 1) as f32, 0.0, 0.0]);
        stored.face = [-1.0; LANES];
        let inputs = StoredInputs {
            input: stored.input.clone(),
            texcoord: stored.texcoord.clone(),
            position: stored.position,
            face: stored.face,
        };
        // Fresh registers for run_inputs: nothing is stored in them.
        let mut fed = Registers::new(p);
        let (ts, tf) = (Recorder::default(), Recorder::default());
        for _ in 0..2 {
            let ss = p.run(&mut stored, &bound, &ts, ALL_LANES);
            let sf = p.run_inputs(&mut fed, &bound, &tf, &inputs, ALL_LANES);
            assert_eq!(ss, sf, "program {n}: stats");
            assert!(
                same_registers(&stored, &fed),
                "program {n}:\nrun        {stored:?}\nrun_inputs {fed:?}"
            );
            assert!(same_requests(&ts.requests.borrow(), &tf.requests.borrow()));
        }
    }
}

#[test]
fn unwritten_components_read_zero_on_every_run_of_the_same_registers() {
    // r1 is read before it is written and oC0.zw, oC1 are never written:
    // Direct3D's registers start at 0 for every pixel, so with
    // c0 = (1, 2, 3, 4): r1 = 0 + c0 = (1, 2, 3, 4), r1 = r1 + r1 =
    // (2, 4, 6, 8), oC0.xy = (2, 4), oC0.zw = 0, oC1 = 0 — on every run,
    // whatever the previous run left in the registers.
    let p = program(
        "ps_2_0
         def c0, 1, 2, 3, 4
         add r1, r1, c0
         add r1, r1, r1
         mov oC0.xy, r1",
    );
    assert!(p.runs_on_planes());
    let bound = p.bind(&Constants::default());
    let mut regs = Registers::new(&p);
    for run in 0..3 {
        // Leftovers a caller might have put there.
        regs.color_out[1] = [[9.0; 4]; LANES];
        regs.color_out[0] = [[7.0; 4]; LANES];
        p.run(&mut regs, &bound, &Recorder::default(), ALL_LANES);
        for l in 0..LANES {
            assert_eq!(regs.color_out[0][l], [2.0, 4.0, 0.0, 0.0], "run {run}");
            assert_eq!(regs.color_out[1][l], [0.0; 4], "run {run}");
        }
    }
}

/// Runs vertex program `p` over `N` lanes with `Program::run_wide` and,
/// four lanes at a time, with the reference interpreter on the same
/// inputs, asserting every active lane's outputs equal.
fn wide_twin<const N: usize>(name: &str, p: &Program, rounds: u64) {
    assert!(p.runs_wide(), "{name}: the wide executor refuses it");
    let mut file = WideFile::<N>::default();
    for seed in 0..rounds {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x31DE);
        let constants = Constants {
            float: (0..256).map(|_| rng.vec4()).collect(),
            int: Vec::new(),
            bool: Vec::new(),
        };
        let bound = p.bind(&constants);
        let registers = Registers::new(p).input.len();
        // inputs[r][l]: register v`r` of lane `l`.
        let mut inputs: Vec<Vec<[f32; 4]>> = (0..registers)
            .map(|_| (0..N).map(|_| rng.vec4()).collect())
            .collect();
        // Blend indices that reach the bones, past them and below 0.
        if let Some(r) = inputs.get_mut(1) {
            for (l, v) in r.iter_mut().enumerate() {
                if seed % 3 != 0 {
                    let i = (l as f32) * 19.0 - 40.0 + (seed % 90) as f32;
                    *v = [i, (seed % 90) as f32, 40.0, 2.5];
                }
            }
        }
        // Every lane, a partial last batch (the first k), or random.
        let all = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
        let mask = match seed % 3 {
            0 => all,
            1 => (1u64 << (1 + seed as usize % (N - 1))) - 1,
            _ => rng.next() & all,
        };
        let mut fill = |r: u16, planes: &mut [[f32; N]; 4]| {
            for (l, v) in inputs[usize::from(r)].iter().enumerate() {
                for c in 0..4 {
                    planes[c][l] = v[c];
                }
            }
        };
        // A texture unit answering from the request's bits, the same for
        // both executors.
        let stats = p
            .run_wide(&mut file, &bound, &Recorder::default(), mask, &mut fill)
            .expect("runs wide");
        for q in 0..N / 4 {
            let quad_mask = ((mask >> (4 * q)) & 0xF) as Mask;
            let mut regs = Registers::new(p);
            for (r, lanes) in regs.input.iter_mut().enumerate() {
                *lanes = std::array::from_fn(|l| inputs[r][4 * q + l]);
            }
            let sr = p.run_reference(&mut regs, &bound, &Recorder::default(), quad_mask);
            assert_eq!(stats, sr, "{name} seed {seed}: stats");
            let banks = [
                (RegisterType::RastOut, &regs.rast_out[..]),
                (RegisterType::AttrOut, &regs.attr_out[..]),
                (RegisterType::TexCrdOut, &regs.texcrd_out[..]),
            ];
            for (ty, bank) in banks {
                for (i, reference) in bank.iter().enumerate() {
                    let wide = p.wide_output(&file, ty, i as u16);
                    for l in (0..LANES).filter(|l| quad_mask & (1 << l) != 0) {
                        let got: [f32; 4] =
                            wide.map_or([0.0; 4], |w| std::array::from_fn(|c| w[c][4 * q + l]));
                        assert!(
                            same_lanes(&[got], &[reference[l]]),
                            "{name} N={N} seed {seed} mask {mask:#x}: {ty:?}{i} lane {}: wide {got:?}, reference {:?}",
                            4 * q + l,
                            reference[l]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn wide_runs_match_the_reference_lane_by_lane() {
    let vertex = PROGRAMS.iter().filter(|t| t.starts_with("vs"));
    for text in vertex {
        let p = program(text);
        let name = text.lines().next().unwrap_or("");
        wide_twin::<8>(name, &p, 60);
        wide_twin::<16>(name, &p, 60);
        wide_twin::<32>(name, &p, 60);
    }
    let w7 = Program::new(parse_and_validate(W7_VS_TOKENS).unwrap());
    wide_twin::<16>("W7 vs", &w7, 200);
    wide_twin::<32>("W7 vs", &w7, 100);
}

#[test]
fn wide_runs_refuse_pixel_shaders_and_odd_lane_counts() {
    let ps = Program::new(parse_and_validate(W8_PS_TOKENS).unwrap());
    assert!(!ps.runs_wide());
    let bound = ps.bind(&Constants::default());
    let mut file = WideFile::<16>::default();
    assert!(ps
        .run_wide(&mut file, &bound, &NoTextures, !0, &mut |_, _| {})
        .is_none());
    let vs = program("vs_1_1\n dcl_position v0\n mov oPos, v0");
    let mut odd = WideFile::<6>::default();
    let bound = vs.bind(&Constants::default());
    assert!(vs
        .run_wide(&mut odd, &bound, &NoTextures, !0, &mut |_, _| {})
        .is_none());
}

/// `c[a0.x + 2]` over 16 lanes: lane `l` reads register `l - 3 + 2`
/// (vs_1_1's `mov a0.x` floors: −3, −2, ... 12), so lane 0 names
/// register −1, below the file, and reads (0, 0, 0, 0) (Direct3D leaves
/// it undefined; this executor's rule, `docs/shaders.md`), registers 0–9
/// read their values, and with only 10 constants bound registers 10–14
/// read 0.
/// Lane 15 is outside the mask (a partial batch of 15 vertices).
#[test]
fn wide_relative_constants_are_bounds_checked_per_lane() {
    let p = program(
        "vs_1_1
         dcl_position v0
         dcl_blendindices v1
         mov a0.x, v1.x
         mov oPos, v0
         mov oT0, c[a0.x + 2]",
    );
    // Register r holds (r, 10r, -r, 0.5).
    let constants = Constants {
        float: (0..10)
            .map(|r| [r as f32, 10.0 * r as f32, -(r as f32), 0.5])
            .collect(),
        int: Vec::new(),
        bool: Vec::new(),
    };
    let bound = p.bind(&constants);
    let mut file = WideFile::<16>::default();
    let mask = (1u64 << 15) - 1;
    let mut fill = |r: u16, planes: &mut [[f32; 16]; 4]| {
        // v1.x = l - 3 + 0.75: floor gives l - 3 (vs_1_1's mov to a0);
        // v0.x = l.
        let x = std::array::from_fn(|l| {
            if r == 1 {
                l as f32 - 3.0 + 0.75
            } else {
                l as f32
            }
        });
        *planes = [x, [0.0; 16], [0.0; 16], [1.0; 16]];
    };
    p.run_wide(&mut file, &bound, &NoTextures, mask, &mut fill)
        .expect("runs wide");
    let t0 = p
        .wide_output(&file, RegisterType::TexCrdOut, 0)
        .expect("oT0 written");
    let lanes: Vec<[f32; 4]> = (0..16).map(|l| std::array::from_fn(|c| t0[c][l])).collect();
    for (l, &got) in lanes.iter().enumerate().take(15) {
        let register = l as i32 - 3 + 2;
        let expected = if (0..10).contains(&register) {
            let r = register as f32;
            [r, 10.0 * r, -r, 0.5]
        } else {
            [0.0; 4]
        };
        assert_eq!(got, expected, "lane {l} (register {register})");
    }
    let pos = p
        .wide_output(&file, RegisterType::RastOut, 0)
        .expect("oPos written");
    assert_eq!(
        pos[0][..15],
        std::array::from_fn::<f32, 15, _>(|l| l as f32)
    );
    assert!(p.wide_output(&file, RegisterType::AttrOut, 0).is_none());
}

/// A texture unit whose answer depends on the derivatives and bias of the
/// request, as a level of detail does: a quad that saw another quad's
/// lanes would get other numbers.
struct Gradients;

impl Textures for Gradients {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        let bias = match r.lod {
            LodMode::Gradients { bias } => bias,
            LodMode::Level(level) => level,
        };
        std::array::from_fn(|l| {
            let (c, x, y) = (r.coords[l], r.ddx[l], r.ddy[l]);
            [
                c[0] + 3.0 * x[0] - y[1],
                x[1] * y[0] + c[1],
                x[0] - y[0] + bias[l],
                c[3] * 0.5 + f32::from(r.sampler),
            ]
        })
    }
}

/// A texture unit that answers implicit samples as planes (so a wide run
/// takes `Textures::sample_planes_wide`), and every request with the
/// same function of the coordinates.
struct PlaneAnswers;

impl PlaneAnswers {
    fn texel(c: [f32; 4], sampler: u8) -> [f32; 4] {
        [
            c[0] * 2.0 + c[1],
            c[1] - c[3],
            f32::from(sampler),
            c[2] * c[0],
        ]
    }
}

impl Textures for PlaneAnswers {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        r.coords.map(|c| Self::texel(c, r.sampler))
    }

    fn sample_planes(
        &self,
        sampler: u8,
        coords: &[[f32; LANES]; 4],
        _mask: Mask,
    ) -> Option<[[f32; LANES]; 4]> {
        let lanes: Lanes =
            std::array::from_fn(|l| Self::texel(std::array::from_fn(|c| coords[c][l]), sampler));
        Some(std::array::from_fn(|k| {
            std::array::from_fn(|l| lanes[l][k])
        }))
    }
}

/// Runs pixel program `p` over `N / 4` quads with `Program::run_quads`
/// and each quad alone with the reference interpreter (every lane
/// active: helper lanes run) on the same inputs and texture unit,
/// asserting every lane's colours, kills and depth equal in the quads
/// run. Quads: all, the first k (a triangle's edge), or random.
#[allow(clippy::needless_range_loop)]
fn quad_twin<const N: usize>(name: &str, p: &Program, rounds: u64, unit: &dyn Textures) {
    assert!(p.runs_quads(), "{name}: the wide executor refuses it");
    let mut file = WideFile::<N>::default();
    let all = (1u64 << (N / 4)) - 1;
    for seed in 0..rounds {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xC0AD);
        let constants = Constants {
            float: (0..256).map(|_| rng.vec4()).collect(),
            int: Vec::new(),
            bool: Vec::new(),
        };
        let bound = p.bind(&constants);
        let shape = Registers::new(p);
        let mut lanes = |n: usize| -> Vec<Vec<[f32; 4]>> {
            (0..n)
                .map(|_| (0..N).map(|_| rng.vec4()).collect())
                .collect()
        };
        let input = lanes(shape.input.len());
        let texcoord = lanes(shape.texcoord.len());
        // Quad q at (2q, 2·seed), its own facing.
        let position: Vec<[f32; 4]> = (0..N)
            .map(|l| {
                let (q, i) = (l / 4, l % 4);
                [
                    (2 * q + (i & 1)) as f32,
                    (2 * seed as usize + i / 2) as f32,
                    0.0,
                    0.0,
                ]
            })
            .collect();
        let face: Vec<f32> = (0..N)
            .map(|l| {
                if (l / 4 + seed as usize).is_multiple_of(3) {
                    -1.0
                } else {
                    1.0
                }
            })
            .collect();
        let quads = match seed % 3 {
            0 => all,
            1 => (1u64 << (1 + seed as usize % (N / 4))) - 1,
            _ => rng.next() & all,
        };
        let mut fill = |reg: InputRegister, planes: &mut [[f32; N]; 4]| {
            let lane = |l: usize| -> [f32; 4] {
                match reg {
                    InputRegister::Input(i) => input.get(usize::from(i)).map_or([0.0; 4], |r| r[l]),
                    InputRegister::Texture(i) => {
                        texcoord.get(usize::from(i)).map_or([0.0; 4], |r| r[l])
                    }
                    InputRegister::Position => position[l],
                    InputRegister::Face => [face[l]; 4],
                }
            };
            for l in 0..N {
                let v = lane(l);
                for c in 0..4 {
                    planes[c][l] = v[c];
                }
            }
        };
        let stats = p
            .run_quads(&mut file, &bound, unit, quads, &mut fill)
            .expect("runs wide");
        for q in (0..N / 4).filter(|q| quads & (1 << q) != 0) {
            let mut regs = Registers::new(p);
            let at = |v: &Vec<[f32; 4]>| -> Lanes { std::array::from_fn(|l| v[4 * q + l]) };
            for (r, v) in regs.input.iter_mut().zip(&input) {
                *r = at(v);
            }
            for (r, v) in regs.texcoord.iter_mut().zip(&texcoord) {
                *r = at(v);
            }
            regs.position = at(&position);
            regs.face = std::array::from_fn(|l| face[4 * q + l]);
            let sr = p.run_reference(&mut regs, &bound, unit, ALL_LANES);
            let case = format!("{name} N={N} seed {seed} quads {quads:#x} quad {q}");
            assert_eq!(stats, sr, "{case}: stats");
            for (i, reference) in regs.color_out.iter().enumerate() {
                let wide = p.wide_output(&file, RegisterType::ColorOut, i as u16);
                let got: Lanes = std::array::from_fn(|l| {
                    wide.map_or([0.0; 4], |w| std::array::from_fn(|c| w[c][4 * q + l]))
                });
                assert!(
                    same_lanes(&got, reference),
                    "{case}: oC{i}: wide {got:?}, reference {reference:?}"
                );
            }
            let killed = ((file.killed() >> (4 * q)) & 0xF) as Mask;
            assert_eq!(killed, regs.killed, "{case}: texkill");
            let depth = p.wide_depth(&file);
            assert_eq!(
                depth.is_some(),
                regs.depth_written,
                "{case}: oDepth written"
            );
            if let Some(z) = depth {
                let got: [f32; 4] = std::array::from_fn(|l| z[4 * q + l]);
                assert_eq!(got.map(bits), regs.depth_out.map(bits), "{case}: oDepth");
            }
        }
    }
}

/// Every pixel program of the suite the plane executor runs: the
/// straight-line programs above, the corpus examples it takes, W7's and
/// W8's pixel shaders.
fn pixel_programs() -> Vec<(String, Program)> {
    let mut out: Vec<(String, Program)> = PROGRAMS
        .iter()
        .chain(EXAMPLES)
        .map(|t| (t.lines().next().unwrap_or("").to_string(), program(t)))
        .filter(|(_, p)| p.runs_quads())
        .collect();
    for (name, tokens) in [("W7 ps", W7_PS_TOKENS), ("W8 ps", W8_PS_TOKENS)] {
        out.push((
            name.to_string(),
            Program::new(parse_and_validate(tokens).unwrap()),
        ));
    }
    out
}

#[test]
fn quad_runs_match_the_reference_quad_by_quad() {
    let programs = pixel_programs();
    // The suite has pixel programs with derivatives, texkill and oDepth.
    assert!(programs.len() >= 6, "{}", programs.len());
    for (name, p) in &programs {
        for unit in [
            &Recorder::default() as &dyn Textures,
            &Gradients,
            &PlaneAnswers,
        ] {
            quad_twin::<8>(name, p, 40, unit);
            quad_twin::<16>(name, p, 40, unit);
        }
    }
}

/// Two quads in one 8-lane run, each with its own derivatives: t0.x grows
/// by 1 a pixel to the right in quad 0 and by 5 in quad 1, t0.y by 2 a
/// pixel down in quad 0 and by −3 in quad 1. `dsx` is the right pixel
/// minus the left one of the lane's row, `dsy` the bottom minus the top
/// of its column (Direct3D 9 `dsx`/`dsy`), so every lane of quad 0 reads
/// dsx(t0.x) = 1, dsy(t0.y) = 2 and of quad 1 reads 5 and −3, whatever
/// the other quad holds. `texkill` removes lanes where t0.z < 0: lane 2
/// of quad 0 (pixel (0, 1)) and lane 5 (pixel (1, 0) of quad 1).
#[test]
#[allow(clippy::needless_range_loop)]
fn each_quad_of_a_wide_run_has_its_own_derivatives() {
    let p = program(
        "ps_2_x
         dcl t0
         dsx r0, t0
         dsy r1, t0
         texkill t0
         mov r2.x, r0.x
         mov r2.y, r1.y
         mov r2.zw, t0.xxxy
         mov oC0, r2",
    );
    let bound = p.bind(&Constants::default());
    let mut file = WideFile::<8>::default();
    // Lane = 4·quad + x + 2y.
    let t0 = |l: usize| -> [f32; 4] {
        let (x, y) = ((l & 1) as f32, ((l >> 1) & 1) as f32);
        let kill = if l == 2 || l == 5 { -1.0 } else { 1.0 };
        if l < 4 {
            [10.0 + x, 20.0 + 2.0 * y, kill, 0.0]
        } else {
            [100.0 + 5.0 * x, 50.0 - 3.0 * y, kill, 0.0]
        }
    };
    let mut fill = |reg: InputRegister, planes: &mut [[f32; 8]; 4]| {
        for l in 0..8 {
            let v = if reg == InputRegister::Texture(0) {
                t0(l)
            } else {
                [0.0; 4]
            };
            for c in 0..4 {
                planes[c][l] = v[c];
            }
        }
    };
    p.run_quads(&mut file, &bound, &NoTextures, 0b11, &mut fill)
        .expect("runs wide");
    let oc0 = p
        .wide_output(&file, RegisterType::ColorOut, 0)
        .expect("oC0 written");
    for l in 0..8 {
        let (dx, dy) = if l < 4 { (1.0, 2.0) } else { (5.0, -3.0) };
        let t = t0(l);
        assert_eq!(
            [oc0[0][l], oc0[1][l], oc0[2][l], oc0[3][l]],
            [dx, dy, t[0], t[1]],
            "lane {l}"
        );
    }
    assert_eq!(file.killed(), 0b0010_0100);
    // Only quad 1 runs: quad 0's lanes are neither run nor killed.
    p.run_quads(&mut file, &bound, &NoTextures, 0b10, &mut fill)
        .expect("runs wide");
    assert_eq!(file.killed(), 0b0010_0000);
}

#[test]
fn quad_runs_refuse_vertex_shaders_and_odd_lane_counts() {
    let vs = Program::new(parse_and_validate(W7_VS_TOKENS).unwrap());
    assert!(!vs.runs_quads());
    let bound = vs.bind(&Constants::default());
    let mut file = WideFile::<16>::default();
    assert!(vs
        .run_quads(&mut file, &bound, &NoTextures, 1, &mut |_, _| {})
        .is_none());
    let ps = Program::new(parse_and_validate(W8_PS_TOKENS).unwrap());
    let bound = ps.bind(&Constants::default());
    let mut odd = WideFile::<6>::default();
    assert!(ps
        .run_quads(&mut odd, &bound, &NoTextures, 1, &mut |_, _| {})
        .is_none());
    // ps_1_x and flow control stay with the reference.
    for text in EXAMPLES.iter().filter(|t| t.starts_with("ps_1")) {
        assert!(!program(text).runs_quads(), "{text}");
    }
}
