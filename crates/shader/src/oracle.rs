//! The executors' oracle: runs one program's inputs through two executors
//! (the reference interpreter [`crate::exec::Program::run`] and a faster
//! one, or the same one twice) and compares every register bit for bit.
//!
//! - In: the registers before a run (inputs filled) and two runs, each a
//!   closure that runs the program on its own copy of them.
//! - Out: both runs' [`RunStats`] and whether their registers were
//!   compared, or the first [`Difference`] (register, lane, component,
//!   both values' bits).
//! - Guarantees: with [`Scope::Everything`] every field of [`Registers`]
//!   is compared: inputs, temporaries, `t#`, `a0`, `p0`, every output,
//!   depth and the lanes `texkill` removed; with [`Scope::Outputs`], what
//!   a run documents as its result (`exec::Program::run`): every output
//!   register, the colours (`r0` in ps_1_x), depth and the kills — two
//!   executors may leave different scratch state. NaNs compare as [`Nans`] says: bit for bit
//!   (determinism), or any NaN equal to any other (two executors may
//!   produce different NaN payloads; Direct3D does not define them).
//!   Runs stopped at [`crate::exec::MAX_INSTRUCTIONS_EXECUTED`] are
//!   compared only when both stopped after the same count (where a run is
//!   cut off is an executor's choice).

use crate::exec::{Lanes, Registers, RunStats};
use crate::ir::Profile;
use core::fmt;

/// How NaNs compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nans {
    /// Bit for bit: the same executor run twice.
    Exact,
    /// Any NaN equals any NaN: two executors.
    AnyEqual,
}

/// The first register component two runs disagree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The register (`temp[3]`, `color_out[0]`, `killed`, ...).
    pub register: String,
    /// The lane (0…3; 0 for per-group values).
    pub lane: usize,
    /// The component (0…3 = x…w).
    pub component: usize,
    /// The first run's value (f32 bits, or the integer / flag).
    pub first: u32,
    /// The second run's value.
    pub second: u32,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = ["x", "y", "z", "w"]
            .get(self.component)
            .copied()
            .unwrap_or("?");
        write!(
            f,
            "{} lane {} .{c}: {:#010x} ({}) vs {:#010x} ({})",
            self.register,
            self.lane,
            self.first,
            f32::from_bits(self.first),
            self.second,
            f32::from_bits(self.second)
        )
    }
}

/// Which registers [`compare_runs`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// All of them ([`compare_registers`]): the same executor twice.
    Everything,
    /// The outputs of a program of this version ([`compare_outputs`]):
    /// two executors.
    Outputs(Profile),
}

/// What [`compare_runs`] saw when the registers agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// The first run's stats.
    pub first: RunStats,
    /// The second run's stats.
    pub second: RunStats,
    /// Whether the registers were compared (not when a run was stopped at
    /// the instruction limit at a different point from the other).
    pub compared: bool,
}

/// Runs `first` and `second` on copies of `start` and compares what they
/// leave in the registers.
pub fn compare_runs(
    start: &Registers,
    first: impl FnOnce(&mut Registers) -> RunStats,
    second: impl FnOnce(&mut Registers) -> RunStats,
    nans: Nans,
    scope: Scope,
) -> Result<Agreement, Difference> {
    let mut a = start.clone();
    let stats_a = first(&mut a);
    let mut b = start.clone();
    let stats_b = second(&mut b);
    let compared = stats_a == stats_b || !(stats_a.stopped || stats_b.stopped);
    if compared {
        match scope {
            Scope::Everything => compare_registers(&a, &b, nans)?,
            Scope::Outputs(profile) => compare_outputs(&a, &b, profile, nans)?,
        }
    }
    Ok(Agreement {
        first: stats_a,
        second: stats_b,
        compared,
    })
}

/// Compares every register of `a` and `b`.
pub fn compare_registers(a: &Registers, b: &Registers, nans: Nans) -> Result<(), Difference> {
    let files: [(&str, &[Lanes], &[Lanes]); 8] = [
        ("input", &a.input, &b.input),
        ("texcoord", &a.texcoord, &b.texcoord),
        ("temp", &a.temp, &b.temp),
        ("texture", &a.texture, &b.texture),
        ("rast_out", &a.rast_out, &b.rast_out),
        ("attr_out", &a.attr_out, &b.attr_out),
        ("texcrd_out", &a.texcrd_out, &b.texcrd_out),
        ("color_out", &a.color_out, &b.color_out),
    ];
    for (name, fa, fb) in files {
        if fa.len() != fb.len() {
            return Err(Difference {
                register: format!("{name} (register count)"),
                lane: 0,
                component: 0,
                first: fa.len() as u32,
                second: fb.len() as u32,
            });
        }
        for (i, (ra, rb)) in fa.iter().zip(fb).enumerate() {
            lanes(&format!("{name}[{i}]"), ra, rb, nans)?;
        }
    }
    lanes("position", &a.position, &b.position, nans)?;
    scalars("face", &a.face, &b.face, nans)?;
    scalars("depth_out", &a.depth_out, &b.depth_out, nans)?;
    let ints = |r: &Registers| r.address.map(|l| l.map(|x| x as u32));
    words("address", &ints(a), &ints(b))?;
    let bools = |r: &Registers| r.predicate.map(|l| l.map(u32::from));
    words("predicate", &bools(a), &bools(b))?;
    let flags = |r: &Registers| [[u32::from(r.depth_written), u32::from(r.killed), 0, 0]];
    words("depth_written, killed", &flags(a), &flags(b))
}

/// Compares what a run of a `profile` program leaves as its result: the
/// output registers, the colours (`r0` for ps_1_x), depth (when written)
/// and the kills.
pub fn compare_outputs(
    a: &Registers,
    b: &Registers,
    profile: Profile,
    nans: Nans,
) -> Result<(), Difference> {
    let files: [(&str, &[Lanes], &[Lanes]); 3] = [
        ("rast_out", &a.rast_out, &b.rast_out),
        ("attr_out", &a.attr_out, &b.attr_out),
        ("texcrd_out", &a.texcrd_out, &b.texcrd_out),
    ];
    for (name, fa, fb) in files {
        for (i, (ra, rb)) in fa.iter().zip(fb).enumerate() {
            lanes(&format!("{name}[{i}]"), ra, rb, nans)?;
        }
    }
    for i in 0..4 {
        if let (Some(ca), Some(cb)) = (a.color(profile, i), b.color(profile, i)) {
            lanes(&format!("colour {i}"), ca, cb, nans)?;
        }
    }
    if a.depth_written || b.depth_written {
        scalars("depth_out", &a.depth_out, &b.depth_out, nans)?;
    }
    let flags = |r: &Registers| [[u32::from(r.depth_written), u32::from(r.killed), 0, 0]];
    words("depth_written, killed", &flags(a), &flags(b))
}

fn same(x: f32, y: f32, nans: Nans) -> bool {
    x.to_bits() == y.to_bits() || (nans == Nans::AnyEqual && x.is_nan() && y.is_nan())
}

fn lanes(register: &str, a: &Lanes, b: &Lanes, nans: Nans) -> Result<(), Difference> {
    for (lane, (la, lb)) in a.iter().zip(b).enumerate() {
        for (component, (x, y)) in la.iter().zip(lb).enumerate() {
            if !same(*x, *y, nans) {
                return Err(Difference {
                    register: register.to_string(),
                    lane,
                    component,
                    first: x.to_bits(),
                    second: y.to_bits(),
                });
            }
        }
    }
    Ok(())
}

fn scalars(register: &str, a: &[f32], b: &[f32], nans: Nans) -> Result<(), Difference> {
    for (lane, (x, y)) in a.iter().zip(b).enumerate() {
        if !same(*x, *y, nans) {
            return Err(Difference {
                register: register.to_string(),
                lane,
                component: 0,
                first: x.to_bits(),
                second: y.to_bits(),
            });
        }
    }
    Ok(())
}

fn words(register: &str, a: &[[u32; 4]], b: &[[u32; 4]]) -> Result<(), Difference> {
    for (lane, (la, lb)) in a.iter().zip(b).enumerate() {
        for (component, (x, y)) in la.iter().zip(lb).enumerate() {
            if x != y {
                return Err(Difference {
                    register: register.to_string(),
                    lane,
                    component,
                    first: *x,
                    second: *y,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Constants, NoTextures, Program, ALL_LANES};

    fn program(text: &str) -> Program {
        let shader = crate::text::assemble(text).expect("assembles");
        Program::new(crate::validate(shader).expect("validates"))
    }

    #[test]
    fn the_reference_agrees_with_itself_and_a_changed_result_is_named() {
        // rcp of v0.x: lane values 2 → 0.5 (0x3F000000).
        let p = program("vs_2_0\ndcl_position v0\nrcp r1.y, v0.x\nmov oPos, r1\n");
        let mut start = Registers::new(&p);
        for (l, lane) in start.input[0].iter_mut().enumerate() {
            lane[0] = 2.0 + l as f32;
        }
        let bound = p.bind(&Constants::default());
        let run = |r: &mut Registers| p.run_reference(r, &bound, &NoTextures, ALL_LANES);
        let agreement =
            compare_runs(&start, run, run, Nans::Exact, Scope::Everything).expect("same");
        assert!(agreement.compared);
        // A "fast executor" that gets lane 1's r1.y wrong: 1/3 is
        // 0x3EAAAAAB, the wrong one writes 0.25.
        let wrong = |r: &mut Registers| {
            let stats = run(r);
            r.temp[1][1][1] = 0.25;
            stats
        };
        let d = compare_runs(&start, run, wrong, Nans::AnyEqual, Scope::Everything)
            .expect_err("differs");
        assert_eq!(
            (d.register.as_str(), d.lane, d.component, d.first, d.second),
            ("temp[1]", 1, 1, 0x3EAA_AAAB, 0x3E80_0000)
        );
    }

    #[test]
    fn nans_are_equal_only_when_asked() {
        let p = program("ps_2_0\nmov oC0, c0\n");
        let mut a = Registers::new(&p);
        let mut b = a.clone();
        a.color_out[0][2][3] = f32::from_bits(0x7FC0_0000);
        b.color_out[0][2][3] = f32::from_bits(0xFFC0_0001);
        assert!(compare_registers(&a, &b, Nans::AnyEqual).is_ok());
        let d = compare_registers(&a, &b, Nans::Exact).expect_err("payloads differ");
        assert_eq!((d.lane, d.component), (2, 3));
        // A NaN against a number is a difference either way.
        b.color_out[0][2][3] = 1.0;
        assert!(compare_registers(&a, &b, Nans::AnyEqual).is_err());
    }

    #[test]
    fn kills_address_and_predicate_are_compared() {
        let p = program("vs_2_x\nmov oPos, c0\n");
        let a = Registers::new(&p);
        let mut b = a.clone();
        b.killed = 0b0100;
        assert_eq!(
            compare_registers(&a, &b, Nans::Exact).map_err(|d| d.register),
            Err("depth_written, killed".to_string())
        );
        let mut b = a.clone();
        b.address[3][2] = -1;
        let d = compare_registers(&a, &b, Nans::Exact).expect_err("a0 differs");
        assert_eq!(
            (d.register.as_str(), d.lane, d.component, d.second),
            ("address", 3, 2, u32::MAX)
        );
        let mut b = a.clone();
        b.predicate[0][0] = true;
        assert!(compare_registers(&a, &b, Nans::Exact).is_err());
    }

    #[test]
    fn runs_cut_off_at_different_points_are_not_compared() {
        let p = program("ps_2_0\nmov oC0, c0\n");
        let start = Registers::new(&p);
        let stopped = |executed| {
            move |r: &mut Registers| {
                r.temp[0][0][0] = executed as f32;
                RunStats {
                    executed,
                    stopped: true,
                }
            }
        };
        let a = compare_runs(
            &start,
            stopped(10),
            stopped(12),
            Nans::AnyEqual,
            Scope::Everything,
        )
        .expect("not compared");
        assert!(!a.compared);
        // Stopped at the same count: compared, and the difference found.
        assert!(compare_runs(
            &start,
            stopped(10),
            |r: &mut Registers| {
                r.temp[0][0][0] = 11.0;
                RunStats {
                    executed: 10,
                    stopped: true,
                }
            },
            Nans::AnyEqual,
            Scope::Everything
        )
        .is_err());
    }
}
