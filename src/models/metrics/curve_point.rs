//! A loss step function's change point, and a cursor that walks a curve's
//! points in order (DESIGN §2.6 "Where a run's curves and rows live").
//!
//! A curve's points are read as a stream ([`Spill::iter`]), never by
//! index: a curve of an internet-scale run lives in a temporary file.
//! Everything that reads a curve at many instants (the aggregate's grid,
//! the mean curve's merge) walks it once with a [`Cursor`].

use super::spill::{Record, Spill, SpillIter, spill_threshold};
use crate::core::error::{Error, Result};
use crate::core::memory::CURVE_IN_MEMORY;
use crate::models::trace::Micros;

/// An empty sequence of curve points that spills past
/// [`CURVE_IN_MEMORY`] (or the process's threshold, if smaller), or why
/// the threshold cannot be had (with a sequence that never spills, for a
/// holder that reports the error later).
pub(super) fn curve_points() -> (Spill<Point>, Option<Error>) {
    match spill_threshold() {
        Ok(t) => (Spill::with_threshold(t.min(CURVE_IN_MEMORY)), None),
        Err(e) => (Spill::with_threshold(usize::MAX), Some(e)),
    }
}

/// One point of a loss step function: from `time` on (until the next
/// point), S = `sum_loss` over `arrived` tenants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// The instant of change (µs, or completed jobs on the job axis).
    pub time: Micros,
    /// S(τ): summed loss of the arrived tenants.
    pub sum_loss: f64,
    /// Tenants arrived by `time`.
    pub arrived: u32,
}

impl Point {
    /// L = S / arrived on this point's segment; 0 before any arrival.
    pub fn loss(&self) -> f64 {
        if self.arrived == 0 {
            0.0
        } else {
            self.sum_loss / f64::from(self.arrived)
        }
    }
}

/// 20 bytes: the instant, S's bits and the arrived count, little-endian.
impl Record for Point {
    const BYTES: usize = 20;
    fn encode(&self, out: &mut [u8]) {
        (self.time, self.sum_loss, self.arrived).encode(out);
    }
    fn decode(bytes: &[u8]) -> Self {
        let (time, sum_loss, arrived) = <(u64, f64, u32)>::decode(bytes);
        Self {
            time,
            sum_loss,
            arrived,
        }
    }
}

/// A curve's points as they are appended, with what the figures read
/// without a pass over them: the last point (L at the end) and whether S
/// ever fell from one point to the next (the stall rule, DESIGN §2.6).
#[derive(Debug)]
pub(super) struct Steps {
    pub(super) points: Spill<Point>,
    pub(super) last: Option<Point>,
    pub(super) fell: bool,
}

impl Steps {
    /// No point yet, held in `points` (empty).
    pub(super) fn new(points: Spill<Point>) -> Self {
        Self {
            points,
            last: None,
            fell: false,
        }
    }

    /// Append `p` (its instant after the last point's).
    pub(super) fn push(&mut self, p: Point) -> Result<()> {
        self.fell |= self.last.is_some_and(|l| p.sum_loss < l.sum_loss);
        self.last = Some(p);
        self.points.push(p)
    }

    /// An independent copy ([`Spill::copy_or_empty`]: on failure an
    /// empty one, and `failure` says why).
    pub(super) fn copy(&self, failure: &mut Option<Error>) -> Self {
        Self {
            points: self.points.copy_or_empty(failure),
            last: self.last,
            fell: self.fell,
        }
    }
}

/// A walk over a curve's points: L at instants that do not go back
/// ([`Self::loss_at`]) or point by point ([`Self::advance`]), in one pass.
#[derive(Debug)]
pub struct Cursor<'a> {
    points: &'a Spill<Point>,
    iter: SpillIter<'a, Point>,
    /// The point whose segment holds the last instant asked for.
    current: Option<Point>,
    /// The point after it, read ahead.
    next: Option<Point>,
}

impl<'a> Cursor<'a> {
    /// A cursor before the first point of `points`.
    pub(super) fn new(points: &'a Spill<Point>) -> Result<Self> {
        let mut iter = points.iter();
        let next = iter.next().transpose()?;
        Ok(Self {
            points,
            iter,
            current: None,
            next,
        })
    }

    /// The instant of the next point, if any.
    pub fn next_time(&self) -> Option<Micros> {
        self.next.map(|p| p.time)
    }

    /// Step to the next point and return it (`None` past the last).
    pub fn advance(&mut self) -> Result<Option<Point>> {
        let Some(p) = self.next else {
            return Ok(None);
        };
        self.current = Some(p);
        self.next = self.iter.next().transpose()?;
        Ok(Some(p))
    }

    /// L(t): the loss of the last point at or before `t`, `None` before
    /// the first. Instants at or after the last one asked for cost the
    /// points passed; an earlier one starts the walk again.
    pub fn loss_at(&mut self, t: Micros) -> Result<Option<f64>> {
        if self.current.is_some_and(|c| c.time > t) {
            *self = Self::new(self.points)?;
        }
        while self.next.is_some_and(|n| n.time <= t) {
            self.advance()?;
        }
        Ok(self.current.map(|p| p.loss()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(threshold: usize) -> Spill<Point> {
        let mut s = Spill::with_threshold(threshold);
        for (time, sum_loss, arrived) in [(0, 0.9, 1), (3, 1.5, 2), (7, 0.5, 2), (9, 0.0, 3)] {
            s.push(Point {
                time,
                sum_loss,
                arrived,
            })
            .expect("push");
        }
        s
    }

    /// L read by a cursor at rising, repeated and falling instants is the
    /// value of the step holding there, in memory and spilled alike.
    #[test]
    fn a_cursor_reads_the_step_at_any_instant() {
        for threshold in [usize::MAX, 0] {
            let s = points(threshold);
            let mut c = Cursor::new(&s).expect("cursor");
            let want = |t: u64| match t {
                0..3 => Some(0.9),
                3..7 => Some(0.75),
                7..9 => Some(0.25),
                _ => Some(0.0),
            };
            for t in [0u64, 0, 1, 3, 6, 7, 8, 9, 100, 2, 5, 9] {
                assert_eq!(c.loss_at(t).expect("read"), want(t), "t = {t}");
            }
        }
        let mut late = Spill::with_threshold(usize::MAX);
        late.push(Point {
            time: 5,
            sum_loss: 1.0,
            arrived: 1,
        })
        .expect("push");
        let mut c = Cursor::new(&late).expect("cursor");
        assert_eq!(c.loss_at(4).expect("read"), None, "before the first point");
        assert_eq!(c.next_time(), Some(5));
        assert_eq!(c.advance().expect("read").map(|p| p.time), Some(5));
        assert_eq!(c.advance().expect("read"), None);
    }
}
