//! A `[trace.syn]` trace held lazily (`rows = "lazy"`: each user's row
//! produced from (seed, user) when read, DESIGN §1.2 "Per-user rows";
//! issue 34) reads and runs exactly as the dense one: every accessor, and
//! every result file of whole runs.

use std::fs;
use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::scenario::{LAZY_ABOVE_CELLS, Scenario, ScenarioFile, parse_scenario};

use crate::common::{assert_same_result_files, repo, tenantsim};

/// A scenario over a `[trace.syn]` trace with `rows` (none: left out),
/// Poisson arrivals, a patience, and one policy of each kind that reads
/// the trace differently (GP scoring with oracle and prior costs, the
/// hybrid scheduler, metadata and random selectors).
fn scenario_text(rows: Option<&str>) -> String {
    let rows = rows.map_or(String::new(), |r| format!("rows = \"{r}\"\n"));
    format!(
        "name = \"lazy\"\nseed = 3\nrepetitions = 2\nthresholds = [0.05, 0.01]\n\
         [trace.syn]\n{rows}users = 240\nmodels = 9\ncost = \"lognormal(0,1)\"\nseed = 4\n\
         [split]\nprior_count = 40\n\
         [arrivals]\nkind = \"poisson\"\nrate_per_hour = 200\n\
         [limits]\npatience_s = 1800\n\
         [cluster]\ngpus = 6\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n\
         [[policy]]\nname = \"prior-ei\"\nscheduler = \"greedy\"\nselector = \"gp-ei-per-second\"\ncost_belief = \"prior\"\n\
         [[policy]]\nname = \"hybrid\"\nscheduler = \"hybrid\"\nselector = \"gp-ucb\"\n\
         [[policy]]\nname = \"cited\"\nscheduler = \"round-robin\"\nselector = \"most-cited\"\n\
         [[policy]]\nname = \"random\"\nscheduler = \"random\"\nselector = \"random\"\n"
    )
}

fn parse(text: &str) -> Scenario {
    let path = repo("scenarios/lazy.toml");
    parse_scenario(&path, text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_lazy_trace_reads_what_the_dense_trace_holds() {
    let dense = parse(&scenario_text(Some("dense")));
    let lazy = parse(&scenario_text(Some("lazy")));
    let (d, l) = (&dense.trace, &lazy.trace);
    assert!(!d.is_lazy() && l.is_lazy());
    assert!(l.accuracy_matrix().is_none() && l.runtime_matrix_us().is_none());
    assert_eq!(dense.trace_sha256, lazy.trace_sha256);
    assert_eq!(
        (d.n_users(), d.n_models(), d.n_pairs()),
        (l.n_users(), l.n_models(), l.n_pairs())
    );
    assert_eq!(d.models(), l.models());
    assert_eq!(d.model_year(), l.model_year());
    assert_eq!(d.model_citations(), l.model_citations());
    assert_eq!(
        d.user_ids().collect::<Vec<_>>(),
        l.user_ids().collect::<Vec<_>>()
    );
    // Users read out of order, so rows leave and re-enter the cache.
    for i in 0..d.n_users() {
        let u = (i * 97) % d.n_users();
        assert_eq!(d.user_index(&d.user_id(u)), Some(u));
        assert_eq!(l.user_index(&d.user_id(u)), Some(u));
        assert_eq!(d.models_of(u), l.models_of(u));
        assert_eq!(d.best_accuracy(u).to_bits(), l.best_accuracy(u).to_bits());
        let (rd, rl) = (
            d.with_runtimes_us(u, <[u64]>::to_vec),
            l.with_runtimes_us(u, <[u64]>::to_vec),
        );
        assert_eq!(rd, rl, "user {u}");
        for k in 0..d.n_models() {
            assert_eq!(d.accuracy(u, k).to_bits(), l.accuracy(u, k).to_bits());
            assert_eq!(d.runtime_us(u, k), l.runtime_us(u, k));
            assert_eq!(d.is_available(u, k), l.is_available(u, k));
            assert_eq!(d.top_level(u, k), l.top_level(u, k));
            assert_eq!(
                d.level_accuracy(u, k, 0).to_bits(),
                l.level_accuracy(u, k, 0).to_bits()
            );
            assert_eq!(d.cost_us(u, k, None, 0), l.cost_us(u, k, None, 0));
        }
    }
    for bad in ["u", "u1", "u0001", "x001", "u240", "u-01", "u 01"] {
        assert_eq!(d.user_index(bad), None, "{bad}");
        assert_eq!(l.user_index(bad), None, "{bad}");
    }
}

/// Regression: loading a scenario over a lazy trace formatted and hashed
/// every row (the SHA-256 of its canonical CSV text, DESIGN §1.2), though
/// nothing had asked for the digest: `tenantsim validate` of scale-year
/// took 18–20 s on the quiet 2-core machine, nearly all of it hashing
/// (0.6 s since). The digest is computed when first read,
/// once, and is the dense trace's.
#[test]
fn loading_a_lazy_trace_hashed_every_row_before_anything_read_the_digest() {
    let lazy = parse(&scenario_text(Some("lazy")));
    assert!(!lazy.trace_sha256.is_computed(), "loading computed it");
    let copy = lazy.clone();
    let dense = parse(&scenario_text(Some("dense")));
    assert!(dense.trace_sha256.is_computed());
    assert_eq!(lazy.trace_sha256.hex(), dense.trace_sha256.hex());
    assert!(copy.trace_sha256.is_computed(), "clones share the digest");
}

/// Every result file of `tenantsim run` the same whether the trace is held
/// dense, lazily, or left to `auto` (dense at this size), `run.json`'s
/// trace hash included; and the lazy run again through the result cache
/// (whose keys read the deferred digest before the first task): stored,
/// then served, the same files.
#[test]
fn a_scenario_run_on_a_lazy_trace_writes_the_files_of_the_dense_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut outs = Vec::new();
    for rows in [Some("dense"), Some("lazy"), None] {
        let name = rows.unwrap_or("auto");
        let file = tmp.path().join(format!("{name}.toml"));
        fs::write(&file, scenario_text(rows)).expect("write");
        let out = tmp.path().join(name);
        tenantsim()
            .env("TENANTSIM_CACHE", "off")
            .args(["run", "--quiet", "--no-plots", "--jobs", "--out"])
            .arg(&out)
            .arg(&file)
            .assert()
            .success();
        outs.push(out);
    }
    let hash = |dir: &Path| {
        let text = fs::read_to_string(dir.join("run.json")).expect("run.json");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        let mut found = Vec::new();
        collect_key(&json, "sha256", &mut found);
        assert!(!found.is_empty(), "run.json names the trace's SHA-256");
        found
    };
    let cache = tmp.path().join("cache");
    for (k, want) in [
        "10 ran, 0 from the result cache",
        "0 ran, 10 from the result cache",
    ]
    .into_iter()
    .enumerate()
    {
        let out = tmp.path().join(format!("cached-{k}"));
        let run = tenantsim()
            .env("TENANTSIM_CACHE", &cache)
            .args(["run", "--no-plots", "--jobs", "--out"])
            .arg(&out)
            .arg(tmp.path().join("lazy.toml"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{err}");
        assert!(err.contains(want), "run {k}: {err}");
        outs.push(out);
    }
    assert!(outs[0].join("jobs.csv").is_file());
    assert_same_result_files(&outs[0], &outs[1], "lazy against dense");
    assert_same_result_files(&outs[0], &outs[2], "auto against dense");
    assert_same_result_files(&outs[0], &outs[3], "lazy, stored in the cache");
    assert_same_result_files(&outs[0], &outs[4], "lazy, from the cache");
    assert_eq!(hash(&outs[0]), hash(&outs[1]));
    assert_eq!(hash(&outs[0]), hash(&outs[4]));
}

fn collect_key(v: &serde_json::Value, key: &str, out: &mut Vec<serde_json::Value>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if k == key {
                    out.push(x.clone());
                }
                collect_key(x, key, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_key(x, key, out)),
        _ => {}
    }
}

/// `auto` holds a trace lazily above [`LAZY_ABOVE_CELLS`] pairs: the
/// year's 2 × 10^8 are lazy, scale-1m's 2 × 10^7 dense; a curve trace is
/// never lazy.
#[test]
fn rows_auto_is_lazy_above_the_threshold_only() {
    let file = |name: &str| -> ScenarioFile {
        let text = fs::read_to_string(repo(&format!("scenarios/{name}.toml"))).expect("read");
        toml::from_str(&text).expect("parses")
    };
    let syn = |f: ScenarioFile| f.trace.syn.expect("[trace.syn]");
    assert!(syn(file("scale-year")).is_lazy());
    assert!(!syn(file("scale-1m")).is_lazy());
    let mut s = syn(file("scale-1m"));
    s.models = 1;
    s.users = LAZY_ABOVE_CELLS as usize;
    assert!(!s.is_lazy(), "at the threshold: dense");
    s.users += 1;
    assert!(s.is_lazy(), "above it: lazy");
    s.fidelities = Some(2);
    assert!(!s.is_lazy(), "a curve trace stays dense");
}

/// What a lazy trace cannot do is refused with the key to change.
#[test]
fn a_lazy_trace_refuses_curves_and_gpu_types_by_name() {
    let base = scenario_text(Some("lazy"));
    let curves = base.replace("users = 240\n", "users = 240\nfidelities = 3\n");
    let typed = base.replace(
        "[cluster]\ngpus = 6\n",
        "[cluster]\nnodes = [{type = \"a\", count = 2}, {type = \"b\", count = 4}]\n\
         [cluster.speed]\nb = 2.0\n",
    );
    let unknown = base.replace("rows = \"lazy\"", "rows = \"sparse\"");
    let path = repo("scenarios/lazy.toml");
    for (text, want) in [
        (curves, "[trace.syn].rows: `lazy` holds plain traces only"),
        (typed, "GPU types need the trace's runtimes held whole"),
        (unknown, "sparse"),
    ] {
        let err = parse_scenario(&path, &text, Overrides::default())
            .map(|_| ())
            .expect_err("refused");
        assert!(err.to_string().contains(want), "{err}");
    }
}
