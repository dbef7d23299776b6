//! A `[trace.syn]` table as a [`Trace`]: its cells drawn into dense
//! matrices, or held lazily (each user's row produced from (seed, user)
//! when read), with the SHA-256 of its canonical CSV text either way
//! (DESIGN §1.2 "Per-user rows"). The draws themselves are
//! [`generate`](super::generate)'s.

use ndarray::Array2;
use rayon::prelude::*;

use super::generate::{SynParams, SynRows, padded_id, syn_csv_sha256};
use super::{Micros, SynBacking, Trace, TraceDigest, secs_to_micros};

/// A synthetic trace generated straight into its dense form, with the
/// SHA-256 (hex) of its canonical CSV text.
#[derive(Debug, Clone)]
pub struct SynTrace {
    /// The trace: the same as validating the rows of [`generate_syn`](super::generate_syn) with
    /// a [`TraceBuilder`](super::TraceBuilder) whose source is `source`.
    pub trace: Trace,
    /// SHA-256 of [`trace_to_csv`](super::trace_to_csv) of those rows:
    /// computed with the dense trace, deferred with the lazy one
    /// ([`lazy_syn_trace`]).
    pub csv_sha256: TraceDigest,
}

/// [`generate_syn`](super::generate_syn) without the rows: the draws go straight into the dense
/// matrices, users in parallel pieces, each piece's stream sought to its
/// first user ([`SynRows`]); then the canonical CSV text is formatted in
/// pieces of about 64 KiB, in parallel (rayon), and hashed piece by piece
/// in order, never held whole ([`syn_csv_sha256`]). For 2 million pairs
/// this takes a fraction of the time and memory of building rows (two
/// `String`s each), their CSV text and a validating
/// [`TraceBuilder`](super::TraceBuilder), and gives the same trace and
/// hash. `p` must pass [`SynParams::validate`].
pub fn generate_syn_trace(p: &SynParams, source: impl Into<String>) -> SynTrace {
    let gen_rows = SynRows::new(p);
    let (n, k) = (p.users, p.models);
    let model_ids: Vec<String> = (0..k).map(|m| padded_id("m", m, k)).collect();
    let mut accuracy = vec![0.0f64; n * k];
    let mut runtime_s = vec![0.0f64; n * k];
    // Pieces of whole users, each filled by seeking the stream to its
    // first user; the cells are those of the sequential pass (seek.rs,
    // DESIGN §1.2 "Per-user rows").
    let per_piece = (FILL_CHUNK / k.max(1)).max(1) * k;
    accuracy
        .par_chunks_mut(per_piece)
        .zip(runtime_s.par_chunks_mut(per_piece))
        .enumerate()
        .for_each(|(c, (acc, secs))| {
            let first = c * (per_piece / k);
            for (j, (a, s)) in acc.chunks_mut(k).zip(secs.chunks_mut(k)).enumerate() {
                gen_rows.row(first + j, a, s);
            }
        });
    let csv_sha256 = syn_csv_sha256(&gen_rows, |i, a, s| {
        a.copy_from_slice(&accuracy[i * k..(i + 1) * k]);
        s.copy_from_slice(&runtime_s[i * k..(i + 1) * k]);
    });
    let runtime_us: Vec<Micros> = runtime_s.iter().map(|&s| secs_to_micros(s)).collect();
    drop(runtime_s);
    let shape_error = "generate_syn_trace: users x models cells";
    let trace = Trace::complete(
        source.into(),
        model_ids,
        Array2::from_shape_vec((n, k), accuracy).expect(shape_error),
        Array2::from_shape_vec((n, k), runtime_us).expect(shape_error),
        Some(gen_rows.model_years()),
        Some(gen_rows.model_citations()),
    );
    SynTrace {
        trace,
        csv_sha256: TraceDigest::known(csv_sha256),
    }
}

/// [`generate_syn_trace`]'s trace in its lazy form ([`Trace::is_lazy`],
/// DESIGN §1.2 "Per-user rows"): no cells held, each user's row produced
/// from (seed, user) when read ([`SynBacking`], no user
/// held), and the same SHA-256, its rows regenerated piece by piece when
/// it is first read ([`TraceDigest::deferred`]: `tenantsim validate` never
/// reads it). Every read gives what the dense trace holds (tests compare
/// every cell and whole runs).
pub fn lazy_syn_trace(p: &SynParams, source: impl Into<String>) -> SynTrace {
    let backing = SynBacking::new(p, &[]);
    let gen_rows = backing.rows();
    let params = p.clone();
    let csv_sha256 = TraceDigest::deferred(move || {
        let gen_rows = SynRows::new(&params);
        syn_csv_sha256(&gen_rows, |i, a, s| gen_rows.row(i, a, s))
    });
    let model_ids: Vec<String> = (0..p.models).map(|m| padded_id("m", m, p.models)).collect();
    let (years, citations) = (gen_rows.model_years(), gen_rows.model_citations());
    let trace = Trace::lazy(
        source.into(),
        model_ids,
        backing,
        Some(years),
        Some(citations),
    );
    SynTrace { trace, csv_sha256 }
}

/// Cells per piece of [`generate_syn_trace`]'s parallel fill (whole users).
const FILL_CHUNK: usize = 16 * 1024;

#[cfg(test)]
mod tests;
