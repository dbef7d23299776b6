//! `greedy` (ease.ml): the eligible tenant with the highest score
//! (DESIGN §4.3).

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::Bits;
use crate::core::sim::heap::ScoreHeap;
use crate::models::policy::entry::SchedulerEntry;
use crate::models::sim::Tenants;
use crate::models::sim::{
    PrefetchStep, Proposal, RepContext, Scheduler, SchedulerFactory, Selector,
};

/// Registry entry.
pub fn entry() -> SchedulerEntry {
    SchedulerEntry::from_parse(
        "greedy",
        "ease.ml: the eligible tenant with the highest gain (a − best) per believed cost of its selector's proposal, ties lowest index (needs a GP or multi-fidelity selector; key: score = per-second | per-relative-cost)",
        parse,
    )
    .needs_acquisition(true)
}

fn parse(params: &mut Params) -> Result<SchedulerFactory> {
    let score = Score::parse(params)?;
    Ok(Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(Greedy::with_types(
            ctx.tenants.len(),
            ctx.gpu_types.n_types(),
            score,
        )) as Box<dyn Scheduler>)
    }))
}

/// How `greedy` (and `hybrid`) turn a proposal into a score (key `score`,
/// DESIGN §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Score {
    /// `per-second` (the default): score_i = gain_i / ĉˢ, the believed
    /// accuracy gain per GPU-second of the proposed model
    /// ([`Proposal::believed_seconds`]), comparable across tenants.
    #[default]
    PerSecond,
    /// `per-relative-cost`: score_i = gain_i / ĉ, each tenant's cost measured
    /// against its own mean runtime ([`Proposal::believed_cost`]).
    PerRelativeCost,
}

impl Score {
    /// The `score` key of `params` (default `per-second`).
    ///
    /// # Errors
    /// A scenario error for any other value.
    pub fn parse(params: &mut Params) -> Result<Self> {
        match params.string("score", "per-second")?.as_str() {
            "per-second" => Ok(Score::PerSecond),
            "per-relative-cost" => Ok(Score::PerRelativeCost),
            other => Err(params.invalid(
                "score",
                format!(
                    "unknown greedy score `{other}`: expected `per-second` or `per-relative-cost`"
                ),
            )),
        }
    }

    /// DESIGN §4.3's score of a tenant whose selector proposes `proposal` and
    /// whose best accuracy so far is `best`:
    ///
    /// score_i = gain_i / ĉˢ (`per-second`) or gain_i / ĉ
    /// (`per-relative-cost`), gain_i = [`Proposal::gain`] (a_i − best_i for
    /// UCB and UCB_c, the EI for the EI selectors). Cost-oblivious selectors
    /// believe both costs are 1, so their score is gain_i.
    ///
    /// Source: Li et al., "Ease.ml: Towards Multi-tenant Resource Sharing for
    /// Machine Learning Workloads", PVLDB 11(5), 2018 (arXiv 1708.07308), the
    /// greedy user-selection rule.
    pub fn of(self, proposal: &Proposal, best: f64) -> f64 {
        let cost = match self {
            Score::PerSecond => proposal.believed_seconds,
            Score::PerRelativeCost => proposal.believed_cost,
        };
        proposal.gain(best) / cost
    }
}

/// Serves the eligible tenant with the highest [`Score::of`] of the
/// selector's proposal for it (DESIGN §4.3), ties by the lowest tenant index.
///
/// Incremental: a tenant's score depends only on its own state (its
/// posterior, completed count, best_i and untried models), which changes
/// only through the events the engine reports by
/// [`Scheduler::tenant_changed`]. Those tenants are marked dirty; a pick
/// rescores the dirty tenants (one `propose` each, served from the
/// selector's cache when unchanged) into an indexed max-heap and reads its
/// top. A decision therefore costs O(d log n) for d tenants changed since
/// the previous one (d is O(1) per event), not O(n). Nothing allocates
/// after construction.
///
/// On a cluster of several GPU types (DESIGN §11.4) a score depends on the
/// type of the GPU being filled ([`Tenants::gpu_type`]): the selector
/// proposes for that type and `per-second` divides by the believed runtime
/// on it. The scheduler keeps one heap and one dirty list per type; a
/// change marks the tenant dirty in every type, and a pick for type t
/// rescores t's dirty tenants only.
#[derive(Debug, Clone)]
pub struct Greedy {
    score: Score,
    /// Per GPU type.
    heaps: Vec<ScoreHeap>,
    /// Per GPU type: tenants changed since that type's last pick.
    dirty: Vec<Vec<u32>>,
    /// Bit `t * n + i`: tenant i is in `dirty[t]`. A bitset (n/8 bytes a
    /// type: 125 KB at 10^6 tenants, which stays in the L2 cache) rather
    /// than a `bool` per tenant (1 MB, a cache miss per change at that
    /// size; docs/PERFORMANCE.md "Internet scale").
    is_dirty: Bits,
    n: usize,
}

impl Greedy {
    /// A scheduler over `n` tenants ranking them by `score` (one GPU type).
    pub fn new(n: usize, score: Score) -> Self {
        Self::with_types(n, 1, score)
    }

    /// A scheduler over `n` tenants on a cluster of `types` GPU types (at
    /// least 1), ranking them by `score`.
    pub fn with_types(n: usize, types: usize, score: Score) -> Self {
        let types = types.max(1);
        Self {
            score,
            heaps: (0..types).map(|_| ScoreHeap::new(n)).collect(),
            // Each list grows to the most tenants changed between two
            // picks (those present, or all when all arrive at once),
            // amortised: reserving `n` took 4 bytes of address space for
            // every tenant of the run (40 MB of scale-year's 10^7, whose
            // lists hold a few at a time; docs/PERFORMANCE.md "Limits
            // from memory").
            dirty: (0..types).map(|_| Vec::new()).collect(),
            is_dirty: Bits::new(n * types),
            n,
        }
    }

    /// Rescore the tenants changed since the last call for the type of
    /// the GPU being filled; the best eligible tenant and its score.
    /// A selector's error is returned.
    pub fn best(
        &mut self,
        tenants: &Tenants,
        selector: &mut dyn Selector,
    ) -> Result<Option<(usize, f64)>> {
        // A type beyond those given at construction (a hand-driven engine)
        // falls back to the last heap.
        let t = usize::from(tenants.gpu_type()).min(self.heaps.len() - 1);
        let (heap, dirty) = (&mut self.heaps[t], &mut self.dirty[t]);
        let base = t * self.n;
        for i in dirty.drain(..) {
            let i = i as usize;
            self.is_dirty.clear(base + i);
            let proposal = if tenants.is_eligible(i) {
                selector.propose(tenants, i)?
            } else {
                None
            };
            match proposal {
                Some(p) => heap.set(i, self.score.of(&p, tenants.best(i))),
                None => heap.remove(i),
            }
        }
        Ok(heap.top())
    }
}

impl Scheduler for Greedy {
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Ok(Box::new(self.clone()))
    }

    /// The tenant's score is set or removed at the next pick after its
    /// completion: its slot number, then its score and heap place.
    fn prefetch(&self, tenant: usize, step: PrefetchStep) {
        for heap in &self.heaps {
            heap.prefetch(tenant, step);
        }
    }

    /// Of the heap's four best tenants, those not changed since the last
    /// pick (a changed one is rescored first: the tenant just started is
    /// still on top until then), at most three; on a cluster of one GPU
    /// type only (with several, the type of the GPU that frees next is not
    /// known).
    fn next_picks(&self) -> [Option<usize>; 3] {
        let mut out = [None; 3];
        if let [heap] = self.heaps.as_slice() {
            let clean = heap
                .first::<4>()
                .into_iter()
                .flatten()
                .filter(|&i| !self.is_dirty.get(i));
            for (o, i) in out.iter_mut().zip(clean) {
                *o = Some(i);
            }
        }
        out
    }

    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Result<Option<usize>> {
        Ok(self.best(tenants, selector)?.map(|(i, _)| i))
    }

    fn tenant_changed(&mut self, _tenants: &Tenants, tenant: usize) -> Result<()> {
        for (t, dirty) in self.dirty.iter_mut().enumerate() {
            if self.is_dirty.set(t * self.n + tenant) {
                dirty.push(tenant as u32);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Greedy, Score};
    use crate::core::sim::heap::ranks_above;
    use crate::models::sim::Scheduler;

    proptest! {
        /// The next picks are the best tenants among the heap's first four
        /// that are not waiting to be rescored, best first: against a sort
        /// of the scores by rank (ties to the lower tenant).
        #[test]
        fn next_picks_skip_tenants_waiting_to_be_rescored(
            scores in proptest::collection::vec(proptest::option::of(0u8..4), 1..12),
            dirty in proptest::collection::vec(any::<bool>(), 12),
        ) {
            let n = scores.len();
            let mut g = Greedy::new(n, Score::PerSecond);
            for (i, s) in scores.iter().enumerate() {
                if let Some(s) = s {
                    g.heaps[0].set(i, f64::from(*s));
                }
                if dirty[i] && g.is_dirty.set(i) {
                    g.dirty[0].push(i as u32);
                }
            }
            let mut ranked: Vec<(usize, f64)> = scores
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.map(|s| (i, f64::from(s))))
                .collect();
            ranked.sort_by(|&(a, sa), &(b, sb)| {
                if ranks_above(sa, a, sb, b) {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            });
            let mut want = [None; 3];
            let clean = ranked.iter().take(4).map(|&(i, _)| i).filter(|&i| !dirty[i]);
            for (w, i) in want.iter_mut().zip(clean) {
                *w = Some(i);
            }
            prop_assert_eq!(g.next_picks(), want);
            // With two GPU types the next GPU's type is unknown: none.
            let mut two = Greedy::with_types(n, 2, Score::PerSecond);
            for heap in &mut two.heaps {
                heap.set(0, 1.0);
            }
            prop_assert_eq!(two.next_picks(), [None; 3]);
        }
    }

    /// The lists of changed tenants reserved room for every tenant of the
    /// run when the scheduler was made (4 bytes each, per GPU type),
    /// though they hold the tenants changed between two picks: a
    /// scheduler of a million tenants now holds what its changes need.
    #[test]
    fn the_changed_tenants_lists_reserved_every_tenant_of_the_run() {
        use crate::models::sim::{Scheduler, TenantUsers, Tenants};
        use crate::models::trace::parse_trace;
        let g = Greedy::with_types(1_000_000, 2, Score::PerSecond);
        assert!(g.dirty.iter().all(|d| d.capacity() == 0));
        let csv = "user,model,accuracy,runtime_s\nu,m,0.5,1\n";
        let trace = parse_trace("one", csv.as_bytes()).expect("a trace");
        let tenants = Tenants::new(
            &trace,
            &TenantUsers::list(&[0]),
            &[0],
            1,
            Default::default(),
        );
        let mut g = Greedy::new(1_000_000, Score::PerSecond);
        for i in [7, 999_999, 7] {
            g.tenant_changed(&tenants, i).expect("marked");
        }
        assert_eq!(g.dirty[0], [7, 999_999]);
        assert!(g.dirty[0].capacity() < 1_000);
    }
}
