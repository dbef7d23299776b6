//! `tenantsim import-workflows wfformat` (DESIGN §14.1) on the 48
//! WfInstances executions of `../shared/data/wfinstances` and on small
//! hand-written instances of both layouts (1.4 and 1.5).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tenantsim::core::testing::shared_data;
use tenantsim::workflows::trace::{StepRow, WorkflowTrace, read_rows};
use tenantsim::workflows::wfformat::{
    WfOptions, cache_key, fnv1a64, parse_instance, run_import_workflows, submit, template,
};

use crate::common::tenantsim;

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// What the test expects of one task, read from the JSON by its own walk
/// (not the importer's code): (id, parents, runtime, cpus, output bytes).
type Expected = (String, Vec<String>, f64, u32, u64);

fn expected_steps(doc: &Value) -> Vec<Expected> {
    let wf = &doc["workflow"];
    let sizes: HashMap<&str, u64> = wf["specification"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["id"].as_str().expect("file id"),
                f["sizeInBytes"].as_u64().expect("size"),
            )
        })
        .collect();
    let exec: HashMap<&str, &Value> = wf["execution"]["tasks"]
        .as_array()
        .expect("execution tasks")
        .iter()
        .map(|t| (t["id"].as_str().expect("id"), t))
        .collect();
    wf["specification"]["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| {
            let id = t["id"].as_str().expect("id").to_string();
            let e = exec[id.as_str()];
            let parents = t["parents"]
                .as_array()
                .expect("parents")
                .iter()
                .map(|p| p.as_str().expect("parent").to_string())
                .collect();
            let runtime = e["runtimeInSeconds"].as_f64().expect("runtime");
            let cpus = match e.get("coreCount").and_then(Value::as_u64) {
                Some(c) => c.max(1) as u32,
                None => {
                    let avg = e.get("avgCPU").and_then(Value::as_f64).unwrap_or(0.0);
                    // ⌈avg / 100⌉ by integer steps: the smallest n ≥ 1 with
                    // 100·n ≥ avg.
                    let mut n = 1u32;
                    while f64::from(n) * 100.0 < avg {
                        n += 1;
                    }
                    n
                }
            };
            let out: u64 = t["outputFiles"]
                .as_array()
                .expect("outputs")
                .iter()
                .map(|f| sizes[f.as_str().expect("file")])
                .sum();
            (id, parents, runtime, cpus, out)
        })
        .collect()
}

/// The issue's "what must hold": importing each of the 48 instances gives
/// one step per task with the recorded parents and run times (a recorded
/// 0 s raised to the 1 µs floor), the CPUs of `coreCount` or ⌈avgCPU /
/// 100⌉ and the summed output sizes; the JSON is read here by an
/// independent walk, and the CSV is read back from the file the command
/// wrote.
#[test]
fn every_wfinstance_imports_one_step_per_task_with_its_parents_and_runtime() {
    let Some(root) = shared_data("wfinstances") else {
        return;
    };
    let mut files = Vec::new();
    json_files(&root, &mut files);
    files.sort();
    assert_eq!(files.len(), 48, "the 48 instances of shared/data");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("all.csv");
    let report = run_import_workflows(&files, &WfOptions::default(), &out).expect("imports");
    assert_eq!((report.instances, report.workflows), (48, 48));
    let (rows, _) = read_rows(&out).expect("reads back");
    WorkflowTrace::read(&out).expect("a valid workflow trace");
    let mut by_workflow: HashMap<&str, Vec<&StepRow>> = HashMap::new();
    for r in &rows {
        by_workflow.entry(r.workflow.as_str()).or_default().push(r);
    }
    let mut tasks = 0;
    for f in &files {
        let doc: Value = serde_json::from_str(&fs::read_to_string(f).expect("read")).expect("json");
        let stem = f.file_stem().expect("stem").to_string_lossy().into_owned();
        let want = expected_steps(&doc);
        let got = &by_workflow[stem.as_str()];
        assert_eq!(got.len(), want.len(), "{stem}: one step per task");
        for (r, (id, parents, runtime, cpus, out)) in got.iter().zip(&want) {
            assert_eq!(&r.step, id, "{stem}");
            assert_eq!(&r.parents, parents, "{stem} {id}");
            assert_eq!(r.runtime_s, runtime.max(1e-6), "{stem} {id}");
            assert_eq!(r.cpus, *cpus, "{stem} {id}");
            assert_eq!(r.gpus, 0);
            assert_eq!(r.output_bytes, *out, "{stem} {id}");
            assert_eq!((r.submit_s, r.tenant.as_str()), (0.0, "t0"));
            assert_eq!(r.cache_key.len(), 16, "{stem} {id}");
        }
        tasks += want.len();
    }
    assert_eq!(rows.len(), tasks);
    assert_eq!(report.steps, tasks);
}

/// The five Makeflow blast runs execute the same tasks on the same files:
/// their keys are equal run to run, so a later run can hit every step of
/// an earlier one; two copies of one instance share every key.
#[test]
fn repeated_executions_of_one_workflow_share_their_cache_keys() {
    let Some(dir) = shared_data("wfinstances/makeflow/blast") else {
        return;
    };
    let a =
        tenantsim::workflows::wfformat::read_instance(&dir.join("blast-chameleon-small-001.json"))
            .expect("reads");
    let b =
        tenantsim::workflows::wfformat::read_instance(&dir.join("blast-chameleon-small-002.json"))
            .expect("reads");
    let keys = |i: &tenantsim::workflows::wfformat::Instance| {
        let mut k: Vec<String> = i.tasks.iter().map(|t| t.cache_key.clone()).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&a), keys(&b));
    let distinct: std::collections::HashSet<_> = keys(&a).into_iter().collect();
    assert_eq!(
        distinct.len(),
        a.tasks.len(),
        "no two tasks of a run share a key"
    );
}

/// Published FNV-1a 64 test vectors (the empty string is the offset
/// basis), and the key's bytes spelled out: template, program and
/// arguments, sorted deduplicated inputs, 0x00 between the parts and 0x1f
/// within them; inputs in any order give one key.
#[test]
fn the_cache_key_is_fnv1a_of_template_command_and_sorted_inputs() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    let k = cache_key("blastall", "blastall", &["-p", "x"], &["nt", "a", "nt"]);
    assert_eq!(
        k,
        format!("{:016x}", fnv1a64(b"blastall\0blastall\0-p\x1fx\0a\x1fnt"))
    );
    assert_eq!(
        k,
        cache_key("blastall", "blastall", &["-p", "x"], &["a", "nt"])
    );
    assert_ne!(
        k,
        cache_key("blastall", "blastall", &["-p", "y"], &["a", "nt"])
    );
    assert_eq!(template("blastall_ID000002"), "blastall");
    assert_eq!(template("cpuhog_forkjoin_00000001"), "cpuhog_forkjoin");
    assert_eq!(
        template("NFCORE_BACASS.BACASS.FASTQC"),
        "NFCORE_BACASS.BACASS.FASTQC"
    );
    assert_eq!(template("step2"), "step2", "no `_` before the digits");
}

pub(crate) const V15: &str = r#"{"schemaVersion": "1.5", "name": "x", "workflow": {
  "specification": {
    "tasks": [
      {"name": "a_ID01", "id": "a_ID01", "parents": [], "children": ["b_ID02"], "inputFiles": ["in"], "outputFiles": ["o1", "o2"]},
      {"name": "b_ID02", "id": "b_ID02", "parents": ["a_ID01"], "children": [], "inputFiles": ["o1"], "outputFiles": []}
    ],
    "files": [{"id": "in", "sizeInBytes": 5}, {"id": "o1", "sizeInBytes": 7}, {"id": "o2", "sizeInBytes": 11}]
  },
  "execution": {"makespanInSeconds": 3, "executedAt": "now", "tasks": [
      {"id": "b_ID02", "runtimeInSeconds": 0, "avgCPU": 250.5},
      {"id": "a_ID01", "runtimeInSeconds": 2.5, "coreCount": 4, "command": {"program": "p", "arguments": ["q"]}}
  ]}
}}"#;

const V14: &str = r#"{"schemaVersion": "1.4", "name": "x", "workflow": {
  "makespanInSeconds": 3, "executedAt": "now",
  "tasks": [
    {"name": "a_ID01", "id": "ID01", "parents": [], "runtimeInSeconds": 2.5, "cores": 4,
     "command": {"program": "p", "arguments": ["q"]},
     "files": [{"name": "in", "link": "input", "sizeInBytes": 5},
               {"name": "o1", "link": "output", "sizeInBytes": 7},
               {"name": "o2", "link": "output", "sizeInBytes": 11}]},
    {"name": "b_ID02", "id": "ID02", "parents": ["a_ID01"], "runtimeInSeconds": 0, "avgCPU": 250.5,
     "files": [{"name": "o1", "link": "input", "sizeInBytes": 7}]}
  ]
}}"#;

/// A two-task instance worked out by hand, in both layouts: a (2.5 s, 4
/// cores, outputs 7 + 11 = 18 bytes) → b (0 s recorded, avgCPU 250.5 % →
/// ⌈2.505⌉ = 3 CPUs, no outputs). 1.4 names parents by name and the step
/// is the task's `id`; the keys of the two layouts are equal (same
/// template, command and inputs).
#[test]
fn both_layouts_give_the_hand_computed_steps() {
    let a = parse_instance("v15.json", "x", V15).expect("1.5");
    let b = parse_instance("v14.json", "x", V14).expect("1.4");
    assert_eq!(a.tasks[0].id, "a_ID01");
    assert_eq!(a.tasks[1].parents, ["a_ID01"]);
    assert_eq!(b.tasks[0].id, "ID01");
    assert_eq!(b.tasks[1].parents, ["ID01"]);
    for i in [&a, &b] {
        assert_eq!(
            (
                i.tasks[0].runtime_s,
                i.tasks[0].cpus,
                i.tasks[0].output_bytes
            ),
            (2.5, 4, 18)
        );
        assert_eq!(
            (
                i.tasks[1].runtime_s,
                i.tasks[1].cpus,
                i.tasks[1].output_bytes
            ),
            (0.0, 3, 0)
        );
    }
    assert_eq!(a.tasks[0].cache_key, cache_key("a", "p", &["q"], &["in"]));
    assert_eq!(a.tasks[1].cache_key, cache_key("b", "", &[], &["o1"]));
    assert_eq!(a.tasks[0].cache_key, b.tasks[0].cache_key);
    assert_eq!(a.tasks[1].cache_key, b.tasks[1].cache_key);
    let (rows, report) = submit(&[a], &WfOptions::default()).expect("submits");
    assert_eq!(rows[1].runtime_s, 1e-6, "0 s raised to 1 µs");
    assert_eq!(report.raised, 1);
}

/// Copies, tenants and a Poisson rate: ids `<stem>#c`, copy by copy;
/// submit times increase, rounded to the µs; the mean gap of 2,000
/// workflows at rate 0.5/s is 2 s within 5 standard errors (σ of an
/// exponential gap = its mean, 2 s; standard error 2/√2000 ≈ 0.045 s); the
/// tenants are t0..t3, each about a quarter (binomial, 5σ); the same seed
/// gives the same rows.
#[test]
fn copies_tenants_and_rate_follow_the_options() {
    let inst = parse_instance("v15.json", "x", V15).expect("1.5");
    let opts = WfOptions {
        tenants: 4,
        rate: Some(0.5),
        copies: 2000,
        seed: 3,
    };
    let (rows, report) = submit(std::slice::from_ref(&inst), &opts).expect("submits");
    assert_eq!(report.workflows, 2000);
    assert_eq!(rows[0].workflow, "x#1");
    assert_eq!(rows[3].workflow, "x#2");
    let submits: Vec<f64> = rows.iter().step_by(2).map(|r| r.submit_s).collect();
    assert!(submits.windows(2).all(|w| w[0] <= w[1]));
    assert!(submits.iter().all(|s| (s * 1e6).round() / 1e6 == *s));
    let mean_gap = submits[submits.len() - 1] / submits.len() as f64;
    assert!(
        (mean_gap - 2.0).abs() < 5.0 * 2.0 / (2000f64).sqrt(),
        "{mean_gap}"
    );
    let mut count = [0usize; 4];
    for r in rows.iter().step_by(2) {
        let k: usize = r.tenant[1..].parse().expect("t<k>");
        count[k] += 1;
    }
    let sd = (2000.0f64 * 0.25 * 0.75).sqrt();
    assert!(
        count.iter().all(|&c| (c as f64 - 500.0).abs() < 5.0 * sd),
        "{count:?}"
    );
    assert_eq!(submit(&[inst], &opts).expect("again").0, rows);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).expect("write");
    p
}

#[test]
fn bad_instances_are_errors_naming_file_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let err = |name: &str, text: &str| {
        let p = write(d, name, text);
        tenantsim::workflows::wfformat::read_instance(&p)
            .expect_err("rejected")
            .to_string()
    };
    let m = err("v.json", &V15.replace("\"1.5\"", "\"1.2\""));
    assert!(
        m.contains("v.json: schemaVersion: version `1.2` is not supported"),
        "{m}"
    );
    let m = err("p.json", &V15.replace("[\"a_ID01\"]", "[\"zz\"]"));
    assert!(
        m.contains("workflow.specification.tasks[1].parents[0]: unknown parent `zz`"),
        "{m}"
    );
    let m = err(
        "c.json",
        &V15.replace("\"parents\": []", "\"parents\": [\"b_ID02\"]"),
    );
    assert!(
        m.contains("the tasks form a cycle: `a_ID01` → `b_ID02` → `a_ID01`"),
        "{m}"
    );
    let m = err(
        "e.json",
        &V15.replace("{\"id\": \"b_ID02\", ", "{\"id\": \"other\", "),
    );
    assert!(
        m.contains("task `b_ID02` has no entry in workflow.execution.tasks"),
        "{m}"
    );
    let m = err(
        "s.json",
        &V15.replace("\"sizeInBytes\": 7", "\"sizeInBytes\": -7"),
    );
    assert!(
        m.contains("workflow.specification.files[1].sizeInBytes: expected a whole number of bytes >= 0, got -7"),
        "{m}"
    );
    let m = err("j.json", "{\"schemaVersion\": ");
    assert!(
        m.starts_with(&format!("{}: line 1, column", d.join("j.json").display())),
        "{m}"
    );
}

/// The command: writes the CSV, reports on stderr; a duplicate file stem
/// is a usage error (the workflow ids would clash).
#[test]
fn the_command_writes_the_trace_and_refuses_clashing_stems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let a = write(d, "x.json", V15);
    fs::create_dir(d.join("sub")).expect("mkdir");
    let b = write(&d.join("sub"), "x.json", V15);
    let out = d.join("w.csv");
    tenantsim()
        .args(["import-workflows", "wfformat"])
        .arg(&a)
        .arg("--out")
        .arg(&out)
        .args(["--copies", "2"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "1 instance(s) → 2 workflow(s), 4 steps",
        ));
    let t = WorkflowTrace::read(&out).expect("valid");
    assert_eq!(t.workflows().len(), 2);
    tenantsim()
        .args(["import-workflows", "wfformat"])
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(d.join("w2.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "two inputs have the file stem `x`",
        ));
}
