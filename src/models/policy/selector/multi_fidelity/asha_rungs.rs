//! The rungs of one tenant under ASHA (Li et al., "A System for Massively
//! Parallel Hyperparameter Tuning", MLSys 2020, Algorithm 2), the
//! bookkeeping of the `asha` selector (DESIGN §12.3).
//!
//! `get_job`: for k from the second-highest rung down to 0, a model among
//! the top ⌊n_k/η⌋ completed results of rung k (best first, ties to the
//! lowest model index) that has not been promoted from rung k is promoted
//! to rung k+1; if there is none, the next new model starts at rung 0. A
//! promotion to a level the model has already trained (rungs collapsed by
//! snapping) takes that result over at once, with no job.
//!
//! Each rung's results are kept sorted as they arrive, in buffers sized at
//! construction, so no call allocates.

use super::rungs::insert_sorted;

/// No rung reached yet.
const NONE: u8 = u8::MAX;

/// What ASHA starts next for a tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AshaJob {
    /// Trace model index.
    pub model: usize,
    /// The rung it trains at.
    pub rung: usize,
    /// The pair's level at that rung.
    pub level: usize,
}

/// One tenant's ASHA state.
#[derive(Debug, Clone)]
pub struct AshaRungs {
    eta: usize,
    /// Per rung: completed `(model, accuracy)`, best first.
    results: Vec<Vec<(usize, f64)>>,
    /// Per trace model: the highest rung it was started at (or took a
    /// result over at), [`NONE`] if none.
    reached: Vec<u8>,
    /// New models in the order they start at rung 0.
    order: Vec<usize>,
    /// `order[..next]` have started.
    next: usize,
}

impl AshaRungs {
    /// A tenant with `n_rungs` rungs (at most 255), `n_models` trace models
    /// and new models taken in `order`.
    pub fn new(eta: u32, n_rungs: usize, n_models: usize, order: Vec<usize>) -> Self {
        // A rung may hold every model: promotions are asynchronous, so a
        // model promoted while in rung j's top ⌊n_j/η⌋ stays promoted when
        // later results push it out, and over a run more than ⌊n_j/η⌋
        // models leave rung j. Sized for K, no buffer grows.
        let cap = order.len().max(1);
        let results = (0..n_rungs.clamp(1, 255))
            .map(|_| Vec::with_capacity(cap))
            .collect();
        Self {
            eta: eta as usize,
            results,
            reached: vec![NONE; n_models],
            order,
            next: 0,
        }
    }

    /// The rung model `k` was last started at, if any.
    pub fn rung_of(&self, k: usize) -> Option<usize> {
        match self.reached[k] {
            NONE => None,
            r => Some(usize::from(r)),
        }
    }

    /// Completed results of rung `rung`, best first.
    pub fn results(&self, rung: usize) -> &[(usize, f64)] {
        &self.results[rung]
    }

    /// The next job, or `None` when nothing can start now.
    /// `level_of(model, rung)` is the model's level at a rung;
    /// `done(model)` its highest completed level and accuracy there.
    pub fn get_job(
        &mut self,
        level_of: impl Fn(usize, usize) -> usize,
        done: impl Fn(usize) -> Option<(usize, f64)>,
    ) -> Option<AshaJob> {
        let top = self.results.len() - 1;
        'scan: loop {
            for k in (0..top).rev() {
                let n = self.results[k].len() / self.eta;
                for e in 0..n {
                    let (model, acc) = self.results[k][e];
                    if self.reached[model] != k as u8 {
                        continue;
                    }
                    let level = level_of(model, k + 1);
                    match done(model) {
                        Some((d, _)) if d >= level => {
                            self.reached[model] = (k + 1) as u8;
                            insert_sorted(&mut self.results[k + 1], (model, acc));
                            continue 'scan;
                        }
                        _ => {
                            return Some(AshaJob {
                                model,
                                rung: k + 1,
                                level,
                            });
                        }
                    }
                }
            }
            let &model = self.order.get(self.next)?;
            return Some(AshaJob {
                model,
                rung: 0,
                level: level_of(model, 0),
            });
        }
    }

    /// The job `job` (from [`AshaRungs::get_job`]) started.
    pub fn started(&mut self, job: AshaJob) {
        self.reached[job.model] = job.rung as u8;
        if job.rung == 0 && self.order.get(self.next) == Some(&job.model) {
            self.next += 1;
        }
    }

    /// The running job of `model` completed with `accuracy`.
    pub fn observe(&mut self, model: usize, accuracy: f64) {
        if let Some(r) = self.rung_of(model) {
            insert_sorted(&mut self.results[r], (model, accuracy));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotes_the_top_of_a_rung_before_starting_new_models() {
        // η = 2, 3 rungs, levels = rungs, models 0..4 in order 0, 1, 2, 3.
        let mut a = AshaRungs::new(2, 3, 4, vec![0, 1, 2, 3]);
        let lv = |_: usize, r: usize| r;
        let mut done: Vec<Option<(usize, f64)>> = vec![None; 4];
        let acc = [0.3, 0.6, 0.5, 0.9];
        let run = |a: &mut AshaRungs, done: &mut Vec<Option<(usize, f64)>>| {
            let d = done.clone();
            let job = a.get_job(lv, |k| d[k])?;
            a.started(job);
            let x = acc[job.model] + 0.01 * job.rung as f64;
            done[job.model] = Some((job.level, x));
            a.observe(job.model, x);
            Some((job.model, job.rung))
        };
        // 0 at rung 0 (0.3): ⌊1/2⌋ = 0, so 1 starts; rung 0 = {1: 0.6,
        // 0: 0.3}: ⌊2/2⌋ = 1 → promote 1 to rung 1 (0.61): ⌊1/2⌋ = 0;
        // new 2 (0.5): rung 0 = {1, 2, 0}, top 1 is 1, already promoted;
        // new 3 (0.9): top ⌊4/2⌋ = 2 = {3, 1}: promote 3 (0.91); rung 1 =
        // {3, 1}: top 1 = 3 → rung 2; then nothing new and nothing to
        // promote: rung 0's top 2 are promoted, rung 1's top 1 too.
        let mut jobs = Vec::new();
        while let Some(j) = run(&mut a, &mut done) {
            jobs.push(j);
        }
        assert_eq!(
            jobs,
            vec![(0, 0), (1, 0), (1, 1), (2, 0), (3, 0), (3, 1), (3, 2)]
        );
    }

    #[test]
    fn asking_twice_gives_the_same_job_until_it_starts() {
        let mut a = AshaRungs::new(3, 2, 2, vec![1, 0]);
        let j1 = a.get_job(|_, r| r, |_| None);
        assert_eq!(j1, a.get_job(|_, r| r, |_| None));
        assert_eq!(
            j1,
            Some(AshaJob {
                model: 1,
                rung: 0,
                level: 0
            })
        );
        if let Some(j) = j1 {
            a.started(j);
        }
        assert_eq!(
            a.get_job(|_, r| r, |_| None),
            Some(AshaJob {
                model: 0,
                rung: 0,
                level: 0
            })
        );
    }

    #[test]
    fn a_collapsed_promotion_takes_the_result_over() {
        // η = 2, two models at rung 0; the better one's rung 1 is the
        // same level 0: taken over, then its rung 2 (level 1) runs.
        let mut a = AshaRungs::new(2, 3, 2, vec![0, 1]);
        for (k, x) in [(0, 0.8), (1, 0.4)] {
            let j = a.get_job(|_, r| r, |_| None);
            assert_eq!(j.map(|j| j.model), Some(k));
            if let Some(j) = j {
                a.started(j);
            }
            a.observe(k, x);
        }
        let lv = |_: usize, r: usize| if r <= 1 { 0 } else { 1 };
        let d = |k: usize| Some((0, [0.8, 0.4][k]));
        // Rung 0 = {0, 1}: promote 0 → rung 1 taken over; rung 1 = {0}:
        // ⌊1/2⌋ = 0. Nothing else: no job.
        assert_eq!(a.get_job(lv, d), None);
        assert_eq!(a.rung_of(0), Some(1));
        assert_eq!(a.results(1), &[(0, 0.8)]);
    }
}
