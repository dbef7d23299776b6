//! Regret on the bundled hand trace (`traces/hand.csv`), computed on paper.
//!
//! The trace (accuracy, runtime in s):
//!
//! | user | linear   | forest    | boosting  | deepnet    | A*   |
//! |------|----------|-----------|-----------|------------|------|
//! | u1   | 0.70, 2  | 0.80, 4   | 0.90, 6   | 0.85, 8    | 0.90 |
//! | u2   | 0.60, 1  | 0.75, 3   | 0.65, 2   | —          | 0.75 |
//! | u3   | 0.50, 3  | 0.55, 1   | 0.52, 1   | 0.95, 10   | 0.95 |
//!
//! ΣA* = 2.60, so S(0) = 2.60 and L(0) = 2.60 / 3.

use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::simulate_one;
use tenantsim::models::scenario::{Scenario, parse_scenario};

const S: u64 = 1_000_000;

fn scenario(gpus: u32, scheduler: &str, selector: &str) -> Scenario {
    let text = format!(
        r#"
name = "hand"
thresholds = [0.5, 0.2, 0.05]
[trace]
path = "hand.csv"
[cluster]
gpus = {gpus}
[[policy]]
name = "p"
scheduler = "{scheduler}"
selector = "{selector}"
"#
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/scenario.toml");
    match parse_scenario(&path, &text, Overrides::default()) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Round-robin + in-order on 1 GPU. The pointer starts at u1 and moves past
/// each tenant served; every tenant takes its models in trace order:
///
/// | t  | completes (acc)     | starts             | S after |
/// |----|---------------------|--------------------|---------|
/// | 0  |                     | u1 linear  → 2     | 2.60 |
/// | 2  | u1 linear 0.70      | u2 linear  → 3     | 1.90 |
/// | 3  | u2 linear 0.60      | u3 linear  → 6     | 1.30 |
/// | 6  | u3 linear 0.50      | u1 forest  → 10    | 0.80 |
/// | 10 | u1 forest 0.80      | u2 forest  → 13    | 0.70 |
/// | 13 | u2 forest 0.75      | u3 forest  → 14    | 0.55 |
/// | 14 | u3 forest 0.55      | u1 boosting → 20   | 0.50 |
/// | 20 | u1 boosting 0.90    | u2 boosting → 22   | 0.40 |
/// | 22 | u2 boosting 0.65    | u3 boosting → 23   | 0.40 |
/// | 23 | u3 boosting 0.52    | u1 deepnet → 31    | 0.40 |
/// | 31 | u1 deepnet 0.85     | (u2 has no models left) u3 deepnet → 41 | 0.40 |
/// | 41 | u3 deepnet 0.95     |                    | 0    |
///
/// R = 2.6·2 + 1.9·1 + 1.3·3 + 0.8·4 + 0.7·3 + 0.55·1 + 0.5·6 + 0.4·21
///   = 5.2 + 1.9 + 3.9 + 3.2 + 2.1 + 0.55 + 3.0 + 8.4 = 28.25 accuracy·s.
/// L = S/3: T(0.5) = 3 (L = 0.4333), T(0.2) = 13 (L = 0.1833), T(0.05) = 41.
#[test]
fn round_robin_in_order_one_gpu_matches_paper() {
    let s = scenario(1, "round-robin", "in-order");
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let order: Vec<(u32, &str)> = r
        .outcome
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| (j.tenant, s.trace.models()[j.model as usize].as_str()))
        .collect();
    assert_eq!(
        order,
        [
            (0, "linear"),
            (1, "linear"),
            (2, "linear"),
            (0, "forest"),
            (1, "forest"),
            (2, "forest"),
            (0, "boosting"),
            (1, "boosting"),
            (2, "boosting"),
            (0, "deepnet"),
            (2, "deepnet"),
        ]
    );
    let c = &r.curve;
    assert_eq!(
        c.times().expect("read"),
        [0, 2, 3, 6, 10, 13, 14, 20, 41].map(|t| t * S)
    );
    let expected_s = [2.60, 1.90, 1.30, 0.80, 0.70, 0.55, 0.50, 0.40, 0.0];
    for (got, want) in c.sum_loss().expect("read").iter().zip(expected_s) {
        assert!(close(*got, want), "S = {got}, expected {want}");
    }
    assert!(close(
        c.loss_at(12 * S).expect("read").unwrap_or(f64::NAN),
        0.70 / 3.0
    ));
    assert!(close(r.metrics.cumulative_regret, 28.25));
    assert_eq!(r.metrics.time_to, [Some(3 * S), Some(13 * S), Some(41 * S)]);
    assert_eq!(r.metrics.final_loss, 0.0);
    assert_eq!(r.metrics.end, 41 * S);
    assert_eq!(r.metrics.jobs, 11);
    assert!(close(r.metrics.gpu_busy_fraction, 1.0));
}

/// The same run on the job axis: L right after the j-th completion is the
/// "S after" column of the table above over 3 tenants, row by row:
/// S = 2.60, 1.90, 1.30, 0.80, 0.70, 0.55, 0.50, 0.40, 0.40, 0.40, 0.40, 0
/// after 0..=11 jobs. Jobs to θ: 0.5 → 2 (L = 0.4333), 0.2 → 5 (0.1833),
/// 0.05 → 11. Σ over j = 0..=10 of S = 2.6 + 1.9 + 1.3 + 0.8 + 0.7 + 0.55
/// + 0.5 + 4 · 0.4 = 9.95 (the regret "per job").
#[test]
fn round_robin_in_order_by_jobs_matches_paper() {
    let s = scenario(1, "round-robin", "in-order");
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let sums = [
        2.60, 1.90, 1.30, 0.80, 0.70, 0.55, 0.50, 0.40, 0.40, 0.40, 0.40, 0.0,
    ];
    let c = &r.job_curve;
    assert_eq!(c.end, 11);
    for (j, &sum) in sums.iter().enumerate() {
        let got = c.loss_at(j as u64).expect("read").unwrap_or(f64::NAN);
        assert!(
            close(got, sum / 3.0),
            "after {j} jobs: L = {got}, want {}",
            sum / 3.0
        );
    }
    assert_eq!(c.time_to(0.5).expect("read"), Some(2));
    assert_eq!(c.time_to(0.2).expect("read"), Some(5));
    assert_eq!(c.time_to(0.05).expect("read"), Some(11));
    assert!((c.cumulative_regret(11).expect("read") * 1e6 - 9.95).abs() < 1e-9);
}

/// The quickstart's first policy: round-robin + in-order on 2 GPUs.
///
/// | t  | completes (acc)            | starts (gpu)                        | S    |
/// |----|----------------------------|-------------------------------------|------|
/// | 0  |                            | u1 linear→2 (0), u2 linear→1 (1)    | 2.60 |
/// | 1  | u2 linear 0.60             | u3 linear→4 (1)                     | 2.00 |
/// | 2  | u1 linear 0.70             | u1 forest→6 (0)                     | 1.30 |
/// | 4  | u3 linear 0.50             | u2 forest→7 (1)                     | 0.80 |
/// | 6  | u1 forest 0.80             | u3 forest→7 (0)                     | 0.70 |
/// | 7  | u2 forest 0.75, u3 forest 0.55 | u1 boosting→13 (0), u2 boosting→9 (1) | 0.50 |
/// | 9  | u2 boosting 0.65           | u3 boosting→10 (1)                  | 0.50 |
/// | 10 | u3 boosting 0.52           | u3 deepnet→20 (1) (u1 busy, u2 done)| 0.50 |
/// | 13 | u1 boosting 0.90           | u1 deepnet→21 (0)                   | 0.40 |
/// | 20 | u3 deepnet 0.95            |                                     | 0    |
/// | 21 | u1 deepnet 0.85            |                                     | 0    |
///
/// R = 2.6 + 2.0 + 1.3·2 + 0.8·2 + 0.7 + 0.5·6 + 0.4·7 = 15.3; end 21 s;
/// busy = 41 GPU·s of 2·21 → 41/42. T(0.2) = 7 (L = 0.5/3), T(0.05) = 20.
#[test]
fn round_robin_in_order_two_gpus_matches_paper() {
    let s = scenario(2, "round-robin", "in-order");
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let gpus: Vec<u32> = r
        .outcome
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| j.gpu)
        .collect();
    assert_eq!(gpus, [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0]);
    assert_eq!(
        r.curve.times().expect("read"),
        [0, 1, 2, 4, 6, 7, 13, 20].map(|t| t * S)
    );
    assert!(close(r.metrics.cumulative_regret, 15.3));
    assert_eq!(r.metrics.time_to, [Some(2 * S), Some(7 * S), Some(20 * S)]);
    assert!(close(r.metrics.gpu_busy_fraction, 41.0 / 42.0));
    assert_eq!(r.metrics.end, 21 * S);
}

/// most-recent orders models by year desc (deepnet 2019, boosting 2016,
/// forest 2014, linear 2010); most-cited by citations desc (forest 30000,
/// boosting 12000, linear 9000, deepnet 4000). On 1 GPU with round-robin,
/// u1 then u2 then u3 take the first model of the order they have.
#[test]
fn heuristic_orders_follow_metadata() {
    let recent = scenario(1, "round-robin", "most-recent");
    let r = simulate_one(&recent, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<&str> = r.outcome.jobs.to_vec().expect("the job log")[..4]
        .iter()
        .map(|j| recent.trace.models()[j.model as usize].as_str())
        .collect();
    // u1 deepnet, u2 boosting (no deepnet), u3 deepnet, u1 boosting
    assert_eq!(first, ["deepnet", "boosting", "deepnet", "boosting"]);

    let cited = scenario(1, "round-robin", "most-cited");
    let r = simulate_one(&cited, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<&str> = r.outcome.jobs.to_vec().expect("the job log")[..4]
        .iter()
        .map(|j| cited.trace.models()[j.model as usize].as_str())
        .collect();
    assert_eq!(first, ["forest", "forest", "forest", "boosting"]);
}

/// With a horizon at 12 s, the 1-GPU round-robin run above stops at 12 s:
/// the job u2 forest (10 → 13) is cut, S holds at 0.70 from 10 s on.
/// R = 5.2 + 1.9 + 3.9 + 3.2 + 0.7·2 = 15.6; final L = 0.70/3; T(0.2) = ∞.
#[test]
fn horizon_cuts_the_run() {
    let mut s = scenario(1, "round-robin", "in-order");
    s.config.horizon = Some(12 * S);
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.metrics.end, 12 * S);
    assert_eq!(r.metrics.jobs, 4);
    assert!(close(r.metrics.cumulative_regret, 15.6));
    assert!(close(r.metrics.final_loss, 0.70 / 3.0));
    assert_eq!(r.metrics.time_to, [Some(3 * S), None, None]);
    assert!(close(r.metrics.gpu_busy_fraction, 1.0));
}
