//! A [`JobSink`] on a thread of its own (docs/PERFORMANCE.md, "Internet
//! scale"): the engine's calls are recorded in batches and replayed, in
//! the same order, into the wrapped sink by a worker thread. A large run
//! whose repetitions leave a core idle (scale-1m: one repetition on the
//! 2-core machine) then folds its metrics beside the simulation instead of
//! inside it.
//!
//! The wrapped sink sees exactly the calls it would see unthreaded, in the
//! same order, so what it returns at [`JobSink::finish`] is the same: the
//! results do not depend on whether the fold ran on its own thread
//! (tested on every bundled model scenario: `tests/it/folded_metrics.rs`).
//!
//! Batches hold [`BATCH`] calls; the worker hands each emptied batch back,
//! so a run allocates a few batches in all, not one per call, and at most
//! [`IN_FLIGHT`] batches wait for the worker (the engine blocks beyond).

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

use super::{JobSink, RunEndState};
use crate::models::trace::Micros;

/// Calls per batch (40 bytes each: 160 KiB a batch).
const BATCH: usize = 4096;
/// Batches sent and not yet replayed, at most.
const IN_FLIGHT: usize = 8;

/// One recorded [`JobSink`] call.
#[derive(Debug, Clone, Copy)]
enum Call {
    Arrived {
        now: Micros,
        i: usize,
        best_possible: f64,
    },
    Started {
        i: usize,
        start: Micros,
        end: Micros,
    },
    Completed {
        i: usize,
        start: Micros,
        at: Micros,
        acc: f64,
    },
    Cancelled {
        i: usize,
        start: Micros,
        at: Micros,
    },
    Done {
        i: usize,
    },
}

impl Call {
    fn replay(self, sink: &mut dyn JobSink) {
        match self {
            Call::Arrived {
                now,
                i,
                best_possible,
            } => sink.arrived(now, i, best_possible),
            Call::Started { i, start, end } => sink.started(i, start, end),
            Call::Completed { i, start, at, acc } => sink.completed(i, start, at, acc),
            Call::Cancelled { i, start, at } => sink.cancelled(i, start, at),
            Call::Done { i } => sink.done(i),
        }
    }
}

/// What the engine's side sends the worker.
enum Message {
    /// Calls to replay, in order.
    Batch(Vec<Call>),
    /// Reply with a fork of the sink as it stands after every batch sent.
    Fork(Sender<Box<dyn JobSink>>),
}

/// A [`JobSink`] that replays its calls into `inner` on a worker thread.
pub struct ThreadedSink {
    pending: Vec<Call>,
    to_worker: Option<SyncSender<Message>>,
    /// Emptied batches coming back from the worker.
    spare: Receiver<Vec<Call>>,
    /// Gives the sink back when it stops (`None` only if it never got it).
    worker: Option<JoinHandle<Option<Box<dyn JobSink>>>>,
}

impl fmt::Debug for ThreadedSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadedSink")
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl ThreadedSink {
    /// `inner` on a new worker thread, or `inner` itself, unthreaded, when
    /// no thread can be started (the results are the same either way).
    pub fn wrap(inner: Box<dyn JobSink>) -> Box<dyn JobSink> {
        let (to_worker, from_engine) = sync_channel::<Message>(IN_FLIGHT);
        let (give_back, spare) = channel::<Vec<Call>>();
        // The sink goes to the worker once it runs, so a failed spawn
        // leaves it here.
        let (hand_over, take) = channel::<Box<dyn JobSink>>();
        let spawned = std::thread::Builder::new()
            .name("tenantsim-fold".into())
            .spawn(move || {
                let mut sink = take.recv().ok()?;
                for message in from_engine {
                    match message {
                        Message::Batch(mut calls) => {
                            for call in calls.drain(..) {
                                call.replay(sink.as_mut());
                            }
                            // The engine's side may be gone (finish): the
                            // batch is then simply dropped.
                            let _ = give_back.send(calls);
                        }
                        Message::Fork(reply) => {
                            let _ = reply.send(sink.fork());
                        }
                    }
                }
                Some(sink)
            });
        let Ok(worker) = spawned else {
            return inner;
        };
        if let Err(returned) = hand_over.send(inner) {
            // Unreachable: the worker waits for the sink first.
            return returned.0;
        }
        Box::new(ThreadedSink {
            pending: Vec::with_capacity(BATCH),
            to_worker: Some(to_worker),
            spare,
            worker: Some(worker),
        })
    }

    fn record(&mut self, call: Call) {
        self.pending.push(call);
        if self.pending.len() >= BATCH {
            self.flush();
        }
    }

    /// Send the pending calls to the worker.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH));
        let batch = std::mem::replace(&mut self.pending, next);
        self.send(Message::Batch(batch));
    }

    fn send(&mut self, message: Message) {
        if let Some(to_worker) = &self.to_worker
            && to_worker.send(message).is_err()
        {
            // The worker is gone: it panicked. `join` reports that panic.
            self.to_worker = None;
        }
    }

    /// Flush, stop the worker and take the sink back; a panic of the
    /// worker (a bug in the wrapped sink) is resumed here.
    fn join(&mut self) -> Box<dyn JobSink> {
        self.flush();
        self.to_worker = None;
        let worker = self
            .worker
            .take()
            .expect("a ThreadedSink is joined once, at finish");
        match worker.join() {
            Ok(Some(sink)) => sink,
            Ok(None) => unreachable!("the worker of a ThreadedSink is handed its sink at start"),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl JobSink for ThreadedSink {
    fn arrived(&mut self, now: Micros, i: usize, best_possible: f64) {
        self.record(Call::Arrived {
            now,
            i,
            best_possible,
        });
    }

    fn started(&mut self, i: usize, start: Micros, end: Micros) {
        self.record(Call::Started { i, start, end });
    }

    fn completed(&mut self, i: usize, start: Micros, at: Micros, acc: f64) {
        self.record(Call::Completed { i, start, at, acc });
    }

    fn cancelled(&mut self, i: usize, start: Micros, at: Micros) {
        self.record(Call::Cancelled { i, start, at });
    }

    fn done(&mut self, i: usize) {
        self.record(Call::Done { i });
    }

    /// A fork of the wrapped sink as it stands now (unthreaded).
    fn fork(&self) -> Box<dyn JobSink> {
        // `fork` takes `&self`: the pending calls are replayed into the
        // worker's fork here instead of being flushed.
        let (reply, answer) = channel();
        let sent = self
            .to_worker
            .as_ref()
            .is_some_and(|to_worker| to_worker.send(Message::Fork(reply)).is_ok());
        let mut fork = match sent.then(|| answer.recv().ok()).flatten() {
            Some(fork) => fork,
            // The worker is gone (it panicked): `finish` reports it.
            None => panic!("the fold's worker thread stopped before the run ended"),
        };
        for &call in &self.pending {
            call.replay(fork.as_mut());
        }
        fork
    }

    fn finish(
        mut self: Box<Self>,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        best_possible: &dyn Fn(usize) -> f64,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> Arc<dyn Any + Send + Sync> {
        self.join().finish(state, models, best_possible, cut)
    }
}

impl Drop for ThreadedSink {
    fn drop(&mut self) {
        // A run abandoned before its finish (an error): stop the worker.
        self.to_worker = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests;
