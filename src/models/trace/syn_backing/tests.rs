use rayon::prelude::*;

use super::*;
use crate::models::trace::{CostDist, generate_syn};

/// The trace's cells from the sequential generator's rows (what the dense
/// trace holds; syn_trace's tests check that it does).
struct Dense {
    k: usize,
    accuracy: Vec<f64>,
    runtime_us: Vec<Micros>,
}

impl Dense {
    fn accuracy(&self, u: usize, m: usize) -> f64 {
        self.accuracy[u * self.k + m]
    }
    fn runtime_us(&self, u: usize, m: usize) -> Micros {
        self.runtime_us[u * self.k + m]
    }
}

fn generate_syn_trace(p: &SynParams) -> Dense {
    let rows = generate_syn(p);
    Dense {
        k: p.models,
        accuracy: rows.iter().map(|r| r.accuracy).collect(),
        runtime_us: rows.iter().map(|r| secs_to_micros(r.runtime_s)).collect(),
    }
}

fn params(users: usize, models: usize, cost: CostDist, seed: u64) -> SynParams {
    SynParams {
        users,
        models,
        cost,
        seed,
        ..SynParams::default()
    }
}

/// Every cell of `lazy` read in `order`, compared with the dense trace.
fn check_all(p: &SynParams, lazy: &SynBacking, order: impl Iterator<Item = usize>) {
    let dense = generate_syn_trace(p);
    for u in order {
        for k in (0..p.models).rev() {
            assert_eq!(
                lazy.accuracy(u, k).to_bits(),
                dense.accuracy(u, k).to_bits(),
                "accuracy of ({u}, {k}), {p:?}"
            );
            assert_eq!(
                lazy.runtime_us(u, k),
                dense.runtime_us(u, k),
                "runtime of ({u}, {k}), {p:?}"
            );
        }
    }
}

#[test]
fn every_cell_equals_the_dense_trace_held_or_not() {
    let cases = [
        params(3_001, 20, CostDist::default(), 1),
        params(
            257,
            1,
            CostDist::LogNormal {
                mu: 0.0,
                sigma: 1.0,
            },
            0,
        ),
        params(97, 7, CostDist::Constant(2.0), 5),
    ];
    for p in &cases {
        // Prior users scattered, one repeated, the last one held.
        let held = [p.users - 1, 0, 5 % p.users, 5 % p.users, p.users / 2];
        let lazy = SynBacking::new(p, &held);
        assert!(lazy.held().windows(2).all(|w| w[0] < w[1]));
        // In order, backwards, and strided (more users than cache slots,
        // so rows are evicted and regenerated).
        check_all(p, &lazy, 0..p.users);
        check_all(p, &lazy, (0..p.users).rev());
        check_all(p, &lazy, (0..p.users).map(|i| (i * 7_919) % p.users));
    }
}

#[test]
fn two_backings_share_a_threads_cache_without_mixing_rows() {
    let a = params(500, 20, CostDist::default(), 1);
    let b = params(500, 20, CostDist::default(), 2);
    let (la, lb) = (SynBacking::new(&a, &[]), SynBacking::new(&b, &[]));
    let (da, db) = (generate_syn_trace(&a), generate_syn_trace(&b));
    // Another K in between resizes the cache; reads stay right.
    let c = params(50, 3, CostDist::default(), 3);
    let lc = SynBacking::new(&c, &[]);
    let dc = generate_syn_trace(&c);
    for u in 0..500 {
        for k in 0..20 {
            assert_eq!(la.runtime_us(u, k), da.runtime_us(u, k));
            assert_eq!(lb.runtime_us(u, k), db.runtime_us(u, k));
            assert_eq!(la.accuracy(u, k), da.accuracy(u, k));
        }
        assert_eq!(lc.accuracy(u % 50, 2), dc.accuracy(u % 50, 2));
    }
}

#[test]
fn reads_from_many_threads_equal_the_dense_trace() {
    let p = params(2_000, 20, CostDist::default(), 9);
    let lazy = SynBacking::new(&p, &[10, 20]);
    let dense = generate_syn_trace(&p);
    let wrong = (0..p.users)
        .into_par_iter()
        .filter(|&u| {
            (0..20).any(|k| {
                lazy.runtime_us(u, k) != dense.runtime_us(u, k)
                    || lazy.accuracy(u, k) != dense.accuracy(u, k)
            })
        })
        .count();
    assert_eq!(wrong, 0);
}

#[test]
fn the_cache_is_bounded() {
    assert_eq!(cache_slots(20), 32_768); // 8 MiB / 320 bytes a row = 26,214, rounded up
    assert_eq!(cache_slots(1), MAX_SLOTS);
    assert_eq!(cache_slots(1_000_000), 1);
}

/// A read from inside `with_row`'s closure (the thread's cache borrowed)
/// gives the right row instead of a `RefCell` panic.
#[test]
fn a_read_inside_a_row_read_gives_the_right_row() {
    let p = params(300, 20, CostDist::default(), 4);
    let lazy = SynBacking::new(&p, &[7]);
    let dense = generate_syn_trace(&p);
    for u in [0, 7, 100, 299] {
        lazy.with_row(u, |acc, rt| {
            for v in [1, 7, u] {
                assert_eq!(lazy.runtime_us(v, 3), dense.runtime_us(v, 3));
                lazy.with_row(v, |a, r| {
                    assert_eq!(a[5], dense.accuracy(v, 5));
                    assert_eq!(r[19], dense.runtime_us(v, 19));
                });
            }
            assert_eq!(acc[0], dense.accuracy(u, 0));
            assert_eq!(rt[19], dense.runtime_us(u, 19));
        });
    }
}
