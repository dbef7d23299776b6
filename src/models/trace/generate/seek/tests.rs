use super::*;
use crate::models::trace::generate::{generate_syn, generate_syn_trace, syn_csv_sha256};
use crate::models::trace::trace_to_csv;
use sha2::{Digest, Sha256};

/// Parameter sets covering every cost kind, K = 1, user counts that are a
/// multiple of nothing in particular, the default seed and others.
fn cases() -> Vec<SynParams> {
    let base = SynParams::default();
    let with = |users, models, cost, seed| SynParams {
        users,
        models,
        cost,
        seed,
        ..base.clone()
    };
    vec![
        with(37, 20, CostDist::default(), 0),
        with(101, 1, CostDist::default(), 7),
        with(
            53,
            7,
            CostDist::LogNormal {
                mu: 0.5,
                sigma: 1.5,
            },
            0,
        ),
        with(
            1,
            13,
            CostDist::LogNormal {
                mu: 0.0,
                sigma: 0.0,
            },
            123_456_789,
        ),
        with(29, 11, CostDist::Constant(3.5), 99),
        with(61, 1, CostDist::Constant(1e-7), 3),
        with(17, 9, CostDist::Uniform { lo: 0.0, hi: 1e-6 }, u64::MAX),
        with(1_009, 3, CostDist::Uniform { lo: 2.5, hi: 2.5 }, 0),
        SynParams {
            model_sd: 0.4,
            user_sd: 0.3,
            ..with(43, 5, CostDist::default(), 11)
        },
    ]
}

#[test]
fn every_users_row_alone_equals_the_sequential_pass() {
    for p in cases() {
        p.validate().expect("valid case");
        let rows = generate_syn(&p);
        let gen_rows = SynRows::new(&p);
        let k = p.models;
        let (mut acc, mut secs) = (vec![f64::NAN; k], vec![f64::NAN; k]);
        // Every user, and in an order other than the stream's (last first).
        for i in (0..p.users).rev() {
            gen_rows.row(i, &mut acc, &mut secs);
            for m in 0..k {
                let r = &rows[i * k + m];
                assert_eq!(
                    acc[m].to_bits(),
                    r.accuracy.to_bits(),
                    "accuracy of user {i}, model {m}, {p:?}"
                );
                assert_eq!(
                    secs[m].to_bits(),
                    r.runtime_s.to_bits(),
                    "runtime of user {i}, model {m}, {p:?}"
                );
                assert_eq!(Some(gen_rows.model_years()[m]), r.model_year);
                assert_eq!(Some(gen_rows.model_citations()[m]), r.model_citations);
            }
        }
    }
}

#[test]
fn the_dense_trace_and_both_hashes_equal_the_rows() {
    for p in cases() {
        let rows = generate_syn(&p);
        let want_sha =
            crate::models::trace::generate::hex(&Sha256::digest(trace_to_csv(&rows).as_bytes()));
        let dense = generate_syn_trace(&p, "syn");
        assert_eq!(dense.csv_sha256, want_sha, "{p:?}");
        let t = &dense.trace;
        assert_eq!((t.n_users(), t.n_models()), (p.users, p.models));
        for (j, r) in rows.iter().enumerate() {
            let (i, m) = (j / p.models, j % p.models);
            assert_eq!(t.users()[i], r.user);
            assert_eq!(t.models()[m], r.model);
            assert_eq!(t.accuracy(i, m).to_bits(), r.accuracy.to_bits());
            assert_eq!(
                t.runtime_us(i, m),
                crate::models::trace::secs_to_micros(r.runtime_s)
            );
        }
        // The hash from rows regenerated piece by piece, never held whole.
        let gen_rows = SynRows::new(&p);
        let lazy_sha = syn_csv_sha256(&gen_rows, |i, a, s| gen_rows.row(i, a, s));
        assert_eq!(lazy_sha, want_sha, "{p:?}");
    }
}

#[test]
fn user_start_draw_counts_every_draw_before_the_user() {
    let p = SynParams {
        users: 10,
        models: 20,
        cost: CostDist::LogNormal {
            mu: 0.0,
            sigma: 1.0,
        },
        ..SynParams::default()
    };
    let g = SynRows::new(&p);
    // 4 draws a model, then 2 + 2 a pair.
    assert_eq!(g.user_start_draw(0), 80);
    assert_eq!(g.user_start_draw(3), 80 + 3 * 20 * 4);
    assert_eq!(cost_draws(CostDist::default()), 1);
    assert_eq!(cost_draws(CostDist::Constant(1.0)), 0);
    // The largest trace indexable: no overflow in the word position.
    let big = SynRows::new(&SynParams {
        users: crate::models::trace::generate::MAX_INDEX,
        models: 3,
        ..SynParams::default()
    });
    let last = big.user_start_draw(crate::models::trace::generate::MAX_INDEX - 1);
    assert_eq!(last, 12 + (u32::MAX as u128 - 1) * 3 * 3);
}
