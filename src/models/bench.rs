//! `tenantsim bench`: fixed workloads, generated in memory by the SYN
//! generator (no files), each run as a scenario and timed; one line per
//! workload with simulated events, wall time and events per second. These
//! are the figures docs/PERFORMANCE.md quotes, on the machine of whoever
//! runs the command.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::core::error::{Error, Result};
use crate::core::io::scenario::Overrides;
use crate::models::experiment::{RunOptions, run_experiment};
use crate::models::scenario::parse_scenario;

/// Options of `tenantsim bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchOptions {
    /// Only the small workloads, fewer repetitions (a few seconds).
    pub quick: bool,
    /// Worker threads for the repetitions (1: the figures are per core).
    pub threads: u32,
}

/// One built-in workload: a SYN trace and a scenario over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Name printed in the first column.
    pub name: &'static str,
    /// Tenants served (the trace has `prior` more users).
    pub tenants: usize,
    /// Models K.
    pub models: usize,
    /// Prior users (the GP prior's history).
    pub prior: usize,
    /// GPUs.
    pub gpus: u32,
    /// `scheduler`, `selector` of the one policy.
    pub policy: (&'static str, &'static str),
    /// Whether each tenant is also run alone (`fairness`).
    pub fairness: bool,
    /// Repetitions in the full run and with `--quick` (0: skipped).
    pub reps: (u32, u32),
    /// Fidelities per pair (`[trace.syn] fidelities`; 1: a plain trace).
    pub fidelities: usize,
}

const GREEDY: (&str, &str) = ("greedy", "gp-ucb-cost");

/// The workloads, in the order they run.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "lcdb-sized",
        tenants: 40,
        models: 20,
        prior: 40,
        gpus: 4,
        policy: GREEDY,
        fairness: false,
        reps: (1000, 200),
        fidelities: 1,
    },
    Workload {
        name: "lcdb-sized-fairness",
        tenants: 40,
        models: 20,
        prior: 40,
        gpus: 4,
        policy: GREEDY,
        fairness: true,
        reps: (200, 40),
        fidelities: 1,
    },
    Workload {
        name: "k179",
        tenants: 100,
        models: 179,
        prior: 40,
        gpus: 8,
        policy: GREEDY,
        fairness: false,
        reps: (3, 1),
        fidelities: 1,
    },
    Workload {
        name: "rr-in-order-10k",
        tenants: 10_000,
        models: 20,
        prior: 0,
        gpus: 64,
        policy: ("round-robin", "in-order"),
        fairness: false,
        reps: (3, 1),
        fidelities: 1,
    },
    Workload {
        name: "greedy-10k",
        tenants: 10_000,
        models: 20,
        prior: 200,
        gpus: 64,
        policy: GREEDY,
        fairness: false,
        reps: (3, 1),
        fidelities: 1,
    },
    Workload {
        name: "scale",
        tenants: 100_000,
        models: 20,
        prior: 1_000,
        gpus: 256,
        policy: GREEDY,
        fairness: false,
        reps: (1, 0),
        fidelities: 1,
    },
    // Learning curves (DESIGN §12): 4 fidelities per pair, from scratch.
    Workload {
        name: "asha-curves-10k",
        tenants: 10_000,
        models: 20,
        prior: 200,
        gpus: 64,
        policy: ("round-robin", "asha"),
        fairness: false,
        reps: (3, 1),
        fidelities: 4,
    },
    Workload {
        name: "sh-curves-10k",
        tenants: 10_000,
        models: 20,
        prior: 200,
        gpus: 64,
        policy: ("round-robin", "successive-halving"),
        fairness: false,
        reps: (3, 1),
        fidelities: 4,
    },
];

impl Workload {
    /// The scenario text: a `[trace.syn]` of `tenants + prior` users
    /// (seed 1, `fidelities` when above 1, defaults otherwise), `prior` of
    /// them sampled as prior users in each repetition.
    pub fn scenario_text(&self, reps: u32) -> String {
        let split = if self.prior > 0 {
            format!("[split]\nprior_count = {}\n", self.prior)
        } else {
            String::new()
        };
        let levels = if self.fidelities > 1 {
            format!("fidelities = {}\n", self.fidelities)
        } else {
            String::new()
        };
        format!(
            "name = \"bench-{name}\"\nseed = 1\nrepetitions = {reps}\nfairness = {fair}\n\
             [trace.syn]\nusers = {users}\nmodels = {models}\nseed = 1\n{levels}{split}\
             [cluster]\ngpus = {gpus}\n\
             [[policy]]\nname = \"{name}\"\nscheduler = \"{sched}\"\nselector = \"{sel}\"\n",
            name = self.name,
            fair = self.fairness,
            users = self.tenants + self.prior,
            models = self.models,
            gpus = self.gpus,
            sched = self.policy.0,
            sel = self.policy.1,
        )
    }
}

/// What one workload did.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchLine {
    /// The workload.
    pub workload: Workload,
    /// Repetitions run.
    pub reps: u32,
    /// Seconds to generate the trace and load the scenario.
    pub setup_s: f64,
    /// Events simulated (completions and arrivals), every repetition and
    /// isolated run included.
    pub events: u64,
    /// Jobs completed (one decision each) in the main runs.
    pub jobs: u64,
    /// Wall seconds of the repetitions: simulation, metrics and, with
    /// `fairness`, the isolated runs (not the setup, not writing files).
    pub wall_s: f64,
}

impl BenchLine {
    /// Simulated events per wall second.
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-9)
    }
}

/// Run one workload for `reps` repetitions on `threads` threads.
pub fn run_workload(w: &Workload, reps: u32, threads: usize) -> Result<BenchLine> {
    let setup = Instant::now();
    let path = Path::new("bench").join(format!("{}.toml", w.name));
    let scenario = parse_scenario(&path, &w.scenario_text(reps), Overrides::default())?;
    let setup_s = setup.elapsed().as_secs_f64();
    let result = run_experiment(
        &scenario,
        RunOptions {
            threads: Some(threads),
            keep_jobs: false,
        },
    )?;
    let mut events: u64 = result.runs.iter().map(|r| r.metrics.events).sum();
    if w.fairness {
        // Isolated runs keep only their regret areas: count one arrival and
        // one completion per model of each tenant alone (every model runs:
        // these workloads have no horizon and no limits).
        events += result
            .runs
            .iter()
            .map(|r| {
                r.split
                    .tenants
                    .iter()
                    .map(|u| 1 + scenario.trace.models_of(u).len() as u64)
                    .sum::<u64>()
            })
            .sum::<u64>();
    }
    Ok(BenchLine {
        workload: *w,
        reps,
        setup_s,
        events,
        jobs: result.runs.iter().map(|r| r.metrics.jobs as u64).sum(),
        wall_s: result.wall.as_secs_f64(),
    })
}

/// The policy column of workload `w`: `scheduler+selector`, and `+fair`
/// with fairness.
fn policy_label(w: &Workload) -> String {
    format!(
        "{}+{}{}",
        w.policy.0,
        w.policy.1,
        if w.fairness { "+fair" } else { "" }
    )
}

/// The policy column's width: its longest label, at least its heading's.
fn policy_width() -> usize {
    WORKLOADS
        .iter()
        .map(|w| policy_label(w).len())
        .fold("policy".len(), usize::max)
}

/// The header of the table [`format_line`] writes; every column lines up
/// with its lines (the policy column as wide as its longest label).
pub fn header() -> String {
    format!(
        "{:<21} {:>7} {:>6} {:>4} {:<pw$} {:>4} {:>10} {:>10} {:>8} {:>8} {:>13}",
        "workload",
        "tenants",
        "models",
        "gpus",
        "policy",
        "reps",
        "events",
        "jobs",
        "setup_s",
        "wall_s",
        "events/s",
        pw = policy_width()
    )
}

/// One line of the table.
pub fn format_line(l: &BenchLine) -> String {
    let w = &l.workload;
    format!(
        "{:<21} {:>7} {:>6} {:>4} {:<pw$} {:>4} {:>10} {:>10} {:>8.3} {:>8.3} {:>13.0}",
        w.name,
        w.tenants,
        w.models,
        w.gpus,
        policy_label(w),
        l.reps,
        l.events,
        l.jobs,
        l.setup_s,
        l.wall_s,
        l.events_per_s(),
        pw = policy_width()
    )
}

/// The cargo profile this binary was built with (build.rs).
pub const BUILD_PROFILE: &str = env!("TENANTSIM_BUILD_PROFILE");

/// The profile benchmarks are measured with (Cargo.toml: fat LTO, one
/// codegen unit; docs/PERFORMANCE.md).
pub const MEASURED_PROFILE: &str = "optimized";

/// `tenantsim bench`: run the workloads and print the table on stdout.
pub fn run_bench(args: &BenchOptions) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| Error::stdout("the benchmark table", &e);
    eprintln!(
        "tenantsim bench{}: built-in SYN workloads on {} thread(s), `{BUILD_PROFILE}` build; wall_s covers the repetitions \
         (simulation and metrics), setup_s the trace generation",
        if args.quick { " --quick" } else { "" },
        args.threads
    );
    if BUILD_PROFILE != MEASURED_PROFILE {
        eprintln!(
            "note: docs/PERFORMANCE.md's numbers come from the `{MEASURED_PROFILE}` profile (fat LTO, one codegen unit): \
             `cargo run --profile {MEASURED_PROFILE} -- bench`; this is a `{BUILD_PROFILE}` build"
        );
    }
    writeln!(out, "{}", header()).map_err(io)?;
    for w in WORKLOADS {
        let reps = if args.quick { w.reps.1 } else { w.reps.0 };
        if reps == 0 {
            continue;
        }
        let line = run_workload(w, reps, args.threads as usize)?;
        writeln!(out, "{}", format_line(&line)).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// build.rs names the profile folder the test binary itself lies in
    /// (`<target>/<profile>/deps/<test binary>`).
    #[test]
    fn the_build_profile_is_the_target_folder_of_this_build() {
        let exe = std::env::current_exe().expect("test binary path");
        let folder = exe
            .parent()
            .and_then(|deps| deps.parent())
            .and_then(|p| p.file_name())
            .expect("target/<profile>/deps")
            .to_string_lossy()
            .into_owned();
        assert_eq!(BUILD_PROFILE, folder);
    }

    /// The policy column was 23 characters wide, and the longest label
    /// (`round-robin+successive-halving`) pushed the rest of its line out
    /// of the columns. Every line is now as long as the header, each field
    /// of fixed width, so every column lines up.
    #[test]
    fn a_long_policy_name_pushed_its_line_out_of_the_columns() {
        let header = header();
        for w in WORKLOADS {
            let line = format_line(&BenchLine {
                workload: *w,
                reps: 1000,
                setup_s: 12.345,
                events: 1_000_000_000,
                jobs: 1_000_000_000,
                wall_s: 123.456,
            });
            assert_eq!(line.len(), header.len(), "{}\n{line}\n{header}", w.name);
            let at = header.find("reps").expect("a reps column") + "reps".len();
            assert_eq!(&line[at - 4..at], "1000", "{line}\n{header}");
        }
    }

    /// Every workload's scenario is valid; a tiny run reports its events
    /// (no timing is asserted).
    #[test]
    fn workloads_are_valid_scenarios_and_count_events() {
        for w in WORKLOADS {
            let small = Workload {
                tenants: w.tenants.min(6),
                prior: w.prior.min(4),
                models: w.models.min(5),
                ..*w
            };
            let line = match run_workload(&small, 1, 1) {
                Ok(l) => l,
                Err(e) => panic!("{}: {e}", w.name),
            };
            if w.fidelities > 1 {
                // Every tenant arrives; jobs below the top, then every
                // model at its top (the multi-fidelity selectors' sweep).
                assert_eq!(line.events, 6 + line.jobs, "{}", w.name);
                assert!(line.jobs > 30, "{}: {} jobs", w.name, line.jobs);
                assert!(format_line(&line).starts_with(w.name));
                continue;
            }
            // Every tenant arrives and runs all 5 models.
            let main = 6 + 6 * 5;
            let isolated = if w.fairness { 6 * (1 + 5) } else { 0 };
            assert_eq!(line.events, main + isolated, "{}", w.name);
            assert_eq!(line.jobs, 30, "{}", w.name);
            assert!(format_line(&line).starts_with(w.name));
        }
    }
}
