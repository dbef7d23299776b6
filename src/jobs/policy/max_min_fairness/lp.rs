//! The allocation of `max-min-fairness` (DESIGN §11.3): Gavel's
//! heterogeneity-aware max-min fair share of effective throughput
//! (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for
//! Deep Learning Workloads", OSDI '20, §4.1 and Gavel's
//! `scheduler/policies/max_min_fairness.py`, `MaxMinFairnessPolicyWithPerf`),
//! as a pure function of the active jobs and the cluster.
//!
//! # The linear program
//!
//! Jobs `j = 1..n`, GPU types `t = 1..m` with `G_t` GPUs (`G = Σ_t G_t`).
//! Job `j` uses `sf_j` GPUs at once (its scale factor) and has throughput
//! `T[j][t]` on type `t` (work per second with all its `sf_j` GPUs;
//! tenantsim uses `1 / duration on t`, so a job's whole work is 1; `0` =
//! the job may not run on `t`). `w_j` is its priority weight (1 = equal).
//!
//! Variables `X[j][t]`: the fraction of time job `j` runs on type `t`.
//!
//! Gavel's reference share is the *proportional* allocation
//! `X_eq[j][t] = G_t / G` (Gavel's `ProportionalPolicy`: the cluster split
//! evenly over jobs, in proportion to each type's size, normalised to a
//! row sum of 1), with throughput `P_j = Σ_t T[j][t] · G_t / G`. Job `j`'s
//! normalised share is
//!
//! ```text
//! r_j(X) = sf_j · Σ_t T[j][t] · X[j][t] / (P_j · w_j)
//! ```
//!
//! (the `sf_j` factor gives GPU-time, not wall time: "a job run on 1 GPU
//! should receive scale_factor more time than a job run on scale_factor
//! GPUs if throughputs are equal", Gavel). The LP is
//!
//! ```text
//! maximise   z
//! subject to r_j(X) ≥ z                 for every job j
//!            Σ_t X[j][t] ≤ 1            for every job j   (one type at a time)
//!            Σ_j sf_j · X[j][t] ≤ G_t   for every type t  (the cluster)
//!            X[j][t] ≥ 0,  X[j][t] = 0 where T[j][t] = 0
//! ```
//!
//! which is Gavel's `Maximize(min(sum(T·w·sf ∘ X, axis=1)))` with
//! `w = 1/(priority · P)` and its `get_base_constraints`.
//!
//! # Water-filling (where this differs from Gavel's default)
//!
//! The LP fixes only the smallest share: when jobs have different caps
//! (e.g. a 1-GPU and an 8-GPU job), every job but the bottleneck can take
//! many values, and Gavel keeps whatever its interior-point solver (ECOS)
//! returns. Here the answer is made unique and Pareto-efficient by
//! water-filling, Gavel's `max_min_fairness_water_filling`: after solving
//! level `k` (value `z_k`), the jobs that cannot get more than `z_k` while
//! every other job keeps at least its level are frozen at `z_k`, and the LP
//! is solved again for the others, until every job is frozen. A job is
//! found frozen by a second LP per level that maximises `Σ s_j` over the
//! unfrozen jobs subject to `r_j ≥ z_k + s_j`, `0 ≤ s_j ≤ δ_k` (and the
//! constraints above): a job with `s_j > 0` there can exceed `z_k`; a job
//! with `s_j = 0` is frozen. `δ_k = 10⁻³ · z_k`, so a job is frozen wrongly
//! only if all the unfrozen jobs together cannot gain `δ_k` each, which
//! changes its share by less than 0.1 % of the level. Each level freezes at
//! least one job, so at most `n` levels (2 LPs each) are solved; on one
//! GPU type the levels are the distinct scale factors below the water
//! line, at most 5 with Gavel's sizes.
//!
//! On one type `r_j = sf_j · X_j` (the throughput cancels), so the result
//! is equal time-sharing of the GPUs: `X_j = min(1, λ / sf_j)` with the
//! water level `λ` solving `Σ_j min(sf_j, λ) = min(G, Σ_j sf_j)`; with equal
//! scale factors `s`, `X_j = min(1, G / (n · s))`.
//!
//! The solver is `microlp` (pure Rust simplex) through `good_lp`; its
//! pivoting is deterministic, so equal inputs give bit-identical outputs.

use good_lp::{
    Expression, ProblemVariables, ResolutionError, Solution, SolverModel, Variable, microlp,
    variable,
};

use crate::core::error::{Error, Result};

/// One active job as the LP sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct LpJob {
    /// GPUs it uses at once (`sf_j`, ≥ 1).
    pub scale_factor: u32,
    /// Priority weight `w_j` (> 0; 1 = equal shares).
    pub weight: f64,
    /// Throughput on each type (`T[j][t]`, ≥ 0, finite; 0 = not allowed
    /// there); at least one is > 0 on a type with at least `sf_j` GPUs.
    pub throughput: Vec<f64>,
}

/// The allocation: `x[j][t]` is the fraction of time job `j` runs on type
/// `t`, and `share[j]` its normalised share `r_j`.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// `X[j][t]`, in [0, 1], each row summing to at most 1.
    pub x: Vec<Vec<f64>>,
    /// `r_j(X)`, as defined in the module documentation.
    pub share: Vec<f64>,
    /// LPs solved (a measurement).
    pub lps: u32,
}

/// Tolerance on shares and on the bottleneck test.
const EPS: f64 = 1e-9;

/// Fraction of the level by which a job must be able to grow to stay
/// unfrozen (`δ_k / z_k`).
const DELTA: f64 = 1e-3;

fn lp_error(e: ResolutionError) -> Error {
    Error::input(format!(
        "internal error: the max-min-fairness LP failed: {e}"
    ))
}

/// Check the inputs; returns the normalised coefficients
/// `c[j][t] = sf_j · T[j][t] / (P_j · w_j)`, so `r_j = Σ_t c[j][t] X[j][t]`.
fn coefficients(jobs: &[LpJob], gpus: &[u32]) -> Result<Vec<Vec<f64>>> {
    let m = gpus.len();
    let total: f64 = gpus.iter().map(|&g| f64::from(g)).sum();
    if total <= 0.0 {
        return Err(Error::input(
            "internal error: max-min-fairness on a cluster without GPUs",
        ));
    }
    let mut c = Vec::with_capacity(jobs.len());
    for (j, job) in jobs.iter().enumerate() {
        let bad = |what: &str| Err(Error::input(format!("internal error: LP job {j}: {what}")));
        if job.throughput.len() != m {
            return bad("one throughput per GPU type expected");
        }
        if job.scale_factor == 0 || !(job.weight.is_finite() && job.weight > 0.0) {
            return bad("scale factor ≥ 1 and weight > 0 expected");
        }
        if job.throughput.iter().any(|&t| !(t.is_finite() && t >= 0.0)) {
            return bad("throughputs must be finite and ≥ 0");
        }
        let runnable = (0..m).any(|t| job.throughput[t] > 0.0 && gpus[t] >= job.scale_factor);
        if !runnable {
            return bad("no GPU type can run it");
        }
        let p: f64 = (0..m)
            .map(|t| job.throughput[t] * f64::from(gpus[t]) / total)
            .sum();
        let k = f64::from(job.scale_factor) / (p * job.weight);
        c.push(job.throughput.iter().map(|&t| t * k).collect());
    }
    Ok(c)
}

/// The variables and constraints every LP of the water-filling shares.
struct Base {
    vars: ProblemVariables,
    /// `x[j][t]`, `None` where the job may not run on `t`.
    x: Vec<Vec<Option<Variable>>>,
}

impl Base {
    fn new(c: &[Vec<f64>], jobs: &[LpJob], gpus: &[u32]) -> Self {
        let mut vars = ProblemVariables::new();
        let x = c
            .iter()
            .zip(jobs)
            .map(|(row, job)| {
                row.iter()
                    .zip(gpus)
                    .map(|(&cjt, &g)| {
                        (cjt > 0.0 && g >= job.scale_factor)
                            .then(|| vars.add(variable().min(0.0).max(1.0)))
                    })
                    .collect()
            })
            .collect();
        Self { vars, x }
    }
}

/// `r_j` as an expression.
fn share_expr(c: &[f64], x: &[Option<Variable>]) -> Expression {
    let mut e = Expression::with_capacity(x.len());
    for (cjt, v) in c.iter().zip(x) {
        if let Some(v) = v {
            e.add_mul(*cjt, *v);
        }
    }
    e
}

/// Add the cluster constraints, the per-job time constraints and the
/// frozen levels to a model.
fn constrain<M: SolverModel>(
    mut model: M,
    c: &[Vec<f64>],
    jobs: &[LpJob],
    gpus: &[u32],
    x: &[Vec<Option<Variable>>],
    frozen: &[Option<f64>],
) -> M {
    for row in x {
        let mut e = Expression::with_capacity(row.len());
        for v in row.iter().flatten() {
            e.add_mul(1.0, *v);
        }
        model.add_constraint(e.leq(1.0));
    }
    for (t, &g) in gpus.iter().enumerate() {
        let mut e = Expression::with_capacity(jobs.len());
        for (job, row) in jobs.iter().zip(x) {
            if let Some(v) = row[t] {
                e.add_mul(f64::from(job.scale_factor), v);
            }
        }
        model.add_constraint(e.leq(f64::from(g)));
    }
    for (j, f) in frozen.iter().enumerate() {
        if let Some(level) = f {
            // A frozen job keeps its level (less a rounding slack, so the
            // next LP stays feasible).
            model.add_constraint(share_expr(&c[j], &x[j]).geq(level * (1.0 - EPS)));
        }
    }
    model
}

/// Gavel's heterogeneity-aware max-min fair allocation of `jobs` on a
/// cluster with `gpus[t]` GPUs of type `t`, refined by water-filling
/// (module documentation). Jobs in input order; no jobs → empty.
pub fn max_min_allocation(jobs: &[LpJob], gpus: &[u32]) -> Result<Allocation> {
    let n = jobs.len();
    let m = gpus.len();
    let c = coefficients(jobs, gpus)?;
    let mut frozen: Vec<Option<f64>> = vec![None; n];
    let mut lps = 0u32;
    let mut x_out = vec![vec![0.0; m]; n];
    while frozen.iter().any(Option::is_none) {
        // Level LP: maximise the smallest share of the unfrozen jobs.
        let mut base = Base::new(&c, jobs, gpus);
        let z = base.vars.add(variable().min(0.0));
        let mut model = constrain(
            base.vars.maximise(z).using(microlp),
            &c,
            jobs,
            gpus,
            &base.x,
            &frozen,
        );
        for j in (0..n).filter(|&j| frozen[j].is_none()) {
            model.add_constraint((share_expr(&c[j], &base.x[j]) - z).geq(0.0));
        }
        let sol = model.solve().map_err(lp_error)?;
        lps += 1;
        let level = sol.value(z);
        for (j, row) in base.x.iter().enumerate() {
            for (t, v) in row.iter().enumerate() {
                x_out[j][t] = v.map_or(0.0, |v| sol.value(v));
            }
        }
        // Bottleneck LP: which unfrozen jobs can grow past the level?
        let unfrozen: Vec<usize> = (0..n).filter(|&j| frozen[j].is_none()).collect();
        let delta = DELTA * level;
        let grows: Vec<bool> = if delta <= EPS {
            vec![false; unfrozen.len()]
        } else {
            let mut base = Base::new(&c, jobs, gpus);
            let s: Vec<Variable> = unfrozen
                .iter()
                .map(|_| base.vars.add(variable().min(0.0).max(delta)))
                .collect();
            let objective: Expression = s.iter().map(|&v| Expression::from(v)).sum();
            let mut model = constrain(
                base.vars.maximise(objective).using(microlp),
                &c,
                jobs,
                gpus,
                &base.x,
                &frozen,
            );
            for (&j, &sj) in unfrozen.iter().zip(&s) {
                model.add_constraint((share_expr(&c[j], &base.x[j]) - sj).geq(level * (1.0 - EPS)));
            }
            let sol = model.solve().map_err(lp_error)?;
            lps += 1;
            s.iter().map(|&v| sol.value(v) > delta * 1e-3).collect()
        };
        let mut froze_any = false;
        for (&j, &g) in unfrozen.iter().zip(&grows) {
            if !g {
                frozen[j] = Some(level);
                froze_any = true;
            }
        }
        if !froze_any {
            // Cannot happen for an optimal level (some job is a
            // bottleneck); freeze them all rather than loop.
            for &j in &unfrozen {
                frozen[j] = Some(level);
            }
        }
    }
    // Clip solver noise into [0, 1] (as Gavel does) and report the shares.
    for row in &mut x_out {
        for v in row.iter_mut() {
            *v = v.clamp(0.0, 1.0);
        }
    }
    let share = (0..n)
        .map(|j| (0..m).map(|t| c[j][t] * x_out[j][t]).sum())
        .collect();
    Ok(Allocation {
        x: x_out,
        share,
        lps,
    })
}
