//! Ctrl-C (SIGINT) handling: the first signal asks the run to stop between
//! repetitions (nothing that looks complete is written); a second one exits
//! at once.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Install the handler (once per process; later calls do nothing).
pub fn install_handler() {
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted again: exiting now");
            std::process::exit(130);
        }
        eprintln!("interrupted: stopping after the runs in progress (Ctrl-C again to exit now)");
    });
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
