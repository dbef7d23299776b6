//! The preemptive pass shared by `srtf` and `las`.
//!
//! The waiting queue is scanned in priority order (smallest key first).
//! For each job `w`:
//!
//! 1. if it fits, it starts;
//! 2. otherwise `w` may preempt running jobs of strictly lower priority (as
//!    the [`Priority`] says); the victims are the least important jobs
//!    whose removal lets `w` fit. Under `spread`: the preemptable jobs,
//!    lowest priority first, until enough GPUs are free. Under
//!    `consolidate` (all GPUs on one node): on each node its preemptable
//!    jobs are taken lowest priority first until the node has room; the
//!    node whose most important victim is the least important wins. If no
//!    node (or not the cluster) can make room, nothing is preempted and `w`
//!    counts as not fitting;
//! 3. candidates are preempted lowest priority first until `w` fits, and
//!    `w` starts; then victims whose GPUs `w` did not take are put back at
//!    once, highest priority first, as if never preempted (no overhead,
//!    same GPUs); the others are preempted for good and wait;
//! 4. a job that does not fit stops the scan (head-of-line blocking) unless
//!    backfilling is on, in which case the scan goes on with later jobs.
//!
//! A preemption only ever replaces a job by one of strictly higher
//! priority, so a pass terminates and never preempts a job it started.
//! With backfilling the pass leaves no waiting job that fits: a skipped job
//! `x` could not fit even with every job it may preempt gone, and any later
//! (lower-priority) job only preempts a subset of those, so the GPUs it
//! leaves free never make `x` fit (checked by the property tests).

use std::cmp::Reverse;

use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::heap::IndexedHeap;
use crate::core::sim::time::Micros;
use crate::jobs::sim::cluster::Placement;
use crate::jobs::sim::simulation::{Pass, State, Tentative};
use crate::jobs::sim::{JobScheduler, Key};

const UNTOUCHED: u64 = u64::MAX;

/// The priority rule of a preemptive scheduler.
pub(super) trait Priority: Send + Clone + 'static {
    /// Key of a waiting job (smaller = served first).
    fn waiting_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key;
    /// Key of a running job (larger = preempted first).
    fn running_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key;
    /// Whether waiting job `w` may preempt running job `v`.
    fn may_preempt(&self, w: u32, v: u32, now: Micros, state: &State<'_>) -> bool;
    /// Service after which a running job's priority next changes.
    fn next_change(&self, _job: u32, _now: Micros, _state: &State<'_>) -> Option<Micros> {
        None
    }
}

/// A preemptive scheduler driven by a [`Priority`].
#[derive(Debug, Clone)]
pub(super) struct Preemptive<P> {
    prio: P,
    waiting: IndexedHeap<Key>,
    running: IndexedHeap<Reverse<Key>>,
    skipped: Vec<u32>,
    victims: Vec<Tentative>,
    candidates: Vec<u32>,
    node_acc: Vec<u64>,
    /// With CPUs counted: CPUs that would be free per node (`consolidate`).
    node_cpu_acc: Vec<u64>,
    /// Under `spread`: GPUs that would be free per GPU type.
    type_acc: Vec<u64>,
    /// Under `spread` with CPUs counted: CPUs that would be free per type.
    type_cpu_acc: Vec<u64>,
    touched: Vec<usize>,
    /// Bumped by every change that can let a job fit: a completion, a
    /// timer (priorities change), a start or a final preemption.
    epoch: u64,
    /// `epoch` when a job last failed to start even with preemption.
    failed_at: Vec<u64>,
    /// The types the job could start on when it last failed (under
    /// `fastest-or-wait` they grow when its wait bound passes).
    failed_types: Vec<u64>,
}

impl<P: Priority> Preemptive<P> {
    pub(super) fn new(jobs: usize, prio: P) -> Self {
        Self {
            prio,
            waiting: IndexedHeap::new(jobs),
            running: IndexedHeap::new(jobs),
            skipped: Vec::with_capacity(jobs),
            victims: Vec::with_capacity(64),
            candidates: Vec::with_capacity(64),
            node_acc: Vec::new(),
            node_cpu_acc: Vec::new(),
            type_acc: Vec::new(),
            type_cpu_acc: Vec::new(),
            touched: Vec::with_capacity(64),
            epoch: 0,
            failed_at: vec![u64::MAX; jobs],
            failed_types: vec![0; jobs],
        }
    }

    fn started(&mut self, pass: &mut Pass<'_, '_>, j: u32) {
        self.epoch += 1;
        let now = pass.now();
        let k = self.prio.running_key(j, now, pass.state());
        self.running.push(j, Reverse(k));
        if let Some(service) = self.prio.next_change(j, now, pass.state()) {
            pass.schedule_timer(j, service);
        }
    }

    /// Start `w`, preempting lower-priority jobs if needed.
    ///
    /// A job that failed and finds nothing changed since (same epoch) fails
    /// again without trying: waiting jobs' priorities are fixed, running
    /// jobs' change only at timers (`las`) or only ever rise relative to
    /// waiting jobs (`srtf`), so the same state gives the same answer. This
    /// keeps a blocked head of the queue from costing a victim search at
    /// every arrival.
    fn try_start(&mut self, pass: &mut Pass<'_, '_>, w: u32) -> Result<bool> {
        let types = pass.start_types(w);
        if self.failed_at[w as usize] == self.epoch && self.failed_types[w as usize] == types {
            return Ok(false);
        }
        if pass.start(w)? {
            self.started(pass, w);
            return Ok(true);
        }
        if !self.select_victims(pass, w) {
            self.failed_at[w as usize] = self.epoch;
            self.failed_types[w as usize] = types;
            return Ok(false);
        }
        self.victims.clear();
        for k in 0..self.candidates.len() {
            let v = self.candidates[k];
            if pass.fits(w) {
                self.running.push(v, self.running.key(v));
            } else {
                self.victims.push(pass.preempt(v)?);
            }
        }
        if !pass.start(w)? {
            return Err(Error::input(format!(
                "internal error: job {w} does not fit after preempting its victims"
            )));
        }
        self.started(pass, w);
        let now = pass.now();
        while let Some(t) = self.victims.pop() {
            let v = t.job();
            if pass.can_undo(&t) {
                pass.undo(t)?;
                self.running.push(v, self.running.key(v));
            } else {
                pass.commit(t);
                let k = self.prio.waiting_key(v, now, pass.state());
                self.waiting.push(v, k);
            }
        }
        Ok(true)
    }

    /// Choose the victims that let `w` start: the least important jobs
    /// whose removal makes room. Running jobs `w` may preempt are taken
    /// from the running queue lowest priority first (preemptability is
    /// monotone in priority, so the first job `w` may not preempt ends the
    /// search). Under `spread` they are the victims until enough GPUs would
    /// be free. Under `consolidate` the GPUs they would free are counted
    /// per node, and the first node to have room wins — that is the node
    /// whose most important victim is the least important; the victims are
    /// the jobs taken on that node, and the others are put back. Returns
    /// `false` (and changes nothing) if no room can be made. On success the
    /// victims are in `candidates`, lowest priority first, out of the
    /// running queue.
    ///
    /// GPU types (DESIGN §11.2): only GPUs of the types `w` may start on
    /// now count; under `spread` they are counted per type (a job never
    /// spans types) and the first type to have room wins, its victims
    /// being the jobs taken on it.
    ///
    /// CPUs (DESIGN §14.6): when the cluster counts them, the CPUs victims
    /// would free are counted beside their GPUs (per node, or per type
    /// under `spread`), and room means both `w`'s GPUs and its CPUs. A
    /// victim holding nothing (0 GPUs, CPUs not counted, `spread`) frees
    /// nothing and is put back.
    fn select_victims(&mut self, pass: &Pass<'_, '_>, w: u32) -> bool {
        let (now, st, g) = (pass.now(), pass.state(), u64::from(pass.gpus(w)));
        let cluster = st.cluster();
        let cpus = cluster.counts_cpus();
        let c = if cpus { u64::from(pass.cpus(w)) } else { 0 };
        let consolidate = cluster.placement() == Placement::Consolidate;
        let types = pass.start_types(w);
        if self.node_acc.len() != cluster.nodes() {
            self.node_acc = vec![UNTOUCHED; cluster.nodes()];
            self.node_cpu_acc = vec![0; cluster.nodes()];
        }
        if !consolidate {
            self.type_acc.clear();
            self.type_acc
                .extend((0..cluster.types()).map(|t| cluster.free_of_type(t as GpuType)));
            self.type_cpu_acc.clear();
            self.type_cpu_acc
                .extend((0..cluster.types()).map(|t| cluster.free_cpus_of_type(t as GpuType)));
        }
        self.candidates.clear();
        self.touched.clear();
        let mut winner = None;
        while let Some((v, _)) = self.running.peek() {
            if !self.prio.may_preempt(w, v, now, st) {
                break;
            }
            self.running.pop();
            self.candidates.push(v);
            let Some(&a) = st.allocs(v).first() else {
                continue;
            };
            let vt = cluster.node_type(a.node as usize);
            if types & (1 << vt) == 0 {
                continue;
            }
            if consolidate {
                let n = a.node as usize;
                if self.node_acc[n] == UNTOUCHED {
                    self.node_acc[n] = u64::from(cluster.free(n));
                    self.node_cpu_acc[n] = u64::from(cluster.free_cpus(n));
                    self.touched.push(n);
                }
                self.node_acc[n] += u64::from(a.gpus);
                self.node_cpu_acc[n] += u64::from(a.cpus);
                if self.node_acc[n] >= g && self.node_cpu_acc[n] >= c {
                    winner = Some(a.node);
                    break;
                }
            } else {
                let t = vt as usize;
                self.type_acc[t] += u64::from(st.job(v).gpus);
                if cpus {
                    self.type_cpu_acc[t] +=
                        st.allocs(v).iter().map(|x| u64::from(x.cpus)).sum::<u64>();
                }
                if self.type_acc[t] >= g && self.type_cpu_acc[t] >= c {
                    winner = Some(u32::from(vt));
                    break;
                }
            }
        }
        for &n in &self.touched {
            self.node_acc[n] = UNTOUCHED;
        }
        let keep = |v: u32| {
            let Some(node) = st.allocs(v).first().map(|a| a.node) else {
                return false;
            };
            winner.is_some_and(|x| {
                if consolidate {
                    node == x
                } else {
                    u32::from(cluster.node_type(node as usize)) == x
                }
            })
        };
        let running = &mut self.running;
        self.candidates.retain(|&v| {
            let k = keep(v);
            if !k || winner.is_none() {
                running.push(v, running.key(v));
            }
            k && winner.is_some()
        });
        winner.is_some()
    }
}

impl<P: Priority> JobScheduler for Preemptive<P> {
    /// A copy in the same state (DESIGN §15.5).
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        Some(Box::new(self.clone()))
    }

    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>) {
        self.waiting
            .push(job, self.prio.waiting_key(job, now, state));
    }

    fn on_completion(&mut self, job: u32, _now: Micros, _state: &State<'_>) {
        self.epoch += 1;
        self.running.remove(job);
    }

    fn on_timer(&mut self, job: u32, now: Micros, state: &State<'_>) -> Option<Micros> {
        self.epoch += 1;
        self.running
            .push(job, Reverse(self.prio.running_key(job, now, state)));
        self.prio.next_change(job, now, state)
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        self.skipped.clear();
        while let Some((w, _)) = self.waiting.peek() {
            self.waiting.pop();
            if self.try_start(pass, w)? {
                continue;
            }
            self.skipped.push(w);
            if !pass.backfill() {
                break;
            }
        }
        for &j in &self.skipped {
            self.waiting.push(j, self.waiting.key(j));
        }
        Ok(())
    }
}
