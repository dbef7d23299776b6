//! The time grid on which `curves.csv` samples L(τ).

use crate::models::scenario::GridKind;
use crate::models::trace::Micros;

/// `points` instants from `first` to `last` (µs, both included), spaced
/// geometrically (`Log`) or evenly (`Linear`), each rounded to the nearest
/// microsecond; instants that coincide after rounding appear once, so the
/// grid may have fewer points than asked when the span is only a few µs.
///
/// - linear: τ_j = first + round((last − first) · j / (n − 1)), in exact
///   integer arithmetic;
/// - log: τ_j = round(first · (last / first)^(j / (n − 1))), with τ_0 =
///   first and τ_{n−1} = last exactly; `first` = 0 is treated as 1 µs.
///
/// When `last <= first` the grid is the single instant `first`.
pub fn time_grid(kind: GridKind, points: u32, first: Micros, last: Micros) -> Vec<Micros> {
    let n = u64::from(points.max(2));
    if last <= first {
        return vec![first];
    }
    let mut grid: Vec<Micros> = match kind {
        GridKind::Linear => {
            let span = u128::from(last - first);
            let steps = u128::from(n - 1);
            (0..n)
                .map(|j| {
                    let offset = (span * u128::from(j) + steps / 2) / steps;
                    first + offset as u64
                })
                .collect()
        }
        GridKind::Log => {
            let lo = first.max(1);
            let (ln_lo, ln_hi) = ((lo as f64).ln(), (last as f64).ln());
            (0..n)
                .map(|j| {
                    if j == 0 {
                        lo
                    } else if j == n - 1 {
                        last
                    } else {
                        let x = ln_lo + (ln_hi - ln_lo) * (j as f64 / (n - 1) as f64);
                        (x.exp().round() as u64).clamp(lo, last)
                    }
                })
                .collect()
        }
    };
    grid.dedup();
    grid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_grid_is_exact() {
        assert_eq!(time_grid(GridKind::Linear, 5, 10, 50), [10, 20, 30, 40, 50]);
        assert_eq!(time_grid(GridKind::Linear, 3, 0, 3), [0, 2, 3]);
    }

    #[test]
    fn log_grid_has_equal_ratios_and_exact_ends() {
        let g = time_grid(GridKind::Log, 4, 1_000, 1_000_000);
        assert_eq!(g, [1_000, 10_000, 100_000, 1_000_000]);
    }

    #[test]
    fn degenerate_spans() {
        assert_eq!(time_grid(GridKind::Log, 10, 7, 7), [7]);
        assert_eq!(time_grid(GridKind::Log, 10, 1, 3), [1, 2, 3]);
        assert_eq!(time_grid(GridKind::Log, 3, 0, 100), [1, 10, 100]);
    }
}
