//! The progress bar over (repetition, policy) runs: the command line's
//! observer of a run ([`crate::run::Progress`]).
//!
//! Drawn on stderr only when stderr is a terminal and `--quiet` is not
//! given. It counts finished runs and, redrawn five times a second, the
//! events simulated so far ([`EVENTS_HANDLED`]), so a long single task (one
//! repetition of a big scenario) shows that it moves, and the memory
//! resident now (`VmRSS`). Nothing it does feeds
//! back into a simulation, so results do not depend on it.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::core::resources::{human_bytes, resident};
use crate::core::sim::{EVENTS_HANDLED, FURTHEST_SIMULATED};

/// The bar's line: runs done, events simulated, the memory resident now
/// (to hold beside the estimate `validate` states), time.
const TEMPLATE: &str = "{bar:40.cyan/blue} {pos}/{len} runs (repetition × policy)  {events} events, {resident}  {elapsed} elapsed, {eta_text}";

/// The line of a scenario of one run: how far its simulated time has
/// come, too ([`FURTHEST_SIMULATED`]), since the runs count says nothing
/// until it ends.
const TEMPLATE_ONE_RUN: &str = "{bar:40.cyan/blue} {pos}/{len} runs (repetition × policy)  {events} events, {simulated} simulated, {resident}  {elapsed} elapsed, {eta_text}";

/// The memory resident now, as the bar shows it: `1.2 GiB resident`
/// (nothing where the system does not say).
fn resident_text(bytes: Option<u64>) -> String {
    bytes.map_or(String::new(), |b| format!("{} resident", human_bytes(b)))
}

/// Simulated time as a person reads it: `42 s`, `17.5 min`, `3.2 h`,
/// `91.4 days`.
fn simulated_text(us: u64) -> String {
    let s = us as f64 / 1e6;
    if s < 60.0 {
        format!("{s:.0} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 86_400.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86_400.0)
    }
}

/// The estimate of the time left, from the runs finished so far: none
/// before the first one finishes (indicatif's own `{eta}` read "ETA 0s"
/// through the whole of a one-run scenario, six minutes of scale-year).
fn eta_text(finished: u64, eta: Duration) -> String {
    if finished == 0 {
        "ETA after the first run".to_string()
    } else {
        format!("ETA {:#}", indicatif::HumanDuration(eta))
    }
}

/// Events as a person reads them: `812`, `45.3 k`, `1.27 M`, `3.40 G`.
fn events_text(n: u64) -> String {
    let x = n as f64;
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1} k", x / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2} M", x / 1e6),
        _ => format!("{:.2} G", x / 1e9),
    }
}

/// A progress bar, or nothing: made when the run starts.
#[derive(Debug)]
pub struct Bar {
    wanted: bool,
    bar: OnceLock<ProgressBar>,
}

impl Bar {
    /// A bar, drawn when `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Self {
        Self {
            wanted,
            bar: OnceLock::new(),
        }
    }
}

impl crate::run::Progress for Bar {
    /// A bar over `total` runs when wanted and stderr is a terminal.
    fn start(&self, total: u64) {
        if !self.wanted || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        // Counted from here: events of earlier commands in the same process
        // (a library caller) are not this run's.
        let start = EVENTS_HANDLED.load(Ordering::Relaxed);
        // The furthest time of this run's loops (a library caller's
        // earlier runs are not this one's).
        FURTHEST_SIMULATED.store(0, Ordering::Relaxed);
        let template = if total == 1 {
            TEMPLATE_ONE_RUN
        } else {
            TEMPLATE
        };
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "events",
                move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let n = EVENTS_HANDLED.load(Ordering::Relaxed).saturating_sub(start);
                    let _ = w.write_str(&events_text(n));
                },
            )
            .with_key(
                "simulated",
                |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let us = FURTHEST_SIMULATED.load(Ordering::Relaxed);
                    let _ = w.write_str(&simulated_text(us));
                },
            )
            .with_key(
                "resident",
                |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&resident_text(resident()));
                },
            )
            .with_key(
                "eta_text",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&eta_text(state.pos(), state.eta()));
                },
            );
        bar.set_style(style.progress_chars("=> "));
        // Redrawn on a timer, not only when a run finishes.
        bar.enable_steady_tick(Duration::from_millis(200));
        let _ = self.bar.set(bar);
    }

    /// One more run finished.
    fn task_done(&self) {
        if let Some(b) = self.bar.get() {
            b.inc(1);
        }
    }

    /// Remove the bar from the terminal.
    fn finish(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_shown_with_a_unit_prefix() {
        assert_eq!(events_text(0), "0");
        assert_eq!(events_text(999), "999");
        assert_eq!(events_text(45_300), "45.3 k");
        assert_eq!(events_text(1_270_000), "1.27 M");
        assert_eq!(events_text(3_400_000_000), "3.40 G");
    }

    /// The bug: "ETA 0s" while the only run of a scenario went on.
    #[test]
    fn a_one_run_scenario_read_eta_0s_until_it_ended() {
        assert_eq!(eta_text(0, Duration::ZERO), "ETA after the first run");
        // indicatif's own `{eta}` wording (`HumanDuration`, alternate form).
        assert_eq!(eta_text(3, Duration::from_secs(90)), "ETA 2m");
        assert_eq!(eta_text(1, Duration::from_secs(7)), "ETA 7s");
    }

    #[test]
    fn simulated_time_is_shown_in_its_unit() {
        assert_eq!(simulated_text(0), "0 s");
        assert_eq!(simulated_text(42_000_000), "42 s");
        assert_eq!(simulated_text(1_050_000_000), "17.5 min");
        assert_eq!(simulated_text(11_520_000_000), "3.2 h");
        assert_eq!(simulated_text(7_896_960_000_000), "91.4 days");
    }

    #[test]
    fn the_template_names_the_events_key() {
        assert!(TEMPLATE.contains("{events} events"));
        assert!(TEMPLATE.contains("{eta_text}") && !TEMPLATE.contains("{eta}"));
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
        assert!(TEMPLATE_ONE_RUN.contains("{simulated} simulated"));
        assert!(ProgressStyle::with_template(TEMPLATE_ONE_RUN).is_ok());
        for t in [TEMPLATE, TEMPLATE_ONE_RUN] {
            assert!(t.contains(", {resident}  {elapsed}"), "{t}");
        }
    }

    /// The bar said nothing of memory while a large run grew toward its
    /// estimate: it shows the resident set now, in `human_bytes`' units.
    #[test]
    fn the_bar_said_nothing_of_the_memory_a_run_holds() {
        assert_eq!(resident_text(Some(1_288_490_189)), "1.2 GiB resident");
        assert_eq!(resident_text(Some(27 << 20)), "27.0 MiB resident");
        assert_eq!(resident_text(None), "");
    }
}
