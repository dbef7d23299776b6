//! The `tenantsim` command: parse arguments, call the library, map errors to
//! exit codes (0 ok, 1 input or runtime error, 2 usage error, 128 + n after
//! signal n). A closed standard output (`tenantsim run --json | head`) ends
//! quietly with exit code 0.

use std::process::ExitCode;

use clap::Parser;
use tenantsim::cli::{Cli, execute};

fn main() -> ExitCode {
    match execute(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_output_closed() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1))
        }
    }
}
