//! Where the time of `tenantsim run` goes, phase by phase (see
//! docs/PERFORMANCE.md):
//!
//! ```sh
//! cargo run --release --example phase_timing -- scenarios/bench-repetitions.toml 2
//! ```
//!
//! Arguments: scenario, threads. Prints the wall time of loading, the
//! simulations, aggregation and writing the results folder (to a temporary
//! folder that is removed afterwards).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::run::runner::thread_pool;
use tenantsim::models::report::write_results;
use tenantsim::models::run_grid;
use tenantsim::models::scenario::load_plan;

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let path = PathBuf::from(args.get(1).ok_or("missing argument 1: scenario")?);
    let threads: usize = args
        .get(2)
        .ok_or("missing argument 2: threads")?
        .parse()
        .map_err(|_| "threads must be a number")?;
    let t0 = Instant::now();
    let plan = load_plan(&path, Overrides::default()).map_err(|e| e.to_string())?;
    let scenarios = plan.scenarios();
    let t1 = Instant::now();
    let pool = thread_pool(Some(threads)).map_err(|e| e.to_string())?;
    let results = run_grid(&pool, &scenarios, false, &|| {}).map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    let aggs: Vec<_> = pool
        .install(|| {
            scenarios
                .par_iter()
                .zip(results.par_iter())
                .map(|(s, r)| r.aggregate(s))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| e.to_string())?;
    let t3 = Instant::now();
    let dir = std::env::temp_dir().join(format!("phase-timing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for ((s, r), a) in scenarios.iter().zip(&results).zip(&aggs) {
        write_results(&dir, s, r, a, false, None, &Default::default())
            .map_err(|e| e.to_string())?;
    }
    let t4 = Instant::now();
    drop(results);
    let t5 = Instant::now();
    let _ = std::fs::remove_dir_all(&dir);
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    eprintln!(
        "load {:.1} ms, simulate {:.1} ms, aggregate {:.1} ms, write {:.1} ms, free {:.1} ms ({threads} threads)",
        ms(t0, t1),
        ms(t1, t2),
        ms(t2, t3),
        ms(t3, t4),
        ms(t4, t5)
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
