//! STATESET: BEGIN, END, DELETE, EXECUTE, CAPTURE and CREATE of state
//! blocks (what a block holds, and copying it, is [`crate::stateblock`]).
//!
//! In: STATESET records. Out: blocks recorded, stored, deleted, captured
//! or applied to the context (render states through the state writer,
//! so `lpdwRStates` shows them under D3DHALDP2_EXECUTEBUFFER). Guarantee:
//! a command of several records that fails part-way restores the
//! recording, the blocks and the context state it started with.

use super::Exec;
use crate::context::{StateBlock, StateKey};
use crate::error::{DeviceError, Result};
use crate::limits;
use crate::stateblock;
use softhal_wire::names::StateSetOperation as Op;
use softhal_wire::structs::Dp2StateSet;
use std::collections::BTreeSet;

impl<'c> Exec<'_, 'c> {
    /// STATESET: each record in order; a failing record leaves none of
    /// the command's records applied.
    pub(super) fn state_sets(&mut self, recs: &[Dp2StateSet]) -> Result<()> {
        if recs.len() <= 1 {
            // One record checks everything before it changes anything.
            return recs.iter().try_for_each(|r| self.state_set(r));
        }
        // Several records: a failing one must leave none of them
        // applied (prefix semantics), so restore what they touch.
        let saved = (
            self.ctx.recording.clone(),
            self.ctx.state_blocks.clone(),
            self.ctx.state.clone(),
        );
        for r in recs {
            if let Err(e) = self.state_set(r) {
                (self.ctx.recording, self.ctx.state_blocks, self.ctx.state) = saved;
                return Err(e);
            }
        }
        Ok(())
    }

    fn state_set(&mut self, r: &Dp2StateSet) -> Result<()> {
        let (op, h, sbt) = (r.operation.get(), r.param.get(), r.sb_type.get());
        match Op::from_raw(op) {
            Some(Op::Begin) => {
                if self.ctx.recording.is_some() {
                    return Err(DeviceError::StateBlock("BEGIN while recording"));
                }
                self.check_block_room(h)?;
                self.ctx.recording = Some((
                    h,
                    StateBlock {
                        keys: BTreeSet::new(),
                        values: Box::new(self.ctx.state.clone()),
                    },
                ));
                Ok(())
            }
            Some(Op::End) => {
                let (rh, block) = self
                    .ctx
                    .recording
                    .take()
                    .ok_or(DeviceError::StateBlock("END without BEGIN"))?;
                self.ctx.state_blocks.insert(rh, block);
                Ok(())
            }
            Some(Op::Delete) => {
                if self.ctx.state_blocks.remove(&h).is_none() {
                    return Err(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    });
                }
                Ok(())
            }
            Some(Op::Execute) => {
                let block = self
                    .ctx
                    .state_blocks
                    .get(&h)
                    .ok_or(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    })?
                    .clone();
                if self.ctx.recording.is_some() {
                    return Err(DeviceError::StateBlock("EXECUTE while recording"));
                }
                self.apply_block(&block);
                Ok(())
            }
            Some(Op::Capture) => {
                let block = self
                    .ctx
                    .state_blocks
                    .get_mut(&h)
                    .ok_or(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    })?;
                for k in block.keys.clone() {
                    stateblock::copy_key(k, &self.ctx.state, &mut block.values);
                }
                Ok(())
            }
            Some(Op::Create) => {
                let keys =
                    stateblock::group_keys(sbt, &self.ctx.state).ok_or(DeviceError::BadValue {
                        what: "sbType",
                        value: sbt,
                    })?;
                self.check_block_room(h)?;
                let block = StateBlock {
                    keys: keys.into_iter().collect(),
                    values: Box::new(self.ctx.state.clone()),
                };
                self.ctx.state_blocks.insert(h, block);
                Ok(())
            }
            None => Err(DeviceError::BadValue {
                what: "STATESET dwOperation",
                value: op,
            }),
        }
    }

    /// Fails when storing a block under `h` would exceed the block cap (a
    /// handle in use is replaced, not added).
    fn check_block_room(&self, h: u32) -> Result<()> {
        if !self.ctx.state_blocks.contains_key(&h)
            && self.ctx.state_blocks.len() >= limits::MAX_STATE_BLOCKS
        {
            return Err(DeviceError::Limit {
                what: "state blocks",
                max: limits::MAX_STATE_BLOCKS as u64,
            });
        }
        Ok(())
    }

    /// Applies every key of `block` to the context (not recording: checked
    /// by the caller).
    fn apply_block(&mut self, block: &StateBlock) {
        let mut w = self.state_writer();
        for &k in &block.keys {
            if let StateKey::Render(s) = k {
                let v = block
                    .values
                    .render_states
                    .get(s as usize)
                    .copied()
                    .unwrap_or(0);
                w.render_state(s, v);
            } else {
                w.set(k, |st| stateblock::copy_key(k, &block.values, st));
            }
        }
    }
}
