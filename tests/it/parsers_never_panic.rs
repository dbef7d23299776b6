//! Every parser returns an error on garbage, never panics: arbitrary bytes
//! and random edits of valid inputs (a stable-toolchain complement to the
//! cargo-fuzz targets in `fuzz/`).

use std::path::Path;

use proptest::prelude::*;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::import::RuntimeModel;
use tenantsim::models::import::{aslib, fernandez_delgado, lcdb, matrix, model_metadata};
use tenantsim::models::scenario::parse_scenario;
use tenantsim::models::trace::parse_trace;

const TRACE: &str = include_str!("../../traces/hand.csv");
const SCENARIO: &str = include_str!("../../scenarios/quickstart.toml");
const ARRIVALS: &str = "user,arrival_s\nu1,0\nu2,3600\n\nu3,7200.5\n";
const NODES: &str = "node,gpus,model\nn1,8,A100\n\nn2,0,-\nn3,4,V100\n";
const SUMMARY: &str = "policy,rep,final_loss,time_to_0.05_s\na,0,0.1,inf\na,1,0.2,3.5\nb,0,0,n/a\n";
const CURVES: &str = include_str!("../../tests/fixtures/plots/model/curves.csv");
const LCDB: &str = "openmlid,learner,traintime_mean_s,score_train_mean,score_valid_mean,score_test_mean\n\
3,SVC_linear,0.07,0.97,0.96,0.97\n3,sklearn.tree.DecisionTreeClassifier,0.01,1.0,0.9,0.91\n";
const ARFF: &str = "@relation runs\n@attribute instance_id string\n@attribute repetition numeric\n\
@attribute algorithm string\n@attribute predictive_accuracy numeric\n@attribute runstatus {ok,timeout}\n\
@data\ni1,1,a,0.5,ok\ni1,1,b,0.7,ok\n";

const WORKFLOWS: &str = "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes,deadline_s,failure_p,parallel,runtime_s.v100\n\
w1,t0,0,a,,10,0,2,k1,100,60,0.1,0,\nw1,t0,0,b,a,5,1,1,k2,5,60,0,1,2\nw1,t0,0,c,a;b,1,0,1,,0,60,0.5,0,\n\nw2,t1,3.5,a,,1,0,1,k1,1,,0,0,\n";
const WFFORMAT: &str = r#"{"schemaVersion": "1.5", "name": "x", "workflow": {"specification": {"tasks": [
{"name": "a_ID01", "id": "a_ID01", "parents": [], "inputFiles": ["in"], "outputFiles": ["o"]},
{"name": "b_02", "id": "b_02", "parents": ["a_ID01"], "inputFiles": ["o"], "outputFiles": []}],
"files": [{"id": "in", "sizeInBytes": 5}, {"id": "o", "sizeInBytes": 7}]},
"execution": {"tasks": [{"id": "a_ID01", "runtimeInSeconds": 2.5, "coreCount": 4, "command": {"program": "p", "arguments": ["q"]}},
{"id": "b_02", "runtimeInSeconds": 0, "avgCPU": 250.5}]}}}"#;

const JOB_TRACE: &str = "job_id,user,submit_s,duration_s,gpus,gpu_type,group,cpus,duration_s.v100\n\
j0,alice,0,10,2,v100|k80,A,4,5\nj1,bob,1,2,1,,B,1,\n\nj2,alice,3.5,7,4,k80,A,2,\n";
const SPEEDS: &str = "group,gpu_type,speed\nA,v100,2\nB,k80,0.5\n";
const PHILLY: &str = include_str!("../fixtures/philly_trace.csv");
const HELIOS: &str = include_str!("../fixtures/helios_cluster_log.csv");
const ALIBABA: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
p0,4000,1024,1,500,,LS,Succeeded,0,100,10\np1,8000,2048,2,1000,V100M16,BE,Running,5,900,7\np2,1000,512,0,0,,LS,Succeeded,6,60,6\n";
const GAVEL: &str = "A (batch size 1)\tpython3 x.py\tdir\t--steps\t1\t100\t1\t1\t-1.000000\t0.000000\n\
B\tpython3 y.py\tdir\t--steps\t1\t40\t2\t2\t3600\t7\n";
const GAVEL_THROUGHPUTS: &str = r#"{"v100": {"('A (batch size 1)', 1)": {"null": 2.0}, "('B', 2)": {"null": 4.0}},
 "k80": {"('A (batch size 1)', 1)": {"null": 0.5}, "('B', 2)": {"null": 0.0}}}"#;

/// A scenario of each mode, with a sweep and the typed cluster's keys,
/// written with their inputs to `dir` (the edited text is loaded from there,
/// its inputs named by absolute path): a job scenario on a typed cluster
/// with a speed table (over [`JOB_TRACE`], which has groups), a swept job
/// scenario, a shared scenario with a service and a background, and a swept
/// model scenario.
fn scenario_seeds(dir: &Path) -> [String; 4] {
    let (typed, speeds) = (dir.join("typed.csv"), dir.join("speeds.csv"));
    std::fs::write(&typed, JOB_TRACE).expect("write the job trace");
    std::fs::write(&speeds, SPEEDS).expect("write the speed table");
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let (jobs, hand) = (traces.join("jobs-hand.csv"), traces.join("hand.csv"));
    let (jobs, hand) = (jobs.display(), hand.display());
    let (typed, speeds) = (typed.display(), speeds.display());
    [
        format!(
            "mode = \"jobs\"\nname = \"typed\"\n[jobs]\npath = \"{typed}\"\nspeeds = \"{speeds}\"\n\
[cluster]\nnodes = [{{type = \"v100\", count = 1, gpus_per_node = 4}}, {{type = \"k80\", count = 2, gpus_per_node = 4}}]\n\
[[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\ntype_policy = \"fastest-or-wait\"\nmax_wait_s = 60\n\
[[policy]]\nname = \"las\"\nscheduler = \"las\"\nqueue_thresholds_gpu_s = [4]\n"
        ),
        format!(
            "mode = \"jobs\"\nname = \"sw\"\nrepetitions = 2\nbaseline = \"fifo\"\n[jobs]\npath = \"{jobs}\"\nsample = 4\n\
[cluster]\nnodes = 1\ngpus_per_node = 2\n[sweep]\n\"cluster.nodes\" = [1, 2]\n\"policy.0.scheduler\" = [\"fifo\", \"sjf\"]\n\
[[policy]]\nname = \"swept\"\nscheduler = \"fifo\"\n[[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n"
        ),
        format!(
            "mode = \"shared\"\nname = \"sh\"\nseed = 2\n[cluster]\nnodes = 2\ngpus_per_node = 2\nscheduler = \"fifo\"\n\
[jobs]\npath = \"{jobs}\"\n[service]\nmax_gpus = 2\ngpus_per_job = 1\npriority = \"low\"\npreempt = \"checkpoint\"\n\
[service.trace]\npath = \"{hand}\"\n[service.split]\nprior_fraction = 0.5\n\
[[policy]]\nname = \"g\"\nscheduler = \"greedy\"\nselector = \"gp-ucb\"\n"
        ),
        format!(
            "name = \"m\"\nrepetitions = 2\nthresholds = [0.2, 0.1]\n[trace]\npath = \"{hand}\"\n[cluster]\ngpus = 1\n\
[sweep]\n\"cluster.gpus\" = [1, 2]\n[[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n"
        ),
    ]
}

/// Load the scenario `text` (any mode, sweeps expanded) from a file in
/// `dir`, as `tenantsim validate` does.
fn load_any(dir: &Path, text: &[u8]) -> tenantsim::Result<()> {
    use tenantsim::core::io::scenario::{ScenarioMode, mode_of_text};
    use tenantsim::core::run::mode::Mode;
    let path = dir.join("fuzz.toml");
    std::fs::write(&path, text).expect("write the scenario");
    let text = String::from_utf8_lossy(text);
    let registry = tenantsim::registry::Registry::builtin();
    match mode_of_text(&path, &text)? {
        ScenarioMode::Models => registry
            .model_mode()
            .load_plan(&path, Overrides::default())
            .map(drop),
        ScenarioMode::Jobs => registry
            .job_mode()
            .load_plan(&path, Overrides::default())
            .map(drop),
        ScenarioMode::Shared => registry
            .shared_mode()
            .load_plan(&path, Overrides::default())
            .map(drop),
    }
}

/// `base` with up to a few random single-byte edits (replace, insert, delete).
fn mutated(base: &'static str) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..6)
        .prop_map(move |edits| edited(base.as_bytes(), &edits))
}

/// `base` with the single-byte `edits` (position, byte, 0 replace / 1
/// insert / 2 delete) applied in order.
fn edited(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(pos, byte, op) in edits {
        let i = pos % (b.len() + 1);
        match op {
            0 if i < b.len() => b[i] = byte,
            1 => b.insert(i, byte),
            _ if i < b.len() => {
                b.remove(i);
            }
            _ => {}
        }
    }
    b
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn trace_parser_never_panics(bytes in prop_oneof![mutated(TRACE), proptest::collection::vec(any::<u8>(), 0..200)]) {
        let _ = parse_trace("fuzz.csv", bytes.as_slice());
    }

    #[test]
    fn scenario_parser_never_panics(bytes in mutated(SCENARIO)) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/fuzz.toml");
        let _ = parse_scenario(&path, &text(&bytes), Overrides::default());
    }

    #[test]
    fn importers_never_panic(l in mutated(LCDB), a in mutated(ARFF), m in mutated("0.5 0.6\n0.7 0\n")) {
        let opts = lcdb::LcdbOptions { score: lcdb::LcdbScore::Test, complete_only: false, runtime: RuntimeModel::Measured };
        let _ = lcdb::parse("l.csv", &text(&l), &opts);
        let _ = fernandez_delgado::parse("r.txt", &text(&l), RuntimeModel::Unit);
        let aopts = aslib::AslibOptions { measure: Some("predictive_accuracy".into()), runtime: Some(RuntimeModel::Unit) };
        let _ = aslib::parse("a.arff", &text(&a), None, &aopts);
        let m = text(&m);
        let part = matrix::MatrixTexts {
            accuracy: matrix::NamedText { name: "acc.txt", text: &m },
            runtime: Some(matrix::NamedText { name: "time.txt", text: "1 2\n3 4\n" }),
            row_labels: None,
        };
        let _ = matrix::parse(&[part], None, Some("0"), None);
    }

    #[test]
    fn model_metadata_never_panics(meta in mutated("model,model_year,model_citations\nm0,2012,5\nm1,2014,9\n")) {
        let mut rows = ["m0", "m1"].map(|m| tenantsim::models::trace::TraceRow {
            user: "u".into(), model: m.into(), accuracy: 0.5, runtime_s: 1.0, model_year: None, model_citations: None,
        });
        let _ = model_metadata::attach("meta.csv", &text(&meta), &mut rows);
    }

    #[test]
    fn arrival_and_node_list_parsers_never_panic(a in mutated(ARRIVALS), n in mutated(NODES)) {
        let trace = parse_trace("hand.csv", TRACE.as_bytes()).expect("hand trace");
        let _ = tenantsim::models::scenario::parse_arrival_times("a.csv", a.as_slice(), &trace);
        let _ = tenantsim::core::io::cluster::parse_node_list("n.csv", n.as_slice());
    }

    #[test]
    fn check_and_plot_readers_never_panic(s in mutated(SUMMARY), c in mutated(CURVES)) {
        use tenantsim::core::analysis::check::{Tolerance, compare_summaries, parse_summary};
        if let (Ok(x), Ok(y)) = (parse_summary("r.csv", s.as_slice()), parse_summary("g.csv", SUMMARY.as_bytes())) {
            let _ = compare_summaries(&x, &y, Tolerance::default());
        }
        if let Ok(t) = tenantsim::present::figures::Table::parse("curves.csv", text(&c), &["policy", "mean_loss"]) {
            for row in t.rows() {
                let Ok(row) = row else { break };
                for col in 0..t.header().len() {
                    let _ = (row.num(col), row.cell(col), row.loss(col), row.count(col), row.time_or_inf(col));
                }
            }
        }
    }

    #[test]
    fn workflow_trace_and_wfformat_parsers_never_panic(
        w in prop_oneof![mutated(WORKFLOWS), proptest::collection::vec(any::<u8>(), 0..200)],
        j in mutated(WFFORMAT),
    ) {
        let _ = tenantsim::workflows::trace::WorkflowTrace::parse("fuzz.csv", w.as_slice());
        let _ = tenantsim::workflows::wfformat::parse_instance("fuzz.json", "x", &text(&j));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn job_trace_and_speed_table_parsers_never_panic(
        t in prop_oneof![mutated(JOB_TRACE), proptest::collection::vec(any::<u8>(), 0..200)],
        s in mutated(SPEEDS),
    ) {
        let _ = tenantsim::jobs::trace::parse_job_trace("fuzz.csv", t.as_slice());
        let _ = tenantsim::jobs::typing::parse_speed_table("fuzz.csv", s.as_slice());
    }

    #[test]
    fn job_importers_never_panic(
        p in mutated(PHILLY),
        h in mutated(HELIOS),
        a in mutated(ALIBABA),
        g in mutated(GAVEL),
        j in mutated(GAVEL_THROUGHPUTS),
    ) {
        use tenantsim::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};
        use tenantsim::jobs::import::gavel::GavelOptions;
        let dir = tempfile::tempdir().expect("tempdir");
        let file = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            path
        };
        let _ = import_jobs(ImportFormat::Philly, &file("p.csv", &p), ImportOptions::default());
        let _ = import_jobs(ImportFormat::Helios, &file("h.csv", &h), ImportOptions::default());
        for fractional in [Fractional::Whole, Fractional::Drop] {
            let options = ImportOptions { fractional, ..ImportOptions::default() };
            let _ = import_jobs(ImportFormat::Alibaba, &file("a.csv", &a), options);
        }
        let gavel = GavelOptions {
            throughputs: Some(file("tp.json", &j)),
            worker_types: vec!["v100".into(), "k80".into()],
        };
        let options = ImportOptions { gavel, ..ImportOptions::default() };
        let _ = import_jobs(ImportFormat::Gavel, &file("g.trace", &g), options);
    }

    #[test]
    fn scenarios_of_every_mode_and_their_sweeps_never_panic(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..6),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = edited(scenario_seeds(dir.path())[which].as_bytes(), &edits);
        let _ = load_any(dir.path(), &text);
    }
}

/// The seeds of the job-mode parsers above are valid, so the edits explore
/// inputs near a valid one.
#[test]
fn the_job_mode_fuzz_seeds_parse() {
    use tenantsim::jobs::import::gavel::GavelOptions;
    use tenantsim::jobs::import::{ImportFormat, ImportOptions, import_jobs};
    let t = tenantsim::jobs::trace::parse_job_trace("seed.csv", JOB_TRACE.as_bytes())
        .expect("valid job trace");
    assert_eq!(t.len(), 3);
    let s = tenantsim::jobs::typing::parse_speed_table("seed.csv", SPEEDS.as_bytes())
        .expect("valid speed table");
    assert_eq!(s.get("A", "v100"), Some(2.0));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    for (format, text, rows) in [
        (ImportFormat::Philly, PHILLY, 1),
        (ImportFormat::Helios, HELIOS, 1),
        (ImportFormat::Alibaba, ALIBABA, 2),
    ] {
        let (got, _) = import_jobs(format, &file("in.csv", text), ImportOptions::default())
            .unwrap_or_else(|e| panic!("{format:?} seed: {e}"));
        assert!(got.len() >= rows, "{format:?}: {} rows", got.len());
    }
    let gavel = GavelOptions {
        throughputs: Some(file("tp.json", GAVEL_THROUGHPUTS)),
        worker_types: vec!["v100".into(), "k80".into()],
    };
    let options = ImportOptions {
        gavel,
        ..ImportOptions::default()
    };
    let (rows, _) = import_jobs(ImportFormat::Gavel, &file("g.trace", GAVEL), options)
        .expect("valid Gavel trace");
    assert_eq!(rows.len(), 2);
    for (k, seed) in scenario_seeds(dir.path()).iter().enumerate() {
        load_any(dir.path(), seed.as_bytes()).unwrap_or_else(|e| panic!("scenario seed {k}: {e}"));
    }
}

/// The seeds of the workflow fuzzing are valid, so the edits explore
/// inputs near a valid one.
#[test]
fn the_workflow_fuzz_seeds_parse() {
    let t = tenantsim::workflows::trace::WorkflowTrace::parse("seed.csv", WORKFLOWS.as_bytes())
        .expect("valid workflow trace");
    assert_eq!((t.workflows().len(), t.n_steps()), (2, 4));
    let i = tenantsim::workflows::wfformat::parse_instance("seed.json", "x", WFFORMAT)
        .expect("valid instance");
    assert_eq!(i.tasks.len(), 2);
}
