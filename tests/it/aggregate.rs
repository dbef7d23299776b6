//! Aggregation across repetitions on constructed loss curves whose answers
//! are worked out by hand: Student-t and quantile bands (`curves.csv`),
//! T(θ) on the exact mean curve and speedups with `inf`, `0` and `n/a`
//! (`speedups.csv`), and regret ratios (`regret.csv`).

use tenantsim::models::aggregate::{Aggregate, AggregateSpec, aggregate_curves};
use tenantsim::models::metrics::{LossCurve, Point};
use tenantsim::models::report::{
    CURVES_HEADER, REGRET_HEADER, SPEEDUPS_HEADER, curves_csv, regret_csv, speedups_csv,
};
use tenantsim::models::scenario::{GridKind, OutputSection};

const S: u64 = 1_000_000;

/// One tenant arriving at 0, so L(τ) = S(τ): `steps` are (seconds, loss).
fn curve(steps: &[(u64, f64)], end_s: u64) -> LossCurve {
    let points = steps.iter().map(|&(t, sum_loss)| Point {
        time: t * S,
        sum_loss,
        arrived: 1,
    });
    LossCurve::from_points(points, 0, end_s * S).expect("a curve")
}

fn output(grid: GridKind, points: u32, confidence: f64) -> OutputSection {
    OutputSection {
        grid,
        grid_points: points,
        confidence,
        quantiles: vec![0.25, 0.75],
        plots: false,
        up_to_thetas: None,
    }
}

fn run(
    names: &[&str],
    curves: &[Vec<LossCurve>],
    thresholds: &[f64],
    baseline: usize,
    out: &OutputSection,
    span_s: (u64, u64),
) -> Aggregate {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let refs: Vec<Vec<&LossCurve>> = curves.iter().map(|c| c.iter().collect()).collect();
    aggregate_curves(
        &names,
        &refs,
        &AggregateSpec {
            thresholds,
            baseline,
            output: out,
            span: (span_s.0 * S, span_s.1 * S),
        },
    )
    .expect("aggregate")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

/// CSV rows without the header, split into fields.
fn rows(csv: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(header));
    lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// A numeric field equal (to 1e-12) to `want`.
fn num(field: &str, want: f64) {
    let got: f64 = field
        .parse()
        .unwrap_or_else(|_| panic!("`{field}` is not a number"));
    assert!(close(got, want), "got {got}, expected {want}");
}

/// Three repetitions of one policy:
///
/// | τ (s) | rep 0 | rep 1 | rep 2 |
/// |---|---|---|---|
/// | [0, 1)  | 0.9 | 0.8 | 0.6 |
/// | [1, 2)  | 0.9 | 0.8 | 0.3 |
/// | [2, 4)  | 0.5 | 0.8 | 0.3 |
/// | [4, 6)  | 0.5 | 0.2 | 0.3 |
/// | [6, 8)  | 0.1 | 0.2 | 0.3 |
/// | 8 on    | 0.1 | 0.2 | 0.0 |
///
/// On the linear grid 0, 2, 4, 6, 8 s, with t_{0.975,2} = 4.302652729749464
/// (tables; Student's t, 2 degrees of freedom) and half-width
/// h = t · s / √3, s the sample standard deviation:
///
/// - τ = 0: values 0.9, 0.8, 0.6; mean 2.3/3 = 0.766667;
///   s² = (0.133333² + 0.033333² + 0.166667²)/2 = 0.046667/2 = 0.023333,
///   s = 0.152753, h = 4.302653 · 0.152753 / 1.732051 = 0.379458,
///   band [0.387208, 1.146125]; sorted 0.6, 0.8, 0.9: median 0.8,
///   q25 (h = 0.5) = 0.7, q75 (h = 1.5) = 0.85.
/// - τ = 2: 0.5, 0.8, 0.3; mean 0.533333, s = 0.251661, h = 0.625161,
///   band [−0.091828, 1.158494]; median 0.5, q25 0.4, q75 0.65.
/// - τ = 4: 0.5, 0.2, 0.3; mean 0.333333, s = 0.152753, h = 0.379458;
///   median 0.3, q25 0.25, q75 0.4.
/// - τ = 6: 0.1, 0.2, 0.3; mean 0.2, s = 0.1, h = 0.248414; median 0.2,
///   q25 0.15, q75 0.25.
/// - τ = 8: 0.1, 0.2, 0.0; mean 0.1, s = 0.1, h = 0.248414; median 0.1,
///   q25 0.05, q75 0.15.
#[test]
fn student_t_and_quantile_bands_match_hand_values() {
    let reps = vec![
        curve(&[(0, 0.9), (2, 0.5), (6, 0.1)], 8),
        curve(&[(0, 0.8), (4, 0.2)], 8),
        curve(&[(0, 0.6), (1, 0.3), (8, 0.0)], 8),
    ];
    let agg = run(
        &["p"],
        std::slice::from_ref(&reps),
        &[0.5],
        0,
        &output(GridKind::Linear, 5, 0.95),
        (0, 8),
    );
    let t = 4.302_652_729_749_464;
    // (time, values) → mean, s, median, q25, q75 worked out above.
    let expected: [(&str, f64, f64, f64, f64, f64); 5] = [
        (
            "0.000000",
            2.3 / 3.0,
            0.152_752_523_165_194_7,
            0.8,
            0.7,
            0.85,
        ),
        (
            "2.000000",
            1.6 / 3.0,
            0.251_661_147_842_358_4,
            0.5,
            0.4,
            0.65,
        ),
        (
            "4.000000",
            1.0 / 3.0,
            0.152_752_523_165_194_7,
            0.3,
            0.25,
            0.4,
        ),
        ("6.000000", 0.2, 0.1, 0.2, 0.15, 0.25),
        ("8.000000", 0.1, 0.1, 0.1, 0.05, 0.15),
    ];
    let text = curves_csv(&agg);
    let table = rows(&text, CURVES_HEADER);
    assert_eq!(
        CURVES_HEADER,
        "policy,time_s,mean_loss,ci_low,ci_high,reps,median_loss,q_low,q_high"
    );
    assert_eq!(table.len(), 5);
    for (row, (time, mean, s, median, q25, q75)) in table.iter().zip(expected) {
        let h = t * s / 3f64.sqrt();
        assert_eq!(row[0], "p");
        assert_eq!(row[1], time);
        num(&row[2], mean);
        num(&row[3], mean - h);
        num(&row[4], mean + h);
        assert_eq!(row[5], "3");
        num(&row[6], median);
        num(&row[7], q25);
        num(&row[8], q75);
    }
    // The first band by its decimal value, as computed by hand above.
    assert!((agg.policies[0].curve[0].band.low - 0.387_208).abs() < 1e-6);
    assert!((agg.policies[0].curve[0].band.high - 1.146_125).abs() < 1e-6);

    // The level is configurable: at 90 %, t_{0.95,2} = 2.919985580353724,
    // so at τ = 0 the half-width is 2.919986 · 0.152753 / √3 = 0.257519.
    let agg90 = run(
        &["p"],
        &[reps],
        &[0.5],
        0,
        &output(GridKind::Linear, 5, 0.90),
        (0, 8),
    );
    let b = agg90.policies[0].curve[0].band;
    assert!(close(b.high - b.mean, 0.257_518_522_583_685_5));
}

/// With one repetition there is no spread to estimate: the mean is written
/// as both bounds.
#[test]
fn one_repetition_band_is_the_mean() {
    let agg = run(
        &["p"],
        &[vec![curve(&[(0, 0.7), (3, 0.2)], 5)]],
        &[0.5],
        0,
        &output(GridKind::Linear, 2, 0.95),
        (0, 5),
    );
    let table = rows(&curves_csv(&agg), CURVES_HEADER);
    let fields: Vec<&str> = table[1].iter().map(String::as_str).collect();
    assert_eq!(
        fields,
        [
            "p", "5.000000", "0.2", "0.2", "0.2", "1", "0.2", "0.2", "0.2"
        ]
    );
}

/// Three policies, two repetitions each, thresholds 0.28, 0.16, 0.04;
/// baseline A (the first).
///
/// | policy | rep 0 steps (s: L) | rep 1 steps |
/// |---|---|---|
/// | A | 0: 0.5, 10: 0.1 | 0: 0.5, 20: 0.1 |
/// | B | 0: 0.5, 5: 0.2, 8: 0.0 | 0: 0.5, 4: 0.3, 12: 0.05 |
/// | C | 0: 0.5, 3: 0.35 | 0: 0.5, 3: 0.35 |
///
/// Mean curves (breakpoints: union of the repetitions'):
/// - A: 0: 0.5, 10: 0.3, 20: 0.1 → T(0.28) = 20, T(0.16) = 20, T(0.04) = ∞
/// - B: 0: 0.5, 4: 0.4, 5: 0.25, 8: 0.15, 12: 0.025 → T = 5, 8, 12
///   (5 s and 8 s are not on the 2-point grid: T is read off the exact mean
///   curve, not the grid)
/// - C: 0: 0.5, 3: 0.35 → ∞, ∞, ∞
///
/// Speedups T_A / T_X:
/// - A: 1, 1, n/a (neither reaches 0.04)
/// - B: 20/5 = 4, 20/8 = 2.5, inf (only the baseline never reaches 0.04)
/// - C: 0, 0 (only the policy never reaches θ), n/a
///
/// Per repetition T: A (10, 10, ∞) and (20, 20, ∞); B (5, 8, 8) and
/// (12, 12, ∞); C always ∞. Median per-repetition speedups:
/// - B: θ 0.28: 10/5 = 2 and 20/12 = 1.6667 → 1.8333; θ 0.16: 10/8 = 1.25
///   and 1.6667 → 1.4583; θ 0.04: ∞/8 = inf and ∞/∞ = n/a (left out) → inf
/// - C: 10/∞ = 0 and 20/∞ = 0 → 0, 0; θ 0.04: n/a, n/a → n/a
///
/// Cumulative regret to each run's end (20 s): A 0.5·10 + 0.1·10 = 6 and
/// 0.5·20 = 10 (mean 8); B 0.5·5 + 0.2·3 = 3.1 and 0.5·4 + 0.3·8 + 0.05·8
/// = 4.8 (mean 3.95, ratio 3.95/8 = 0.49375, per-rep 0.516667 and 0.48 →
/// median 0.498333); C 0.5·3 + 0.35·17 = 7.45 twice (ratio 0.93125,
/// per-rep 1.241667 and 0.745 → median 0.993333).
#[test]
fn time_to_quality_and_speedups_on_mean_curves() {
    let a = vec![
        curve(&[(0, 0.5), (10, 0.1)], 20),
        curve(&[(0, 0.5), (20, 0.1)], 20),
    ];
    let b = vec![
        curve(&[(0, 0.5), (5, 0.2), (8, 0.0)], 20),
        curve(&[(0, 0.5), (4, 0.3), (12, 0.05)], 20),
    ];
    let c = vec![
        curve(&[(0, 0.5), (3, 0.35)], 20),
        curve(&[(0, 0.5), (3, 0.35)], 20),
    ];
    let agg = run(
        &["A", "B", "C"],
        &[a, b, c],
        &[0.28, 0.16, 0.04],
        0,
        &output(GridKind::Log, 2, 0.95),
        (1, 20),
    );
    assert_eq!(agg.grid, [S, 20 * S]);
    let t = |p: usize| agg.policies[p].time_to.clone();
    assert_eq!(t(0), [Some(20 * S), Some(20 * S), None]);
    assert_eq!(t(1), [Some(5 * S), Some(8 * S), Some(12 * S)]);
    assert_eq!(t(2), [None, None, None]);

    assert_eq!(
        SPEEDUPS_HEADER,
        "policy,baseline,theta,t_baseline_s,t_policy_s,speedup,median_rep_speedup"
    );
    let table = rows(&speedups_csv(&agg), SPEEDUPS_HEADER);
    // (policy, θ, T_B, T_X, speedup, median per-rep speedup); a number
    // given as text is compared exactly, the others to 1e-12.
    let expected: [(&str, &str, &str, &str, &str, f64); 9] = [
        ("A", "0.28", "20.000000", "20.000000", "1", 1.0),
        ("A", "0.16", "20.000000", "20.000000", "1", 1.0),
        ("A", "0.04", "inf", "inf", "n/a", f64::NAN),
        (
            "B",
            "0.28",
            "20.000000",
            "5.000000",
            "4",
            (2.0 + 20.0 / 12.0) / 2.0,
        ),
        (
            "B",
            "0.16",
            "20.000000",
            "8.000000",
            "2.5",
            (1.25 + 20.0 / 12.0) / 2.0,
        ),
        ("B", "0.04", "inf", "12.000000", "inf", f64::INFINITY),
        ("C", "0.28", "20.000000", "inf", "0", 0.0),
        ("C", "0.16", "20.000000", "inf", "0", 0.0),
        ("C", "0.04", "inf", "inf", "n/a", f64::NAN),
    ];
    assert_eq!(table.len(), expected.len());
    for (row, (p, theta, tb, tx, speedup, median)) in table.iter().zip(expected) {
        assert_eq!(row[0], p);
        assert_eq!(row[1], "A");
        assert_eq!(row[2], theta);
        assert_eq!(row[3], tb, "T_B of {p} at {theta}");
        assert_eq!(row[4], tx, "T_X of {p} at {theta}");
        assert_eq!(row[5], speedup, "speedup of {p} at {theta}");
        if median.is_nan() {
            assert_eq!(row[6], "n/a");
        } else if median.is_infinite() {
            assert_eq!(row[6], "inf");
        } else {
            num(&row[6], median);
        }
    }

    assert_eq!(
        REGRET_HEADER,
        "policy,baseline,reps,mean_regret,ci_low,ci_high,median_regret,ratio_to_baseline,median_rep_ratio"
    );
    let table = rows(&regret_csv(&agg), REGRET_HEADER);
    // A: values 6, 10: s = 2√2, t_{0.975,1} = 12.706204736174704,
    // half-width 12.7062 · 2.8284 / √2 = 25.4124.
    let half = 12.706_204_736_174_704 * 8f64.sqrt() / 2f64.sqrt();
    let expected = [
        ("A", 8.0, half, 8.0, 1.0, 1.0),
        (
            "B",
            3.95,
            12.706_204_736_174_704 * 0.85 * 2f64.sqrt() / 2f64.sqrt(),
            3.95,
            0.49375,
            (3.1 / 6.0 + 0.48) / 2.0,
        ),
        (
            "C",
            7.45,
            0.0,
            7.45,
            0.93125,
            (7.45 / 6.0 + 7.45 / 10.0) / 2.0,
        ),
    ];
    for (row, (p, mean, h, median, ratio, rep_ratio)) in table.iter().zip(expected) {
        assert_eq!(row[0], p);
        assert_eq!(row[1], "A");
        assert_eq!(row[2], "2");
        num(&row[3], mean);
        num(&row[4], mean - h);
        num(&row[5], mean + h);
        num(&row[6], median);
        num(&row[7], ratio);
        num(&row[8], rep_ratio);
    }
}

/// Another baseline: the ratios flip. C as baseline never reaches any θ,
/// so every policy that does has speedup `inf` there.
#[test]
fn baseline_choice_is_honoured() {
    let a = vec![curve(&[(0, 0.5), (10, 0.1)], 20)];
    let c = vec![curve(&[(0, 0.5), (3, 0.35)], 20)];
    let agg = run(
        &["A", "C"],
        &[a, c],
        &[0.28],
        1,
        &output(GridKind::Log, 10, 0.95),
        (1, 20),
    );
    let table = rows(&speedups_csv(&agg), SPEEDUPS_HEADER);
    assert_eq!(
        table[0],
        ["A", "C", "0.28", "inf", "10.000000", "inf", "inf"]
    );
    assert_eq!(table[1], ["C", "C", "0.28", "inf", "inf", "n/a", "n/a"]);
}

/// Identical repetitions: the mean curve is each repetition's curve, so
/// T(θ) is theirs even when L lands exactly on θ (no rounding drift).
#[test]
fn identical_repetitions_keep_their_time_to_quality() {
    // 0.2 + 0.2 + 0.2 + ... summed in floating point is not 10 · 0.2; the
    // mean is still exactly 0.2 and T(0.2) = 7 s.
    let reps: Vec<LossCurve> = (0..10)
        .map(|_| curve(&[(0, 2.0 / 3.0), (7, 0.2)], 9))
        .collect();
    let agg = run(
        &["p"],
        &[reps],
        &[0.2],
        0,
        &output(GridKind::Log, 5, 0.95),
        (7, 9),
    );
    assert_eq!(agg.policies[0].time_to, [Some(7 * S)]);
    let band = agg.policies[0].curve[0].band;
    assert_eq!((band.mean, band.low, band.high), (0.2, 0.2, 0.2));
}

/// The definition of T(θ) on the mean curve (with the documented
/// `THETA_SLACK` for float rounding), evaluated directly: M at every
/// union breakpoint (and at the latest last arrival) from the latest last
/// arrival on, the first with M ≤ θ.
fn brute_mean_time_to(curves: &[&LossCurve], theta: f64) -> Option<u64> {
    let from = curves.iter().map(|c| c.last_arrival).max().unwrap_or(0);
    let mut times: Vec<u64> = curves
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
        v.len() == curves.len()
            && tenantsim::models::aggregate::mean(&v)
                <= theta + tenantsim::models::metrics::THETA_SLACK
    })
}

proptest::proptest! {
    /// T(θ) of the exact mean curve equals the definition evaluated point by
    /// point, on random step functions with ties and staggered arrivals.
    #[test]
    fn mean_curve_time_to_matches_definition(
        reps in proptest::collection::vec(
            (proptest::collection::vec((1u64..5, 0u32..=10), 1..7), 0usize..3, 0u64..4),
            1..6,
        ),
        thetas in proptest::collection::vec(0u32..=10, 1..4),
    ) {
        let curves: Vec<LossCurve> = reps
            .iter()
            .map(|(steps, arrival_idx, start)| {
                let mut t = *start;
                let mut times = Vec::new();
                let mut loss = Vec::new();
                for &(dt, l) in steps {
                    times.push(t);
                    loss.push(f64::from(l) / 10.0);
                    t += dt;
                }
                let last_arrival = times[(*arrival_idx).min(times.len() - 1)];
                let points = times.iter().zip(&loss).map(|(&time, &sum_loss)| Point {
                    time,
                    sum_loss,
                    arrived: 1,
                });
                LossCurve::from_points(points, last_arrival, t).expect("a curve")
            })
            .collect();
        let refs: Vec<&LossCurve> = curves.iter().collect();
        let thetas: Vec<f64> = thetas.iter().map(|&t| f64::from(t) / 10.0).collect();
        let got = tenantsim::models::aggregate::mean_time_to(&refs, &thetas).expect("read");
        for (k, &th) in thetas.iter().enumerate() {
            proptest::prop_assert_eq!(got[k], brute_mean_time_to(&refs, th), "θ = {}", th);
        }
    }
}
