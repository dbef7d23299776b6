//! A scenario's runs folded as they finish: the aggregates' state and the
//! rows of the per-run files, never the runs themselves.

use std::borrow::Cow;
use std::time::Duration;

use super::RowSpools;
use crate::core::error::Result;
use crate::core::sim::policy_clock::PolicyTotals;
use crate::models::aggregate::{Aggregate, RunFigures, RunFold, aggregate_fold};
use crate::models::metrics::{RepResult, TenantRows};
use crate::models::scenario::Scenario;

/// Every run of a scenario, folded in (repetition, policy) order.
#[derive(Debug)]
pub struct ExperimentResult {
    /// The aggregates' state.
    pub fold: RunFold,
    /// `summary.csv`, `tenants.csv` (and `jobs.csv`) rows, written as the
    /// runs are folded.
    pub rows: RowSpools,
    /// Per policy, in scenario order.
    pub totals: Vec<PolicyTotals>,
    /// Runs folded.
    pub runs: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

impl ExperimentResult {
    /// An empty result of `scenario` (with `jobs.csv` rows when `jobs`).
    pub fn new(scenario: &Scenario, jobs: bool) -> Result<Self> {
        Ok(Self {
            fold: RunFold::new(scenario.policies.len()),
            rows: RowSpools::new(scenario, jobs)?,
            totals: vec![PolicyTotals::default(); scenario.policies.len()],
            runs: 0,
            threads: 0,
            wall: Duration::ZERO,
        })
    }

    /// Fold the next run (runs come in (repetition, policy) order): the one
    /// place where a run's results enter what is written.
    pub fn add(&mut self, scenario: &Scenario, run: &RepResult) -> Result<()> {
        self.fold.add(RunFigures {
            policy: run.policy,
            curve: Cow::Borrowed(&run.curve),
            job_curve: Cow::Borrowed(&run.job_curve),
            tenant_aggregate: &run.tenant_aggregate,
            end: run.outcome.end,
            first_completion: run.first_completion,
        });
        self.add_rows(scenario, run)
    }

    /// [`Self::add`], taking the run: its rows are spooled first and
    /// dropped, then its curves are moved into the aggregates' fold rather
    /// than cloned, so a large run (issue 34) never holds its rows and two
    /// copies of its curves at once. The same rows and the same fold.
    pub fn add_owned(&mut self, scenario: &Scenario, mut run: RepResult) -> Result<()> {
        self.add_rows(scenario, &run)?;
        run.tenants = TenantRows::default();
        run.outcome.jobs = Default::default();
        let RepResult {
            policy,
            curve,
            job_curve,
            tenant_aggregate,
            outcome,
            first_completion,
            ..
        } = run;
        self.fold.add(RunFigures {
            policy,
            curve: Cow::Owned(curve),
            job_curve: Cow::Owned(job_curve),
            tenant_aggregate: &tenant_aggregate,
            end: outcome.end,
            first_completion,
        });
        Ok(())
    }

    /// The rows and totals of `run` (the part of [`Self::add`] that does
    /// not touch the curves).
    fn add_rows(&mut self, scenario: &Scenario, run: &RepResult) -> Result<()> {
        self.rows.add(scenario, run)?;
        if let Some(t) = self.totals.get_mut(run.policy) {
            t.add(run.metrics.events, run.elapsed, run.policy_time);
        }
        self.runs += 1;
        Ok(())
    }

    /// Aggregate the folded runs of `scenario` (DESIGN §6).
    pub fn aggregate(&self, scenario: &Scenario) -> Result<Aggregate> {
        aggregate_fold(scenario, &self.fold)
    }

    /// Every run is in: flush the rows and record the threads and wall time.
    pub fn finish(&mut self, threads: usize, wall: Duration) -> Result<()> {
        self.threads = threads;
        self.wall = wall;
        self.rows.finish()
    }
}
