use super::*;
use crate::core::error::ErrorKind;
use crate::models::trace::trace_to_csv;

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n − 1 denominator).
fn sd(xs: &[f64]) -> f64 {
    let m = mean(xs);
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

// Tolerances. For n independent draws from a distribution with standard
// deviation σ, the sample mean has standard error σ/√n, and for a normal
// sample the sample SD has standard error ≈ σ/√(2(n−1)) (delta method on
// the χ² distribution of (n−1)s²/σ²). Each check allows 4 standard errors:
// a correct generator fails one with probability about 6e-5, while a
// wrong parameter (say an SD off by 10% at n = 20000, i.e. 28 standard
// errors) fails it for sure. The seeds are fixed, so the tests are
// deterministic either way.
fn mean_tol(sigma: f64, n: usize) -> f64 {
    4.0 * sigma / (n as f64).sqrt()
}
fn sd_tol(sigma: f64, n: usize) -> f64 {
    4.0 * sigma / (2.0 * (n as f64 - 1.0)).sqrt()
}

fn params(users: usize, models: usize, seed: u64) -> SynParams {
    SynParams {
        users,
        models,
        seed,
        ..SynParams::default()
    }
}

#[test]
fn same_seed_same_rows_other_seed_other_rows() {
    let p = params(7, 11, 42);
    let a = generate_syn(&p);
    assert_eq!(a, generate_syn(&p));
    assert_eq!(trace_to_csv(&a), trace_to_csv(&generate_syn(&p)));
    let b = generate_syn(&SynParams {
        seed: 43,
        ..p.clone()
    });
    assert_eq!(a.len(), b.len());
    let differing = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x.accuracy != y.accuracy)
        .count();
    assert_eq!(
        differing,
        a.len(),
        "every accuracy should differ across seeds"
    );
}

#[test]
fn first_draws_are_pinned() {
    // Guards the documented draw order and the platform-independent normal
    // (ChaCha8 + Box–Muller with libm): any change shows here.
    let rows = generate_syn(&params(2, 3, 0));
    let got: Vec<(f64, f64, i64, i64)> = rows
        .iter()
        .take(3)
        .map(|r| {
            (
                r.accuracy,
                r.runtime_s,
                r.model_year.unwrap_or(-1),
                r.model_citations.unwrap_or(-1),
            )
        })
        .collect();
    assert_eq!(got, PINNED);
}

const PINNED: [(f64, f64, i64, i64); 3] = [
    (0.5081816100411739, 0.65321, 2020, 3840),
    (0.41763311495820593, 1.532405, 2020, 1),
    (0.5880410545843027, 0.681985, 2006, 59),
];

#[test]
fn model_means_match_parameters() {
    // K = 20000 model means with S = 0.1: mean within 4·S/√K = 0.00283 of
    // 0.5, sample SD within 4·S/√(2(K−1)) = 0.002 of S.
    let (k, s) = (20_000, 0.1);
    let p = SynParams {
        users: 1,
        models: k,
        model_sd: s,
        ..params(1, k, 11)
    };
    let (models, _) = generate_parts(&p);
    let means: Vec<f64> = models.iter().map(|m| m.mean).collect();
    assert!(
        (mean(&means) - 0.5).abs() <= mean_tol(s, k),
        "{}",
        mean(&means)
    );
    assert!((sd(&means) - s).abs() <= sd_tol(s, k), "{}", sd(&means));
    // Years: uniform over 21 values, mean 2010, SD √((21²−1)/12) = 6.06.
    let years: Vec<f64> = models.iter().map(|m| m.year as f64).collect();
    let year_sd = ((21.0f64 * 21.0 - 1.0) / 12.0).sqrt();
    assert!((mean(&years) - 2010.0).abs() <= mean_tol(year_sd, k));
    // Citations: log10(c+1) is ~ U[0,4) up to flooring: median near 100.
    let mut cites: Vec<i64> = models.iter().map(|m| m.citations).collect();
    cites.sort_unstable();
    let median = cites[k / 2];
    assert!((80..=125).contains(&median), "median citations {median}");
}

#[test]
fn user_deviations_match_parameters() {
    // N·K = 200·100 = 20000 deviations A[i,k] − a_k with U = 0.05 and
    // S = 0.05: clipping at 0 or 1 needs a 0.5 excursion, 7 combined SDs,
    // so it does not bias the moments. Mean within 4·U/√n = 0.00141 of 0,
    // SD within 4·U/√(2(n−1)) = 0.001 of U.
    let (users, models, u) = (200, 100, 0.05);
    let p = SynParams {
        model_sd: 0.05,
        user_sd: u,
        ..params(users, models, 5)
    };
    let (draws, rows) = generate_parts(&p);
    let dev: Vec<f64> = rows
        .iter()
        .enumerate()
        .map(|(j, r)| r.accuracy - draws[j % models].mean)
        .collect();
    let n = dev.len();
    assert_eq!(n, 20_000);
    assert!(mean(&dev).abs() <= mean_tol(u, n), "{}", mean(&dev));
    assert!((sd(&dev) - u).abs() <= sd_tol(u, n), "{}", sd(&dev));
}

#[test]
fn zero_sds_give_exact_values_and_clipping_holds() {
    let p = SynParams {
        model_sd: 0.0,
        user_sd: 0.0,
        ..params(3, 4, 1)
    };
    assert!(generate_syn(&p).iter().all(|r| r.accuracy == 0.5));
    let wide = SynParams {
        model_sd: 5.0,
        ..params(10, 50, 1)
    };
    let rows = generate_syn(&wide);
    let clipped = rows
        .iter()
        .filter(|r| r.accuracy == 0.0 || r.accuracy == 1.0)
        .count();
    // P(|N(0.5, 25)| outside [0,1]) ≈ 0.92: most rows clip, none escape.
    assert!(clipped > 400, "{clipped}");
    assert!(rows.iter().all(|r| (0.0..=1.0).contains(&r.accuracy)));
}

#[test]
fn cost_distributions_match_parameters() {
    let n = 20_000;
    let runtimes = |cost: CostDist| -> Vec<f64> {
        let p = SynParams {
            cost,
            ..params(200, 100, 9)
        };
        generate_syn(&p).iter().map(|r| r.runtime_s).collect()
    };
    // uniform(0,2): mean 1, SD 2/√12; mean within 4·0.577/√n = 0.0163.
    let u = runtimes(CostDist::default());
    assert_eq!(u.len(), n);
    assert!(
        (mean(&u) - 1.0).abs() <= mean_tol(2.0 / 12f64.sqrt(), n),
        "{}",
        mean(&u)
    );
    assert!(u.iter().all(|&c| (1e-6..2.0).contains(&c)));
    // Whole microseconds.
    assert!(
        u.iter()
            .all(|&c| ((c * 1e6).round() / 1e6 - c).abs() < 1e-15)
    );
    // lognormal(1, 0.5): ln(runtime) ~ N(1, 0.25), up to µs rounding.
    let l: Vec<f64> = runtimes(CostDist::LogNormal {
        mu: 1.0,
        sigma: 0.5,
    })
    .iter()
    .map(|c| c.ln())
    .collect();
    assert!((mean(&l) - 1.0).abs() <= mean_tol(0.5, n), "{}", mean(&l));
    assert!((sd(&l) - 0.5).abs() <= sd_tol(0.5, n), "{}", sd(&l));
    // constant(3).
    assert!(runtimes(CostDist::Constant(3.0)).iter().all(|&c| c == 3.0));
}

#[test]
fn tiny_costs_are_floored_to_one_microsecond() {
    let p = SynParams {
        cost: CostDist::Uniform { lo: 0.0, hi: 1e-6 },
        ..params(10, 10, 2)
    };
    let rows = generate_syn(&p);
    assert!(rows.iter().all(|r| r.runtime_s == 1e-6));
}

#[test]
fn parses_cost_distributions() {
    let ok = |s: &str| s.parse::<CostDist>().expect("valid");
    assert_eq!(ok("uniform(0,2)"), CostDist::Uniform { lo: 0.0, hi: 2.0 });
    assert_eq!(
        ok(" Uniform( 0.5 , 3 ) "),
        CostDist::Uniform { lo: 0.5, hi: 3.0 }
    );
    assert_eq!(
        ok("lognormal(0,1)"),
        CostDist::LogNormal {
            mu: 0.0,
            sigma: 1.0
        }
    );
    assert_eq!(ok("constant(1)"), CostDist::Constant(1.0));
    assert_eq!(ok(&CostDist::default().to_string()), CostDist::default());
    let err = |s: &str| {
        let e = s.parse::<CostDist>().expect_err("invalid");
        assert_eq!(e.kind(), ErrorKind::Usage);
        e.message().to_string()
    };
    assert!(err("uniform").contains("expected uniform(LO,HI)"));
    assert!(err("uniform(0,2").contains("missing `)`"));
    assert!(err("uniform(0)").contains("uniform takes 2 number(s) (lo, hi), got 1"));
    assert!(err("uniform(a,2)").contains("`a` is not a finite number"));
    assert!(err("uniform(2,1)").contains("expected 0 <= lo <= hi"));
    assert!(err("uniform(-1,1)").contains("expected 0 <= lo <= hi"));
    assert!(err("lognormal(0,-1)").contains("sigma >= 0"));
    assert!(err("constant(0)").contains("must be > 0"));
    assert!(err("constant(inf)").contains("not a finite number"));
    assert!(err("gamma(1,2)").contains("unknown distribution `gamma`"));
}

#[test]
fn validates_parameters() {
    assert!(SynParams::default().validate().is_ok());
    let bad = [
        SynParams {
            users: 0,
            ..SynParams::default()
        },
        SynParams {
            models: 0,
            ..SynParams::default()
        },
        SynParams {
            model_sd: -0.1,
            ..SynParams::default()
        },
        SynParams {
            user_sd: f64::NAN,
            ..SynParams::default()
        },
        // Past a 32-bit index (the pair count is the memory check's).
        SynParams {
            users: 1 << 33,
            models: 2,
            ..SynParams::default()
        },
        SynParams {
            cost: CostDist::Constant(-1.0),
            ..SynParams::default()
        },
    ];
    for p in bad {
        assert_eq!(
            p.validate().map_err(|e| e.kind()),
            Err(ErrorKind::Usage),
            "{p:?}"
        );
    }
    // 10^8 pairs (and the 1,001,000 × 20 of issue 34) are no longer
    // refused by a count: memory decides.
    for (users, models) in [(10_000, 10_000), (1_001_000, 20)] {
        let p = SynParams {
            users,
            models,
            ..SynParams::default()
        };
        assert_eq!(p.validate().map_err(|e| e.kind()), Ok(()), "{p:?}");
    }
}

#[test]
fn padded_ids() {
    assert_eq!(padded_id("u", 0, 1), "u0");
    assert_eq!(padded_id("u", 7, 10), "u7");
    assert_eq!(padded_id("u", 7, 11), "u07");
    assert_eq!(padded_id("m", 99, 100), "m99");
    assert_eq!(padded_id("m", 5, 1000), "m005");
    // The width counted without a `String`: the digits of n − 1 (at least
    // 1), at every power of ten and beside it.
    let mut ns = vec![0, 1, 2, usize::MAX];
    for p in 1..20 {
        let t = 10usize.pow(p);
        ns.extend([t - 1, t, t + 1]);
    }
    for n in ns {
        let width = n.saturating_sub(1).max(1).to_string().len();
        assert_eq!(padded_id("u", 3, n), format!("u{:0width$}", 3), "n = {n}");
    }
}

/// `mean_bound_s` against the sample mean of 20,000 drawn runtimes (an
/// independent computation: the draws themselves): never below it by more
/// than 4 standard errors, and for uniform and constant within them (the
/// floor of 1 µs is below every tolerance here). lognormal(1, 0.5): mean
/// e^{1.125} = 3.080 s, SD = mean·√(e^{σ²} − 1) = 1.642 s.
#[test]
fn the_runtime_mean_bound_holds_the_drawn_runtimes_mean() {
    let n = 20_000;
    for (cost, sd_of) in [
        (
            CostDist::Uniform { lo: 0.0, hi: 500.0 },
            500.0 / 12f64.sqrt(),
        ),
        (CostDist::Uniform { lo: 2.0, hi: 3.0 }, 1.0 / 12f64.sqrt()),
        (
            CostDist::LogNormal {
                mu: 1.0,
                sigma: 0.5,
            },
            1.642,
        ),
        (CostDist::Constant(7.5), 0.0),
    ] {
        let mut r = rng::stream(11, 0, Purpose::Generator);
        let draws: Vec<f64> = (0..n).map(|_| draw_runtime(cost, &mut r)).collect();
        let (m, bound, tol) = (mean(&draws), cost.mean_bound_s(), mean_tol(sd_of, n));
        assert!(m <= bound + tol, "{cost}: mean {m} above the bound {bound}");
        assert!(
            m >= bound - tol - 1e-6,
            "{cost}: mean {m} far below {bound}"
        );
    }
    assert!((CostDist::Constant(7.5).mean_bound_s() - 7.5).abs() < 2e-6);
}
