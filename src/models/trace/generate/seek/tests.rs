use super::*;
use crate::models::trace::generate::generate_syn;

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
