//! A job-mode run's segment log, in memory and in a temporary file
//! (`jobs/sim/segment_log.rs`, issue 34): every file a run writes from it
//! is the same either way, and through the result cache.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 100 of 200 jobs of 100 s under `max-min-fairness` in rounds of 1 s on
/// 20 GPUs: each round runs the 20 jobs furthest below their share, about
/// 10,000 segments a run (460 KB of log: in memory by default, in many
/// writes of a temporary file when it spills from its first segment).
fn rotating_jobs(dir: &Path) -> PathBuf {
    let mut trace = String::from("job_id,user,submit_s,duration_s,gpus\n");
    for i in 0..200 {
        trace.push_str(&format!("j{i},u{},{},100,1\n", i % 10, i % 7));
    }
    std::fs::write(dir.join("rotating.csv"), trace).expect("write trace");
    let scenario = dir.join("rotating.toml");
    std::fs::write(
        &scenario,
        "mode = \"jobs\"\nname = \"rotating\"\nrepetitions = 2\n[jobs]\npath = \"rotating.csv\"\n\
         sample = 100\n[cluster]\nnodes = 5\ngpus_per_node = 4\nround_s = 1\n\
         [[policy]]\nname = \"mmf\"\nscheduler = \"max-min-fairness\"\n\
         [[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n",
    )
    .expect("write scenario");
    scenario
}

/// The files of `scenario` run into `out` with `--jobs` on two threads
/// (`run.json`, which holds measurements, left out), with the spill
/// threshold `spill` if any, and how many runs the result cache served.
fn run(
    scenario: &Path,
    spill: Option<&str>,
    cache: &[&str],
    out: &Path,
) -> (BTreeMap<PathBuf, Vec<u8>>, u64) {
    let extra = [&["--jobs", "--threads", "2"], cache].concat();
    let (mut files, served) = crate::common::run_with_spill(scenario, spill, &extra, out);
    files.retain(|p, _| p.file_name() != Some(std::ffi::OsStr::new("run.json")));
    (files, served)
}

/// Regression (the segment log written as segments end): job mode
/// (a preemptive policy in rounds whose log passes its bound, and the
/// bundled `jobs-quickstart`'s seven policies) and a shared scenario
/// (the service's jobs preempted by the background's, `service/jobs.csv`
/// by segment) write the same files from a log spilled to a temporary
/// file from its first segment (`TENANTSIM_SPILL_BYTES=0`) as from one
/// in memory, and a run stored spilled in the result cache is read back
/// into the same files.
#[test]
fn a_spilled_segment_log_writes_the_files_of_one_in_memory_through_the_cache_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenarios = [
        rotating_jobs(dir.path()),
        root.join("scenarios/jobs-quickstart.toml"),
        root.join("scenarios/shared-quickstart.toml"),
    ];
    for (k, scenario) in scenarios.iter().enumerate() {
        let at = |what: &str| dir.path().join(format!("{k}-{what}"));
        let (memory, _) = run(scenario, None, &["--no-cache"], &at("memory"));
        assert!(memory.len() >= 3, "{}: {memory:?}", scenario.display());
        let (spilled, _) = run(scenario, Some("0"), &["--no-cache"], &at("spilled"));
        assert!(
            spilled == memory,
            "{}: spilled, the files differ",
            scenario.display()
        );
        let cache = at("cache");
        let cache_arg = ["--cache", cache.to_str().expect("UTF-8 path")];
        let (stored, served) = run(scenario, Some("0"), &cache_arg, &at("stored"));
        assert_eq!(served, 0, "{}: a cold cache", scenario.display());
        assert!(
            stored == memory,
            "{}: stored, the files differ",
            scenario.display()
        );
        let (read, served) = run(scenario, None, &cache_arg, &at("read"));
        assert!(
            served > 0,
            "{}: nothing read from the cache",
            scenario.display()
        );
        assert!(
            read == memory,
            "{}: read from the cache, the files differ",
            scenario.display()
        );
    }
    // The rotating scenario's summary: the preemptions that made its log.
    let summary =
        std::fs::read_to_string(dir.path().join("0-memory/summary.csv")).expect("summary");
    let preemptions: u64 = summary
        .lines()
        .filter(|l| l.starts_with("mmf,"))
        .map(|l| {
            l.split(',')
                .nth(11)
                .and_then(|p| p.parse::<u64>().ok())
                .expect("preemptions")
        })
        .sum();
    assert!(
        preemptions > 2 * 8_000,
        "{preemptions} preemptions in two repetitions"
    );
}
