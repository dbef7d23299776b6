//! Limits from memory, not from counts (issue 34): a scenario's memory
//! estimate (`models::scenario::footprint`) is checked against the
//! machine's memory or `--max-memory` before its trace is generated or
//! read, and the estimate is an upper bound of what a run's peak RSS
//! grows by, within its documented factor.
//!
//! Peak RSS is the child's `ru_maxrss` as GNU time reports it
//! (`/usr/bin/time -f %M`, KB); where GNU time is missing the RSS test
//! prints a note and checks nothing more (`.ci/run` installs it and makes
//! its absence a failure, as tests/it/limits.rs does).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::memory::{MemoryBudget, check};
use tenantsim::jobs::footprint::ESTIMATE_FACTOR as JOB_ESTIMATE_FACTOR;
use tenantsim::models::metrics::TenantMetrics;
use tenantsim::models::policy::registry::ModelRegistry;
use tenantsim::models::scenario::ScenarioFile;
use tenantsim::models::scenario::footprint::{
    ESTIMATE_FACTOR, PRESENT_FACTOR, estimate, estimate_in, posteriors_at_once, trace_shape,
};
use tenantsim::models::sim::JobRecord;
use tenantsim::models::trace::{SynParams, TraceRow};

pub(crate) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tenantsim"))
}

/// A model scenario over a `[trace.syn]` of `users × 20` models, GP-UCB
/// with the greedy scheduler (the `scale` scenario's policy).
fn syn_scenario(users: u64, reps: u32) -> String {
    format!(
        "name = \"mem\"\nseed = 1\nrepetitions = {reps}\nthresholds = [0.05, 0.02, 0.01]\n\
         fairness = false\n[trace.syn]\nusers = {users}\nmodels = 20\nseed = 1\n\
         [split]\nprior_count = 100\n[cluster]\ngpus = 64\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n"
    )
}

/// `sh -c 'ulimit -v KB; exec tenantsim ARGS'` in `dir`.
fn under_ulimit(kb: u64, args: &[&str], dir: &Path) -> Output {
    let line = format!(
        "ulimit -v {kb}; exec \"{}\" {}",
        binary().display(),
        args.join(" ")
    );
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The estimate of `text` (a model scenario in `dir`) with one thread.
fn estimate_of(text: &str, dir: &Path) -> u64 {
    let file: ScenarioFile = toml::from_str(text).expect("scenario parses");
    let shape = trace_shape(dir, &file.trace).expect("shape known");
    let budget = MemoryBudget {
        threads: Some(1),
        ..MemoryBudget::default()
    };
    estimate(&file, &shape, &budget, &ModelRegistry::builtin()).total()
}

/// The must-hold of issue 34: `validate` of a scenario that would need
/// about 50 GB (16,000,000 users × 20 models generated in memory, GP-UCB;
/// 15,000,000 before the state of tenants not present was counted apart,
/// 12,500,000 before the loss curves spilled past 8 MiB, 9,000,000 before
/// the metrics were folded online and the job log left out of a run
/// without `--jobs`)
/// exits 1 stating the estimate, under an address-space limit of 1 GB
/// (`ulimit -v 1000000`), so it cannot have generated the trace (5.8 GiB
/// of matrices alone): the check ran first and held little memory
/// (measured: 19 MB peak RSS, 0.02 s, docs/PERFORMANCE.md).
#[test]
fn validate_of_a_fifty_gb_scenario_exits_1_with_the_estimate_in_one_gb_of_address_space() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Held dense (`rows`): `auto` would hold these 3.2 × 10^8 pairs
    // lazily, without the trace terms below
    // (`a_lazy_trace_is_estimated_without_its_cells`).
    let text = syn_scenario(16_000_000, 1)
        .replace("prior_count = 100", "prior_count = 1000")
        .replace("[trace.syn]\n", "[trace.syn]\nrows = \"dense\"\n");
    fs::write(tmp.path().join("s.toml"), &text).expect("write");
    let o = under_ulimit(
        1_000_000,
        &["validate", "s.toml", "--threads", "1"],
        tmp.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // The estimate's terms (footprint.rs), by hand, every user a tenant,
    // all present at once (they all arrive at the start): per tenant 41
    // bytes (arrival times and their order 20, the sampled split's pool
    // 4, six bits 1, four tables' slot numbers 16; 90 before 2026-12-07,
    // which counted three copies of a trace user the split does not
    // list, a count of available models where every tenant has every
    // model and a leave time though no tenant can leave; 92 before the
    // end states were held in runs on disk, below), 428 more while
    // present (48 + 20 engine state and flags, 16 heap slot, 136 GP slot,
    // 104 + 48 + 3 × 16 folded metrics, 8 its place among the arrivals
    // waiting for the job curve, counted for every tenant before) and a
    // GP posterior (8 × 20 + 20 × 21 × 4 + 32 = 1,872 bytes), × 16,000,000
    // = 37,456,000,000 (38,144,000,000 before 2026-12-07); the done ones parked, min(16,000,000 × (49 + 97 + 8
    // + 3 × 9), 16 MiB) = 16,777,216, the fold's open run of 32,768 done
    // tenants × (112 + 3 × 16) = 5,242,880 and the merge's buffers,
    // ⌈16,000,000 / 32,768⌉ = 489 runs × 16 KiB = 8,011,776 (neither
    // before the parked figures were sorted in runs), the engine's open
    // run of parked places and its order, 2 × 8 × 65,536, and their write
    // buffer, 65,536: 1,114,112 (the places were 4 of the 92 bytes a
    // tenant before, the engine's slot numbers 4 of the dense tables'
    // 16, then 12); the end states' open run, its order and write buffer,
    // 1,114,112 again, and their merge's buffers, ⌈16,000,000 / 65,536⌉ =
    // 245 runs × 8 KiB = 2,007,040 (an end reason and a budget flag were
    // 2 of the 92 bytes a tenant before); the GP prior 20 ×
    // 20 × 16 = 6,400
    // (the fold, 136 + 16 × 3 a tenant, was a term of its own before);
    // results until folded: the rows, min(16,000,000 × 2 × (46 + 9 × 3),
    // 2 × 8 MiB) = 16,777,216, and 16,000,000 × 8 = 128,000,000 (the
    // arrival time; 32 before 2026-12-07, with a trace user and a leave
    // time; 34 before the end states were on disk; 16,000,000 × (96 + 16 × 3)
    // before the rows spilled); loss curves:
    // of the (320,000,000 + 16,000,000) × 20 bytes of each of the two, 8
    // MiB and a point in memory, 2 × 8,388,628 = 16,777,256; the figures'
    // regret areas through sorted runs, the open run 65,536 × 8 =
    // 524,288, written runs in memory 2 × 1 MiB + 64 KiB = 2,162,688, the
    // merge's ⌈16,000,000 / 65,536⌉ = 245 streams × 8 KiB = 2,007,040,
    // and the median's selection 2 × 8 × 2^20 = 16,777,216: 21,471,232
    // (16,000,000 × 16 = 256,000,000 before 2026-12-07, every area held
    // and sorted); trace matrices
    // 320,000,000 × (17 + 8) = 8,000,000,000; ids (16,000,000 + 20) × 80 =
    // 1,280,001,600; generation scratch 320,000,000 × 8 = 2,560,000,000;
    // the program 33,554,432. Sum: 49,546,855,272 bytes = 46.1 GiB
    // (49,781,384,040 before the regret areas went through sorted runs;
    // 50,821,384,040 before each tenant counted only what a run holds for
    // it; 50,882,262,888 before the end states were held in runs;
    // 50,881,148,776 before the parked places were held in runs;
    // 50,944,624,488 with 128 + 388 a tenant and an open run of
    // 4,718,592, before the fold took each tenant's arrival and A*_i with
    // its arrival).
    assert_eq!(estimate_of(&text, tmp.path()), 49_546_855_272);
    assert!(
        err.contains("s.toml: needs an estimated 46.1 GiB of memory"),
        "{err}"
    );
    assert!(
        err.contains(
            "34.9 GiB 16,000,000 tenants' simulation state (41 bytes a tenant, 428 more for \
             each of the 16,000,000 present at once, 32.7 MiB for the done ones; \
             GP posteriors of 1,872 bytes for 16,000,000 of them at once)"
        ),
        "{err}"
    );
    assert!(err.contains("--max-memory"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
}

/// `--max-memory` replaces the machine's memory: a scenario the estimate
/// refuses under a 4 GB address-space limit (256 repetitions of 5,000
/// tenants on 256 threads: 256 × 26 MB at once, about 6.5 GiB) validates
/// with `--max-memory 16G` under the same limit, and is refused with
/// `--max-memory 1G` whatever the machine.
#[test]
fn max_memory_lets_a_scenario_the_estimate_refuses_pass_validation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = syn_scenario(5_000, 256);
    fs::write(tmp.path().join("s.toml"), &text).expect("write");
    let args = ["validate", "s.toml", "--threads", "256"];
    let refused = under_ulimit(4_000_000, &args, tmp.path());
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("× 256 repetitions at once"),
        "{}",
        stderr(&refused)
    );
    let with = [&args[..], &["--max-memory", "16G"]].concat();
    let passed = under_ulimit(4_000_000, &with, tmp.path());
    assert_eq!(passed.status.code(), Some(0), "{}", stderr(&passed));
    assert!(stderr(&passed).starts_with("ok: scenario `mem`"));
    let low = [&args[..], &["--max-memory", "1G"]].concat();
    let o = under_ulimit(4_000_000, &low, tmp.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(
        "more than the 1.0 GiB of `--max-memory`; make it smaller or raise `--max-memory`"
    ));
}

/// 1,001,000 users × 20 models was refused by a fixed count before
/// issue 34 ("1001000 users x 20 models is more than 10000000 pairs").
/// Now the generator takes it, the scenario's estimate (3.0 GiB on
/// one thread, by hand below) passes a check against 8 GiB, and `validate` refuses it
/// only by memory, stating the estimate. (Validating it whole generates
/// 20 million cells, minutes in a debug build: see the ignored test.)
#[test]
fn a_million_users_by_twenty_models_is_refused_by_memory_not_by_a_count() {
    let params = SynParams {
        users: 1_001_000,
        models: 20,
        ..SynParams::default()
    };
    params.validate().expect("no count limit");
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = syn_scenario(1_001_000, 1);
    let file: ScenarioFile = toml::from_str(&text).expect("parses");
    let shape = trace_shape(tmp.path(), &file.trace).expect("shape");
    let budget = MemoryBudget {
        max: Some(8 << 30),
        threads: Some(1),
        keep_jobs: false,
    };
    let e = estimate(&file, &shape, &budget, &ModelRegistry::builtin());
    check("s.toml", &e, &budget).expect("within 8 GiB");
    // By hand (footprint.rs's terms, as in the fifty-GB test): the
    // program 33,554,432; trace matrices 20,020,000 × 17 + 20,020,000 × 8
    // = 500,500,000; ids 1,001,020 × 80 = 80,081,600; generation scratch
    // 20,020,000 × 8 = 160,160,000; simulation state 1,001,000 × (41 +
    // 428 + 1,872, every tenant present at once: no arrivals over time;
    // 90 + 420 before 2026-12-07) +
    // the done ones parked, 16 MiB, the fold's open run 5,242,880 and
    // merge buffers 31 × 16 KiB = 507,904, the parked places 1,114,112,
    // the end states' open run 1,114,112 and merge buffers 16 × 8 KiB =
    // 131,072, + the prior's 6,400 = 2,368,234,696 (2,409,275,696
    // before 2026-12-07; 2,410,032,512 with
    // 92 a tenant before the end states were on disk; 2,408,918,400
    // before the parked places; 2,412,398,112 with 128 + 388 a tenant and an open
    // run of 4,718,592, before the fold took each tenant's arrival and
    // A*_i with its arrival)
    // (the fold, 1,001,000 × 184, was a term of its own before); results:
    // the rows, 16 MiB, and 1,001,000 × 8 = 8,008,000 (32 before
    // 2026-12-07, 34 before the end states were on disk, 1,001,000 × 144
    // before the rows spilled); loss curves: 8 MiB and a point of each of
    // the two in memory, 2 × 8,388,628 = 16,777,256 (all of their
    // 21,021,000 × 40 = 840,840,000 bytes before the curves spilled);
    // regret areas through sorted runs 524,288 + 2,162,688 + ⌈1,001,000
    // / 65,536⌉ = 16 × 8 KiB + the median's selection 2 × 8 × 1,001,000
    // (fewer than 2^20: collected) = 18,834,048 (1,001,000 × 16 =
    // 16,016,000 before 2026-12-07). Sum: 3,202,927,248 bytes = 2.98 GiB
    // (3,200,109,200 before the regret areas went through sorted runs;
    // 3,265,174,200 before each tenant counted only what a run holds; 3,267,933,016 before the end states were on disk;
    // 3,266,818,904 before the parked places; 3,270,298,616 before the fold took each tenant's
    // arrival and A*_i with its arrival, 3,421,707,688 before the state
    // of done tenants was counted apart, 3,265,072,120 before the parked
    // figures were sorted in runs).
    assert_eq!(e.total(), 3_202_927_248, "{e:?}");
    fs::write(tmp.path().join("s.toml"), &text).expect("write");
    let o = under_ulimit(
        1_000_000,
        &["validate", "s.toml", "--threads", "1", "--max-memory", "1G"],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("needs an estimated 3.0 GiB") && err.contains("1,001,000 tenants"),
        "{err}"
    );
    assert!(!err.contains("pairs"), "{err}");
}

/// With `--jobs`, a one-run scenario's job log was counted twice: once
/// for the run building it and once with the result that holds it until
/// it is folded, though the result holds the same log, moved. The
/// estimate of `scale-1m` with `--jobs` was 4.7 GiB too high, the year's
/// 45.9 GiB instead of about 23.5. `--jobs` then added the log once, 120
/// bytes a job. Since the log is written as jobs end (2026-12-07,
/// `models/sim/job_log.rs`), a model run holds a window of 128 jobs a GPU
/// at most (48 bytes each) and its result the log's two sequences, 39
/// bytes a job and 4 a completion, each at most 8 MiB in memory; the
/// service of a shared scenario counts its engine's log once either way
/// (with `--jobs` its result holds that log, moved). Its own records of
/// service jobs count 104 bytes a job; with `--jobs` the segments
/// `service/jobs.csv` is written from are kept, at their bound, and
/// sorted by job when it is written (since 2026-12-07: 64 bytes a job
/// before, kept by every run, and the estimate counted them either way).
#[test]
fn a_one_run_scenarios_job_log_was_counted_twice_with_jobs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let registry = ModelRegistry::builtin();
    let budget = |keep_jobs| MemoryBudget {
        max: None,
        threads: Some(1),
        keep_jobs,
    };
    // 10,100 users × 20 models; the estimate bounds the tenants by the
    // users when the split names no count (footprint.rs). 64 GPUs.
    let jobs = 10_100u64 * 20;
    let cap = 8u64 << 20;
    let sequences = (jobs * 39).min(cap) + (jobs * 4).min(cap);
    assert!(jobs * 39 < cap, "both sequences in memory here");
    let model: ScenarioFile = toml::from_str(&syn_scenario(10_100, 1)).expect("parses");
    let shape = trace_shape(tmp.path(), &model.trace).expect("shape");
    let without = estimate(&model, &shape, &budget(false), &registry).total();
    let with = estimate(&model, &shape, &budget(true), &registry).total();
    // The sequences once a result (sealed, their bytes) and once more for
    // the run writing them (a vector up to twice as long: since
    // 2026-12-07 a sealed sequence gives that room back, and the estimate
    // counted the result's sequences once, the writing's room nowhere).
    assert_eq!(with - without, 64 * 128 * 48 + 2 * sequences);
    // The same scenario as the service of a shared scenario.
    let without = estimate_in(&model, &shape, &budget(false), &registry, true).total();
    let with = estimate_in(&model, &shape, &budget(true), &registry, true).total();
    // Its engine keeps the log while the run goes (120 a job) and drops it
    // with the metrics; with `--jobs` its result keeps that log, moved:
    // the same 120 a job, not twice; and the service's segments, in
    // memory up to 1 MiB (in a Vec that may be twice as long), and when
    // `service/jobs.csv` is written their sort by job: an open run of
    // 2^15 segments (40 bytes and 8 for their order), the written runs
    // up to 1 MiB (twice that as a Vec) and 8 KiB a run to merge them,
    // one segment a job counted (since 2026-12-07; 64 bytes a job
    // before, one segment of 32 bytes in a Vec, growing with the
    // preemptions).
    // (The kept segments count 1 MiB a result, sealed, and 1 MiB more
    // for the run writing them.)
    let mib = 1u64 << 20;
    let sort = (1 << 15) * 48 + 2 * mib + jobs.div_ceil(1 << 15) * 8_192;
    assert_eq!(with - without, mib + mib + sort);
    // Past 8 MiB a sequence is on disk: 10^6 users hold 16 MiB of it.
    let big: ScenarioFile = toml::from_str(&syn_scenario(1_000_000, 1)).expect("parses");
    let shape = trace_shape(tmp.path(), &big.trace).expect("shape");
    let without = estimate(&big, &shape, &budget(false), &registry).total();
    let with = estimate(&big, &shape, &budget(true), &registry).total();
    assert_eq!(
        with - without,
        64 * 128 * 48 + 2 * (cap + (1_000_000 * 20 * 4u64).min(cap))
    );
}

/// The full validation of 1,001,000 × 20 with `--max-memory 8G`
/// (generates the 20-million-cell trace: about 3 minutes in a debug
/// build; run with `--ignored`).
#[test]
#[ignore = "generates 20 million cells: minutes in a debug build"]
fn a_million_users_by_twenty_models_validates_when_memory_allows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("s.toml"), syn_scenario(1_001_000, 1)).expect("write");
    let o = Command::new(binary())
        .args(["validate", "s.toml", "--threads", "1", "--max-memory", "8G"])
        .current_dir(tmp.path())
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("1001000 users × 20 models"));
}

/// The per-item bytes the estimate uses are at least the layouts' sizes
/// on this target: a `JobRecord` 48 bytes, a `TenantMetrics` 96, a
/// generated `TraceRow` 96.
#[test]
fn the_estimates_bytes_per_item_cover_the_layouts() {
    assert!(size_of::<JobRecord>() <= 48, "{}", size_of::<JobRecord>());
    assert!(
        size_of::<TenantMetrics>() <= 96,
        "{}",
        size_of::<TenantMetrics>()
    );
    assert!(size_of::<TraceRow>() <= 96, "{}", size_of::<TraceRow>());
}

/// Peak RSS (KB) of `tenantsim ARGS` in `dir` by GNU time, `None` where
/// GNU time is missing (a failure under `.ci/run`).
pub(crate) fn peak_rss_kb(args: &[&str], dir: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    let ok = Command::new(time)
        .args(["-f", "%M", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert_ne!(
            std::env::var("TENANTSIM_REQUIRE_SHARED_DATA").as_deref(),
            Ok("1"),
            "/usr/bin/time (GNU time) is required here"
        );
        return None;
    }
    let report = dir.join(".rss");
    let o = Command::new(time)
        .arg("-o")
        .arg(&report)
        .args(["-f", "%M"])
        .arg(binary())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = fs::read_to_string(&report).expect("GNU time's report");
    Some(
        text.lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("report `{text}`")),
    )
}

/// Writes a scenario of so many users.
type MakeScenario = fn(u64) -> String;

/// A shared scenario whose service has `users × 20` models (GP-UCB, 64
/// GPUs of 8 nodes) beside a background of 10 Gavel jobs.
fn shared_scenario(users: u64) -> String {
    let gavel = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/gavel-500.csv");
    format!(
        "mode = \"shared\"\nname = \"sh\"\nseed = 1\nrepetitions = 1\nfairness = false\n\
         thresholds = [0.05, 0.02, 0.01]\n[cluster]\nnodes = 8\ngpus_per_node = 8\n\
         scheduler = \"fifo\"\n[jobs]\npath = \"{}\"\nsample = 10\n[service]\nmax_gpus = 64\n\
         [service.trace.syn]\nusers = {users}\nmodels = 20\nseed = 1\n\
         [service.split]\nprior_count = 100\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n",
        gavel.display()
    )
}

/// The estimate `validate --max-memory 1T` describes for `name` in
/// `dir` (its first: a shared scenario's service's), in bytes (one
/// decimal of KiB, MiB or GiB).
fn stated_estimate(name: &str, dir: &Path, jobs: bool) -> u64 {
    stated_estimate_at(name, dir, jobs, "1")
}

/// [`stated_estimate`] at `threads` worker threads.
pub(crate) fn stated_estimate_at(name: &str, dir: &Path, jobs: bool, threads: &str) -> u64 {
    let o = Command::new(binary())
        .args(["validate", name, "--threads", threads, "--max-memory", "1T"])
        .args(jobs.then_some("--jobs"))
        .current_dir(dir)
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The first estimate described (a shared scenario's service's).
    bytes_stated(&err)
}

/// The bytes of the first `: an estimated X UNIT` of `text` (one decimal
/// of KiB, MiB or GiB).
pub(crate) fn bytes_stated(text: &str) -> u64 {
    let rest = text
        .split(": an estimated ")
        .nth(1)
        .unwrap_or_else(|| panic!("no estimate in {text}"));
    let mut words = rest.split_whitespace();
    let value: f64 = words.next().and_then(|v| v.parse().ok()).expect("a number");
    let unit = match words.next() {
        Some("KiB") => 1u64 << 10,
        Some("MiB") => 1 << 20,
        Some("GiB") => 1 << 30,
        other => panic!("unit {other:?} in {text}"),
    };
    (value * unit as f64) as u64
}

/// Growth of the stated estimate and of the measured peak RSS between a
/// small and a large scenario (`make(users)`), run and estimated with
/// `--jobs` when `jobs`; `None` without GNU time.
fn growths(make: impl Fn(u64) -> String, dir: &Path, jobs: bool) -> Option<(u64, u64, u64, u64)> {
    growths_at([600, 5_100], "1", make, dir, jobs)
}

/// [`growths`] between scenarios of `sizes` (`make(size)`), run and
/// estimated on `threads` worker threads.
pub(crate) fn growths_at(
    sizes: [u64; 2],
    threads: &str,
    make: impl Fn(u64) -> String,
    dir: &Path,
    jobs: bool,
) -> Option<(u64, u64, u64, u64)> {
    let mut points = Vec::new();
    for size in sizes {
        let name = format!("s{size}.toml");
        fs::write(dir.join(&name), make(size)).expect("write");
        let out = format!("out{size}");
        let mut args = vec![
            "run",
            &name,
            "--out",
            &out,
            "--quiet",
            "--no-plots",
            "--no-cache",
            "--threads",
            threads,
            "--force",
        ];
        if jobs {
            args.push("--jobs");
        }
        let kb = peak_rss_kb(&args, dir)?;
        points.push((stated_estimate_at(&name, dir, jobs, threads), kb * 1024));
    }
    Some((
        points[1].0 - points[0].0,
        points[1].1.saturating_sub(points[0].1),
        points[1].0,
        points[1].1,
    ))
}

/// `(estimated, measured, whole_estimate, whole_peak)` of [`growths`]:
/// the estimate grows by at least what the peak RSS grows by and at most
/// `factor` times it, and the larger run's whole estimate is above its
/// whole peak.
pub(crate) fn assert_bounds_growth(what: &str, growth: (u64, u64, u64, u64), factor: f64) {
    let (estimated, measured, whole_estimate, whole_peak) = growth;
    eprintln!("{what}: estimated growth {estimated} B, measured {measured} B");
    assert!(
        estimated >= measured,
        "{what}: the estimate grows by {estimated} B, the peak RSS by {measured} B"
    );
    assert!(
        estimated as f64 <= factor * measured as f64,
        "{what}: the estimate grows by {estimated} B, more than {factor} × the {measured} B measured"
    );
    assert!(
        whole_estimate >= whole_peak,
        "{what}: estimate {whole_estimate} B, peak {whole_peak} B"
    );
}

/// The estimate against measurement: runs (one thread, GP-UCB, 20
/// models) of 600 and 5,100 users, in model mode (without and with
/// `--jobs`) and as the service of a shared scenario; what the estimate grows by between them must be at
/// least what the measured peak RSS grows by (the program's own baseline
/// cancels out) and at most [`ESTIMATE_FACTOR`] times it, and the larger
/// run's whole estimate is above its whole peak. Measured when written
/// (debug build): model mode, peak RSS 27.1 → 45.8 MB, growth 18.7 MB
/// against an estimated 27.7 MB (1.48×; by hand at 2,000 → 20,000 users,
/// 72 MB against 110 MB, 1.52×); the shared service, growth 39.0 MB
/// against 42.8 MB (1.10×, the same in two runs). Model mode with
/// `--jobs` (added 2026-12-06): 21.0 MB against 31.0 MB (1.48×); 41.9 MB
/// estimated (2.04×) while the log was counted twice. On 2026-12-07, once
/// a tenant counted only what a run holds for it (footprint.rs): model
/// mode 16.4 MB against 19.9 MB (1.22×), with `--jobs` 20.0 MB against
/// 23.9 MB (1.20×), the shared service 34.9 MB against 45.9 MB (1.32×).
#[test]
fn the_estimate_bounds_the_measured_growth_of_peak_rss_within_its_factor() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, MakeScenario, bool); 3] = [
        ("model mode", |u| syn_scenario(u, 1), false),
        ("model mode with --jobs", |u| syn_scenario(u, 1), true),
        ("shared service", shared_scenario, false),
    ];
    for (what, make, jobs) in cases {
        let dir = tmp.path().join(what.replace(' ', "-"));
        fs::create_dir(&dir).expect("mkdir");
        let Some((estimated, measured, whole_estimate, whole_peak)) = growths(make, &dir, jobs)
        else {
            eprintln!("note: GNU time is missing: the estimate was not measured");
            return;
        };
        assert_bounds_growth(
            what,
            (estimated, measured, whole_estimate, whole_peak),
            ESTIMATE_FACTOR,
        );
    }
}

/// Every entry point takes the budget through the scenario overrides:
/// `Overrides::default()` checks against the machine, and an override of
/// 1 byte refuses even the hand scenario.
#[test]
fn the_library_load_path_checks_the_estimate_before_loading() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/quickstart.toml");
    let overrides = Overrides {
        memory: MemoryBudget {
            max: Some(1),
            ..MemoryBudget::default()
        },
        ..Overrides::default()
    };
    let err = tenantsim::models::scenario::load_scenario(&path, overrides).expect_err("refused");
    assert!(
        err.message().contains("needs an estimated"),
        "{}",
        err.message()
    );
    assert_eq!(err.exit_code(), 1);
    tenantsim::models::scenario::load_scenario(&path, Overrides::default()).expect("fits");
    // Job mode's load path too (it checked only a count of jobs before).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/jobs-quickstart.toml");
    let err = tenantsim::jobs::scenario::load_job_scenario(&path, overrides).expect_err("refused");
    assert!(
        err.message().contains("needs an estimated"),
        "{}",
        err.message()
    );
    let s =
        tenantsim::jobs::scenario::load_job_scenario(&path, Overrides::default()).expect("fits");
    assert!(s.memory_estimate().is_some());
}

/// The streaming pass over a job trace counts what the reader then
/// builds: the rows and users of `traces/gavel-500.csv` and of the hand
/// trace equal the loaded trace's, and the ids' heap is at least the
/// ids' bytes.
#[test]
fn the_job_trace_shape_is_known_without_reading_the_trace() {
    for name in ["traces/gavel-500.csv", "traces/jobs-hand.csv"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let shape = tenantsim::jobs::footprint::job_trace_shape(&path).expect("a shape");
        let trace = tenantsim::jobs::load_job_trace(&path).expect("reads");
        assert_eq!(shape.rows, trace.len() as u64, "{name}");
        assert_eq!(shape.users, trace.users().len() as u64, "{name}");
        let id_bytes: u64 = trace.ids().iter().map(|i| i.len() as u64).sum();
        assert!(shape.id_heap >= id_bytes + 8 * shape.rows, "{name}");
        assert_eq!(shape.file_bytes, fs::metadata(&path).expect("meta").len());
    }
}

/// The streaming pass over a trace file counts what the loader then
/// builds: rows, distinct users and models of `traces/lcdb.csv` equal the
/// loaded trace's users, models and pairs; the shape of `[trace.syn]` is
/// its keys (users × models × fidelities rows).
#[test]
fn the_trace_shape_is_known_without_loading_the_trace() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let section: tenantsim::models::scenario::TraceSection =
        toml::from_str("path = \"traces/lcdb.csv\"").expect("parses");
    let shape = trace_shape(repo, &section).expect("a regular CSV file");
    let trace = tenantsim::models::trace::load_trace(&repo.join("traces/lcdb.csv")).expect("loads");
    assert_eq!(shape.users, trace.n_users() as u64);
    assert_eq!(shape.models, trace.n_models() as u64);
    assert_eq!(shape.rows, trace.n_pairs() as u64);
    assert_eq!(
        shape.file_bytes,
        fs::metadata(repo.join("traces/lcdb.csv"))
            .expect("stat")
            .len()
    );
    assert!(!shape.curve && !shape.generated);
    let syn: tenantsim::models::scenario::TraceSection =
        toml::from_str("[syn]\nusers = 7\nmodels = 3\nfidelities = 4\n").expect("parses");
    let s = trace_shape(repo, &syn).expect("from the keys");
    assert_eq!((s.users, s.models, s.rows, s.curve), (7, 3, 84, true));
    // A device is not scanned (it would never end): the loader reports it.
    let dev: tenantsim::models::scenario::TraceSection =
        toml::from_str("path = \"/dev/zero\"").expect("parses");
    assert_eq!(trace_shape(repo, &dev), None);
}

/// The points of a sweep are loaded one after the other and run
/// together: each point's check counts what the earlier ones keep to the
/// end. Four points over `trace.syn.seed` (four distinct traces of 20,000
/// users × 20 models, round-robin): each keeps its trace matrices
/// 400,000 × 25 = 10,000,000 bytes, ids 20,020 × 80 = 1,601,600, loss
/// curves (400,000 + 20,000) × 20 = 8,400,000 each, in memory at most
/// 8 MiB and a point, 8,388,628 (all of it, 16,800,000 for the two,
/// before the curves spilled), so 16,777,256, and regret areas through
/// sorted runs, the open run 20,000 × 8 = 160,000, the written run in
/// memory 160,000, one merge stream of 8 KiB and the median's selection 2
/// × 8 × 20,000 = 320,000 (648,192; 20,000 × 16 = 320,000 before
/// 2026-12-07, every area held and sorted): 29,027,048 bytes. So point 2
/// counts 58,054,096 bytes (55.4 MiB; 54.7 before the regret areas went
/// through sorted runs, 54.8 before that) of points 0 and 1 and no longer
/// fits 130M, which one point
/// (81.6 MiB since the metrics are folded online and no job log is kept
/// without `--jobs`; 117.4 MiB before, against 150M) does.
#[test]
fn a_sweep_counts_what_its_earlier_points_keep() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = "name = \"sw\"\nrepetitions = 1\n[trace.syn]\nusers = 20000\nmodels = 20\nseed = 1\n\
                [split]\nprior_count = 100\n[cluster]\ngpus = 8\n\
                [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n\
                [sweep]\n\"trace.syn.seed\" = [1, 2, 3, 4]\n";
    fs::write(tmp.path().join("s.toml"), text).expect("write");
    let o = Command::new(binary())
        .args([
            "validate",
            "s.toml",
            "--threads",
            "1",
            "--max-memory",
            "130M",
        ])
        .current_dir(tmp.path())
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("error: [sweep] point 2 (trace.syn.seed = 3):"),
        "{err}"
    );
    assert!(
        err.contains("55.4 MiB kept by the sweep's earlier points (traces, loss curves)"),
        "{err}"
    );
}

/// A lazy `[trace.syn]` trace (DESIGN §1.2 "Per-user rows") is estimated
/// without its cells, ids or generation scratch: the same scenario held
/// dense is estimated at least 17 bytes a pair (accuracy, runtime,
/// availability) higher, and `trace_shape` says which.
#[test]
fn a_lazy_trace_is_estimated_without_its_cells() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let budget = MemoryBudget {
        max: Some(64 << 30),
        threads: Some(1),
        keep_jobs: false,
    };
    let total = |rows: &str| {
        let text = syn_scenario(1_001_000, 1).replace(
            "[trace.syn]\n",
            &format!("[trace.syn]\nrows = \"{rows}\"\n"),
        );
        let file: ScenarioFile = toml::from_str(&text).expect("parses");
        let shape = trace_shape(tmp.path(), &file.trace).expect("shape");
        assert_eq!(shape.lazy, rows == "lazy");
        let e = estimate(&file, &shape, &budget, &ModelRegistry::builtin());
        assert_eq!(
            e.items.iter().any(|i| i.what.starts_with("trace matrices")),
            rows == "dense",
            "{e:?}"
        );
        e.total()
    };
    let (dense, lazy) = (total("dense"), total("lazy"));
    let cells = 1_001_000u64 * 20;
    assert!(dense >= lazy + 17 * cells, "dense {dense}, lazy {lazy}");
}

/// The most intervals open at one instant, given their opens (+1) and
/// closes (−1) as (time, ±1): an open before a close at the same instant,
/// the larger count.
fn most_open_at_once(mut events: Vec<(f64, i32)>) -> usize {
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let (mut open, mut most) = (0i32, 0i32);
    for (_, d) in events {
        open += d;
        most = most.max(open);
    }
    most as usize
}

/// The tenants holding a GP posterior at once, measured from a run's
/// `jobs.csv` (a tenant holds one from its first completed job until its
/// last model's completion, or to the end when it has models left: DESIGN
/// §3.3 "Lifetime"): the most intervals open at one instant, a start
/// counted before an end at the same instant.
fn posteriors_held_at_most(jobs_csv: &str, models: usize) -> usize {
    use std::collections::BTreeMap;
    let mut rows = jobs_csv.lines();
    let header: Vec<&str> = rows.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (user, end) = (col("user"), col("end_s"));
    // Per user: (first completion, last completion, completions).
    let mut by_user: BTreeMap<String, (f64, f64, usize)> = BTreeMap::new();
    for line in rows {
        let f: Vec<&str> = line.split(',').collect();
        let t: f64 = f[end].parse().expect("end_s");
        let e = by_user.entry(f[user].to_string()).or_insert((t, t, 0));
        e.0 = e.0.min(t);
        e.1 = e.1.max(t);
        e.2 += 1;
    }
    let mut events: Vec<(f64, i32)> = Vec::new();
    for &(first, last, n) in by_user.values() {
        events.push((first, 1));
        events.push((if n == models { last } else { f64::INFINITY }, -1));
    }
    most_open_at_once(events)
}

/// The tenants present at once, measured from a run's `tenants.csv` and
/// `jobs.csv` where every tenant runs every model (no patience, budget
/// or job limit): a tenant is present from its arrival until its last
/// job ends, when it is done (DESIGN §2.6 "Done tenants"); the most
/// intervals open at one instant, a start counted before an end at the
/// same instant.
fn present_at_most(tenants_csv: &str, jobs_csv: &str) -> usize {
    use std::collections::BTreeMap;
    let columns = |text: &str| -> (Vec<String>, Vec<Vec<String>>) {
        let mut rows = text.lines();
        let header = rows
            .next()
            .expect("header")
            .split(',')
            .map(str::to_string)
            .collect();
        let body = rows
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        (header, body)
    };
    let col = |h: &[String], name: &str| h.iter().position(|c| c == name).expect(name);
    let (th, tr) = columns(tenants_csv);
    let (jh, jr) = columns(jobs_csv);
    let (tu, ta) = (col(&th, "user"), col(&th, "arrival_s"));
    let (ju, je) = (col(&jh, "user"), col(&jh, "end_s"));
    let mut last: BTreeMap<&str, f64> = BTreeMap::new();
    for r in &jr {
        let t: f64 = r[je].parse().expect("end_s");
        let e = last.entry(r[ju].as_str()).or_insert(t);
        *e = e.max(t);
    }
    let mut events: Vec<(f64, i32)> = Vec::new();
    for r in &tr {
        let arrival: f64 = r[ta].parse().expect("arrival_s");
        let done = last.get(r[tu].as_str()).copied().unwrap_or(arrival);
        events.push((arrival, 1));
        events.push((done, -1));
    }
    most_open_at_once(events)
}

/// The estimate counts GP posteriors for the tenants holding one at once
/// (footprint.rs `posteriors_at_once`, DESIGN §8.5 "Tenants present at
/// once"): under Poisson arrivals it is ⌈4 · G / (1 − ρ)⌉, an estimate
/// rather than a bound, so it is checked here against runs: 1,500
/// tenants of 5 models on 8 GPUs, greedy with cost-aware GP-UCB (the
/// scale scenarios' policy), at offered loads 0.3 to 0.89, uniform and
/// heavy-tailed lognormal runtimes. Measured with a release build: at
/// most 11, 17, 31, 38, 36 and 44 tenants against estimates of 46, 81,
/// 214, 291, 214 and 107.
#[test]
fn the_tenants_holding_a_posterior_at_once_stay_below_the_estimate() {
    let gpus = 8.0;
    for (load, cost, mean_s) in [
        (0.3, "uniform(0,100)", 50.0),
        (0.6, "uniform(0,100)", 50.0),
        (0.85, "uniform(0,100)", 50.0),
        (0.89, "uniform(0,100)", 50.0),
        // e^{3 + 1.2²/2} and e^{2 + 2²/2}.
        (0.85, "lognormal(3,1.2)", 41.264_394),
        (0.7, "lognormal(2,2)", 54.598_150),
    ] {
        let rate = load * gpus / (5.0 * mean_s) * 3600.0;
        let text = format!(
            "name = \"present\"\nseed = 3\nrepetitions = 1\nfairness = false\n\
             [trace.syn]\nusers = 1550\nmodels = 5\ncost = \"{cost}\"\nseed = 2\n\
             [split]\nprior_count = 50\n[arrivals]\nkind = \"poisson\"\nrate_per_hour = {rate}\n\
             [cluster]\ngpus = 8\n[output]\nplots = false\n\
             [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n"
        );
        let file: ScenarioFile = toml::from_str(&text).expect("parses");
        let estimated = posteriors_at_once(&file, 1500);
        let want = (PRESENT_FACTOR * gpus / (1.0 - load)).ceil() as u64;
        assert!(
            estimated.abs_diff(want) <= 1,
            "{cost} at {load}: {estimated}"
        );
        let tmp = tempfile::tempdir().expect("tempdir");
        fs::write(tmp.path().join("s.toml"), &text).expect("write");
        let o = Command::new(binary())
            .args([
                "run",
                "s.toml",
                "--out",
                "out",
                "--jobs",
                "--quiet",
                "--no-plots",
            ])
            .env("TENANTSIM_CACHE", "off")
            .current_dir(tmp.path())
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", stderr(&o));
        let jobs = fs::read_to_string(tmp.path().join("out/jobs.csv")).expect("jobs.csv");
        let held = posteriors_held_at_most(&jobs, 5);
        let rows = fs::read_to_string(tmp.path().join("out/tenants.csv")).expect("tenants.csv");
        let present = present_at_most(&rows, &jobs);
        eprintln!(
            "{cost} at load {load}: at most {held} posteriors and {present} tenants present, \
             estimated {estimated}"
        );
        assert!(held >= 2, "{cost} at {load}: {held}");
        assert!(present >= held, "{cost} at {load}: {present} < {held}");
        assert!(
            held as u64 <= estimated,
            "{cost} at {load}: {held} posteriors at once, estimated {estimated}"
        );
        assert!(
            present as u64 <= estimated,
            "{cost} at {load}: {present} tenants present at once, estimated {estimated}"
        );
    }
    // Tenants all present at the start: every one counts.
    let at_start: ScenarioFile = toml::from_str(&syn_scenario(5_000, 1)).expect("parses");
    assert_eq!(posteriors_at_once(&at_start, 4_900), 4_900);
}

/// A hand example of `posteriors_at_once`: 1,141.55 arrivals an hour of
/// tenants with 20 models of uniform(0,500) runtimes on 2,048 GPUs (the
/// year): ρ = 1,141.55/3,600 × 20 × (250 + 10⁻⁶) / 2,048 = 0.77416, so
/// ⌈4 × 2,048 / 0.22584⌉ = 36,275; a budget makes it every tenant, as do
/// a load of 0.95, a trace file and being a shared scenario's service.
#[test]
fn the_posteriors_at_once_of_the_year_by_hand() {
    let year = |extra: &str| -> ScenarioFile {
        toml::from_str(&format!(
            "name = \"y\"\n[trace.syn]\nusers = 10001000\nmodels = 20\ncost = \"uniform(0,500)\"\n\
             [split]\nprior_count = 1000\n[arrivals]\nkind = \"poisson\"\n\
             rate_per_hour = 1141.552511415525\n[cluster]\ngpus = 2048\n{extra}\
             [[policy]]\nname = \"p\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n"
        ))
        .expect("parses")
    };
    let load: f64 = 1141.552511415525 / 3600.0 * 20.0 * (250.0 + 1e-6) / 2048.0;
    let by_hand = (4.0 * 2048.0 / (1.0 - load)).ceil() as u64;
    assert_eq!(posteriors_at_once(&year(""), 10_000_000), by_hand);
    assert_eq!(by_hand, 36_275);
    assert_eq!(
        posteriors_at_once(&year("[limits]\nbudget_gpu_s = 100\n"), 10_000_000),
        10_000_000
    );
    let heavy = year("").arrivals.rate_per_hour.map(|r| r * 0.95 / load);
    let mut full = year("");
    full.arrivals.rate_per_hour = heavy;
    assert_eq!(posteriors_at_once(&full, 10_000_000), 10_000_000);
    // As the service of a shared scenario (other jobs share its GPUs):
    // every tenant.
    let service = year("");
    let shape = trace_shape(Path::new("."), &service.trace).expect("shape");
    let budget = MemoryBudget {
        threads: Some(1),
        ..MemoryBudget::default()
    };
    let registry = ModelRegistry::builtin();
    let as_service = estimate_in(&service, &shape, &budget, &registry, true);
    let alone = estimate_in(&service, &shape, &budget, &registry, false);
    let says = |e: &tenantsim::core::memory::Estimate, n: &str| {
        format!("{e:?}").contains(&format!(
            "GP posteriors of 1,872 bytes for {n} of them at once"
        ))
    };
    assert!(says(&as_service, "10,001,000"), "{as_service:?}");
    assert!(says(&alone, "36,275"), "{alone:?}");
    // Half the tenants at the same rate: as many present at once, so the
    // estimate falls by what a tenant not present holds, by hand 25
    // bytes of simulation state (footprint.rs: its arrival time, two
    // copies, and the queue's order, 20; the sampled split's pool of
    // users while it is drawn, 4; a bit in six tables, 1; its end reason
    // and budget flag are in runs on disk; its trace user is the split's
    // "every user but the prior ones", no list; 74 before 2026-12-07,
    // which counted three copies of a listed trace user, a count of
    // available models, its place among the arrivals waiting for the job
    // curve and a leave time, none of which a run of this scenario holds
    // for a tenant not present; 76 before the end states were
    // held in runs on disk, 80 before the engine's
    // slot numbers were indexed by the tenants holding one and its
    // parked tenants' places held in sorted runs, a fixed 1.06 MiB in both
    // runs; 92 before the slot numbers
    // of the score heap, the GP selector and the fold were indexed by the
    // tenants holding one: 8 × 36,275 is below both runs' tenants, so
    // they count 32 bytes a table for each present tenant, the same in
    // both), 16 of results (arrival 8, regret area alone 8; no leave
    // time without a patience, no listed user; its row is on disk,
    // and its end state: 40 before 2026-12-07, 42 before the end states
    // were on disk): 41 bytes × 5,000,000 (57 before the figures' regret
    // areas went through sorted runs on disk, 16 a tenant; 130 before
    // 2026-12-07, 134 before the end states were on disk, 138
    // before the engine's slot numbers, 150 before); the
    // merge of the parked figures' runs reads ⌈10^7 / 32,768⌉ − ⌈5 × 10^6
    // / 32,768⌉ = 306 − 153 runs fewer, 16 KiB each, and the merge of the
    // end states' runs ⌈10^7 / 65,536⌉ − ⌈5 × 10^6 / 65,536⌉ = 153 − 77 =
    // 76 fewer, 8 KiB each, and the merge of the figures' regret areas
    // as many fewer, 8 KiB each.
    let mut half = year("");
    if let Some(syn) = half.trace.syn.as_mut() {
        syn.users = 5_001_000;
    }
    let half_shape = trace_shape(Path::new("."), &half.trace).expect("shape");
    let smaller = estimate_in(&half, &half_shape, &budget, &registry, false);
    assert!(says(&smaller, "36,275"), "{smaller:?}");
    assert_eq!(
        alone.total() - smaller.total(),
        41 * 5_000_000 + 153 * 16_384 + 76 * 8_192 + 76 * 8_192
    );
    // With the arrivals drawn as the run goes (`order = "streamed"`, as
    // scale-year has them): no time and no order for a tenant not present
    // (20 bytes fewer, 1 more for the draw's bit and counts: 6) and no
    // arrival in the results (8 fewer: 8), so 14 bytes × 5,000,000 (30
    // before the figures' regret areas went through sorted runs, 103
    // before 2026-12-07, 107 before the end states were on disk, 111
    // before the engine's slot numbers), and the same fewer runs to
    // merge.
    let streamed = |users| {
        let mut f = year("");
        f.arrivals.order = Some("streamed".into());
        if let Some(syn) = f.trace.syn.as_mut() {
            syn.users = users;
        }
        let shape = trace_shape(Path::new("."), &f.trace).expect("shape");
        estimate_in(&f, &shape, &budget, &registry, false)
    };
    let (whole, half) = (streamed(10_001_000), streamed(5_001_000));
    assert_eq!(
        whole.total() - half.total(),
        14 * 5_000_000 + 153 * 16_384 + 76 * 8_192 + 76 * 8_192
    );
    // And, the same tenants present, 19 + 8 bytes less a tenant of the
    // run (the estimate counts every user of the trace as a tenant,
    // footprint.rs), 8 more a tenant present (its arrival, beside its
    // slot).
    assert_eq!(alone.total() - whole.total(), 27 * 10_001_000 - 8 * 36_275);
    let mut file_trace = year("");
    file_trace.trace.syn = None;
    file_trace.trace.path = Some("t.csv".into());
    assert_eq!(posteriors_at_once(&file_trace, 10_000_000), 10_000_000);
}

/// `validate` of a scenario that fits printed nothing of its estimate,
/// though a team sizing a service reads it there first: it now prints the
/// estimate the run is checked against, its largest items and the limit
/// it is within, the same figure a refusal states.
#[test]
fn validate_said_nothing_of_the_memory_a_passing_scenario_needs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = syn_scenario(5_000, 4);
    fs::write(tmp.path().join("s.toml"), &text).expect("write");
    let run = |extra: &[&str]| {
        let o = Command::new(binary())
            .args([&["validate", "s.toml", "--threads", "1"][..], extra].concat())
            .current_dir(tmp.path())
            .output()
            .expect("runs");
        (o.status.code(), stderr(&o))
    };
    let (code, passed) = run(&["--max-memory", "64G"]);
    assert_eq!(code, Some(0), "{passed}");
    let memory = passed
        .lines()
        .find_map(|l| l.strip_prefix("  memory (--threads 1): an estimated "))
        .unwrap_or_else(|| panic!("no memory line in {passed}"));
    assert!(
        memory.ends_with("), within the 64.0 GiB of `--max-memory`"),
        "{memory}"
    );
    assert!(
        memory.contains("5,000 tenants' simulation state"),
        "{memory}"
    );
    // The figure is the estimate's: a limit below it refuses with it.
    let total = memory.split(" (").next().expect("a size");
    let (code, refused) = run(&["--max-memory", "1M"]);
    assert_eq!(code, Some(1), "{refused}");
    assert!(
        refused.contains(&format!("needs an estimated {total} of memory (")),
        "{total} / {refused}"
    );
    // With `--jobs` the job logs are counted too, and said.
    let (code, jobs) = run(&["--max-memory", "64G", "--jobs"]);
    assert_eq!(code, Some(0), "{jobs}");
    assert!(
        jobs.contains("  memory (--threads 1, --jobs): an estimated "),
        "{jobs}"
    );
    assert!(!passed.contains("the sweep's largest"), "{passed}");
}

/// The line starting with `prefix` of `tenantsim validate SCENARIO
/// --threads 1 --max-memory 64G` (a bundled scenario), which passes.
fn validate_line(scenario: &str, prefix: &str) -> String {
    let o = Command::new(binary())
        .args([
            "validate",
            scenario,
            "--threads",
            "1",
            "--max-memory",
            "64G",
        ])
        .current_dir(crate::common::repo(""))
        .output()
        .expect("runs");
    let text = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line `{prefix}…` in {text}"))
        .to_string()
}

/// A sweep is described by its point 0, but its later points hold what
/// the points before them keep (DESIGN §8.5): `validate` names the point
/// with the largest estimate too.
#[test]
fn validate_names_a_sweeps_largest_memory_point() {
    let line = validate_line(
        "scenarios/sweep.toml",
        "  memory (--threads 1) at point 5 (cluster.gpus = 3, split.tenant_count = 3), \
         the sweep's largest: an estimated ",
    );
    assert!(
        line.contains("kept by the sweep's earlier points (traces, loss curves)"),
        "{line}"
    );
}

/// A shared scenario's service is estimated like a model scenario (DESIGN
/// §8.5), and `validate` states its estimate too.
#[test]
fn validate_states_a_shared_services_memory_estimate() {
    let line = validate_line(
        "scenarios/shared-quickstart.toml",
        "  service memory (--threads 1): an estimated ",
    );
    assert!(
        line.ends_with("), within the 64.0 GiB of `--max-memory`"),
        "{line}"
    );
    // Its background's too (a job trace, estimated as job mode does).
    let line = validate_line(
        "scenarios/shared-quickstart.toml",
        "  background memory (--threads 1): an estimated ",
    );
    assert!(line.contains("job trace (500 jobs, "), "{line}");
}

/// A shared scenario's service and background run at once, but each was
/// checked alone against the budget (and the background against the
/// machine, whatever `--max-memory` said): a budget between the larger
/// part and their sum passed. Now `validate` states their sum (`memory of
/// both`: the parts less one program) and refuses it past the budget.
#[test]
fn a_shared_scenarios_service_and_background_were_checked_one_by_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    // A service of 2,000 users × 20 models beside a background of 50,000
    // jobs: parts of tens of MB each.
    fs::write(dir.join("t.csv"), job_trace(50_000)).expect("write");
    let gavel = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/gavel-500.csv");
    let text = shared_scenario(2_000)
        .replace(&gavel.display().to_string(), "t.csv")
        .replace("sample = 10\n", "");
    fs::write(dir.join("s.toml"), text).expect("write");
    let validate = |budget: &str| {
        Command::new(binary())
            .args([
                "validate",
                "s.toml",
                "--threads",
                "1",
                "--max-memory",
                budget,
            ])
            .current_dir(dir)
            .output()
            .expect("runs")
    };
    let o = validate("1T");
    let text = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let line = |prefix: &str| {
        bytes_stated(
            text.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("no line `{prefix}…` in {text}")),
        )
    };
    let service = line("  service memory (--threads 1)");
    let background = line("  background memory (--threads 1)");
    let both = line("  memory of both (--threads 1)");
    let program = 32u64 << 20;
    // Each stated to a tenth of a MiB.
    let sum = service + background - program;
    assert!(
        both.abs_diff(sum) <= 3 * (1 << 20) / 10,
        "{both} B against {sum} B"
    );
    assert!(service.min(background) > program + (8 << 20), "{text}");
    let budget = service.max(background) + (service.min(background) - program) / 2;
    let o = validate(&budget.to_string());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Refused with the sum, not with either part.
    let refused = err
        .split("s.toml: needs an estimated ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(
        bytes_stated(&format!(": an estimated {refused}")),
        both,
        "{err}"
    );
    assert!(err.contains(" background: "), "{err}");
}

/// Before, a run's memory was measured only from outside (`/usr/bin/time`)
/// and its estimate stated only by `validate`: `run.json` and the run's
/// summary said neither. Now `run.json`'s `memory` holds the peak the
/// process measured (`VmHWM`) beside the estimate, and the summary says
/// both. Checked against independent figures: the peak against GNU time's
/// `ru_maxrss` of the same process (the folder is written at the end of
/// the run, so at least 90 % of the process's whole peak and not above
/// it, less a page-counter's rounding), the estimate against the one
/// `validate` states with the same flags.
#[test]
fn run_json_stated_neither_the_peak_a_run_took_nor_its_estimate() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    // Without figures in the file, not by `--no-plots`, so that `validate`
    // (which has no such flag) estimates the same run.
    let text = format!("{}[output]\nplots = false\n", syn_scenario(5_100, 1));
    fs::write(dir.join("s.toml"), text).expect("write");
    let args = [
        "run",
        "s.toml",
        "--out",
        "out",
        "--no-cache",
        "--threads",
        "1",
    ];
    let Some(kb) = peak_rss_kb(&args, dir) else {
        eprintln!("note: GNU time is missing: the stated peak was not compared");
        return;
    };
    let text = fs::read_to_string(dir.join("out/run.json")).expect("run.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let memory = &doc["memory"];
    let peak = memory["peak_rss_bytes"].as_u64().expect("a peak on Linux");
    let whole = kb * 1024;
    // Linux counts resident pages per CPU and sums them lazily: each of
    // its three counters (file, anonymous, shared) may be off by its batch
    // (max(32, 2n) pages) on each of n CPUs, at either reading. Measured
    // on 2 cores: run.json 36,532,224 B against GNU time's 35,408 KB, 268
    // KB above.
    let n = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let slack = (3 * (2 * n).max(32) * n * 4096).max(1 << 20);
    assert!(
        (peak + slack) * 10 >= whole * 9 && peak <= whole + slack,
        "run.json's peak {peak} B against GNU time's {whole} B"
    );
    let stated = stated_estimate("s.toml", dir, false) as f64;
    let estimate = memory["estimate_bytes"].as_u64().expect("an estimate") as f64;
    // `validate` states one decimal of MiB.
    assert!(
        (estimate - stated).abs() <= 0.05 * f64::from(1 << 20) + 1.0,
        "run.json's estimate {estimate} B against validate's {stated} B"
    );
    assert!(
        doc["varying_fields"]
            .as_array()
            .is_some_and(|v| v.iter().any(|f| f == "memory")),
        "{text}"
    );
    // The summary says both, as `human_bytes` writes them.
    let o = Command::new(binary())
        .args(args)
        .arg("--force")
        .current_dir(dir)
        .output()
        .expect("runs");
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.starts_with("memory: "))
        .unwrap_or_else(|| panic!("no memory line in {err}"));
    assert!(
        line.contains(" at peak (resident), estimated ") && line.ends_with(" MiB"),
        "{line}"
    );
}

/// A job trace of `n` jobs of 100 users (arrivals every 0.5 s on
/// average, durations of 1 to 240 s, 1, 2 or 4 GPUs) from a fixed
/// linear congruential sequence, as CSV text.
fn job_trace(n: u64) -> String {
    let mut x: u64 = 3;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    };
    let mut text = String::from("job_id,user,submit_s,duration_s,gpus\n");
    let mut t = 0u64;
    for i in 0..n {
        t += next(1000);
        let gpus = [1, 1, 1, 2, 4][next(5) as usize];
        text.push_str(&format!(
            "j{i},u{},{}.{:03},{},{gpus}\n",
            next(100),
            t / 1000,
            t % 1000,
            1 + next(240)
        ));
    }
    text
}

/// A job scenario over `trace` on 32 nodes of 8 GPUs, `fifo` and `sjf`.
fn job_scenario(trace: &str, reps: u32) -> String {
    format!(
        "mode = \"jobs\"\nname = \"j\"\nseed = 1\nrepetitions = {reps}\n[jobs]\npath = \"{trace}\"\n\
         [cluster]\nnodes = 32\ngpus_per_node = 8\n[output]\nplots = false\n\
         [[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n\
         [[policy]]\nname = \"sjf\"\nscheduler = \"sjf\"\n"
    )
}

/// Job mode's limit was a count (at most 5,000,000 jobs a trace, "about
/// 480 bytes each to run"), blind to repetitions at once and to the
/// machine. Now its estimate (`jobs::footprint`) is checked before the
/// trace is read: the estimate against measurement, runs of 20,000 and
/// 200,000 jobs (`fifo` and `sjf`) on one thread, on two, and with
/// `--jobs`; what the estimate grows by between them must be at least
/// what the measured peak RSS grows by and at most
/// [`JOB_ESTIMATE_FACTOR`] times it, and the larger run's whole estimate
/// is above its whole peak. Measured when written (debug build, 2
/// cores): 84.9 MB against an estimated 111.8 MB on one thread (1.32×),
/// 100.4 against 172.8 on two (1.72×), 85.1 against 111.8 with `--jobs`
/// (1.31×; 110.1 MB, 1.02×, while a run's rows were formatted whole
/// before they were spooled); by a release build at 1,000,000 →
/// 3,000,000 jobs (docs/PERFORMANCE.md, "Job mode's memory estimate"),
/// 1.38× (one thread) and 1.74× (two).
#[test]
fn a_job_traces_limit_was_a_count_not_an_estimate_of_its_memory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    for n in [20_000u64, 200_000] {
        fs::write(dir.join(format!("t{n}.csv")), job_trace(n)).expect("write");
    }
    for (what, threads, jobs) in [
        ("one thread", "1", false),
        ("two threads", "2", false),
        ("one thread, --jobs", "1", true),
    ] {
        let make = |n| job_scenario(&format!("t{n}.csv"), 1);
        let Some(growth) = growths_at([20_000, 200_000], threads, make, dir, jobs) else {
            eprintln!("note: GNU time is missing: the estimate was not measured");
            return;
        };
        assert_bounds_growth(&format!("job mode, {what}"), growth, JOB_ESTIMATE_FACTOR);
    }
}

/// The peak RSS of `run NAME --out OUT --quiet --no-cache --threads 1`
/// in `dir` (with `--jobs` when `jobs`), in KB; `None`, and a note, without
/// GNU time.
fn one_thread_peak_kb(name: &str, out: &str, dir: &Path, jobs: bool) -> Option<u64> {
    let mut args = vec![
        "run",
        name,
        "--out",
        out,
        "--quiet",
        "--no-cache",
        "--threads",
        "1",
    ];
    if jobs {
        args.push("--jobs");
    }
    let kb = peak_rss_kb(&args, dir);
    if kb.is_none() {
        eprintln!("note: GNU time is missing: the peak was not measured");
    }
    kb
}

/// A preemptive run's segment log was a vector of every interval a job
/// held GPUs, which grew with the preemptions (44 bytes each) while the
/// estimate counted one segment a job: `max-min-fairness` in rounds of
/// 1 s over 200 jobs of 20 s and of 2,000 s (3,800 and 399,800
/// preemptions, about 18 MB of segments) had the same estimate, and the
/// larger run peaked 20.6 MB higher (release build, 11,972 → 32,596 KB).
/// Now the log moves to a temporary file past 1 MiB
/// (`jobs/sim/segment_log.rs`) and the estimate counts its bound for a
/// preemptive policy: the same two runs grow by less than that bound
/// (debug build: 16,952 → 18,320 KB), and the larger run's estimate is
/// above its peak.
#[test]
fn a_preemptive_runs_segment_log_grew_with_its_preemptions() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let mut peaks = Vec::new();
    for d in [20, 2_000] {
        let mut trace = String::from("job_id,user,submit_s,duration_s,gpus\n");
        for i in 0..200 {
            trace.push_str(&format!("j{i},u{},0,{d},1\n", i % 10));
        }
        fs::write(dir.join(format!("t{d}.csv")), trace).expect("write");
        let name = format!("s{d}.toml");
        fs::write(
            dir.join(&name),
            format!(
                "mode = \"jobs\"\nname = \"p\"\n[jobs]\npath = \"t{d}.csv\"\n\
                 [cluster]\nnodes = 5\ngpus_per_node = 4\nround_s = 1\n[output]\nplots = false\n\
                 [[policy]]\nname = \"mmf\"\nscheduler = \"max-min-fairness\"\n"
            ),
        )
        .expect("write");
        let out = format!("out{d}");
        let Some(kb) = one_thread_peak_kb(&name, &out, dir, false) else {
            return;
        };
        let summary = fs::read_to_string(dir.join(&out).join("summary.csv")).expect("summary");
        let preemptions: u64 = summary
            .lines()
            .nth(1)
            .and_then(|row| row.split(',').nth(11))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("preemptions in {summary}"));
        peaks.push((stated_estimate(&name, dir, false), kb * 1024, preemptions));
    }
    let [(small_estimate, small_peak, few), (estimate, peak, many)] = peaks[..] else {
        unreachable!("two runs")
    };
    // 46 bytes a segment: 399,800 preemptions are 18.4 MB of log.
    assert!(
        few < 5_000 && many > 390_000,
        "{few} and {many} preemptions"
    );
    assert_eq!(small_estimate, estimate, "the same jobs, the same estimate");
    let bound = tenantsim::jobs::footprint::segment_log_bytes(200, true);
    let growth = peak.saturating_sub(small_peak);
    eprintln!("peak {small_peak} → {peak} B ({growth} B), the log's bound {bound} B");
    assert!(
        growth <= bound,
        "{many} preemptions grew the peak by {growth} B, more than the log's bound of {bound} B"
    );
    assert!(estimate >= peak, "estimate {estimate} B, peak {peak} B");
}

/// A shared run's service segments (kept with `--jobs` for
/// `service/jobs.csv`) and its share log (`shares.csv`) were vectors that
/// grew with the preemptions, and each run's rows of both files were
/// formatted whole before they were written, while the estimate counted
/// one segment a service job and no share at all: under
/// `max-min-fairness` in rounds of 1 s, 20 background jobs and 40 service
/// tenants × 5 models of 20 s and of 20,000 s (265 and 399,621 segment
/// rows, 96 and 80,207 share rows) had the same estimate, and the larger
/// run peaked 90 MB higher than the smaller (release build, 11,872 →
/// 101,848 KB), far above its estimate (about 34 MiB). Now both logs move
/// to a temporary file past 1 MiB (`core::io::record_log`), the segments
/// are sorted by job in runs (`shared::report`), every row goes to its
/// file as it is made, and the estimate counts the bounds: the larger
/// run's peak is below its estimate (debug build: 18,456 → 30,808 KB,
/// estimate 43.7 MiB). The rows are checked against what they must be:
/// sorted by job and start, each job's segments numbered from 0, every
/// job completed on its last segment.
#[test]
fn a_preempted_services_segments_and_shares_grew_with_its_preemptions() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let mut peaks = Vec::new();
    for d in [20, 20_000] {
        let mut trace = String::from("job_id,user,submit_s,duration_s,gpus\n");
        for i in 0..20 {
            trace.push_str(&format!("j{i},u{},0,{d},1\n", i % 4));
        }
        fs::write(dir.join(format!("t{d}.csv")), trace).expect("write");
        let name = format!("s{d}.toml");
        fs::write(
            dir.join(&name),
            format!(
                "mode = \"shared\"\nname = \"p\"\nseed = 1\nrepetitions = 1\n\
                 fairness = false\nthresholds = [0.05]\n\
                 [cluster]\nnodes = 5\ngpus_per_node = 4\n\
                 scheduler = \"max-min-fairness\"\nround_s = 1\n\
                 [jobs]\npath = \"t{d}.csv\"\n[service]\npriority = \"equal\"\n\
                 [service.trace.syn]\nusers = 40\nmodels = 5\nseed = 1\n\
                 cost = \"constant({d})\"\n[service.split]\nprior_count = 0\n\
                 [output]\nplots = false\n\
                 [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n"
            ),
        )
        .expect("write");
        let out = format!("out{d}");
        let Some(kb) = one_thread_peak_kb(&name, &out, dir, true) else {
            return;
        };
        let o = Command::new(binary())
            .args(["validate", &name, "--threads", "1", "--jobs"])
            .current_dir(dir)
            .output()
            .expect("runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let both = err
            .split("memory of both")
            .nth(1)
            .unwrap_or_else(|| panic!("the estimate of both in {err}"));
        let rows = |file: &str| {
            fs::read_to_string(dir.join(&out).join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
        };
        let segments = rows("service/jobs.csv");
        check_segment_rows(&segments);
        let shares = rows("shares.csv").lines().count() - 1;
        peaks.push((
            bytes_stated(both),
            kb * 1024,
            segments.lines().count() - 1,
            shares,
        ));
    }
    let [
        (small_estimate, small_peak, few, _),
        (estimate, peak, many, changes),
    ] = peaks[..]
    else {
        unreachable!("two runs")
    };
    assert!(
        few < 1_000 && many > 390_000 && changes > 75_000,
        "{few} and {many} segments, {changes} share changes"
    );
    assert_eq!(small_estimate, estimate, "the same jobs, the same estimate");
    eprintln!(
        "peak {small_peak} → {peak} B ({} B), estimate {estimate} B",
        peak.saturating_sub(small_peak)
    );
    assert!(estimate >= peak, "estimate {estimate} B, peak {peak} B");
}

/// `service/jobs.csv`'s rows (policy, rep, job, gpu, user, model,
/// start_s, end_s, accuracy, segment, gpus, overhead_s, completed) as
/// DESIGN §13.5 says: by job, a job's segments by start and numbered from
/// 0, and the last one of each job completed it (here every job
/// completes).
fn check_segment_rows(text: &str) {
    let mut last: Option<(u64, f64, u64)> = None;
    let mut completed_last = true;
    for row in text.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let job: u64 = f[2].parse().expect("job");
        let start: f64 = f[6].parse().expect("start_s");
        let segment: u64 = f[9].parse().expect("segment");
        let completed = f[12] == "1";
        match last {
            Some((j, s, k)) if j == job => {
                assert!(
                    !completed_last,
                    "job {job} completed before its segment {segment}"
                );
                assert!(start >= s && segment == k + 1, "job {job}: {row}");
            }
            Some((j, _, _)) => {
                assert!(job > j && completed_last, "job {j} then {job}: {row}");
                assert_eq!(segment, 0, "{row}");
            }
            None => assert_eq!(segment, 0, "{row}"),
        }
        last = Some((job, start, segment));
        completed_last = completed;
    }
    assert!(completed_last, "the last job completed");
}

/// The must-hold of issue 34 in job mode: a job scenario whose runs
/// would need about 50 GB (200,000 jobs, 1,000 repetitions on 1,000
/// threads: 1,000 runs at once of 200,000 × 251 bytes and a segment log
/// of 2 MiB; 150,000 jobs before 2026-12-07, when the segment log was
/// counted at 88 bytes a job, unbounded) is refused by
/// `validate` with its estimate, under an address-space limit of 1 GB,
/// having read the trace once without holding it; `--max-memory` lets it
/// pass. The count limit before it took this scenario and would have
/// aborted its run.
#[test]
fn validate_of_a_fifty_gb_job_scenario_exits_1_with_the_estimate() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    fs::write(dir.join("t.csv"), job_trace(200_000)).expect("write");
    fs::write(dir.join("s.toml"), job_scenario("t.csv", 1000)).expect("write");
    let args = ["validate", "s.toml", "--threads", "1000"];
    let o = under_ulimit(1_000_000, &args, dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // 1,000 × (200,000 × 251 + 2 × 2^20) = 52,297,152,000 bytes of runs
    // (48.7 GiB), beside the trace and the program.
    assert!(
        err.contains("s.toml: needs an estimated 48.")
            && err.contains(
                " GiB of memory (48.7 GiB runs at once (1000 of 200,000 jobs, 49.9 MiB each)"
            ),
        "{err}"
    );
    assert!(err.contains("--max-memory"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    let passed = under_ulimit(
        1_000_000,
        &[&args[..], &["--max-memory", "64G"]].concat(),
        dir,
    );
    assert_eq!(passed.status.code(), Some(0), "{}", stderr(&passed));
    assert!(
        stderr(&passed).contains("memory (--threads 1000): an estimated 48."),
        "{}",
        stderr(&passed)
    );
}

/// A trace file larger than the memory was scanned for its shape before
/// the estimate refused it: a sparse file of 1 TiB of zero bytes (no line
/// end anywhere, so a scan reads all of it and holds it as one record)
/// was read until the machine ran out of memory, in model mode; job mode
/// made no estimate. Now both refuse it by its size at once.
#[test]
fn a_trace_larger_than_the_memory_was_scanned_before_it_was_refused() {
    let model = "name = \"m\"\nseed = 1\n[trace]\npath = \"t.csv\"\n[cluster]\ngpus = 1\n\
                 [[policy]]\nname = \"a\"\nscheduler = \"round-robin\"\nselector = \"random\"\n";
    for (what, scenario, item) in [
        (
            "job mode",
            job_scenario("t.csv", 1),
            "reading the job trace",
        ),
        ("model mode", model.to_string(), "reading the trace"),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        let f = fs::File::create(dir.join("t.csv")).expect("create");
        if f.set_len(1 << 40).is_err() {
            eprintln!("note: this file system has no sparse files of 1 TiB: not checked");
            return;
        }
        fs::write(dir.join("s.toml"), scenario).expect("write");
        let mut child = Command::new(binary())
            .args(["validate", "s.toml", "--max-memory", "64G"])
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("runs");
        // A guard, not a timing: a scan of the file takes hours, so a
        // command still running after two minutes scanned it.
        let started = std::time::Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed().as_secs() > 120 {
                let _ = child.kill();
                panic!("{what}: validate scanned a 1 TiB trace instead of refusing it by its size");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().expect("output");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        assert!(
            err.contains(&format!(
                "s.toml: needs an estimated 1.0 TiB of memory (1.0 TiB {item} (the file's bytes, were it one record)"
            )),
            "{what}: {err}"
        );
    }
}

/// A job-mode run states its estimate beside its peak in `run.json`
/// (`null` before job mode made one): the estimate `validate` states
/// with the same flags.
#[test]
fn a_job_runs_json_stated_no_memory_estimate() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    fs::write(dir.join("t.csv"), job_trace(5_000)).expect("write");
    fs::write(dir.join("s.toml"), job_scenario("t.csv", 2)).expect("write");
    let o = Command::new(binary())
        .args(["run", "s.toml", "--out", "out", "--no-cache", "--quiet"])
        .args(["--threads", "2"])
        .current_dir(dir)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = fs::read_to_string(dir.join("out/run.json")).expect("run.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let estimate = doc["memory"]["estimate_bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no estimate in {text}")) as f64;
    let stated = stated_estimate_at("s.toml", dir, false, "2") as f64;
    assert!(
        (estimate - stated).abs() <= 0.05 * f64::from(1 << 20) + 1.0,
        "run.json's estimate {estimate} B against validate's {stated} B"
    );
}

/// `tenantsim validate TRACE.csv` (and `gen workflows --model-trace`, the
/// Python package's `load_trace`) read a trace with no memory check:
/// a model trace of 60,000 users × 60,000 models, one row each (1.2 MB),
/// aborted on an allocation of 28.8 GB for its dense matrices ("memory
/// allocation of 28800000000 bytes failed", signal 6). Now a bare trace,
/// model or job, is estimated from one pass and refused with its
/// estimate; one that fits is described with it.
#[test]
fn a_sparse_trace_aborted_validate_on_an_allocation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let mut text = String::from("user,model,accuracy,runtime_s\n");
    for i in 0..60_000 {
        text.push_str(&format!("u{i},m{i},0.5,1\n"));
    }
    fs::write(dir.join("sparse.csv"), text).expect("write");
    fs::write(dir.join("jobs.csv"), job_trace(20_000)).expect("write");
    let validate = |args: &[&str]| {
        Command::new(binary())
            .arg("validate")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("runs")
    };
    let o = validate(&["sparse.csv", "--max-memory", "16G"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("sparse.csv: needs an estimated ")
            && err.contains("trace matrices (60,000 users × 60,000 models, 17 bytes a cell)"),
        "{err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
    // `gen workflows --model-trace` read it unchecked too (the machine's
    // memory is its limit: 57.0 GiB is past any test machine's).
    let o = Command::new(binary())
        .args([
            "gen",
            "workflows",
            "--model-trace",
            "sparse.csv",
            "--out",
            "w.csv",
        ])
        .current_dir(dir)
        .output()
        .expect("runs");
    let err = stderr(&o);
    if !err.contains("needs an estimated 57.0 GiB") {
        // A machine with that much memory loads it: then it must succeed.
        assert_eq!(o.status.code(), Some(0), "{err}");
    } else {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(!dir.join("w.csv").exists());
    }
    // A job trace: refused past the budget, described with its estimate
    // within it.
    let o = validate(&["jobs.csv", "--max-memory", "1M"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("jobs.csv: needs an estimated "), "{err}");
    let o = validate(&["jobs.csv", "--max-memory", "1G"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("\n  memory: an estimated ")
            && err.contains("job trace (20,000 jobs, ")
            && err.contains("within the 1.0 GiB of `--max-memory`"),
        "{err}"
    );
}

/// A trace file named by a scenario was read whole, hashed, then parsed
/// from that copy, so its bytes were held beside the trace built from
/// them (a 10^7-job trace file is about 600 MB) and the estimate counted
/// them. Now it is parsed as it is read and hashed as it passes
/// (core/io/hashed_input.rs). Traces whose numbers carry 500 leading or
/// trailing zeros (about 100 MB of file for 100,000 rows, a few MB once
/// parsed): `validate` of a job scenario and of a model scenario over
/// them peaks below half the file's size (measured when written, debug
/// build: job 29,932 KB and model 26,316 KB against files of 99,665 and
/// 99,145 KB; the job one 129,496 KB while the file was held), a run
/// states the whole file's digest, as before, and the estimate is the
/// one of the same trace without the zeros.
#[test]
fn a_trace_file_was_held_whole_while_it_was_parsed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // The same traces with and without the zeros: equal once parsed.
    let traces = |zeros: &str| {
        let mut jobs = String::from("job_id,user,submit_s,duration_s,gpus\n");
        for i in 0..100_000 {
            jobs.push_str(&format!("j{i},u{},{zeros}{i},{zeros}5,1\n", i % 50));
        }
        let mut models = String::from("user,model,accuracy,runtime_s\n");
        for u in 0..2_000 {
            for m in 0..50 {
                models.push_str(&format!(
                    "u{u},m{m},0.{}{zeros},{zeros}7\n",
                    (u * 7 + m) % 9 + 1
                ));
            }
        }
        (jobs, models)
    };
    let (jobs, models) = traces(&"0".repeat(500));
    let (plain_jobs, plain_models) = traces("");
    for (dir, (j, m)) in [
        ("padded", (&jobs, &models)),
        ("plain", (&plain_jobs, &plain_models)),
    ] {
        let d = tmp.path().join(dir);
        fs::create_dir(&d).expect("mkdir");
        fs::write(d.join("jobs.csv"), j).expect("write");
        fs::write(d.join("models.csv"), m).expect("write");
        fs::write(
            d.join("j.toml"),
            "mode = \"jobs\"\nname = \"j\"\n[jobs]\npath = \"jobs.csv\"\n[cluster]\nnodes = 1\n\
             gpus_per_node = 8\n[[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n",
        )
        .expect("write");
        fs::write(
            d.join("m.toml"),
            "name = \"m\"\n[trace]\npath = \"models.csv\"\n[split]\nprior_count = 100\n\
             [cluster]\ngpus = 8\n[[policy]]\nname = \"p\"\nscheduler = \"greedy\"\n\
             selector = \"gp-ucb\"\n",
        )
        .expect("write");
    }
    let padded = tmp.path().join("padded");
    for (scenario, text) in [("j.toml", &jobs), ("m.toml", &models)] {
        let file_kb = text.len() as u64 / 1024;
        // Without GNU time the peak is not measured; the rest still is.
        match peak_rss_kb(&["validate", scenario, "--threads", "1"], &padded) {
            None => eprintln!("note: GNU time is missing: the peak was not measured"),
            Some(kb) => {
                eprintln!("{scenario}: validate peaked at {kb} KB, the trace file is {file_kb} KB");
                assert!(
                    kb < file_kb / 2,
                    "{scenario}: validate peaked at {kb} KB over a {file_kb} KB trace file"
                );
            }
        }
        // The digest is the whole file's, as when it was read whole.
        let o = Command::new(binary())
            .args([
                "run",
                scenario,
                "--quiet",
                "--no-plots",
                "--no-cache",
                "--out",
            ])
            .arg(format!("out-{scenario}"))
            .current_dir(&padded)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", stderr(&o));
        let manifest = fs::read_to_string(padded.join(format!("out-{scenario}")).join("run.json"))
            .expect("run.json");
        let digest = tenantsim::core::run::identity::sha256_hex(text.as_bytes());
        assert!(
            manifest.contains(&digest),
            "{scenario}: {digest} not in {manifest}"
        );
        // The estimate counts a read buffer, not the file: the same as the
        // plain trace's.
        assert_eq!(
            stated_estimate(scenario, &padded, false),
            stated_estimate(scenario, &tmp.path().join("plain"), false),
            "{scenario}"
        );
    }
}

/// The `tenant-regret` figure held every regret area of `tenants.csv` (8
/// bytes a tenant and repetition, sorted in place): scale-year's default
/// command, figures included, peaked at 157,244 KB against 85,284 KB
/// without them, set by its 10^7 tenants, not by those present. Now the
/// areas pass through runs sorted on disk (present/figures/
/// area_summary.rs). `tenantsim plot` of a results folder whose
/// `tenants.csv` has 2,000,000 rows peaks less than 2 bytes a row above
/// the same folder with its 120 rows (measured when written, debug
/// build: 26,812 → 27,188 KB; 31,732 → 47,040 KB, 7.8 bytes a row,
/// before).
#[test]
fn the_figures_held_every_tenants_regret_area() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let small = tmp.path().join("small");
    let o = Command::new(binary())
        .args([
            "run",
            "scenarios/quickstart.toml",
            "--quiet",
            "--no-plots",
            "--out",
        ])
        .arg(&small)
        .current_dir(repo)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let big = tmp.path().join("big");
    fs::create_dir(&big).expect("mkdir");
    for entry in fs::read_dir(&small).expect("results") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            fs::copy(&path, big.join(path.file_name().expect("named"))).expect("copy");
        }
    }
    let text = fs::read_to_string(small.join("tenants.csv")).expect("tenants.csv");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let first: Vec<&str> = lines.next().expect("a row").split(',').collect();
    let rows = 2_000_000u64;
    let mut out =
        std::io::BufWriter::new(fs::File::create(big.join("tenants.csv")).expect("create"));
    writeln!(out, "{header}").expect("write");
    for i in 0..rows {
        let mut row = first.clone();
        let (user, area) = (format!("u{i}"), format!("{}", (i * 7_919) % 1_000_003 + 1));
        row[2] = &user;
        row[4] = &area;
        writeln!(out, "{}", row.join(",")).expect("write");
    }
    out.flush().expect("flush");
    drop(out);
    let peak = |dir: &Path| peak_rss_kb(&["plot", &dir.display().to_string()], tmp.path());
    let (Some(small_kb), Some(big_kb)) = (peak(&small), peak(&big)) else {
        eprintln!("note: GNU time is missing: the figures' memory was not measured");
        return;
    };
    eprintln!("plot: {small_kb} KB over 120 rows, {big_kb} KB over {rows}");
    assert!(
        big_kb.saturating_sub(small_kb) * 1024 < 2 * rows,
        "plot: {big_kb} KB over {rows} rows, {small_kb} KB over 120"
    );
    assert!(big.join("plots").join("tenant-regret.svg").is_file());
}
