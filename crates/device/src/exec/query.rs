//! ISSUEQUERY: beginning and ending queries, and queuing their responses.
//!
//! In: ISSUEQUERY records naming queries CREATEQUERY made. Out: per END, a
//! response (EVENT: 1; OCCLUSION: the samples that passed since BEGIN, by
//! the GPU's counter after the work submitted so far has run; VCACHE: the
//! fixed "CACH" answer) queued for the next response buffer, replacing a
//! pending one of the same query. Guarantee: the pending responses stay
//! within `limits::MAX_PENDING_RESPONSES`; a failing command queues none.

use super::Exec;
use crate::context::{QueryKind, Response};
use crate::error::{DeviceError, Result};
use crate::limits;
use softhal_wire::structs::Dp2IssueQuery;

/// `D3DISSUE_END`: `dwFlags` bit of ISSUEQUERY.
const ISSUE_END: u32 = 0x1;
/// `D3DISSUE_BEGIN`.
const ISSUE_BEGIN: u32 = 0x2;

impl<'c> Exec<'_, 'c> {
    pub(super) fn issue_queries(&mut self, recs: &[Dp2IssueQuery]) -> Result<()> {
        for r in recs {
            let q = self
                .ctx
                .queries
                .get(&r.query_id.get())
                .ok_or(DeviceError::BadHandle {
                    handle: r.query_id.get(),
                    what: "query",
                })?;
            let f = r.flags.get();
            if f & !(ISSUE_END | ISSUE_BEGIN) != 0 {
                return Err(DeviceError::BadValue {
                    what: "ISSUEQUERY dwFlags",
                    value: f,
                });
            }
            if f & ISSUE_BEGIN != 0 && q.kind != QueryKind::Occlusion {
                return Err(DeviceError::BadValue {
                    what: "ISSUEQUERY BEGIN on a query without BEGIN",
                    value: f,
                });
            }
        }
        let ends = recs
            .iter()
            .filter(|r| r.flags.get() & ISSUE_END != 0)
            .count();
        if self.ctx.responses.len().saturating_add(ends) > limits::MAX_PENDING_RESPONSES {
            return Err(DeviceError::Limit {
                what: "pending query responses",
                max: limits::MAX_PENDING_RESPONSES as u64,
            });
        }
        // The occlusion counter is a GPU counter: run what was submitted.
        self.gpu.finish(self.surfaces)?;
        self.ctx.stats.samples_passed = self.gpu.samples_passed(self.ctx_h);
        let now = self.ctx.stats.samples_passed;
        for r in recs {
            let id = r.query_id.get();
            let f = r.flags.get();
            let Some(q) = self.ctx.queries.get_mut(&id) else {
                continue;
            };
            if f & ISSUE_END != 0 {
                let data = match q.kind {
                    QueryKind::Event => 1u32.to_le_bytes().to_vec(),
                    QueryKind::Occlusion => {
                        // The counter only grows (as the kernel's QUERY does).
                        let n = now.saturating_sub(q.begun_at.unwrap_or(now));
                        (n.min(u64::from(u32::MAX)) as u32).to_le_bytes().to_vec()
                    }
                    QueryKind::VCache => [0x4843_4143u32, 0, 0, 0]
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect(),
                };
                q.begun_at = None;
                self.ctx.responses.retain(|x| x.query_id != id);
                self.ctx
                    .responses
                    .push_back(Response { query_id: id, data });
            }
            if f & ISSUE_BEGIN != 0 {
                q.begun_at = Some(now);
            }
        }
        Ok(())
    }
}
