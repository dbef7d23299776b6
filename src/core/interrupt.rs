//! SIGINT, SIGTERM and SIGHUP: the first signal asks the run to stop
//! between tasks (repetitions), between a simulation's decisions (the
//! event loop of `core::sim` checks) and before its
//! results are moved into place, so nothing that looks complete is written
//! and the command exits with 128 + the signal's number; a second signal,
//! or a command still busy [`GRACE`] after the first (a long load, a
//! blocked read), removes the unfinished (staged) results folders at once
//! and exits with 128 + the signal's number. Either way a command ends
//! within a few seconds of the first signal.
//!
//! Staged folders register here ([`register_staging`]); a commit holds
//! [`renaming`] while it renames them, so a second signal never removes a
//! folder that is being moved into place.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static INSTALL: Once = Once::new();
/// Staged folders to remove when a second signal ends the process.
static STAGING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Held while staged folders are renamed into place.
static RENAMING: Mutex<()> = Mutex::new(());

const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

fn signal_name(sig: i32) -> String {
    match sig {
        SIGHUP => "SIGHUP".into(),
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// Install the handler (once per process; later calls do nothing).
pub fn install_handler() {
    INSTALL.call_once(install);
}

#[cfg(unix)]
fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(mut signals) => {
            let spawned = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    for sig in signals.forever() {
                        on_signal(sig);
                    }
                });
            if let Err(e) = spawned {
                eprintln!("warning: cannot watch for signals: {e}");
            }
        }
        Err(e) => eprintln!("warning: cannot watch for signals: {e}"),
    }
}

#[cfg(not(unix))]
fn install() {
    // Ctrl-C and closing the console; reported as SIGINT.
    if let Err(e) = ctrlc::set_handler(|| on_signal(SIGINT)) {
        eprintln!("warning: cannot watch for Ctrl-C: {e}");
    }
}

/// How long after the first signal a command that has not stopped by
/// itself is ended as by a second signal: a stop is asked for between
/// tasks and between a simulation's decisions, but a command may be busy
/// elsewhere (loading a large trace, hashing, a blocked read) for longer.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(3);

fn on_signal(sig: i32) {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        eprintln!(
            "{} again: removing the unfinished results and exiting now",
            signal_name(sig)
        );
        exit_now(sig);
    }
    SIGNAL.store(sig, Ordering::SeqCst);
    eprintln!(
        "interrupted by {}: stopping (send it again to stop at once)",
        signal_name(sig)
    );
    let watchdog = std::thread::Builder::new()
        .name("stop-watchdog".into())
        .spawn(move || {
            std::thread::sleep(GRACE);
            eprintln!(
                "interrupted: still busy {} s after {}: removing the unfinished results and exiting now",
                GRACE.as_secs(),
                signal_name(sig)
            );
            exit_now(sig);
        });
    if let Err(e) = watchdog {
        eprintln!("warning: cannot time the stop ({e}): send the signal again to stop at once");
    }
}

/// The "now" path: remove the staged folders (after a rename in
/// progress) and exit with 128 + `sig`.
fn exit_now(sig: i32) -> ! {
    remove_staged();
    std::process::exit(128 + sig);
}

/// Remove every registered staged folder (after any rename in progress).
fn remove_staged() {
    let _renaming = RENAMING.lock().unwrap_or_else(PoisonError::into_inner);
    let staged = STAGING.lock().unwrap_or_else(PoisonError::into_inner);
    for dir in staged.iter() {
        // Worker threads may still be writing into it: try a few times.
        for _ in 0..3 {
            if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                break;
            }
        }
    }
}

/// Ask every run of the process to stop, as a first signal does but
/// without a message: for a library caller that watches for signals
/// itself (the Python package turns Ctrl-C into this). Simulations stop
/// within a few thousand events (the event loop checks between
/// decisions), the runner between tasks, and staged results folders are
/// discarded.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Forget a stop asked for by [`request`], so that the next run of a
/// long-lived process (the Python interpreter) runs. Call it only once
/// the interrupted run has returned.
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The exit code of a command stopped by a signal: 128 + its number
/// (130 when no signal was seen, as for Ctrl-C).
pub fn exit_code() -> i32 {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => 128 + SIGINT,
        n => 128 + n,
    }
}

/// Remember a staged folder to remove if a second signal ends the process.
pub fn register_staging(dir: &Path) {
    STAGING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(dir.to_path_buf());
}

/// Forget a staged folder (moved into place or removed).
pub fn unregister_staging(dir: &Path) {
    STAGING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|d| d != dir);
}

/// Hold this while renaming or removing a registered staged folder.
pub fn renaming() -> MutexGuard<'static, ()> {
    RENAMING.lock().unwrap_or_else(PoisonError::into_inner)
}
