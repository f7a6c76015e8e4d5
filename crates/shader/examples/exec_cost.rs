//! Runs a workload shader many times on one executor, for instruction
//! counts under callgrind (`docs/shaders.md`, "Execution cost"):
//! `exec_cost <w7vs|w8ps> <planes|reference> <groups>`.
//!
//! - In: the arguments.
//! - Out: a checksum of the outputs on stdout (so nothing is optimised
//!   away).

use softhal_shader::corpus::{W7_VS_TOKENS, W8_PS_TOKENS};
use softhal_shader::exec::{
    Constants, Lanes, Program, Registers, SampleRequest, Textures, ALL_LANES,
};

/// A texture unit with a constant answer (the sampler's own cost is the
/// pipeline's, measured there).
struct Flat;

impl Textures for Flat {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        std::array::from_fn(|l| [0.5, 0.5 + r.coords[l][0] * 0.0, 1.0, 0.75])
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("w8ps", String::as_str);
    let planes = args.get(2).map_or("planes", String::as_str) == "planes";
    let groups: u32 = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let tokens = if which == "w7vs" {
        W7_VS_TOKENS
    } else {
        W8_PS_TOKENS
    };
    let p = Program::new(softhal_shader::parse_and_validate(tokens).expect("valid"));
    let constants = Constants {
        float: (0..256)
            .map(|i| {
                let x = i as f32 / 256.0;
                [x, 1.0 - x, 0.5 * x, 1.0]
            })
            .collect(),
        ..Constants::default()
    };
    let bound = p.bind(&constants);
    let mut regs = Registers::new(&p);
    let mut sum = 0.0f32;
    for g in 0..groups {
        let f = g as f32 / groups as f32;
        for (i, r) in regs
            .input
            .iter_mut()
            .chain(regs.texcoord.iter_mut())
            .enumerate()
        {
            *r = std::array::from_fn(|l| {
                let v = f + (i + l) as f32 * 0.01;
                [v, 0.5 - v, 0.25 + v, (i % 4) as f32 * 0.3 + 0.1]
            });
        }
        if planes {
            p.run(&mut regs, &bound, &Flat, ALL_LANES);
        } else {
            p.run_reference(&mut regs, &bound, &Flat, ALL_LANES);
        }
        sum += regs.color_out[0][0][0] + regs.rast_out[0][0][0];
    }
    println!("{sum}");
}
