//! Messages about mistakes in scenario files that used to mislead
//! (first-contact audit): each test is named after what went wrong and
//! checks the whole message a user reads.

use std::fs;
use std::path::PathBuf;

use tenantsim::core::io::scenario::{Overrides, ScenarioMode, mode_of_text};
use tenantsim::jobs::scenario::parse_job_scenario;
use tenantsim::models::scenario::parse_plan;
use tenantsim::shared::scenario::parse_shared_scenario;

use crate::common::repo;

/// The bundled `scenarios/NAME` with `from` replaced by `to` (exactly
/// once), and the path it is read as (beside the original, so that its
/// trace is found).
fn edited(name: &str, from: &str, to: &str) -> (PathBuf, String) {
    let path = repo(&format!("scenarios/{name}"));
    let text = fs::read_to_string(&path).expect("bundled scenario");
    assert_eq!(text.matches(from).count(), 1, "`{from}` once in {name}");
    (path, text.replacen(from, to, 1))
}

/// The message of a scenario's error, read as its `mode` says (model,
/// job or shared), the repository's path as `{repo}`.
fn error_of(path: &std::path::Path, text: &str) -> String {
    let e = match mode_of_text(path, text).expect("a known mode") {
        ScenarioMode::Models => parse_plan(path, text, Overrides::default()).map(|_| ()),
        ScenarioMode::Jobs => parse_job_scenario(path, text, Overrides::default()).map(|_| ()),
        ScenarioMode::Shared => parse_shared_scenario(path, text, Overrides::default()).map(|_| ()),
    }
    .expect_err("an error");
    e.message()
        .replace(&repo("").display().to_string(), "{repo}/")
}

#[test]
fn a_typo_in_a_swept_scenario_was_blamed_on_the_sweep() {
    // An unknown top-level key: toml's line and caret, no [sweep].
    let (path, text) = edited(
        "sweep.toml",
        "repetitions = 8\n",
        "repetitions = 8\nrepetitons = 8\n",
    );
    let msg = error_of(&path, &text);
    assert!(
        msg.starts_with("{repo}/scenarios/sweep.toml: TOML parse error at line 7, column 1\n"),
        "{msg}"
    );
    assert!(msg.contains("7 | repetitons = 8\n"), "{msg}");
    assert!(msg.contains("unknown field `repetitons`"), "{msg}");
    assert!(!msg.contains("sweep]"), "{msg}");
    // A bad value of a key no axis sets: the same as without [sweep].
    let (path, text) = edited("sweep.toml", "grid = \"linear\"", "grid = \"lin\"");
    let msg = error_of(&path, &text);
    let plain_text = text.replace(
        "[sweep]\n\"cluster.gpus\" = [1, 2, 3]\n\"split.tenant_count\" = [2, 3]\n",
        "\n\n\n",
    );
    assert!(!plain_text.contains("[sweep]"));
    assert_eq!(msg, error_of(&path, &plain_text));
    assert!(
        msg.contains("TOML parse error at line 17, column 8"),
        "{msg}"
    );
    // An error found when a point is built, in a key no axis sets: no
    // point named.
    let (path, text) = edited(
        "sweep.toml",
        "selector = \"in-order\"",
        "selector = \"in-ordr\"",
    );
    let msg = error_of(&path, &text);
    assert!(
        msg.starts_with(
            "{repo}/scenarios/sweep.toml: [[policy]] #1 (\"rr-in-order\"): unknown selector `in-ordr`"
        ),
        "{msg}"
    );
    // What a swept value causes is still the sweep's.
    let (path, text) = edited(
        "sweep.toml",
        "\"cluster.gpus\" = [1, 2, 3]",
        "\"cluster.gpus\" = [1, 0]",
    );
    let msg = error_of(&path, &text);
    assert!(
        msg.starts_with("[sweep] point 2 (cluster.gpus = 0, split.tenant_count = 2): "),
        "{msg}"
    );
    let (path, text) = edited(
        "sweep.toml",
        "\"cluster.gpus\" = [1, 2, 3]",
        "\"cluster.gpus\" = [1, \"two\"]",
    );
    let msg = error_of(&path, &text);
    assert!(
        msg.starts_with(
            "{repo}/scenarios/sweep.toml: [sweep] `cluster.gpus` = \"two\": invalid type"
        ),
        "{msg}"
    );
    // A table the base lacks but the sweep's one axis gives is no error.
    let (path, text) = edited("sweep.toml", "[cluster]\ngpus = 1\n", "");
    let text = text.replacen("\"split.tenant_count\" = [2, 3]\n", "", 1);
    if let Err(e) = parse_plan(&path, &text, Overrides::default()) {
        panic!("{}", e.message());
    }
}

#[test]
fn a_misspelt_required_policy_key_was_reported_only_as_missing() {
    let (path, text) = edited(
        "quickstart.toml",
        "selector = \"in-order\"",
        "selectr = \"in-order\"",
    );
    let msg = error_of(&path, &text);
    assert!(
        msg.contains("TOML parse error at line 14, column 1"),
        "{msg}"
    );
    assert!(
        msg.ends_with(
            "[[policy]] (\"rr-in-order\"): unknown key `selectr` (did you mean `selector`?), \
             and the required key `selector` is missing"
        ),
        "{msg}"
    );
    // Job mode's required `scheduler` alike.
    let (path, text) = edited(
        "jobs-quickstart.toml",
        "scheduler = \"sjf\"",
        "schedulr = \"sjf\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.ends_with(
            "[[policy]] (\"sjf\"): unknown key `schedulr` (did you mean `scheduler`?), \
             and the required key `scheduler` is missing"
        ),
        "{}",
        e
    );
    // Nothing like the missing key: serde's message, as before.
    let (path, text) = edited(
        "quickstart.toml",
        "selector = \"in-order\"",
        "kernel = \"rbf\"",
    );
    assert!(error_of(&path, &text).ends_with("\nmissing field `selector`"));
}

#[test]
fn whole_numbers_out_of_range_were_named_by_rust_type() {
    let cases = [
        (
            "quickstart.toml",
            "repetitions = 10",
            "repetitions = 100000000000",
            "TOML parse error at line 5, column 15",
            "invalid value: integer `100000000000`, expected a whole number of repetitions from 1 \
             to 1,000,000",
        ),
        (
            "quickstart.toml",
            "seed = 7",
            "seed = -7",
            "TOML parse error at line 4, column 8",
            "invalid value: integer `-7`, expected a whole number from 0 to \
             9,223,372,036,854,775,807",
        ),
        (
            "quickstart.toml",
            "gpus = 2",
            "gpus = -1",
            "TOML parse error at line 12, column 8",
            "invalid value: integer `-1`, expected a whole number of GPUs from 1 to 100,000",
        ),
        (
            "jobs-quickstart.toml",
            "path = \"../traces/jobs-hand.csv\"",
            "path = \"../traces/jobs-hand.csv\"\nsample = -60",
            "TOML parse error at line 10, column 10",
            "invalid value: integer `-60`, expected a whole number of jobs from 1 to 4,294,967,295",
        ),
    ];
    for (name, from, to, at, expected) in cases {
        let (path, text) = edited(name, from, to);
        let msg = error_of(&path, &text);
        assert!(msg.contains(at), "{to}: {msg}");
        assert!(msg.ends_with(&format!("\n{expected}")), "{to}: {msg}");
    }
    // A value that fits but exceeds the limit keeps the loader's message.
    let (path, text) = edited(
        "quickstart.toml",
        "repetitions = 10",
        "repetitions = 4000000000",
    );
    assert!(error_of(&path, &text).ends_with(
        "repetitions: 4,000,000,000 repetitions exceed the limit of 1,000,000 (also for --reps)"
    ));
}

#[test]
fn the_other_whole_number_keys_were_named_by_rust_type_too() {
    // (bundled scenario, text replaced, replacement, the message's last
    // line). Before 2026-12-06 each ended "expected u32", "expected u64"
    // or "expected usize"; job mode's `nodes = -1` read "data did not
    // match any variant of untagged enum NodesField".
    let jobs = "a whole number of jobs from 1 to 4,294,967,295";
    let cases = [
        (
            "scale-1m.toml",
            "users = 1001000",
            "users = 1.5",
            "invalid type: floating point `1.5`, expected a whole number of users from 1 to 4,294,967,295",
        ),
        (
            "scale-1m.toml",
            "models = 20",
            "models = -20",
            "invalid value: integer `-20`, expected a whole number of models from 1 to 4,294,967,295",
        ),
        (
            "scale-1m.toml",
            "models = 20",
            "models = 20\nfidelities = -3",
            "invalid value: integer `-3`, expected a whole number of fidelities from 1 to 30",
        ),
        (
            "scale-1m.toml",
            "prior_count = 1000",
            "prior_count = -1",
            "invalid value: integer `-1`, expected a whole number of prior users from 0 to 4,294,967,295",
        ),
        (
            "scale-1m.toml",
            "prior_count = 1000",
            "prior_count = 10\ntenant_count = 0.5",
            "invalid type: floating point `0.5`, expected a whole number of tenants from 1 to 4,294,967,295",
        ),
        (
            "quickstart.toml",
            "gpus = 2",
            "gpus = 2\nmax_jobs_per_tenant = 5000000000",
            &format!("invalid value: integer `5000000000`, expected {jobs}"),
        ),
        (
            "scale-year.toml",
            "[limits]",
            "[limits]\nmax_jobs = -3",
            &format!("invalid value: integer `-3`, expected {jobs}"),
        ),
        (
            "quickstart.toml",
            "selector = \"random\"",
            "selector = \"random\"\n\n[output]\ngrid_points = -400",
            "invalid value: integer `-400`, expected a whole number of grid points from 2 to 100,000",
        ),
        (
            "jobs-quickstart.toml",
            "nodes = 1",
            "nodes = -1",
            "invalid value: integer `-1`, expected a whole number of nodes from 1 to 100,000, or a \
          list of node groups ([{type = \"v100\", count = 2, gpus_per_node = 8}, …])",
        ),
        (
            "jobs-quickstart.toml",
            "nodes = 1\ngpus_per_node = 2",
            "nodes = [{type = \"v100\", count = -2}]",
            "invalid value: integer `-2`, expected a whole number of nodes from 1 to 100,000",
        ),
        (
            "jobs-quickstart.toml",
            "gpus_per_node = 2",
            "gpus_per_node = 2.5",
            "invalid type: floating point `2.5`, expected a whole number of GPUs per node from 1 to 1,024",
        ),
        (
            "jobs-quickstart.toml",
            "gpus_per_node = 2",
            "gpus_per_node = 2\ncpus_per_node = -8",
            "invalid value: integer `-8`, expected a whole number of CPUs per node from 0 to 16,777,216",
        ),
        (
            "shared-quickstart.toml",
            "max_gpus = 8",
            "max_gpus = -8",
            "invalid value: integer `-8`, expected a whole number of GPUs from 1 to 100,000",
        ),
        (
            "shared-quickstart.toml",
            "gpus_per_job = 1",
            "gpus_per_job = 1.5",
            "invalid type: floating point `1.5`, expected a whole number of GPUs per job from 1 to 100,000",
        ),
        (
            "shared-quickstart.toml",
            "gpus_per_job = 1",
            "gpus_per_job = 1\nmax_jobs_per_tenant = -1",
            &format!("invalid value: integer `-1`, expected {jobs}"),
        ),
        (
            "shared-workflows-quickstart.toml",
            "capacity_bytes = 3_000_000_000",
            "capacity_bytes = -3",
            "invalid value: integer `-3`, expected a whole number of bytes from 0 to 9,223,372,036,854,775,807",
        ),
        (
            "shared-workflows-quickstart.toml",
            "bandwidth_bytes_per_s = 1_000_000_000",
            "bandwidth_bytes_per_s = 1e9",
            "invalid type: floating point `1000000000.0`, expected a whole number of bytes per second \
          from 0 to 9,223,372,036,854,775,807",
        ),
        (
            "shared-workflows-quickstart.toml",
            "max_retries = 2",
            "max_retries = -2",
            "invalid value: integer `-2`, expected a whole number of retries from 0 to 4,294,967,295",
        ),
        (
            "shared-workflows-quickstart.toml",
            "cache = \"lru\"",
            "cache = \"lru\"\nparallel = \"fixed\"\nparallel_k = -4",
            "invalid value: integer `-4`, expected a whole number of sub-jobs from 1 to 4,294,967,295",
        ),
    ];
    for (name, from, to, expected) in cases {
        let (path, text) = edited(name, from, to);
        let msg = error_of(&path, &text);
        assert!(msg.contains("TOML parse error at line"), "{to}: {msg}");
        assert!(msg.ends_with(&format!("\n{expected}")), "{to}: {msg}");
    }
}

#[test]
fn a_number_key_given_a_string_read_expected_f64() {
    // Before 2026-12-06 these ended in serde's Rust names: "expected f64",
    // "expected a sequence", "expected struct ArrivalsSection".
    let cases = [
        (
            "gpus = 2",
            "gpus = 2\n\n[limits]\nbudget_gpu_s = \"lots\"",
            "invalid type: string \"lots\", expected a number",
        ),
        (
            "thresholds = [0.2, 0.1, 0.05]",
            "thresholds = 0.1",
            "invalid type: floating point `0.1`, expected an array",
        ),
        (
            "thresholds = [0.2, 0.1, 0.05]",
            "thresholds = [0.2, 0.1, 0.05]\narrivals = \"poisson\"",
            "invalid type: string \"poisson\", expected a table",
        ),
    ];
    for (from, to, expected) in cases {
        let (path, text) = edited("quickstart.toml", from, to);
        let msg = error_of(&path, &text);
        assert!(msg.contains("TOML parse error at line"), "{to}: {msg}");
        assert!(msg.ends_with(&format!("\n{expected}")), "{to}: {msg}");
    }
}

#[test]
fn an_unknown_policy_name_gave_no_hint_of_the_one_it_was_close_to() {
    // Model mode's scheduler and selector.
    let (path, text) = edited(
        "quickstart.toml",
        "selector = \"most-cited\"",
        "selector = \"most_cited\"",
    );
    assert!(
        error_of(&path, &text).ends_with(
            "[[policy]] #3 (\"rr-most-cited\"): unknown selector `most_cited` (did you mean \
             `most-cited`?): expected one of in-order, most-recent, most-cited, random, gp-ucb, \
             gp-ucb-cost, gp-ei, gp-ei-per-second, successive-halving, hyperband, asha"
        ),
        "{}",
        error_of(&path, &text)
    );
    let (path, text) = edited(
        "quickstart.toml",
        "scheduler = \"random\"",
        "scheduler = \"Random\"",
    );
    assert!(error_of(&path, &text).contains("unknown scheduler `Random` (did you mean `random`?)"));
    // Job mode's scheduler, and a shared scenario's cluster scheduler.
    let (path, text) = edited(
        "jobs-quickstart.toml",
        "scheduler = \"fair-share\"",
        "scheduler = \"fare-share\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.contains(
            "[[policy]] #6 (\"fair-share\"): unknown job scheduler `fare-share` (did you mean \
             `fair-share`?): expected one of fifo,"
        ),
        "{}",
        e
    );
    let (path, text) = edited(
        "shared-quickstart.toml",
        "scheduler = \"fifo\"",
        "scheduler = \"fifoo\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.contains("[cluster].scheduler: unknown job scheduler `fifoo` (did you mean `fifo`?)"),
        "{}",
        e
    );
    // Far from every name: no hint.
    let (path, text) = edited(
        "quickstart.toml",
        "scheduler = \"random\"",
        "scheduler = \"fifo\"",
    );
    assert!(
        error_of(&path, &text).contains("unknown scheduler `fifo`: expected one of"),
        "{}",
        error_of(&path, &text)
    );
}

/// Regression: a misspelt workflow cache or parallelisation rule listed
/// the rules without the "did you mean" the policy names give.
#[test]
fn a_misspelt_cache_or_parallel_rule_had_no_hint() {
    let (path, text) = edited(
        "shared-workflows-quickstart.toml",
        "cache = \"lru\"",
        "cache = \"lruu\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.contains(
            "[[policy]] #2 (\"lru\"): cache: unknown cache rule `lruu` (did you mean `lru`?): \
             expected \"off\" (no cache), \"lru\""
        ),
        "{e}"
    );
    let (path, text) = edited(
        "shared-workflows-quickstart.toml",
        "cache = \"cost\"",
        "cache = \"cost\"\nparallel = \"fil\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.contains("[[policy]] #3 (\"cost\"): parallel: unknown rule `fil` (did you mean `fill`?): expected \"off\""),
        "{e}"
    );
    // Far from every rule: the choices alone.
    let (path, text) = edited(
        "shared-workflows-quickstart.toml",
        "cache = \"cost\"",
        "cache = \"random\"",
    );
    let e = error_of(&path, &text);
    assert!(
        e.contains("unknown cache rule `random`: expected \"off\""),
        "{e}"
    );
}

#[test]
fn a_huge_number_was_quoted_with_every_digit() {
    // Before 2026-12-06: "got 1000…000", 301 digits.
    let (path, text) = edited(
        "quickstart.toml",
        "gpus = 2",
        "gpus = 2\n\n[limits]\npatience_s = 1e300",
    );
    assert!(
        error_of(&path, &text)
            .ends_with("[limits].patience_s: expected seconds > 0 and <= 1e12, got 1e300"),
        "{}",
        error_of(&path, &text)
    );
    let (path, text) = edited(
        "jobs-quickstart.toml",
        "backfill = false",
        "backfill = false\nrestart_overhead_s = -2.5e-30",
    );
    let e = error_of(&path, &text);
    assert!(
        e.ends_with("[cluster].restart_overhead_s: expected seconds >= 0 and <= 1e9, got -2.5e-30"),
        "{}",
        e
    );
}

#[test]
fn a_trace_syn_key_was_named_as_the_gen_syn_flag() {
    // Before 2026-12-06: "[trace.syn]: gen syn: --model-sd -0.5: …" and
    // "[trace.syn]: gen syn: --fidelities 31: …", the command's flags.
    let (path, text) = edited("scale-1m.toml", "model_sd = 0.1", "model_sd = -0.5");
    assert!(
        error_of(&path, &text)
            .ends_with("[trace.syn]: model_sd = -0.5: expected a finite number >= 0"),
        "{}",
        error_of(&path, &text)
    );
    let (path, text) = edited(
        "scale-1m.toml",
        "models = 20",
        "models = 20\nfidelities = 31\nrows = \"dense\"",
    );
    // Small enough that the memory check passes.
    let text = text.replacen("users = 1001000", "users = 1100", 1);
    assert!(
        error_of(&path, &text).ends_with("[trace.syn]: fidelities = 31: expected 1 to 30"),
        "{}",
        error_of(&path, &text)
    );
}

/// `[output] grid`, `[cluster] placement` and `[trace.syn] rows` given a
/// number read TOML's "wanted string or table", naming neither the key's
/// values nor what was written; in a swept scenario the point's reader
/// said "invalid type: unit variant, expected string only" instead, so the
/// base file's mistake was blamed on the sweep's first axis.
#[test]
fn a_named_value_given_a_number_read_wanted_string_or_table() {
    for (name, from, to, line, want) in [
        (
            "quickstart.toml",
            "gpus = 2\n",
            "gpus = 2\n\n[output]\ngrid = 2\n",
            15,
            "invalid type: integer `2`, expected `log` or `linear`",
        ),
        (
            "jobs-quickstart.toml",
            "placement = \"consolidate\"",
            "placement = 1",
            14,
            "invalid type: integer `1`, expected `consolidate` or `spread`",
        ),
        (
            "shared-quickstart.toml",
            "placement = \"consolidate\"",
            "placement = true",
            // The key's own line: the shared mode's `[cluster]` read as a
            // table first reported its header's (line 19) until
            // `core::io::key_taken`.
            22,
            "invalid type: boolean `true`, expected `consolidate` or `spread`",
        ),
        (
            "scale.toml",
            "[trace.syn]\n",
            "[trace.syn]\nrows = 3\n",
            16,
            "invalid type: integer `3`, expected one of `auto`, `dense`, `lazy`",
        ),
        (
            "sweep.toml",
            "grid = \"linear\"",
            "grid = 2",
            17,
            "invalid type: integer `2`, expected `log` or `linear`",
        ),
    ] {
        let (path, text) = edited(name, from, to);
        let msg = error_of(&path, &text);
        assert!(
            msg.starts_with(&format!(
                "{{repo}}/scenarios/{name}: TOML parse error at line {line}, column "
            )),
            "{msg}"
        );
        assert!(msg.ends_with(&format!("\n{want}")), "{msg}");
        assert!(!msg.contains("[sweep]"), "{msg}");
    }
}

/// A shared scenario read its `[cluster]` and `[jobs]` as tables first
/// (to take `scheduler` and `load` out while job mode's keys stay strict),
/// so every mistake in them was reported at the table's header line, the
/// key named after the message if at all, and an unknown key's list of
/// those expected left the taken one out; job mode reports the same keys
/// at their own line. Now each is reported where it is written.
#[test]
fn a_shared_clusters_key_was_reported_at_its_tables_line() {
    for (from, to, line, column, want) in [
        // An unknown key, under the key.
        (
            "restart_overhead_s = 10\n",
            "restart_overhead = 10\n",
            23,
            1,
            "unknown field `restart_overhead`, expected one of `nodes`, `gpus_per_node`, \
             `node_list`, `cpus_per_node`, `placement`, `backfill`, `restart_overhead_s`, \
             `round_s`, `scheduler`",
        ),
        // The refused key keeps its own message, now at its line.
        (
            "gpus_per_node = 8\n",
            "gpus_per_node = 8\ngpus = 4\n",
            22,
            1,
            "[cluster].gpus: not a key of a shared scenario",
        ),
        // The taken keys' values, under the value.
        (
            "scheduler = \"fifo\"",
            "scheduler = 3",
            24,
            13,
            "invalid type: integer `3`, expected a string",
        ),
        (
            "load = 1\n",
            "load = \"x\"\n",
            29,
            8,
            "invalid type: string \"x\", expected a number",
        ),
        (
            "sample = 60\n",
            "sample = 60\nsampel = 2\n",
            29,
            1,
            "unknown field `sampel`, expected one of `path`, `sample`, `arrival_scale`, \
             `speeds`, `load`",
        ),
    ] {
        let (path, text) = edited("shared-quickstart.toml", from, to);
        let msg = error_of(&path, &text);
        let at = format!(
            "{{repo}}/scenarios/shared-quickstart.toml: TOML parse error at line {line}, column {column}\n"
        );
        assert!(msg.starts_with(&at), "{to}: {msg}");
        assert!(msg.contains(&format!("\n{want}")), "{to}: {msg}");
    }
    // What is right still reads: the taken keys and job mode's.
    let path = repo("scenarios/shared-quickstart.toml");
    let text = fs::read_to_string(&path).expect("bundled scenario");
    let s = parse_shared_scenario(&path, &text, Overrides::default()).expect("reads");
    assert_eq!(s.file.cluster.scheduler.as_deref(), Some("fifo"));
    assert_eq!(s.file.cluster.nodes.gpus_per_node, Some(8));
    assert_eq!(s.file.jobs.as_ref().map(|j| j.load), Some(1.0));
}
