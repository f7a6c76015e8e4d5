//! Scheduling: the per-engine queues, fences, dispatch to the GPU worker
//! and landing finished jobs.
//!
//! In: verified submissions [`crate::Kmd::render`] queued, and CPU waits.
//! Out: jobs sent to the worker ([`crate::worker`]) in execution order
//! with the memory they touch; fences executed when a job is collected
//! and retired when the CPU waits. Guarantees: each engine runs its queue
//! in submission order, the 3-D engine first when both can run, a
//! submission only after the fences it waits on; at most one job is in
//! flight; nothing depends on timing (`docs/submission.md`, "When work
//! runs").

use crate::gpu::ExecState;
use crate::kmd::Kmd;
use crate::memory::{JobMemory, VideoMemory};
use crate::packet::Engine;
use crate::verify::Verified;
use crate::worker::{run_job, Done, Job, Worker};
use softhal_pipeline::{Renderer, Surface};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::mpsc;
use std::sync::PoisonError;

/// A submission accepted and waiting for the GPU.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Queued {
    pub(crate) ctx: u32,
    pub(crate) fence: u64,
    pub(crate) waits: Vec<(u32, u64)>,
    /// The verified packets of the command buffer.
    pub(crate) packets: Vec<Verified>,
    pub(crate) null: bool,
    /// The allocations the submission references (what its job carries).
    pub(crate) allocs: Vec<u32>,
}

impl Kmd {
    // ------------------------------------------------------- dispatch and landing

    /// Sends queued work to the GPU worker in execution order: each
    /// engine's queue in submission order, the 3-D engine first when both
    /// can run, a submission only once the fences it waits on precede it
    /// (`until`: stop once `ctx` reaches `fence`; `one`: a single
    /// submission). Waits for the job in flight first. Returns how many
    /// submissions were sent.
    pub(crate) fn dispatch_some(
        &mut self,
        mem: &mut dyn VideoMemory,
        until: Option<(u32, u64)>,
        one: bool,
    ) -> usize {
        self.land(mem);
        let mut sim: BTreeMap<u32, u64> = self
            .contexts
            .iter()
            .map(|(h, c)| (*h, c.executed))
            .collect();
        let done = |sim: &BTreeMap<u32, u64>, c: u32, f: u64| sim.get(&c).is_none_or(|x| *x >= f);
        let mut subs: Vec<(Engine, Queued)> = Vec::new();
        loop {
            if until.is_some_and(|(c, f)| done(&sim, c, f)) {
                break;
            }
            let next = [Engine::ThreeD, Engine::Copy].into_iter().find(|e| {
                self.queues
                    .get(e.index())
                    .and_then(VecDeque::front)
                    .is_some_and(|q| q.waits.iter().all(|(c, f)| done(&sim, *c, *f)))
            });
            let Some(e) = next else { break };
            let Some(q) = self.queues.get_mut(e.index()).and_then(VecDeque::pop_front) else {
                break;
            };
            if self.contexts.contains_key(&q.ctx) {
                let x = sim.entry(q.ctx).or_default();
                *x = (*x).max(q.fence);
            }
            subs.push((e, q));
            if one {
                break;
            }
        }
        let n = subs.len();
        if n == 0 {
            return 0;
        }
        // The memory the job touches: images moved, the rest shared.
        let mut jm = JobMemory::default();
        let mut shared_writes = false;
        let handles: BTreeSet<u32> = subs
            .iter()
            .flat_map(|(_, q)| q.allocs.iter().copied())
            .collect();
        for a in handles {
            if let Some(img) = mem.take_image(a) {
                jm.images.insert(a, img);
            } else if let Some(b) = mem.share_buffer(a) {
                jm.buffers.insert(a, b);
                shared_writes = true;
            } else if let Some(t) = mem.share_texture(a) {
                jm.textures.insert(a, t);
                shared_writes = true;
            }
        }
        // Only copies and texture targets write buffers and textures.
        shared_writes &= subs.iter().any(|(e, _)| *e == Engine::Copy)
            || subs
                .iter()
                .any(|(_, q)| q.packets.iter().any(Verified::writes_shared));
        self.inflight = subs.iter().map(|(_, q)| (q.ctx, q.fence)).collect();
        self.inflight_shared_writes = shared_writes;
        let exec = match self.exec.take() {
            Some(e) => e,
            None => match Renderer::new(1) {
                Ok(r) => {
                    let mut e = Box::new(ExecState::new(r));
                    e.stats = self.stats;
                    e
                }
                Err(_) => {
                    // No pixel engine: the work is lost (counted).
                    self.stats.faults = self.stats.faults.saturating_add(n as u64);
                    jm.return_to(mem);
                    self.publish_lost();
                    return n;
                }
            },
        };
        let mut exec = exec;
        exec.cancel = self.cancel.clone();
        exec.timeout = self.timeout;
        // A cancellation asked for while nothing ran is dropped: it stops
        // only work in flight.
        self.cancel.take();
        let mut job = Job {
            exec,
            subs,
            mem: jm,
        };
        if let Some(tx) = self.worker.as_ref().and_then(|w| w.tx.as_ref()) {
            match tx.send(job) {
                Ok(()) => return n,
                Err(mpsc::SendError(j)) => job = j,
            }
        }
        // No worker: run here.
        self.worker = None;
        run_job(&mut job);
        let Job { exec, mem: jm, .. } = job;
        self.apply(Done { exec, mem: jm });
        n
    }

    /// Marks the fences in flight executed when their job was lost.
    pub(crate) fn publish_lost(&mut self) {
        for (c, f) in std::mem::take(&mut self.inflight) {
            if let Some(g) = self.contexts.get_mut(&c) {
                g.executed = g.executed.max(f);
            }
        }
    }

    /// Publishes a finished job: fences executed, registers, counters.
    pub(crate) fn apply(&mut self, d: Done) {
        let touched: BTreeSet<u32> = self.inflight.iter().map(|(c, _)| *c).collect();
        for c in touched {
            if let (Some(g), Some(x)) = (self.contexts.get_mut(&c), d.exec.ctxs.get(&c)) {
                g.executed = g.executed.max(x.executed);
                g.regs.clone_from(&x.regs);
                g.counters = x.counters;
                g.queries.clone_from(&x.queries);
                g.hung |= x.hung;
            }
        }
        self.publish_lost();
        self.stats.executed = d.exec.stats.executed;
        self.stats.context_switches = d.exec.stats.context_switches;
        self.stats.faults = d.exec.stats.faults;
        self.stats.paging = d.exec.stats.paging;
        self.stats.hangs = d.exec.stats.hangs;
        self.last_on_engine = d.exec.last_on_engine;
        self.exec = Some(d.exec);
        self.inflight_shared_writes = false;
        let mut m = d.mem;
        if let Some(old) = self.returned.take() {
            // Cannot happen (memory is returned before the next dispatch);
            // keep both.
            m.images.extend(old.images);
        }
        self.returned = Some(m);
    }

    /// Waits for the job in flight and takes back the execution half (its
    /// memory stays in `returned` until [`Kmd::land`]).
    pub(crate) fn land_exec(&mut self) {
        if self.inflight.is_empty() {
            return;
        }
        match self.worker.as_ref().and_then(Worker::receive) {
            Some(d) => self.apply(d),
            None => {
                // The worker is gone with the job (a bug): the fences are
                // let go so that nothing waits forever.
                self.worker = None;
                self.stats.faults = self.stats.faults.saturating_add(self.inflight.len() as u64);
                self.publish_lost();
            }
        }
    }

    /// Waits for the job in flight, publishes its fences and returns its
    /// memory to `mem`.
    pub(crate) fn land(&mut self, mem: &mut dyn VideoMemory) {
        self.land_exec();
        if let Some(m) = self.returned.take() {
            m.return_to(mem);
        }
    }

    /// `&self` readers (the device's image readers): waits for the job in
    /// flight and hands its images to `put` (allocation, image). The
    /// rest of the result (fences, counters, written buffers) is applied
    /// by the next `&mut` call.
    pub fn land_images(&self, put: &mut dyn FnMut(u32, Surface)) {
        let Some(w) = &self.worker else { return };
        if self.inflight.is_empty() {
            return;
        }
        let mut parked = w.parked.lock().unwrap_or_else(PoisonError::into_inner);
        if parked.is_none() {
            w.gate.set(false);
            let rx = w.rx.lock().unwrap_or_else(PoisonError::into_inner);
            *parked = rx.recv().ok();
        }
        if let Some(d) = parked.as_mut() {
            for (a, s) in std::mem::take(&mut d.mem.images) {
                put(a, s);
            }
        }
    }

    /// Sends everything runnable to the GPU worker and returns without
    /// waiting (after waiting for the previous job, whose memory goes back
    /// to `mem`). True if something was sent.
    pub fn dispatch(&mut self, mem: &mut dyn VideoMemory) -> bool {
        self.dispatch_some(mem, None, false) > 0
    }

    /// Waits for the job in flight (fences executed, memory back in
    /// `mem`).
    pub fn wait(&mut self, mem: &mut dyn VideoMemory) {
        self.land(mem);
    }

    /// Runs one queued submission whose waits are satisfied (3-D engine
    /// first) and waits for it; false if none can run.
    pub fn step(&mut self, mem: &mut dyn VideoMemory) -> bool {
        let n = self.dispatch_some(mem, None, true);
        self.land(mem);
        n > 0
    }

    /// Runs everything queued and waits for it.
    pub fn execute_all(&mut self, mem: &mut dyn VideoMemory) {
        while self.dispatch_some(mem, None, false) > 0 {}
        self.land(mem);
    }

    /// Runs queued work until `ctx` has executed `fence`, and waits.
    pub fn execute_until(&mut self, ctx: u32, fence: u64, mem: &mut dyn VideoMemory) {
        while self.contexts.get(&ctx).is_some_and(|c| c.executed < fence) {
            if self.dispatch_some(mem, Some((ctx, fence)), false) == 0 {
                break;
            }
            self.land_exec();
        }
        self.land(mem);
    }

    /// The CPU waits for `fence` on `ctx`: runs what is needed, then the
    /// fence (and every earlier one of the context) is retired.
    pub fn retire(&mut self, ctx: u32, fence: u64, mem: &mut dyn VideoMemory) {
        self.execute_until(ctx, fence, mem);
        if let Some(c) = self.contexts.get_mut(&ctx) {
            c.retired = c.retired.max(fence.min(c.executed));
        }
    }

    /// Runs and retires everything.
    pub fn retire_all(&mut self, mem: &mut dyn VideoMemory) {
        self.execute_all(mem);
        for c in self.contexts.values_mut() {
            c.retired = c.executed;
        }
        for a in self.allocs.values_mut() {
            a.uses.clear();
        }
    }
}
