//! The workload of a shared run as the engine sees it: the service
//! (engine owner 1) and the workflows (owner 2, DESIGN §14.2) composed
//! into one [`Workload`], each hook routed to the part it is about
//! (events by tag, the workflows' from [`TAG_BASE`]; completions by job
//! index, the workflows' from `second`), and the GPU share of each
//! workload over time (`shares.csv`, DESIGN §13.5), recorded at the end
//! of every instant when a workload's holding changed.

use super::outcome::{ShareStep, WorkloadKind};
use super::service::Service;
use super::workflows::{TAG_BASE, Workflows};
use crate::core::error::Result;
use crate::core::io::record_log::RecordLog;
use crate::core::memory::SHARES_IN_MEMORY;
use crate::core::sim::time::Micros;
use crate::jobs::sim::event::JobEvent;
use crate::jobs::sim::simulation::State;
use crate::jobs::sim::{Ctx, Workload};

/// The service (if any), the workflows (if any) and the share log.
pub(super) struct Tracked<'a> {
    pub(super) service: Option<Service<'a>>,
    pub(super) workflows: Option<Workflows<'a>>,
    pub(super) shares: RecordLog<ShareStep>,
    /// GPUs held at the last row, per owner (0 background, 1 service, 2
    /// workflows).
    last: [u64; 3],
    /// Which workloads exist.
    present: [bool; 3],
    /// The workflows' first job.
    second: u32,
}

impl<'a> Tracked<'a> {
    pub(super) fn new(
        service: Option<Service<'a>>,
        workflows: Option<Workflows<'a>>,
        background: bool,
        second: u32,
    ) -> Result<Self> {
        let present = [background, service.is_some(), workflows.is_some()];
        let mut shares = RecordLog::with_bound(SHARES_IN_MEMORY, "the run's GPU shares")?;
        for (owner, kind) in [
            (1, WorkloadKind::Service),
            (0, WorkloadKind::Background),
            (2, WorkloadKind::Workflows),
        ] {
            if present[owner] {
                shares.push(ShareStep {
                    time: 0,
                    workload: kind,
                    gpus: 0,
                });
            }
        }
        Ok(Self {
            service,
            workflows,
            shares,
            last: [0; 3],
            present,
            second,
        })
    }

    /// Whether `event` is about the workflows.
    fn of_workflows(&self, event: &JobEvent) -> bool {
        match *event {
            JobEvent::Workload { tag, .. } => tag >= TAG_BASE,
            JobEvent::Completion { job, .. }
            | JobEvent::Timer { job, .. }
            | JobEvent::WaitOver { job } => job >= self.second,
            JobEvent::Arrival { .. } | JobEvent::Boundary { .. } => false,
        }
    }
}

impl Workload for Tracked<'_> {
    /// Both parts forked, the share log copied (DESIGN §15.6).
    fn fork(&self) -> Result<Self> {
        Ok(Self {
            service: self.service.fork()?,
            workflows: self.workflows.fork()?,
            shares: self.shares.clone(),
            last: self.last,
            present: self.present,
            second: self.second,
        })
    }
    fn init(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.service.init(ctx)?;
        self.workflows.init(ctx)
    }
    fn on_event(&mut self, ctx: &mut Ctx<'_, '_, '_>, tag: u8, data: u32) -> Result<()> {
        if tag >= TAG_BASE {
            self.workflows.on_event(ctx, tag, data)
        } else {
            self.service.on_event(ctx, tag, data)
        }
    }
    fn on_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, job: u32) -> Result<()> {
        if job >= self.second {
            self.workflows.on_done(ctx, job)
        } else {
            self.service.on_done(ctx, job)
        }
    }
    fn on_own_event_of(&mut self, now: Micros, event: &JobEvent) {
        if self.of_workflows(event) {
            self.workflows.on_own_event(now);
        } else {
            self.service.on_own_event(now);
        }
    }
    fn on_preempted(&mut self, job: u32, now: Micros) -> Result<()> {
        // Only hidden jobs (the service's) are preempted this way.
        self.service.on_preempted(job, now)
    }
    fn fill(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.service.fill(ctx)?;
        self.workflows.fill(ctx)
    }
    /// A row per workload whose holding changed in this instant: the
    /// service's, the background's, then the workflows'.
    fn after_instant(&mut self, now: Micros, state: &State<'_>) {
        for (owner, kind) in [
            (1, WorkloadKind::Service),
            (0, WorkloadKind::Background),
            (2, WorkloadKind::Workflows),
        ] {
            let held = state.held_by(owner);
            if self.present[owner] && held != self.last[owner] {
                self.last[owner] = held;
                self.shares.push(ShareStep {
                    time: now,
                    workload: kind,
                    gpus: held,
                });
            }
        }
    }
}
