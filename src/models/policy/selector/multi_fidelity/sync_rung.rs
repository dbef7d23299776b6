//! One synchronous successive-halving run of one tenant (DESIGN §12.3), the
//! bookkeeping `successive-halving` and each bracket of `hyperband` share.
//!
//! A run starts with a list of models at a rung. It starts their jobs in
//! list order; when every job of the rung has completed it promotes the top
//! ⌈n/η⌉ ([`promoted_count`]), best first with ties to the lowest model
//! index, to the next rung, and runs them in that order; it finishes after
//! the last rung. A model whose level at a rung it has already trained
//! (rungs collapsed by snapping) takes that result over with no job.
//!
//! The buffers are sized at construction (the tenant's model count), so a
//! run never allocates after it.

use super::rungs::{better, promoted_count};

/// What a tenant's synchronous run does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Start `model` at level `level`.
    Start {
        /// Trace model index.
        model: usize,
        /// Level of the pair to train at.
        level: usize,
    },
    /// Jobs of the current rung are running: wait for them.
    Wait,
    /// The last rung completed.
    Finished,
}

/// One synchronous successive-halving run.
#[derive(Debug, Clone)]
pub struct SyncRung {
    eta: u32,
    /// Index of the current rung in the nominal rungs.
    rung: usize,
    /// The last rung (the top fidelity).
    last: usize,
    /// Models of the current rung, in the order their jobs start.
    members: Vec<usize>,
    /// `members[..next]` are started or taken over.
    next: usize,
    /// Completed results of the current rung, `(model, accuracy)`.
    results: Vec<(usize, f64)>,
}

impl SyncRung {
    /// An empty run with room for `capacity` models.
    pub fn with_capacity(eta: u32, capacity: usize) -> Self {
        Self {
            eta,
            rung: 0,
            last: 0,
            members: Vec::with_capacity(capacity),
            next: 0,
            results: Vec::with_capacity(capacity),
        }
    }

    /// Restart with `models` at rung `rung`, ending at rung `last`.
    pub fn reset(&mut self, rung: usize, last: usize, models: impl IntoIterator<Item = usize>) {
        self.rung = rung;
        self.last = last;
        self.members.clear();
        self.members.extend(models);
        self.next = 0;
        self.results.clear();
    }

    /// The current rung.
    pub fn rung(&self) -> usize {
        self.rung
    }

    /// Models of the current rung.
    pub fn members(&self) -> &[usize] {
        &self.members
    }

    /// The next step. `level_of(model, rung)` is the model's level at a
    /// rung; `done(model)` is its highest completed level and the accuracy
    /// observed there, if any. Promotions and take-overs happen here.
    pub fn step(
        &mut self,
        level_of: impl Fn(usize, usize) -> usize,
        done: impl Fn(usize) -> Option<(usize, f64)>,
    ) -> Step {
        loop {
            if let Some(&model) = self.members.get(self.next) {
                let level = level_of(model, self.rung);
                match done(model) {
                    Some((d, acc)) if d >= level => {
                        self.results.push((model, acc));
                        self.next += 1;
                    }
                    _ => return Step::Start { model, level },
                }
                continue;
            }
            if self.results.len() < self.members.len() {
                return Step::Wait;
            }
            if self.rung >= self.last || self.members.is_empty() {
                return Step::Finished;
            }
            self.results.sort_unstable_by(|&a, &b| better(a, b));
            let keep = promoted_count(self.results.len(), self.eta);
            self.members.clear();
            self.members
                .extend(self.results.iter().take(keep).map(|&(k, _)| k));
            self.results.clear();
            self.next = 0;
            self.rung += 1;
        }
    }

    /// The job of `model` proposed by [`SyncRung::step`] started.
    pub fn started(&mut self, model: usize) {
        if self.members.get(self.next) == Some(&model) {
            self.next += 1;
        }
    }

    /// A job of `model` at the current rung completed with `accuracy`.
    pub fn observe(&mut self, model: usize, accuracy: f64) {
        if self.members[..self.next].contains(&model)
            && !self.results.iter().any(|&(k, _)| k == model)
        {
            self.results.push((model, accuracy));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Levels = rungs (3 rungs, 0..=2), accuracies by (model, level).
    fn acc(model: usize, level: usize) -> f64 {
        [
            [0.5, 0.6, 0.9],
            [0.7, 0.8, 0.85],
            [0.6, 0.65, 0.7],
            [0.1, 0.2, 0.3],
        ][model][level]
    }

    /// Drive a run with one job at a time; the jobs in order.
    fn drive(run: &mut SyncRung, level_of: impl Fn(usize, usize) -> usize) -> Vec<(usize, usize)> {
        let mut done: Vec<Option<(usize, f64)>> = vec![None; 4];
        let mut jobs = Vec::new();
        loop {
            let d = done.clone();
            match run.step(&level_of, |k| d[k]) {
                Step::Start { model, level } => {
                    run.started(model);
                    jobs.push((model, level));
                    let a = acc(model, level);
                    done[model] = Some((level, a));
                    run.observe(model, a);
                }
                Step::Wait => panic!("nothing runs, yet the run waits"),
                Step::Finished => return jobs,
            }
        }
    }

    #[test]
    fn promotes_the_top_third_best_first() {
        // Rung 0: 0.5, 0.7, 0.6, 0.1 → ⌈4/3⌉ = 2 promoted: models 1, 2.
        // Rung 1: model 1 0.8, model 2 0.65 → ⌈2/3⌉ = 1: model 1.
        // Rung 2: model 1 at level 2 (0.85), then finished.
        let mut run = SyncRung::with_capacity(3, 4);
        run.reset(0, 2, 0..4);
        let jobs = drive(&mut run, |_, r| r);
        assert_eq!(
            jobs,
            vec![(0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (1, 2)]
        );
    }

    #[test]
    fn a_collapsed_rung_takes_the_result_over_without_a_job() {
        // Model 1's rung 1 snaps to the level of its rung 0: no second job.
        let mut run = SyncRung::with_capacity(3, 4);
        run.reset(0, 2, 0..3);
        let jobs = drive(&mut run, |k, r| if k == 1 && r == 1 { 0 } else { r });
        // Rung 0: 0.5, 0.7, 0.6 → model 1; rung 1 taken over (0.7); rung 2.
        assert_eq!(jobs, vec![(0, 0), (1, 0), (2, 0), (1, 2)]);
    }

    #[test]
    fn waits_while_a_job_of_the_rung_runs() {
        let mut run = SyncRung::with_capacity(3, 2);
        run.reset(0, 1, [0, 1]);
        let none = |_: usize| None;
        assert_eq!(run.step(|_, r| r, none), Step::Start { model: 0, level: 0 });
        run.started(0);
        assert_eq!(run.step(|_, r| r, none), Step::Start { model: 1, level: 0 });
        run.started(1);
        assert_eq!(run.step(|_, r| r, none), Step::Wait);
        run.observe(1, 0.9);
        assert_eq!(run.step(|_, r| r, none), Step::Wait);
        run.observe(0, 0.2);
        // Both done: model 1 (0.9) goes on alone.
        let d = |k: usize| Some((0, [0.2, 0.9][k]));
        assert_eq!(run.step(|_, r| r, d), Step::Start { model: 1, level: 1 });
        assert_eq!(run.members(), &[1]);
    }

    #[test]
    fn ties_promote_the_lowest_model_index() {
        let mut run = SyncRung::with_capacity(3, 3);
        run.reset(0, 1, [2, 0, 1]);
        for k in [2, 0, 1] {
            assert!(matches!(run.step(|_, r| r, |_| None), Step::Start { .. }));
            run.started(k);
            run.observe(k, 0.5);
        }
        let d = |_: usize| Some((0, 0.5));
        assert_eq!(run.step(|_, r| r, d), Step::Start { model: 0, level: 1 });
    }
}
