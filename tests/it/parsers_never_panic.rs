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

/// `base` with up to a few random single-byte edits (replace, insert, delete).
fn mutated(base: &'static str) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..6).prop_map(move |edits| {
        let mut b = base.as_bytes().to_vec();
        for (pos, byte, op) in edits {
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
    })
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
