//! DESIGN §2.6's stall rule, written once: the finished curve
//! ([`LossCurve::stall`](super::LossCurve::stall)) and a stepped episode's
//! online regret (`models::experiment::Episode::reported_regret`) both ask
//! [`RunEnd::stall`].
//!
//! A run **stalls** when it ends with a positive summed loss S that it could
//! still have lowered, in one of two ways:
//!
//! - [`Stall::NothingLowered`]: it ended at the last arrival and no
//!   completed job ever lowered S (what a policy that starts no job gives:
//!   a budget below every job, `max_jobs = 0`);
//! - [`Stall::LeftIdle`]: it ended before its horizon with a tenant that
//!   still had a model to run (its `ended` is `horizon`: not done, not out
//!   of patience, budget or jobs): the policy left the GPUs idle with
//!   nothing running although a tenant could be served.
//!
//! A stalled run reports R(H), its loss at the end held up to the stall
//! horizon H (`models::experiment::runner::stall_end`), instead of R(end),
//! so stopping early never looks better than working.

use crate::models::sim::EndReason;
use crate::models::trace::Micros;

/// How a run stalled (DESIGN §2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    /// It ended at the last arrival and no completed job lowered S.
    NothingLowered,
    /// It ended before its horizon, idle, with a tenant that still had a
    /// model to run.
    LeftIdle,
}

/// What the stall rule reads of a finished run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEnd {
    /// S at the end (0 exactly when no arrived tenant has a positive loss).
    pub sum: f64,
    /// Whether a completed job ever lowered S.
    pub fell: bool,
    /// Whether the run ended at its last arrival.
    pub at_last_arrival: bool,
    /// Whether a tenant still had a model to run when the run ended before
    /// its horizon ([`left_work`]).
    pub left_work: bool,
}

impl RunEnd {
    /// Whether, and how, the run stalled; `None` for a run that did not.
    pub fn stall(&self) -> Option<Stall> {
        if self.sum <= 0.0 {
            None
        } else if self.at_last_arrival && !self.fell {
            Some(Stall::NothingLowered)
        } else if self.left_work {
            Some(Stall::LeftIdle)
        } else {
            None
        }
    }
}

/// Whether a run that ended at `end` left a tenant with work: one whose
/// end reason is [`EndReason::Horizon`] although no horizon cut the run
/// (`end` before `horizon`, or no horizon). At the end of a run that was
/// not cut, no job runs and every tenant has arrived, so such a tenant had
/// a model it was allowed to run.
pub fn left_work(
    ended: impl IntoIterator<Item = EndReason>,
    end: Micros,
    horizon: Option<Micros>,
) -> bool {
    horizon.is_none_or(|h| end < h) && ended.into_iter().any(|r| r == EndReason::Horizon)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sum: f64, fell: bool, at_last_arrival: bool, left_work: bool) -> Option<Stall> {
        RunEnd {
            sum,
            fell,
            at_last_arrival,
            left_work,
        }
        .stall()
    }

    /// Every combination, by hand: S = 0 never stalls; "nothing lowered"
    /// needs the last arrival and no fall; "left idle" needs work left.
    #[test]
    fn the_stall_rule_over_every_combination() {
        for fell in [false, true] {
            for last in [false, true] {
                for work in [false, true] {
                    assert_eq!(run(0.0, fell, last, work), None);
                    let want = if last && !fell {
                        Some(Stall::NothingLowered)
                    } else if work {
                        Some(Stall::LeftIdle)
                    } else {
                        None
                    };
                    assert_eq!(run(0.5, fell, last, work), want, "{fell} {last} {work}");
                }
            }
        }
    }

    #[test]
    fn work_is_left_only_by_a_run_the_horizon_did_not_cut() {
        let ended = [EndReason::AllModelsRun, EndReason::Horizon];
        assert!(left_work(ended, 5, None));
        assert!(left_work(ended, 5, Some(6)));
        assert!(!left_work(ended, 6, Some(6)), "cut by the horizon");
        assert!(!left_work(
            [EndReason::AllModelsRun, EndReason::Budget],
            5,
            None
        ));
        assert!(!left_work(
            [EndReason::Patience, EndReason::MaxJobs],
            5,
            None
        ));
        assert!(!left_work([EndReason::ScheduleOver], 5, None));
    }
}
