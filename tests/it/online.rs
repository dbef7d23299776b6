//! Online multi-tenancy on the hand trace (`traces/hand.csv`, see
//! tests/it/hand_trace.rs for its table): staggered arrivals, budgets and
//! patience, computed on paper.

use std::fs;
use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::simulate_one;
use tenantsim::models::metrics::RepResult;
use tenantsim::models::scenario::parse_scenario;

const S: u64 = 1_000_000;

fn run(extra: &str, files: &[(&str, &str)]) -> RepResult {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        fs::write(tmp.path().join(name), text).expect("write");
    }
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/hand.csv");
    let text = format!(
        "name = \"online\"\nthresholds = [0.2, 0.14, 0.05]\n{extra}\n[trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
        trace.display()
    );
    let s = parse_scenario(&tmp.path().join("s.toml"), &text, Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// u1 arrives at 0, u2 at 5, u3 at 10; 1 GPU; round-robin + in-order.
///
/// | t  | event                         | starts          |
/// |----|-------------------------------|-----------------|
/// | 0  | u1 arrives                    | u1 linear → 2   |
/// | 2  | u1 linear .70                 | u1 forest → 6 (only u1 has arrived) |
/// | 5  | u2 arrives (GPU busy)         |                 |
/// | 6  | u1 forest .80                 | u2 linear → 7   |
/// | 7  | u2 linear .60                 | u1 boosting → 13 (u3 not yet here) |
/// | 10 | u3 arrives                    |                 |
/// | 13 | u1 boosting .90               | u2 forest → 16  |
/// | 16 | u2 forest .75                 | u3 linear → 19  |
/// | 19 | u3 linear .50                 | u1 deepnet → 27 |
/// | 27 | u1 deepnet .85                | u2 boosting → 29|
/// | 29 | u2 boosting .65               | u3 forest → 30  |
/// | 30 | u3 forest .55                 | u3 boosting → 31 (u1, u2 done) |
/// | 31 | u3 boosting .52               | u3 deepnet → 41 |
/// | 41 | u3 deepnet .95                |                 |
///
/// S (summed loss of arrived tenants) and L = S / arrived:
/// [0,2) .9/1; [2,5) .2/1; [5,6) .95/2; [6,7) .85/2; [7,10) .25/2;
/// [10,13) 1.2/3 = .4; [13,16) 1.1/3; [16,19) .95/3; [19,30) .45/3 = .15;
/// [30,41) .40/3 = .1333; 0 from 41.
/// R = 1.8 + .6 + .95 + .85 + .75 + 3.6 + 3.3 + 2.85 + 4.95 + 4.4 = 24.05.
/// T(θ) counts from the last arrival (10): L = .2 ≤ .2 on [2,5) does not
/// count; T(.2) = 19, T(.14) = 30, T(.05) = 41.
/// Per-tenant areas from arrival: u1 .9·2 + .2·4 + .1·7 = 3.3;
/// u2 .75·2 + .15·9 = 2.85; u3 .95·9 + .45·11 + .40·11 = 17.9 (sum 24.05).
/// Alone on the GPU: u1 .9·2 + .2·4 + .1·6 = 3.2; u2 .75·1 + .15·3 = 1.2;
/// u3 .95·3 + .45·1 + .40·11 = 7.7. Ratios x = (1.03125, 2.375, 17.9/7.7);
/// Jain = (Σx)² / (3 Σx²).
#[test]
fn staggered_arrivals_match_paper() {
    let r = run(
        "[arrivals]\nkind = \"file\"\npath = \"arrivals.csv\"",
        &[("arrivals.csv", "user,arrival_s\nu1,0\nu2,5\nu3,10\n")],
    );
    assert_eq!(*r.arrivals.to_list(), [0, 5 * S, 10 * S]);
    let c = &r.curve;
    assert_eq!(
        c.times().expect("read"),
        [0, 2, 5, 6, 7, 10, 13, 16, 19, 30, 41].map(|t| t * S)
    );
    assert_eq!(
        c.arrived().expect("read"),
        [1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3]
    );
    let s_expected = [0.9, 0.2, 0.95, 0.85, 0.25, 1.2, 1.1, 0.95, 0.45, 0.40, 0.0];
    for (got, want) in c.sum_loss().expect("read").iter().zip(s_expected) {
        assert!(close(*got, want), "S = {got}, expected {want}");
    }
    assert!(close(r.metrics.cumulative_regret, 24.05));
    assert_eq!(
        r.metrics.time_to,
        [Some(19 * S), Some(30 * S), Some(41 * S)]
    );

    let rows = r.tenants.to_vec().expect("rows");
    let areas: Vec<f64> = rows.iter().map(|t| t.regret_area).collect();
    for (got, want) in areas.iter().zip([3.3, 2.85, 17.9]) {
        assert!(close(*got, want), "area {got}, expected {want}");
    }
    let iso = r.isolated_area.clone().expect("fairness is on by default");
    for (got, want) in iso.iter().zip([3.2, 1.2, 7.7]) {
        assert!(close(*got, want), "isolated {got}, expected {want}");
    }
    let x = [3.3 / 3.2, 2.85 / 1.2, 17.9 / 7.7];
    let jain = x.iter().sum::<f64>().powi(2) / (3.0 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(close(r.tenant_aggregate.jain.expect("jain"), jain));
    assert!(close(r.tenant_aggregate.area_max, 17.9));
    assert!(close(r.tenant_aggregate.area_p50, 3.3));
    // Waits: u2 first runs at 6 (arrived 5), u3 at 16 (arrived 10).
    let waits: Vec<_> = rows.iter().map(|t| t.wait_first_job).collect();
    assert_eq!(waits, [Some(0), Some(S), Some(6 * S)]);
    // u2 runs [6,7), [13,16), [27,29): its longest gap is [16, 27) = 11 s.
    assert_eq!(rows[1].longest_gap, 11 * S);
    // No job starts before its tenant arrives.
    let arrivals = r.arrivals.to_list();
    assert!(
        r.outcome
            .jobs
            .to_vec()
            .expect("the job log")
            .into_iter()
            .all(|j| j.start >= arrivals[j.tenant as usize])
    );
}

/// Budget 7 GPU·s: u1 runs linear (2 s, used 2) and forest (4 s, used 6);
/// boosting (6 s) would take it to 12 > 7, so it is not started and u1
/// stops. Each tenant independently: u2 linear 1 + forest 3 = 4, boosting
/// would make 6 ≤ 7, so u2 runs all three; u3 linear 3 + forest 1 +
/// boosting 1 = 5, deepnet would make 15 > 7.
#[test]
fn budget_stops_the_job_that_would_cross_it() {
    let r = run("[limits]\nbudget_gpu_s = 7", &[]);
    let rows = r.tenants.to_vec().expect("rows");
    let per_tenant: Vec<u32> = rows.iter().map(|t| t.jobs).collect();
    assert_eq!(per_tenant, [2, 3, 3]);
    let used: Vec<u64> = rows.iter().map(|t| t.gpu_us).collect();
    assert_eq!(used, [6 * S, 6 * S, 5 * S]);
    assert!(used.iter().all(|&u| u <= 7 * S));
    assert_eq!(
        r.outcome.end_states.budget_flags().expect("end states"),
        [true, false, true]
    );
    // Final loss: u1 best .8 of .9, u2 .75 of .75, u3 .55 of .95.
    assert!(close(r.metrics.final_loss, (0.1 + 0.0 + 0.4) / 3.0));
}

/// Patience 2.5 s, all arrive at 0, 1 GPU: u1 linear 0→2 completes; u2
/// linear starts at 2. At 2.5 u2 (running, nothing completed) and u3
/// (never served) leave; u2's job is cancelled and its GPU freed at 2.5.
/// u1 then runs forest 2.5→6.5, boosting →12.5, deepnet →20.5.
/// Final L = (0 + .75 + .95) / 3: the leavers' losses stay frozen.
#[test]
fn impatient_tenants_leave_and_never_run_again() {
    let r = run("[limits]\npatience_s = 2.5", &[]);
    assert_eq!(r.outcome.left_at, [None, Some(2_500_000), Some(2_500_000)]);
    assert_eq!(r.tenant_aggregate.abandoned, 2);
    for j in r.outcome.jobs.to_vec().expect("the job log") {
        if j.tenant > 0 {
            assert!(
                j.start < 2_500_000,
                "a job of a leaver started after it left"
            );
            assert!(!j.completed);
        }
    }
    let u1_starts: Vec<u64> = r
        .outcome
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .filter(|j| j.tenant == 0)
        .map(|j| j.start)
        .collect();
    assert_eq!(u1_starts, [0, 2_500_000, 6_500_000, 12_500_000]);
    assert_eq!(r.metrics.end, 20_500_000);
    assert!(close(r.metrics.final_loss, (0.75 + 0.95) / 3.0));
    // u2's cancelled job ran 0.5 s.
    assert_eq!(r.tenants.to_vec().expect("rows")[1].gpu_us, 500_000);
}

fn syn_scenario(arrivals: &str, policies: usize) -> tenantsim::models::scenario::Scenario {
    let mut text = format!(
        "name = \"p\"\nseed = 11\nrepetitions = 2\n{arrivals}\n[trace.syn]\nusers = 400\nmodels = 3\n[cluster]\ngpus = 4\n"
    );
    for (i, (sch, sel)) in [("round-robin", "in-order"), ("random", "random")]
        .iter()
        .take(policies)
        .enumerate()
    {
        text.push_str(&format!(
            "[[policy]]\nname = \"p{i}\"\nscheduler = \"{sch}\"\nselector = \"{sel}\"\n"
        ));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/x.toml");
    parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Every policy of a repetition sees the same arrivals; repetitions differ.
#[test]
fn arrivals_are_shared_by_the_policies_of_a_repetition() {
    let s = syn_scenario("[arrivals]\nkind = \"poisson\"\nrate_per_hour = 3600", 2);
    let a0 = simulate_one(&s, 0, 0)
        .unwrap_or_else(|e| panic!("{e}"))
        .arrivals
        .to_list();
    let b0 = simulate_one(&s, 0, 1)
        .unwrap_or_else(|e| panic!("{e}"))
        .arrivals
        .to_list();
    let a1 = simulate_one(&s, 1, 0)
        .unwrap_or_else(|e| panic!("{e}"))
        .arrivals
        .to_list();
    assert_eq!(a0, b0);
    assert_ne!(a0, a1);
}

/// Poisson arrivals at λ = 1/s: the n = 400 inter-arrival gaps are Exp(1),
/// so their mean is 1 s with standard error 1/√400 = 0.05 s; accept within
/// 4 standard errors. The last arrival is their sum.
#[test]
fn poisson_gaps_have_the_configured_mean() {
    let s = syn_scenario("[arrivals]\nkind = \"poisson\"\nrate_per_hour = 3600", 1);
    let mut times = simulate_one(&s, 0, 0)
        .unwrap_or_else(|e| panic!("{e}"))
        .arrivals
        .to_list()
        .to_vec();
    times.sort_unstable();
    let mean_gap_s = times[times.len() - 1] as f64 / 1e6 / times.len() as f64;
    assert!(
        (mean_gap_s - 1.0).abs() < 4.0 * 0.05,
        "mean gap {mean_gap_s}"
    );
}

/// Uniform arrivals over [0, 100 s]: all inside, mean 50 s ± 4·(100/√12)/√400.
#[test]
fn uniform_arrivals_fill_the_window() {
    let s = syn_scenario("[arrivals]\nkind = \"uniform\"\nwindow_s = 100", 1);
    let times = simulate_one(&s, 0, 0)
        .unwrap_or_else(|e| panic!("{e}"))
        .arrivals
        .to_list();
    assert!(times.iter().all(|&t| t <= 100 * S));
    let mean = times.iter().map(|&t| t as f64 / 1e6).sum::<f64>() / times.len() as f64;
    let se = 100.0 / 12f64.sqrt() / 20.0;
    assert!((mean - 50.0).abs() < 4.0 * se, "mean {mean}");
}
