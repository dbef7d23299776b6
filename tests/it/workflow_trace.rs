//! The workflow trace's writers beyond the importer (DESIGN §14.1):
//! `tenantsim gen workflows` (its documented formulas checked on generated
//! rows), `tenantsim validate` of a workflow CSV, and the bundled traces
//! `traces/workflows-ml.csv` and `traces/wfinstances.csv` (each rewritten
//! byte for byte by its documented command).

use std::collections::HashMap;
use std::fs;

use tenantsim::core::testing::shared_data;
use tenantsim::workflows::generate::{
    GenWorkflowParams, GeneratedWorkflows, Stage, TrialPool, generate_workflows,
};
use tenantsim::workflows::trace::{StepRow, WorkflowTrace};

use crate::common::{repo, tenantsim};

/// FNV-1a 64 written out again (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3), so the keys are checked against a computation that is
/// not the generator's.
fn fnv(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn rows_of(g: &GeneratedWorkflows, k: usize) -> Vec<&StepRow> {
    let id = format!("wf{k}");
    g.rows.iter().filter(|r| r.workflow == id).collect()
}

/// A step's (runtime, gpus, cpus, bytes, parallel, parents).
type Want = (f64, u32, u32, u64, bool, &'static [&'static str]);

fn us(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}

/// Every row against the module's table, recomputed here: with S the
/// data set's size, ingest 10 + S/2e8 s (0 GPUs, 2 CPUs, S bytes),
/// preprocess 20 + S/1e8 s (4 CPUs, ⌊S/2⌋), featurise 30 + S/5e7 s (8
/// CPUs, ⌊S/4⌋, parallel), K trials of `trial_gpus` GPUs and 4 CPUs
/// writing 1e8 bytes after featurise, evaluate (30 s, 1 GPU, 2 CPUs, 1e6
/// bytes) after every trial; the keys chain as documented (ingest =
/// FNV("ingest/d<d>"), preprocess = FNV("preprocess/" + K_ingest), …);
/// data set sizes lie in [1e8, 1e10].
#[test]
fn generated_rows_follow_the_documented_formulas() {
    let p = GenWorkflowParams {
        workflows: 60,
        trials: 3,
        trial_gpus: 2,
        failure_p: 0.05,
        deadline_s: Some(7200.0),
        ..GenWorkflowParams::default()
    };
    let g = generate_workflows(&p, None).expect("generates");
    assert!(
        g.dataset_bytes
            .iter()
            .all(|&s| (100_000_000..=10_000_000_000).contains(&s))
    );
    WorkflowTrace::from_rows("gen", &g.rows).expect("a valid trace");
    assert_eq!(g.rows.len(), 60 * 7);
    for (k, pl) in g.pipelines.iter().enumerate() {
        let s = g.dataset_bytes[pl.dataset];
        let sf = s as f64;
        let r = rows_of(&g, k);
        let ids: Vec<&str> = r.iter().map(|x| x.step.as_str()).collect();
        assert_eq!(
            ids,
            [
                "ingest",
                "preprocess",
                "featurise",
                "train-1",
                "train-2",
                "train-3",
                "evaluate"
            ]
        );
        // (runtime, gpus, cpus, bytes, parallel, parents)
        let want: [Want; 3] = [
            (us(10.0 + sf / 2e8), 0, 2, s, false, &[]),
            (us(20.0 + sf / 1e8), 0, 4, s / 2, false, &["ingest"]),
            (us(30.0 + sf / 5e7), 0, 8, s / 4, true, &["preprocess"]),
        ];
        for (row, (rt, gpus, cpus, bytes, par, parents)) in r.iter().zip(want) {
            assert_eq!(
                (
                    row.runtime_s,
                    row.gpus,
                    row.cpus,
                    row.output_bytes,
                    row.parallel
                ),
                (rt, gpus, cpus, bytes, par),
                "wf{k} {}",
                row.step
            );
            assert_eq!(row.parents, parents);
        }
        for (j, row) in r[3..6].iter().enumerate() {
            assert_eq!(
                (
                    row.runtime_s,
                    row.gpus,
                    row.cpus,
                    row.output_bytes,
                    row.parallel
                ),
                (pl.trials[j], 2, 4, 100_000_000, false)
            );
            assert!((60.0..=6000.0).contains(&row.runtime_s), "1 to 100 minutes");
            assert_eq!(row.parents, ["featurise"]);
        }
        let ev = r[6];
        assert_eq!(
            (ev.runtime_s, ev.gpus, ev.cpus, ev.output_bytes),
            (30.0, 1, 2, 1_000_000)
        );
        assert_eq!(ev.parents, ["train-1", "train-2", "train-3"]);
        for row in &r {
            assert_eq!(row.failure_p, 0.05);
            assert_eq!(row.deadline_s, Some(7200.0));
            assert_eq!(row.tenant, format!("t{}", pl.tenant));
            assert_eq!(row.submit_s, pl.submit_s);
        }
        // The key chain.
        let k_in = fnv(&format!("ingest/d{}", pl.dataset));
        let k_pre = fnv(&format!("preprocess/{k_in}"));
        let k_feat = fnv(&format!("featurise/v{}/{k_pre}", pl.versions[0]));
        let k_tr: Vec<String> = (1..=3)
            .map(|j| fnv(&format!("train/v{}/j{j}/{k_feat}", pl.versions[1])))
            .collect();
        let k_ev = fnv(&format!("evaluate/v{}/{}", pl.versions[2], k_tr.join(";")));
        let keys: Vec<&str> = r.iter().map(|x| x.cache_key.as_str()).collect();
        let mut want_keys = vec![k_in.as_str(), k_pre.as_str(), k_feat.as_str()];
        want_keys.extend(k_tr.iter().map(String::as_str));
        want_keys.push(&k_ev);
        assert_eq!(keys, want_keys, "wf{k}");
    }
}

/// Every pipeline on one data set has that data set's ingest and
/// preprocess keys (whatever its tenant), fresh pipelines on it share
/// featurise too, and different data sets share nothing.
#[test]
fn pipelines_on_one_data_set_share_their_prefix_keys() {
    let p = GenWorkflowParams {
        workflows: 300,
        datasets: 5,
        ..GenWorkflowParams::default()
    };
    let g = generate_workflows(&p, None).expect("generates");
    let mut prefix: HashMap<usize, (String, String)> = HashMap::new();
    let mut fresh_feat: HashMap<usize, String> = HashMap::new();
    let mut tenants_per_set: HashMap<usize, std::collections::HashSet<usize>> = HashMap::new();
    for (k, pl) in g.pipelines.iter().enumerate() {
        let r = rows_of(&g, k);
        let pair = (r[0].cache_key.clone(), r[1].cache_key.clone());
        assert_eq!(
            prefix.entry(pl.dataset).or_insert_with(|| pair.clone()),
            &pair
        );
        if pl.rerun_of.is_none() {
            let f = r[2].cache_key.clone();
            assert_eq!(
                fresh_feat.entry(pl.dataset).or_insert_with(|| f.clone()),
                &f
            );
        }
        tenants_per_set
            .entry(pl.dataset)
            .or_default()
            .insert(pl.tenant);
    }
    assert_eq!(prefix.len(), 5, "every data set drawn in 300 workflows");
    let firsts: std::collections::HashSet<&String> = prefix.values().map(|(a, _)| a).collect();
    assert_eq!(firsts.len(), 5, "data sets share no key");
    assert!(
        tenants_per_set.values().any(|t| t.len() > 1),
        "some data set is used by several tenants (global scope can hit)"
    );
}

/// A re-run copies its origin (same tenant, data set) and changes the key
/// of its changed stage and of every descendant, and of nothing upstream:
/// featurise → featurise, trials, evaluate; train → trials, evaluate;
/// evaluate → evaluate alone. Its trials' run times are its origin's
/// unless it changes the training stage.
#[test]
fn a_rerun_changes_the_keys_of_its_stage_and_descendants_only() {
    let p = GenWorkflowParams {
        workflows: 400,
        rerun_share: 0.5,
        ..GenWorkflowParams::default()
    };
    let g = generate_workflows(&p, None).expect("generates");
    let mut seen = [0usize; 3];
    for (k, pl) in g.pipelines.iter().enumerate() {
        let Some((o, stage)) = pl.rerun_of else {
            continue;
        };
        assert!(o < k);
        let origin = &g.pipelines[o];
        assert_eq!((pl.tenant, pl.dataset), (origin.tenant, origin.dataset));
        let a = rows_of(&g, k);
        let b = rows_of(&g, o);
        let differs: Vec<bool> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x.cache_key != y.cache_key)
            .collect();
        let n = p.trials;
        let want: Vec<bool> = (0..n + 4)
            .map(|i| match stage {
                Stage::Featurise => i >= 2,
                Stage::Train => i >= 3,
                Stage::Evaluate => i == n + 3,
            })
            .collect();
        assert_eq!(differs, want, "wf{k} re-runs wf{o} changing {stage:?}");
        if stage != Stage::Train {
            assert_eq!(pl.trials, origin.trials);
        }
        seen[stage as usize] += 1;
    }
    assert!(
        seen.iter().all(|&c| c > 10),
        "every stage changed often: {seen:?}"
    );
}

/// The re-run share: among submissions whose tenant submitted before, the
/// number of re-runs is Binomial(n, ρ); on 20,000 workflows with ρ = 0.3
/// it lies within 5 standard deviations √(nρ(1−ρ)) of nρ. The mean gap of
/// the Poisson submissions is 1/rate = 100 s within 5 standard errors
/// (100/√W).
#[test]
fn the_rerun_share_and_the_rate_hold_on_a_large_draw() {
    let p = GenWorkflowParams {
        workflows: 20_000,
        trials: 1,
        ..GenWorkflowParams::default()
    };
    let g = generate_workflows(&p, None).expect("generates");
    let mut seen = std::collections::HashSet::new();
    let mut eligible = 0usize;
    let mut reruns = 0usize;
    for pl in &g.pipelines {
        if !seen.insert(pl.tenant) {
            eligible += 1;
            reruns += usize::from(pl.rerun_of.is_some());
        } else {
            assert!(pl.rerun_of.is_none(), "a first submission cannot re-run");
        }
    }
    let n = eligible as f64;
    let sd = (n * 0.3 * 0.7).sqrt();
    assert!(
        (reruns as f64 - 0.3 * n).abs() < 5.0 * sd,
        "{reruns} of {eligible}"
    );
    let last = g.pipelines.last().expect("some").submit_s;
    let mean_gap = last / 20_000.0;
    assert!(
        (mean_gap - 100.0).abs() < 5.0 * 100.0 / (20_000f64).sqrt(),
        "{mean_gap}"
    );
}

#[test]
fn the_same_seed_gives_the_same_rows_and_another_seed_others() {
    let p = GenWorkflowParams::default();
    let a = generate_workflows(&p, None).expect("a");
    assert_eq!(a, generate_workflows(&p, None).expect("again"));
    let b = generate_workflows(&GenWorkflowParams { seed: 1, ..p }, None).expect("b");
    assert_ne!(a.rows, b.rows);
}

/// With a model trace each trial's run time is that of a model available
/// to the data set's user (d mod users) in the trace: on `traces/hand.csv`
/// (3 users) the run times of user d mod 3.
#[test]
fn trials_drawn_from_a_model_trace_are_its_runtimes() {
    let trace = tenantsim::models::trace::load_trace(&repo("traces/hand.csv")).expect("hand");
    let p = GenWorkflowParams {
        workflows: 50,
        datasets: 4,
        ..GenWorkflowParams::default()
    };
    let allowed = |user: usize| -> Vec<f64> {
        trace
            .models_of(user)
            .iter()
            .map(|&m| trace.runtime_us(user, m) as f64 / 1e6)
            .collect()
    };
    let pool = TrialPool {
        source: "hand".into(),
        runtimes: (0..3).map(allowed).collect(),
    };
    let g = generate_workflows(&p, Some(&pool)).expect("generates");
    for pl in &g.pipelines {
        let user = pl.dataset % 3;
        for t in &pl.trials {
            assert!(
                allowed(user).contains(t),
                "{t} not a run time of user {user}"
            );
        }
    }
    // Through the command: --model-trace traces/hand.csv gives trials of
    // the hand trace's run times (1 to 10 s) only.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("w.csv");
    tenantsim()
        .args(["gen", "workflows", "--workflows", "30", "--model-trace"])
        .arg(repo("traces/hand.csv"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (rows, _) = tenantsim::workflows::trace::read_rows(&out).expect("reads");
    let all: Vec<f64> = (0..3).flat_map(allowed).collect();
    for r in rows.iter().filter(|r| r.step.starts_with("train-")) {
        assert!(all.contains(&r.runtime_s), "{}", r.runtime_s);
    }
}

#[test]
fn bad_generator_options_are_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (flag, value, says) in [
        (
            "--rerun-share",
            "1.5",
            "--rerun-share: expected a probability in [0, 1]",
        ),
        (
            "--failure-p",
            "1",
            "--failure-p: expected a probability in [0, 1)",
        ),
        ("--trials", "0", "must be at least 1"),
        ("--deadline-s", "0", "--deadline-s: expected seconds > 0"),
    ] {
        tenantsim()
            .args(["gen", "workflows", flag, value, "--out"])
            .arg(dir.path().join("w.csv"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains(says));
    }
    assert!(!dir.path().join("w.csv").exists());
}

/// `traces/workflows-ml.csv` is what its documented command writes (the
/// command in traces/README.md), and `validate` describes it.
#[test]
fn the_bundled_ml_pipelines_are_rewritten_by_their_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("w.csv");
    tenantsim()
        .args(["gen", "workflows", "--seed", "1", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        fs::read(&out).expect("written"),
        fs::read(repo("traces/workflows-ml.csv")).expect("bundled")
    );
    tenantsim()
        .arg("validate")
        .arg(repo("traces/workflows-ml.csv"))
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "200 workflows of 4 tenant(s), 1600 steps",
        ));
}

/// `traces/wfinstances.csv` is what its documented command writes from
/// the 48 instances of ../shared/data/wfinstances.
#[test]
fn the_bundled_wfinstances_trace_is_rewritten_by_its_command() {
    wfinstances_trace_is_rewritten_by(&["--rate", "0.001"], "traces/wfinstances.csv");
}

/// `traces/wfinstances-x3.csv` (the experiment's trace, EXPERIMENTS.md
/// §10: every instance submitted three times) is what its documented
/// command writes.
#[test]
fn the_bundled_wfinstances_x3_trace_is_rewritten_by_its_command() {
    wfinstances_trace_is_rewritten_by(
        &["--rate", "0.005", "--copies", "3"],
        "traces/wfinstances-x3.csv",
    );
}

/// Import the 48 instances (in the documented order) with `--tenants 4
/// --seed 1` and `extra`, and compare with the bundled file `bundled`.
fn wfinstances_trace_is_rewritten_by(extra: &[&str], bundled: &str) {
    let Some(root) = shared_data("wfinstances") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("w.csv");
    let mut files = Vec::new();
    for family in ["helloworld", "makeflow/blast", "makeflow/bwa", "nextflow"] {
        files.extend(sorted_json(&root.join(family)));
    }
    for e in sorted_dirs(&root.join("pegasus")) {
        files.extend(sorted_json(&e));
    }
    assert_eq!(files.len(), 48);
    tenantsim()
        .args(["import-workflows", "wfformat"])
        .args(&files)
        .args(["--tenants", "4", "--seed", "1"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        fs::read(&out).expect("written"),
        fs::read(repo(bundled)).expect("bundled"),
        "{bundled} differs from its command's output"
    );
}

/// `traces/workflows-ml-2h.csv` (the experiment's ML pipelines,
/// EXPERIMENTS.md §10) is `traces/workflows-ml.csv` with a 2-hour
/// deadline on every workflow: what its documented command writes.
#[test]
fn the_bundled_ml_pipelines_with_deadlines_are_rewritten_by_their_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("w.csv");
    tenantsim()
        .args([
            "gen",
            "workflows",
            "--seed",
            "1",
            "--deadline-s",
            "7200",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        fs::read(&out).expect("written"),
        fs::read(repo("traces/workflows-ml-2h.csv")).expect("bundled")
    );
}

/// The experiment's scenarios (EXPERIMENTS.md §10) validate with their
/// sweeps: 16, 4 and 9 points.
#[test]
fn the_couler_experiment_scenarios_validate() {
    for (name, points) in [
        ("workflows-couler-wfinstances", 16),
        ("workflows-couler-wfinstances-load", 4),
        ("workflows-couler-ml", 9),
    ] {
        tenantsim()
            .arg("validate")
            .arg(repo(&format!("scenarios/{name}.toml")))
            .assert()
            .success()
            .stderr(predicates::str::contains(format!("{points} point")));
    }
}

fn sorted_json(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

fn sorted_dirs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// A workflow trace read from its CSV is built from compact rows (every
/// text cell in one string, DESIGN §8.5 "Workflows"; `StepRow`s of 208
/// bytes and a string per id and parent before 2026-12-07): the trace is
/// the one built from the same file's `StepRow`s, for every bundled
/// trace and for one with per-type run times, deadlines, failures,
/// parents out of row order and workflows whose rows are apart.
#[test]
fn a_trace_read_compactly_is_the_one_its_step_rows_build() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let hand = tmp.path().join("hand.csv");
    fs::write(
        &hand,
        "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes,deadline_s,failure_p,parallel,runtime_s.k80,runtime_s.v100\n\
         w1,t1,0,b, a ; c ,2,1,2,kb,5,100,0.1,1,,1.5\n\
         w2,t2,3,x,,1,0,1,,0,,0,0,4,\n\
         w1,t1,0,a,,1,1,0,ka,7,100,0,0,3,2\n\
         w1,t1,0,c,a,1,1,0,,0,100,0.5,0,,\n",
    )
    .expect("write");
    let mut paths = vec![hand];
    for name in [
        "workflows-small.csv",
        "workflows-ml.csv",
        "workflows-ml-2h.csv",
        "wfinstances.csv",
        "wfinstances-x3.csv",
    ] {
        let p = repo(&format!("traces/{name}"));
        if p.exists() {
            paths.push(p);
        }
    }
    for path in paths {
        let compact = WorkflowTrace::read(&path).expect("reads");
        let (rows, lines) = tenantsim::workflows::trace::read_rows(&path).expect("rows");
        let owned =
            WorkflowTrace::from_rows_at(&path.display().to_string(), rows.as_slice(), Some(&lines))
                .expect("builds");
        assert_eq!(
            format!("{compact:?}"),
            format!("{owned:?}"),
            "{}",
            path.display()
        );
    }
}
