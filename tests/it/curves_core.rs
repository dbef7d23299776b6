//! Curve traces and the engine's multi-fidelity semantics (DESIGN §12.1,
//! §12.2): levels, A*, costs from scratch and incremental, waiting, the
//! refusals, and that a plain trace is unchanged.

use std::fs;
use std::path::Path;
use tenantsim::models::sim::TenantUsers;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::scenario::{Scenario, parse_scenario};
use tenantsim::models::sim::{
    Proposal, RunOutcome, Scheduler, Selector, SimInput, Tenants, simulate,
};
use tenantsim::models::trace::parse_trace;

use crate::common::{repo, run_scenario};

/// One user `a`, models m0 and m1, three fidelities each. m0's level 1 is
/// more accurate than its top (an LCDB-like dip), so A*_a = 0.8.
const CURVES: &str = "user,model,fidelity,accuracy,runtime_s\n\
                      a,m0,10,0.5,1\na,m0,20,0.8,2\na,m0,40,0.7,4\n\
                      a,m1,10,0.4,1\na,m1,20,0.6,3\na,m1,40,0.75,5\n";

fn scenario_in(dir: &Path, trace: &str, extra_trace: &str, gpus: u32, per_tenant: u32) -> Scenario {
    fs::write(dir.join("t.csv"), trace).expect("write trace");
    let text = format!(
        "name = \"curves\"\nthresholds = [0.05]\nfairness = false\n\
         [trace]\npath = \"t.csv\"\n{extra_trace}\n\
         [cluster]\ngpus = {gpus}\nmax_jobs_per_tenant = {per_tenant}\n\
         [[policy]]\nname = \"p\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n"
    );
    let path = dir.join("s.toml");
    fs::write(&path, &text).expect("write scenario");
    parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Serves the lowest eligible tenant.
struct Lowest;

impl Scheduler for Lowest {
    fn pick(
        &mut self,
        tenants: &Tenants,
        _selector: &mut dyn Selector,
    ) -> tenantsim::Result<Option<usize>> {
        Ok((0..tenants.len()).find(|&i| tenants.is_eligible(i)))
    }
}

/// Proposes a fixed list of (model, level) in order, one per call, and
/// nothing while the previous proposal's job is still running when
/// `wait_for_previous`.
struct Script {
    steps: Vec<(usize, Option<usize>)>,
    next: usize,
    wait_for_previous: bool,
}

impl Script {
    fn next_proposal(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let &(model, level) = self.steps.get(self.next)?;
        if self.wait_for_previous
            && self.next > 0
            && tenants.is_running_model(i, self.steps[self.next - 1].0)
        {
            return None;
        }
        let p = Proposal::plain(model);
        Some(match level {
            Some(l) => p.at_level(l),
            None => p,
        })
    }
}

impl Selector for Script {
    fn propose(&mut self, tenants: &Tenants, i: usize) -> tenantsim::Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, i))
    }
    fn started(&mut self, _tenant: usize, _model: usize) -> tenantsim::Result<()> {
        self.next += 1;
        Ok(())
    }
}

fn run(s: &Scenario, selector: &mut dyn Selector) -> Result<RunOutcome, String> {
    let tenants = [0usize];
    let input = SimInput {
        trace: &s.trace,
        tenants: &TenantUsers::list(&tenants),
        arrivals: &[0],
        config: s.config,
        gpu_types: &s.gpu_types,
    };
    simulate(&input, &mut Lowest, selector).map_err(|e| e.to_string())
}

/// (model, level, start s, end s) of every job.
fn log(out: &RunOutcome) -> Vec<(u32, u16, f64, f64)> {
    out.jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| (j.model, j.level, j.start as f64 / 1e6, j.end as f64 / 1e6))
        .collect()
}

#[test]
fn a_curve_traces_levels_are_sorted_and_a_star_spans_every_fidelity() {
    let t = parse_trace("t.csv", CURVES.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert!(t.is_curve());
    assert_eq!(t.n_levels(0, 0), 3);
    assert_eq!(t.level_fidelity(0, 0, 2), 40.0);
    assert_eq!(t.level_accuracy(0, 0, 1), 0.8);
    // The matrices hold the top level: the full-fidelity baseline.
    assert_eq!(t.accuracy(0, 0), 0.7);
    assert_eq!(t.runtime_us(0, 1), 5_000_000);
    // A* is over every row: m0 at fidelity 20.
    assert_eq!(t.best_accuracy(0), 0.8);
    assert_eq!((t.min_fidelity(), t.max_fidelity()), (10.0, 40.0));
    assert_eq!(t.level_at_least(0, 0, 15.0), 1);
    assert_eq!(t.level_at_least(0, 0, 99.0), 2);
    // A plain trace answers with one level.
    let plain = parse_trace(
        "p.csv",
        "user,model,accuracy,runtime_s\na,m,0.5,2\n".as_bytes(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!plain.is_curve());
    assert_eq!(plain.n_levels(0, 0), 1);
    assert_eq!(plain.cost_us(0, 0, None, 0), 2_000_000);
}

#[test]
fn bad_curve_rows_name_the_line_and_field() {
    let head = "user,model,fidelity,accuracy,runtime_s\n";
    let cases = [
        (
            "a,m,20,0.5,1\na,m,10,0.6,1\n",
            "line 3: field `fidelity`: expected the fidelities",
        ),
        ("a,m,10,0.5,1\na,m,10,0.6,1\n", "line 3: duplicate row"),
        (
            "a,m,0,0.5,1\n",
            "line 2: field `fidelity`: expected a finite number > 0",
        ),
        ("a,m,x,0.5,1\n", "line 2: field `fidelity`"),
        ("a,m,10,1.5,1\n", "line 2: field `accuracy`"),
    ];
    for (rows, want) in cases {
        let err = parse_trace("c.csv", format!("{head}{rows}").as_bytes())
            .map(|_| ())
            .expect_err(rows)
            .to_string();
        assert!(err.contains("c.csv") && err.contains(want), "{rows}: {err}");
    }
    let typed = "user,model,fidelity,accuracy,runtime_s,runtime_s.k80\na,m,1,0.5,1,2\n";
    let err = parse_trace("c.csv", typed.as_bytes())
        .map(|_| ())
        .expect_err("typed");
    assert!(err.to_string().contains("`runtime_s.k80`"), "{err}");
}

#[test]
fn scenario_cost_keys_are_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = "user,model,accuracy,runtime_s\na,m,0.5,2\n";
    let cases = [
        (CURVES, "cost = \"resumable\"", "[trace].cost: expected"),
        (
            CURVES,
            "cost = \"incremental\"\nrestore_s = -1",
            "[trace].restore_s",
        ),
        (
            CURVES,
            "restore_s = 1",
            "only meaningful with cost = \"incremental\"",
        ),
        (plain, "cost = \"incremental\"", "needs a curve trace"),
    ];
    for (trace, keys, want) in cases {
        fs::write(dir.path().join("t.csv"), trace).expect("write");
        let text = format!(
            "name = \"c\"\n[trace]\npath = \"t.csv\"\n{keys}\n[cluster]\ngpus = 1\n[[policy]]\nname = \"p\"\n\
             scheduler = \"round-robin\"\nselector = \"in-order\"\n"
        );
        let path = dir.path().join("s.toml");
        let err = parse_scenario(&path, &text, Overrides::default())
            .map(|_| ())
            .expect_err(keys)
            .to_string();
        assert!(err.contains(want), "{keys}: {err}");
    }
}

/// From scratch, each job costs its row: m0@10 1 s [0,1], m0@40 4 s [1,5],
/// m1@40 5 s [5,10].
#[test]
fn from_scratch_jobs_cost_their_rows_runtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(dir.path(), CURVES, "", 1, 1);
    let mut sel = Script {
        steps: vec![(0, Some(0)), (0, Some(2)), (1, None)],
        next: 0,
        wait_for_previous: false,
    };
    let out = run(&s, &mut sel).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log(&out),
        [(0, 0, 0.0, 1.0), (0, 2, 1.0, 5.0), (1, 2, 5.0, 10.0)]
    );
    assert_eq!(out.busy, 10_000_000);
}

/// Incremental, restore 0.5 s: m0@10 costs c(0) = 1 s [0,1]; m0@40 continues
/// from the checkpoint at level 0: c(1) + c(2) + restore = 2 + 4 + 0.5 =
/// 6.5 s [1,7.5]; m1@40 has no checkpoint: 1 + 3 + 5 = 9 s [7.5,16.5].
#[test]
fn incremental_jobs_continue_from_the_checkpoint_and_pay_the_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(
        dir.path(),
        CURVES,
        "cost = \"incremental\"\nrestore_s = 0.5",
        1,
        1,
    );
    assert_eq!(
        s.trace.runtime_us(0, 1),
        9_000_000,
        "top level, no checkpoint"
    );
    let mut sel = Script {
        steps: vec![(0, Some(0)), (0, Some(2)), (1, None)],
        next: 0,
        wait_for_previous: false,
    };
    let out = run(&s, &mut sel).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log(&out),
        [(0, 0, 0.0, 1.0), (0, 2, 1.0, 7.5), (1, 2, 7.5, 16.5)]
    );
}

/// Two GPUs, two jobs per tenant: after m0@10 starts on GPU 0 the script
/// waits for it, so GPU 1 stays idle; at 1 s the tenant stops waiting and
/// m0@20 starts.
#[test]
fn a_selector_that_proposes_nothing_makes_its_tenant_wait_for_a_completion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(dir.path(), CURVES, "", 2, 2);
    let mut sel = Script {
        steps: vec![(0, Some(0)), (0, Some(1)), (0, None)],
        next: 0,
        wait_for_previous: true,
    };
    let out = run(&s, &mut sel).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log(&out),
        [(0, 0, 0.0, 1.0), (0, 1, 1.0, 3.0), (0, 2, 3.0, 7.0)]
    );
    // Nothing proposed with no job running: the tenant is done and the
    // run ends although m1 was never run.
    assert_eq!(out.end, 7_000_000);
}

#[test]
fn a_level_not_above_the_started_one_is_a_policy_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(dir.path(), CURVES, "", 1, 1);
    for (steps, want) in [
        (vec![(0, Some(1)), (0, Some(1))], "level 1 of model 0"),
        (vec![(0, Some(1)), (0, Some(0))], "level 0 of model 0"),
        (vec![(0, Some(3))], "top level 2"),
        (vec![(0, None), (0, Some(2))], "already tried"),
    ] {
        let mut sel = Script {
            steps,
            next: 0,
            wait_for_previous: false,
        };
        let err = run(&s, &mut sel).expect_err(want);
        assert!(err.contains(want), "{err}");
    }
}

/// Full-fidelity baselines: every existing selector runs models at their
/// top level only, `jobs.csv` names the fidelity, and no GPU time is spent
/// below it.
#[test]
fn existing_selectors_run_curve_traces_at_the_largest_fidelity() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("t.csv"), CURVES).expect("write");
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"c\"\nrepetitions = 2\nthresholds = [0.05]\n[trace]\npath = \"t.csv\"\n\
         [cluster]\ngpus = 1\n[[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write");
    let out = dir.path().join("out");
    run_scenario(scenario.to_str().expect("utf-8"), &out, &["--jobs"]);
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let mut lines = jobs.lines();
    assert_eq!(
        lines.next(),
        Some("policy,rep,job,gpu,user,model,start_s,end_s,accuracy,fidelity")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.ends_with(",40")), "{jobs}");
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let mut lines = summary.lines();
    assert!(
        lines
            .next()
            .is_some_and(|h| h.ends_with(",low_fidelity_gpu_s"))
    );
    for row in lines {
        // Both models at the top: best 0.75 against A* = 0.8 (m0 at 20).
        assert!(row.ends_with(",0.000000"), "{row}");
        let final_loss = row.split(',').nth(3).expect("final_loss");
        assert_eq!(final_loss, (0.8f64 - 0.75).to_string(), "{row}");
    }
}

/// A trace given with a `fidelity` column but one level per pair runs
/// exactly as the plain trace: every output the same, apart from the added
/// `fidelity` and `low_fidelity_gpu_s` columns (no policy here ends a
/// tenant by its schedule, so `tenants.csv` has no `ended` column).
#[test]
fn a_single_fidelity_curve_trace_gives_the_plain_traces_results() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = fs::read_to_string(repo("traces/hand.csv")).expect("hand.csv");
    let mut lines = plain.lines();
    let header = lines.next().expect("header");
    let mut curve = format!("{header},fidelity\n");
    for l in lines {
        curve.push_str(&format!("{l},100\n"));
    }
    let scenario = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("quickstart");
    let run_with = |name: &str, trace: &str| {
        let t = dir.path().join(format!("{name}.csv"));
        fs::write(&t, trace).expect("write trace");
        let s = dir.path().join(format!("{name}.toml"));
        let text = scenario.replace(
            "path = \"../traces/hand.csv\"",
            &format!("path = \"{name}.csv\""),
        );
        assert_ne!(text, scenario);
        fs::write(&s, text).expect("write scenario");
        let out = dir.path().join(format!("out-{name}"));
        run_scenario(s.to_str().expect("utf-8"), &out, &["--jobs"]);
        out
    };
    let a = run_with("plain", &plain);
    let b = run_with("curve", &curve);
    for f in [
        "curves.csv",
        "curves_by_job.csv",
        "regret.csv",
        "speedups.csv",
        "tenants.csv",
    ] {
        let x = fs::read(a.join(f)).expect(f);
        let y = fs::read(b.join(f)).expect(f);
        assert!(x == y, "{f} differs");
    }
    let strip_last = |f: &str, out: &Path| -> String {
        fs::read_to_string(out.join(f))
            .expect(f)
            .lines()
            .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string() + "\n")
            .collect()
    };
    for f in ["jobs.csv", "summary.csv"] {
        assert_eq!(
            strip_last(f, &b),
            fs::read_to_string(a.join(f)).expect(f),
            "{f}"
        );
    }
}

/// Regression: `summary.csv`'s `low_fidelity_gpu_s` was summed from the job
/// log, which a run without `--jobs` drops, so it read 0 there. The engine
/// now counts it; with and without `--jobs` the summary is the same.
#[test]
fn low_fidelity_gpu_time_does_not_need_the_job_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("t.csv"), CURVES).expect("write");
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"c\"\nthresholds = [0.05]\n[trace]\npath = \"t.csv\"\n\
         [cluster]\ngpus = 1\n[[policy]]\nname = \"sh\"\nscheduler = \"round-robin\"\n\
         selector = \"successive-halving\"\neta = 2\n",
    )
    .expect("write");
    let summary = |extra: &[&str], name: &str| {
        let out = dir.path().join(name);
        run_scenario(scenario.to_str().expect("utf-8"), &out, extra);
        fs::read_to_string(out.join("summary.csv")).expect("summary.csv")
    };
    let with_log = summary(&["--jobs"], "a");
    let without = summary(&[], "b");
    assert_eq!(with_log, without);
    // η = 2, rungs 10, 20, 40: m0@10 (1 s) and m1@10 (1 s), then the
    // better m0 (0.5 > 0.4) at 20 (2 s) run below the top: 4 s.
    let row = without.lines().nth(1).expect("row");
    assert!(row.ends_with(",4.000000"), "{row}");
}
