//! The steppable job engine (issue 31, DESIGN §15.5): a job-mode run driven
//! one decision at a time by the scheduler's own choices is the batch run;
//! a fork continued by the same policy is the unforked run; a choice that
//! breaks the rules is refused and changes nothing; a different choice
//! gives the hand-computed result.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use tenantsim::core::io::cluster::GpuType;
use tenantsim::jobs::episode::{job_episode, job_episode_run, write_job_episode};
use tenantsim::jobs::run::simulate_job_run;
use tenantsim::jobs::scenario::{JobScenario, load_job_scenario};
use tenantsim::jobs::sim::{
    JobChoice, JobOutcome, JobSimInput, JobStepper, JobTypes, Placement, SchedInit, SimTypes,
    simulate_jobs, simulate_jobs_in_rounds,
};
use tenantsim::jobs::trace::Job;

use crate::common::{assert_same_result_files, bundled_tables, repo, tenantsim};

/// Every bundled job-mode scenario without a sweep (`jobs-*`, `gavel-*`:
/// their traces are bundled in traces/).
fn job_scenarios() -> Vec<PathBuf> {
    let out: Vec<PathBuf> = bundled_tables()
        .into_iter()
        .filter(|(_, t)| {
            t.get("mode").and_then(toml::Value::as_str) == Some("jobs") && !t.contains_key("sweep")
        })
        .map(|(p, _)| p)
        .collect();
    assert!(out.len() >= 5, "only {} job scenarios", out.len());
    out
}

/// An outcome without its measurement (the policy clock), as JSON.
fn comparable(o: &JobOutcome) -> Value {
    let mut v = serde_json::to_value(o).expect("serialises");
    v.as_object_mut().expect("an object").remove("policy_clock");
    v
}

/// The first `k` jobs of repetition 0 of `sc` (a cut keeps debug-build
/// tests fast), with their types.
fn first_jobs(sc: &JobScenario, k: usize) -> (Vec<Job>, Option<JobTypes>) {
    let rep = sc.rep_jobs(0);
    let k = k.min(rep.jobs.len());
    let types = rep.types.as_ref().map(|t| {
        let allowed = (0..k).map(|j| t.allowed(j)).collect();
        let duration = (0..k)
            .flat_map(|j| (0..t.types()).map(move |x| t.duration(j, x as GpuType)))
            .collect();
        JobTypes::new(t.types(), allowed, duration)
    });
    (rep.jobs[..k].to_vec(), types)
}

/// The batch outcome of policy `p` of `sc` on `jobs`, and a stepper for
/// the same run (set up as `simulate_job_run` sets the batch run up).
fn batch_and_stepper<'a>(
    sc: &'a JobScenario,
    jobs: &'a [Job],
    types: Option<&'a JobTypes>,
    node_types: &'a [GpuType],
    p: usize,
) -> (JobOutcome, JobStepper<'a>) {
    let pol = &sc.policies[p];
    let users = sc.trace.users().len();
    let make = || {
        (pol.make)(&SchedInit {
            jobs,
            users,
            seed: sc.seed(),
            repetition: 0,
        })
        .expect("the scheduler builds")
    };
    let input = JobSimInput {
        jobs,
        users,
        nodes: &sc.nodes,
        cpus: &sc.cpus,
        placement: sc.placement,
        backfill: pol.backfill,
        restart_overhead: sc.restart_overhead,
        record_allocations: false,
        types: types.map(|t| SimTypes {
            node_types,
            jobs: t,
            policy: pol.type_policy,
        }),
    };
    let mut batch = make();
    let outcome = match sc.round {
        None => simulate_jobs(&input, batch.as_mut()),
        Some(round) => simulate_jobs_in_rounds(&input, round, batch.as_mut()),
    }
    .expect("batch run");
    let run = JobStepper::new(&input, sc.round, make()).expect("a stepper");
    (outcome, run)
}

/// Step `run` to its end with the policy's choices, forking at the
/// decisions numbered in `fork_at`; the decisions taken and the forks.
fn follow<'a>(run: &mut JobStepper<'a>, fork_at: &[usize]) -> (usize, Vec<JobStepper<'a>>) {
    let (mut n, mut forks) = (0, Vec::new());
    while let Some(choice) = run.next_decision().expect("steps").map(|p| p.policy_choice) {
        if fork_at.contains(&n) {
            forks.push(run.fork().expect("forks"));
        }
        run.decide(choice.expect("the scheduler advises"))
            .expect("the policy's choice is taken");
        n += 1;
    }
    assert!(!run.is_detached());
    (n, forks)
}

#[test]
fn every_bundled_job_scenario_stepped_by_its_policies_is_the_batch_run_and_so_are_its_forks() {
    let (mut checked, mut preempting, mut uncut) = (0, 0, 0);
    for path in job_scenarios() {
        let sc = load_job_scenario(&path, Default::default()).expect("a bundled scenario loads");
        let node_types = sc.cluster.node_types();
        // The gavel traces are cut to their first 40 jobs (500 in full:
        // seconds per policy in a debug build).
        let (jobs, types) = first_jobs(&sc, 40);
        if jobs.len() == sc.rep_jobs(0).jobs.len() {
            // Uncut: the scenario's own runs, batch and stepped
            // (`job_episode`, which owns its jobs).
            for p in 0..sc.policies.len() {
                let mut episode = job_episode(&sc, 0, p).expect("an episode");
                follow(&mut episode, &[]);
                assert_eq!(
                    comparable(&simulate_job_run(&sc, 0, p).expect("runs").outcome),
                    comparable(&episode.into_outcome().expect("ended")),
                    "{} / {}",
                    path.display(),
                    sc.policies[p].name
                );
                uncut += 1;
            }
        }
        for p in 0..sc.policies.len() {
            let what = format!("{} / {}", path.display(), sc.policies[p].name);
            let (batch, mut run) = batch_and_stepper(&sc, &jobs, types.as_ref(), &node_types, p);
            let (n, forks) = follow(&mut run, &[0, 4, 9, 60, 400]);
            assert!(forks.len() >= 3, "{what}: only {n} decisions");
            let stepped = run.into_outcome().expect("ended");
            assert_eq!(comparable(&stepped), comparable(&batch), "{what}");
            for (k, mut f) in forks.into_iter().enumerate() {
                follow(&mut f, &[]);
                let continued = f.into_outcome().expect("fork ended");
                assert_eq!(
                    comparable(&continued),
                    comparable(&batch),
                    "{what}: fork {k}"
                );
            }
            checked += 1;
            preempting += usize::from(batch.preemptions.iter().any(|&x| x > 0));
        }
    }
    // The replay of tentative preemptions (srtf, las) and final ones
    // (max-min-fairness) is exercised.
    assert!(preempting >= 3, "only {preempting} runs preempt");
    assert!(uncut >= 7, "only {uncut} uncut runs");
    assert!(checked >= 12, "only {checked} (scenario, policy) pairs");
}

/// Two 1-GPU jobs submitted at 0 on a 1-GPU cluster: A (index 0) runs
/// 10 s, B (index 1) 2 s.
fn two_jobs() -> Vec<Job> {
    let s = 1_000_000;
    vec![
        Job {
            submit: 0,
            duration: 10 * s,
            gpus: 1,
            user: 0,
            cpus: 0,
        },
        Job {
            submit: 0,
            duration: 2 * s,
            gpus: 1,
            user: 0,
            cpus: 0,
        },
    ]
}

fn fifo_stepper(jobs: &[Job]) -> JobStepper<'_> {
    let sc = load_job_scenario(&repo("scenarios/jobs-quickstart.toml"), Default::default())
        .expect("loads");
    assert_eq!(sc.policies[0].name, "fifo");
    let scheduler = (sc.policies[0].make)(&SchedInit {
        jobs,
        users: 1,
        seed: 0,
        repetition: 0,
    })
    .expect("builds");
    let input = JobSimInput {
        jobs,
        users: 1,
        nodes: &[1],
        cpus: &[],
        placement: Placement::Consolidate,
        backfill: false,
        restart_overhead: 0,
        record_allocations: false,
        types: None,
    };
    JobStepper::new(&input, None, scheduler).expect("a stepper")
}

#[test]
fn starting_the_second_waiting_job_first_gives_the_hand_computed_completions() {
    let s = 1_000_000;
    let jobs = two_jobs();
    // FIFO: A on [0, 10), B on [10, 12).
    let mut run = fifo_stepper(&jobs);
    let first = run
        .next_decision()
        .expect("steps")
        .cloned()
        .expect("a decision");
    assert_eq!(
        (first.now, first.waiting.clone(), first.free_gpus),
        (0, vec![0, 1], 1)
    );
    assert_eq!(first.policy_choice, Some(JobChoice::Start(0)));
    follow(&mut run, &[]);
    let fifo = run.into_outcome().expect("ended");
    assert_eq!(fifo.end, vec![10 * s, 12 * s]);
    // B first: B on [0, 2), then the only choice left, A on [2, 12).
    let mut run = fifo_stepper(&jobs);
    run.next_decision().expect("steps");
    run.decide(JobChoice::Start(1)).expect("B fits");
    assert!(run.is_detached());
    let mut decisions = Vec::new();
    while let Some(point) = run.next_decision().expect("steps").cloned() {
        assert_eq!(point.policy_choice, None, "the scheduler is detached");
        let choice = match point.waiting.first() {
            Some(&j) if point.free_gpus > 0 => JobChoice::Start(j),
            _ => JobChoice::EndPass,
        };
        decisions.push((point.now, choice));
        run.decide(choice).expect("a valid choice");
    }
    assert_eq!(
        decisions,
        vec![
            (0, JobChoice::EndPass),
            // Then nothing waits: the pass ends without a decision.
            (2 * s, JobChoice::Start(0)),
        ]
    );
    let swapped = run.into_outcome().expect("ended");
    assert_eq!(swapped.end, vec![12 * s, 2 * s]);
    assert_eq!(swapped.first_start, vec![2 * s, 0]);
}

#[test]
fn an_episode_names_a_policy_out_of_range() {
    let sc = load_job_scenario(&repo("scenarios/jobs-quickstart.toml"), Default::default())
        .expect("loads");
    let err = job_episode(&sc, 0, 99).expect_err("refused").to_string();
    assert!(
        err.contains("policy 99 is out of range: the scenario has 7 policies"),
        "{err}"
    );
}

#[test]
fn bad_choices_are_clear_errors_that_change_nothing() {
    let jobs = two_jobs();
    let mut run = fifo_stepper(&jobs);
    let point = run
        .next_decision()
        .expect("steps")
        .cloned()
        .expect("a decision");
    let cases = [
        (
            JobChoice::Start(7),
            "cannot start job 7: the run has 2 jobs",
        ),
        (
            JobChoice::Preempt(1),
            "cannot preempt job 1: it is waiting, not running",
        ),
        (JobChoice::StartOn(0, 3), "cannot start job 0 on GPU type 3"),
    ];
    for (choice, expected) in cases {
        let err = run.decide(choice).expect_err("refused").to_string();
        assert!(err.contains(expected), "{choice:?}: {err}");
        assert_eq!(run.next_decision().expect("steps"), Some(&point));
        assert!(!run.is_detached());
    }
    // Job 0 starts (the policy's choice); then job 1 does not fit and job
    // 0 is not waiting.
    run.decide(JobChoice::Start(0))
        .expect("the policy's choice");
    let point = run
        .next_decision()
        .expect("steps")
        .cloned()
        .expect("a decision");
    assert_eq!(point.running, vec![0]);
    for (choice, expected) in [
        (
            JobChoice::Start(1),
            "cannot start job 1: it needs 1 GPUs and 0 CPUs and does not fit now (0 GPUs free",
        ),
        (
            JobChoice::Start(0),
            "cannot start job 0: it is running, not waiting",
        ),
    ] {
        let err = run.decide(choice).expect_err("refused").to_string();
        assert!(err.contains(expected), "{choice:?}: {err}");
        assert_eq!(run.next_decision().expect("steps"), Some(&point));
    }
    // Nothing changed: followed to the end it is the FIFO run.
    follow(&mut run, &[]);
    let s = 1_000_000;
    assert_eq!(run.into_outcome().expect("ended").end, vec![10 * s, 12 * s]);
}

#[test]
fn a_fork_that_chooses_otherwise_changes_only_itself() {
    let s = 1_000_000;
    let jobs = two_jobs();
    let mut run = fifo_stepper(&jobs);
    run.next_decision().expect("steps");
    run.decide(JobChoice::Start(0))
        .expect("the policy's choice");
    let point = run
        .next_decision()
        .expect("steps")
        .cloned()
        .expect("a decision");
    assert_eq!(
        (point.waiting.clone(), point.running.clone()),
        (vec![1], vec![0])
    );
    assert_eq!(point.policy_choice, Some(JobChoice::EndPass));
    let mut fork = run.fork().expect("forks");
    // The fork preempts A at once (no service yet) and starts B instead.
    fork.decide(JobChoice::Preempt(0)).expect("A runs");
    let after = fork
        .next_decision()
        .expect("steps")
        .cloned()
        .expect("a decision");
    assert_eq!(
        (after.waiting, after.running, after.free_gpus),
        (vec![0, 1], vec![], 1)
    );
    fork.decide(JobChoice::Start(1)).expect("B fits");
    while let Some(p) = fork.next_decision().expect("steps").cloned() {
        let choice = match p.waiting.first() {
            Some(&j) if p.free_gpus > 0 => JobChoice::Start(j),
            _ => JobChoice::EndPass,
        };
        fork.decide(choice).expect("a valid choice");
    }
    let forked = fork.into_outcome().expect("ended");
    assert_eq!(forked.end, vec![12 * s, 2 * s]);
    assert_eq!(forked.preemptions, vec![1, 0]);
    // The original goes on as FIFO.
    follow(&mut run, &[]);
    let original = run.into_outcome().expect("ended");
    assert_eq!(original.end, vec![10 * s, 12 * s]);
    assert_eq!(original.preemptions, vec![0, 0]);
}

/// Step policy `p` of `sc` in repetition 0 to its end with its own
/// choices; the finished run.
fn stepped_run(sc: &JobScenario, p: usize) -> tenantsim::jobs::run::JobRun {
    let mut run = job_episode(sc, 0, p).expect("an episode");
    while let Some(choice) = run.next_decision().expect("steps").map(|p| p.policy_choice) {
        run.decide(choice.expect("the scheduler advises"))
            .expect("the policy's choice is taken");
    }
    let outcome = run.into_outcome().expect("ends");
    job_episode_run(sc, 0, p, outcome).expect("a run")
}

#[test]
fn a_job_episodes_results_folder_is_the_run_of_its_policy_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = repo("scenarios/jobs-quickstart.toml");
    let sc = load_job_scenario(&path, Default::default()).expect("loads");
    let text = fs::read_to_string(&path).expect("readable");
    let table: toml::Table = text.parse().expect("TOML");
    let policies = table["policy"].as_array().expect("policies").clone();
    assert_eq!(policies.len(), sc.policies.len());
    for (p, section) in policies.into_iter().enumerate() {
        let mut t = table.clone();
        t.insert("policy".into(), toml::Value::Array(vec![section]));
        t["jobs"].as_table_mut().expect("[jobs]").insert(
            "path".into(),
            toml::Value::String(repo("traces/jobs-hand.csv").display().to_string()),
        );
        let alone = tmp.path().join(format!("alone-{p}.toml"));
        fs::write(&alone, toml::to_string(&t).expect("TOML")).expect("write");
        let cli = tmp.path().join(format!("cli-{p}"));
        tenantsim()
            .args(["run", "--quiet", "--jobs", "--no-plots", "--out"])
            .arg(&cli)
            .arg(&alone)
            .assert()
            .success();
        let stepped = tmp.path().join(format!("stepped-{p}"));
        write_job_episode(&stepped, &sc, &stepped_run(&sc, p), true).expect("writes");
        assert_same_result_files(&cli, &stepped, &sc.policies[p].name);
        // The folder is never overwritten.
        let again = write_job_episode(&stepped, &sc, &stepped_run(&sc, p), true);
        assert!(again.is_err(), "an existing folder is refused");
    }
}
