//! `asha`: asynchronous successive halving per tenant (Li et al., "A
//! System for Massively Parallel Hyperparameter Tuning", MLSys 2020,
//! Algorithm 2; DESIGN §12.3).
//!
//! Whenever the tenant may start a job, [`AshaRungs::get_job`] promotes a
//! model among the top ⌊n_k/η⌋ of rung k not yet promoted, highest rung
//! first, or else starts the next new model at rung 0. New models come in
//! one order per tenant, fixed at the start of the repetition: by prior
//! mean (the mean accuracy of the model at its top level over the
//! repetition's prior users that have it), best first, ties and models no
//! prior user has after them in trace order, when the repetition has prior
//! users; else a uniformly random permutation of the tenant's models from
//! the repetition's selector stream (tenants in index order, Fisher–Yates
//! with [`below`]). When nothing can start while jobs of the tenant run, it
//! waits (`None`); when nothing can start and none runs, ASHA is over for
//! that tenant. Algorithm 2 draws configurations without end and stops
//! only when its user does; a tenant's pool is its K_i models, so its
//! schedule ends when every model has started at rung 0, no completed
//! result can be promoted and none of its jobs runs (or earlier, by the
//! scenario's `[limits]` `max_jobs` or `budget_gpu_s`, DESIGN §2.7). The
//! tenant is then done (`after_schedule = "stop"`, the default), or with
//! `"sweep"` it [sweeps](super::top_sweep) the rest at the top fidelity.

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::rng::{Purpose, below, stream};
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::{Proposal, RepContext, Selector, SelectorFactory, Tenants};
use crate::models::trace::Trace;

use super::asha_rungs::{AshaJob, AshaRungs};
use super::ladder::{Ladder, RungKeys};
use super::top_sweep::Sweep;

/// Registry entry.
pub fn entry() -> SelectorEntry {
    SelectorEntry::from_parse(
        "asha",
        "asynchronous successive halving per tenant (Li et al. 2020), new models by prior mean or at random; after it the tenant is done, or with after_schedule = sweep trains the rest at the top fidelity (keys: eta, min_fidelity, after_schedule)",
        parse,
    )
    .provides_acquisition(true)
}

fn parse(params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    let keys = RungKeys::parse(params, trace)?;
    Ok(Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(Asha::new(keys, ctx)) as Box<dyn Selector>)
    }))
}

/// The trace models ordered by prior mean: the mean top-level accuracy over
/// the `prior` users that have each, best first; models no prior user has
/// last; ties by model index.
pub fn prior_mean_order(trace: &Trace, prior: &[usize]) -> Vec<usize> {
    let mean: Vec<Option<f64>> = (0..trace.n_models())
        .map(|k| {
            let (mut s, mut n) = (0.0, 0usize);
            for &p in prior {
                if trace.is_available(p, k) {
                    s += trace.accuracy(p, k);
                    n += 1;
                }
            }
            (n > 0).then(|| s / n as f64)
        })
        .collect();
    let mut order: Vec<usize> = (0..trace.n_models()).collect();
    order.sort_by(|&a, &b| match (mean[a], mean[b]) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.cmp(&b)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(&b),
    });
    order
}

/// One repetition's ASHA.
#[derive(Debug, Clone)]
struct Asha {
    ladder: Ladder,
    rungs: Vec<AshaRungs>,
    sweeps: Vec<Sweep>,
    /// Per tenant: the job last proposed, until it starts.
    pending: Vec<Option<AshaJob>>,
}

impl Asha {
    fn new(keys: RungKeys, ctx: &RepContext<'_>) -> Self {
        let ladder = Ladder::new(keys, ctx);
        let trace = ctx.trace;
        let by_prior = (!ctx.prior.is_empty()).then(|| prior_mean_order(trace, ctx.prior));
        let mut rng = stream(ctx.seed, ctx.repetition, Purpose::Selector);
        let rungs = ctx
            .tenants
            .iter()
            .map(|u| {
                let order: Vec<usize> = match &by_prior {
                    Some(o) => o
                        .iter()
                        .copied()
                        .filter(|&k| trace.is_available(u, k))
                        .collect(),
                    None => {
                        let mut o = trace.models_of(u).to_vec();
                        for x in (1..o.len()).rev() {
                            o.swap(x, below(&mut rng, x + 1));
                        }
                        o
                    }
                };
                AshaRungs::new(keys.eta, ladder.n_rungs(), trace.n_models(), order)
            })
            .collect();
        let sweeps = ctx
            .tenants
            .iter()
            .map(|u| Sweep::new(keys.after, trace.models_of(u).len()))
            .collect();
        Self {
            ladder,
            rungs,
            sweeps,
            pending: vec![None; ctx.tenants.len()],
        }
    }
}

impl Asha {
    /// [`Selector::propose`] of this selector, which cannot fail.
    fn next_proposal(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let u = tenants.user(i);
        let ladder = &self.ladder;
        let sweep = &mut self.sweeps[i];
        if !sweep.is_active() {
            let job = self.rungs[i].get_job(
                |k, r| ladder.level_of(u, k, r),
                |k| ladder.done(tenants, i, k),
            );
            if let Some(job) = job {
                self.pending[i] = Some(job);
                return Some(ladder.proposal(tenants, i, job.model, job.rung));
            }
            self.pending[i] = None;
            if tenants.running(i) > 0 {
                return None;
            }
            sweep.begin(ladder.trace().models_of(u), |k| ladder.last(i, k));
        }
        let k = sweep.next(|k| tenants.is_tried(i, k))?;
        Some(ladder.proposal(tenants, i, k, ladder.n_rungs() - 1))
    }
}

impl Selector for Asha {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, i: usize) -> Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, i))
    }

    fn started(&mut self, i: usize, k: usize) -> Result<()> {
        if let Some(job) = self.pending[i].take()
            && job.model == k
        {
            self.rungs[i].started(job);
        }
        Ok(())
    }

    fn schedule_over(&self, i: usize) -> bool {
        self.sweeps[i].is_done()
    }

    fn observe(&mut self, i: usize, k: usize, accuracy: f64) -> Result<()> {
        self.ladder.record(i, k, accuracy);
        if !self.sweeps[i].is_active() {
            self.rungs[i].observe(k, accuracy);
        }
        Ok(())
    }
}
