use sha2::{Digest, Sha256};

use super::*;
use crate::core::error::ErrorKind;
use crate::core::run::identity::hex;
use crate::models::trace::generate::{
    CITATIONS_BOUND, CostDist, YEAR_MAX, YEAR_MIN, generate_syn, run_gen_syn,
};
use crate::models::trace::{parse_trace, trace_to_csv};

fn params(users: usize, models: usize, seed: u64) -> SynParams {
    SynParams {
        users,
        models,
        seed,
        ..SynParams::default()
    }
}

/// Every cost kind, K = 1, the default seed and others.
fn cases() -> Vec<SynParams> {
    let with = |users, models, cost, seed| SynParams {
        cost,
        ..params(users, models, seed)
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
            3,
        ),
        with(29, 11, CostDist::Constant(3.5), u64::MAX),
    ]
}

#[test]
fn shape_ids_ranges_and_metadata() {
    let p = params(12, 100, 3);
    let rows = generate_syn(&p);
    assert_eq!(rows.len(), 1200);
    assert_eq!(rows[0].user, "u00");
    assert_eq!(rows[0].model, "m00");
    assert_eq!(rows[1199].user, "u11");
    assert_eq!(rows[1199].model, "m99");
    for r in &rows {
        assert!((0.0..=1.0).contains(&r.accuracy));
        assert!((1e-6..2.0).contains(&r.runtime_s));
        let y = r.model_year.unwrap_or(0);
        assert!((YEAR_MIN..=YEAR_MAX).contains(&y), "{y}");
        let c = r.model_citations.unwrap_or(0);
        assert!((1..CITATIONS_BOUND).contains(&c), "{c}");
    }
    // The rows form a valid trace (metadata constant per model, no dups).
    let trace = parse_trace("syn", trace_to_csv(&rows).as_bytes()).expect("valid trace");
    assert_eq!(
        (trace.n_users(), trace.n_models(), trace.n_pairs()),
        (12, 100, 1200)
    );
    let years = trace.model_year().expect("years");
    assert!(years.iter().any(|&y| y != years[0]), "years should vary");
}

#[test]
fn run_gen_syn_writes_a_loadable_trace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("syn.csv");
    let params = SynParams {
        users: 4,
        models: 5,
        model_sd: 0.1,
        user_sd: 0.05,
        cost: CostDist::default(),
        seed: 1,
    };
    let report = run_gen_syn(&params, &out).expect("written");
    assert_eq!(report.pairs, 20);
    assert!(
        report
            .to_string()
            .starts_with("generated syn trace: 4 users, 5 models, 20 pairs")
    );
    let trace = crate::models::trace::load_trace(&out).expect("loads");
    assert_eq!(trace.n_pairs(), 20);
    assert_eq!(trace.model_citations().map(<[i64]>::len), Some(5));
    let bad = SynParams { users: 0, ..params };
    assert_eq!(
        run_gen_syn(&bad, &out).map_err(|e| e.kind()).err(),
        Some(ErrorKind::Usage)
    );
}
#[test]
fn the_dense_trace_and_both_hashes_equal_the_rows() {
    for p in cases() {
        let rows = generate_syn(&p);
        let want_sha = hex(&Sha256::digest(trace_to_csv(&rows).as_bytes()));
        let dense = generate_syn_trace(&p, "syn");
        assert_eq!(dense.csv_sha256, want_sha, "{p:?}");
        let t = &dense.trace;
        assert_eq!((t.n_users(), t.n_models()), (p.users, p.models));
        for (j, r) in rows.iter().enumerate() {
            let (i, m) = (j / p.models, j % p.models);
            assert_eq!(t.user_id(i), r.user);
            assert_eq!(t.models()[m], r.model);
            assert_eq!(t.accuracy(i, m).to_bits(), r.accuracy.to_bits());
            assert_eq!(t.runtime_us(i, m), secs_to_micros(r.runtime_s));
        }
        // The hash from rows regenerated piece by piece, never held whole.
        let gen_rows = SynRows::new(&p);
        let lazy_sha = syn_csv_sha256(&gen_rows, |i, a, s| gen_rows.row(i, a, s));
        assert_eq!(lazy_sha, want_sha, "{p:?}");
    }
}

/// The lazy form of every case: the dense form's hash, and every cell.
#[test]
fn the_lazy_trace_has_the_dense_traces_hash_and_cells() {
    for p in cases() {
        let (dense, lazy) = (generate_syn_trace(&p, "d"), lazy_syn_trace(&p, "l"));
        assert_eq!(dense.csv_sha256, lazy.csv_sha256, "{p:?}");
        let (d, l) = (&dense.trace, &lazy.trace);
        assert!(l.is_lazy() && !d.is_lazy());
        for u in (0..p.users).rev() {
            assert_eq!(d.user_id(u), l.user_id(u));
            for m in 0..p.models {
                assert_eq!(d.accuracy(u, m).to_bits(), l.accuracy(u, m).to_bits());
                assert_eq!(d.runtime_us(u, m), l.runtime_us(u, m));
            }
        }
    }
}

/// Prefetch hints take any user of a dense or a lazy trace, out of range
/// included, and change no cell (a lazy trace produces no row for them).
#[test]
fn trace_prefetch_hints_take_any_user_and_change_nothing() {
    let p = params(37, 20, 0);
    for t in [generate_syn_trace(&p, "d"), lazy_syn_trace(&p, "l")] {
        let before: Vec<f64> = (0..p.users).map(|u| t.trace.accuracy(u, 3)).collect();
        for u in [0, 36, 37, 1 << 40, usize::MAX] {
            t.trace.prefetch_row(u);
            t.trace.prefetch_runtimes(u);
        }
        let after: Vec<f64> = (0..p.users).map(|u| t.trace.accuracy(u, 3)).collect();
        assert_eq!(before, after);
    }
}
