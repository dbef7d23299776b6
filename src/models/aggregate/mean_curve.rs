//! T(θ) of the mean of the repetitions' loss step functions, exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::rep_curves::RepCurves;
use crate::core::analysis::stats::MeanFold;
use crate::core::error::Result;
use crate::models::metrics::{CompensatedSum, LossCurve};
use crate::models::trace::Micros;

/// T(θ) for each θ of M(τ) = mean over repetitions of L_r(τ).
///
/// M is a step function whose breakpoints are the union of the
/// repetitions' breakpoints; its value at a breakpoint is the [`mean`](crate::models::aggregate::mean)
/// (left-to-right sum in repetition order over their number, clamped to
/// their range) of the L_r holding there. T(θ) is the first τ at or after
/// the latest last arrival of any repetition (DESIGN §6.5) with M(τ) ≤ θ,
/// `None` (∞) if there is none — computed on M itself, not on a grid.
pub fn mean_time_to(curves: &[&LossCurve], thresholds: &[f64]) -> Result<Vec<Option<Micros>>> {
    let mut reps = RepCurves::default();
    curves.iter().for_each(|c| reps.push(c));
    mean_time_to_reps(&reps, thresholds)
}

/// [`mean_time_to`] of the repetitions `reps`.
///
/// The breakpoints of the distinct curves are merged lazily (a heap over
/// one [`Cursor`](crate::models::metrics::Cursor) per curve, so a spilled
/// curve is read once, in order) and the sweep stops once every θ is
/// resolved. A compensated running sum
/// (each distinct curve weighted by its copies) screens breakpoints; each
/// candidate within 1e-9 of θ is confirmed with the exact rep-order mean,
/// so the answer is that of the definition above.
pub fn mean_time_to_reps(reps: &RepCurves, thresholds: &[f64]) -> Result<Vec<Option<Micros>>> {
    let n = reps.len();
    let curves = reps.distinct();
    let counts = reps.counts();
    let mut result = vec![None; thresholds.len()];
    if n == 0 {
        return Ok(result);
    }
    let from = curves.iter().map(|c| c.last_arrival).max().unwrap_or(0);
    let mut cursors = curves
        .iter()
        .map(LossCurve::cursor)
        .collect::<Result<Vec<_>>>()?;
    let mut heap: BinaryHeap<Reverse<(Micros, usize)>> = cursors
        .iter()
        .enumerate()
        .filter_map(|(r, c)| c.next_time().map(|t| Reverse((t, r))))
        .collect();
    let mut started = vec![false; curves.len()];
    let mut current: Vec<f64> = vec![0.0; curves.len()];
    let mut defined = 0u64;
    let mut running = CompensatedSum::default();
    let mut open = thresholds.len();
    while let Some(&Reverse((t, _))) = heap.peek() {
        while let Some(&Reverse((u, r))) = heap.peek() {
            if u != t {
                break;
            }
            heap.pop();
            let c = &mut cursors[r];
            let Some(p) = c.advance()? else {
                continue;
            };
            let v = p.loss();
            let copies = counts[r] as f64;
            if started[r] {
                running.add((v - current[r]) * copies);
            } else {
                started[r] = true;
                defined += counts[r];
                running.add(v * copies);
            }
            current[r] = v;
            if let Some(u2) = c.next_time() {
                heap.push(Reverse((u2, r)));
            }
        }
        // The segment starting at t counts if it reaches `from`.
        let covers_from = t >= from || heap.peek().is_none_or(|&Reverse((u, _))| u > from);
        if !covers_from || defined < n as u64 {
            continue;
        }
        let approx = running.value() / n as f64;
        let mut exact = None;
        for (k, &theta) in thresholds.iter().enumerate() {
            if result[k].is_some() || approx > theta + 1e-9 {
                continue;
            }
            let m = *exact.get_or_insert_with(|| MeanFold::of(reps.each_rep(&current)).value());
            if m <= theta + crate::models::metrics::THETA_SLACK {
                result[k] = Some(t.max(from));
                open -= 1;
            }
        }
        if open == 0 {
            break;
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::aggregate::mean;
    use crate::models::metrics::Point;

    fn curve(steps: &[(u64, f64)], last_arrival: u64) -> LossCurve {
        let points = steps.iter().map(|&(time, sum_loss)| Point {
            time,
            sum_loss,
            arrived: 1,
        });
        LossCurve::from_points(points, last_arrival, steps.last().map_or(0, |s| s.0))
            .expect("a curve")
    }

    /// The definition, directly: evaluate M at every union breakpoint.
    fn brute(curves: &[&LossCurve], theta: f64) -> Option<Micros> {
        let from = curves.iter().map(|c| c.last_arrival).max().unwrap_or(0);
        let mut times: Vec<Micros> = curves
            .iter()
            .flat_map(|c| c.times().expect("read"))
            .collect();
        times.push(from);
        times.sort_unstable();
        times.dedup();
        times.into_iter().filter(|&t| t >= from).find(|&t| {
            let v: Vec<f64> = curves
                .iter()
                .filter_map(|c| c.loss_at(t).expect("read"))
                .collect();
            v.len() == curves.len() && mean(&v) <= theta + crate::models::metrics::THETA_SLACK
        })
    }

    #[test]
    fn matches_the_definition_on_awkward_curves() {
        let a = curve(&[(0, 0.9), (5, 0.4), (9, 0.1), (20, 0.05)], 0);
        let b = curve(&[(0, 0.8), (5, 0.6), (12, 0.3), (15, 0.0)], 0);
        let c = curve(&[(2, 0.7), (6, 0.2), (9, 0.25), (30, 0.1)], 7);
        let all = [&a, &b, &c];
        let thetas = [0.8, 0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.0];
        let got = mean_time_to(&all, &thetas).expect("read");
        for (k, &th) in thetas.iter().enumerate() {
            assert_eq!(got[k], brute(&all, th), "θ = {th}");
        }
        // From the last arrival (7) on: M(7) = (0.4 + 0.6 + 0.2)/3 = 0.4.
        assert_eq!(mean_time_to(&all, &[0.45]).expect("read"), [Some(7)]);
    }
}
