//! Axes: linear or logarithmic ranges with readable tick marks.
//!
//! A chart coordinate is the data value itself on a linear axis and its
//! base-10 logarithm on a log axis, so every figure builds the same kind
//! of plotters chart (f64 coordinates with our own key points) whatever
//! the scale, and tick labels show data values ("0.1", "10", "1e4").

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// A linear f64 coordinate with given major and minor tick positions
/// (plotters' own f64 range picks its ticks itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Ticked {
    lo: f64,
    hi: f64,
    major: Vec<f64>,
    minor: Vec<f64>,
}

impl Ticked {
    /// `lo..hi` with ticks at `major` and light grid lines at `minor`.
    pub fn new(range: Range<f64>, major: Vec<f64>, minor: Vec<f64>) -> Self {
        Self {
            lo: range.start,
            hi: range.end,
            major,
            minor,
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        if self.hi == self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let f = ((*v - self.lo) / (self.hi - self.lo)).clamp(-10.0, 10.0);
        let len = f64::from(limit.1 - limit.0);
        limit.0 + (len * f + if len >= 0.0 { 1e-3 } else { -1e-3 }).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.major.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// One axis: its scale and its range in data units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// Logarithmic (base 10)?
    pub log: bool,
    /// Lower end, data units (> 0 on a log axis).
    pub lo: f64,
    /// Upper end, data units.
    pub hi: f64,
}

impl Axis {
    /// A linear axis over `[lo, hi]` widened to round tick values (an empty
    /// or reversed range becomes a unit range around `lo`).
    pub fn linear(lo: f64, hi: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
            (lo - pad, lo + pad)
        };
        let step = nice_step((hi - lo) / 5.0);
        let lo2 = (lo / step).floor() * step;
        let hi2 = (hi / step).ceil() * step;
        Self {
            log: false,
            lo: clean(lo2),
            hi: clean(hi2),
        }
    }

    /// A linear axis over exactly `[lo, hi]` (no widening).
    pub fn linear_exact(lo: f64, hi: f64) -> Self {
        Self { log: false, lo, hi }
    }

    /// A log axis over `[lo, hi]` (both > 0), padded by 3 % of its span
    /// on each side; a range with `hi ≤ lo` becomes one decade.
    pub fn log(lo: f64, hi: f64) -> Self {
        let lo = if lo > 0.0 && lo.is_finite() { lo } else { 1e-3 };
        let hi = if hi > lo && hi.is_finite() {
            hi
        } else {
            lo * 10.0
        };
        let (a, b) = (lo.log10(), hi.log10());
        let pad = (b - a) * 0.03;
        Self {
            log: true,
            lo: 10f64.powf(a - pad),
            hi: 10f64.powf(b + pad),
        }
    }

    /// A linear or log axis over the data range `[lo, hi]`.
    pub fn auto(log: bool, lo: f64, hi: f64) -> Self {
        if log {
            Self::log(lo, hi)
        } else {
            Self::linear(lo, hi)
        }
    }

    /// Data value → chart coordinate.
    pub fn to(&self, v: f64) -> f64 {
        if self.log { v.max(self.lo).log10() } else { v }
    }

    /// Chart coordinate → data value.
    pub fn from(&self, c: f64) -> f64 {
        if self.log { 10f64.powf(c) } else { c }
    }

    /// The range in chart coordinates.
    pub fn range(&self) -> Range<f64> {
        self.to(self.lo)..self.to(self.hi)
    }

    /// Major and minor tick positions, chart coordinates.
    pub fn ticks(&self) -> (Vec<f64>, Vec<f64>) {
        if self.log {
            log_ticks(self.lo, self.hi)
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let first = (self.lo / step).ceil() as i64;
            let last = (self.hi / step).floor() as i64;
            let major: Vec<f64> = (first..=last).map(|k| clean(k as f64 * step)).collect();
            let minor: Vec<f64> = (first - 1..=last)
                .map(|k| clean((k as f64 + 0.5) * step))
                .filter(|&v| v >= self.lo && v <= self.hi)
                .collect();
            (major, minor)
        }
    }

    /// The label of the tick at chart coordinate `c`.
    pub fn label(&self, c: f64) -> String {
        num(self.from(c))
    }

    /// Clamp a data value into the axis range (then map it).
    pub fn clamp_to(&self, v: f64) -> f64 {
        self.to(v.clamp(self.lo, self.hi))
    }
}

/// Up to 2.5 decades: 1-2-5 steps as majors, the other multiples as
/// minors. Beyond: whole decades (all of them up to 7, every second or
/// third beyond) with 2..9 multiples as minors.
fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (lo.log10(), hi.log10());
    let eps = 1e-9;
    let mut major = Vec::new();
    let mut minor = Vec::new();
    if b - a < 2.5 {
        // Short span: ticks at 1, 2, 5 × 10^k (and the minors in between).
        for k in (a.floor() as i32 - 1)..=(b.ceil() as i32) {
            for m in 1..10 {
                let v = f64::from(m) * 10f64.powi(k);
                let c = v.log10();
                if c < a - eps || c > b + eps {
                    continue;
                }
                if matches!(m, 1 | 2 | 5) {
                    major.push(c);
                } else {
                    minor.push(c);
                }
            }
        }
        if major.len() < 2 {
            minor.iter().for_each(|&c| major.push(c));
            major.sort_by(f64::total_cmp);
            minor.clear();
        }
        return (major, minor);
    }
    let decades = (b - a).floor() as i32;
    let every = if decades <= 7 {
        1
    } else if decades <= 14 {
        2
    } else {
        3
    };
    for k in (a.ceil() as i32)..=(b.floor() as i32) {
        if k.rem_euclid(every) == 0 {
            major.push(f64::from(k));
        } else if every > 1 {
            minor.push(f64::from(k));
        }
    }
    if every == 1 {
        for k in (a.floor() as i32)..=(b.floor() as i32) {
            for m in 2..10 {
                let c = f64::from(k) + f64::from(m).log10();
                if c >= a && c <= b {
                    minor.push(c);
                }
            }
        }
    }
    (major, minor)
}

/// The step among 1, 2, 5 × 10^k nearest above `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Remove float noise (0.30000000000000004 → 0.3).
fn clean(v: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let digits = 12 - v.abs().log10().floor() as i32;
    let p = 10f64.powi(digits.clamp(0, 300));
    (v * p).round() / p
}

/// A number for people: 3 significant digits (whole numbers below 10⁴
/// keep all theirs), no trailing zeros, scientific ("1e4", "2.5e-5")
/// outside [0.001, 10000).
pub fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "n/a".into()
        } else if v > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let a = v.abs();
    if !(1e-3..1e4).contains(&a) {
        let text = format!("{v:.2e}");
        let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
        let m = trim(m);
        return format!("{m}e{e}");
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 6) as usize;
    trim(&format!("{v:.decimals$}")).to_string()
}

fn trim(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(0.1), "0.1");
        assert_eq!(num(1000.0), "1000");
        assert_eq!(num(1e4), "1e4");
        assert_eq!(num(123_456.0), "1.23e5");
        assert_eq!(num(0.0001), "1e-4");
        assert_eq!(num(1.4183006), "1.42");
        assert_eq!(num(18.725), "18.7");
        assert_eq!(num(0.25), "0.25");
        assert_eq!(num(15.3), "15.3");
        assert_eq!(num(f64::INFINITY), "∞");
    }

    #[test]
    fn linear_axes_get_round_ends_and_ticks() {
        let a = Axis::linear(0.03, 0.67);
        assert_eq!((a.lo, a.hi), (0.0, 0.8));
        let (major, minor) = a.ticks();
        assert_eq!(major, vec![0.0, 0.2, 0.4, 0.6, 0.8]);
        assert_eq!(minor, vec![0.1, 0.3, 0.5, 0.7]);
        let flat = Axis::linear(2.0, 2.0);
        assert!(flat.hi > flat.lo);
    }

    #[test]
    fn log_axes_tick_decades_or_125_steps() {
        let a = Axis::log(1.0, 22.0);
        assert!(a.lo < 1.0 && a.lo > 0.9 && a.hi > 22.0 && a.hi < 25.0);
        let labels =
            |ax: &Axis| -> Vec<String> { ax.ticks().0.iter().map(|&c| ax.label(c)).collect() };
        assert_eq!(labels(&a), ["1", "2", "5", "10", "20"]);
        let wide = Axis::log(1.0, 1e5);
        assert_eq!(labels(&wide), ["1", "10", "100", "1000", "1e4", "1e5"]);
        let between = wide.ticks().1.into_iter().filter(|&c| c > 0.0 && c < 5.0);
        assert_eq!(between.count(), 5 * 8, "2..9 between the decades");
        let huge = Axis::log(1e-3, 1e9);
        assert_eq!(huge.ticks().0.len(), 6, "every second decade of 12");
    }
}
