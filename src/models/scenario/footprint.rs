//! The memory a model-selection scenario will hold (DESIGN §8.5;
//! docs/REFERENCE.md, "Limits"), estimated from its keys before its trace
//! is read or generated, so that `validate`, `run` and every sweep point
//! refuse a scenario too large for the machine with its estimate instead
//! of aborting an allocation. [`crate::core::memory`] holds the machine's
//! side and the message.
//!
//! The estimate is an upper bound built from the layouts of the data
//! structures (their bytes per cell, per row, per tenant and per job,
//! named next to each term below), with these simplifications, each on the
//! side of more:
//! - every user of the trace counts as a tenant (prior users are fewer);
//! - every tenant runs every available model at every level (patience,
//!   budgets and thresholds only end tenants sooner);
//! - a `Vec` that grows by doubling counts twice its final length;
//! - the scratch of loading the trace and the runs are counted as if they
//!   were held at once (the scratch is freed before the first run).
//!
//! tests/it/memory_estimate.rs measures the peak RSS of runs of growing
//! size and checks the estimate is above what they grow by and within the
//! factor [`ESTIMATE_FACTOR`] of it.

use std::collections::HashSet;
use std::path::Path;

use super::{ScenarioFile, TraceSection};
use crate::core::analysis::rank_select::COLLECT_AT_MOST;
use crate::core::error::Result;
use crate::core::io::hashed_input::READ_BUFFER;
use crate::core::io::sorted_runs::MERGE_READ;
use crate::core::io::spill::WRITE_BUFFER;
use crate::core::memory::{
    AREAS_IN_MEMORY, AREAS_RUN, CURVE_IN_MEMORY, Estimate, Held, MemoryBudget, PARKED_RUN,
    PLACES_RUN, PROGRAM_ITEM, ROWS_IN_MEMORY, SEALED_IN_MEMORY, SEGMENTS_IN_MEMORY,
    SERVICE_SEGMENTS_RUN, SHARES_IN_MEMORY,
};
use crate::core::resources::human_bytes;
use crate::core::sim::slot_index::DENSE_UP_TO;
use crate::models::policy::registry::ModelRegistry;
use crate::models::trace::{CostDist, cache_slots};

/// How far above the measured growth of peak RSS the estimate may be on
/// the scenarios tests/it/memory_estimate.rs runs (it is never below).
pub const ESTIMATE_FACTOR: f64 = 2.0;

pub use crate::core::memory::PROGRAM_BYTES;

/// The size of a trace as the estimate needs it, known before it is read
/// or generated whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceShape {
    /// Distinct users.
    pub users: u64,
    /// Distinct models.
    pub models: u64,
    /// Rows: (user, model) pairs given, or (user, model, fidelity) levels
    /// of a curve trace.
    pub rows: u64,
    /// Whether it is a curve trace (a `fidelity` column, or `[trace.syn]
    /// fidelities` > 1).
    pub curve: bool,
    /// Per-type runtime columns `runtime_s.<type>`.
    pub typed: u64,
    /// Bytes of the file (0 for a generated trace). It is read as a
    /// stream, not held (core/io/hashed_input.rs), so the estimate counts
    /// a read buffer, not these bytes.
    pub file_bytes: u64,
    /// Whether it is generated in memory by `[trace.syn]`.
    pub generated: bool,
    /// Whether its rows are produced when read (`[trace.syn] rows`,
    /// DESIGN §1.2 "Per-user rows"): no cells or ids held.
    pub lazy: bool,
}

impl TraceShape {
    /// Users × models cells, and the (user, model) pairs given: every cell
    /// of a curve trace, else its rows (at most the cells).
    fn cells_and_pairs(&self) -> (u64, u64) {
        let cells = mul(&[self.users, self.models]);
        let pairs = if self.curve {
            cells
        } else {
            self.rows.min(cells)
        };
        (cells, pairs)
    }
}

/// What the estimate knows of a `[trace]` table without loading it:
/// `[trace.syn]` from its keys; a trace file from one streaming pass
/// that counts its rows and distinct users and models (holding only the
/// ids, never the rows); an import from its input files' bytes. `None`
/// when the table cannot be read this way: the loader then reports why.
pub fn trace_shape(base: &Path, section: &TraceSection) -> Option<TraceShape> {
    if let Some(syn) = &section.syn {
        let users = syn.users as u64;
        let models = syn.models as u64;
        let levels = syn.fidelities.unwrap_or(1).max(1) as u64;
        return Some(TraceShape {
            users,
            models,
            rows: users.saturating_mul(models).saturating_mul(levels),
            curve: levels > 1,
            generated: true,
            lazy: syn.is_lazy(),
            ..TraceShape::default()
        });
    }
    if let Some(path) = &section.path {
        return scan_trace_file(&base.join(path));
    }
    let imp = section.import.as_ref()?;
    // An import is converted from published tables of known, modest size
    // (LCDB, Fernández-Delgado, ease.ml, ASlib): the estimate counts its
    // inputs' bytes as rows of 16 bytes each, a bound on the rows (no row
    // of any input format is shorter) and so on the dense cells of a
    // complete table.
    let bytes: u64 = imp
        .inputs
        .iter()
        .chain(&imp.runtime_matrix)
        .filter_map(|p| std::fs::metadata(base.join(p)).ok())
        .map(|m| m.len())
        .fold(0u64, u64::saturating_add);
    let rows = bytes / 16;
    Some(TraceShape {
        users: rows.isqrt(),
        models: rows.isqrt(),
        rows,
        file_bytes: bytes,
        ..TraceShape::default()
    })
}

/// The trace's items of an estimate: what the trace of `shape` holds
/// (`cells` = users × models, `pairs` available) and the scratch of
/// loading it.
fn trace_items(e: &mut Estimate, shape: &TraceShape, cells: u64, pairs: u64) {
    let (u, k) = (shape.users, shape.models);
    // --- The trace, held once and shared by every repetition. ---
    // `Trace` (models/trace/model_trace.rs): dense users × models
    // matrices `accuracy` (f64, 8 bytes), `runtime_us` (u64, 8) and
    // `available` (bool, 1) = 17 bytes a cell, 8 more a cell per
    // `runtime_s.<type>` column; `models_of_user` holds one usize (8) per
    // available pair.
    // A lazy trace (models/trace/cells.rs, syn_backing.rs) holds none of
    // this: its generator's per-model draws and a per-thread cache of rows
    // (10 MiB at K = 20, counted below with the runs).
    if !shape.lazy {
        e.add_held(
            format!(
                "trace matrices ({} users × {} models, 17 bytes a cell)",
                grouped(u),
                grouped(k)
            ),
            mul(&[cells, 17 + 8 * shape.typed]).saturating_add(mul(&[pairs, 8])),
            Held::Shared,
        );
        // Ids: a `String` (24 bytes) and its heap block (at least 16 with
        // the allocator's header) per user and model, and a
        // `models_of_user` Vec header (24) per user, rounded up to 80 bytes
        // a user.
        e.add_held("trace ids", mul(&[u.saturating_add(k), 80]), Held::Shared);
    }
    if shape.curve {
        // `Curves` (models/trace/curves.rs): fidelity, accuracy and
        // runtime (8 bytes each) per level, an offset (u32) per pair.
        e.add_held(
            "curve levels (24 bytes a level)",
            mul(&[shape.rows, 24]).saturating_add(mul(&[pairs, 4])),
            Held::Shared,
        );
    }

    // --- Scratch while the trace is loaded (freed before the runs). ---
    if shape.lazy {
        // `lazy_syn_trace` hashes the canonical CSV from regenerated rows,
        // 64 KiB pieces, a few per thread at once.
        e.add("trace hashing scratch", 64 << 20);
    } else if shape.generated && !shape.curve {
        // `generate_syn_trace` draws seconds into an f64 matrix (8 bytes
        // a cell) before rounding them into `runtime_us`.
        e.add("trace generation scratch", mul(&[cells, 8]));
    } else {
        // A file is read as a stream, 64 KiB at a time, and hashed as it
        // passes (core/io/hashed_input.rs; before 2026-12-07 it was read
        // whole first, its bytes counted here); a generated curve trace is
        // written as rows and CSV text first. Then the validating `TraceBuilder`
        // (models/trace/build.rs) holds per row its cell or level (32–40
        // bytes, in a Vec that may be twice as long) and per pair a hash
        // entry with the row's place (about 120 bytes with the table's
        // spare room), and a generated row (`TraceRow`, 88 bytes, two ids)
        // and its CSV text take about 200: 400 bytes a row in all.
        let per_row = if shape.generated { 400 } else { 200 };
        e.add(
            "trace loading scratch",
            mul(&[shape.rows, per_row]).saturating_add(if shape.generated {
                0
            } else {
                READ_BUFFER as u64
            }),
        );
    }
}

/// The estimate of loading the trace file at `path` alone (`tenantsim
/// validate TRACE.csv`): the program, the trace as held and the scratch
/// of loading it, from one streaming pass over the file; `None` when it
/// cannot be scanned (the loader then says why).
pub fn trace_file_estimate(path: &Path) -> Option<Estimate> {
    let shape = scan_trace_file(path)?;
    let (cells, pairs) = shape.cells_and_pairs();
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    trace_items(&mut e, &shape, cells, pairs);
    Some(e)
}

/// Check the memory of reading the model trace at `path` alone against
/// `budget` before it is read ([`crate::core::memory::check_trace_file`]
/// with [`trace_file_estimate`]): `tenantsim validate TRACE.csv`, `gen
/// workflows --model-trace`, the Python package's `load_trace`.
pub fn check_trace_file(path: &Path, budget: &MemoryBudget) -> Result<Option<Estimate>> {
    crate::core::memory::check_trace_file(path, "trace", budget, trace_file_estimate)
}

/// One pass over a trace CSV: rows, distinct users and models, a
/// `fidelity` column, `runtime_s.<type>` columns. Holds the distinct ids
/// only (never more than the file's bytes, far less for a real trace);
/// `None` when it is not a regular file or cannot be read as a CSV with
/// `user` and `model` columns (the loader then says what is wrong).
fn scan_trace_file(path: &Path) -> Option<TraceShape> {
    // Only a regular file is scanned (`/dev/zero` would never end; opening
    // a FIFO would block until a writer comes): `open_input` refuses
    // anything else without blocking, and the loader then says what is
    // wrong with it.
    let file = crate::core::io::open_input(path, "trace").ok()?;
    let meta = file.metadata().ok()?;
    let file_bytes = meta.len();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    let headers = reader.headers().ok()?.clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (u, m) = (col("user")?, col("model")?);
    let typed = headers
        .iter()
        .filter(|h| h.trim().starts_with("runtime_s."))
        .count() as u64;
    let mut users: HashSet<Box<[u8]>> = HashSet::new();
    let mut models: HashSet<Box<[u8]>> = HashSet::new();
    let mut rows = 0u64;
    let mut record = csv::ByteRecord::new();
    while reader.read_byte_record(&mut record).ok()? {
        rows += 1;
        for (i, set) in [(u, &mut users), (m, &mut models)] {
            let id = record.get(i).unwrap_or(b"");
            if !set.contains(id) {
                set.insert(id.into());
            }
        }
    }
    Some(TraceShape {
        users: users.len() as u64,
        models: models.len() as u64,
        rows,
        curve: col("fidelity").is_some(),
        typed,
        file_bytes,
        generated: false,
        lazy: false,
    })
}

/// `a × b × c`, saturating.
fn mul(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |p, &f| p.saturating_mul(f))
}

/// The estimate of a model scenario `file` whose trace has `shape`, run
/// as `budget` says (threads, job logs). `registry` says which selectors
/// keep a GP. Each term documents where its bytes come from.
pub fn estimate(
    file: &ScenarioFile,
    shape: &TraceShape,
    budget: &MemoryBudget,
    registry: &ModelRegistry,
) -> Estimate {
    estimate_in(file, shape, budget, registry, false)
}

/// [`estimate`] of a model scenario that is the service of a shared
/// scenario when `service` (DESIGN §13.4): the shared engine keeps more
/// per service job.
pub fn estimate_in(
    file: &ScenarioFile,
    shape: &TraceShape,
    budget: &MemoryBudget,
    registry: &ModelRegistry,
    service: bool,
) -> Estimate {
    let mut e = Estimate::default();
    let (u, k) = (shape.users, shape.models);
    let (cells, pairs) = shape.cells_and_pairs();
    // Levels of a pair, on average (1 on a plain trace).
    let levels = if shape.curve && pairs > 0 {
        shape.rows.div_ceil(pairs)
    } else {
        1
    };

    // --- tenantsim itself: its code and libraries, thread stacks and the
    // allocator's arenas; measured: a run of 600 tenants peaks at 27 MB
    // in a debug build (tests/it/memory_estimate.rs).
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);

    trace_items(&mut e, shape, cells, pairs);

    // --- Each repetition running at once (× threads). ---
    let tenants = file
        .split
        .tenant_count
        .map(|n| n as u64)
        .or(file.split.tenants.as_ref().map(|t| t.len() as u64))
        .unwrap_or(u)
        .min(u);
    let tasks = u64::from(file.repetitions).saturating_mul(file.policies.len().max(1) as u64);
    let at_once = budget.concurrent(tasks);
    let gp = file
        .policies
        .iter()
        .any(|p| registry.selector(&p.selector).is_some_and(|s| s.gp_prior));
    let thresholds = file.thresholds.len() as u64;
    // The tenants present at once: arrived and not yet done (DESIGN §2.6
    // "Done tenants"; a GP posterior is held within that time, §3.3
    // "Lifetime"). Every tenant, except where the run reads as a stable
    // queue ([`posteriors_at_once`]); for the service of a shared
    // scenario, which shares its GPUs with background and workflow jobs
    // (its load is not known from its own keys), every tenant.
    let present = if service {
        tenants
    } else {
        posteriors_at_once(file, tenants)
    };
    // Every tenant of the run, present or not, from the run's start to its
    // end (DESIGN §8.5 "What a tenant holds"; docs/PERFORMANCE.md
    // "Internet scale", "Where the memory goes"), each term only where
    // the run holds it:
    // - its arrival time, two copies (16: the engine, its queue and its
    //   tenants share the runner's, but the start-up holds the sampled
    //   times and that shared list at once) and the queue's order of them
    //   (4); with the arrivals drawn as the run goes (`order =
    //   "streamed"`, DESIGN §2.8: `models/sim/arrival_times.rs`) neither,
    //   only the draw's bit and its counts (about 0.13 bytes), counted as 1;
    // - its trace user (models/scenario/split.rs): a list of 8 bytes a
    //   tenant, shared by the engine, the GP selector and the result, where
    //   the tenants are listed or sampled (`tenants`, `tenant_count`); none
    //   where they are every user but the prior ones
    //   (`TenantUsers::all_but`); and while a sampled split is drawn, its
    //   shuffled pool of every user (4 bytes a user, a `u32`);
    // - its count of available models (`Tenants::available`, 4), unless
    //   every tenant has every model (every pair of the trace given);
    // - one bit in each of six tables (the fold's arrived, waiting and
    //   parked bits, the engine's parked bit, the greedy scheduler's dirty
    //   bit, the draw's undrawn bit): counted as 1;
    // - its end reason and budget flag (2), read when the run ends, on disk
    //   in sorted runs above 65,536 tenants (`models/sim/end_states.rs`,
    //   below);
    // - for the service of a shared scenario, its leave time (an
    //   `Option<Micros>`, 16; shared/sim/service.rs). Model mode holds a
    //   leave time only in the result, for a tenant that left
    //   (`models/sim/left_at.rs`), counted with the results below.
    // (76 bytes a tenant were counted before 2026-12-07, 57 with streamed
    // arrivals, whatever the split, the trace and the arrivals: three
    // copies of the trace user, the count of available models, the place
    // among the arrivals waiting for the job curve (now counted for the
    // tenants present, below) and the leave time a second time (it is
    // counted with the results); scale-year, 10^7 tenants, was estimated
    // at 1.1 GiB against a measured peak of 85 MB.)
    // On a curve trace, the levels started and done per model (two
    // `u16`): 4 per model. A selector without a GP keeps a score or
    // proposal slot per model (16 bytes) and 64 of headers for every
    // tenant.
    let streamed = file.arrivals.is_streamed();
    let split = &file.split;
    let listed = split.tenants.is_some() || split.tenant_count.is_some();
    let sampled = split.prior_count.is_some()
        || split.prior_fraction.is_some()
        || split.tenant_count.is_some();
    let mut every: u64 = if streamed { 1 } else { 20 };
    if listed {
        every += 8;
    }
    if sampled {
        every += 4;
    }
    if shape.curve || pairs < cells {
        every += 4;
    }
    every += 1 + 2;
    if service {
        every += 16;
    }
    if shape.curve {
        every = every.saturating_add(mul(&[k, 4]));
    }
    if !gp {
        every = every.saturating_add(mul(&[k, 16]).saturating_add(64));
    }
    // A tenant present, in tables whose slots number the most tenants
    // present at once (reused as tenants are done): the engine's state
    // (`TenantState`, 48 bytes) and a flag byte per model
    // (models/sim/tenants.rs); the greedy score heap's slot (16); a GP
    // selector's slot (its cached proposal and the posterior's header:
    // 136; DESIGN §3.3 "Lifetime": a tenant that leaves keeps it, as
    // [`posteriors_at_once`] assumes); the metrics folded online
    // (models/metrics/tenant_fold.rs, curve_builder.rs; DESIGN §8.5):
    // the running figures with the arrival and A*_i (104), the two curve
    // builders' best accuracy, A*_i and arrived flag (2 × 24) and the
    // times to the thresholds (16 each); its place among the arrivals
    // waiting for the job curve (models/metrics/run_fold.rs `waiting`, 4,
    // in a Vec that may be twice as long: 8), which holds the tenants
    // arrived since the last completion (every tenant where all arrive
    // at once, and then every tenant is present).
    let mut per_present = (48 + 16 + 104 + 48 + 8u64)
        .saturating_add(k)
        .saturating_add(mul(&[thresholds, 16]));
    if gp {
        per_present = per_present.saturating_add(136);
    }
    if streamed {
        per_present = per_present.saturating_add(8);
    }
    // The slot numbers of four active tables (the engine's tenants', the
    // score heap's, the GP selector's, the fold's, whose curves key their
    // state by its slot; core/sim/slot_index.rs): 4 bytes a tenant for a
    // run of up to 65,536 tenants, or where the tenants holding a slot at
    // once could fill an eighth of them (the index becomes the dense
    // array at a quarter); else a hash table of at most 32 bytes a holder
    // (8 a bucket, at least a quarter full), each holder a tenant present.
    if tenants <= DENSE_UP_TO as u64 || present.saturating_mul(8) >= tenants {
        every += 4 * 4;
    } else {
        per_present = per_present.saturating_add(4 * 32);
    }
    // Where each done tenant's record is among the parked ones
    // (models/sim/parked_places.rs): 4 bytes a tenant up to 65,536
    // tenants; above, (tenant, place) pairs sorted in runs written to
    // disk: the open run (`PLACES_RUN` pairs of 8 bytes, as much again
    // for their order while it is sorted) and a write buffer.
    let places = if tenants <= DENSE_UP_TO as u64 {
        every += 4;
        0
    } else {
        2 * 8 * PLACES_RUN as u64 + WRITE_BUFFER as u64
    };
    // Each tenant's end state, read when the run ends
    // (models/sim/end_states.rs): the byte of its end reason and the byte
    // of its budget flag counted above up to 65,536 tenants; above, one
    // (tenant, state) record, sorted in runs written to disk: the open run
    // (`PLACES_RUN` records in 8-byte slots, as much again for their order
    // while it is sorted) and a write buffer, then while the rows read
    // them in tenant order an 8 KiB buffer a run (`MERGE_READ`).
    let end_states = if tenants <= DENSE_UP_TO as u64 {
        0
    } else {
        every -= 2;
        (2 * 8 * PLACES_RUN as u64 + WRITE_BUFFER as u64).saturating_add(mul(&[
            tenants.div_ceil(PLACES_RUN as u64),
            MERGE_READ as u64,
        ]))
    };
    // Each leave time (models/sim/left_at.rs), where a patience lets
    // tenants leave (every tenant may, so each is counted): a (tenant,
    // time) pair of 16 bytes a leaver in memory up to `PLACES_RUN` of them
    // (counted with the results below); past that, records sorted in runs
    // written to disk: while they are set the pairs moved into them, the
    // open run (`PLACES_RUN` records of 16 bytes, 8 more each for their
    // order while it is sorted) and a write buffer, and while the rows
    // read them in tenant order an 8 KiB buffer a run (`MERGE_READ`);
    // and, when the run ends, its pairs copied once (each tenant's last).
    // A service's are a vector of every tenant's (above), kept as pairs.
    let patience = file.limits.patience_s.is_some();
    let places_run = PLACES_RUN as u64;
    let leave_times = if patience && !service {
        mul(&[tenants.min(places_run), 16]).saturating_add(if tenants > places_run {
            mul(&[places_run, 16 + 24])
                .saturating_add(WRITE_BUFFER as u64)
                .saturating_add(mul(&[tenants.div_ceil(places_run), MERGE_READ as u64]))
        } else {
            0
        })
    } else {
        0
    };
    // A done tenant is parked (DESIGN §2.6 "Done tenants"): the engine's
    // index and state (49 bytes) and flags (2 bits a model, in 8-byte
    // words), the fold's figures (97) and times (9 per threshold), in four
    // sequences each kept in memory up to 4 MiB (`PARKED_IN_MEMORY`), on
    // disk past it; and the fold's open run of at most 32,768 done
    // tenants (`PARKED_RUN`: 112 bytes of figures and 16 a threshold in
    // memory until the run is sorted and written) and, when the rows are
    // made, an 8 KiB buffer for each of a run's two streams
    // (`core/io/sorted_runs.rs`).
    let per_parked = (49 + 97u64)
        .saturating_add(mul(&[k.div_ceil(32), 8]))
        .saturating_add(mul(&[thresholds, 9]));
    let run = PARKED_RUN as u64;
    let parked = mul(&[tenants, per_parked])
        .min(4 * (4 << 20))
        .saturating_add(mul(&[
            tenants.min(run),
            112u64.saturating_add(mul(&[thresholds, 16])),
        ]))
        .saturating_add(mul(&[tenants.div_ceil(run), 2 * MERGE_READ as u64]))
        .saturating_add(places)
        .saturating_add(end_states)
        .saturating_add(leave_times);
    let jobs = mul(&[tenants, k]).min(pairs).saturating_mul(levels);
    let mut per_rep = mul(&[tenants, every])
        .saturating_add(mul(&[present, per_present]))
        .saturating_add(parked);
    let posterior = mul(&[k, 8])
        .saturating_add(mul(&[k, k.saturating_add(1), 4]))
        .saturating_add(32);
    if gp {
        // The GP prior (models/gp/prior.rs): mean and covariance over
        // every model (8 + 8k per model), and its factor: 16 k² bytes.
        // The posterior's numbers (`TenantPosterior`,
        // models/gp/posterior.rs: the mean, 8 bytes per model, and the
        // packed upper triangle of the covariance, K(K+1)/2 f64s, 32
        // bytes of heap header) for the tenants present.
        per_rep = per_rep.saturating_add(mul(&[k, k, 16]));
        per_rep = per_rep.saturating_add(mul(&[present, posterior]));
    }
    e.add(
        format!(
            "{} tenants' simulation state ({} bytes a tenant, {} more for each of the {} \
             present at once, {} for the done ones{}) × {at_once} {} at once",
            grouped(tenants),
            grouped(every),
            grouped(per_present),
            grouped(present),
            human_bytes(parked),
            if gp {
                format!(
                    "; GP posteriors of {} bytes for {} of them at once",
                    grouped(posterior),
                    grouped(present)
                )
            } else {
                String::new()
            },
            if at_once == 1 {
                "repetition"
            } else {
                "repetitions"
            }
        ),
        mul(&[per_rep, at_once]),
    );
    if shape.lazy {
        // Each thread reading the lazy trace keeps a cache of rows
        // (models/trace/syn_backing.rs, `cache_slots` rows of 16 bytes a
        // model and two 32-byte headers): the runs' and their folds'.
        let per_thread = mul(&[cache_slots(k as usize) as u64, 16 * k + 64]);
        e.add(
            format!(
                "lazy trace row caches ({} a thread)",
                human_bytes(per_thread)
            ),
            mul(&[per_thread, at_once, 2]),
        );
    }
    // The job log (`RunOutcome::jobs`, models/sim/outcome.rs). The
    // shared engine's service keeps its log while the run goes: a `JobRecord` (40 bytes since issue 34; 48
    // counted, an upper bound tests/it/memory_estimate.rs checks), its
    // place in `completion_order` (4) and its links to its tenant's
    // previous and next running job (4 + 4) per job, at most one job per
    // tenant, available model and level, in Vecs that may be twice as
    // long: 120 bytes a job; with `--jobs` its result holds that log,
    // moved (`Sealed::from_vec`), counted with the results until folded
    // below. Model mode's engine holds only the running
    // jobs (one per GPU at most: nothing here) and, with `--jobs`, writes
    // its log as jobs end (models/sim/job_log.rs, since 2026-12-07): a
    // window from the oldest job still running to the newest started (48
    // bytes a job; at most the whole log, counted as 128 jobs a GPU:
    // measured at most 94 a GPU on online-lcdb-high-load's heavy-tailed
    // LCDB runtimes, 4.5 at scale-1m); the log itself (a record, 39
    // bytes, and a completion, 4) is what its result holds, counted with
    // the results until folded below.
    let gpus = file
        .cluster
        .gpus
        .unwrap_or(0)
        .saturating_add(file.cluster.nodes.as_ref().map_or(0, |groups| {
            groups
                .iter()
                .map(|g| g.count.saturating_mul(g.gpus_per_node))
                .fold(0u64, u64::saturating_add)
        }));
    if budget.keep_jobs && !service {
        let window = jobs.min(gpus.saturating_mul(128));
        e.add(
            format!(
                "job log windows (up to {} jobs a run, 48 bytes a job) × {at_once}",
                grouped(window)
            ),
            mul(&[window, 48, at_once]),
        );
    }
    if service && !budget.keep_jobs {
        e.add(
            format!(
                "job logs (up to {} jobs a run, 120 bytes a job) × {at_once}",
                grouped(jobs)
            ),
            mul(&[jobs, 120, at_once]),
        );
    }
    if service {
        // The shared engine's record of a service job
        // (shared/sim/outcome.rs `SharedOutcome`): a preemption count (4)
        // and the two `ShareStep`s (24 each) of its start and end, in Vecs
        // that may be twice as long: 104 bytes a job. Measured: a service
        // of 5,100 users × 20 models peaks 8.5 KB a tenant above one of
        // 600, 2.4 KB more than a model-mode run
        // (tests/it/memory_estimate.rs).
        e.add(
            format!("the shared engine's service job records (104 bytes a job) × {at_once}"),
            mul(&[jobs, 104, at_once]),
        );
        // The shared engine's log of every job's GPU segments (job mode's
        // segment log, jobs/sim/segment_log.rs: 46 bytes a segment, in
        // memory up to `SEGMENTS_IN_MEMORY` in a Vec that may be twice as
        // long, on disk past it), which the background's and the service's
        // segments are taken from when the run ends; a background or a
        // preemptive cluster scheduler preempts as often as it will, so
        // the bound (the background's own copy is the background's).
        e.add(
            format!("the shared engine's segment logs (up to 2 MiB a run) × {at_once}"),
            mul(&[2 * SEGMENTS_IN_MEMORY as u64, at_once]),
        );
        if budget.keep_jobs {
            // With `--jobs` (and a service that can be preempted, so
            // counted at its bound) the segments `service/jobs.csv` is
            // written from are kept with the results until folded (below),
            // and sorted by job when the file is written
            // (shared/report.rs): the open run of at most
            // `SERVICE_SEGMENTS_RUN` segments (40 bytes, and 8 for their
            // order while it is sorted), the written runs in memory up to
            // `SEGMENTS_IN_MEMORY` (in a Vec that may be twice as long)
            // and, while they are merged, a stream of `MERGE_READ` bytes a
            // run: the one part that grows with the segments (a quarter of
            // a byte a segment), counted at one segment a job. Before
            // 2026-12-07 every segment was kept in a vector (40 bytes, 32
            // counted), and while the file was written 8 more for its
            // order and its row's text, counted nowhere.
            let run = SERVICE_SEGMENTS_RUN as u64;
            let sort = mul(&[run, 48])
                .saturating_add(2 * SEGMENTS_IN_MEMORY as u64)
                .saturating_add(mul(&[jobs.div_ceil(run), MERGE_READ as u64]));
            e.add("sorting the service's segments by job for jobs.csv", sort);
        }
    }
    // Results until folded: runs are simulated in chunks of 64 per thread
    // and folded while the next chunk runs (`experiment::run_grid`,
    // docs/PERFORMANCE.md "Memory: runs are folded as they finish"), so up
    // to 128 runs a thread hold theirs: per tenant its row
    // (`TenantRows`, models/metrics/tenant_rows.rs: 46 bytes and 9 per
    // threshold, in Vecs that may be twice as long; each of its two
    // sequences in memory up to `ROWS_IN_MEMORY`, on disk past it), its
    // trace user where the tenants are listed (8, the split's list, as
    // above) and its arrival time where the arrivals are listed (8; none
    // with arrivals drawn as the run goes, whose result holds the draw),
    // its end reason and budget flag (2; on disk above 65,536 tenants,
    // models/sim/end_states.rs), its leave time where a patience lets
    // tenants leave (a (tenant, time) pair of 16 bytes for each one that
    // left, models/sim/left_at.rs: every tenant may leave, so each is
    // counted, up to `PLACES_RUN` of them, the rest on disk since
    // 2026-12-07; a service's for every tenant; none leaves without a
    // patience) and, with `fairness`, its
    // regret area alone (8); with `--jobs`
    // the job log too: 39 bytes a job and 4 a completion, in two
    // sequences each in memory up to `SEALED_IN_MEMORY` (8 MiB) and on
    // disk past it (`core::io::sealed`); a service's result holds the shared
    // engine's whole log, moved (120 a job, as above), and its kept
    // segments. (Before 2026-12-07:
    // 34 bytes a tenant, 26 with streamed arrivals, whatever the split and
    // the patience.)
    let threads = budget.concurrent(u64::MAX);
    let held = tasks.min(threads.saturating_mul(128));
    let rows = mul(&[tenants, 2, 46 + 9 * thresholds]).min(2 * ROWS_IN_MEMORY as u64);
    let mut per_result = 0u64;
    if listed {
        per_result += 8;
    }
    if !streamed {
        per_result += 8;
    }
    if tenants <= DENSE_UP_TO as u64 {
        per_result += 2;
    }
    if patience && service {
        per_result += 16;
    }
    if file.fairness {
        per_result += 8;
    }
    // A shared run's share log (`shares.csv`'s rows, 17 bytes a change
    // of a workload's GPUs, `shared::sim::outcome`): written as the run
    // goes, in memory up to `SHARES_IN_MEMORY`, on disk past it. A
    // preemptive cluster scheduler or a background changes the holdings
    // as often as it preempts, which nothing knows before the run: the
    // bound is counted (before 2026-12-07 a vector of 24 bytes a change,
    // and its rows' text whole while `shares.csv` was written, counted
    // nowhere).
    //
    // Every log a result holds (this one, the kept segments, the job
    // log's two sequences) is sealed with its records' bytes
    // (`core::io::sealed`: the room its vector grew to is given back),
    // and while a run writes it the vector may be up to twice as long:
    // the logs count once a result, and once more for each run at once
    // (below).
    let share_log = if service { SHARES_IN_MEMORY as u64 } else { 0 };
    // A model run's leave times: at most `PLACES_RUN` pairs in memory
    // (above).
    let held_leave_times = if patience && !service {
        mul(&[tenants.min(places_run), 16])
    } else {
        0
    };
    // The logs a result holds, sealed: the share log, the kept segments
    // at their bound (above) and a model run's job log.
    let logs = share_log.saturating_add(match (budget.keep_jobs, service) {
        (false, _) => 0,
        (true, true) => SEGMENTS_IN_MEMORY as u64,
        (true, false) => {
            let cap = SEALED_IN_MEMORY as u64;
            mul(&[jobs, 39]).min(cap) + mul(&[jobs, 4]).min(cap)
        }
    });
    let per_run = rows
        .saturating_add(logs)
        .saturating_add(held_leave_times)
        .saturating_add(mul(&[tenants, per_result]))
        .saturating_add(if budget.keep_jobs && service {
            // The engine's log, moved (above).
            mul(&[jobs, 120])
        } else {
            0
        });
    e.add(
        format!(
            "results of {} {} until folded{}{}",
            grouped(held),
            if held == 1 { "run" } else { "runs" },
            if service {
                ", with their share logs"
            } else {
                ""
            },
            match (budget.keep_jobs, service) {
                (false, _) => "",
                (true, false) => ", with their job logs for jobs.csv",
                (true, true) => ", with their job logs and segments for jobs.csv",
            }
        ),
        mul(&[per_run, held]),
    );
    if logs > 0 {
        e.add(
            format!("logs being written (up to twice their bytes) × {at_once}"),
            mul(&[logs, at_once]),
        );
    }
    // Loss curves, kept for every run until `curves.csv` is written
    // (models/metrics/loss_curve.rs; each distinct curve is kept once,
    // here every run counts): a point of a time, a loss sum and a count
    // (20 bytes) per change, one change per job and per arrival, by time
    // and by job; of each curve at most `CURVE_IN_MEMORY` bytes (and one
    // point) stay in memory, the rest in a temporary file (DESIGN §2.6
    // "Where a run's curves and rows live").
    let per_curve = mul(&[jobs.saturating_add(tenants), 20]).min(CURVE_IN_MEMORY as u64 + 20);
    e.add_held(
        format!("loss curves of {} runs", grouped(tasks)),
        mul(&[per_curve, 2, tasks]),
        Held::ToEnd,
    );
    // The figures' per-tenant box plot (present/figures/area_summary.rs)
    // reads every regret area of `tenants.csv` (a tenant and repetition
    // each, per policy) through runs sorted on disk: per policy the open
    // run (`AREAS_RUN` areas of 8 bytes), the written runs in memory up to
    // `AREAS_IN_MEMORY` (in a Vec that may be twice as long) or a write
    // buffer, and while they are merged a stream of `MERGE_READ` bytes a
    // run; then the median of all of them, selected in passes
    // (core/analysis/rank_select.rs): for each of its two ranks at most
    // `COLLECT_AT_MOST` values of 8 bytes, or a histogram of 2^16 counts
    // where there are more (512 KiB, less than those). (16 bytes a tenant and repetition before 2026-12-07,
    // every area held and sorted: 152.6 MiB of scale-year's.)
    if file.output.plots {
        let per_policy = tenants.saturating_mul(u64::from(file.repetitions));
        let policies = file.policies.len().max(1) as u64;
        let one = per_policy
            .min(AREAS_RUN as u64)
            .saturating_mul(8)
            .saturating_add(
                per_policy
                    .saturating_mul(8)
                    .min(2 * AREAS_IN_MEMORY as u64 + WRITE_BUFFER as u64),
            )
            .saturating_add(mul(&[
                per_policy.div_ceil(AREAS_RUN as u64),
                MERGE_READ as u64,
            ]));
        let all = per_policy.saturating_mul(policies);
        let median = 2 * 8 * all.min(COLLECT_AT_MOST as u64);
        e.add_held(
            "the figures' regret areas",
            mul(&[one, policies]).saturating_add(median),
            Held::ToEnd,
        );
    }
    e
}

/// How many tenants at most hold a GP posterior at once, as the estimate
/// counts them (DESIGN §8.5 "Tenants present at once"): every one of
/// `tenants`, except when the run can be read as a stable queue, where
/// it is `⌈F · G / (1 − ρ)⌉` (at most `tenants`) with F =
/// [`PRESENT_FACTOR`], G GPUs and the offered load ρ = λ · K · c̄ / G
/// below [`STABLE_LOAD`]: λ the arrivals per second (`poisson`: the rate
/// / 3,600; `uniform`: tenants / window), K models a tenant and c̄ a bound
/// on the mean runtime (`[trace.syn] cost`, [`CostDist::mean_bound_s`]).
///
/// Why: a tenant holds its posterior from its first completed job until
/// its last model's completion (DESIGN §3.3 "Lifetime"), so those holding
/// one are tenants in the system. With each tenant's demand K · c̄
/// GPU-seconds, a work-conserving cluster leaves a GPU idle only when
/// fewer than G tenants want one, and by Little's law the tenants in a
/// stable system number λ · T, about ρ · G when none waits; queueing
/// raises it by about 1/(1 − ρ) (M/M/1's ρ/(1 − ρ) for one fast server).
/// This is an estimate, not a bound (a scheduler that starves tenants
/// could hold more): tests/it/memory_estimate.rs checks it against the
/// measured maximum of runs at loads 0.3–0.89, and every other case counts
/// every tenant: tenants arriving at once or from a file, a budget or a
/// job limit (a tenant stopped early keeps its posterior to the end), a
/// trace file (its mean runtime is not known before it is read), a curve
/// trace, GPU types or speed factors, or ρ ≥ [`STABLE_LOAD`]; and the
/// service of a shared scenario, whose GPUs other jobs share
/// (`estimate_in`).
pub fn posteriors_at_once(file: &ScenarioFile, tenants: u64) -> u64 {
    stable_queue_tenants(file, tenants).map_or(tenants, |n| n.min(tenants))
}

/// The factor F of [`posteriors_at_once`]'s `⌈F · G / (1 − ρ)⌉`: it
/// covers the waits between a tenant's own jobs (measured 0.52–1.65 of
/// `G / (1 − ρ)` at 8 GPUs, tests/it/memory_estimate.rs).
pub const PRESENT_FACTOR: f64 = 4.0;

/// The offered load below which [`posteriors_at_once`] reads a run as a
/// stable queue.
pub const STABLE_LOAD: f64 = 0.9;

/// `⌈F · G / (1 − ρ)⌉` of [`posteriors_at_once`], `None` where it does not
/// apply.
fn stable_queue_tenants(file: &ScenarioFile, tenants: u64) -> Option<u64> {
    let limits = &file.limits;
    if limits.budget_gpu_s.is_some() || limits.max_jobs.is_some() {
        return None;
    }
    let syn = file.trace.syn.as_ref()?;
    if syn.fidelities.unwrap_or(1) > 1 {
        return None;
    }
    let cluster = &file.cluster;
    if cluster.nodes.is_some() || !cluster.speed.is_empty() || !cluster.model_speed.is_empty() {
        return None;
    }
    let gpus = cluster.gpus.filter(|&g| g > 0)? as f64;
    let per_s = match file.arrivals.kind.as_str() {
        "poisson" => file.arrivals.rate_per_hour? / 3600.0,
        "uniform" => tenants as f64 / file.arrivals.window_s.filter(|&w| w > 0.0)?,
        _ => return None,
    };
    let mean_s = syn.cost.parse::<CostDist>().ok()?.mean_bound_s();
    let load = per_s * syn.models as f64 * mean_s / gpus;
    if !(load.is_finite() && (0.0..STABLE_LOAD).contains(&load)) {
        return None;
    }
    let n = (PRESENT_FACTOR * gpus / (1.0 - load)).ceil();
    Some(n as u64)
}

/// The estimate of `tenantsim gen syn` writing `users × models` pairs at
/// `levels` fidelities: it builds every row, then the CSV text whole
/// (models/trace/generate.rs `run_gen_syn`, generate_curves.rs). A row
/// (`TraceRow`: two `String`s, two f64, two `Option<i64>`: 96 bytes) and
/// the heap blocks of its two ids (about 48) make 150 bytes a pair; its
/// CSV line (about 50 bytes) in a `String` that may be twice as long, 100
/// more. A curve trace adds per level a `CurveRow` with its ids (about
/// 160 bytes) and its CSV line (120 with the doubling).
pub fn gen_syn_estimate(users: u64, models: u64, levels: u64) -> Estimate {
    let pairs = mul(&[users, models]);
    let mut e = Estimate::default();
    let what = format!(
        "the rows of {} users × {} models",
        grouped(users),
        grouped(models)
    );
    if levels <= 1 {
        e.add(
            format!("{what} and their CSV text (250 bytes a pair)"),
            mul(&[pairs, 250]),
        );
    } else {
        e.add(format!("{what} (150 bytes a pair)"), mul(&[pairs, 150]));
        e.add(
            format!("{levels} curve levels a pair and their CSV text (280 bytes a level)"),
            mul(&[pairs, levels, 280]),
        );
    }
    e
}

/// `n` with thousands separators.
fn grouped(n: u64) -> String {
    crate::core::limits::grouped(n)
}
