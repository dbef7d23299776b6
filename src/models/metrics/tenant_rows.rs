//! A run's per-tenant rows ([`TenantMetrics`], one per tenant, in tenant
//! order), in memory while small and in a temporary file past
//! [`ROWS_IN_MEMORY`] (DESIGN §2.6 "Where a run's curves and rows live";
//! issue 34): scale-year's 10^7 rows were 1.4 GB held from the end of its
//! simulation until `tenants.csv` had them (docs/PERFORMANCE.md "Internet
//! scale").
//!
//! A row is two [`Spill`] records: its fixed figures ([`Fixed`], 46
//! bytes) and its times to the thresholds ([`TimeTo`], 9 bytes each, as
//! many per row as the run has thresholds). Rows are read back as a
//! stream ([`TenantRows::iter`]), bit for bit what was written; the result
//! cache and the shards store them as the vector they replace
//! (`Serialize` writes a sequence of [`TenantMetrics`]), so stored results
//! read back and their bytes did not change.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::spill::{Record, Spill, SpillIter, spill_threshold};
use super::{TenantAggregate, TenantMetrics};
use crate::core::analysis::rank_select::select_quantiles;
use crate::core::analysis::stats::jain_index;
use crate::core::error::{Error, Result};
use crate::core::memory::ROWS_IN_MEMORY;
use crate::models::sim::EndReason;
use crate::models::trace::Micros;

/// A row's figures but its times to the thresholds (46 bytes: five 8-byte
/// figures, the completed jobs, a byte of flags, the end reason's index in
/// [`EndReason::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fixed {
    arrival: Micros,
    regret_area: f64,
    wait_first_job: Option<Micros>,
    longest_gap: Micros,
    gpu_us: u64,
    jobs: u32,
    abandoned: bool,
    budget_exhausted: bool,
    ended: EndReason,
}

impl Fixed {
    fn of(t: &TenantMetrics) -> Self {
        Self {
            arrival: t.arrival,
            regret_area: t.regret_area,
            wait_first_job: t.wait_first_job,
            longest_gap: t.longest_gap,
            gpu_us: t.gpu_us,
            jobs: t.jobs,
            abandoned: t.abandoned,
            budget_exhausted: t.budget_exhausted,
            ended: t.ended,
        }
    }

    fn with_times(self, time_to: Vec<Option<Micros>>) -> TenantMetrics {
        TenantMetrics {
            arrival: self.arrival,
            regret_area: self.regret_area,
            time_to,
            wait_first_job: self.wait_first_job,
            longest_gap: self.longest_gap,
            jobs: self.jobs,
            gpu_us: self.gpu_us,
            abandoned: self.abandoned,
            budget_exhausted: self.budget_exhausted,
            ended: self.ended,
        }
    }
}

impl Record for Fixed {
    const BYTES: usize = 46;
    fn encode(&self, out: &mut [u8]) {
        let words = [
            self.arrival,
            self.regret_area.to_bits(),
            self.wait_first_job.unwrap_or(0),
            self.longest_gap,
            self.gpu_us,
        ];
        for (j, w) in words.iter().enumerate() {
            out[8 * j..8 * j + 8].copy_from_slice(&w.to_le_bytes());
        }
        out[40..44].copy_from_slice(&self.jobs.to_le_bytes());
        out[44] = u8::from(self.wait_first_job.is_some())
            | (u8::from(self.abandoned) << 1)
            | (u8::from(self.budget_exhausted) << 2);
        // Six reasons: the index fits a byte.
        out[45] = EndReason::ALL
            .iter()
            .position(|&e| e == self.ended)
            .map_or(u8::MAX, |p| p as u8);
    }
    fn decode(b: &[u8]) -> Self {
        let word = |j: usize| u64::decode(&b[8 * j..8 * j + 8]);
        Self {
            arrival: word(0),
            regret_area: f64::from_bits(word(1)),
            wait_first_job: (b[44] & 1 != 0).then(|| word(2)),
            longest_gap: word(3),
            gpu_us: word(4),
            jobs: u32::from_le_bytes([b[40], b[41], b[42], b[43]]),
            abandoned: b[44] & 2 != 0,
            budget_exhausted: b[44] & 4 != 0,
            ended: EndReason::ALL
                .get(usize::from(b[45]))
                .copied()
                .unwrap_or_default(),
        }
    }
}

/// A time to a threshold (9 bytes: set or not, then µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct TimeTo(pub(super) Option<Micros>);

impl Record for TimeTo {
    const BYTES: usize = 9;
    fn encode(&self, out: &mut [u8]) {
        out[0] = u8::from(self.0.is_some());
        out[1..9].copy_from_slice(&self.0.unwrap_or(0).to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Self((b[0] != 0).then(|| u64::decode(&b[1..9])))
    }
}

/// Every tenant's row of one run, in tenant order. Cheap to clone (the
/// records are shared); never changes once built ([`TenantRowsBuilder`]).
#[derive(Clone)]
pub struct TenantRows {
    /// Times to thresholds per row.
    thresholds: usize,
    fixed: Arc<Spill<Fixed>>,
    times: Arc<Spill<TimeTo>>,
}

impl Default for TenantRows {
    /// No rows.
    fn default() -> Self {
        Self {
            thresholds: 0,
            fixed: Arc::new(Spill::with_threshold(0)),
            times: Arc::new(Spill::with_threshold(0)),
        }
    }
}

impl TenantRows {
    /// The rows `rows`, each with the same number of times to thresholds
    /// (an error otherwise).
    pub fn from_vec(rows: Vec<TenantMetrics>) -> Result<Self> {
        let thresholds = rows.first().map_or(0, |t| t.time_to.len());
        let mut b = TenantRowsBuilder::new(thresholds)?;
        for t in &rows {
            b.push(t)?;
        }
        b.finish()
    }

    /// Rows (tenants).
    pub fn len(&self) -> usize {
        usize::try_from(self.fixed.len()).unwrap_or(usize::MAX)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.fixed.is_empty()
    }

    /// Times to thresholds in each row.
    pub fn thresholds(&self) -> usize {
        self.thresholds
    }

    /// Whether the rows moved to a temporary file.
    pub fn is_spilled(&self) -> bool {
        self.fixed.is_spilled()
    }

    /// Every row, in tenant order (an I/O error of spilled rows is an
    /// item, and the last).
    pub fn iter(&self) -> RowsIter<'_> {
        RowsIter {
            fixed: self.fixed.iter(),
            times: self.times.iter(),
            thresholds: self.thresholds,
            failed: false,
        }
    }

    /// Every row's regret area, in tenant order, given to `f` (the rows'
    /// fixed parts read alone). An error: the rows could not be read back.
    pub fn each_area(&self, f: &mut dyn FnMut(f64)) -> Result<()> {
        for r in self.fixed.iter() {
            f(r?.regret_area);
        }
        Ok(())
    }

    /// Every row, read back into a vector.
    pub fn to_vec(&self) -> Result<Vec<TenantMetrics>> {
        self.iter().collect()
    }
}

/// Aggregate per-tenant figures. With `isolated` (each tenant's regret area
/// alone on the cluster), the Jain index is taken over area_i / isolated_i,
/// skipping tenants whose isolated area is 0 (nothing to normalise by).
/// An error: the rows could not be read back (spilled, an I/O error).
pub fn aggregate_tenants(
    tenants: &TenantRows,
    isolated: Option<&[f64]>,
) -> Result<TenantAggregate> {
    // One pass over the rows (on disk for a large run): the areas' sum in
    // tenant order and their largest, the leavers, and the ratios to the
    // isolated areas.
    let n = tenants.len();
    let mut failed = None;
    let mut abandoned = 0;
    let mut max: Option<f64> = None;
    let mut iso = isolated.map(|i| i.iter());
    let mut ratios = Vec::new();
    let sum: f64 = tenants
        .iter()
        .map_while(|t| t.map_err(|e| failed = Some(e)).ok())
        .inspect(|t| {
            abandoned += usize::from(t.abandoned);
            let a = t.regret_area;
            if max.is_none_or(|m| a.total_cmp(&m).is_gt()) {
                max = Some(a);
            }
            if let Some(i) = iso.as_mut().and_then(Iterator::next)
                && *i > 0.0
            {
                ratios.push(a / i);
            }
        })
        .map(|t| t.regret_area)
        .sum();
    if let Some(e) = failed {
        return Err(e);
    }
    let area_mean = if n == 0 { 0.0 } else { sum / n as f64 };
    let jain = isolated.and_then(|_| jain_index(&ratios));
    // The quantiles' order statistics selected over passes of the areas
    // (`core/analysis/rank_select.rs`), not a sorted list of them all
    // (80 MB at scale-year's 10^7 tenants: docs/PERFORMANCE.md
    // "Internet scale"); the same values as sorting.
    let q = select_quantiles(n, &[0.5, 0.9], |f| tenants.each_area(f))?;
    Ok(TenantAggregate {
        area_mean,
        area_p50: q[0],
        area_p90: q[1],
        area_max: max.unwrap_or(0.0),
        jain,
        abandoned,
    })
}

/// The rows of a [`TenantRows`], in tenant order.
#[derive(Debug)]
pub struct RowsIter<'a> {
    fixed: SpillIter<'a, Fixed>,
    times: SpillIter<'a, TimeTo>,
    thresholds: usize,
    failed: bool,
}

impl Iterator for RowsIter<'_> {
    type Item = Result<TenantMetrics>;

    fn next(&mut self) -> Option<Result<TenantMetrics>> {
        if self.failed {
            return None;
        }
        let row = (|| {
            let Some(f) = self.fixed.next() else {
                return Ok(None);
            };
            let f = f?;
            let times = (self.times)
                .next_n(self.thresholds, "a tenant row lost its times")?
                .into_iter()
                .map(|t| t.0)
                .collect();
            Ok(Some(f.with_times(times)))
        })();
        match row {
            Ok(r) => r.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.failed {
            (0, Some(0))
        } else {
            self.fixed.size_hint()
        }
    }
}

/// The rows of a run as they are made: appended in tenant order, or put
/// at a tenant's index (a place appended first, its row known later).
#[derive(Debug)]
pub struct TenantRowsBuilder {
    thresholds: usize,
    fixed: Spill<Fixed>,
    times: Spill<TimeTo>,
}

impl TenantRowsBuilder {
    /// No rows yet; each will have `thresholds` times to thresholds. The
    /// rows spill past [`ROWS_IN_MEMORY`] (or this process's lower
    /// threshold, `TENANTSIM_SPILL_BYTES`).
    pub fn new(thresholds: usize) -> Result<Self> {
        let bytes = spill_threshold()?.min(ROWS_IN_MEMORY);
        Ok(Self {
            thresholds,
            fixed: Spill::with_threshold(bytes),
            times: Spill::with_threshold(bytes),
        })
    }

    /// The number of times to thresholds `t` must have.
    fn check(&self, t: &TenantMetrics) -> Result<()> {
        if t.time_to.len() == self.thresholds {
            return Ok(());
        }
        Err(Error::input(format!(
            "internal: a tenant row with {} times to thresholds among rows with {}",
            t.time_to.len(),
            self.thresholds
        )))
    }

    /// Append `t` (the next tenant's row).
    pub fn push(&mut self, t: &TenantMetrics) -> Result<()> {
        self.check(t)?;
        self.fixed.push(Fixed::of(t))?;
        for &x in &t.time_to {
            self.times.push(TimeTo(x))?;
        }
        Ok(())
    }

    /// The rows, built: what is buffered goes to the file, spare room is
    /// given back.
    pub fn finish(mut self) -> Result<TenantRows> {
        self.fixed.shrink_to_fit()?;
        self.times.shrink_to_fit()?;
        Ok(TenantRows {
            thresholds: self.thresholds,
            fixed: Arc::new(self.fixed),
            times: Arc::new(self.times),
        })
    }
}

impl fmt::Debug for TenantRows {
    /// The rows, wherever they live.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(rows) => f.debug_list().entries(&rows).finish(),
            Err(e) => write!(f, "TenantRows(unreadable: {e})"),
        }
    }
}

impl PartialEq for TenantRows {
    /// The same rows (an unreadable row is unequal to everything).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.iter().zip(other.iter()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl Serialize for TenantRows {
    /// As the vector of rows it replaces: a sequence of [`TenantMetrics`]
    /// (the result cache's and the shards' bytes unchanged).
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for row in self.iter() {
            seq.serialize_element(&row.map_err(S::Error::custom)?)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for TenantRows {
    /// The sequence [`Serialize`] writes, each row appended as it is read
    /// (past [`ROWS_IN_MEMORY`] to the temporary file), never a vector of
    /// every row: a stored run of 10^6 tenants read back from the result
    /// cache held about 170 MB of decoded rows at once before it
    /// (docs/PERFORMANCE.md "Reading a stored run back").
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{Error as _, SeqAccess, Visitor};
        struct Rows;
        impl<'de> Visitor<'de> for Rows {
            type Value = TenantRows;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of tenant rows")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<TenantRows, A::Error> {
                // Made at the first row, which says how many times to
                // thresholds a row has (none without rows).
                let mut rows: Option<TenantRowsBuilder> = None;
                while let Some(row) = seq.next_element::<TenantMetrics>()? {
                    let b = match &mut rows {
                        Some(b) => b,
                        None => rows.insert(
                            TenantRowsBuilder::new(row.time_to.len()).map_err(A::Error::custom)?,
                        ),
                    };
                    b.push(&row).map_err(A::Error::custom)?;
                }
                match rows {
                    Some(b) => b.finish(),
                    None => TenantRowsBuilder::new(0).and_then(TenantRowsBuilder::finish),
                }
                .map_err(A::Error::custom)
            }
        }
        d.deserialize_seq(Rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn row(i: u64, k: usize) -> TenantMetrics {
        TenantMetrics {
            arrival: i * 3,
            regret_area: (i as f64).sqrt() / 7.0 - 0.25,
            time_to: (0..k)
                .map(|j| {
                    (i + j as u64)
                        .is_multiple_of(3)
                        .then_some(i * 11 + j as u64)
                })
                .collect(),
            wait_first_job: (!i.is_multiple_of(4)).then_some(i + 1),
            longest_gap: i * 5,
            jobs: i as u32 % 21,
            gpu_us: i * 1_000_003,
            abandoned: i % 5 == 1,
            budget_exhausted: i % 7 == 2,
            ended: EndReason::ALL[i as usize % EndReason::ALL.len()],
        }
    }

    /// Rows in memory and spilled read back the vector they were made
    /// from, bit for bit; `Serialize` writes the bytes of that vector.
    #[test]
    fn rows_read_back_the_vector_in_memory_and_spilled() {
        for n in [0u64, 1, 5, 3000] {
            for k in [0usize, 1, 3] {
                let want: Vec<TenantMetrics> = (0..n).map(|i| row(i, k)).collect();
                for bytes in [usize::MAX, 0, 1000] {
                    let mut a = TenantRowsBuilder::new(k).expect("builder");
                    a.fixed = Spill::with_threshold(bytes);
                    a.times = Spill::with_threshold(bytes);
                    for i in 0..n {
                        a.push(&row(i, k)).expect("push");
                    }
                    let rows = a.finish().expect("finish");
                    assert_eq!(rows.len(), n as usize);
                    assert_eq!(
                        rows.is_spilled(),
                        n as usize * Fixed::BYTES > bytes,
                        "{bytes}"
                    );
                    let back = rows.to_vec().expect("read");
                    assert_eq!(back, want, "n {n}, k {k}, threshold {bytes}");
                    // The regret areas' bits, not only their values.
                    assert!(
                        back.iter()
                            .zip(&want)
                            .all(|(a, b)| a.regret_area.to_bits() == b.regret_area.to_bits())
                    );
                    let mut stored = Vec::new();
                    crate::core::io::codec::encode(&rows, &mut stored).expect("encode");
                    let mut old = Vec::new();
                    crate::core::io::codec::encode(&want, &mut old).expect("encode");
                    assert_eq!(stored, old, "the bytes of the vector");
                    let decoded: TenantRows =
                        crate::core::io::codec::decode(&stored).expect("decode");
                    assert_eq!(decoded, rows);
                }
            }
        }
    }

    /// Regression for the end of scale-year's run (issue 34): the
    /// aggregate no longer sorts a list of every area, and gives the
    /// figures of the sorted list, bit for bit (spilled rows, ties, both
    /// zeros, with and without isolated areas).
    #[test]
    fn the_aggregate_selects_the_quantiles_the_sorted_areas_give() {
        use crate::core::analysis::stats::{quantile, sort_total};
        for n in [0u64, 1, 2, 7, 1000, 4099] {
            let mut rows: Vec<TenantMetrics> = (0..n).map(|i| row(i, 1)).collect();
            for (i, r) in rows.iter_mut().enumerate() {
                match i % 5 {
                    0 => r.regret_area = 0.5,
                    1 => r.regret_area = -0.0,
                    _ => {}
                }
            }
            let mut b = TenantRowsBuilder::new(1).expect("builder");
            b.fixed = Spill::with_threshold(0);
            for r in &rows {
                b.push(r).expect("push");
            }
            let spilled = b.finish().expect("finish");
            let mut areas: Vec<f64> = rows.iter().map(|t| t.regret_area).collect();
            let sum = areas.iter().sum::<f64>();
            let isolated: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
            let ratios: Vec<f64> = areas
                .iter()
                .zip(&isolated)
                .filter(|(_, i)| **i > 0.0)
                .map(|(a, &i)| a / i)
                .collect();
            sort_total(&mut areas);
            for iso in [None, Some(&isolated[..])] {
                let got = aggregate_tenants(&spilled, iso).expect("aggregate");
                let mean = if n == 0 { 0.0 } else { sum / n as f64 };
                assert_eq!(got.area_mean.to_bits(), mean.to_bits(), "n {n}");
                assert_eq!(
                    got.area_p50.to_bits(),
                    quantile(&areas, 0.5).to_bits(),
                    "n {n}"
                );
                assert_eq!(
                    got.area_p90.to_bits(),
                    quantile(&areas, 0.9).to_bits(),
                    "n {n}"
                );
                let max = areas.last().copied().unwrap_or(0.0);
                assert_eq!(got.area_max.to_bits(), max.to_bits(), "n {n}");
                let abandoned = rows.iter().filter(|t| t.abandoned).count();
                assert_eq!(got.abandoned, abandoned);
                assert_eq!(got.jain, iso.and_then(|_| jain_index(&ratios)));
            }
        }
    }

    #[test]
    fn rows_with_different_numbers_of_times_are_refused() {
        let e = TenantRows::from_vec(vec![row(0, 2), row(1, 3)]).expect_err("refused");
        assert!(
            e.to_string()
                .contains("3 times to thresholds among rows with 2"),
            "{e}"
        );
        // Read back from their stored bytes (rows appended as they are
        // decoded): refused too (postcard keeps no message; JSON says why).
        let rows = vec![row(0, 2), row(1, 3)];
        let mut bytes = Vec::new();
        crate::core::io::codec::encode(&rows, &mut bytes).expect("encode");
        assert!(crate::core::io::codec::decode::<TenantRows>(&bytes).is_err());
        let json = serde_json::to_string(&rows).expect("json");
        let e = serde_json::from_str::<TenantRows>(&json).expect_err("refused");
        assert!(
            e.to_string()
                .contains("3 times to thresholds among rows with 2"),
            "{e}"
        );
    }

    proptest! {
        /// Every field of a row survives its record, whatever its value.
        #[test]
        fn a_row_survives_its_records(
            arrival: u64, area: f64, wait: Option<u64>, gap: u64, gpu: u64, jobs: u32,
            abandoned: bool, budget: bool, ended in 0..6usize,
            times in prop::collection::vec(any::<Option<u64>>(), 0..4),
        ) {
            let t = TenantMetrics {
                arrival,
                regret_area: area,
                time_to: times.clone(),
                wait_first_job: wait,
                longest_gap: gap,
                jobs,
                gpu_us: gpu,
                abandoned,
                budget_exhausted: budget,
                ended: EndReason::ALL[ended],
            };
            let mut b = TenantRowsBuilder::new(times.len()).expect("builder");
            b.fixed = Spill::with_threshold(0);
            b.push(&t).expect("push");
            let back = b.finish().expect("finish").to_vec().expect("read");
            prop_assert_eq!(back.len(), 1);
            prop_assert_eq!(back[0].regret_area.to_bits(), area.to_bits());
            prop_assert_eq!(back[0].time_to.clone(), times);
            prop_assert_eq!(
                (back[0].arrival, back[0].wait_first_job, back[0].longest_gap, back[0].gpu_us),
                (arrival, wait, gap, gpu)
            );
            prop_assert_eq!(
                (back[0].jobs, back[0].abandoned, back[0].budget_exhausted, back[0].ended),
                (jobs, abandoned, budget, EndReason::ALL[ended])
            );
        }
    }
}
