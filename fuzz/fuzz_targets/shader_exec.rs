//! Shader execution with an oracle: random *valid* programs. The first
//! byte picks the version (`generate::profile_of`); the following bytes
//! are the grammar's choices (`softhal_shader::generate`: every construct
//! of the version — arithmetic, matrices, relative addressing, texture
//! reads, flow control, predication, co-issue, modifiers, definitions);
//! the bytes after the program are the run's constants, inputs (NaN,
//! infinities, huge and tiny values among them) and lane mask
//! (`generate::run_inputs`). Checks:
//! - the program validates and survives assembly and disassembly bit for
//!   bit (a failure is a bug of the grammar or of the text form);
//! - the run does not panic and executes at most
//!   `exec::MAX_INSTRUCTIONS_EXECUTED` instructions;
//! - two runs leave bit-identical registers (determinism);
//! - the oracle: `Program::run` (the register-plane executor for the
//!   programs it takes, [`candidate`]) leaves the same outputs as the
//!   reference interpreter (`Program::run_reference`), any NaN equal to
//!   any NaN (`oracle::compare_runs`, `Scope::Outputs`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_shader::exec::{
    self, BoundConstants, BumpEnv, Lanes, LodMode, Mask, Program, Registers, RunStats,
    SampleRequest, Textures,
};
use softhal_shader::generate::{self, Choices};
use softhal_shader::oracle::{self, Nans, Scope};
use softhal_shader::text::{assemble, disassemble};

/// A texture unit whose answer depends on every field of the request
/// (coordinates, derivatives, level rule, sampler), so that an executor
/// that asks for a different sample gives different registers; pure, so
/// both executors see the same texture.
struct Probe;

impl Textures for Probe {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        let lod = match r.lod {
            LodMode::Gradients { bias } => bias,
            LodMode::Level(level) => level,
        };
        std::array::from_fn(|l| {
            let (c, dx, dy) = (r.coords[l], r.ddx[l], r.ddy[l]);
            let on = if r.mask & (1 << l) != 0 { 1.0 } else { 0.0 };
            [
                c[0] + 0.5 * dx[0] + 0.25 * dy[0],
                c[1] + 0.5 * dx[1] + 0.25 * dy[1],
                c[2] * 0.75 + lod[l] + on,
                c[3] + f32::from(r.sampler),
            ]
        })
    }

    fn bump_env(&self, stage: u8) -> BumpEnv {
        BumpEnv {
            matrix: [0.5, -0.25, 0.125 * f32::from(stage), 1.0],
            lscale: 0.5,
            loffset: 0.25,
        }
    }
}

/// The executor checked against the reference interpreter:
/// `Program::run`, which takes the register-plane executor whenever the
/// program allows it (`docs/shaders.md` §11a).
fn candidate(
    program: &Program,
    constants: &BoundConstants,
    textures: &dyn Textures,
    mask: Mask,
    regs: &mut Registers,
) -> RunStats {
    program.run(regs, constants, textures, mask)
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let profile = generate::profile_of(pick);
    let mut choices = Choices::new(rest);
    let shader = generate::program(profile, &mut choices);
    let tokens = shader.to_tokens();
    let text = disassemble(&shader);
    let valid = softhal_shader::parse_and_validate(&tokens)
        .unwrap_or_else(|e| panic!("a generated program does not validate: {e}\n{text}"));
    let back = assemble(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(back.to_tokens(), tokens, "{text}");

    let program = Program::new(valid);
    let (constants, start, mask) = generate::run_inputs(&program, &mut choices);
    let bound = program.bind(&constants);
    let reference = |r: &mut Registers| program.run_reference(r, &bound, &Probe, mask);

    let runs = oracle::compare_runs(&start, reference, reference, Nans::Exact, Scope::Everything)
        .unwrap_or_else(|d| panic!("two runs of the reference differ: {d}\n{text}"));
    assert!(runs.compared);
    assert!(
        runs.first.executed <= exec::MAX_INSTRUCTIONS_EXECUTED,
        "{} instructions executed\n{text}",
        runs.first.executed
    );

    let other = |r: &mut Registers| candidate(&program, &bound, &Probe, mask, r);
    let outputs = Scope::Outputs(program.profile());
    let oracle = oracle::compare_runs(&start, reference, other, Nans::AnyEqual, outputs)
        .unwrap_or_else(|d| panic!("the executors differ: {d}\n{text}"));
    assert!(oracle.second.executed <= exec::MAX_INSTRUCTIONS_EXECUTED);
});
