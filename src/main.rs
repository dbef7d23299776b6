//! The `tenantsim` command: every subcommand with the built-in policies
//! ([`tenantsim::cli::main_with`] parses the arguments, calls the library
//! and maps errors to exit codes: 0 ok, 1 input or runtime error, 2 usage
//! error, 128 + n after signal n; a closed standard output, as in
//! `tenantsim run --json | head`, ends quietly with exit code 0).

use std::process::ExitCode;

use tenantsim::cli::main_with;
use tenantsim::registry::Registry;

fn main() -> ExitCode {
    main_with(Registry::builtin())
}
