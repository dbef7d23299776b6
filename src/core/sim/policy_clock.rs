//! Time spent inside policy code (DESIGN §10): a researcher must see
//! whether a slow run is the policy or the simulator.
//!
//! Reading the clock around every call would cost more than a cheap
//! policy's decision (about 25 ns per read against a few hundred ns per
//! event). So the first [`PolicyClock::EXACT`] calls of a run are timed
//! exactly, and after them about one call in [`PolicyClock::SAMPLE`] is
//! timed: the gap to the next timed call is drawn uniformly from 1 to
//! 2 · SAMPLE − 1 by a fixed generator, so calls that repeat in a pattern
//! (pick, started, observe, changed, … for every job) are sampled at every
//! place of the pattern alike. A fixed stride of 16 timed the same kind
//! of call every time whenever the pattern's length divided 16: scale-1m's
//! `policy_share` read 0.049 while perf put half its time in the
//! policies. The calls past the exact ones count the mean time of the
//! sampled ones ([`PolicyClock::estimate`]). It never changes a result; it
//! is reported in `run.json` and `--json` only, as a measurement that
//! varies between runs.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Sampled wall time of the policy calls of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyClock {
    calls: u64,
    exact: Duration,
    /// Calls past the exact ones that were timed, and their time.
    sampled_calls: u64,
    sampled: Duration,
    /// The number of the next call past the exact ones to time.
    next: u64,
    /// The gaps' generator (xorshift64, never 0).
    gaps: u64,
}

impl Default for PolicyClock {
    fn default() -> Self {
        let mut c = Self {
            calls: 0,
            exact: Duration::ZERO,
            sampled_calls: 0,
            sampled: Duration::ZERO,
            next: Self::EXACT,
            gaps: 0x9E37_79B9_7F4A_7C15,
        };
        c.next += c.gap();
        c
    }
}

/// A started measurement (`None` for a call that is not sampled).
#[derive(Debug, Clone, Copy)]
#[must_use = "pass it to PolicyClock::stop"]
pub struct Tick(Option<Instant>);

impl PolicyClock {
    /// The first calls of a run timed exactly.
    pub const EXACT: u64 = 256;
    /// After those, one call in this many is timed, on average.
    pub const SAMPLE: u64 = 16;

    /// The gap to the next timed call: uniform on 1 ..= 2 · SAMPLE − 1
    /// (mean SAMPLE), from xorshift64 (Marsaglia 2003: shifts 13, 7, 17).
    fn gap(&mut self) -> u64 {
        let mut x = self.gaps;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.gaps = x;
        1 + x % (2 * Self::SAMPLE - 1)
    }

    /// A policy call begins.
    #[inline]
    pub fn start(&mut self) -> Tick {
        self.calls += 1;
        let timed = self.calls <= Self::EXACT || self.calls == self.next;
        if timed && self.calls > Self::EXACT {
            self.next += self.gap();
        }
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
            self.sampled_calls += 1;
        }
    }

    /// Policy calls made.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The estimated time inside policy calls: the exactly timed calls'
    /// time, plus for every call past them the mean time of the sampled
    /// calls (of the exact ones while none is sampled yet):
    /// `exact + (calls − EXACT) · sampled / sampled_calls`.
    pub fn estimate(&self) -> Duration {
        let rest = self.calls.saturating_sub(Self::EXACT);
        if rest == 0 {
            return self.exact;
        }
        let (time, count) = if self.sampled_calls > 0 {
            (self.sampled, self.sampled_calls)
        } else {
            (self.exact, Self::EXACT)
        };
        let mean = time.as_secs_f64() / count as f64;
        self.exact
            .saturating_add(Duration::from_secs_f64(mean * rest as f64))
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

    /// Feed `n` calls to a clock, call `i` taking `cost(i)` when timed
    /// (no real clock).
    fn feed(n: u64, cost: impl Fn(u64) -> Duration) -> (PolicyClock, Duration) {
        let mut c = PolicyClock::default();
        let mut truth = Duration::ZERO;
        for i in 1..=n {
            let tick = c.start();
            truth += cost(i);
            if tick.0.is_some() {
                c.add_timed(cost(i));
            }
        }
        (c, truth)
    }

    /// The estimator's arithmetic on known durations: the first 256
    /// calls count exactly; past them every call counts the mean of the
    /// sampled ones, here all 3 µs.
    #[test]
    fn the_first_calls_are_timed_then_the_rest_count_the_sampled_mean() {
        let (c, truth) = feed(PolicyClock::EXACT + 10_000, |i| {
            Duration::from_micros(if i <= PolicyClock::EXACT { i } else { 3 })
        });
        assert_eq!(c.calls(), PolicyClock::EXACT + 10_000);
        // 1 + … + 256 µs, then 10,000 × 3 µs.
        assert_eq!(truth, Duration::from_micros(256 * 257 / 2 + 30_000));
        assert_eq!(c.estimate(), truth);
        // Before any sampled call (the first is call 256 + 9, below), the
        // rest count the exact calls' mean: 260 calls of 2 µs.
        let (c, _) = feed(PolicyClock::EXACT + 4, |_| Duration::from_micros(2));
        assert_eq!(c.sampled_calls, 0);
        assert_eq!(c.estimate(), Duration::from_micros(2 * 260));
    }

    /// About one call in 16 is timed past the exact ones (the gaps'
    /// mean), and the gaps are those of the generator by hand: xorshift64
    /// of the fixed seed, 1 + x mod 31.
    #[test]
    fn about_one_call_in_sixteen_is_timed() {
        let (c, _) = feed(PolicyClock::EXACT + 1_600_000, |_| Duration::ZERO);
        let timed = c.sampled_calls as f64;
        assert!((timed / 100_000.0 - 1.0).abs() < 0.01, "{timed}");
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_eq!(PolicyClock::default().next, PolicyClock::EXACT + 1 + x % 31);
        assert_eq!(PolicyClock::default().next, PolicyClock::EXACT + 9);
    }

    /// Regression: with a fixed stride of 16, calls in a pattern whose
    /// length divides 16 were always sampled at the same place (scale-1m:
    /// pick, started, observe, changed per job; `policy_share` 0.049
    /// where perf saw about half). Four kinds of call, one of them 1 ms
    /// and three 1 µs, repeating: the estimate is within 3 % of the
    /// truth (the fixed stride gave 16 × or 1/1,000 of the costly kind).
    #[test]
    fn calls_in_a_pattern_of_four_were_sampled_at_one_place() {
        for costly in 0..4 {
            let (c, truth) = feed(PolicyClock::EXACT + 400_000, |i| {
                Duration::from_micros(if i % 4 == costly { 1_000 } else { 1 })
            });
            let ratio = c.estimate().as_secs_f64() / truth.as_secs_f64();
            assert!((ratio - 1.0).abs() < 0.03, "costly call {costly}: {ratio}");
        }
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
