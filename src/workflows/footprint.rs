//! The memory of a workflow trace (DESIGN §8.5 "Workflows"): as held by a
//! scenario ([`held_bytes`]), while its CSV is read ([`reading_estimate`],
//! from one streaming pass over the file, [`workflow_trace_shape`], made
//! before it is read) and while `gen workflows` and `import-workflows`
//! build one ([`gen_estimate`], [`import_estimate`]). A shared run's own terms (its jobs, steps, cache)
//! are `shared::workflows_footprint`'s.
//!
//! Every term counts a layout of `workflows/trace.rs` (sizes from
//! `size_of`, so they follow the structs), with these simplifications,
//! each on the side of more:
//! - a `Vec` that grows by doubling counts twice its final length, one
//!   made with its length once;
//! - a string counts its 24-byte header and its heap ([`string_heap`]);
//! - before the file is read, its workflows, tenants and cache keys are
//!   not known apart: each run of rows of one workflow counts as a
//!   workflow and a tenant, each row with a key as a key.

use std::path::Path;

use super::rows::COMPACT_ROW_BYTES;
use super::trace::{Step, StepRow, TYPE_RUNTIME_PREFIX, WorkflowSpec, WorkflowTrace};
use crate::core::error::Result;
use crate::core::io::hashed_input::READ_BUFFER;
use crate::core::limits::grouped;
use crate::core::memory::{
    Estimate, MemoryBudget, PROGRAM_BYTES, PROGRAM_ITEM, hash_table, string_heap,
};
use crate::core::resources::human_bytes;

/// Bytes of a `String`'s header (pointer, capacity, length).
const STRING: u64 = 24;

/// What the estimate of reading a workflow trace needs, known from one
/// streaming pass over its CSV ([`workflow_trace_shape`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkflowTraceShape {
    /// Rows (steps).
    pub rows: u64,
    /// Runs of rows of one workflow (a row whose workflow is not the row
    /// before's starts one): the workflows, when each one's rows are
    /// together, as every importer and generator writes them; more
    /// otherwise. At least the workflows, so at least the tenants (one a
    /// workflow).
    pub workflow_runs: u64,
    /// Rows with a cache key: at least the distinct keys.
    pub keyed: u64,
    /// Heap bytes of each row's `workflow`, `tenant`, `step` and
    /// `cache_key` cells as strings ([`string_heap`] each): at least what
    /// the trace's ids hold.
    pub text_heap: u64,
    /// Bytes of each row's `workflow`, `tenant`, `step`, `cache_key` and
    /// `parents` cells as read (what compact rows hold of its text).
    pub text_bytes: u64,
    /// Parent ids over all rows.
    pub parents: u64,
    /// Filled `runtime_s.<type>` cells over all rows.
    pub type_cells: u64,
    /// `runtime_s.<type>` columns.
    pub types: u64,
}

/// One pass over the workflow trace CSV at `path`: its rows, the bytes of
/// its text cells, its parents and per-type cells; holds one record.
/// `None` when it is not a regular file or cannot be read as a CSV with
/// `workflow` and `step` columns: the reader then says what is wrong.
pub fn workflow_trace_shape(path: &Path) -> Option<WorkflowTraceShape> {
    let file = crate::core::io::open_input(path, "workflow trace").ok()?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(READ_BUFFER, file));
    let headers = reader.headers().ok()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}') == name)
    };
    let (workflow, step) = (col("workflow")?, col("step")?);
    let text: Vec<usize> = [Some(workflow), col("tenant"), Some(step), col("cache_key")]
        .into_iter()
        .flatten()
        .collect();
    let parents = col("parents");
    let typed: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            h.trim_start_matches('\u{feff}')
                .starts_with(TYPE_RUNTIME_PREFIX)
        })
        .map(|(i, _)| i)
        .collect();
    let mut shape = WorkflowTraceShape {
        types: typed.len() as u64,
        ..WorkflowTraceShape::default()
    };
    let key = col("cache_key");
    let mut record = csv::ByteRecord::new();
    let mut last = Vec::new();
    while reader.read_byte_record(&mut record).ok()? {
        shape.rows += 1;
        let id = record.get(workflow).unwrap_or(b"");
        if shape.rows == 1 || id != last.as_slice() {
            shape.workflow_runs += 1;
            last.clear();
            last.extend_from_slice(id);
        }
        if key
            .and_then(|i| record.get(i))
            .is_some_and(|c| !c.is_empty())
        {
            shape.keyed += 1;
        }
        let len = |i: usize| record.get(i).map_or(0, |f| f.len() as u64);
        for &i in &text {
            shape.text_heap += string_heap(len(i));
            shape.text_bytes += len(i);
        }
        if let Some(cell) = parents.and_then(|i| record.get(i)) {
            shape.text_bytes += cell.len() as u64;
            if !cell.is_empty() {
                shape.parents += cell.split(|&b| b == b';').count() as u64;
            }
        }
        shape.type_cells += typed
            .iter()
            .filter(|&&i| record.get(i).is_some_and(|c| !c.is_empty()))
            .count() as u64;
    }
    Some(shape)
}

/// Bytes of a trace of `steps` steps, `workflows` workflows, `names`
/// tenants and cache keys together, `parents` parent links and `types`
/// per-type run times a step, with `id_heap` the heap bytes of its step
/// and workflow ids, tenants and keys, as `WorkflowTrace::from_rows_at`
/// lays it out: per step a [`Step`] and its id (a `String`), in vectors
/// made with their length; per workflow a [`WorkflowSpec`] and its id,
/// likewise; per tenant and key a `String` in a vector that grew (twice);
/// per parent link 4 bytes in the parents' vector (grown: twice) and 4 in
/// the children's (made with its length); per step and type 8 (grown:
/// twice).
pub fn trace_layout(
    steps: u64,
    workflows: u64,
    names: u64,
    parents: u64,
    types: u64,
    id_heap: u64,
) -> u64 {
    let step = size_of::<Step>() as u64 + STRING;
    let workflow = size_of::<WorkflowSpec>() as u64 + STRING;
    steps
        .saturating_mul(step)
        .saturating_add(workflows.saturating_mul(workflow))
        .saturating_add(names.saturating_mul(2 * STRING))
        .saturating_add(parents.saturating_mul(2 * 4 + 4))
        .saturating_add(steps.saturating_mul(types).saturating_mul(2 * 8))
        .saturating_add(id_heap)
}

/// Bytes `trace` holds ([`trace_layout`] of its counts and ids).
pub fn held_bytes(trace: &WorkflowTrace) -> u64 {
    let heap = |ids: &mut dyn Iterator<Item = &str>| {
        ids.map(|s| string_heap(s.len() as u64))
            .fold(0u64, u64::saturating_add)
    };
    let n = trace.steps().len() as u32;
    let w = trace.workflows().len() as u32;
    let id_heap = heap(&mut (0..n).map(|s| trace.step_id(s)))
        .saturating_add(heap(&mut (0..w).map(|k| trace.workflow_id(k))))
        .saturating_add(heap(&mut trace.tenants().iter().map(String::as_str)))
        .saturating_add(heap(
            &mut (0..trace.cache_keys() as u32).map(|k| trace.cache_key(k)),
        ));
    let parents: u64 = (0..n)
        .map(|s| trace.parents_of(s).len() as u64)
        .sum::<u64>();
    trace_layout(
        u64::from(n),
        u64::from(w),
        (trace.tenants().len() + trace.cache_keys()) as u64,
        parents,
        trace.type_names().len() as u64,
        id_heap,
    )
}

/// Bytes of reading a trace of `shape` beside the trace it builds
/// (`workflows::trace::parse_compact`, then `WorkflowTrace::from_rows_at`
/// while the rows are held; all of it freed once the trace is built):
/// the rows as [`CompactRows`](super::rows::CompactRows) hold them, a record of
/// [`COMPACT_ROW_BYTES`] in a vector that grew (twice), the text of its
/// five text cells in one string that grew (twice), each per-type cell
/// 16 bytes (twice), each row's line (8, twice); [`building_scratch`];
/// the read buffer. (Before 2026-12-07 the rows were `StepRow`s, 208
/// bytes and a string heap of at least 32 bytes for each id and parent:
/// about 560 bytes a row of an ML pipeline against about 170.)
pub fn reading_scratch(shape: &WorkflowTraceShape) -> u64 {
    let rows = shape
        .rows
        .saturating_mul(2 * COMPACT_ROW_BYTES + 2 * 8)
        .saturating_add(shape.text_bytes.saturating_mul(2))
        .saturating_add(shape.type_cells.saturating_mul(2 * 16));
    rows.saturating_add(building_scratch(shape))
        .saturating_add(READ_BUFFER as u64)
}

/// Bytes `WorkflowTrace::from_rows_at` holds beside the rows and the
/// trace it builds, for rows of `shape` (whatever holds them):
/// - grouping them: the index of workflow ids (a hash table of 24-byte
///   entries), each workflow's list of rows (a vector header, twice, and
///   8 a row, twice), the tenants' and the keys' indices (hash tables of
///   24-byte entries); each run of rows counted as its own workflow and
///   tenant, each keyed row as its own key;
/// - one workflow's scratch while it is checked (the step index, its
///   in-degrees, children and walk: 24 + 4 + 24 + 8 + 8 bytes a step,
///   the whole trace counted as one workflow).
pub fn building_scratch(shape: &WorkflowTraceShape) -> u64 {
    let (n, w) = (shape.rows, shape.workflow_runs);
    let grouping = hash_table(w, 24)
        .saturating_mul(2)
        .saturating_add(hash_table(shape.keyed, 24))
        .saturating_add(w.saturating_mul(2 * STRING))
        .saturating_add(n.saturating_mul(2 * 8));
    let checking = n.saturating_mul(24 + 4 + 24 + 8 + 8);
    grouping.saturating_add(checking)
}

/// Bytes of the trace built from rows of `shape` ([`trace_layout`], each
/// run of rows its own workflow and tenant, each keyed row its own key,
/// their heaps the rows' text heap).
pub fn built_bytes(shape: &WorkflowTraceShape) -> u64 {
    let w = shape.workflow_runs;
    trace_layout(
        shape.rows,
        w,
        w.saturating_add(shape.keyed),
        shape.parents,
        shape.types,
        shape.text_heap,
    )
}

/// Bytes of reading a trace of `shape`: [`reading_scratch`] and
/// [`built_bytes`].
pub fn reading_bytes(shape: &WorkflowTraceShape) -> u64 {
    reading_scratch(shape).saturating_add(built_bytes(shape))
}

/// The estimate of reading a workflow trace of `shape` alone: the
/// program and [`reading_bytes`].
pub fn reading_estimate(shape: &WorkflowTraceShape) -> Estimate {
    let bytes = reading_bytes(shape);
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    e.add(
        format!(
            "reading the workflow trace ({} steps, {} a step)",
            grouped(shape.rows),
            human_bytes(bytes / shape.rows.max(1))
        ),
        bytes,
    );
    e
}

/// Check the memory of reading the workflow trace at `path` against
/// `budget` before it is read ([`crate::core::memory::check_trace_file`]
/// with [`reading_estimate`] of its [`workflow_trace_shape`]): its shape
/// and the estimate checked; `None` when it cannot be scanned (the
/// reader then says why).
pub fn check_trace_file(
    path: &Path,
    budget: &MemoryBudget,
) -> Result<Option<(WorkflowTraceShape, Estimate)>> {
    let mut shape = None;
    let e = crate::core::memory::check_trace_file(path, "workflow trace", budget, |p| {
        let s = workflow_trace_shape(p)?;
        shape = Some(s);
        Some(reading_estimate(&s))
    })?;
    Ok(shape.zip(e))
}

/// The estimate of `tenantsim gen workflows` making `workflows` pipelines
/// of `trials` trials for `tenants` tenants over `datasets` data sets
/// (`workflows::generate`, DESIGN §14.1): W pipelines of K + 4 rows each,
/// held whole, then checked as a trace and written:
/// - per data set its size (8), per tenant its list of workflows (a
///   vector header, 24, and 8 a workflow of its own, grown: twice);
/// - per pipeline a `Pipeline` (its trials a vector of K run times);
/// - the rows, made with their length: a [`StepRow`] each, its workflow,
///   tenant, step and key ids (at most 32 bytes of heap each: ids of at
///   most 20 digits, keys of 16 hex digits), its parents (one, K for
///   `evaluate`: a `String` and 32 of heap each);
/// - then the larger of checking them as a trace ([`building_scratch`]
///   and [`built_bytes`])
///   and writing them (their CSV text, at most 200 bytes a row and 40 a
///   parent, grown: twice; the set of keys, a hash table of 16-byte
///   entries).
pub fn gen_estimate(workflows: u64, trials: u64, tenants: u64, datasets: u64) -> Estimate {
    let rows = workflows.saturating_mul(trials.saturating_add(4));
    // train-j has one parent; evaluate K; preprocess and featurise one.
    let parents = workflows.saturating_mul(trials.saturating_mul(2).saturating_add(2));
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    e.add(
        format!(
            "data sets and tenants ({} and {})",
            grouped(datasets),
            grouped(tenants)
        ),
        datasets
            .saturating_mul(8)
            .saturating_add(tenants.saturating_mul(STRING))
            .saturating_add(workflows.saturating_mul(2 * 8)),
    );
    let pipeline = 96u64.saturating_add(trials.saturating_mul(8));
    e.add(
        format!(
            "pipelines ({} of {} trials)",
            grouped(workflows),
            grouped(trials)
        ),
        workflows.saturating_mul(pipeline),
    );
    let shape = WorkflowTraceShape {
        rows,
        workflow_runs: workflows,
        keyed: rows,
        text_heap: rows.saturating_mul(4 * 32),
        text_bytes: 0,
        parents,
        type_cells: 0,
        types: 0,
    };
    let row = size_of::<StepRow>() as u64;
    let held_rows = rows
        .saturating_mul(row)
        .saturating_add(shape.text_heap)
        .saturating_add(parents.saturating_mul(STRING + 32));
    e.add(format!("rows ({} steps)", grouped(rows)), held_rows);
    // Checking them builds a trace beside them.
    let checking = building_scratch(&shape).saturating_add(built_bytes(&shape));
    let writing = rows
        .saturating_mul(200)
        .saturating_add(parents.saturating_mul(40))
        .saturating_mul(2)
        .saturating_add(hash_table(rows, 16));
    e.add(
        "checking the rows as a trace, or writing them",
        checking.max(writing),
    );
    e
}

/// The estimate of `tenantsim import-workflows` submitting instances of
/// `rows_per_copy` tasks `copies` times (`workflows::wfformat::submit`,
/// then `write_rows`): the rows, made with their length (a [`StepRow`]
/// each and `heap_per_copy` bytes of their strings' heaps and parent
/// headers a copy), the set of cache keys seen (a hash table of 16-byte
/// entries) and the rows' CSV text (`text_per_copy` bytes a copy, in a
/// string that grew: twice).
pub fn import_estimate(
    rows_per_copy: u64,
    heap_per_copy: u64,
    text_per_copy: u64,
    copies: u64,
) -> Estimate {
    let rows = rows_per_copy.saturating_mul(copies);
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    e.add(
        format!("rows ({} steps)", grouped(rows)),
        rows.saturating_mul(size_of::<StepRow>() as u64)
            .saturating_add(heap_per_copy.saturating_mul(copies)),
    );
    e.add(
        "the keys seen, then the rows' CSV text",
        hash_table(rows, 16).saturating_add(text_per_copy.saturating_mul(copies).saturating_mul(2)),
    );
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a small trace, by hand: three rows, ids of 2 and 30
    /// bytes, two parents, a `runtime_s.<type>` column with one cell.
    #[test]
    fn the_shape_pass_counts_rows_text_parents_and_type_cells() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("w.csv");
        let long = "x".repeat(30);
        let text = format!(
            "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes,runtime_s.v100\n\
             w1,t,0,a,,1,1,0,,0,\n\
             w1,t,0,{long},a,1,1,0,k,0,2\n\
             w1,t,0,c,a;{long},1,1,0,,0,\n"
        );
        std::fs::write(&path, &text).expect("write");
        let s = workflow_trace_shape(&path).expect("a shape");
        assert_eq!(
            s,
            WorkflowTraceShape {
                rows: 3,
                workflow_runs: 1,
                keyed: 1,
                // w1, t, a | w1, t, long, k | w1, t, c: 32 each but the
                // 30-byte id's 48 (empty cells hold no heap).
                text_heap: 9 * 32 + 48,
                // w1 t a | w1 t long k a | w1 t c a;long
                text_bytes: 4 + 35 + 36,
                parents: 3,
                type_cells: 1,
                types: 1,
            }
        );
    }

    /// The import's estimate by hand: two tasks a copy, three copies.
    #[test]
    fn an_imports_estimate_by_hand() {
        let e = import_estimate(2, 100, 50, 3);
        let item = |prefix: &str| {
            e.items
                .iter()
                .find(|i| i.what.starts_with(prefix))
                .map_or(0, |i| i.bytes)
        };
        // Six rows of 208 bytes and 3 × 100 of heap.
        assert_eq!(item("rows (6 steps)"), 6 * 208 + 300);
        // Six keys: 7 buckets rounded up to 8, 17 bytes each, and half as
        // many while the table last grew; the text, 3 × 50, twice.
        assert_eq!(item("the keys seen"), 8 * 17 * 3 / 2 + 300);
    }

    /// The held bytes of a trace, by hand from the layouts: two
    /// workflows of two tenants, three steps, one parent link, one key.
    #[test]
    fn a_traces_held_bytes_count_its_layouts_by_hand() {
        let csv = "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes\n\
                   w1,t1,0,a,,1,1,0,k,0\n\
                   w1,t1,0,b,a,1,1,0,,0\n\
                   w2,t2,0,a,,1,1,0,,0\n";
        let t = WorkflowTrace::parse("t", csv.as_bytes()).expect("a trace");
        let step = size_of::<Step>() as u64 + 24;
        let wf = size_of::<WorkflowSpec>() as u64 + 24;
        // Ids: a, b, a (steps), w1, w2, t1, t2, k: 8 heaps of 32.
        let want = 3 * step + 2 * wf + 3 * 48 + (8 + 4) + 8 * 32;
        assert_eq!(held_bytes(&t), want);
    }

    /// Reading counts the compact rows, the builder's scratch and the
    /// trace it builds; absurd shapes saturate.
    #[test]
    fn reading_bytes_hold_the_built_trace_and_saturate() {
        let shape = WorkflowTraceShape {
            rows: 1_000,
            workflow_runs: 1_000,
            keyed: 1_000,
            text_heap: 4 * 32 * 1_000,
            text_bytes: 40 * 1_000,
            parents: 1_000,
            type_cells: 0,
            types: 0,
        };
        let built = trace_layout(1_000, 1_000, 2_000, 1_000, 0, 4 * 32 * 1_000);
        assert_eq!(reading_bytes(&shape), reading_scratch(&shape) + built);
        // Compact rows: a record each and the cells' text, twice.
        assert_eq!(COMPACT_ROW_BYTES, 104, "the compact record's layout");
        assert_eq!(
            reading_scratch(&shape),
            1_000 * (2 * 104 + 2 * 8) + 2 * 40_000 + building_scratch(&shape) + 65_536
        );
        let huge = WorkflowTraceShape {
            rows: u64::MAX,
            ..shape
        };
        assert_eq!(reading_bytes(&huge), u64::MAX);
        assert_eq!(gen_estimate(u64::MAX, 4, 1, 1).total(), u64::MAX);
    }
}
