//! Time spent inside policy code (DESIGN §10): a researcher must see
//! whether a slow run is the policy or the simulator.
//!
//! Reading the clock around every call would cost more than a cheap
//! policy's decision (about 25 ns per read against a few hundred ns per
//! event). So the first [`PolicyClock::EXACT`] calls of a run are timed
//! exactly, and after them every [`PolicyClock::SAMPLE`]-th call is timed
//! and counts [`PolicyClock::SAMPLE`] times. Small runs are measured
//! exactly; in large ones the clock costs about 1/16 of two reads per call
//! and misses at most the last 15 calls' share (under 6 % of the policy
//! time, less the longer the run). It never changes a result; it is
//! reported in `run.json` and `--json` only, as a measurement that varies
//! between runs.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Sampled wall time of the policy calls of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyClock {
    calls: u64,
    exact: Duration,
    sampled: Duration,
}

/// A started measurement (`None` for a call that is not sampled).
#[derive(Debug, Clone, Copy)]
#[must_use = "pass it to PolicyClock::stop"]
pub struct Tick(Option<Instant>);

impl PolicyClock {
    /// The first calls of a run timed exactly.
    pub const EXACT: u64 = 256;
    /// After those, one call in this many is timed (and counts this many
    /// times).
    pub const SAMPLE: u64 = 16;

    /// A policy call begins.
    #[inline]
    pub fn start(&mut self) -> Tick {
        self.calls += 1;
        let timed = self.calls <= Self::EXACT || self.calls.is_multiple_of(Self::SAMPLE);
        Tick(timed.then(Instant::now))
    }

    /// The call that began at `tick` returned.
    #[inline]
    pub fn stop(&mut self, tick: Tick) {
        if let Some(t) = tick.0 {
            self.add_timed(t.elapsed());
        }
    }

    /// Add the time `d` of the current call, which was timed.
    fn add_timed(&mut self, d: Duration) {
        if self.calls <= Self::EXACT {
            self.exact += d;
        } else {
            self.sampled += d;
        }
    }

    /// Policy calls made.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The estimated time inside policy calls: the exactly timed calls'
    /// time plus the sampled calls' time × [`PolicyClock::SAMPLE`].
    pub fn estimate(&self) -> Duration {
        self.exact
            .saturating_add(self.sampled.saturating_mul(Self::SAMPLE as u32))
    }
}

/// Simulated events and worker time of one policy, summed over its runs
/// (measurements: never part of a result file that must be reproducible).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PolicyTotals {
    /// Events processed.
    pub events: u64,
    /// Seconds its runs took on their worker threads (the simulation and
    /// the run's metrics).
    pub secs: f64,
    /// Of those, the estimated seconds inside the policy's calls.
    pub policy_secs: f64,
}

impl PolicyTotals {
    /// Add one run: `events` processed in `elapsed` on its worker, of which
    /// `policy` inside the policy's calls.
    pub fn add(&mut self, events: u64, elapsed: Duration, policy: Duration) {
        self.events += events;
        self.secs += elapsed.as_secs_f64();
        self.policy_secs += policy.as_secs_f64();
    }

    /// The `time` object of `run.json` and `--json`: `simulation_s` (worker
    /// time of the runs), `policy_s` (inside the policy's calls, sampled),
    /// `engine_s` (the rest: event loop, engine checks, the runs' metrics)
    /// and `policy_share` (policy_s / simulation_s, `null` for no time).
    pub fn time_json(&self) -> Value {
        let policy = self.policy_secs.min(self.secs);
        json!({
            "simulation_s": self.secs,
            "policy_s": policy,
            "engine_s": self.secs - policy,
            "policy_share": if self.secs > 0.0 { json!(policy / self.secs) } else { Value::Null },
        })
    }
}

/// Add each policy's `time` ([`PolicyTotals::time_json`]) to the
/// `policies` of a `--json` summary.
pub fn with_policy_times(doc: &mut Value, totals: &[PolicyTotals]) {
    if let Some(ps) = doc.get_mut("policies").and_then(Value::as_array_mut) {
        for (p, t) in ps.iter_mut().zip(totals) {
            if let Some(obj) = p.as_object_mut() {
                obj.insert("time".into(), t.time_json());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimator's arithmetic on known durations (no clock): the
    /// exact calls count once, each sampled call SAMPLE times.
    #[test]
    fn the_first_calls_are_timed_then_every_sixteenth_counts_sixteen_times() {
        let mut c = PolicyClock::default();
        let mut expected = Duration::ZERO;
        for i in 1..=(PolicyClock::EXACT + 64) {
            let tick = c.start();
            let timed = i <= PolicyClock::EXACT || i.is_multiple_of(16);
            assert_eq!(tick.0.is_some(), timed, "call {i}");
            if timed {
                // Call i takes i µs.
                let d = Duration::from_micros(i);
                c.add_timed(d);
                expected += if i <= PolicyClock::EXACT { d } else { d * 16 };
            }
        }
        assert_eq!(c.calls(), PolicyClock::EXACT + 64);
        // 1 + … + 256 µs exactly, then calls 272, 288, 304, 320 × 16.
        assert_eq!(
            expected,
            Duration::from_micros(256 * 257 / 2 + 16 * (272 + 288 + 304 + 320))
        );
        assert_eq!(c.estimate(), expected);
    }

    /// With the real clock, a timed call counts at least the time it slept
    /// (an upper bound would depend on the machine's load).
    #[test]
    fn stop_counts_at_least_the_time_a_call_took() {
        let mut c = PolicyClock::default();
        let tick = c.start();
        std::thread::sleep(Duration::from_millis(2));
        c.stop(tick);
        assert!(
            c.estimate() >= Duration::from_millis(2),
            "{:?}",
            c.estimate()
        );
    }
}
