//! Workflows in a shared scenario (issue 30, DESIGN §14.2–14.7): the
//! `[workflows]` keys and their errors, the figures of `summary.csv` on
//! hand-built outcomes (each worked out in the test's comment), the rows
//! of `workflows.csv`, `steps.csv` and `jobs.csv`, the run's identity and
//! its exact encoding. The end-to-end tests need the workflow workload
//! (`simulate_shared` with workflows, built beside this) and are ignored
//! until it lands.

use std::fs;
use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::run::mode::Mode;
use tenantsim::shared::SharedMode;
use tenantsim::shared::run::{SharedRun, decode_shared_run, encode_shared_run, workflows_input};
use tenantsim::shared::scenario::{SharedScenario, parse_shared_scenario};
use tenantsim::shared::sim::{
    AttemptJob, CacheStats, StepRecord, StepState, WorkflowOutcome, WorkflowRecord, WorkflowState,
};
use tenantsim::shared::workflows_report::{
    SUMMARY_FIGURES, WorkflowMetrics, attempt_job_id, jobs_rows, steps_rows, summarize,
    summary_header, workflows_rows,
};
use tenantsim::workflows::{CacheRule, ParallelRule, Resume, Scope};

use crate::common::{repo, tenantsim};

const NEVER: u64 = u64::MAX;

/// A diamond (a → b, c → d) of tenant `t` and a one-step workflow of
/// tenant `u` submitted at 5 s.
const TRACE: &str = "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes,deadline_s,failure_p,parallel
w1,t,0,a,,10,1,2,ka,100,,0,0
w1,t,0,b,a,20,2,0,kb,200,,0.1,1
w1,t,0,c,a,5,0,4,,0,,0,0
w1,t,0,d,b;c,1,1,1,kd,10,,0,0
w2,u,5,x,,3,1,1,kx,1,,0,0
";

/// Shared scenario `toml` (cluster of 2 nodes × 4 GPUs prepended) in a
/// temporary folder beside the workflow trace `w.csv` = [`TRACE`].
fn scenario(dir: &Path, toml: &str) -> tenantsim::Result<SharedScenario> {
    fs::write(dir.join("w.csv"), TRACE).expect("write trace");
    let text =
        format!("mode = \"shared\"\nname = \"t\"\n[cluster]\nnodes = 2\ngpus_per_node = 4\n{toml}");
    let path = dir.join("s.toml");
    fs::write(&path, &text).expect("write scenario");
    parse_shared_scenario(&path, &text, Overrides::default())
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

const MINIMAL: &str = "[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"p\"\n";

#[test]
fn a_workflows_table_alone_is_a_workload_with_the_documented_defaults() {
    let d = tmp();
    let s = scenario(d.path(), MINIMAL).expect("valid");
    let w = s.workflows.as_ref().expect("workflows");
    assert!(s.service.is_none() && s.background.is_none());
    assert_eq!(w.trace.workflows().len(), 2);
    assert_eq!(w.trace.steps().len(), 5);
    assert_eq!((w.load, w.horizon, w.split_overhead), (1.0, None, 0));
    assert_eq!(w.cache.capacity_bytes, u64::MAX);
    assert_eq!(w.cache.max_age, u64::MAX);
    assert_eq!((w.cache.restore, w.cache.bandwidth_bytes_per_s), (0, 0));
    assert_eq!(w.cache.scope, Scope::Tenant);
    assert_eq!(w.retry.max_retries, 0);
    assert_eq!(w.retry.resume, Resume::Cached);
    // No [workflows.cache]: the rule defaults to off (§14.3).
    assert_eq!(w.cache_rules, vec![CacheRule::Off]);
    assert_eq!(w.parallel, vec![ParallelRule::Off]);
    assert_eq!(w.trace_sha256.len(), 64);
}

#[test]
fn a_cache_table_makes_lru_the_default_rule() {
    let d = tmp();
    let s = scenario(
        d.path(),
        "[workflows]\npath = \"w.csv\"\n[workflows.cache]\n[[policy]]\nname = \"p\"\n[[policy]]\nname = \"q\"\ncache = \"cost\"\n",
    )
    .expect("valid");
    let w = s.workflows.as_ref().expect("workflows");
    assert_eq!(w.cache_rules, vec![CacheRule::Lru, CacheRule::Cost]);
}

#[test]
fn every_workflows_key_reaches_the_workflows_input() {
    let d = tmp();
    let s = scenario(
        d.path(),
        r#"[workflows]
path = "w.csv"
load = 2.5
horizon_s = 3600
split_overhead_s = 1.5
[workflows.cache]
capacity_bytes = 1000
max_age_s = 60
restore_s = 0.25
bandwidth_bytes_per_s = 100
scope = "global"
[workflows.retry]
max_retries = 3
backoff_s = 2
resume = "from-scratch"
[[policy]]
name = "fixed"
cache = "off"
parallel = "fixed"
parallel_k = 3
[[policy]]
name = "fill"
parallel = "fill"
"#,
    )
    .expect("valid");
    let w = s.workflows.as_ref().expect("workflows");
    let fixed = workflows_input(w, 0, true);
    assert_eq!(fixed.load, 2.5);
    assert_eq!(fixed.horizon, Some(3_600_000_000));
    assert_eq!(fixed.split_overhead, 1_500_000);
    assert_eq!(fixed.cache.capacity_bytes, 1000);
    assert_eq!(fixed.cache.max_age, 60_000_000);
    assert_eq!(fixed.cache.restore, 250_000);
    assert_eq!(fixed.cache.bandwidth_bytes_per_s, 100);
    assert_eq!(fixed.cache.scope, Scope::Global);
    assert_eq!(fixed.retry.max_retries, 3);
    assert_eq!(fixed.retry.backoff, 2_000_000);
    assert_eq!(fixed.retry.resume, Resume::FromScratch);
    assert_eq!(fixed.cache_rule, CacheRule::Off);
    assert_eq!(fixed.parallel, ParallelRule::Fixed { k: 3 });
    assert!(fixed.keep_jobs);
    let fill = workflows_input(w, 1, false);
    assert_eq!(fill.cache_rule, CacheRule::Lru);
    assert_eq!(fill.parallel, ParallelRule::Fill { cap: 4 });
    assert!(!fill.keep_jobs);
}

#[test]
fn bad_workflows_keys_name_the_key_and_what_was_expected() {
    let cases: [(&str, &str); 9] = [
        (
            "[workflows]\npath = \"w.csv\"\nhorizon_s = -1\n[[policy]]\nname = \"p\"\n",
            "[workflows].horizon_s: expected a finite number of seconds > 0",
        ),
        (
            "[workflows]\npath = \"w.csv\"\nsplit_overhead_s = nan\n[[policy]]\nname = \"p\"\n",
            "[workflows].split_overhead_s: expected a finite number",
        ),
        (
            "[workflows]\npath = \"w.csv\"\n[workflows.cache]\nmax_age_s = 0\n[[policy]]\nname = \"p\"\n",
            "[workflows.cache].max_age_s: expected a finite number of seconds > 0",
        ),
        (
            "[workflows]\npath = \"w.csv\"\n[workflows.cache]\nscope = \"team\"\n[[policy]]\nname = \"p\"\n",
            "[workflows.cache].scope: unknown scope `team`",
        ),
        (
            "[workflows]\npath = \"w.csv\"\n[workflows.retry]\nbackoff_s = -2\n[[policy]]\nname = \"p\"\n",
            "[workflows.retry].backoff_s",
        ),
        (
            "[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"p\"\nparallel = \"all\"\n",
            "parallel: unknown rule `all`",
        ),
        (
            "[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"p\"\nparallel = \"fixed\"\nparallel_k = 0\n",
            "parallel_k: expected at least 1",
        ),
        (
            "[workflows]\npath = \"w.csv\"\nspeed = 1\n[[policy]]\nname = \"p\"\n",
            "unknown field `speed`",
        ),
        (
            "[workflows]\npath = \"missing.csv\"\n[[policy]]\nname = \"p\"\n",
            "[workflows].path",
        ),
    ];
    for (toml, fragment) in cases {
        let d = tmp();
        let e = scenario(d.path(), toml).expect_err(toml).to_string();
        assert!(
            e.contains(fragment),
            "{toml}\n→ {e}\n(expected `{fragment}`)"
        );
    }
}

#[test]
fn a_step_wider_than_the_cluster_is_refused_with_its_workflow_and_step() {
    let d = tmp();
    fs::write(
        d.path().join("big.csv"),
        "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes\nw,t,0,huge,,1,9,0,,0\n",
    )
    .expect("write");
    let text = "mode = \"shared\"\nname = \"t\"\n[cluster]\nnodes = 2\ngpus_per_node = 4\nplacement = \"spread\"\n[workflows]\npath = \"big.csv\"\n[[policy]]\nname = \"p\"\n";
    let e = parse_shared_scenario(&d.path().join("s.toml"), text, Overrides::default())
        .expect_err("9 GPUs on 8")
        .to_string();
    assert!(
        e.contains(
            "big.csv: workflow `w`, step `huge`: gpus: 9 GPUs can never fit the cluster (8 GPUs)"
        ),
        "{e}"
    );
}

#[test]
fn the_workflows_quickstart_loads_with_three_cache_rules() {
    let text =
        fs::read_to_string(repo("scenarios/shared-workflows-quickstart.toml")).expect("read");
    let s = parse_shared_scenario(
        &repo("scenarios/shared-workflows-quickstart.toml"),
        &text,
        Overrides::default(),
    )
    .expect("valid");
    let w = s.workflows.as_ref().expect("workflows");
    assert_eq!(
        w.cache_rules,
        vec![CacheRule::Off, CacheRule::Lru, CacheRule::Cost]
    );
    assert_eq!(w.trace.workflows().len(), 20);
    let sizes: Vec<u32> = w.trace.workflows().iter().map(|x| x.steps).collect();
    assert!(sizes.iter().all(|&n| (3..=8).contains(&n)), "{sizes:?}");
    assert!(w.trace.steps().iter().any(|s| s.failure_p > 0.0));
    // Shared prefixes: fewer distinct keys than keyed steps.
    let keyed = w
        .trace
        .steps()
        .iter()
        .filter(|s| s.cache_key != u32::MAX)
        .count();
    assert!(
        w.trace.cache_keys() < keyed / 2,
        "{} keys, {keyed} keyed steps",
        w.trace.cache_keys()
    );
}

fn record(submit: u64, end: u64, state: WorkflowState) -> WorkflowRecord {
    WorkflowRecord {
        submit,
        end,
        state,
        ..WorkflowRecord::default()
    }
}

/// The hand example of the figures (DESIGN §14.7, module documentation of
/// `workflows_report`). Horizon 50 s; four workflows:
/// w0 done, submit 0 s, end 10 s (makespan 10); w1 done, submit 2 s, end
/// 6 s (makespan 4); w2 failed, submit 3 s; w3 submitted at 100 s > the
/// horizon: not submitted. Submitted 3, done 2: completion 2/3.
/// Makespans sorted [4, 10]: p50 at h = 1 · 0.5 = 0.5 → 4 + 0.5 · 6 = 7 s;
/// p99 at h = 0.99 → 4 + 0.99 · 6 = 9.94 s.
/// Length L = last event 20 s − first submit 0 s = 20 s; 2 GPUs busy
/// 30 GPU-s → 30 / (2 · 20) = 0.75; 4 CPUs busy 20 CPU-s → 20 / 80 =
/// 0.25. Hits 3, misses 1 → 0.75. Bytes stored = the peak, 500.
/// Saved: w0 1.8e9 + w1 5.4e9 GPU-µs = 7.2e9 µs = 2 GPU-hours; w1
/// 3.6e9 CPU-µs = 1 CPU-hour.
#[test]
fn the_figures_of_a_run_match_the_hand_example() {
    let mut o = WorkflowOutcome {
        workflows: vec![
            record(0, 10_000_000, WorkflowState::Done),
            record(2_000_000, 6_000_000, WorkflowState::Done),
            record(3_000_000, NEVER, WorkflowState::Failed),
            record(100_000_000, NEVER, WorkflowState::Unfinished),
        ],
        busy_gpu_us: 30_000_000,
        busy_cpu_us: 20_000_000,
        end: 20_000_000,
        cache: CacheStats {
            hits: 3,
            misses: 1,
            bytes_max: 500,
            bytes_end: 100,
            ..CacheStats::default()
        },
        ..WorkflowOutcome::default()
    };
    o.workflows[0].gpu_us_saved = 1_800_000_000;
    o.workflows[1].gpu_us_saved = 5_400_000_000;
    o.workflows[1].cpu_us_saved = 3_600_000_000;
    let m = WorkflowMetrics::of(&o, 2, 4, Some(50_000_000));
    assert_eq!((m.submitted, m.done), (3, 2));
    let f = m.figures.map(|x| x.expect("defined"));
    assert_eq!(f[0], 2.0 / 3.0);
    assert!((f[1] - 7.0).abs() < 1e-12, "{}", f[1]);
    assert!((f[2] - 9.94).abs() < 1e-12, "{}", f[2]);
    assert_eq!(f[3], 0.75);
    assert_eq!(f[4], 0.25);
    assert_eq!(f[5], 0.75);
    assert_eq!(f[6], 500.0);
    assert_eq!(f[7], 2.0);
    assert_eq!(f[8], 1.0);
    assert_eq!(SUMMARY_FIGURES[0], "completion_rate");
    assert_eq!(SUMMARY_FIGURES[8], "cpu_hours_saved");
}

/// Without a horizon every workflow counts as submitted; with none done
/// the makespans are undefined, without counted CPUs (0) the CPU
/// utilisation too, and with no keyed step the hit ratio.
#[test]
fn figures_without_a_denominator_are_undefined_not_zero() {
    let o = WorkflowOutcome {
        workflows: vec![record(5_000_000, NEVER, WorkflowState::Deadline)],
        busy_gpu_us: 4_000_000,
        end: 9_000_000,
        ..WorkflowOutcome::default()
    };
    let m = WorkflowMetrics::of(&o, 1, 0, None);
    assert_eq!((m.submitted, m.done), (1, 0));
    assert_eq!(m.figures[0], Some(0.0));
    assert_eq!((m.figures[1], m.figures[2]), (None, None));
    // L = 9 − 5 = 4 s on 1 GPU, 4 GPU-s busy.
    assert_eq!(m.figures[3], Some(1.0));
    assert_eq!(m.figures[4], None);
    assert_eq!(m.figures[5], None);
    let empty = WorkflowMetrics::of(&WorkflowOutcome::default(), 1, 1, None);
    assert_eq!(empty.figures[0], None);
    assert_eq!(empty.figures[3], None, "L = 0: no utilisation");
}

/// Two policies, two repetitions each. Policy 0's completion rates 0.5
/// and 1 → mean 0.75; sample sd = √((0.25² + 0.25²) / 1) = 0.35355, its
/// standard error 0.35355 / √2 = 0.25; Student t at 95 %, 1 degree of
/// freedom, 12.7062 → band 0.75 ± 3.17655. Policy 1's CPU utilisation is
/// undefined in one repetition and 0.4 in the other → mean 0.4 over the
/// one.
#[test]
fn the_summary_is_the_mean_over_the_repetitions_where_a_figure_is_defined() {
    let mut a = WorkflowMetrics::default();
    a.figures[0] = Some(0.5);
    let mut b = WorkflowMetrics::default();
    b.figures[0] = Some(1.0);
    let mut c = WorkflowMetrics::default();
    c.figures[4] = Some(0.4);
    let d = WorkflowMetrics::default();
    let s = summarize(&["p", "q"], 0, &[(0, a), (0, b), (1, c), (1, d)], 0.95);
    let p = &s.policies[0];
    assert_eq!(p.reps, 2);
    let band = p.figures[0].expect("defined");
    assert_eq!(band.mean, 0.75);
    assert!(
        (band.high - 0.75 - 12.706_204_736 * 0.25).abs() < 1e-6,
        "{band:?}"
    );
    assert!(
        (0.75 - band.low - 12.706_204_736 * 0.25).abs() < 1e-6,
        "{band:?}"
    );
    assert_eq!(p.figures[1], None);
    let q = &s.policies[1];
    assert_eq!(q.figures[4].map(|b| (b.mean, b.n)), Some((0.4, 1)));
    let csv = s.csv();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(summary_header().trim_end()));
    assert!(lines.next().expect("p").starts_with("p,2,0.75,"));
    let q_row = lines.next().expect("q");
    assert!(q_row.starts_with("q,2,n/a,n/a,n/a,"), "{q_row}");
    assert!(q_row.contains(",0.4,"), "{q_row}");
    assert_eq!(
        summary_header().split(',').count(),
        2 + 3 * SUMMARY_FIGURES.len()
    );
    let json = s.json();
    assert_eq!(json["policies"][0]["completion_rate"]["mean"], 0.75);
    assert!(json["policies"][1]["completion_rate"].is_null());
}

/// The hand outcome of [`TRACE`] under one policy: w1 done at 40.5 s
/// after a retry of `b` split in two parts, `a` a hit; w2 failed.
fn hand_outcome() -> WorkflowOutcome {
    let mut w1 = record(0, 40_500_000, WorkflowState::Done);
    w1.retries = 1;
    w1.cache_hits = 1;
    w1.gpu_us = 61_500_001;
    w1.cpu_us = 20_000_000;
    w1.gpu_us_saved = 10_000_000;
    w1.cpu_us_saved = 20_000_000;
    let w2 = record(5_000_000, NEVER, WorkflowState::Failed);
    let step = |ready, start, end, state, attempts, parts| StepRecord {
        ready,
        start,
        end,
        state,
        attempts,
        parts,
    };
    let job = |step, attempt, part, start, end, failed| AttemptJob {
        step,
        attempt,
        part,
        submit: 1_000_000,
        start,
        end,
        gpus: 2,
        cpus: 0,
        failed,
        withdrawn: false,
    };
    WorkflowOutcome {
        workflows: vec![w1, w2],
        steps: vec![
            step(0, NEVER, 1_000_000, StepState::Hit, 0, 1),
            step(12_000_000, 12_000_000, 22_000_000, StepState::Done, 2, 2),
            step(1_000_000, 1_000_000, 6_000_000, StepState::Done, 1, 1),
            step(22_000_000, 22_000_000, 40_500_000, StepState::Done, 1, 1),
            step(5_000_000, NEVER, NEVER, StepState::NotDone, 0, 1),
        ],
        jobs: vec![
            job(1, 0, 0, 1_000_000, 11_000_000, true),
            job(1, 1, 0, 12_000_000, 22_000_000, false),
            job(1, 1, 1, 12_000_000, 21_000_000, false),
            job(4, 0, 0, NEVER, NEVER, false),
        ],
        ..WorkflowOutcome::default()
    }
}

/// The rows `write` puts in a spool (written row by row, as a fold
/// writes them), read back from the file the spool is copied to.
fn spooled(
    write: impl FnOnce(&mut tenantsim::core::io::spool::Spool) -> tenantsim::core::error::Result<()>,
) -> String {
    let mut spool = tenantsim::core::io::spool::Spool::new("rows.csv", "").expect("a spool");
    write(&mut spool).expect("rows written");
    spool.finish().expect("flushed");
    let d = tmp();
    let path = d.path().join("rows.csv");
    spool.copy_to(&path).expect("copied");
    fs::read_to_string(&path).expect("read back")
}

#[test]
fn workflows_csv_has_one_row_per_workflow_with_exact_seconds() {
    let d = tmp();
    let s = scenario(
        d.path(),
        "[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"a,b\"\n",
    )
    .expect("valid");
    let out = spooled(|spool| workflows_rows(spool, &s, 0, 3, &hand_outcome()));
    assert_eq!(
        out,
        "\"a,b\",3,w1,t,0.000000,40.500000,done,1,1,61.500001,20.000000,10.000000,20.000000\n\
         \"a,b\",3,w2,u,5.000000,,failed,0,0,0.000000,0.000000,0.000000,0.000000\n"
    );
}

#[test]
fn steps_csv_leaves_times_that_never_came_empty() {
    let d = tmp();
    let s = scenario(d.path(), MINIMAL).expect("valid");
    let out = spooled(|spool| steps_rows(spool, &s, 0, 0, &hand_outcome()));
    assert_eq!(
        out,
        "p,0,w1,a,0.000000,,1.000000,hit,0,1\n\
         p,0,w1,b,12.000000,12.000000,22.000000,done,2,2\n\
         p,0,w1,c,1.000000,1.000000,6.000000,done,1,1\n\
         p,0,w1,d,22.000000,22.000000,40.500000,done,1,1\n\
         p,0,w2,x,5.000000,,,not-done,0,1\n"
    );
}

/// `job_id` = `<workflow>/<step>`, `#<attempt>` for a retry, `.<part>`
/// for a sub-job of a split attempt (DESIGN §14.7); job mode's columns.
#[test]
fn jobs_csv_names_each_attempt_and_part_in_job_modes_columns() {
    assert_eq!(attempt_job_id("w", "s", 0, 0, false), "w/s");
    assert_eq!(attempt_job_id("w", "s", 2, 0, false), "w/s#2");
    assert_eq!(attempt_job_id("w", "s", 1, 3, true), "w/s#1.3");
    assert_eq!(attempt_job_id("w", "s", 0, 0, true), "w/s.0");
    let d = tmp();
    let s = scenario(d.path(), MINIMAL).expect("valid");
    let out = spooled(|spool| jobs_rows(spool, &s, 0, 1, &hand_outcome()));
    assert_eq!(
        out,
        "p,1,w1/b,t,1.000000,1.000000,11.000000,2\n\
         p,1,w1/b#1.0,t,1.000000,12.000000,22.000000,2\n\
         p,1,w1/b#1.1,t,1.000000,12.000000,21.000000,2\n\
         p,1,w2/x,u,1.000000,,,2\n"
    );
    assert_eq!(
        tenantsim::shared::workflows_report::JOBS_HEADER,
        "policy,rep,job_id,user,submit_s,start_s,end_s,gpus\n",
        "job mode's jobs.csv columns"
    );
}

#[test]
fn the_identity_holds_the_workflow_trace() {
    let (d1, d2) = (tmp(), tmp());
    let a = scenario(d1.path(), MINIMAL).expect("valid");
    let b = scenario(d2.path(), MINIMAL).expect("valid");
    let mode = SharedMode::default();
    // Same file text, same trace bytes (the paths differ only by folder,
    // and the resolved file holds the relative path): same identity.
    assert_eq!(
        mode.identity(&a).task_keys(false).key(0),
        mode.identity(&b).task_keys(false).key(0)
    );
    fs::write(
        d2.path().join("w.csv"),
        TRACE.replace(",3,1,1,kx", ",4,1,1,kx"),
    )
    .expect("write");
    let text = fs::read_to_string(d2.path().join("s.toml")).expect("read");
    let c = parse_shared_scenario(&d2.path().join("s.toml"), &text, Overrides::default())
        .expect("valid");
    assert_ne!(
        mode.identity(&a).task_keys(false).key(0),
        mode.identity(&c).task_keys(false).key(0)
    );
}

#[test]
fn a_runs_encoding_carries_the_workflows_and_refuses_another_scenario() {
    let d = tmp();
    let s = scenario(d.path(), MINIMAL).expect("valid");
    let run = SharedRun {
        policy: 0,
        rep: 2,
        service: None,
        background: None,
        shares: Default::default(),
        segments: Default::default(),
        workflows: Some(hand_outcome()),
        cpus: 16,
    };
    let mut bytes = Vec::new();
    encode_shared_run(&run, &mut bytes).expect("encode");
    let back = decode_shared_run(&s, &bytes).expect("decode");
    assert_eq!((back.policy, back.rep, back.cpus), (0, 2, 16));
    let (o, h) = (back.workflows.expect("workflows"), hand_outcome());
    assert_eq!(o.workflows, h.workflows);
    assert_eq!(o.steps, h.steps);
    assert_eq!(o.jobs, h.jobs);
    let mut again = Vec::new();
    let rerun = SharedRun {
        workflows: Some(o),
        ..run
    };
    encode_shared_run(&rerun, &mut again).expect("encode");
    assert_eq!(bytes, again, "decode then encode gives the same bytes");
    // A scenario without workflows refuses it.
    let other = tmp();
    fs::write(other.path().join("jobs.csv"), "").expect("write");
    let jobs_only = parse_shared_scenario(
        &repo("scenarios/x.toml"),
        "mode = \"shared\"\nname = \"t\"\n[cluster]\nnodes = 2\ngpus_per_node = 4\n[jobs]\npath = \"../traces/jobs-hand.csv\"\n[[policy]]\nname = \"p\"\n",
        Overrides::default(),
    )
    .expect("valid");
    assert!(decode_shared_run(&jobs_only, &bytes).is_err());
}

// End-to-end: these need the workflow workload (`simulate_shared` with
// `SharedInput.workflows`, issue 30), built beside this part.

#[test]
fn the_workflows_quickstart_writes_the_workflows_folder() {
    let out = tmp();
    let dir = out.path().join("r");
    tenantsim()
        .args([
            "run",
            "scenarios/shared-workflows-quickstart.toml",
            "--jobs",
            "--out",
        ])
        .arg(&dir)
        .current_dir(repo(""))
        .assert()
        .success();
    for f in ["workflows.csv", "summary.csv", "steps.csv", "jobs.csv"] {
        assert!(dir.join("workflows").join(f).is_file(), "{f}");
    }
    let rows = fs::read_to_string(dir.join("workflows/workflows.csv")).expect("read");
    // 20 workflows × 3 policies × 3 repetitions, plus the header.
    assert_eq!(rows.lines().count(), 1 + 20 * 3 * 3);
    let summary = fs::read_to_string(dir.join("workflows/summary.csv")).expect("read");
    assert!(summary.starts_with(summary_header().trim_end()));
    // Cache off never hits; the run's own rows agree with its summary.
    assert!(
        rows.lines()
            .filter(|l| l.starts_with("no-cache,"))
            .all(|l| l.split(',').nth(8) == Some("0"))
    );
    let manifest = fs::read_to_string(dir.join("run.json")).expect("read");
    assert!(manifest.contains("\"folder\": \"workflows\""));
}

#[test]
fn workflows_results_are_the_same_on_1_and_2_threads_in_shards_and_from_the_cache() {
    let out = tmp();
    let run = |name: &str, extra: &[&str]| {
        let dir = out.path().join(name);
        tenantsim()
            .args([
                "run",
                "scenarios/shared-workflows-quickstart.toml",
                "--jobs",
                "--out",
            ])
            .arg(&dir)
            .args(extra)
            .current_dir(repo(""))
            .assert()
            .success();
        dir
    };
    let one = run("one", &["--threads", "1"]);
    let two = run("two", &["--threads", "2"]);
    let cache = out.path().join("cache");
    let cached1 = run("c1", &["--cache", cache.to_str().unwrap_or("cache")]);
    let cached2 = run("c2", &["--cache", cache.to_str().unwrap_or("cache")]);
    for f in ["workflows.csv", "summary.csv", "steps.csv", "jobs.csv"] {
        let read = |d: &Path| fs::read(d.join("workflows").join(f)).expect("read");
        assert_eq!(read(&one), read(&two), "{f}: 1 vs 2 threads");
        assert_eq!(read(&one), read(&cached1), "{f}: cache filled");
        assert_eq!(read(&one), read(&cached2), "{f}: from the cache");
    }
}

#[test]
fn a_sweep_of_workflows_load_has_workflows_columns() {
    let d = tmp();
    fs::write(d.path().join("w.csv"), TRACE).expect("write");
    let path = d.path().join("s.toml");
    fs::write(
        &path,
        "mode = \"shared\"\nname = \"t\"\n[cluster]\nnodes = 2\ngpus_per_node = 4\n[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"p\"\n[sweep]\n\"workflows.load\" = [1, 2]\n",
    )
    .expect("write");
    let out = d.path().join("r");
    tenantsim()
        .args(["run"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let sweep = fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    assert!(
        sweep.starts_with("point,folder,workflows.load,policy,baseline,completion_rate,"),
        "{sweep}"
    );
    assert_eq!(sweep.lines().count(), 3);
}

/// `--json` of a workflows-only scenario: the common keys are the
/// workflows' (DESIGN §13.5: the service's, else the background's, else
/// the workflows'): 2 repetitions, the baseline `p` (the first policy),
/// the two policies in order with their figures, no thresholds.
#[test]
fn json_of_a_workflows_only_scenario_takes_its_common_keys_from_the_workflows() {
    let d = tmp();
    fs::write(d.path().join("w.csv"), TRACE).expect("write");
    let path = d.path().join("s.toml");
    fs::write(
        &path,
        "mode = \"shared\"\nname = \"t\"\nrepetitions = 2\n[cluster]\nnodes = 2\ngpus_per_node = 4\n[workflows]\npath = \"w.csv\"\n[[policy]]\nname = \"p\"\n[[policy]]\nname = \"q\"\ncache = \"lru\"\n",
    )
    .expect("write");
    let out = tenantsim()
        .args(["run"])
        .arg(&path)
        .arg("--out")
        .arg(d.path().join("r"))
        .args(["--json", "--quiet", "--no-plots"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["repetitions"], 2, "{doc}");
    assert_eq!(doc["baseline"], "p");
    assert_eq!(doc["confidence"], doc["workflows"]["confidence"]);
    assert!(doc["thresholds"].is_null());
    assert_eq!(doc["policies"], doc["workflows"]["policies"]);
    let names: Vec<_> = doc["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .map(|p| p["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["p", "q"]);
    assert_eq!(doc["policies"][0]["reps"], 2);
    // The hand trace's 2 workflows all finish: completion 1 in each run.
    assert_eq!(doc["policies"][0]["completion_rate"]["mean"], 1.0);
    assert!(doc["service"].is_null() && doc["background"].is_null());
}

/// Run the workflows quickstart (2 repetitions, no figures) into `dir`.
fn run_quickstart(dir: &Path) {
    tenantsim()
        .args([
            "run",
            "scenarios/shared-workflows-quickstart.toml",
            "--reps",
            "2",
            "--quiet",
            "--no-plots",
            "--out",
        ])
        .arg(dir)
        .current_dir(repo(""))
        .assert()
        .success();
}

/// `check` of a shared folder with `workflows/` (DESIGN §13.5, §14.7):
/// a rerun matches its golden (3 policies × 27 figure columns = 81
/// values); setting the golden's first `completion_rate` to 0.5 against
/// a run's 1 is drift of |1 − 0.5| / 0.5 = 1 in exactly that cell, named
/// by policy, `reps` and metric, and the command fails naming
/// `workflows/`. `--stat` refuses a workflows-only folder (its summary
/// holds means, not repetitions) rather than pass having checked nothing.
#[test]
fn check_compares_the_workflows_summary_against_the_goldens() {
    let d = tmp();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    run_quickstart(&a);
    run_quickstart(&b);
    let ok = tenantsim()
        .args(["check"])
        .arg(&a)
        .arg("--against")
        .arg(&b)
        .output()
        .expect("check");
    let err = String::from_utf8_lossy(&ok.stderr);
    assert!(ok.status.success(), "{err}");
    assert!(err.starts_with("workflows/:\nok: 81 values of "), "{err}");
    let golden = b.join("workflows/summary.csv");
    let text = fs::read_to_string(&golden).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cells: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(&cells[..3], ["no-cache", "2", "1"], "{}", lines[1]);
    cells[2] = "0.5";
    lines[1] = cells.join(",");
    fs::write(&golden, lines.join("\n") + "\n").expect("write");
    let bad = tenantsim()
        .args(["check"])
        .arg(&a)
        .arg("--against")
        .arg(&b)
        .output()
        .expect("check");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    let table: Vec<&str> = err.lines().skip(1).take(2).collect();
    assert_eq!(
        table,
        [
            "policy    rep  metric           got  golden  rel_dev",
            "no-cache  2    completion_rate  1    0.5     1.000e0",
        ],
        "{err}"
    );
    assert!(err.contains("drift: 1 of 81 values drifted"), "{err}");
    assert!(
        err.trim_end()
            .ends_with(&format!("error: drift in workflows/ of {}", a.display())),
        "{err}"
    );
    let stat = tenantsim()
        .args(["check", "--stat"])
        .arg(&a)
        .arg("--against")
        .arg(&b)
        .output()
        .expect("check");
    assert!(!stat.status.success());
    assert!(
        String::from_utf8_lossy(&stat.stderr).contains("check it without --stat"),
        "{}",
        String::from_utf8_lossy(&stat.stderr)
    );
}

/// A shared folder holding only `workflows/` (a hand `summary.csv` of
/// two policies: `a` with completion 0.75 [0.5, 1] and makespan p50
/// 120 s; `b` with completion 1 and everything else `n/a`).
fn hand_workflows_folder(dir: &Path) {
    fs::create_dir_all(dir.join("workflows")).expect("mkdir");
    fs::write(dir.join("shares.csv"), "policy,rep,time_s,workload,gpus\n").expect("write");
    let mut a = String::from("a,2,0.75,0.5,1,120,100,140");
    let mut b = String::from("b,2,1,1,1");
    for _ in 0..7 * 3 {
        a.push_str(",n/a");
    }
    for _ in 0..8 * 3 {
        b.push_str(",n/a");
    }
    fs::write(
        dir.join("workflows/summary.csv"),
        format!("{}{a}\n{b}\n", summary_header()),
    )
    .expect("write");
}

/// `table` of a shared folder with `workflows/` prints its table under
/// `workflows/`: by default completion, makespan p50, GPU and CPU
/// utilisation (the hand summary's means as written, `n/a` kept);
/// `--metric` picks figures, each with its interval [low, high]; an
/// unknown figure is an error listing the known ones.
#[test]
fn table_shows_the_workflows_summary_under_its_folder() {
    let d = tmp();
    hand_workflows_folder(d.path());
    let table = |extra: &[&str]| {
        tenantsim()
            .args(["table"])
            .arg(d.path())
            .args(["--format", "csv"])
            .args(extra)
            .output()
            .expect("table")
    };
    let out = table(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "# workflows/\n\
         policy,completion,makespan p50 (s),GPU util,CPU util\n\
         a,0.75,120,n/a,n/a\n\
         b,1,n/a,n/a,n/a\n"
    );
    let out = table(&["--metric", "completion_rate"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "# workflows/\n\
         policy,completion,completion CI low,completion CI high\n\
         a,0.75,0.5,1\n\
         b,1,1,1\n"
    );
    let bad = table(&["--metric", "nope"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains(
            "--metric nope: not a workflows summary.csv figure (choose from: completion_rate,"
        ),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// `report` of a workflows-only shared folder shows the workflows'
/// table with every figure of `summary.csv` (nine, each with its
/// interval) and their figures; `compare` of it refuses with a reason
/// (the summary holds means, not the per-repetition rows compare
/// resamples) instead of comparing nothing.
#[test]
fn report_shows_and_compare_refuses_a_workflows_only_folder() {
    let d = tmp();
    let a = d.path().join("a");
    run_quickstart(&a);
    let html = d.path().join("r.html");
    tenantsim()
        .args(["report"])
        .arg(&a)
        .arg("--out")
        .arg(&html)
        .assert()
        .success();
    let text = fs::read_to_string(&html).expect("read");
    for th in [
        "<th class=\"num\">completion</th>",
        "<th class=\"num\">CPU util CI</th>",
        "<th class=\"num\">hit ratio</th>",
        "<th class=\"num\">CPU-h saved CI</th>",
    ] {
        assert!(text.contains(th), "{th}");
    }
    assert_eq!(text.matches("<th class=\"num\">").count(), 18);
    let out = tenantsim()
        .args(["compare"])
        .arg(&a)
        .arg(&a)
        .output()
        .expect("compare");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "a shared folder with only workflows/, whose summary.csv holds means over repetitions"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 30's identity, as files: caching off, failures off and one
/// workflow of independent steps give, in `workflows/jobs.csv`, the bytes
/// of job mode's `jobs.csv` on the same jobs (ids `<workflow>/<step>`,
/// the tenant as the user, the workflow's submit time, the steps' GPUs
/// and run times), under a non-preemptive and a preemptive scheduler, on
/// a cluster where the steps must queue. (The engine-level identity over
/// random cases is `independent_steps_without_cache_or_failures_are_job_mode`.)
#[test]
fn one_workflow_of_independent_steps_without_cache_or_failures_writes_job_modes_job_log() {
    let d = tmp();
    let steps = [
        ("a", 30.0, 2),
        ("b", 10.0, 1),
        ("c", 20.5, 2),
        ("d", 5.0, 2),
        ("e", 12.25, 1),
    ];
    let mut wf = String::from(
        "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes\n",
    );
    let mut jobs = String::from("job_id,user,submit_s,duration_s,gpus\n");
    for (s, rt, g) in steps {
        wf.push_str(&format!("w,u,7,{s},,{rt},{g},0,key-{s},100\n"));
        jobs.push_str(&format!("w/{s},u,7,{rt},{g}\n"));
    }
    fs::write(d.path().join("w.csv"), wf).expect("write");
    fs::write(d.path().join("j.csv"), jobs).expect("write");
    for sched in ["fifo", "srtf"] {
        let cluster = format!("[cluster]\nnodes = 2\ngpus_per_node = 2\nscheduler = \"{sched}\"\n");
        fs::write(
            d.path().join("s.toml"),
            format!(
                "mode = \"shared\"\nname = \"w\"\nseed = 5\nrepetitions = 2\n{cluster}\n\
                 [workflows]\npath = \"w.csv\"\n\n[[policy]]\nname = \"p\"\ncache = \"off\"\n"
            ),
        )
        .expect("write");
        fs::write(
            d.path().join("j.toml"),
            format!(
                "mode = \"jobs\"\nname = \"j\"\nseed = 5\nrepetitions = 2\n\
                 [cluster]\nnodes = 2\ngpus_per_node = 2\n\n[jobs]\npath = \"j.csv\"\n\n\
                 [[policy]]\nname = \"p\"\nscheduler = \"{sched}\"\n"
            ),
        )
        .expect("write");
        let (ws, js) = (
            d.path().join(format!("ws-{sched}")),
            d.path().join(format!("js-{sched}")),
        );
        for (toml, out) in [("s.toml", &ws), ("j.toml", &js)] {
            tenantsim()
                .args(["run", "--jobs", "--quiet", "--out"])
                .arg(out)
                .arg(d.path().join(toml))
                .assert()
                .success();
        }
        let wf_log = fs::read(ws.join("workflows/jobs.csv")).expect("read");
        let job_log = fs::read(js.join("jobs.csv")).expect("read");
        assert_eq!(
            String::from_utf8_lossy(&wf_log),
            String::from_utf8_lossy(&job_log),
            "under {sched}"
        );
        // The steps did queue: some start after the submit time.
        assert!(
            String::from_utf8_lossy(&job_log)
                .lines()
                .skip(1)
                .any(|l| l.split(',').nth(5) != Some("7.000000")),
            "under {sched}: every step started at once"
        );
    }
}

/// `[workflows] failure_p` replaces every step's probability (DESIGN
/// §14.4), so a sweep can vary the failure rate of a whole trace. With no
/// retry, workflow `w2` of [`TRACE`] (one step, its own probability 0)
/// fails exactly when its first attempt's draw u, taken here straight
/// from the stream (seed, rep, failure, workflow 1, step 0, attempt 0),
/// is below the key's 0.5; at 0 every workflow is done, though step `b`'s
/// own probability is 0.1; outside [0, 1) the key is refused.
#[test]
fn workflows_failure_p_replaces_every_steps_probability() {
    use tenantsim::core::sim::rng::{Purpose, stream_for, unit};
    use tenantsim::shared::run::simulate_shared_run;
    let runs = |p: &str| -> Vec<Vec<WorkflowState>> {
        let d = tmp();
        let s = scenario(
            d.path(),
            &format!("[workflows]\npath = \"w.csv\"\nfailure_p = {p}\n[[policy]]\nname = \"p\"\n"),
        )
        .expect("valid");
        assert_eq!(
            s.workflows.as_ref().expect("workflows").failure_p,
            Some(p.parse::<f64>().expect("a number"))
        );
        (0..12)
            .map(|rep| {
                let run = simulate_shared_run(&s, rep, 0, false).expect("runs");
                run.workflows
                    .expect("workflows")
                    .workflows
                    .iter()
                    .map(|r| r.state)
                    .collect()
            })
            .collect()
    };
    let half = runs("0.5");
    let mut seen = [false; 2];
    for (rep, states) in half.iter().enumerate() {
        let u = unit(&mut stream_for(0, rep as u64, Purpose::Failure, &[1, 0, 0]));
        let fails = u < 0.5;
        seen[usize::from(fails)] = true;
        let want = if fails {
            WorkflowState::Failed
        } else {
            WorkflowState::Done
        };
        assert_eq!(states[1], want, "repetition {rep}, u = {u}");
    }
    assert_eq!(seen, [true, true], "both outcomes occur");
    assert!(
        runs("0")
            .iter()
            .flatten()
            .all(|&s| s == WorkflowState::Done)
    );
    let d = tmp();
    let e = scenario(
        d.path(),
        "[workflows]\npath = \"w.csv\"\nfailure_p = 1\n[[policy]]\nname = \"p\"\n",
    )
    .expect_err("refused")
    .to_string();
    assert!(
        e.contains("[workflows].failure_p: expected a probability in [0, 1)"),
        "{e}"
    );
}
