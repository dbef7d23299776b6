//! Learning curves of a curve trace (DESIGN §12.1): every (user, model)
//! pair evaluated at several fidelities ("levels"), each with its accuracy
//! and its cost.

use super::Micros;

/// How a curve trace's `runtime_s` is read (scenario key `[trace] cost`,
/// DESIGN §12.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum CostMode {
    /// `runtime_s` is the cost of training at that fidelity from nothing
    /// (LCDB: a model trained on n samples).
    #[default]
    FromScratch,
    /// `runtime_s` is the extra cost over the pair's previous fidelity, for
    /// epoch-style curves where training resumes from a checkpoint.
    Incremental,
}

impl CostMode {
    /// The scenario spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::FromScratch => "from-scratch",
            Self::Incremental => "incremental",
        }
    }
}

/// The levels of every (user, model) pair, in flat arrays indexed through
/// `offsets`: the levels of pair `p = u·K + k` are `offsets[p]..offsets[p+1]`,
/// ascending by fidelity. A missing pair has none.
#[derive(Debug, Clone, PartialEq)]
pub struct Curves {
    pub(super) offsets: Vec<u32>,
    pub(super) fidelity: Vec<f64>,
    pub(super) accuracy: Vec<f64>,
    /// `runtime_s` of each row as given, rounded once to µs.
    pub(super) runtime_us: Vec<Micros>,
    pub(super) cost: CostMode,
    /// Paid by a job that continues from a checkpoint under
    /// [`CostMode::Incremental`] (`[trace] restore_s`).
    pub(super) restore_us: Micros,
    pub(super) min_fidelity: f64,
    pub(super) max_fidelity: f64,
}

impl Curves {
    /// The flat range of pair `p`'s levels.
    pub(super) fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.offsets[p] as usize..self.offsets[p + 1] as usize
    }

    /// The cost of a job on pair `p` at level `to` when the highest level
    /// of that pair completed so far is `from` (DESIGN §12.1):
    ///
    /// - from scratch: c(to), the row's `runtime_s`;
    /// - incremental: Σ_{j = from+1}^{to} c(j) + restore, or Σ_{j=0}^{to} c(j)
    ///   when the pair never completed a level (no checkpoint, nothing to
    ///   restore).
    pub(super) fn cost_us(&self, p: usize, from: Option<usize>, to: usize) -> Micros {
        let r = self.range(p);
        match self.cost {
            CostMode::FromScratch => self.runtime_us[r.start + to],
            CostMode::Incremental => {
                let first = from.map_or(0, |f| f + 1);
                let sum: Micros = self.runtime_us[r.start + first..=r.start + to]
                    .iter()
                    .fold(0, |a: Micros, &c| a.saturating_add(c));
                if from.is_some() {
                    sum.saturating_add(self.restore_us)
                } else {
                    sum
                }
            }
        }
    }

    /// The cost of training pair `p` at its top level with no checkpoint:
    /// what its single-fidelity runtime is (the trace's runtime matrix).
    pub(super) fn full_cost_us(&self, p: usize) -> Micros {
        let n = self.range(p).len();
        if n == 0 {
            0
        } else {
            self.cost_us(p, None, n - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curves(cost: CostMode, restore_us: Micros) -> Curves {
        // One pair with three levels costing 1, 2 and 4 µs.
        Curves {
            offsets: vec![0, 3],
            fidelity: vec![1.0, 2.0, 4.0],
            accuracy: vec![0.1, 0.2, 0.3],
            runtime_us: vec![1, 2, 4],
            cost,
            restore_us,
            min_fidelity: 1.0,
            max_fidelity: 4.0,
        }
    }

    #[test]
    fn from_scratch_cost_is_the_rows_runtime_whatever_was_run_before() {
        let c = curves(CostMode::FromScratch, 100);
        assert_eq!(c.cost_us(0, None, 0), 1);
        assert_eq!(c.cost_us(0, None, 2), 4);
        assert_eq!(c.cost_us(0, Some(1), 2), 4);
        assert_eq!(c.full_cost_us(0), 4);
    }

    #[test]
    fn incremental_cost_sums_the_increments_since_the_checkpoint_plus_restore() {
        let c = curves(CostMode::Incremental, 10);
        // No checkpoint: 1 + 2 + 4, nothing restored.
        assert_eq!(c.cost_us(0, None, 2), 7);
        assert_eq!(c.cost_us(0, None, 0), 1);
        // From level 0 to 2: 2 + 4, plus the restore cost.
        assert_eq!(c.cost_us(0, Some(0), 2), 16);
        assert_eq!(c.cost_us(0, Some(1), 2), 14);
        assert_eq!(c.full_cost_us(0), 7);
    }
}
