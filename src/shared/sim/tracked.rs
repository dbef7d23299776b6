//! The GPU share of each workload over time (`shares.csv`, DESIGN §13.5):
//! a wrapper around the service workload that records, at the end of
//! every instant, the GPUs each workload holds when it changed.

use super::outcome::{ShareStep, WorkloadKind};
use super::service::Service;
use crate::core::error::Result;
use crate::core::sim::time::Micros;
use crate::jobs::sim::simulation::State;
use crate::jobs::sim::{Ctx, Workload};

/// The service (if any) and the share log.
pub(super) struct Tracked<'a> {
    pub(super) service: Option<Service<'a>>,
    pub(super) shares: Vec<ShareStep>,
    /// GPUs held at the last row, per owner (0 background, 1 service).
    last: [u64; 2],
    /// Which workloads exist.
    present: [bool; 2],
}

impl<'a> Tracked<'a> {
    pub(super) fn new(service: Option<Service<'a>>, background: bool, has_service: bool) -> Self {
        let mut shares = Vec::new();
        if has_service {
            shares.push(ShareStep {
                time: 0,
                workload: WorkloadKind::Service,
                gpus: 0,
            });
        }
        if background {
            shares.push(ShareStep {
                time: 0,
                workload: WorkloadKind::Background,
                gpus: 0,
            });
        }
        Self {
            service,
            shares,
            last: [0; 2],
            present: [background, has_service],
        }
    }
}

impl Workload for Tracked<'_> {
    fn init(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.service.init(ctx)
    }
    fn on_event(&mut self, ctx: &mut Ctx<'_, '_, '_>, tag: u8, data: u32) -> Result<()> {
        self.service.on_event(ctx, tag, data)
    }
    fn on_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, job: u32) -> Result<()> {
        self.service.on_done(ctx, job)
    }
    fn on_own_event(&mut self, now: Micros) {
        self.service.on_own_event(now);
    }
    fn on_preempted(&mut self, job: u32, now: Micros) -> Result<()> {
        self.service.on_preempted(job, now)
    }
    fn fill(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.service.fill(ctx)
    }
    /// A row per workload whose holding changed in this instant, the
    /// service's first.
    fn after_instant(&mut self, now: Micros, state: &State<'_>) {
        for (owner, kind) in [(1, WorkloadKind::Service), (0, WorkloadKind::Background)] {
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
