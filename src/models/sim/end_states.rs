//! Every tenant's end state at a run's end: why it ended (DESIGN §12.3,
//! `tenants.csv`'s `ended`) and whether it hit its GPU-time budget
//! (`budget_exhausted`), held without a byte for each tenant of a large
//! run (issue 34: memory by active tenants; DESIGN §2.6 "Done tenants",
//! §8.5).
//!
//! The end states are read when the run ends, in one pass over the done
//! tenants' parked records, in the order the tenants were done (a shuffled
//! order), and used in tenant order (the rows). Two vectors of a byte a
//! tenant held them: 20 MB of scale-year's 10^7 tenants, the last of what
//! it held for every tenant of the run at its peak (docs/PERFORMANCE.md
//! "Internet scale", "The end states in runs on disk").
//!
//! [`EndStates`] holds a run of up to [`DENSE_UP_TO`] tenants (every
//! bundled scenario but the scale ones) as one byte a tenant. A larger run
//! holds (tenant, state) records in [`SortedRuns`] whose runs of
//! [`PLACES_RUN`] records are written to a temporary file as they are
//! sorted, and reads them back merged in tenant order: what stays in
//! memory is the open run while the states are set (5 bytes a record in
//! an 8-byte slot, as much again for the order while it is sorted) and a
//! write buffer, then one small buffered stream a run while they are read
//! in tenant order. A tenant given no state has the default one (the
//! horizon, budget not hit); a tenant given several has the last.
//!
//! It serialises as the two vectors it replaced (`RunOutcome`'s
//! `budget_exhausted` then `ended`): the same bytes in the result cache
//! and in shard files. [`EndReason`], the reason itself, lives here too.

use std::fmt;
use std::sync::Arc;

use serde::de::{SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::error::{Error, Result};
use crate::core::io::sorted_runs::{LastOfEach, SortedRuns};
use crate::core::io::spill::Record;
use crate::core::memory::PLACES_RUN;
use crate::core::sim::slot_index::DENSE_UP_TO;

/// Why a tenant stopped asking for GPUs by the end of a run (DESIGN §12.3,
/// `tenants.csv`'s `ended` on a curve trace). One reason per tenant, the
/// first that holds in this order: [`Patience`](Self::Patience),
/// [`Horizon`](Self::Horizon) with a job still running,
/// [`AllModelsRun`](Self::AllModelsRun), [`ScheduleOver`](Self::ScheduleOver),
/// [`Budget`](Self::Budget), [`MaxJobs`](Self::MaxJobs), else
/// [`Horizon`](Self::Horizon).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum EndReason {
    /// It left for lack of patience (`[limits] patience_s`).
    Patience,
    /// The run ended (horizon) while it still had work: a job running, a
    /// model to run, or it had not arrived.
    #[default]
    Horizon,
    /// Every one of its models was started at its top level.
    AllModelsRun,
    /// Its selector's schedule is over and it asked for nothing more
    /// (`after_schedule = "stop"`), with models never run at their top.
    ScheduleOver,
    /// It hit its GPU-time budget (`[limits] budget_gpu_s`).
    Budget,
    /// It started its `[limits] max_jobs` jobs.
    MaxJobs,
}

impl EndReason {
    /// Every reason, in declaration order (a run's encoding stores its index).
    pub const ALL: [Self; 6] = [
        Self::Patience,
        Self::Horizon,
        Self::AllModelsRun,
        Self::ScheduleOver,
        Self::Budget,
        Self::MaxJobs,
    ];

    /// Its name in `tenants.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Patience => "patience",
            Self::Horizon => "horizon",
            Self::AllModelsRun => "all-models-run",
            Self::ScheduleOver => "schedule-over",
            Self::Budget => "budget",
            Self::MaxJobs => "max-jobs",
        }
    }
}

/// One tenant's end state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EndState {
    /// Why it ended.
    pub ended: EndReason,
    /// Whether it hit its GPU-time budget.
    pub budget_exhausted: bool,
}

/// The budget bit of a state's byte; the low bits are its reason's index
/// in [`EndReason::ALL`].
const BUDGET: u8 = 0x80;

impl EndState {
    /// Its byte: the reason's index in [`EndReason::ALL`], the budget bit
    /// [`BUDGET`].
    fn code(self) -> u8 {
        let reason = EndReason::ALL
            .iter()
            .position(|&r| r == self.ended)
            .unwrap_or(1) as u8;
        reason | if self.budget_exhausted { BUDGET } else { 0 }
    }

    /// The state of byte `b` (a reason index out of range reads as the
    /// default reason: bytes are only ever made by [`Self::code`]).
    fn of(b: u8) -> Self {
        Self {
            ended: EndReason::ALL
                .get(usize::from(b & !BUDGET))
                .copied()
                .unwrap_or_default(),
            budget_exhausted: b & BUDGET != 0,
        }
    }
}

/// A tenant and its state's byte: 5 bytes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stated {
    tenant: u32,
    code: u8,
}

impl Record for Stated {
    const BYTES: usize = 5;
    fn encode(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.tenant.to_le_bytes());
        out[4] = self.code;
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            tenant: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            code: b[4],
        }
    }
}

/// The key records are sorted and found by: the tenant.
fn tenant(r: &Stated) -> u64 {
    u64::from(r.tenant)
}

/// Where the states are.
#[derive(Debug)]
enum Store {
    /// A byte a tenant.
    Dense(Vec<u8>),
    /// (tenant, byte) records, sorted in runs; the last of a tenant counts.
    Runs(Box<SortedRuns<Stated, u64>>),
}

/// Every tenant's [`EndState`] in a run (see the module's documentation).
/// Cheap to clone (the states are shared); never changes once built.
#[derive(Clone)]
pub struct EndStates {
    /// Tenants of the run.
    n: usize,
    store: Arc<Store>,
}

impl Default for EndStates {
    /// No tenant.
    fn default() -> Self {
        Self {
            n: 0,
            store: Arc::new(Store::Dense(Vec::new())),
        }
    }
}

impl EndStates {
    /// The states of `states`, tenant i's the i-th, held a byte a tenant
    /// (what a caller holding them in memory has already).
    pub fn from_states(states: impl IntoIterator<Item = EndState>) -> Self {
        let codes: Vec<u8> = states.into_iter().map(EndState::code).collect();
        Self {
            n: codes.len(),
            store: Arc::new(Store::Dense(codes)),
        }
    }

    /// Tenants of the run.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the run had no tenant.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether the states are held in sorted runs (a run of more than
    /// [`DENSE_UP_TO`] tenants) rather than a byte a tenant.
    pub fn is_in_runs(&self) -> bool {
        matches!(*self.store, Store::Runs(_))
    }

    /// Tenant `i`'s state. In runs, a search of every run (a point lookup:
    /// read many with [`Self::iter`]). An error: `i` is not a tenant of
    /// the run, or reading a run back.
    pub fn get(&self, i: usize) -> Result<EndState> {
        if i >= self.n {
            return Err(Error::input(format!(
                "tenant {i} has no end state: the run has {} tenants",
                self.n
            )));
        }
        match &*self.store {
            Store::Dense(codes) => Ok(EndState::of(codes[i])),
            Store::Runs(runs) => Ok(runs
                .last_of(i as u64)?
                .map_or_else(EndState::default, |r| EndState::of(r.code))),
        }
    }

    /// Every tenant's state, in tenant order (an error reading a run back
    /// is an item, and the last).
    pub fn iter(&self) -> EndStatesIter<'_> {
        let inner = match &*self.store {
            Store::Dense(codes) => Inner::Dense(codes.iter()),
            Store::Runs(runs) => match runs.merged() {
                Ok(merged) => Inner::Runs(LastOfEach::new(merged, self.n as u64)),
                Err(e) => Inner::Failed(Some(e)),
            },
        };
        EndStatesIter { inner }
    }

    /// Every tenant's state, read into a vector.
    pub fn to_vec(&self) -> Result<Vec<EndState>> {
        self.iter().collect()
    }

    /// Every tenant's end reason, read into a vector.
    pub fn reasons(&self) -> Result<Vec<EndReason>> {
        self.iter().map(|s| s.map(|s| s.ended)).collect()
    }

    /// Every tenant's budget flag, read into a vector.
    pub fn budget_flags(&self) -> Result<Vec<bool>> {
        self.iter().map(|s| s.map(|s| s.budget_exhausted)).collect()
    }
}

/// The states of an [`EndStates`], in tenant order.
#[derive(Debug)]
pub struct EndStatesIter<'a> {
    inner: Inner<'a>,
}

/// How an [`EndStatesIter`] reads.
#[derive(Debug)]
enum Inner<'a> {
    Dense(std::slice::Iter<'a, u8>),
    /// The runs merged, each tenant's last record (none: the default
    /// state).
    Runs(LastOfEach<'a, Stated, u64>),
    /// Reading failed: the error, once.
    Failed(Option<Error>),
}

impl Iterator for EndStatesIter<'_> {
    type Item = Result<EndState>;

    fn next(&mut self) -> Option<Result<EndState>> {
        match &mut self.inner {
            Inner::Dense(codes) => codes.next().map(|&b| Ok(EndState::of(b))),
            Inner::Failed(e) => e.take().map(Err),
            Inner::Runs(last) => last
                .next()
                .map(|r| r.map(|r| r.map_or_else(EndState::default, |r| EndState::of(r.code)))),
        }
    }
}

/// The end states of a run as they are read at its end, tenant by tenant
/// in any order ([`EndStates`]'s module documentation).
#[derive(Debug)]
pub(crate) struct EndStatesBuilder {
    n: usize,
    store: Store,
}

impl EndStatesBuilder {
    /// States for tenants `0..n`, each the default until set: a byte a
    /// tenant up to [`DENSE_UP_TO`] tenants, in runs on disk above.
    pub(crate) fn new(n: usize) -> Self {
        if n <= DENSE_UP_TO {
            Self {
                n,
                store: Store::Dense(vec![EndState::default().code(); n]),
            }
        } else {
            Self::in_runs(n, PLACES_RUN, 0)
        }
    }

    /// States held in runs of `run_records`, spilled past `spill_bytes`,
    /// whatever the tenants (the form of a large run; tests use it on
    /// small ones).
    pub(crate) fn in_runs(n: usize, run_records: usize, spill_bytes: usize) -> Self {
        Self {
            n,
            store: Store::Runs(Box::new(SortedRuns::new(
                tenant,
                0,
                run_records,
                spill_bytes,
            ))),
        }
    }

    /// Tenant `i`'s state is `s` (a later call for the same tenant
    /// overrides it). An error: `i` is not a tenant of the run, or writing
    /// a run.
    pub(crate) fn set(&mut self, i: usize, s: EndState) -> Result<()> {
        let tenant = u32::try_from(i)
            .ok()
            .filter(|_| i < self.n)
            .ok_or_else(|| {
                Error::input(format!(
                    "internal: an end state for tenant {i}, in a run of {} tenants",
                    self.n
                ))
            })?;
        match &mut self.store {
            Store::Dense(codes) => {
                codes[i] = s.code();
                Ok(())
            }
            Store::Runs(runs) => runs.push(
                Stated {
                    tenant,
                    code: s.code(),
                },
                [],
            ),
        }
    }

    /// The states, built. An error: writing the last run.
    pub(crate) fn finish(mut self) -> Result<EndStates> {
        if let Store::Runs(runs) = &mut self.store {
            runs.seal()?;
        }
        Ok(EndStates {
            n: self.n,
            store: Arc::new(self.store),
        })
    }
}

impl PartialEq for EndStates {
    /// The same states (an unreadable state is unequal to everything).
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.iter().zip(other.iter()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

/// Printed as the per-tenant list of states.
impl fmt::Debug for EndStates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(states) => f.debug_list().entries(&states).finish(),
            Err(e) => write!(f, "EndStates(unreadable: {e})"),
        }
    }
}

/// Serialised as the two per-tenant sequences it replaced, one after the
/// other: the budget flags (`bool`s), then the end reasons. In postcard (the
/// result cache's and the shards' encoding, `core/io/codec.rs`) a tuple
/// is its elements in order, so these are the bytes of the two fields.
impl Serialize for EndStates {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        /// One of the sequences: a field of every state, read as it is
        /// written.
        struct Column<'a, T>(&'a EndStates, fn(EndState) -> T);
        impl<T: Serialize> Serialize for Column<'_, T> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                use serde::ser::Error as _;
                let mut seq = s.serialize_seq(Some(self.0.n))?;
                for state in self.0.iter() {
                    seq.serialize_element(&(self.1)(state.map_err(S::Error::custom)?))?;
                }
                seq.end()
            }
        }
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&Column(self, |s| s.budget_exhausted))?;
        t.serialize_element(&Column(self, |s| s.ended))?;
        t.end()
    }
}

impl<'de> Deserialize<'de> for EndStates {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Pair;
        impl<'de> Visitor<'de> for Pair {
            type Value = EndStates;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the tenants' budget flags, then their end reasons")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<EndStates, A::Error> {
                use serde::de::Error as _;
                let budget: Vec<bool> = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let ended: Vec<EndReason> = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                if budget.len() != ended.len() {
                    return Err(A::Error::custom(format!(
                        "{} budget flags but {} end reasons",
                        budget.len(),
                        ended.len()
                    )));
                }
                Ok(EndStates::from_states(budget.into_iter().zip(ended).map(
                    |(budget_exhausted, ended)| EndState {
                        ended,
                        budget_exhausted,
                    },
                )))
            }
        }
        d.deserialize_tuple(2, Pair)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sim::rng::{Purpose, below, stream};

    /// 900 states set for tenants of 500 drawn at random (some tenants
    /// set several times, some never), each a reason and a flag drawn too.
    fn sets(n: usize) -> Vec<(usize, EndState)> {
        let mut rng = stream(5, 0, Purpose::Arrivals);
        (0..900)
            .map(|_| {
                let i = below(&mut rng, n);
                let ended = EndReason::ALL[below(&mut rng, EndReason::ALL.len())];
                let budget_exhausted = below(&mut rng, 3) == 0;
                (
                    i,
                    EndState {
                        ended,
                        budget_exhausted,
                    },
                )
            })
            .collect()
    }

    /// The builder's forms against a vector of the last state set per
    /// tenant: in memory and on file, runs of 1, of 64 and of everything.
    #[test]
    fn every_form_reads_the_last_state_set_in_tenant_order() {
        let n = 500;
        let sets = sets(n);
        let mut want = vec![EndState::default(); n];
        for &(i, s) in &sets {
            want[i] = s;
        }
        for b in [
            EndStatesBuilder::new(n),
            EndStatesBuilder::in_runs(n, 64, 0),
            EndStatesBuilder::in_runs(n, 64, usize::MAX),
            EndStatesBuilder::in_runs(n, 1, 0),
            EndStatesBuilder::in_runs(n, 10_000, 0),
        ] {
            let mut b = b;
            for &(i, s) in &sets {
                b.set(i, s).expect("set");
            }
            let states = b.finish().expect("finish");
            assert_eq!(states.to_vec().expect("read"), want);
            assert_eq!(states.to_vec().expect("read again"), want);
            for (i, w) in want.iter().enumerate() {
                assert_eq!(states.get(i).expect("get"), *w, "tenant {i}");
            }
            assert_eq!(
                states.reasons().expect("reasons"),
                want.iter().map(|s| s.ended).collect::<Vec<_>>()
            );
            assert_eq!(
                states.budget_flags().expect("flags"),
                want.iter().map(|s| s.budget_exhausted).collect::<Vec<_>>()
            );
            assert_eq!(states, EndStates::from_states(want.clone()));
            assert_eq!(states.clone(), states);
            assert!(states.get(n).is_err());
        }
    }

    #[test]
    fn large_runs_hold_their_states_in_runs() {
        let dense = EndStatesBuilder::new(DENSE_UP_TO).finish().expect("finish");
        assert!(!dense.is_in_runs());
        let runs = EndStatesBuilder::new(DENSE_UP_TO + 1)
            .finish()
            .expect("finish");
        assert!(runs.is_in_runs());
        assert_eq!(runs.len(), DENSE_UP_TO + 1);
        assert_eq!(runs.get(DENSE_UP_TO).expect("get"), EndState::default());
    }

    #[test]
    fn a_state_out_of_range_is_an_error() {
        let mut b = EndStatesBuilder::new(3);
        let e = b.set(3, EndState::default()).expect_err("out of range");
        assert!(e.to_string().contains("tenant 3, in a run of 3"), "{e}");
        let mut b = EndStatesBuilder::in_runs(3, 4, 0);
        assert!(b.set(7, EndState::default()).is_err());
    }

    #[test]
    fn every_reason_and_flag_round_trips_through_its_byte() {
        for ended in EndReason::ALL {
            for budget_exhausted in [false, true] {
                let s = EndState {
                    ended,
                    budget_exhausted,
                };
                assert_eq!(EndState::of(s.code()), s);
            }
        }
        assert_eq!(
            EndState::of(EndState::default().code()),
            EndState::default()
        );
    }

    /// The result cache's bytes do not move: postcard encodes it as the
    /// two vectors it replaced, one after the other, whatever its form,
    /// and reads their bytes back into it.
    #[test]
    fn it_is_serialised_as_the_two_vectors_it_replaced() {
        let n = 300;
        let mut want = vec![EndState::default(); n];
        for (i, s) in sets(n) {
            want[i] = s;
        }
        let budget: Vec<bool> = want.iter().map(|s| s.budget_exhausted).collect();
        let ended: Vec<EndReason> = want.iter().map(|s| s.ended).collect();
        let mut reference = postcard::to_allocvec(&budget).expect("encode");
        reference.extend(postcard::to_allocvec(&ended).expect("encode"));
        let mut b = EndStatesBuilder::in_runs(n, 16, 0);
        for (i, &s) in want.iter().enumerate().rev() {
            b.set(i, s).expect("set");
        }
        for states in [
            EndStates::from_states(want.clone()),
            b.finish().expect("finish"),
        ] {
            let bytes = postcard::to_allocvec(&states).expect("encode");
            assert_eq!(bytes, reference);
            let back: EndStates = postcard::from_bytes(&bytes).expect("decode");
            assert_eq!(back, states);
        }
        let empty = postcard::to_allocvec(&EndStates::default()).expect("encode");
        assert_eq!(empty, [0, 0]);
        // Flags and reasons of different lengths are refused.
        let mut bad = postcard::to_allocvec(&vec![true; 2]).expect("encode");
        bad.extend(postcard::to_allocvec(&vec![EndReason::Budget; 3]).expect("encode"));
        assert!(postcard::from_bytes::<EndStates>(&bad).is_err());
    }
}
