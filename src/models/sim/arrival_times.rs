//! A run's arrival times (DESIGN §2.8): listed, one per tenant, or drawn
//! in arrival order as the run goes (`[arrivals] kind = "poisson"` with
//! `order = "streamed"`), so that a run of 10^7 tenants holds no time and
//! no order for each of them (issue 34, docs/PERFORMANCE.md "Internet
//! scale").

use std::collections::HashMap;
use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::core::sim::Undrawn;
use crate::core::sim::rng::{Purpose, SimRng, below, stream};
use crate::models::trace::Micros;

/// Largest accepted arrival time, seconds (DESIGN §2.8).
pub const MAX_ARRIVAL_S: f64 = 1.0e12;

/// Seconds to whole microseconds, rounded to the nearest.
pub fn secs_to_us(s: f64) -> Micros {
    (s * 1.0e6).round() as Micros
}

/// The arrival times of a run's tenants (a run's result holds them, and
/// the result cache stores them as they are: a streamed draw as its
/// parameters, not as a list).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Arrivals {
    /// Tenant `i` arrives at `times[i]`.
    Listed(Arc<[Micros]>),
    /// Drawn in arrival order as the run goes ([`PoissonStream`]).
    Streamed(Arc<PoissonStream>),
}

impl From<Arc<[Micros]>> for Arrivals {
    fn from(times: Arc<[Micros]>) -> Self {
        Self::Listed(times)
    }
}

impl From<Vec<Micros>> for Arrivals {
    fn from(times: Vec<Micros>) -> Self {
        Self::Listed(times.into())
    }
}

impl From<&[Micros]> for Arrivals {
    fn from(times: &[Micros]) -> Self {
        Self::Listed(times.into())
    }
}

impl Arrivals {
    /// How many tenants arrive.
    pub fn len(&self) -> usize {
        match self {
            Self::Listed(t) => t.len(),
            Self::Streamed(s) => s.len(),
        }
    }

    /// Whether there is no tenant.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The times as listed, one per tenant, if they are.
    pub fn listed(&self) -> Option<&Arc<[Micros]>> {
        match self {
            Self::Listed(t) => Some(t),
            Self::Streamed(_) => None,
        }
    }

    /// The times as a list, one per tenant: shared when listed, drawn
    /// whole when streamed (8 bytes a tenant: for the paths that read
    /// every tenant's time, not for a folded run).
    pub fn to_list(&self) -> Arc<[Micros]> {
        match self {
            Self::Listed(t) => Arc::clone(t),
            Self::Streamed(s) => s.to_list(),
        }
    }

    /// The latest arrival time, 0 without tenants.
    pub fn last(&self) -> Micros {
        match self {
            Self::Listed(t) => t.iter().copied().max().unwrap_or(0),
            Self::Streamed(s) => s.last(),
        }
    }

    /// The arrival times of the tenants for which `arrived` is false, by
    /// tenant (what a run's end reads of the tenants it never saw arrive):
    /// looked up when listed; when streamed, the draw is made again from
    /// its start and only those tenants' times are kept.
    pub fn of_unarrived(&self, arrived: &dyn Fn(usize) -> bool) -> Unarrived {
        match self {
            Self::Listed(t) => Unarrived::Listed(Arc::clone(t)),
            Self::Streamed(s) => Unarrived::Drawn(
                s.draws()
                    .filter(|&(_, i)| !arrived(i as usize))
                    .map(|(t, i)| (i as usize, t))
                    .collect(),
            ),
        }
    }
}

/// The arrival times of the tenants a run never saw arrive
/// ([`Arrivals::of_unarrived`]).
#[derive(Debug, Clone)]
pub enum Unarrived {
    /// Every tenant's time, listed.
    Listed(Arc<[Micros]>),
    /// The unarrived tenants' times only.
    Drawn(HashMap<usize, Micros>),
}

impl Unarrived {
    /// Tenant `i`'s arrival time (0 for one not known).
    pub fn get(&self, i: usize) -> Micros {
        match self {
            Self::Listed(t) => t.get(i).copied().unwrap_or(0),
            Self::Drawn(m) => m.get(&i).copied().unwrap_or(0),
        }
    }
}

/// The arrival times of a Poisson process of rate λ per second, in
/// order, unrounded, seconds (DESIGN §2.8): t_j = g_1 + … + g_j with gaps
/// g = −ln(U)/λ, U = 1 − u for u uniform in [0, 1) (so U is in (0, 1]),
/// one `f64` draw of the `(seed, rep, arrivals)` stream a gap.
#[derive(Debug, Clone)]
pub struct PoissonTimes {
    rng: SimRng,
    lambda: f64,
    t: f64,
}

impl PoissonTimes {
    /// The times of repetition `rep` at `rate_per_hour` arrivals an hour.
    pub fn new(seed: u64, rep: u64, rate_per_hour: f64) -> Self {
        Self {
            rng: stream(seed, rep, Purpose::Arrivals),
            lambda: rate_per_hour / 3600.0,
            t: 0.0,
        }
    }

    /// The next arrival time, seconds.
    pub fn next_time(&mut self) -> f64 {
        let u: f64 = 1.0 - self.rng.r#gen::<f64>();
        self.t += -libm::log(u) / self.lambda;
        self.t
    }

    /// The stream, past the gaps drawn so far (the shuffled order draws
    /// from it next).
    pub fn into_rng(self) -> SimRng {
        self.rng
    }
}

/// The error for an arrival beyond [`MAX_ARRIVAL_S`]: arrival `j`
/// (1-based) of `n`, at `t` seconds.
pub fn beyond_limit(rep: u64, j: usize, n: usize, rate_per_hour: f64, t: f64) -> Error {
    Error::input(format!(
        "[arrivals]: repetition {rep}: arrival {j} of {n} of the Poisson process \
         (rate_per_hour = {rate_per_hour}) falls at {t:.3e} s, beyond the limit \
         of 1e12 s for simulated time: raise rate_per_hour"
    ))
}

/// Poisson arrivals of `n` tenants whose order is drawn as they arrive
/// (DESIGN §2.8, `order = "streamed"`): arrival j (from 0) is at
/// [`PoissonTimes`]' j-th time, rounded to the µs, the same times as the
/// shuffled order's; its tenant is the r_j-th (from 0, ascending) of the
/// n − j tenants not arrived yet, r_j = [`below`]`(n − j)` from the
/// `(seed, rep, arrival-order)` stream. Every order of the tenants has
/// probability 1/(n · (n − 1) ⋯ 1) = 1/n!, as with the shuffle, but the
/// draw holds about 0.13 bytes a tenant ([`Undrawn`]), not the 12 of a
/// shuffled order and its times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoissonStream {
    n: usize,
    rate_per_hour: f64,
    seed: u64,
    rep: u64,
    /// The last arrival's time (found when the stream is made).
    last: Micros,
}

impl PoissonStream {
    /// The stream of `n` tenants (fewer than 2³²) at `rate_per_hour`
    /// arrivals an hour in repetition `rep`. Its times are drawn once here
    /// (no order: 8 bytes of state), to refuse a last arrival beyond
    /// [`MAX_ARRIVAL_S`] before the run starts and to know it.
    pub fn new(n: usize, rate_per_hour: f64, seed: u64, rep: u64) -> Result<Self> {
        if u32::try_from(n).is_err() {
            return Err(Error::input(format!(
                "[arrivals]: {n} tenants are more than a streamed order can draw (at most 2^32 - 1)"
            )));
        }
        let mut times = PoissonTimes::new(seed, rep, rate_per_hour);
        let mut t = 0.0;
        for j in 1..=n {
            t = times.next_time();
            // The times rise: the first beyond the limit is the one named.
            if t > MAX_ARRIVAL_S {
                return Err(beyond_limit(rep, j, n, rate_per_hour, t));
            }
        }
        Ok(Self {
            n,
            rate_per_hour,
            seed,
            rep,
            last: if n == 0 { 0 } else { secs_to_us(t) },
        })
    }

    /// How many tenants arrive.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether no tenant arrives.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The last arrival's time, µs (0 without tenants).
    pub fn last(&self) -> Micros {
        self.last
    }

    /// The arrivals from the first, as (time, tenant), times rising.
    pub fn draws(&self) -> ArrivalDraws {
        ArrivalDraws {
            times: PoissonTimes::new(self.seed, self.rep, self.rate_per_hour),
            order: stream(self.seed, self.rep, Purpose::ArrivalOrder),
            // `new` checked that n fits.
            undrawn: Undrawn::new(self.n).unwrap_or_default(),
        }
    }

    /// Every tenant's time, by tenant.
    pub fn to_list(&self) -> Arc<[Micros]> {
        let mut list: Arc<[Micros]> = (0..self.n).map(|_| 0).collect();
        if let Some(times) = Arc::get_mut(&mut list) {
            for (t, i) in self.draws() {
                times[i as usize] = t;
            }
        }
        list
    }
}

/// The arrivals of a [`PoissonStream`], in arrival order: (time µs,
/// tenant).
#[derive(Debug, Clone)]
pub struct ArrivalDraws {
    times: PoissonTimes,
    order: SimRng,
    undrawn: Undrawn,
}

impl Iterator for ArrivalDraws {
    type Item = (Micros, u32);

    fn next(&mut self) -> Option<(Micros, u32)> {
        if self.undrawn.is_empty() {
            return None;
        }
        let t = secs_to_us(self.times.next_time());
        let r = below(&mut self.order, self.undrawn.len());
        let i = self.undrawn.take(r)?;
        Some((t, i as u32))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.undrawn.len(), Some(self.undrawn.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed order's times are the shuffled order's, sorted: the
    /// same gaps of the same stream (the reference is the gaps computed
    /// here by hand from the stream).
    #[test]
    fn streamed_times_are_the_poisson_gaps_summed_in_order() {
        let s = PoissonStream::new(500, 3_600.0, 9, 2).expect("stream");
        let mut rng = stream(9, 2, Purpose::Arrivals);
        let mut t = 0.0f64;
        let mut seen = vec![false; 500];
        let mut last = 0;
        for (time, i) in s.draws() {
            let u: f64 = 1.0 - rng.r#gen::<f64>();
            t += -libm::log(u) / 1.0;
            assert_eq!(time, (t * 1e6).round() as Micros);
            assert!(
                !std::mem::replace(&mut seen[i as usize], true),
                "tenant {i} twice"
            );
            last = time;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(s.last(), last);
        assert_eq!(s.draws().count(), 500);
        // The list puts each time at its tenant.
        let list = s.to_list();
        for (time, i) in s.draws() {
            assert_eq!(list[i as usize], time);
        }
        assert_eq!(Arrivals::Streamed(Arc::new(s)).last(), last);
    }

    /// Each of the 4! orders of 4 tenants has probability 1/24: over
    /// 48,000 repetitions the counts pass a chi-square test at the 0.1 %
    /// level (23 degrees of freedom: 49.73).
    #[test]
    fn every_order_of_the_tenants_is_equally_likely() {
        let reps = 48_000u64;
        let mut counts: HashMap<Vec<u32>, u64> = HashMap::new();
        for rep in 0..reps {
            let s = PoissonStream::new(4, 60.0, 5, rep).expect("stream");
            *counts
                .entry(s.draws().map(|(_, i)| i).collect())
                .or_default() += 1;
        }
        assert_eq!(counts.len(), 24);
        let expected = reps as f64 / 24.0;
        let chi2: f64 = counts
            .values()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 49.73, "chi-square {chi2}");
    }

    #[test]
    fn the_tenants_not_arrived_keep_their_drawn_times() {
        let s = Arc::new(PoissonStream::new(50, 100.0, 1, 0).expect("stream"));
        let list = s.to_list();
        let a = Arrivals::Streamed(Arc::clone(&s));
        let late = a.of_unarrived(&|i| i % 3 != 0);
        for i in 0..50 {
            if i % 3 == 0 {
                assert_eq!(late.get(i), list[i]);
            }
        }
        let Unarrived::Drawn(m) = &late else {
            panic!("drawn")
        };
        assert_eq!(m.len(), 17);
        assert_eq!(
            Arrivals::from(list.to_vec()).of_unarrived(&|_| true).get(7),
            list[7]
        );
    }

    #[test]
    fn a_last_arrival_beyond_the_limit_is_refused_before_the_run() {
        let e = PoissonStream::new(10, 1e-8, 1, 0).expect_err("beyond");
        assert!(
            e.to_string().contains("of 10 of the Poisson process"),
            "{e}"
        );
        assert!(e.to_string().contains("beyond the limit of 1e12 s"), "{e}");
        let empty = PoissonStream::new(0, 1.0, 1, 0).expect("empty");
        assert_eq!((empty.last(), empty.draws().count()), (0, 0));
    }
}
