//! The GPU worker thread: jobs in, finished jobs out.
//!
//! In: [`Job`]s (submissions in execution order, the execution half of the
//! GPU and the memory the job touches) from [`crate::schedule`]. Out:
//! [`Done`] (the execution half and the memory, always, even if the pixel
//! engine panicked). Guarantees: one thread per [`crate::Kmd`], joined on
//! drop after the job in flight; a [`Gate`] tests can close to observe
//! work not yet run (every wait opens it, so it cannot deadlock).

use crate::gpu::ExecState;
use crate::memory::JobMemory;
use crate::packet::Engine;
use crate::schedule::Queued;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// One job for the worker: submissions in execution order and the memory
/// they touch.
pub(crate) struct Job {
    pub(crate) exec: Box<ExecState>,
    pub(crate) subs: Vec<(Engine, Queued)>,
    pub(crate) mem: JobMemory,
}

/// A finished job.
pub(crate) struct Done {
    pub(crate) exec: Box<ExecState>,
    pub(crate) mem: JobMemory,
}

/// A gate the worker passes before each job (closed by
/// [`Kmd::hold_gpu`], for tests that must observe work not yet run;
/// every wait opens it).
#[derive(Default)]
pub(crate) struct Gate {
    pub(crate) closed: Mutex<bool>,
    pub(crate) cv: Condvar,
}

impl Gate {
    pub(crate) fn set(&self, closed: bool) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = closed;
        self.cv.notify_all();
    }
    fn pass(&self) {
        let mut g = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        while *g {
            g = self.cv.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The GPU worker thread and its channels.
pub(crate) struct Worker {
    pub(crate) tx: Option<Sender<Job>>,
    pub(crate) rx: Mutex<Receiver<Done>>,
    /// A result received by a `&self` caller ([`Kmd::land_images`]) and
    /// not yet applied.
    pub(crate) parked: Mutex<Option<Done>>,
    pub(crate) gate: Arc<Gate>,
    pub(crate) handle: Option<JoinHandle<()>>,
}

impl Worker {
    pub(crate) fn spawn() -> Option<Worker> {
        let (tx, jobs) = mpsc::channel::<Job>();
        let (done, rx) = mpsc::channel::<Done>();
        let gate = Arc::new(Gate::default());
        let g = Arc::clone(&gate);
        let handle = std::thread::Builder::new()
            .name("softhal-gpu".into())
            .spawn(move || {
                while let Ok(mut job) = jobs.recv() {
                    g.pass();
                    run_job(&mut job);
                    let Job { exec, mem, .. } = job;
                    if done.send(Done { exec, mem }).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Worker {
            tx: Some(tx),
            rx: Mutex::new(rx),
            parked: Mutex::new(None),
            gate,
            handle: Some(handle),
        })
    }

    /// Blocks until the job in flight is done (None: the worker is gone).
    pub(crate) fn receive(&self) -> Option<Done> {
        self.gate.set(false);
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(d) = parked.take() {
            return Some(d);
        }
        let rx = self.rx.lock().unwrap_or_else(PoisonError::into_inner);
        rx.recv().ok()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.gate.set(false);
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Executes a job's submissions in order; the snapshots it only read are
/// dropped. A panic in the pixel engine (a bug) is caught so that the
/// memory and the execution state always come back.
pub(crate) fn run_job(job: &mut Job) {
    let subs = std::mem::take(&mut job.subs);
    let exec = &mut job.exec;
    let mem = &mut job.mem;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for (e, q) in subs {
            exec.execute(e, q, mem);
        }
    }));
    if r.is_err() {
        job.exec.fault();
    }
    job.mem.drop_read_only();
}
