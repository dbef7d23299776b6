//! The engine against job mode (DESIGN §13.2): a shared run with no
//! service is job mode's run, segment for segment, on every bundled job
//! scenario. (Model mode's side is `cases.rs`'s property test and, file by
//! file on every bundled scenario, `tests/it/shared_mode.rs`.)

use std::path::{Path, PathBuf};

use super::*;
use crate::core::io::scenario::Overrides;
use crate::core::run::sweep::Plan;
use crate::core::testing::scenario_data;
use crate::jobs::sim::{JobOutcome, JobSimInput, SchedInit, SimTypes};
use crate::jobs::sim::{simulate_jobs, simulate_jobs_in_rounds};

fn bundled(mode_jobs: bool) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let is_jobs = text
                .lines()
                .any(|l| l.trim_start().starts_with("mode") && l.contains("\"jobs\""));
            let is_shared = text
                .lines()
                .any(|l| l.trim_start().starts_with("mode") && l.contains("\"shared\""));
            !is_shared && is_jobs == mode_jobs
        })
        .collect();
    out.sort();
    out
}

fn points<S>(plan: Plan<S>) -> Vec<S> {
    match plan {
        Plan::Single(s) => vec![*s],
        Plan::Sweep { points, .. } => points.into_iter().map(|p| p.scenario).collect(),
    }
}

fn same_jobs(a: &JobOutcome, b: &JobOutcome, what: &str) {
    assert_eq!(a.first_start, b.first_start, "{what}: first start");
    assert_eq!(a.end, b.end, "{what}: end");
    assert_eq!(a.preemptions, b.preemptions, "{what}: preemptions");
    assert_eq!(a.segments, b.segments, "{what}: segments");
    assert_eq!(a.segment_allocs, b.segment_allocs, "{what}: allocations");
    assert_eq!(a.events, b.events, "{what}: events");
    assert_eq!(a.end_time, b.end_time, "{what}: end time");
    assert_eq!(a.gpu_type, b.gpu_type, "{what}: gpu types");
    assert_eq!(a.gpus_by_type, b.gpus_by_type, "{what}: gpus by type");
}

#[test]
fn every_bundled_job_scenario_runs_the_same_as_a_background_alone() {
    let mut checked = 0;
    for path in bundled(true) {
        if !scenario_data(&path) {
            continue;
        }
        let plan = crate::jobs::scenario::load_job_plan(&path, Overrides::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for s in points(plan) {
            for (policy, p) in s.policies.iter().enumerate() {
                let jobs = s.rep_jobs(0);
                let users = s.trace.users().len();
                let node_types = s.cluster.node_types();
                let input = JobSimInput {
                    jobs: &jobs.jobs,
                    users,
                    nodes: &s.nodes,
                    cpus: &[],
                    placement: s.placement,
                    backfill: p.backfill,
                    restart_overhead: s.restart_overhead,
                    record_allocations: true,
                    types: jobs.types.as_ref().map(|t| SimTypes {
                        node_types: &node_types,
                        jobs: t,
                        policy: p.type_policy,
                    }),
                };
                let init = SchedInit {
                    jobs: &jobs.jobs,
                    users,
                    seed: s.seed(),
                    repetition: 0,
                };
                let mut sched = (p.make)(&init).expect("scheduler");
                let alone = match s.round {
                    None => simulate_jobs(&input, sched.as_mut()),
                    Some(r) => simulate_jobs_in_rounds(&input, r, sched.as_mut()),
                }
                .expect("job mode runs");
                let typed = jobs.types.is_some();
                let shared = SharedInput {
                    cluster: ClusterInput {
                        nodes: &s.nodes,
                        cpus: &[],
                        node_types: if typed { &node_types } else { &[] },
                        types: jobs.types.as_ref().map_or(1, |t| t.types()),
                        placement: s.placement,
                        backfill: p.backfill,
                        restart_overhead: s.restart_overhead,
                        round: s.round,
                        record_allocations: true,
                    },
                    background: Some(BackgroundInput {
                        jobs: &jobs.jobs,
                        users,
                        types: jobs.types.as_ref(),
                        type_policy: p.type_policy,
                    }),
                    service: None,
                    workflows: None,
                };
                let out =
                    simulate_shared(&shared, &p.make, s.seed(), 0, None).expect("shared runs");
                let bg = out.background.expect("a background outcome");
                same_jobs(&alone, &bg, &format!("{} policy {policy}", path.display()));
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} runs compared");
}
