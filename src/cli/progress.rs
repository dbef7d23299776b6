//! The progress bar over (repetition, policy) runs.
//!
//! Drawn on stderr only when stderr is a terminal and `--quiet` is not
//! given. It only counts finished runs: nothing it does feeds back into a
//! simulation, so results do not depend on it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` runs when `wanted` and stderr is a terminal.
    pub fn new(total: u64, wanted: bool) -> Self {
        if !wanted || !std::io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} runs (repetition × policy)  {elapsed} elapsed, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style.progress_chars("=> "));
        Self { bar: Some(bar) }
    }

    /// One more run finished.
    pub fn inc(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Remove the bar from the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
