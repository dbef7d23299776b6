//! `tenantsim gen workflows` (DESIGN §14.1): ML pipelines submitted by
//! tenants over time.
//!
//! Every workflow is one pipeline on one data set:
//!
//! ```text
//! ingest → preprocess → featurise → train-1 … train-K → evaluate
//! ```
//!
//! (every `train-j` has parent `featurise`; `evaluate` has every trial as
//! parent). With S_d the size of data set d in bytes, times in seconds:
//!
//! | step | runtime_s | gpus | cpus | output_bytes | parallel |
//! |---|---|---|---|---|---|
//! | `ingest` | 10 + S_d / 2·10⁸ | 0 | 2 | S_d | 0 |
//! | `preprocess` | 20 + S_d / 10⁸ | 0 | 4 | ⌊S_d / 2⌋ | 0 |
//! | `featurise` | 30 + S_d / 5·10⁷ | 0 | 8 | ⌊S_d / 4⌋ | 1 |
//! | `train-j` | R_j | `trial_gpus` | 4 | 10⁸ | 0 |
//! | `evaluate` | 30 | 1 | 2 | 10⁶ | 0 |
//!
//! Every run time is rounded to the µs; `failure_p` and `deadline_s` are
//! the options' values on every row.
//!
//! **Draws**, all from one stream `rng::stream(seed, GEN_STREAM,
//! Purpose::Generator)`, in this order (u a uniform draw in [0, 1),
//! `below(n)` a uniform integer in 0..n, DESIGN §5):
//!
//! 1. data set sizes, d = 0 … D−1: S_d = ⌊10^(8 + 2u)⌋ (100 MB to 10 GB,
//!    log-uniform);
//! 2. per workflow k = 0 … W−1, in order:
//!    - its submit time t_k = t_{k−1} − ln(1 − u) / `rate` (t_{−1} = 0, a
//!      Poisson process), rounded to the µs;
//!    - its tenant a = `below(tenants)`;
//!    - whether it is a re-run: u < `rerun_share` and tenant a has
//!      submitted before (the draw is made either way);
//!    - a **fresh** pipeline: data set d = `below(datasets)`, featurise
//!      version 0 and evaluate version 0 (the data set's standard
//!      features and evaluation), a new training version (a new HPO run:
//!      new trials, drawn below);
//!    - a **re-run**: origin o = the `below(n)`-th of the n earlier
//!      workflows of tenant a; it copies o's data set, versions and
//!      trials, then changes one downstream stage c = `below(3)` of
//!      (featurise, train, evaluate) to a new version (a counter shared by
//!      all stages, so a version is never reused); a new training version
//!      draws new trials;
//!    - new trials, j = 1 … K: without a model trace R_j = 60 · 10^(2u)
//!      s (1 to 100 minutes, log-uniform); with one ([`TrialPool`]: per
//!      user of the model trace, the run times of its available models in
//!      model order), the data set's user is `d mod users` and R_j is the
//!      run time of a model drawn with `below` among that user's.
//!
//! **Cache keys** chain through the DAG, so a changed step changes the
//! key of every descendant and of nothing else: key = FNV-1a 64
//! ([`fnv1a64`]) of the text below, in 16 hex digits, with K_x the key of
//! step x:
//!
//! | step | hashed text |
//! |---|---|
//! | `ingest` | `ingest/d<d>` |
//! | `preprocess` | `preprocess/<K_ingest>` |
//! | `featurise` | `featurise/v<featurise version>/<K_preprocess>` |
//! | `train-j` | `train/v<train version>/j<j>/<K_featurise>` |
//! | `evaluate` | `evaluate/v<evaluate version>/<K_train-1>;…;<K_train-K>` |
//!
//! So every pipeline on data set d shares `ingest` and `preprocess` keys
//! (across tenants too: under `scope = "global"` they hit), every fresh
//! pipeline on d also shares `featurise`, and a re-run shares every step
//! upstream of its changed stage with its origin.
//!
//! Workflow ids are `wf<k>` (k from 0), tenants `t<a>`.

use std::path::Path;

use super::trace::{StepRow, WorkflowTrace, write_rows};
use super::wfformat::fnv1a64;
use crate::core::error::{Error, Result};
use crate::core::sim::rng::{Purpose, below, stream, unit};

/// Trial run times from a model trace: per user (in the trace's order),
/// the run times in seconds of its available models (in model order).
/// The command line builds it from `--model-trace`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialPool {
    /// Where it came from (for messages).
    pub source: String,
    /// Per user, its models' run times, s.
    pub runtimes: Vec<Vec<f64>>,
}

/// The stream index ("WFGN") of the generator's draws.
pub const GEN_STREAM: u64 = 0x5746_474e;

/// Bytes a trial writes (a checkpoint).
pub const TRIAL_OUTPUT_BYTES: u64 = 100_000_000;
/// Bytes `evaluate` writes (a report).
pub const EVALUATE_OUTPUT_BYTES: u64 = 1_000_000;

/// The generator's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenWorkflowParams {
    /// Workflows W.
    pub workflows: usize,
    /// Tenants.
    pub tenants: usize,
    /// Data sets D.
    pub datasets: usize,
    /// Submissions per second.
    pub rate: f64,
    /// Training trials K per pipeline.
    pub trials: usize,
    /// Probability that a submission re-runs an earlier pipeline of its
    /// tenant with one downstream stage changed.
    pub rerun_share: f64,
    /// Every step's `failure_p`.
    pub failure_p: f64,
    /// Every workflow's `deadline_s`.
    pub deadline_s: Option<f64>,
    /// GPUs of a trial.
    pub trial_gpus: u32,
    /// Seed.
    pub seed: u64,
}

impl Default for GenWorkflowParams {
    fn default() -> Self {
        Self {
            workflows: 200,
            tenants: 4,
            datasets: 6,
            rate: 0.01,
            trials: 4,
            rerun_share: 0.3,
            failure_p: 0.0,
            deadline_s: None,
            trial_gpus: 1,
            seed: 0,
        }
    }
}

/// The downstream stage a re-run changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `featurise` (and so every trial and `evaluate`).
    Featurise,
    /// The trials (and so `evaluate`).
    Train,
    /// `evaluate` alone.
    Evaluate,
}

/// One generated pipeline's choices.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Its tenant.
    pub tenant: usize,
    /// Its data set.
    pub dataset: usize,
    /// Submit time, s.
    pub submit_s: f64,
    /// For a re-run: the workflow it re-runs and the stage it changes.
    pub rerun_of: Option<(usize, Stage)>,
    /// Versions of featurise, train and evaluate.
    pub versions: [u64; 3],
    /// The trials' run times, s.
    pub trials: Vec<f64>,
}

/// What the generator made.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedWorkflows {
    /// Data set sizes S_d, bytes.
    pub dataset_bytes: Vec<u64>,
    /// The pipelines, by workflow index.
    pub pipelines: Vec<Pipeline>,
    /// Their rows, workflow by workflow, steps in DAG order.
    pub rows: Vec<StepRow>,
}

fn round_us(s: f64) -> f64 {
    (s * 1.0e6).round() / 1.0e6
}

fn key(text: &str) -> String {
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// Check the parameters (usage errors name the option).
pub fn check_params(p: &GenWorkflowParams) -> Result<()> {
    let bad = |what: String| Err(Error::usage(what));
    if p.workflows == 0 || p.tenants == 0 || p.datasets == 0 || p.trials == 0 {
        return bad(
            "--workflows, --tenants, --datasets and --trials must be at least 1".to_string(),
        );
    }
    if !(p.rate.is_finite() && p.rate > 0.0) {
        return bad(format!(
            "--rate: expected workflows per second > 0, got {}",
            p.rate
        ));
    }
    if !(0.0..=1.0).contains(&p.rerun_share) {
        return bad(format!(
            "--rerun-share: expected a probability in [0, 1], got {}",
            p.rerun_share
        ));
    }
    if !(0.0..1.0).contains(&p.failure_p) {
        return bad(format!(
            "--failure-p: expected a probability in [0, 1), got {}",
            p.failure_p
        ));
    }
    if let Some(d) = p.deadline_s
        && !(d.is_finite() && d > 0.0 && d <= crate::core::sim::time::MAX_RUNTIME_S)
    {
        return bad(format!("--deadline-s: expected seconds > 0, got {d}"));
    }
    Ok(())
}

/// Generate the pipelines and their rows (module documentation); trial
/// run times come from `model_trace` when given.
pub fn generate_workflows(
    p: &GenWorkflowParams,
    model_trace: Option<&TrialPool>,
) -> Result<GeneratedWorkflows> {
    check_params(p)?;
    if let Some(t) = model_trace
        && (t.runtimes.is_empty() || t.runtimes.iter().any(Vec::is_empty))
    {
        return Err(Error::input(format!(
            "{}: expected every user to have an available model",
            t.source
        )));
    }
    let mut rng = stream(p.seed, GEN_STREAM, Purpose::Generator);
    let dataset_bytes: Vec<u64> = (0..p.datasets)
        .map(|_| 10f64.powf(8.0 + 2.0 * unit(&mut rng)).floor() as u64)
        .collect();
    let mut pipelines: Vec<Pipeline> = Vec::with_capacity(p.workflows);
    let mut of_tenant: Vec<Vec<usize>> = vec![Vec::new(); p.tenants];
    let mut next_version = 1u64;
    let mut t = 0.0f64;
    let draw_trials = |rng: &mut _, dataset: usize| -> Vec<f64> {
        (0..p.trials)
            .map(|_| match model_trace {
                None => round_us(60.0 * 10f64.powf(2.0 * unit(rng))),
                Some(pool) => {
                    let runtimes = &pool.runtimes[dataset % pool.runtimes.len()];
                    runtimes[below(rng, runtimes.len())]
                }
            })
            .collect()
    };
    for k in 0..p.workflows {
        t -= (1.0 - unit(&mut rng)).ln() / p.rate;
        let submit_s = round_us(t);
        let tenant = below(&mut rng, p.tenants);
        let rerun = unit(&mut rng) < p.rerun_share && !of_tenant[tenant].is_empty();
        let pipeline = if rerun {
            let earlier = &of_tenant[tenant];
            let o = earlier[below(&mut rng, earlier.len())];
            let stage = [Stage::Featurise, Stage::Train, Stage::Evaluate][below(&mut rng, 3)];
            let origin = &pipelines[o];
            let mut versions = origin.versions;
            versions[stage as usize] = next_version;
            next_version += 1;
            let trials = if stage == Stage::Train {
                draw_trials(&mut rng, origin.dataset)
            } else {
                origin.trials.clone()
            };
            Pipeline {
                tenant,
                dataset: origin.dataset,
                submit_s,
                rerun_of: Some((o, stage)),
                versions,
                trials,
            }
        } else {
            let dataset = below(&mut rng, p.datasets);
            let versions = [0, next_version, 0];
            next_version += 1;
            Pipeline {
                tenant,
                dataset,
                submit_s,
                rerun_of: None,
                versions,
                trials: draw_trials(&mut rng, dataset),
            }
        };
        of_tenant[tenant].push(k);
        pipelines.push(pipeline);
    }
    let mut rows = Vec::with_capacity(p.workflows * (p.trials + 4));
    for (k, pl) in pipelines.iter().enumerate() {
        pipeline_rows(p, k, pl, dataset_bytes[pl.dataset], &mut rows);
    }
    Ok(GeneratedWorkflows {
        dataset_bytes,
        pipelines,
        rows,
    })
}

/// The rows of pipeline `k` (module documentation's table and keys).
fn pipeline_rows(p: &GenWorkflowParams, k: usize, pl: &Pipeline, s: u64, rows: &mut Vec<StepRow>) {
    let sf = s as f64;
    let base = StepRow {
        workflow: format!("wf{k}"),
        tenant: format!("t{}", pl.tenant),
        submit_s: pl.submit_s,
        deadline_s: p.deadline_s,
        failure_p: p.failure_p,
        ..StepRow::default()
    };
    let k_ingest = key(&format!("ingest/d{}", pl.dataset));
    let k_pre = key(&format!("preprocess/{k_ingest}"));
    let k_feat = key(&format!("featurise/v{}/{k_pre}", pl.versions[0]));
    let step = |id: &str, parents: &[&str], runtime_s: f64, gpus, cpus, key: &str, out| StepRow {
        step: id.to_string(),
        parents: parents.iter().map(|s| s.to_string()).collect(),
        runtime_s: round_us(runtime_s),
        gpus,
        cpus,
        cache_key: key.to_string(),
        output_bytes: out,
        ..base.clone()
    };
    rows.push(step("ingest", &[], 10.0 + sf / 2.0e8, 0, 2, &k_ingest, s));
    rows.push(step(
        "preprocess",
        &["ingest"],
        20.0 + sf / 1.0e8,
        0,
        4,
        &k_pre,
        s / 2,
    ));
    let mut feat = step(
        "featurise",
        &["preprocess"],
        30.0 + sf / 5.0e7,
        0,
        8,
        &k_feat,
        s / 4,
    );
    feat.parallel = true;
    rows.push(feat);
    let mut train_keys = Vec::with_capacity(pl.trials.len());
    let mut train_ids = Vec::with_capacity(pl.trials.len());
    for (j, &r) in pl.trials.iter().enumerate() {
        let kt = key(&format!("train/v{}/j{}/{k_feat}", pl.versions[1], j + 1));
        let id = format!("train-{}", j + 1);
        rows.push(step(
            &id,
            &["featurise"],
            r,
            p.trial_gpus,
            4,
            &kt,
            TRIAL_OUTPUT_BYTES,
        ));
        train_keys.push(kt);
        train_ids.push(id);
    }
    let k_eval = key(&format!(
        "evaluate/v{}/{}",
        pl.versions[2],
        train_keys.join(";")
    ));
    let ids: Vec<&str> = train_ids.iter().map(String::as_str).collect();
    rows.push(step(
        "evaluate",
        &ids,
        30.0,
        1,
        2,
        &k_eval,
        EVALUATE_OUTPUT_BYTES,
    ));
}

/// What `gen workflows` did.
#[derive(Debug, Clone, PartialEq)]
pub struct GenWorkflowsReport {
    /// Workflows written.
    pub workflows: usize,
    /// Of which re-runs.
    pub reruns: usize,
    /// Steps written.
    pub steps: usize,
    /// Distinct cache keys.
    pub keys: usize,
    /// Submit time of the last workflow, s.
    pub last_submit_s: f64,
}

impl std::fmt::Display for GenWorkflowsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} workflows ({} re-runs), {} steps, {} distinct cache keys, submitted over {} s",
            self.workflows, self.reruns, self.steps, self.keys, self.last_submit_s
        )
    }
}

/// Generate, check as a workflow trace and write to `out` atomically.
pub fn run_gen_workflows(
    p: &GenWorkflowParams,
    model_trace: Option<&TrialPool>,
    out: &Path,
) -> Result<GenWorkflowsReport> {
    let g = generate_workflows(p, model_trace)?;
    WorkflowTrace::from_rows("gen workflows", &g.rows)?;
    write_rows(out, &g.rows)?;
    let keys: std::collections::HashSet<&str> =
        g.rows.iter().map(|r| r.cache_key.as_str()).collect();
    Ok(GenWorkflowsReport {
        workflows: g.pipelines.len(),
        reruns: g.pipelines.iter().filter(|p| p.rerun_of.is_some()).count(),
        steps: g.rows.len(),
        keys: keys.len(),
        last_submit_s: g.pipelines.last().map_or(0.0, |p| p.submit_s),
    })
}
