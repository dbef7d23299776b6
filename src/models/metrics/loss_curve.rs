//! The exact step function of the global loss.

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use std::sync::Arc;

use super::curve_builder::{ARRIVAL, COMPLETION, Change, StepBuilder};
use super::curve_point::{Cursor, Point, Steps, curve_points};
use super::spill::{Spill, SpillIter};
use super::stall::{RunEnd, Stall};
use crate::core::error::Result;
use crate::core::io::sealed::Sealed;
use crate::models::sim::{JobRecord, RunOutcome, UserList};
use crate::models::trace::{Micros, Trace};

/// The global loss of one run as an exact step function.
///
/// With A*_i the best accuracy of tenant i and best_i(τ) the best accuracy
/// among its jobs completed by τ (0 before the first):
///
/// - ℓ_i(τ) = A*_i − best_i(τ)
/// - S(τ)  = Σ ℓ_i(τ) over tenants arrived by τ
/// - L(τ)  = S(τ) / (number of tenants arrived by τ)      (DESIGN §2.6)
///
/// The j-th [`Point`] is the j-th instant at which S or the arrived count
/// changed; its values hold until the next point's instant. At an instant,
/// the value is the one after every event at that instant (completions and
/// arrivals).
///
/// The points are a [`Spill`]: in memory for a run of ordinary size, in a
/// temporary file past the spill threshold (an internet-scale run's curve,
/// issue 34), and read as a stream either way ([`Self::points`],
/// [`Self::cursor`]); every figure below is computed in one pass, in point
/// order, so it has the bits of the same formula over a vector. A curve is
/// not changed once built, so its points are shared by its clones.
#[derive(Clone)]
pub struct LossCurve {
    points: Arc<Spill<Point>>,
    /// The last point (L at the end without a pass).
    last: Option<Point>,
    /// Whether S fell from one point to the next (the stall rule).
    fell: bool,
    /// Time of the last arrival, µs.
    pub last_arrival: Micros,
    /// End of the run, µs.
    pub end: Micros,
    /// Where the regret of a [stalled](Self::stalled) run is integrated
    /// to, µs (DESIGN §2.6); set by the runner, `None`: R(end).
    pub stall_end: Option<Micros>,
    /// Whether a tenant still had a model to run when the run ended before
    /// its horizon ([`stall::left_work`](super::stall::left_work)); set by
    /// the runner, which knows the tenants' end reasons and the horizon.
    pub left_work: bool,
}

impl LossCurve {
    /// Build the curve of a run of tenants `users` (trace indices) arriving
    /// at `arrivals`.
    ///
    /// S is updated incrementally with Neumaier-compensated summation;
    /// when no arrived tenant has positive loss, S is exactly 0.
    pub fn from_outcome(
        trace: &Trace,
        users: &(impl UserList + ?Sized),
        arrivals: &[Micros],
        outcome: &RunOutcome,
    ) -> Result<Self> {
        let (jobs, order) = (outcome.jobs.records()?, outcome.completion_order.records()?);
        Self::from_changes(
            trace,
            users,
            arrivals.iter().copied().max().unwrap_or(0),
            outcome.end,
            changes_in_order(arrivals, &jobs, &order),
        )
    }

    /// The same run's loss as a function of the number of completed jobs
    /// (the ease.ml prototypes' per-trial view; DESIGN §6.4): the curve's
    /// axis counts completions instead of µs. The j-th completion in the
    /// engine's processing order sits at j (1, 2, …); a tenant arriving at τ
    /// sits at the number of jobs completed by τ (completions come before
    /// arrivals at one instant, as in the engine); the curve ends at the
    /// number of completed jobs. So `loss_at(j)` is L right after the j-th
    /// completion, over the tenants arrived by then, `time_to(θ)` the jobs
    /// needed to reach θ, and `cumulative_regret(end)` · 10⁶ the sum over
    /// jobs of S after each one.
    pub fn by_jobs(
        trace: &Trace,
        users: &(impl UserList + ?Sized),
        arrivals: &[Micros],
        outcome: &RunOutcome,
    ) -> Result<Self> {
        // The log, read whole (DESIGN §2.6: this path is the shared
        // engine's and a stepped episode's; model mode folds as it goes).
        let (jobs, order) = (outcome.jobs.records()?, outcome.completion_order.records()?);
        // Completion times, sorted (an engine log already is), to count the
        // jobs completed by each arrival.
        let mut ends: Vec<Micros> = order.iter().map(|&j| jobs[j as usize].end).collect();
        if !ends.is_sorted() {
            ends.sort_unstable();
        }
        let on_axis: Vec<Micros> = arrivals
            .iter()
            .map(|&a| ends.partition_point(|&e| e <= a) as Micros)
            .collect();
        let completions = ends.len() as Micros;
        // Completion k is at k + 1: already in axis order.
        let changes = order.iter().enumerate().map(|(k, &j)| {
            let job = &jobs[j as usize];
            (
                k as Micros + 1,
                COMPLETION,
                job.tenant as usize,
                job.accuracy,
            )
        });
        let mut order: Vec<usize> = (0..on_axis.len()).collect();
        order.sort_by_key(|&i| on_axis[i]);
        let changes = merge_arrivals(
            changes,
            order.into_iter().map(|i| (on_axis[i], ARRIVAL, i, 0.0)),
        );
        Self::from_changes(
            trace,
            users,
            on_axis.iter().copied().max().unwrap_or(0),
            completions,
            changes,
        )
    }

    /// The step function of the changes `changes`, in `(axis, kind)` order
    /// ([`StepBuilder`], the arithmetic the online fold shares).
    fn from_changes(
        trace: &Trace,
        users: &(impl UserList + ?Sized),
        last_arrival: Micros,
        end: Micros,
        changes: impl Iterator<Item = Change>,
    ) -> Result<Self> {
        let best_possible: Vec<f64> = users.each().map(|u| trace.best_accuracy(u)).collect();
        let mut builder = StepBuilder::new();
        // Keyed by tenant; an arrival carries its tenant's A*_i.
        changes.for_each(|(x, kind, i, value)| {
            let value = if kind == ARRIVAL {
                best_possible[i]
            } else {
                value
            };
            builder.push((x, kind, i, value));
        });
        Self::from_steps(builder.finish()?, last_arrival, end)
    }

    /// The curve of the points `steps`, its last arrival at
    /// `last_arrival`, ending at `end`.
    ///
    /// The points grew by doubling (or into a file's write buffer) while
    /// the run went; they give that room back here (up to half of a large
    /// run's curve memory, issue 34; the points are unchanged).
    pub(super) fn from_steps(mut steps: Steps, last_arrival: Micros, end: Micros) -> Result<Self> {
        steps.points.shrink_to_fit()?;
        Ok(Self {
            points: Arc::new(steps.points),
            last: steps.last,
            fell: steps.fell,
            last_arrival,
            end,
            stall_end: None,
            left_work: false,
        })
    }

    /// The curve of `points` (instants strictly increasing), its last
    /// arrival at `last_arrival`, ending at `end` (a curve written by hand,
    /// or read back; held like a run's, in memory or spilled).
    pub fn from_points(
        points: impl IntoIterator<Item = Point>,
        last_arrival: Micros,
        end: Micros,
    ) -> Result<Self> {
        let (spill, failure) = curve_points();
        if let Some(e) = failure {
            return Err(e);
        }
        let mut steps = Steps::new(spill);
        for p in points {
            steps.push(p)?;
        }
        Self::from_steps(steps, last_arrival, end)
    }

    /// Number of points.
    pub fn len(&self) -> u64 {
        self.points.len()
    }

    /// Whether the curve has no point (no tenant arrived).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Whether the points live in a temporary file.
    pub fn is_spilled(&self) -> bool {
        self.points.is_spilled()
    }

    /// The points, in order (I/O errors of a spilled curve are items).
    pub fn points(&self) -> SpillIter<'_, Point> {
        self.points.iter()
    }

    /// A [`Cursor`] before the first point.
    pub fn cursor(&self) -> Result<Cursor<'_>> {
        Cursor::new(&self.points)
    }

    /// The points' instants, read into a vector.
    pub fn times(&self) -> Result<Vec<Micros>> {
        self.points().map(|p| p.map(|p| p.time)).collect()
    }

    /// The points' S values, read into a vector.
    pub fn sum_loss(&self) -> Result<Vec<f64>> {
        self.points().map(|p| p.map(|p| p.sum_loss)).collect()
    }

    /// The points' arrived counts, read into a vector.
    pub fn arrived(&self) -> Result<Vec<u32>> {
        self.points().map(|p| p.map(|p| p.arrived)).collect()
    }

    /// Whether `self` and `other` have the same fields and as many points,
    /// each pair the same by `same`, read in step from both streams (a
    /// point that cannot be read back makes them differ).
    pub fn equal_by(&self, other: &Self, same: impl Fn(&Point, &Point) -> bool) -> bool {
        self.last_arrival == other.last_arrival
            && self.end == other.end
            && self.stall_end == other.stall_end
            && self.left_work == other.left_work
            && self.len() == other.len()
            && self.points().zip(other.points()).all(|pair| match pair {
                (Ok(a), Ok(b)) => same(&a, &b),
                _ => false,
            })
    }

    /// L(τ): mean loss over tenants arrived by τ; `None` before the first
    /// arrival. One pass over the points up to τ: to read many instants,
    /// walk a [`Self::cursor`].
    pub fn loss_at(&self, t: Micros) -> Result<Option<f64>> {
        self.cursor()?.loss_at(t)
    }

    /// Loss at the end of the run: the last point's, when it is at or
    /// before the end (no pass over the points).
    pub fn final_loss(&self) -> Result<f64> {
        match self.last {
            Some(p) if p.time <= self.end => Ok(p.loss()),
            _ => Ok(self.loss_at(self.end)?.unwrap_or(0.0)),
        }
    }

    /// Whether, and how, the run stalled (DESIGN §2.6, [`super::stall`]):
    /// it ended with a positive loss at the last arrival with S never
    /// falling (a run where the policy started no job: a budget below every
    /// job, `max_jobs = 0`), or before its horizon with a tenant left with
    /// work ([`Self::left_work`]).
    /// (No pass over the points: the last S and whether S fell are kept
    /// as the points are appended.)
    pub fn stall(&self) -> Option<Stall> {
        RunEnd {
            sum: self.last.map_or(0.0, |p| p.sum_loss),
            fell: self.fell,
            at_last_arrival: self.end == self.last_arrival,
            left_work: self.left_work,
        }
        .stall()
    }

    /// Whether the run stalled ([`Self::stall`]).
    pub fn stalled(&self) -> bool {
        self.stall().is_some()
    }

    /// The cumulative regret a result reports (DESIGN §2.6): R(end), or for
    /// a [stalled](Self::stalled) run with a [`stall_end`](Self::stall_end)
    /// beyond its end, R(stall_end): the loss it left, which nothing would
    /// lower, counted for as long as a run that works could last.
    pub fn reported_regret(&self) -> Result<f64> {
        match self.stall_end {
            Some(h) if h > self.end && self.stalled() => self.cumulative_regret(h),
            _ => self.cumulative_regret(self.end),
        }
    }

    /// Cumulative regret R(T) = ∫₀ᵀ S(τ) dτ in accuracy·seconds, the exact
    /// integral of the step function up to `until` (DESIGN §2.6): the sum,
    /// in point order, of S_j · (min(τ_{j+1}, T) − τ_j) over the points
    /// before T (τ_{j+1} = T after the last), over 10⁶.
    pub fn cumulative_regret(&self, until: Micros) -> Result<f64> {
        let mut area = 0.0;
        let mut cursor = self.cursor()?;
        while let Some(p) = cursor.advance()? {
            if p.time >= until {
                break;
            }
            let stop = cursor.next_time().unwrap_or(until).min(until);
            area += p.sum_loss * (stop - p.time) as f64;
        }
        Ok(area / 1.0e6)
    }

    /// T(θ): the first τ at or after the last arrival with L(τ) ≤ θ, or
    /// `None` (∞) if the run never gets there (DESIGN §2.6): the search
    /// starts at the last point at or before the last arrival (none: ∞).
    /// The comparison allows [`THETA_SLACK`](super::THETA_SLACK) for float
    /// rounding.
    pub fn time_to(&self, theta: f64) -> Result<Option<Micros>> {
        Ok(self.times_to(&[theta])?.into_iter().next().flatten())
    }

    /// [`Self::time_to`] of each of `thetas`, in one pass over the points.
    pub fn times_to(&self, thetas: &[f64]) -> Result<Vec<Option<Micros>>> {
        /// Let point `p` (from `last_arrival` on) answer every θ it meets
        /// that no earlier point met.
        fn offer(p: &Point, last_arrival: Micros, thetas: &[f64], found: &mut [Option<Micros>]) {
            let loss = p.loss();
            for (f, &theta) in found.iter_mut().zip(thetas) {
                if f.is_none() && loss <= theta + super::THETA_SLACK {
                    *f = Some(p.time.max(last_arrival));
                }
            }
        }
        let mut found = vec![None; thetas.len()];
        let la = self.last_arrival;
        let mut from: Option<Point> = None;
        let mut searching = false;
        for p in self.points() {
            if found.iter().all(Option::is_some) {
                break;
            }
            let p = p?;
            if !searching {
                if p.time <= la {
                    from = Some(p);
                    continue;
                }
                searching = true;
                let Some(f) = from else {
                    // No point at or before the last arrival: ∞.
                    return Ok(found);
                };
                offer(&f, la, thetas, &mut found);
            }
            offer(&p, la, thetas, &mut found);
        }
        if !searching && let Some(f) = from {
            offer(&f, la, thetas, &mut found);
        }
        Ok(found)
    }
}

/// The points as a list (read from the stream; a spilled curve that cannot
/// be read back says so), then the other fields: equal curves print alike,
/// wherever their points live.
impl std::fmt::Debug for LossCurve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let points: std::result::Result<Vec<Point>, _> = self.points().collect();
        let mut d = f.debug_struct("LossCurve");
        match &points {
            Ok(p) => d.field("points", p),
            Err(e) => d.field("points", &format_args!("unreadable: {e}")),
        };
        d.field("last_arrival", &self.last_arrival)
            .field("end", &self.end)
            .field("stall_end", &self.stall_end)
            .field("left_work", &self.left_work)
            .finish()
    }
}

/// Two curves are equal when their points are (S compared as numbers, as
/// the vectors' comparison did) and their other fields are; a spilled
/// curve that cannot be read back equals none.
impl PartialEq for LossCurve {
    fn eq(&self, other: &Self) -> bool {
        self.equal_by(other, |a, b| a == b)
    }
}

/// The encoding of a curve (the result cache, the shards' raw runs): the
/// struct it was before its points moved to a [`Spill`] — `times`,
/// `sum_loss`, `arrived` as sequences, then `last_arrival`, `end`,
/// `stall_end`, `left_work` — written from the stream, so the bytes are
/// the same and a spilled curve is never read into memory whole.
impl Serialize for LossCurve {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("LossCurve", 7)?;
        s.serialize_field("times", &Column(self, |p| p.time))?;
        s.serialize_field("sum_loss", &Column(self, |p| p.sum_loss))?;
        s.serialize_field("arrived", &Column(self, |p| p.arrived))?;
        s.serialize_field("last_arrival", &self.last_arrival)?;
        s.serialize_field("end", &self.end)?;
        s.serialize_field("stall_end", &self.stall_end)?;
        s.serialize_field("left_work", &self.left_work)?;
        s.end()
    }
}

/// One field of every point of a curve, serialised as a sequence.
struct Column<'a, T>(&'a LossCurve, fn(&Point) -> T);

impl<T: Serialize> Serialize for Column<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let len = usize::try_from(self.0.len()).map_err(serde::ser::Error::custom)?;
        let mut seq = serializer.serialize_seq(Some(len))?;
        for p in self.0.points() {
            let p = p.map_err(serde::ser::Error::custom)?;
            seq.serialize_element(&(self.1)(&p))?;
        }
        seq.end()
    }
}

/// The encoded form ([`LossCurve`]'s `Serialize`), read back: each column
/// a [`Sealed`] sequence, appended as it is read (in memory up to
/// [`SEALED_IN_MEMORY`](crate::core::memory::SEALED_IN_MEMORY), as much
/// as a curve being built holds, then a temporary file), never a vector
/// of every point: a stored run of 10^6
/// tenants read back from the result cache held about 110 MB of its two
/// curves' columns at once before (docs/PERFORMANCE.md "Reading a stored
/// run back").
#[derive(Deserialize)]
#[serde(rename = "LossCurve")]
struct Encoded {
    times: Sealed<Micros>,
    sum_loss: Sealed<f64>,
    arrived: Sealed<u32>,
    last_arrival: Micros,
    end: Micros,
    #[serde(default)]
    stall_end: Option<Micros>,
    #[serde(default)]
    left_work: bool,
}

impl<'de> Deserialize<'de> for LossCurve {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let e = Encoded::deserialize(deserializer)?;
        let (times, sums, arrived) = (&e.times, &e.sum_loss, &e.arrived);
        if sums.len() != times.len() || arrived.len() != times.len() {
            return Err(D::Error::custom(format!(
                "a loss curve with {} instants, {} sums and {} arrived counts (expected as \
                 many of each)",
                times.len(),
                sums.len(),
                arrived.len()
            )));
        }
        // The columns zipped into points; a read error of a spilled
        // column stops them and is the error.
        let mut unread = None;
        let points = times
            .iter()
            .zip(sums.iter())
            .zip(arrived.iter())
            .map_while(|((t, s), a)| match (t, s, a) {
                (Ok(time), Ok(sum_loss), Ok(arrived)) => Some(Point {
                    time,
                    sum_loss,
                    arrived,
                }),
                (Err(x), _, _) | (_, Err(x), _) | (_, _, Err(x)) => {
                    unread = Some(x);
                    None
                }
            });
        let c = Self::from_points(points, e.last_arrival, e.end);
        if let Some(x) = unread {
            return Err(D::Error::custom(x));
        }
        let mut c = c.map_err(D::Error::custom)?;
        c.stall_end = e.stall_end;
        c.left_work = e.left_work;
        Ok(c)
    }
}

/// Every completion and arrival of a run (its log: `jobs` and
/// `completion_order`) in `(time, kind)` order, stably:
/// completions in the engine's processing order, arrivals in tenant order
/// at equal times, completions before arrivals at one instant.
///
/// The engine processes completions in time order, so `completion_order`
/// is already sorted: the arrivals are sorted (O(n log n) in tenants, O(n)
/// when they all arrive at 0) and merged in, with no sort of every job
/// (2 million at scale). A log whose completions are out of order (not one
/// the engine wrote) is sorted whole instead, which gives the same order.
fn changes_in_order<'a>(
    arrivals: &'a [Micros],
    jobs: &'a [JobRecord],
    completion_order: &'a [u32],
) -> Box<dyn Iterator<Item = Change> + 'a> {
    let completions = completion_order.iter().map(|&j| {
        let job = &jobs[j as usize];
        (job.end, COMPLETION, job.tenant as usize, job.accuracy)
    });
    let arrival = |i: usize| (arrivals[i], ARRIVAL, i, 0.0);
    let sorted = completions
        .clone()
        .zip(completions.clone().skip(1))
        .all(|(a, b)| a.0 <= b.0);
    if !sorted {
        let mut all: Vec<Change> = completions
            .chain((0..arrivals.len()).map(arrival))
            .collect();
        all.sort_by_key(|c| (c.0, c.1));
        return Box::new(all.into_iter());
    }
    let mut order: Vec<usize> = (0..arrivals.len()).collect();
    order.sort_by_key(|&i| arrivals[i]);
    Box::new(merge_arrivals(completions, order.into_iter().map(arrival)))
}

/// Merge `completions` and `arrivals`, each sorted by its axis value, into
/// one `(axis, kind)`-ordered stream: completions first at equal values.
fn merge_arrivals(
    completions: impl Iterator<Item = Change>,
    arrivals: impl Iterator<Item = Change>,
) -> impl Iterator<Item = Change> {
    let mut arrivals = arrivals.peekable();
    let mut completions = completions.peekable();
    std::iter::from_fn(move || match (completions.peek(), arrivals.peek()) {
        (Some(c), Some(a)) if a.0 < c.0 => arrivals.next(),
        (Some(_), _) => completions.next(),
        (None, _) => arrivals.next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn outcome(ends: &[(Micros, u32)]) -> RunOutcome {
        let jobs = ends
            .iter()
            .map(|&(end, tenant)| JobRecord {
                tenant,
                model: 0,
                level: 0,
                gpu: 0,
                start: 0,
                end,
                accuracy: f64::from(tenant) / 10.0,
                completed: true,
                cancelled: false,
            })
            .collect::<Vec<_>>();
        RunOutcome {
            completion_order: Sealed::from_vec((0..jobs.len() as u32).collect()),
            jobs: Sealed::from_vec(jobs),
            ..RunOutcome::default()
        }
    }

    /// The reference: every change in one list, stably sorted by (time, kind).
    fn sorted(arrivals: &[Micros], o: &RunOutcome) -> Vec<Change> {
        let jobs = o.jobs.to_vec().expect("log");
        let mut all: Vec<Change> = o
            .completion_order
            .to_vec()
            .expect("order")
            .into_iter()
            .map(|j| {
                let job = &jobs[j as usize];
                (job.end, COMPLETION, job.tenant as usize, job.accuracy)
            })
            .chain(
                arrivals
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (t, ARRIVAL, i, 0.0)),
            )
            .collect();
        all.sort_by_key(|c| (c.0, c.1));
        all
    }

    /// The figures as the curve computed them when its points were three
    /// vectors read by index (the formulas of DESIGN §2.6 written with
    /// binary searches and index loops): the reference the streamed
    /// computation must equal bit for bit.
    #[derive(Serialize)]
    struct Columns {
        times: Vec<Micros>,
        sum_loss: Vec<f64>,
        arrived: Vec<u32>,
        last_arrival: Micros,
        end: Micros,
        stall_end: Option<Micros>,
        left_work: bool,
    }

    impl Columns {
        fn mean(&self, j: usize) -> f64 {
            if self.arrived[j] == 0 {
                0.0
            } else {
                self.sum_loss[j] / f64::from(self.arrived[j])
            }
        }
        fn loss_at(&self, t: Micros) -> Option<f64> {
            let j = self.times.partition_point(|&x| x <= t).checked_sub(1)?;
            Some(self.mean(j))
        }
        fn cumulative_regret(&self, until: Micros) -> f64 {
            let mut area = 0.0;
            for j in 0..self.times.len() {
                let start = self.times[j];
                if start >= until {
                    break;
                }
                let stop = self.times.get(j + 1).copied().unwrap_or(until).min(until);
                area += self.sum_loss[j] * (stop - start) as f64;
            }
            area / 1.0e6
        }
        fn time_to(&self, theta: f64) -> Option<Micros> {
            let from = self
                .times
                .partition_point(|&x| x <= self.last_arrival)
                .checked_sub(1)?;
            (from..self.times.len())
                .find(|&j| self.mean(j) <= theta + super::super::THETA_SLACK)
                .map(|j| self.times[j].max(self.last_arrival))
        }
        fn stall(&self) -> Option<Stall> {
            RunEnd {
                sum: self.sum_loss.last().copied().unwrap_or(0.0),
                fell: self.sum_loss.windows(2).any(|w| w[1] < w[0]),
                at_last_arrival: self.end == self.last_arrival,
                left_work: self.left_work,
            }
            .stall()
        }
    }

    proptest! {
        /// A curve held in memory and the same points spilled to a file give
        /// every figure of the index-based reference, bit for bit, and the
        /// reference's encoding byte for byte (the result cache and the
        /// shards read curves written before the points were streamed).
        #[test]
        fn streamed_figures_equal_the_index_based_ones_in_memory_and_spilled(
            steps in proptest::collection::vec((1u64..5, 0u32..=12, 0u32..4), 0..40),
            last_arrival in 0u64..60,
            extra in 0u64..10,
            stall_end in proptest::option::of(0u64..200),
            left_work in any::<bool>(),
        ) {
            let mut t = 0;
            let mut points = Vec::new();
            for &(dt, s, a) in &steps {
                points.push(Point { time: t, sum_loss: f64::from(s) / 7.0, arrived: a });
                t += dt;
            }
            let end = t + extra;
            let reference = Columns {
                times: points.iter().map(|p| p.time).collect(),
                sum_loss: points.iter().map(|p| p.sum_loss).collect(),
                arrived: points.iter().map(|p| p.arrived).collect(),
                last_arrival,
                end,
                stall_end,
                left_work,
            };
            let mut want_bytes = Vec::new();
            crate::core::io::codec::encode(&reference, &mut want_bytes).expect("encode");
            for threshold in [usize::MAX, 0, 45] {
                let mut steps = Steps::new(Spill::with_threshold(threshold));
                for &p in &points {
                    steps.push(p).expect("push");
                }
                let mut c = LossCurve::from_steps(steps, last_arrival, end).expect("curve");
                c.stall_end = stall_end;
                c.left_work = left_work;
                prop_assert_eq!(c.is_spilled(), threshold < points.len() * 20);
                let bits = |v: Option<f64>| v.map(f64::to_bits);
                let mut cursor = c.cursor().expect("cursor");
                for u in 0..=end + 2 {
                    prop_assert_eq!(bits(c.loss_at(u).expect("read")), bits(reference.loss_at(u)));
                    prop_assert_eq!(bits(cursor.loss_at(u).expect("read")), bits(reference.loss_at(u)));
                    prop_assert_eq!(
                        c.cumulative_regret(u).expect("read").to_bits(),
                        reference.cumulative_regret(u).to_bits()
                    );
                }
                let thetas = [0.0, 0.1, 0.5, 1.0, 3.0];
                for theta in thetas {
                    prop_assert_eq!(c.time_to(theta).expect("read"), reference.time_to(theta));
                }
                let all: Vec<_> = thetas.iter().map(|&t| reference.time_to(t)).collect();
                prop_assert_eq!(c.times_to(&thetas).expect("read"), all);
                prop_assert_eq!(c.stall(), reference.stall());
                let want_regret = match stall_end {
                    Some(h) if h > end && reference.stall().is_some() => reference.cumulative_regret(h),
                    _ => reference.cumulative_regret(end),
                };
                prop_assert_eq!(c.reported_regret().expect("read").to_bits(), want_regret.to_bits());
                prop_assert_eq!(
                    c.final_loss().expect("read").to_bits(),
                    reference.loss_at(end).unwrap_or(0.0).to_bits()
                );
                let mut bytes = Vec::new();
                crate::core::io::codec::encode(&c, &mut bytes).expect("encode");
                prop_assert_eq!(&bytes, &want_bytes);
                let back: LossCurve = crate::core::io::codec::decode(&bytes).expect("decode");
                prop_assert_eq!(&back, &c);
                prop_assert_eq!(back.stall(), c.stall());
                prop_assert_eq!(
                    back.final_loss().expect("read").to_bits(),
                    c.final_loss().expect("read").to_bits()
                );
            }
        }
    }

    /// A stored curve whose columns differ in length (damaged, or not one
    /// tenantsim wrote) is refused with what it holds, spilled columns or
    /// not; whole columns past the spill threshold read back as the curve.
    #[test]
    fn a_stored_curve_is_read_column_by_column_and_checked() {
        let n = 600_000u64;
        let columns = |arrived: u64| Columns {
            times: (0..n).collect(),
            sum_loss: (0..n).map(|i| (i % 7) as f64 / 3.0).collect(),
            arrived: (0..arrived).map(|i| (i % 5) as u32).collect(),
            last_arrival: 3,
            end: n + 4,
            stall_end: None,
            left_work: false,
        };
        // Refused in the stored encoding (postcard keeps no message) and
        // in JSON, which says why.
        let mut bytes = Vec::new();
        crate::core::io::codec::encode(&columns(n - 1), &mut bytes).expect("encode");
        assert!(crate::core::io::codec::decode::<LossCurve>(&bytes).is_err());
        let json = serde_json::to_string(&columns(n - 1)).expect("json");
        let e = serde_json::from_str::<LossCurve>(&json).expect_err("refused");
        assert!(
            e.to_string().contains(&format!(
                "a loss curve with {n} instants, {n} sums and {} arrived counts",
                n - 1
            )),
            "{e}"
        );
        // 600,000 points: 4.8 MB of times, as many sums, 2.4 MB of counts,
        // 12 MB of points (past the 8 MiB a curve keeps in memory).
        let reference = columns(n);
        let mut bytes = Vec::new();
        crate::core::io::codec::encode(&reference, &mut bytes).expect("encode");
        let c: LossCurve = crate::core::io::codec::decode(&bytes).expect("decode");
        assert!(c.is_spilled() && c.len() == n);
        let mut again = Vec::new();
        crate::core::io::codec::encode(&c, &mut again).expect("encode");
        assert!(again == bytes);
    }

    proptest! {
        /// Merging the sorted completions with the sorted arrivals gives
        /// exactly the stable sort of both, for sorted and unsorted logs.
        #[test]
        fn merge_equals_the_stable_sort(
            arrivals in proptest::collection::vec(0u64..6, 0..12),
            mut ends in proptest::collection::vec((0u64..8, 0u32..12), 0..30),
            keep_order in any::<bool>(),
        ) {
            if !keep_order {
                ends.sort_by_key(|e| e.0);
            }
            let o = outcome(&ends);
            let (jobs, order) = (o.jobs.to_vec().expect("log"), o.completion_order.to_vec().expect("order"));
            let got: Vec<Change> = changes_in_order(&arrivals, &jobs, &order).collect();
            prop_assert_eq!(got, sorted(&arrivals, &o));
        }
    }

    /// Two tenants: t0 (A* 0.9) arrives at 0, t1 (A* 0.8) at 1 s. t0's 0.5
    /// and t1's 0.8 complete at 2 s (in that order), t0's 0.9 at 5 s.
    fn two_tenants() -> (Trace, RunOutcome) {
        let csv = "user,model,accuracy,runtime_s\n\
                   t0,a,0.5,2\nt0,b,0.9,3\nt1,a,0.8,1\n";
        let Ok(trace) = crate::models::trace::parse_trace("two", csv.as_bytes()) else {
            panic!("trace")
        };
        let s = 1_000_000;
        let job = |tenant, end, accuracy| JobRecord {
            tenant,
            model: 0,
            level: 0,
            gpu: 0,
            start: 0,
            end,
            accuracy,
            completed: true,
            cancelled: false,
        };
        let jobs = vec![job(0, 2 * s, 0.5), job(1, 2 * s, 0.8), job(0, 5 * s, 0.9)];
        let o = RunOutcome {
            completion_order: Sealed::from_vec(vec![0, 1, 2]),
            jobs: Sealed::from_vec(jobs),
            end: 5 * s,
            ..RunOutcome::default()
        };
        (trace, o)
    }

    #[test]
    fn loss_by_jobs_by_hand() {
        // Job axis: both tenants have arrived before the first completion
        // (0 jobs done by 1 s), so both sit at 0.
        //   j = 0: (0.9 + 0.8) / 2        = 0.85
        //   j = 1: t0 best 0.5: (0.4 + 0.8) / 2 = 0.6
        //   j = 2: t1 best 0.8: (0.4 + 0) / 2   = 0.2
        //   j = 3: t0 best 0.9: 0
        // Jobs to θ = 0.5: 2. Σ_j S after job j over j = 0..2:
        // 1.7 + 1.2 + 0.4 = 3.3 (the area with unit steps, in "µs" → / 10⁶).
        let (trace, o) = two_tenants();
        let c = LossCurve::by_jobs(&trace, &[0, 1], &[0, 1_000_000], &o).expect("curve");
        let want = [0.85, 0.6, 0.2, 0.0];
        for (j, w) in want.iter().enumerate() {
            let got = c.loss_at(j as Micros).expect("read").unwrap_or(f64::NAN);
            assert!((got - w).abs() < 1e-12, "j = {j}: {got} ≠ {w}");
        }
        assert_eq!((c.end, c.last_arrival), (3, 0));
        assert_eq!(c.time_to(0.5).expect("read"), Some(2));
        assert_eq!(c.time_to(0.0).expect("read"), Some(3));
        assert!((c.cumulative_regret(3).expect("read") * 1e6 - 3.3).abs() < 1e-9);
        // The time axis of the same run: 0.9 on [0, 1), 0.85 on [1, 2), 0.2
        // on [2, 5) (both completions at 2 s collapse into one step), 0 from 5.
        let t = LossCurve::from_outcome(&trace, &[0, 1], &[0, 1_000_000], &o).expect("curve");
        assert_eq!(
            t.times().expect("read"),
            vec![0, 1_000_000, 2_000_000, 5_000_000]
        );
        // A tenant arriving after the first completion sits after it.
        let late = LossCurve::by_jobs(&trace, &[0, 1], &[0, 3_000_000], &o).expect("curve");
        // j = 0: 0.9 (t0 alone); j = 1: 0.4; j = 2: t1's completion is not
        // counted before t1 arrives, t1 arrives at 2 (two jobs done by 3 s)
        // with its best 0.8 already: (0.4 + 0) / 2 = 0.2; j = 3: 0.
        let got: Vec<f64> = (0..4)
            .map(|j| late.loss_at(j).expect("read").unwrap_or(f64::NAN))
            .collect();
        for (g, w) in got.iter().zip([0.9, 0.4, 0.2, 0.0]) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        assert_eq!(late.last_arrival, 2);
    }

    #[test]
    fn a_stalled_run_reports_its_loss_up_to_the_stall_horizon_not_up_to_its_early_end() {
        // Two tenants at 0 and 1 s (S = 0.9, then 1.7), no job: the run
        // ends at the last arrival, 1 s, with R(end) = 0.9.
        let (trace, o) = two_tenants();
        let idle = RunOutcome {
            end: 1_000_000,
            ..RunOutcome::default()
        };
        let mut c =
            LossCurve::from_outcome(&trace, &[0, 1], &[0, 1_000_000], &idle).expect("curve");
        assert!(c.stalled());
        assert!(
            (c.reported_regret().expect("read") - 0.9).abs() < 1e-12,
            "no stall horizon: R(end)"
        );
        c.stall_end = Some(11_000_000);
        // 0.9 · 1 s + 1.7 · 10 s.
        assert!(
            (c.reported_regret().expect("read") - 17.9).abs() < 1e-9,
            "{}",
            c.reported_regret().expect("read")
        );
        // A run that worked is not stalled: its R(end) stands.
        let mut worked =
            LossCurve::from_outcome(&trace, &[0, 1], &[0, 1_000_000], &o).expect("curve");
        assert!(!worked.stalled());
        worked.stall_end = Some(11_000_000);
        assert_eq!(
            worked.reported_regret().expect("read"),
            worked.cumulative_regret(worked.end).expect("read")
        );
    }

    /// A run that lowered a loss and then ended early, with a tenant left
    /// with work (the runner sets `left_work`), reports R(stall_end) too;
    /// the same run without work left reports R(end).
    #[test]
    fn a_run_left_idle_with_work_reports_its_loss_up_to_the_stall_horizon() {
        // The two-tenant run cut after its 2 s completions: t0 still has
        // loss 0.4 (its 0.9 never ran). R(end) = 0.9 · 1 s + 1.7 · 1 s.
        let (trace, mut o) = two_tenants();
        let jobs = o.jobs.to_vec().expect("log");
        let mut order = o.completion_order.to_vec().expect("order");
        order.retain(|&j| jobs[j as usize].end <= 2_000_000);
        o.completion_order = Sealed::from_vec(order);
        o.end = 2_000_000;
        let mut c = LossCurve::from_outcome(&trace, &[0, 1], &[0, 1_000_000], &o).expect("curve");
        c.stall_end = Some(12_000_000);
        assert!((c.cumulative_regret(c.end).expect("read") - 2.6).abs() < 1e-12);
        assert_eq!(c.stall(), None, "S fell and no work left: R(end)");
        assert_eq!(
            c.reported_regret().expect("read"),
            c.cumulative_regret(c.end).expect("read")
        );
        c.left_work = true;
        assert_eq!(c.stall(), Some(Stall::LeftIdle));
        // 2.6 + 0.4 · 10 s.
        assert!(
            (c.reported_regret().expect("read") - 6.6).abs() < 1e-9,
            "{}",
            c.reported_regret().expect("read")
        );
    }

    proptest! {
        /// With one completion per instant and every tenant arriving at 0,
        /// the loss after the j-th job is the time curve's value at the j-th
        /// completion time.
        #[test]
        fn by_jobs_samples_the_time_curve_at_each_completion(
            accs in proptest::collection::vec((0u32..3, 0u32..10), 1..25),
        ) {
            let mut csv = String::from("user,model,accuracy,runtime_s\n");
            for (k, &(t, a)) in accs.iter().enumerate() {
                csv.push_str(&format!("t{t},m{k},{},1\n", f64::from(a) / 10.0));
            }
            let Ok(trace) = crate::models::trace::parse_trace("p", csv.as_bytes()) else {
                panic!("trace")
            };
            let users: Vec<usize> = (0..trace.n_users()).collect();
            let ids: Vec<u32> = accs
                .iter()
                .map(|&(t, _)| {
                    let name = format!("t{t}");
                    trace.user_index(&name).unwrap_or(0) as u32
                })
                .collect();
            let jobs: Vec<JobRecord> = accs
                .iter()
                .zip(&ids)
                .enumerate()
                .map(|(k, (&(_, a), &tenant))| JobRecord {
                    tenant,
                    model: 0,
                    level: 0,
                    gpu: 0,
                    start: 0,
                    end: (k as Micros + 1) * 7,
                    accuracy: f64::from(a) / 10.0,
                    completed: true,
                    cancelled: false,
                })
                .collect();
            let o = RunOutcome {
                completion_order: Sealed::from_vec((0..jobs.len() as u32).collect()),
                end: jobs.len() as Micros * 7,
                jobs: Sealed::from_vec(jobs),
                ..RunOutcome::default()
            };
            let arrivals = vec![0; users.len()];
            let by_time = LossCurve::from_outcome(&trace, &users, &arrivals, &o).expect("curve");
            let by_jobs = LossCurve::by_jobs(&trace, &users, &arrivals, &o).expect("curve");
            prop_assert_eq!(by_jobs.end, o.jobs.len() as Micros);
            for j in 0..=o.jobs.len() {
                let t = j as Micros * 7;
                prop_assert_eq!(by_jobs.loss_at(j as Micros).expect("read"), by_time.loss_at(t).expect("read"), "j = {}", j);
            }
        }
    }
}
