//! Writes the synthetic trace used by `scenarios/bench-repetitions.toml`
//! (see docs/PERFORMANCE.md):
//!
//! ```sh
//! cargo run --release --example gen_bench_trace -- traces/bench-500x60.csv 500 60 1
//! ```
//!
//! Arguments: output path, users, models, seed. The trace is a pure
//! function of (users, models, seed): every number comes from the
//! `(seed, 0, generator)` ChaCha stream. Each user has a difficulty and a
//! data size, each model a quality, a cost factor, a year and a citation
//! count; accuracy = clamp(0.95 − difficulty + quality + noise), runtime =
//! data size × cost factor (seconds). About 10 % of pairs are missing
//! (never a user's first model, so no user is empty).

use std::path::PathBuf;
use std::process::ExitCode;

use rand::Rng;
use tenantsim::core::sim::rng::{Purpose, stream};
use tenantsim::models::trace::{TraceRow, write_trace};

fn arg<T: std::str::FromStr>(args: &[String], i: usize, name: &str) -> Result<T, String> {
    args.get(i)
        .ok_or_else(|| format!("missing argument {i}: {name}"))?
        .parse()
        .map_err(|_| format!("argument {i} ({name}) is not valid"))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let out: PathBuf = arg(&args, 1, "output path")?;
    let users: usize = arg(&args, 2, "users")?;
    let models: usize = arg(&args, 3, "models")?;
    let seed: u64 = arg(&args, 4, "seed")?;
    let mut rng = stream(seed, 0, Purpose::Generator);
    let model_meta: Vec<(f64, f64, i64, i64)> = (0..models)
        .map(|_| {
            (
                rng.gen_range(-0.15..0.05),
                rng.gen_range(0.5..4.0),
                rng.gen_range(2005..2024),
                rng.gen_range(100..50_000),
            )
        })
        .collect();
    let mut rows = Vec::with_capacity(users * models);
    for u in 0..users {
        let difficulty: f64 = rng.gen_range(0.0..0.4);
        let size: f64 = rng.gen_range(1.0..30.0);
        for (m, &(quality, cost, year, cites)) in model_meta.iter().enumerate() {
            let missing = m > 0 && rng.gen_bool(0.1);
            let noise: f64 = rng.gen_range(-0.05..0.05);
            if missing {
                continue;
            }
            let accuracy = (0.95 - difficulty + quality + noise).clamp(0.0, 1.0);
            rows.push(TraceRow {
                user: format!("u{u:04}"),
                model: format!("m{m:03}"),
                accuracy: (accuracy * 1e4).round() / 1e4,
                runtime_s: (size * cost * 1e3).round() / 1e3,
                model_year: Some(year),
                model_citations: Some(cites),
            });
        }
    }
    write_trace(&out, &rows).map_err(|e| e.to_string())?;
    eprintln!("wrote {} rows to {}", rows.len(), out.display());
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
