//! Registered cache-eviction and parallelisation rules (DESIGN §14.8,
//! issue 30's last item) end to end: a registered rule named by a
//! `[[policy]]` runs the bundled quickstart like the built-in it
//! re-implements, and the registry refuses clashing names and lists the
//! registered ones for an unknown name.

use std::fs;
use std::path::{Path, PathBuf};

use tenantsim::core::run::mode::Mode as _;
use tenantsim::prelude::*;

use crate::common::repo;

/// The quickstart (scenarios/shared-workflows-quickstart.toml) with a
/// cache of `capacity` bytes and the one policy `p` under `cache =
/// "{cache}"` and `parallel = "{parallel}"`, written in `dir`.
fn quickstart(dir: &Path, capacity: u64, cache: &str, parallel: &str) -> PathBuf {
    let text = fs::read_to_string(repo("scenarios/shared-workflows-quickstart.toml"))
        .expect("the quickstart is bundled");
    let head = text.split("[[policy]]").next().expect("has policies");
    let trace = repo("traces/workflows-small.csv");
    let head = head
        .replace(
            "capacity_bytes = 3_000_000_000",
            &format!("capacity_bytes = {capacity}"),
        )
        .replace(
            "\"../traces/workflows-small.csv\"",
            &format!("{:?}", trace.display().to_string()),
        );
    assert!(head.contains(&format!("capacity_bytes = {capacity}")));
    let path = dir.join("s.toml");
    fs::write(
        &path,
        format!(
            "{head}[[policy]]\nname = \"p\"\ncache = \"{cache}\"\nparallel = \"{parallel}\"\nparallel_k = 3\n"
        ),
    )
    .expect("write");
    path
}

/// A registry with `last-used` (score = last use, µs: `lru` itself),
/// `most-recent` (score = −last use: the opposite) and `three` (3
/// sub-jobs always).
fn registry() -> Registry {
    let mut r = Registry::builtin();
    r.add_eviction(EvictionEntry::new("last-used", "lru by score", || {
        Ok(|e: &CacheEntry| Ok(e.last_used as f64))
    }))
    .expect("new name");
    r.add_eviction(EvictionEntry::new("most-recent", "mru", || {
        Ok(|e: &CacheEntry| Ok(-(e.last_used as f64)))
    }))
    .expect("new name");
    r.add_parallel(ParallelEntry::new("three", "3 sub-jobs", || {
        Ok(|_: &SplitStep| Ok(3))
    }))
    .expect("new name");
    r
}

/// Every file of `dir`, (name, bytes), by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .expect("a folder")
        .map(|e| {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).expect("read"))
        })
        .collect();
    out.sort();
    out
}

/// Run the scenario at `path` with `registry` into `out`; its
/// `workflows/` files.
fn workflows_files(path: &Path, out: &Path, registry: &Registry) -> Vec<(String, Vec<u8>)> {
    let options = RunOptions::default()
        .out(out)
        .plots(false)
        .keep_jobs(true)
        .quiet(true);
    run_scenario_with(path, &options, registry).expect("runs");
    files(&out.join("workflows"))
}

/// The quickstart with a 1.5 GB cache (evictions happen: checked on the
/// first run) under a registered rule scoring each entry by its last use
/// writes the same `workflows/` files, byte for byte, as under built-in
/// `lru`; a registered rule returning 3 as built-in `fixed` with
/// `parallel_k = 3` (the quickstart's trace has parallelisable trials).
/// The eviction order matters there: the opposite rule (most recently
/// used first) writes other files.
#[test]
fn registered_rules_equal_to_builtins_write_the_same_workflows_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let registry = registry();
    let mut got = Vec::new();
    for (i, (cache, parallel)) in [
        ("lru", "fixed"),
        ("last-used", "three"),
        ("most-recent", "three"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = tmp.path().join(format!("s{i}"));
        fs::create_dir_all(&dir).expect("mkdir");
        let path = quickstart(&dir, 1_500_000_000, cache, parallel);
        if i == 0 {
            let mode = registry.shared_mode();
            let plan = mode.load_plan(&path, Overrides::default()).expect("loads");
            let run = mode.run(plan.scenarios()[0], 0, true).expect("runs");
            let w = run.workflows.expect("workflows");
            assert!(w.cache.evicted > 0, "{:?}", w.cache);
            assert!(w.steps.iter().any(|s| s.parts == 3), "a step was split");
        }
        got.push(workflows_files(
            &path,
            &tmp.path().join(format!("out{i}")),
            &registry,
        ));
    }
    let names: Vec<&str> = got[0].iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"workflows.csv") && names.contains(&"jobs.csv"),
        "{names:?}"
    );
    assert_eq!(got[0].len(), got[1].len());
    for (a, b) in got[0].iter().zip(&got[1]) {
        assert_eq!(a.0, b.0);
        assert!(a.1 == b.1, "workflows/{} differs", a.0);
    }
    assert!(got[0] != got[2], "most recently used first changes the run");
}

/// A built-in's name, an empty name, and a name registered twice are
/// refused, each naming the kind of rule.
#[test]
fn clashing_rule_names_are_refused() {
    let mut r = registry();
    let e = r
        .add_eviction(EvictionEntry::new("lru", "", || {
            Ok(|_: &CacheEntry| Ok(0.0))
        }))
        .expect_err("a built-in's name")
        .to_string();
    assert_eq!(
        e,
        "cannot register the cache eviction rule `lru`: a cache eviction rule of that name is already registered"
    );
    let e = r
        .add_eviction(EvictionEntry::new("last-used", "", || {
            Ok(|_: &CacheEntry| Ok(0.0))
        }))
        .expect_err("registered twice")
        .to_string();
    assert!(e.contains("`last-used`"), "{e}");
    let e = r
        .add_parallel(ParallelEntry::new("fill", "", || Ok(|_: &SplitStep| Ok(1))))
        .expect_err("a built-in's name")
        .to_string();
    assert_eq!(
        e,
        "cannot register the parallelisation rule `fill`: a parallelisation rule of that name is already registered"
    );
    let e = r
        .add_parallel(ParallelEntry::new(" ", "", || Ok(|_: &SplitStep| Ok(1))))
        .expect_err("empty")
        .to_string();
    assert_eq!(
        e,
        "cannot register a parallelisation rule with an empty name"
    );
}

/// An unknown `cache` or `parallel` name lists the registered rules,
/// the user's among them; the built-in registry does not know the user's.
#[test]
fn unknown_rule_names_list_the_registered_ones() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let load = |r: &Registry, cache: &str, parallel: &str| {
        let path = quickstart(tmp.path(), 1000, cache, parallel);
        r.shared_mode()
            .load_plan(&path, Overrides::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let e = load(&registry(), "mru", "off").expect_err("unknown");
    assert!(
        e.contains("cache: unknown cache rule `mru` (did you mean `lru`?): expected \"off\" (no cache), \"lru\" (evict the least recently used entry), \"cost\" (evict the entry saving the least run time per byte), \"last-used\" (lru by score) or \"most-recent\" (mru)"),
        "{e}"
    );
    let e = load(&registry(), "lru", "halves").expect_err("unknown");
    assert!(
        e.contains("parallel: unknown rule `halves`: expected \"off\" (never split), \"fixed\" (parallel_k sub-jobs), \"fill\" (as many as the free GPUs and CPUs allow, up to parallel_k) or \"three\" (3 sub-jobs)"),
        "{e}"
    );
    assert!(load(&registry(), "last-used", "three").is_ok());
    let builtin = Registry::builtin();
    let e = load(&builtin, "last-used", "fixed").expect_err("not built in");
    assert!(e.contains("unknown cache rule `last-used`"), "{e}");
    let e = load(&builtin, "lru", "three").expect_err("not built in");
    assert!(e.contains("unknown rule `three`"), "{e}");
}
