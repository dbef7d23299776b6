//! Shared episodes (issue 31, DESIGN §15.6): a steppable shared run that
//! owns its data (`shared::episode::SharedEpisode`), stepped by the
//! cluster scheduler's choices, writes the files `tenantsim run --jobs`
//! writes for the same scenario with one repetition, byte for byte; a
//! fork outlives its original and continues identically.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::run::mode::Mode;
use tenantsim::jobs::sim::JobChoice;
use tenantsim::shared::episode::{SharedEpisode, alone, write_shared_episode};
use tenantsim::shared::scenario::SharedScenario;

use crate::common::{assert_same_result_files, repo, tenantsim, tree};

/// Background jobs drawn per run (`[jobs] sample`; a debug build stays
/// within seconds).
const CUT: i64 = 40;

/// The service's horizon (`horizon_s`), 12 hours.
const HORIZON_S: f64 = 12.0 * 3600.0;

/// The bundled shared scenarios; each has a test below.
const SCENARIOS: [&str; 4] = [
    "shared-lcdb-gavel-mmf.toml",
    "shared-lcdb-gavel.toml",
    "shared-quickstart.toml",
    "shared-workflows-quickstart.toml",
];

#[test]
fn every_bundled_shared_scenario_has_an_episode_test() {
    let mut found: Vec<String> = std::fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with("shared-") && n.ends_with(".toml"))
        .collect();
    found.sort();
    assert_eq!(
        found, SCENARIOS,
        "a new shared scenario needs its test here"
    );
}

/// scenarios/`file` cut to a test's size, written into `dir`: one
/// repetition, no `[sweep]` (its first value of each key but
/// `service.priority`, which is `priority`), at most [`CUT`] background
/// jobs, the service's horizon [`HORIZON_S`], policy `policy` alone, no
/// figures, its traces' paths absolute.
fn cut(file: &str, dir: &Path, priority: &str, policy: usize) -> PathBuf {
    let path = repo("scenarios").join(file);
    let text = std::fs::read_to_string(&path).expect("reads");
    let mut doc: toml::Table = toml::from_str(&text).expect("parses");
    let abs = |v: &mut toml::Value| {
        let p = v.as_str().expect("a path");
        *v = toml::Value::String(repo("scenarios").join(p).display().to_string());
    };
    doc.insert("repetitions".into(), 1.into());
    if let Some(sweep) = doc.remove("sweep") {
        let sweep = sweep.as_table().expect("a table").clone();
        if let Some(l) = sweep.get("jobs.load") {
            let first = l.as_array().expect("values")[0].clone();
            doc["jobs"]
                .as_table_mut()
                .expect("[jobs]")
                .insert("load".into(), first);
        }
    }
    if let Some(j) = doc.get_mut("jobs").and_then(toml::Value::as_table_mut) {
        abs(j.get_mut("path").expect("jobs.path"));
        let n = j
            .get("sample")
            .and_then(toml::Value::as_integer)
            .unwrap_or(CUT);
        j.insert("sample".into(), n.min(CUT).into());
    }
    if let Some(s) = doc.get_mut("service").and_then(toml::Value::as_table_mut) {
        s.insert("priority".into(), priority.into());
        let t = s
            .get_mut("trace")
            .and_then(toml::Value::as_table_mut)
            .expect("trace");
        abs(t.get_mut("path").expect("service.trace.path"));
        doc.insert("horizon_s".into(), HORIZON_S.into());
    }
    if let Some(w) = doc.get_mut("workflows").and_then(toml::Value::as_table_mut) {
        abs(w.get_mut("path").expect("workflows.path"));
    }
    let policies = doc["policy"].as_array().expect("[[policy]]").clone();
    doc.insert(
        "policy".into(),
        toml::Value::Array(vec![policies[policy].clone()]),
    );
    doc.insert(
        "output".into(),
        toml::Value::Table(toml::toml! { plots = false }),
    );
    let out = dir.join(file);
    std::fs::write(&out, toml::to_string(&doc).expect("writes")).expect("written");
    out
}

fn load(path: &Path) -> SharedScenario {
    let plan = tenantsim::registry::Registry::builtin()
        .shared_mode()
        .load_plan(path, Overrides::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(plan.scenarios().len(), 1);
    plan.scenarios()[0].clone()
}

/// Step `episode` with the cluster scheduler's choices to its end; the
/// number of decisions.
fn follow(episode: &SharedEpisode) -> usize {
    let mut steps = 0;
    while let Some(choice) = episode
        .with_run(|run| Ok(run.next_decision()?.map(|p| p.policy_choice)))
        .expect("a decision")
    {
        let choice = choice.expect("the scheduler advises");
        episode.with_run(|run| run.decide(choice)).expect("valid");
        steps += 1;
    }
    steps
}

/// The episode of the cut `file` (policy `policy`, repetition 0),
/// stepped by the scheduler's choices and written, is `tenantsim run
/// --jobs` of it.
fn episode_writes_the_run(file: &str, priority: &str, policy: usize) {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = cut(file, tmp.path(), priority, policy);
    let ran = tmp.path().join("run");
    tenantsim()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&ran)
        .arg("--jobs")
        .assert()
        .success();
    let s = Arc::new(load(&path));
    let episode = SharedEpisode::new(Arc::clone(&s), 0, 0).expect("an episode");
    let steps = follow(&episode);
    assert!(steps > 0, "{file}: no decision");
    let stepped = tmp.path().join("episode");
    write_shared_episode(&stepped, &s, episode.finish().expect("finishes")).expect("writes");
    assert!(tree(&ran).len() > 3, "{file}: {:?}", tree(&ran).keys());
    assert_same_result_files(
        &ran,
        &stepped,
        &format!("{file} ({priority}, policy {policy})"),
    );
}

#[test]
fn shared_lcdb_gavel_mmf_episode_writes_the_run() {
    episode_writes_the_run(SCENARIOS[0], "low", 0);
}

#[test]
fn shared_lcdb_gavel_episode_writes_the_run() {
    episode_writes_the_run(SCENARIOS[1], "equal", 0);
}

#[test]
fn shared_quickstart_episode_writes_the_run() {
    episode_writes_the_run(SCENARIOS[2], "low", 1);
}

#[test]
fn shared_workflows_quickstart_episode_writes_the_run() {
    episode_writes_the_run(SCENARIOS[3], "low", 2);
}

#[test]
fn an_episode_of_one_policy_of_many_is_written_with_it_alone() {
    // The whole shared-workflows-quickstart (3 policies): the episode of
    // its policy 1 (`lru`) written is the cut file of `lru` alone run.
    let tmp = tempfile::tempdir().expect("tmp");
    let full = Arc::new(load(&repo("scenarios").join(SCENARIOS[3])));
    assert_eq!(full.policies(), 3);
    let episode = SharedEpisode::new(Arc::clone(&full), 0, 1).expect("an episode");
    follow(&episode);
    let stepped = tmp.path().join("episode");
    write_shared_episode(&stepped, &full, episode.finish().expect("finishes")).expect("writes");
    let path = cut(SCENARIOS[3], tmp.path(), "low", 1);
    let ran = tmp.path().join("run");
    tenantsim()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&ran)
        .arg("--jobs")
        .assert()
        .success();
    assert_same_result_files(&ran, &stepped, "lru alone");
    let one = alone(&full, 1).expect("alone");
    assert_eq!(one.policy_names(), ["lru"]);
    assert!(alone(&full, 3).is_err(), "policy 3 is out of range");
    // A folder that exists is never overwritten.
    let e = write_shared_episode(&stepped, &full, episode.finish().expect("finishes"))
        .expect_err("exists");
    assert!(e.to_string().contains("must not exist"), "{e}");
}

#[test]
fn an_episode_can_move_to_another_thread() {
    fn send<T: Send>() {}
    send::<SharedEpisode>();
    let tmp = tempfile::tempdir().expect("tmp");
    let s = Arc::new(load(&cut(SCENARIOS[3], tmp.path(), "low", 0)));
    let episode = SharedEpisode::new(s, 0, 0).expect("an episode");
    let fork = episode.fork().expect("forks");
    let steps = std::thread::spawn(move || follow(&fork))
        .join()
        .expect("joins");
    assert_eq!(steps, follow(&episode));
}

#[test]
fn a_fork_outlives_its_original_and_continues_identically() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = cut(SCENARIOS[2], tmp.path(), "low", 0);
    let s = Arc::new(load(&path));
    let reference = SharedEpisode::new(Arc::clone(&s), 0, 0).expect("an episode");
    let steps = follow(&reference);
    let episode = SharedEpisode::new(Arc::clone(&s), 0, 0).expect("an episode");
    for _ in 0..steps / 2 {
        let c = episode
            .with_run(|run| Ok(run.next_decision()?.and_then(|p| p.policy_choice)))
            .expect("a decision")
            .expect("advised");
        episode.with_run(|run| run.decide(c)).expect("valid");
    }
    // An invalid choice is refused and changes nothing.
    episode
        .with_run(|run| Ok(run.next_decision()?.is_some()))
        .expect("a decision");
    let n = episode
        .with_run(|run| Ok(run.state().jobs().len() as u32))
        .expect("state");
    let e = episode
        .with_run(|run| run.decide(JobChoice::Start(n + 1)))
        .expect_err("out of range");
    assert!(e.to_string().contains(&format!("job {}", n + 1)), "{e}");
    let fork = episode.fork().expect("forks");
    let fork2 = fork.fork().expect("forks again");
    drop(episode);
    assert_eq!(follow(&fork), steps - steps / 2);
    follow(&fork2);
    for (name, e) in [
        ("reference", &reference),
        ("fork", &fork),
        ("fork of fork", &fork2),
    ] {
        write_shared_episode(&tmp.path().join(name), &s, e.finish().expect("finishes"))
            .expect("writes");
    }
    assert_same_result_files(
        &tmp.path().join("reference"),
        &tmp.path().join("fork"),
        "fork",
    );
    assert_same_result_files(
        &tmp.path().join("reference"),
        &tmp.path().join("fork of fork"),
        "fork of a fork",
    );
}
