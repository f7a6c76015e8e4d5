//! The jump table of a validated shader: for each flow-control instruction
//! the index of its partner (if → else/endif, else → endif, loop/rep → its
//! end, end → its start), the instruction index of each label, and where
//! the main program ends. Built once per shader in one pass.
//!
//! - In: a [`Validated`] shader (blocks are paired and labels defined:
//!   validation proved it).
//! - Out: [`Plan`]. A partner that cannot be found (impossible after
//!   validation) points past the end, which ends execution.

use crate::ir::{Opcode, RegisterType};
use crate::valid::Validated;

/// Jump targets of one shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Per instruction: its partner's index (or `usize::MAX`).
    pub partner: Vec<usize>,
    /// For `if`: the index of its `else` when it has one.
    pub else_of: Vec<Option<usize>>,
    /// (label number, index of the `label` instruction).
    pub labels: Vec<(u16, usize)>,
}

impl Plan {
    /// The plan of `shader`.
    pub fn new(shader: &Validated) -> Plan {
        let ins = &shader.shader().instructions;
        let n = ins.len();
        let mut partner = vec![usize::MAX; n];
        let mut else_of = vec![None; n];
        let mut labels = Vec::new();
        // (index of the opening instruction, index of its else).
        let mut open: Vec<usize> = Vec::new();
        for (i, instruction) in ins.iter().enumerate() {
            match instruction.opcode {
                Opcode::If | Opcode::Ifc | Opcode::Loop | Opcode::Rep => open.push(i),
                Opcode::Else => {
                    if let Some(&start) = open.last() {
                        if let Some(slot) = else_of.get_mut(start) {
                            *slot = Some(i);
                        }
                        if let Some(slot) = partner.get_mut(i) {
                            *slot = start;
                        }
                    }
                }
                Opcode::EndIf | Opcode::EndLoop | Opcode::EndRep => {
                    if let Some(start) = open.pop() {
                        if let Some(slot) = partner.get_mut(start) {
                            *slot = i;
                        }
                        if let Some(slot) = partner.get_mut(i) {
                            *slot = start;
                        }
                        // An else jumps to the endif of its if.
                        if let Some(e) = else_of.get(start).copied().flatten() {
                            if let Some(slot) = partner.get_mut(e) {
                                *slot = i;
                            }
                        }
                    }
                }
                Opcode::Label => {
                    if let Some(l) = instruction.src().first() {
                        if l.reg.ty == RegisterType::Label {
                            labels.push((l.reg.index, i));
                        }
                    }
                }
                _ => {}
            }
        }
        Plan {
            partner,
            else_of,
            labels,
        }
    }

    /// The partner of instruction `i`.
    pub fn partner(&self, i: usize) -> usize {
        self.partner.get(i).copied().unwrap_or(usize::MAX)
    }

    /// The `else` of the `if` at `i`, if it has one.
    pub fn else_of(&self, i: usize) -> Option<usize> {
        self.else_of.get(i).copied().flatten()
    }

    /// The index of the instruction `label l#`.
    pub fn label(&self, l: u16) -> Option<usize> {
        self.labels.iter().find(|(n, _)| *n == l).map(|&(_, i)| i)
    }
}
