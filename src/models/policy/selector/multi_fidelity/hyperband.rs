//! `hyperband`: the brackets of Li et al., "Hyperband: A Novel
//! Bandit-Based Approach to Hyperparameter Optimization", JMLR 18(185),
//! 2018, Algorithm 1, per tenant, on the rungs of successive halving
//! (DESIGN §12.3).
//!
//! With s_max = ⌊log_η(R/r₀)⌋, bracket s = s_max, s_max − 1, …, 0 runs
//! synchronous successive halving ([`SyncRung`]) with
//! n_s = ⌈(s_max+1)/(s+1)·η^s⌉ models ([`bracket_size`]) from rung
//! s_max − s to the top rung. Brackets run one after the other; a bracket's
//! models are the tenant's models never started, in trace order
//! (continuing through the list), and, when those run out, the models whose
//! highest started level is below their level at the bracket's first rung,
//! in trace order ([`bracket_models`]): a (tenant, model, fidelity) triple
//! runs at most once and a model's fidelity only grows, so a model already
//! trained at or above that rung cannot join. After the last bracket the
//! tenant is done (`after_schedule = "stop"`, the default), or with
//! `"sweep"` it [sweeps](super::top_sweep) the rest at the top fidelity.

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::{Proposal, RepContext, Selector, SelectorFactory, Tenants};
use crate::models::trace::Trace;

use super::ladder::{Ladder, RungKeys};
use super::rungs::bracket_size;
use super::sync_rung::{Step, SyncRung};
use super::top_sweep::Sweep;

/// Registry entry.
pub fn entry() -> SelectorEntry {
    SelectorEntry::from_parse(
        "hyperband",
        "Hyperband's brackets (Li et al. 2018) per tenant on the successive-halving rungs; after it the tenant is done, or with after_schedule = sweep trains the rest at the top fidelity (keys: eta, min_fidelity, after_schedule)",
        parse,
    )
    .provides_acquisition(true)
}

fn parse(params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    let keys = RungKeys::parse(params, trace)?;
    Ok(Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(Hyperband::new(keys, ctx)) as Box<dyn Selector>)
    }))
}

/// One bracket of Hyperband: `s`, its model count n_s
/// ([`bracket_size`]) and its first rung s_max − s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bracket {
    /// The bracket's s.
    pub s: usize,
    /// n_s: models it starts with.
    pub n: usize,
    /// The rung it starts at, s_max − s.
    pub start_rung: usize,
}

/// The brackets s = s_max, s_max − 1, …, 0 in the order they run.
pub fn brackets(s_max: usize, eta: u32) -> Vec<Bracket> {
    (0..=s_max)
        .rev()
        .map(|s| Bracket {
            s,
            n: bracket_size(s_max, s, eta),
            start_rung: s_max - s,
        })
        .collect()
}

/// The models of a bracket into `out` (reusing its buffer): up to `n` of
/// `models` (trace order) never started, then, when they run out, wrapping
/// around in trace order to models whose highest started level is below
/// their level at the bracket's first rung (`started(k)`, `start_level(k)`).
/// Fewer than `n` when the tenant has no more such models.
pub fn bracket_models(
    models: &[usize],
    n: usize,
    started: impl Fn(usize) -> Option<usize>,
    start_level: impl Fn(usize) -> usize,
    out: &mut Vec<usize>,
) {
    out.clear();
    out.extend(
        models
            .iter()
            .copied()
            .filter(|&k| started(k).is_none())
            .take(n),
    );
    if out.len() < n {
        for &k in models {
            if out.len() == n {
                break;
            }
            if started(k).is_some_and(|l| l < start_level(k)) {
                out.push(k);
            }
        }
    }
}

/// One repetition's Hyperband.
#[derive(Debug, Clone)]
struct Hyperband {
    ladder: Ladder,
    brackets: Vec<Bracket>,
    /// Per tenant: the index into `brackets` of its current bracket.
    bracket: Vec<usize>,
    runs: Vec<SyncRung>,
    sweeps: Vec<Sweep>,
    /// A bracket's models, before they go into its run.
    scratch: Vec<usize>,
}

impl Hyperband {
    fn new(keys: RungKeys, ctx: &RepContext<'_>) -> Self {
        let ladder = Ladder::new(keys, ctx);
        let brackets = brackets(ladder.s_max(), keys.eta);
        let top = ladder.n_rungs() - 1;
        let first = brackets[0];
        let runs = ctx
            .tenants
            .iter()
            .map(|u| {
                let models = ctx.trace.models_of(u);
                let mut run = SyncRung::with_capacity(keys.eta, models.len());
                run.reset(first.start_rung, top, models.iter().copied().take(first.n));
                run
            })
            .collect();
        let sweeps = ctx
            .tenants
            .iter()
            .map(|u| Sweep::new(keys.after, ctx.trace.models_of(u).len()))
            .collect();
        let widest = ctx
            .tenants
            .iter()
            .map(|u| ctx.trace.models_of(u).len())
            .max()
            .unwrap_or(0);
        Self {
            ladder,
            brackets,
            bracket: vec![0; ctx.tenants.len()],
            runs,
            sweeps,
            scratch: Vec::with_capacity(widest),
        }
    }
}

impl Hyperband {
    /// [`Selector::propose`] of this selector, which cannot fail.
    fn next_proposal(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let u = tenants.user(i);
        let ladder = &self.ladder;
        let top = ladder.n_rungs() - 1;
        let sweep = &mut self.sweeps[i];
        let run = &mut self.runs[i];
        while !sweep.is_active() {
            match run.step(
                |k, r| ladder.level_of(u, k, r),
                |k| ladder.done(tenants, i, k),
            ) {
                Step::Start { model, .. } => {
                    return Some(ladder.proposal(tenants, i, model, run.rung()));
                }
                Step::Wait => return None,
                Step::Finished => {
                    self.bracket[i] += 1;
                    let Some(&b) = self.brackets.get(self.bracket[i]) else {
                        sweep.begin(ladder.trace().models_of(u), |k| ladder.last(i, k));
                        break;
                    };
                    bracket_models(
                        ladder.trace().models_of(u),
                        b.n,
                        |k| tenants.level_started(i, k),
                        |k| ladder.level_of(u, k, b.start_rung),
                        &mut self.scratch,
                    );
                    run.reset(b.start_rung, top, self.scratch.iter().copied());
                }
            }
        }
        let k = sweep.next(|k| tenants.is_tried(i, k))?;
        Some(ladder.proposal(tenants, i, k, top))
    }
}

impl Selector for Hyperband {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, i: usize) -> Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, i))
    }

    fn started(&mut self, i: usize, k: usize) -> Result<()> {
        if !self.sweeps[i].is_active() {
            self.runs[i].started(k);
        }
        Ok(())
    }

    fn schedule_over(&self, i: usize) -> bool {
        self.sweeps[i].is_done()
    }

    fn observe(&mut self, i: usize, k: usize, accuracy: f64) -> Result<()> {
        self.ladder.record(i, k, accuracy);
        if !self.sweeps[i].is_active() {
            self.runs[i].observe(k, accuracy);
        }
        Ok(())
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_run_from_s_max_down_to_zero() {
        let b = brackets(2, 3);
        let got: Vec<(usize, usize, usize)> = b.iter().map(|b| (b.s, b.n, b.start_rung)).collect();
        assert_eq!(got, vec![(2, 9, 0), (1, 5, 1), (0, 3, 2)]);
    }

    #[test]
    fn a_bracket_takes_unused_models_then_wraps_to_those_below_its_first_rung() {
        // Models 0..5; 0, 1, 2 started (highest levels 0, 2, 1); 3, 4 never.
        let started = |k: usize| [Some(0), Some(2), Some(1), None, None][k];
        let mut out = Vec::new();
        // Start level 1 for all: unused 3, 4, then 0 (level 0 < 1); 1 and 2
        // have run at level ≥ 1.
        bracket_models(&[0, 1, 2, 3, 4], 5, started, |_| 1, &mut out);
        assert_eq!(out, vec![3, 4, 0]);
        bracket_models(&[0, 1, 2, 3, 4], 1, started, |_| 1, &mut out);
        assert_eq!(out, vec![3]);
    }
}
