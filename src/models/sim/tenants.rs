//! Per-tenant state of one simulation, readable by every policy.
//!
//! A tenant's state lives in one of three places (issue 34: memory by
//! active tenants; DESIGN §2.6 "Done tenants"):
//! - **not arrived**: nothing; its state is the fresh one, made when read
//!   (its available models, counted at the start, are kept only for a
//!   trace where some tenant lacks a model);
//! - **live**: a slot of dense per-slot arrays (its [`TenantState`] and
//!   its flags over the trace's models), taken when it arrives and given
//!   back when it is parked, so the arrays are sized by the most tenants
//!   present at once (a few thousand in scale-year's 10^7);
//! - **parked**: once done ([`Tenants::is_done`]), the engine parks it
//!   (`park`): its state and flags are appended to a [`Spill`] (in memory
//!   up to [`PARKED_IN_MEMORY`], then in a temporary file, written
//!   [`WRITE_BUFFER`](crate::core::io::spill::WRITE_BUFFER) bytes at a
//!   time), its place there is kept ([`ParkedPlaces`]: by tenant up to
//!   65,536 tenants, in sorted runs on disk above), and they are read
//!   back when asked for, one record at a time, or all in one pass at the
//!   end of the run. Appended, not written at the tenant's index: tenants
//!   are done in the order they arrived, a shuffled order (DESIGN §2.8),
//!   and a record written at its index was one write to the file a tenant
//!   (docs/PERFORMANCE.md "Internet scale", "Done tenants were written one
//!   at a time"). A parked tenant is done, so what a
//!   decision asks of it (arrived, eligible, done, running) is answered
//!   without reading it back. Changing a parked tenant's state (nothing
//!   the engine does after a tenant is done) brings it back to a slot.
//!
//! Which of the three places holds a tenant: its slot number, held only
//! while it holds a slot ([`SlotIndex`]: a hash table of the live tenants
//! in a run of more than 65,536 tenants, until many are live at once),
//! and one bit a tenant, set while it is parked. Nothing else is held for
//! every tenant of the run (issue 34: scale-year's 10^7 tenants held 4
//! bytes each of slot numbers and places, 40 MB).
//!
//! Every accessor answers what it answered when all state was held per
//! tenant: the places hold the same values (tests below).

use std::sync::OnceLock;

use super::parked_places::ParkedPlaces;
use super::{
    Arrivals, EndReason, EndState, EndStates, EndStatesBuilder, LeftAt, LeftAtBuilder, TenantUsers,
};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::io::spill::{Record, Spill, spill_threshold};
use crate::core::sim::bits::Bits;
use crate::core::sim::prefetch::{PrefetchStep, prefetch, prefetch_all, prefetch_slice};
use crate::core::sim::slot_index::{NONE, SlotIndex};
use crate::models::trace::{Micros, Trace};

/// Bytes of parked tenants' state (each of its two sequences) kept in
/// memory before it moves to a temporary file: 4 MiB, about 100,000
/// tenants (as the fold's parked figures, `models/metrics/tenant_fold.rs`).
pub const PARKED_IN_MEMORY: usize = 4 << 20;

/// Records the parked sequences hold at most: places are `u32`, one
/// value kept for none.
const MOST_PARKED: u64 = u32::MAX as u64 - 1;

/// State of the tenants of one run. Tenant `i` is trace user
/// [`Tenants::user`]`(i)`; tenants are ordered by trace index, so "lowest
/// index" tie-breaking is trace order (DESIGN §1.1).
///
/// What a decision reads of a live tenant (eligibility, best_i, counts)
/// sits in one 48-byte record per slot, so checking a tenant touches the
/// slot number and one cache line, not one per field.
#[derive(Debug)]
pub struct Tenants {
    user: TenantUsers,
    n_models: usize,
    /// Shared with the run's event queue (one copy of 10^7 arrivals, not
    /// one each), or drawn as the run goes (none held).
    arrival: Arrivals,
    /// Each live tenant's slot in `live` ([`NONE`] for a tenant not
    /// live: not arrived, or parked).
    slot_of: SlotIndex,
    /// Per tenant: whether it is parked (its state on the parked
    /// sequences, at its place in `places`).
    parked_bits: Bits,
    /// Each parked tenant's place in the parked sequences.
    places: ParkedPlaces,
    /// Per slot: the state of the tenant holding it.
    live: Vec<TenantState>,
    /// `slots × K` flags over trace models: `CLOSED` (started at the
    /// model's top level, for a plain trace started at all, so never
    /// proposed again) and `RUNNING` (a job of the model is running).
    /// One byte for both, so `is_tried` reads one array, not two (at 10^6
    /// tenants each is a cache miss; docs/PERFORMANCE.md "Internet scale").
    flags: Vec<u8>,
    /// Free slots, the last freed on top.
    free: Vec<u32>,
    /// Per tenant: its available models, unless every tenant has every
    /// trace model (`None`: the common case holds nothing).
    available: Option<Vec<u32>>,
    /// `n × K` by tenant: the highest level started / completed,
    /// [`NO_LEVEL`] for none (DESIGN §12.1; a curve trace only, empty on a
    /// plain trace, where the level is always 0).
    level_started: Vec<u16>,
    level_done: Vec<u16>,
    /// Parked tenants' state, with their index, in the order they were
    /// parked (a tenant parked again, its state changed after it was
    /// done, has a later record: the one `places` names counts).
    parked: Spill<ParkedState>,
    /// Parked tenants' flags, `flag_words(K)` words a record at `place ×
    /// words`, two bits a model.
    parked_flags: Spill<u64>,
    /// With arrivals drawn as the run goes ([`Arrivals::Streamed`]), the
    /// times the tenants arrived, per slot (beside `live`) and per parked
    /// record (beside `parked`): what [`Self::arrival`] answers for a
    /// tenant that has arrived, held only while the tenant is. Empty with
    /// listed arrivals.
    arrived_at: Vec<Micros>,
    parked_arrived_at: Spill<u64>,
    /// The first error reading parked state back: the accessors answer a
    /// done tenant's fresh state instead, and the engine reports it
    /// ([`Self::check`]) rather than go on from a wrong state.
    failure: OnceLock<Error>,
    max_running: u32,
    limits: TenantLimits,
    /// The simulated time of the decision being made, µs.
    now: Micros,
    /// Free GPUs when the decision is made.
    free_gpus: u32,
    /// Type of the GPU the decision fills.
    gpu_type: GpuType,
}

/// The per-tenant fields of [`Tenants`] that change during a run.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TenantState {
    /// best_i: the highest accuracy among completed jobs, 0 before the first.
    best: f64,
    /// GPU-µs of completed plus running jobs.
    used: u64,
    /// When it left (meaningful when `left`).
    left_at: Micros,
    /// The engine's last started job of the tenant still in its list of
    /// running jobs, [`NO_JOB`] for none (the engine's bookkeeping, kept
    /// here so that it lives, and is parked, with the tenant).
    last_job: u32,
    running: u32,
    completed: u32,
    untried: u32,
    started: u32,
    arrived: bool,
    left: bool,
    exhausted: bool,
    /// The selector proposed nothing for the tenant; it waits for one of
    /// its running jobs to complete (DESIGN §12.2).
    waiting: bool,
    /// Every trace model is available to the tenant (fixed at the start;
    /// kept here, beside what a decision reads anyway, so checking a
    /// proposal's availability reads no trace row: one cache miss fewer
    /// per decision at 10^6 tenants).
    every_model: bool,
}

/// No job: [`TenantState::last_job`] of a tenant with none running.
pub(super) const NO_JOB: u32 = u32::MAX;

impl Default for TenantState {
    fn default() -> Self {
        Self {
            best: 0.0,
            used: 0,
            left_at: 0,
            last_job: NO_JOB,
            running: 0,
            completed: 0,
            untried: 0,
            started: 0,
            arrived: false,
            left: false,
            exhausted: false,
            waiting: false,
            every_model: false,
        }
    }
}

impl Record for TenantState {
    /// Three 8-byte figures, five counts, a byte of flags.
    const BYTES: usize = 45;
    fn encode(&self, out: &mut [u8]) {
        out[0..8].copy_from_slice(&self.best.to_bits().to_le_bytes());
        out[8..16].copy_from_slice(&self.used.to_le_bytes());
        out[16..24].copy_from_slice(&self.left_at.to_le_bytes());
        for (j, c) in [
            self.last_job,
            self.running,
            self.completed,
            self.untried,
            self.started,
        ]
        .iter()
        .enumerate()
        {
            out[24 + 4 * j..28 + 4 * j].copy_from_slice(&c.to_le_bytes());
        }
        out[44] = u8::from(self.arrived)
            | u8::from(self.left) << 1
            | u8::from(self.exhausted) << 2
            | u8::from(self.waiting) << 3
            | u8::from(self.every_model) << 4;
    }
    fn decode(b: &[u8]) -> Self {
        let count = |j: usize| {
            let at = 24 + 4 * j;
            u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
        };
        Self {
            best: f64::from_bits(u64::decode(&b[0..8])),
            used: u64::decode(&b[8..16]),
            left_at: u64::decode(&b[16..24]),
            last_job: count(0),
            running: count(1),
            completed: count(2),
            untried: count(3),
            started: count(4),
            arrived: b[44] & 1 != 0,
            left: b[44] & 2 != 0,
            exhausted: b[44] & 4 != 0,
            waiting: b[44] & 8 != 0,
            every_model: b[44] & 16 != 0,
        }
    }
}

/// A parked tenant's record: its index and its state.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ParkedState {
    tenant: u32,
    state: TenantState,
}

impl Record for ParkedState {
    /// The tenant's index, then its state.
    const BYTES: usize = 4 + TenantState::BYTES;
    fn encode(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.tenant.to_le_bytes());
        self.state.encode(&mut out[4..]);
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            tenant: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            state: TenantState::decode(&b[4..]),
        }
    }
}

/// Every tenant's end state and leave time ([`Tenants::end_reasons`]).
#[derive(Debug)]
pub(super) struct EndOfRun {
    pub(super) states: EndStates,
    pub(super) left_at: LeftAt,
}

/// No level started or completed yet.
const NO_LEVEL: u16 = u16::MAX;

/// `Tenants::flags` bit: the model was started at its top level.
const CLOSED: u8 = 1;
/// `Tenants::flags` bit: a job of the model is running.
const RUNNING: u8 = 2;

/// Words of parked flags a tenant: two bits a model, 32 models a word.
fn flag_words(k: usize) -> usize {
    k.div_ceil(32)
}

/// Per-tenant limits (the scenario's `[limits]`, DESIGN §2.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TenantLimits {
    /// GPU-µs a tenant may use (completed plus running jobs); the job that
    /// would cross it is not started and the tenant stops being eligible.
    pub budget: Option<Micros>,
    /// Jobs a tenant may start in total.
    pub max_jobs: Option<u32>,
    /// A tenant with no completed job this long after arriving leaves.
    pub patience: Option<Micros>,
}

impl Clone for Tenants {
    /// An independent copy (a fork of the run): parked state is copied
    /// too; a copy that fails is reported by the copy's `check`.
    fn clone(&self) -> Self {
        let mut failure = self.failure.get().cloned();
        let parked = self.parked.copy_or_empty(&mut failure);
        let parked_flags = self.parked_flags.copy_or_empty(&mut failure);
        let parked_arrived_at = self.parked_arrived_at.copy_or_empty(&mut failure);
        let places = self.places.copy_or_empty(&mut failure);
        let lock = OnceLock::new();
        if let Some(e) = failure {
            let _ = lock.set(e);
        }
        Self {
            user: self.user.clone(),
            n_models: self.n_models,
            arrival: self.arrival.clone(),
            slot_of: self.slot_of.clone(),
            parked_bits: self.parked_bits.clone(),
            places,
            live: self.live.clone(),
            flags: self.flags.clone(),
            free: self.free.clone(),
            available: self.available.clone(),
            level_started: self.level_started.clone(),
            level_done: self.level_done.clone(),
            parked,
            parked_flags,
            arrived_at: self.arrived_at.clone(),
            parked_arrived_at,
            failure: lock,
            max_running: self.max_running,
            limits: self.limits,
            now: self.now,
            free_gpus: self.free_gpus,
            gpu_type: self.gpu_type,
        }
    }
}

impl Tenants {
    /// Fresh state for trace users `users` (ascending), arriving at
    /// `arrival` (µs), each allowed `max_running` concurrent jobs.
    pub fn new(
        trace: &Trace,
        users: &TenantUsers,
        arrival: &[Micros],
        max_running: u32,
        limits: TenantLimits,
    ) -> Self {
        Self::sharing(trace, users.clone(), arrival.into(), max_running, limits)
    }

    /// [`Self::new`], holding `users` and `arrival` shared rather than
    /// copied (the runner's: DESIGN §8.5), or arrivals drawn as the run
    /// goes.
    pub(super) fn sharing(
        trace: &Trace,
        users: TenantUsers,
        arrival: Arrivals,
        max_running: u32,
        limits: TenantLimits,
    ) -> Self {
        let n = users.len();
        let k = trace.n_models();
        // The available models, ascending and distinct: all K exactly
        // when there are K of them.
        let every = u32::try_from(k).unwrap_or(u32::MAX);
        let count = |u: usize| u32::try_from(trace.models_of(u).len()).unwrap_or(u32::MAX);
        // A trace whose users share one list of all K models (a generated
        // trace) needs no count per tenant: not even for the check (4
        // bytes for each of scale-year's 10^7 tenants at the start).
        let shared_all = trace.shared_models().is_some_and(|l| l.len() == k);
        let available = if shared_all || users.iter().all(|u| count(u) == every) {
            None
        } else {
            Some(users.iter().map(count).collect::<Vec<u32>>())
        };
        let bytes = spill_threshold().map_or(PARKED_IN_MEMORY, |t| t.min(PARKED_IN_MEMORY));
        Self {
            user: users,
            n_models: k,
            arrival,
            slot_of: SlotIndex::new(n),
            parked_bits: Bits::new(n),
            places: ParkedPlaces::new(n),
            live: Vec::new(),
            flags: Vec::new(),
            free: Vec::new(),
            available,
            level_started: vec![NO_LEVEL; if trace.is_curve() { n * k } else { 0 }],
            level_done: vec![NO_LEVEL; if trace.is_curve() { n * k } else { 0 }],
            parked: Spill::with_threshold(bytes),
            parked_flags: Spill::with_threshold(bytes),
            arrived_at: Vec::new(),
            parked_arrived_at: Spill::with_threshold(bytes),
            failure: OnceLock::new(),
            max_running,
            limits,
            now: 0,
            free_gpus: 0,
            gpu_type: 0,
        }
    }

    /// Tenant `i`'s state before it arrived.
    fn fresh(&self, i: usize) -> TenantState {
        let every = u32::try_from(self.n_models).unwrap_or(u32::MAX);
        let available = self.available.as_ref().map_or(every, |a| a[i]);
        TenantState {
            untried: available,
            every_model: available == every,
            ..TenantState::default()
        }
    }

    /// Tenant `i`'s parked state (a done tenant's fresh state, arrived, if
    /// it cannot be read back; the failure is kept for [`Self::check`]).
    fn parked_state(&self, i: usize) -> TenantState {
        self.state_from(i, self.place_of(i))
    }

    /// Tenant `i`'s state parked at `place`, or its fresh state for none.
    fn state_from(&self, i: usize, place: Option<u64>) -> TenantState {
        place.map_or_else(|| self.fresh(i), |at| self.state_at(i, at))
    }

    /// Parked tenant `i`'s state, its record at place `at`.
    fn state_at(&self, i: usize, at: u64) -> TenantState {
        self.parked.get(at).map(|r| r.state).unwrap_or_else(|e| {
            let _ = self
                .failure
                .set(e.context("reading a done tenant's state back"));
            TenantState {
                arrived: true,
                ..self.fresh(i)
            }
        })
    }

    /// Parked tenant `i`'s place in the parked sequences; `None` for a
    /// tenant not parked, or a place that cannot be read back (a done
    /// tenant's fresh state is answered then; the failure is kept for
    /// [`Self::check`]).
    fn place_of(&self, i: usize) -> Option<u64> {
        if !self.parked_bits.get(i) {
            return None;
        }
        match self.places.get(i) {
            Ok(Some(at)) => Some(at),
            Ok(None) => {
                let _ = self.failure.set(Error::input(format!(
                    "internal: parked tenant {i} has no place"
                )));
                None
            }
            Err(e) => {
                let _ = self
                    .failure
                    .set(e.context("reading where a done tenant's state is"));
                None
            }
        }
    }

    /// Tenant `i`'s state, wherever it lives (a live tenant's inline: the
    /// decisions' path; the others out of line).
    #[inline]
    fn st(&self, i: usize) -> TenantState {
        let s = self.slot_of.get(i);
        if s != NONE {
            return self.live[s as usize];
        }
        self.st_not_live(i)
    }

    /// A field of tenant `i`'s state, read in place for a live tenant (no
    /// copy of its state: the accessors' path, every decision).
    #[inline]
    fn field<T>(&self, i: usize, f: impl Fn(&TenantState) -> T) -> T {
        let s = self.slot_of.get(i);
        if s != NONE {
            return f(&self.live[s as usize]);
        }
        f(&self.st_not_live(i))
    }

    /// [`Self::st`] of a tenant not live.
    #[inline(never)]
    fn st_not_live(&self, i: usize) -> TenantState {
        self.parked_state(i)
    }

    /// Tenant `i`'s flags of model `k` (a live tenant's inline: a
    /// selector reads them for every model of every tenant it scores).
    #[inline]
    fn flag(&self, i: usize, k: usize) -> u8 {
        let s = self.slot_of.get(i);
        if s != NONE {
            return self.flags[s as usize * self.n_models + k];
        }
        self.flag_not_live(i, k)
    }

    /// [`Self::flag`] of a tenant not live.
    #[inline(never)]
    fn flag_not_live(&self, i: usize, k: usize) -> u8 {
        let s = self.slot_of.get(i);
        if s != NONE {
            return self.flags[s as usize * self.n_models + k];
        }
        self.place_of(i).map_or(0, |place| self.flag_at(place, k))
    }

    /// The flags of model `k` parked at place `place`.
    fn flag_at(&self, place: u64, k: usize) -> u8 {
        let w = flag_words(self.n_models) as u64;
        let word = self
            .parked_flags
            .get(place * w + (k / 32) as u64)
            .unwrap_or_else(|e| {
                let _ = self
                    .failure
                    .set(e.context("reading a done tenant's state back"));
                0
            });
        ((word >> (2 * (k % 32))) & 3) as u8
    }

    /// Tenant `i`'s slot, taking one if it holds none: its fresh state if
    /// it had not arrived, its parked state if it was parked.
    #[inline]
    fn slot_mut(&mut self, i: usize) -> usize {
        let s = self.slot_of.get(i);
        if s != NONE {
            return s as usize;
        }
        self.take_slot(i)
    }

    /// [`Self::slot_mut`] of a tenant not live: a slot taken for it.
    #[inline(never)]
    fn take_slot(&mut self, i: usize) -> usize {
        // Its place found once (in a large run, a search of the places
        // on disk), its state and flags read there.
        let place = self.place_of(i);
        let state = self.state_from(i, place);
        let k = self.n_models;
        let flags: Vec<u8> = match place {
            Some(at) => (0..k).map(|m| self.flag_at(at, m)).collect(),
            None => Vec::new(),
        };
        let slot = match self.free.pop() {
            Some(f) => f as usize,
            None => {
                self.live.push(TenantState::default());
                self.flags.resize(self.flags.len() + k, 0);
                self.live.len() - 1
            }
        };
        self.live[slot] = state;
        let room = &mut self.flags[slot * k..(slot + 1) * k];
        room.fill(0);
        if !flags.is_empty() {
            room.copy_from_slice(&flags);
        }
        if self.is_streamed() {
            let at = place.map_or(0, |place| self.parked_arrival(place));
            self.set_arrived_at(slot, at);
        }
        // Slots number the most tenants live at once (below 2³² − 1, the
        // index's none: each holds 48 + K bytes, 200 GB at 2³²).
        self.slot_of
            .set(i, u32::try_from(slot).map_or(NONE - 1, |s| s.min(NONE - 1)));
        // Live again: its parked record no longer counts.
        self.parked_bits.clear(i);
        slot
    }

    /// Tenant `i`'s state to change.
    #[inline]
    fn state_mut(&mut self, i: usize) -> &mut TenantState {
        let s = self.slot_mut(i);
        &mut self.live[s]
    }

    /// Tenant `i`'s flags of model `k` to change.
    #[inline]
    fn flag_mut(&mut self, i: usize, k: usize) -> &mut u8 {
        let s = self.slot_mut(i);
        &mut self.flags[s * self.n_models + k]
    }

    /// Park done tenant `i` (DESIGN §2.6 "Done tenants"): its state and
    /// flags are appended to the parked sequences, its place there is
    /// kept, and its slot goes to the next tenant that arrives. A tenant
    /// not live (or not done) stays as it is. An error: the parked
    /// sequences' I/O, or more than 2³² − 2 records parked.
    pub(super) fn park(&mut self, i: usize) -> Result<()> {
        let s = self.slot_of.get(i);
        if s == NONE || !self.is_done(i) {
            return Ok(());
        }
        let place = u32::try_from(self.parked.len())
            .ok()
            .filter(|&p| u64::from(p) < MOST_PARKED)
            .ok_or_else(|| {
                Error::input(format!(
                    "more than {MOST_PARKED} done tenants parked in one run"
                ))
            })?;
        let tenant = u32::try_from(i)
            .map_err(|_| Error::input(format!("tenant {i} is beyond 2^32 tenants")))?;
        let s = s as usize;
        let k = self.n_models;
        let w = flag_words(k);
        self.parked.push(ParkedState {
            tenant,
            state: self.live[s],
        })?;
        if self.is_streamed() {
            let at = self.arrived_at.get(s).copied().unwrap_or(0);
            self.parked_arrived_at.push(at)?;
        }
        for j in 0..w {
            let mut word = 0u64;
            for (b, &f) in self.flags[s * k..(s + 1) * k]
                .iter()
                .enumerate()
                .skip(32 * j)
                .take(32)
            {
                word |= u64::from(f & 3) << (2 * (b % 32));
            }
            self.parked_flags.push(word)?;
        }
        self.places.set(tenant, place)?;
        self.slot_of.remove(i);
        self.parked_bits.set(i);
        self.free.push(s as u32);
        Ok(())
    }

    /// Whether tenant `i` is parked (done, its state on the parked
    /// sequences).
    pub(super) fn is_parked(&self, i: usize) -> bool {
        self.parked_bits.get(i)
    }

    /// The first error reading a parked tenant's state back, if any (the
    /// engine checks after each event and decision).
    pub(super) fn check(&self) -> Result<()> {
        match self.failure.get() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The most tenants live at once so far: the slots the per-slot
    /// arrays have grown to (the tests' bound on them; whether the engine
    /// gives prefetch hints).
    pub(super) fn high_water(&self) -> usize {
        self.live.len()
    }

    /// The simulated time of the current decision, µs.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Free GPUs at the current decision (counting the one being
    /// assigned).
    pub fn free_gpus(&self) -> u32 {
        self.free_gpus
    }

    /// The GPU type (index into [`GpuTypes::names`](super::GpuTypes::names))
    /// of the GPU the current decision fills: the lowest free GPU
    /// (DESIGN §11.4). Always 0 on an untyped cluster. A selector proposes,
    /// and a scheduler scores, for a job on this type.
    pub fn gpu_type(&self) -> GpuType {
        self.gpu_type
    }

    pub(super) fn set_gpu_type(&mut self, t: GpuType) {
        self.gpu_type = t;
    }

    #[doc(hidden)]
    pub fn set_now(&mut self, now: Micros) {
        self.now = now;
    }

    pub(super) fn set_free_gpus(&mut self, free: u32) {
        self.free_gpus = free;
    }

    /// Jobs tenant `i` has started (running, completed or cancelled).
    pub fn started(&self, i: usize) -> u32 {
        self.field(i, |t| t.started)
    }
    /// GPU-µs of tenant `i`'s completed and running jobs.
    pub fn used(&self, i: usize) -> u64 {
        self.field(i, |t| t.used)
    }
    /// Whether tenant `i` left for lack of patience.
    pub fn has_left(&self, i: usize) -> bool {
        self.field(i, |t| t.left)
    }
    /// Whether tenant `i` hit its GPU-time budget.
    pub fn is_exhausted(&self, i: usize) -> bool {
        self.field(i, |t| t.exhausted)
    }
    /// The per-tenant limits.
    pub fn limits(&self) -> TenantLimits {
        self.limits
    }
    /// Whether starting a job of `runtime` µs would put tenant `i` over its
    /// budget.
    pub fn would_exceed_budget(&self, i: usize, runtime: Micros) -> bool {
        self.limits
            .budget
            .is_some_and(|b| self.field(i, |t| t.used).saturating_add(runtime) > b)
    }

    /// Number of tenants.
    pub fn len(&self) -> usize {
        self.user.len()
    }
    /// Whether there are no tenants.
    pub fn is_empty(&self) -> bool {
        self.user.is_empty()
    }
    /// Prefetch hints for what a completion of tenant `i` reads here: at
    /// [`PrefetchStep::Index`] its user and slot number, at
    /// [`PrefetchStep::Record`] (the slot number read) its state and
    /// flags. Any `i`; a parked or absent tenant's state is on disk or
    /// nowhere, and is not hinted.
    pub(super) fn prefetch(&self, i: usize, step: PrefetchStep) {
        match step {
            PrefetchStep::Index => {
                if let Some(u) = self.user.as_slice().and_then(|l| l.get(i)) {
                    prefetch(u);
                }
                if i < self.len() {
                    self.slot_of.prefetch(i);
                }
            }
            PrefetchStep::Record => {
                if i >= self.len() {
                    return;
                }
                let s = self.slot_of.get(i);
                if s == NONE {
                    return;
                }
                let s = s as usize;
                if let Some(state) = self.live.get(s) {
                    prefetch_all(state);
                }
                if let Some(flags) = self.flags.get(s * self.n_models..(s + 1) * self.n_models) {
                    prefetch_slice(flags);
                }
            }
            PrefetchStep::Data => {}
        }
    }
    /// Trace user index of tenant `i`.
    #[inline]
    pub fn user(&self, i: usize) -> usize {
        self.user.user(i)
    }
    /// Trace user indices of all tenants.
    pub fn users(&self) -> &TenantUsers {
        &self.user
    }

    /// The trace user indices of all tenants, the rest of the state freed
    /// (what a finished run's fold still reads).
    pub(super) fn into_users(self) -> TenantUsers {
        self.user
    }

    /// Arrival time of tenant `i` in µs once it has arrived; `None` before
    /// (and for `i` out of range), whether the times are listed or drawn
    /// as the run goes (`[arrivals] order = "streamed"`, DESIGN §2.8): a
    /// policy learns when a tenant arrives when it arrives, never before,
    /// and sees the same in both modes.
    pub fn arrival(&self, i: usize) -> Option<Micros> {
        if let Some(t) = self.arrival.listed() {
            return t.get(i).copied().filter(|_| self.has_arrived(i));
        }
        if i >= self.len() {
            return None;
        }
        match self.slot_of.get(i) {
            NONE => self.place_of(i).map(|place| self.parked_arrival(place)),
            s => {
                let s = s as usize;
                self.live[s]
                    .arrived
                    .then(|| self.arrived_at.get(s).copied())
                    .flatten()
            }
        }
    }
    /// Every tenant's arrival time, µs (shared, not copied).
    pub(super) fn arrivals(&self) -> Arrivals {
        self.arrival.clone()
    }
    /// Whether tenant `i` has arrived.
    pub fn has_arrived(&self, i: usize) -> bool {
        match self.slot_of.get(i) {
            // Parked only once done, so arrived; else not arrived.
            NONE => self.parked_bits.get(i),
            s => self.live[s as usize].arrived,
        }
    }
    /// Jobs of tenant `i` running now.
    pub fn running(&self, i: usize) -> u32 {
        match self.slot_of.get(i) {
            NONE => 0,
            s => self.live[s as usize].running,
        }
    }
    /// Whether tenant `i` is done (DESIGN §2.6 "Done tenants"): it arrived,
    /// none of its jobs runs, and none will start again: it left, or every
    /// available model was started at its top level, or it hit its budget or
    /// its `max_jobs`. Once true it stays true, and no job of the tenant
    /// starts, completes or is cancelled after it.
    pub fn is_done(&self, i: usize) -> bool {
        match self.slot_of.get(i) {
            // Parked only once done; else not arrived.
            NONE => self.parked_bits.get(i),
            s => {
                let t = &self.live[s as usize];
                t.arrived
                    && t.running == 0
                    && (t.left
                        || t.untried == 0
                        || t.exhausted
                        || self.limits.max_jobs.is_some_and(|m| t.started >= m))
            }
        }
    }
    /// Jobs of tenant `i` completed so far.
    pub fn completed(&self, i: usize) -> u32 {
        self.field(i, |t| t.completed)
    }
    /// Whether trace model `k` is available to tenant `i`
    /// ([`Trace::is_available`] of its user, answered without reading the
    /// trace when the tenant has every model).
    pub fn is_available(&self, trace: &Trace, i: usize, k: usize) -> bool {
        let every = match self.slot_of.get(i) {
            NONE => self.available.is_none(),
            s => self.live[s as usize].every_model,
        };
        every || trace.is_available(self.user.user(i), k)
    }
    /// Available models of tenant `i` not closed: not started at their top
    /// level (on a plain trace: neither completed nor running; DESIGN §12.2).
    pub fn untried(&self, i: usize) -> u32 {
        self.field(i, |t| t.untried)
    }
    /// best_i: the highest accuracy among completed jobs, 0 before the first.
    pub fn best(&self, i: usize) -> f64 {
        self.field(i, |t| t.best)
    }
    /// Whether trace model `k` of tenant `i` is running or may not be
    /// proposed again: it was started at its top level (on a plain trace,
    /// at all). Selectors that run every model at its largest fidelity
    /// propose only untried models.
    pub fn is_tried(&self, i: usize, k: usize) -> bool {
        self.flag(i, k) != 0
    }
    /// Tenant `i`'s [`Self::is_tried`] for many models: its flags found
    /// once (a live tenant's row), then one read a model.
    pub fn tried(&self, i: usize) -> TriedModels<'_> {
        let s = self.slot_of.get(i);
        let row = (s != NONE)
            .then(|| {
                let at = s as usize * self.n_models;
                self.flags.get(at..at + self.n_models)
            })
            .flatten();
        TriedModels {
            tenants: self,
            tenant: i,
            row,
        }
    }

    /// The highest level of model `k` tenant `i` has started (running,
    /// completed or cancelled), if any (DESIGN §12.1). On a plain trace
    /// the one level 0 once the model was started.
    pub fn level_started(&self, i: usize, k: usize) -> Option<usize> {
        let at = i * self.n_models + k;
        match self.level_started.get(at) {
            Some(&l) => (l != NO_LEVEL).then_some(usize::from(l)),
            None => (self.flag(i, k) & CLOSED != 0).then_some(0),
        }
    }

    /// The highest level of model `k` tenant `i` has completed, if any: the
    /// checkpoint a continued job starts from under `incremental` cost.
    pub fn level_done(&self, i: usize, k: usize) -> Option<usize> {
        let at = i * self.n_models + k;
        match self.level_done.get(at) {
            Some(&l) => (l != NO_LEVEL).then_some(usize::from(l)),
            None => (self.flag(i, k) == CLOSED).then_some(0),
        }
    }

    /// Whether tenant `i` waits: its selector proposed nothing while it
    /// was eligible, and none of its jobs has completed since.
    pub fn is_waiting(&self, i: usize) -> bool {
        self.field(i, |t| t.waiting)
    }
    /// The limit on concurrent jobs per tenant.
    pub fn max_running(&self) -> u32 {
        self.max_running
    }

    /// Whether tenant `i`'s job on trace model `k` is running: started, and
    /// neither completed nor cancelled.
    pub fn is_running_model(&self, i: usize, k: usize) -> bool {
        self.flag(i, k) & RUNNING != 0
    }

    /// Eligible (DESIGN §2.3): arrived, has untried models, and fewer running
    /// jobs than the limit; and, with `[limits]`, has not left, is within
    /// its budget and has started fewer than `max_jobs` jobs; and is not
    /// waiting (DESIGN §12.2).
    pub fn is_eligible(&self, i: usize) -> bool {
        let s = self.slot_of.get(i);
        // Not arrived, or parked (done: never eligible again).
        if s == NONE {
            return false;
        }
        let t = &self.live[s as usize];
        t.arrived
            && t.untried > 0
            && !t.waiting
            && t.running < self.max_running
            && !t.left
            && !t.exhausted
            && self.limits.max_jobs.is_none_or(|m| t.started < m)
    }

    /// Why tenant `i` stopped asking for GPUs, read at the end of a run
    /// ([`EndReason`]; its order of precedence). `schedule_over`: its
    /// selector says its schedule is over ([`Selector::schedule_over`]);
    /// a tenant that waits with no job running is never eligible again
    /// (DESIGN §12.2), which counts the same.
    ///
    /// [`Selector::schedule_over`]: super::Selector::schedule_over
    pub fn end_reason(&self, i: usize, schedule_over: bool) -> EndReason {
        self.reason_of(&self.st(i), schedule_over)
    }

    /// [`Self::end_reason`] of state `t`.
    fn reason_of(&self, t: &TenantState, schedule_over: bool) -> EndReason {
        if t.left {
            EndReason::Patience
        } else if t.running > 0 {
            EndReason::Horizon
        } else if t.untried == 0 {
            EndReason::AllModelsRun
        } else if schedule_over || t.waiting {
            EndReason::ScheduleOver
        } else if t.exhausted {
            EndReason::Budget
        } else if self.limits.max_jobs.is_some_and(|m| t.started >= m) {
            EndReason::MaxJobs
        } else {
            EndReason::Horizon
        }
    }

    /// Every tenant's [`Self::end_reason`] (with `schedule_over(i)`),
    /// whether it hit its budget and when it left, in tenant order: the
    /// parked tenants' state read back in one pass over the parked
    /// sequence, not one read each (`schedule_over` is asked in that
    /// order: the other tenants' in tenant order, then the parked ones'
    /// in the order they were parked, a tenant parked more than once for
    /// each of its records). The end states are held a byte a tenant up to
    /// 65,536 tenants, else in sorted runs on disk
    /// ([`EndStates`]). An error: reading parked state back, or writing
    /// the end states.
    pub(super) fn end_reasons(&self, schedule_over: impl FnMut(usize) -> bool) -> Result<EndOfRun> {
        let n = self.len();
        self.end_reasons_in(
            EndStatesBuilder::new(n),
            LeftAtBuilder::new(n),
            schedule_over,
        )
    }

    /// [`Self::end_reasons`] into `states` and `left` (either form,
    /// whatever the tenants: tests give a small run the large run's).
    /// Only the tenants that left have a leave time (DESIGN §8.5: not 16
    /// bytes for each tenant of the run; in sorted runs on disk past
    /// 65,536 of them).
    fn end_reasons_in(
        &self,
        mut states: EndStatesBuilder,
        mut left: LeftAtBuilder,
        mut schedule_over: impl FnMut(usize) -> bool,
    ) -> Result<EndOfRun> {
        let n = self.len();
        let mut parked = 0u64;
        for i in 0..n {
            if self.parked_bits.get(i) {
                // Set from its record below.
                parked += 1;
                continue;
            }
            let t = match self.slot_of.get(i) {
                NONE => self.fresh(i),
                s => self.live[s as usize],
            };
            let s = EndState {
                ended: self.reason_of(&t, schedule_over(i)),
                budget_exhausted: t.exhausted,
            };
            // Set once (no record of it follows): the default needs none.
            if s != EndState::default() {
                states.set(i, s)?;
            }
            if t.left {
                left.set(i, t.left_at)?;
            }
        }
        // A tenant parked more than once (its state changed after it was
        // done) has several records, the last one its state: read in the
        // order parked, each overwrites the one before. The records of a
        // tenant live again no longer count.
        let mut seen = Bits::new(n);
        let mut found = 0u64;
        for r in self.parked.iter() {
            let ParkedState { tenant, state: t } = r?;
            let i = tenant as usize;
            if i >= n || !self.parked_bits.get(i) {
                continue;
            }
            if seen.set(i) {
                found += 1;
            }
            let s = EndState {
                ended: self.reason_of(&t, schedule_over(i)),
                budget_exhausted: t.exhausted,
            };
            states.set(i, s)?;
            // A tenant parked more than once left in every record after
            // the first that says so (nothing clears `left`): its last
            // record's time counts, as the builder keeps the last.
            if t.left {
                left.set(i, t.left_at)?;
            }
        }
        if found != parked {
            return Err(Error::input(format!(
                "internal: records of {found} of {parked} parked tenants"
            )));
        }
        self.check()?;
        Ok(EndOfRun {
            states: states.finish()?,
            left_at: left.finish()?,
        })
    }

    /// Tenant `i` arrives at the decision time ([`Self::set_now`]).
    pub(super) fn arrive(&mut self, i: usize) {
        self.state_mut(i).arrived = true;
        if self.is_streamed() {
            let s = self.slot_mut(i);
            self.set_arrived_at(s, self.now);
        }
    }

    /// The arrival time held beside slot `slot` (arrivals drawn as the
    /// run goes), the per-slot list grown to it.
    fn set_arrived_at(&mut self, slot: usize, at: Micros) {
        if self.arrived_at.len() <= slot {
            self.arrived_at.resize(slot + 1, 0);
        }
        self.arrived_at[slot] = at;
    }

    /// Whether the arrival times are drawn as the run goes (held per
    /// arrived tenant, not listed).
    fn is_streamed(&self) -> bool {
        self.arrival.listed().is_none()
    }

    /// The arrival time parked at `place` (0 if it cannot be read back;
    /// the failure is kept for [`Self::check`]).
    fn parked_arrival(&self, place: u64) -> Micros {
        self.parked_arrived_at.get(place).unwrap_or_else(|e| {
            let _ = self
                .failure
                .set(e.context("reading a done tenant's arrival back"));
            0
        })
    }

    /// Tenant `i` starts model `k` at `level`, which is the model's top
    /// level when `top`, for `runtime` µs.
    pub(super) fn start(&mut self, i: usize, k: usize, level: usize, top: bool, runtime: Micros) {
        let at = i * self.n_models + k;
        let flag = self.flag_mut(i, k);
        debug_assert!(*flag == 0, "model started twice");
        *flag |= RUNNING;
        if top {
            *flag |= CLOSED;
        }
        if let Some(l) = self.level_started.get_mut(at) {
            *l = u16::try_from(level).unwrap_or(NO_LEVEL - 1);
        }
        let t = self.state_mut(i);
        if top {
            t.untried -= 1;
        }
        t.running += 1;
        t.started += 1;
        t.used = t.used.saturating_add(runtime);
    }

    pub(super) fn exhaust(&mut self, i: usize) {
        self.state_mut(i).exhausted = true;
    }

    /// Tenant `i` leaves; its running job on model `k` was cancelled after
    /// `ran` µs of its `planned` µs.
    #[doc(hidden)]
    pub fn cancel_job(&mut self, i: usize, k: usize, planned: Micros, ran: Micros) {
        *self.flag_mut(i, k) &= !RUNNING;
        let t = self.state_mut(i);
        t.running -= 1;
        t.used = t.used.saturating_sub(planned - ran);
    }

    /// Tenant `i` leaves at `now` (its patience ran out, DESIGN §2.7): it
    /// is never eligible again, and [`Self::left_at`] answers `now`.
    #[doc(hidden)]
    pub fn leave(&mut self, i: usize, now: Micros) {
        let t = self.state_mut(i);
        t.left = true;
        t.left_at = now;
    }

    /// When tenant `i` left, if it did (and the engine recorded when).
    pub fn left_at(&self, i: usize) -> Option<Micros> {
        let t = self.st(i);
        t.left.then_some(t.left_at)
    }

    /// The last started job of tenant `i` still running, [`NO_JOB`] for
    /// none (the engine's list of a tenant's running jobs).
    pub(super) fn last_job(&self, i: usize) -> u32 {
        self.field(i, |t| t.last_job)
    }

    /// Set [`Self::last_job`] of tenant `i`.
    pub(super) fn set_last_job(&mut self, i: usize, job: u32) {
        self.state_mut(i).last_job = job;
    }

    /// The selector proposed nothing for eligible tenant `i`: it waits.
    pub(super) fn wait(&mut self, i: usize) {
        self.state_mut(i).waiting = true;
    }

    /// Record the completion of tenant `i`'s job on model `k` at `level`;
    /// returns the previous best. A waiting tenant stops waiting.
    pub(super) fn complete(&mut self, i: usize, k: usize, level: usize, accuracy: f64) -> f64 {
        *self.flag_mut(i, k) &= !RUNNING;
        let at = i * self.n_models + k;
        if let Some(l) = self.level_done.get_mut(at) {
            *l = u16::try_from(level).unwrap_or(NO_LEVEL - 1);
        }
        let t = self.state_mut(i);
        t.waiting = false;
        t.running -= 1;
        t.completed += 1;
        let old = t.best;
        if accuracy > old {
            t.best = accuracy;
        }
        old
    }
}

/// Which of tenant `i`'s trace models are tried ([`Tenants::is_tried`]),
/// from [`Tenants::tried`]: a live tenant's row of flags is found once,
/// then each model is one read of it; any other tenant answers through
/// [`Tenants::is_tried`] model by model. The answers are the same either
/// way (`tests::parked_tenants_answer_as_tenants_kept_live`).
#[derive(Clone, Copy, Debug)]
pub struct TriedModels<'a> {
    tenants: &'a Tenants,
    tenant: usize,
    /// The live tenant's flags by trace model (non-zero: tried).
    row: Option<&'a [u8]>,
}

impl TriedModels<'_> {
    /// Whether trace model `k` is tried: [`Tenants::is_tried`]`(i, k)`.
    #[inline]
    pub fn contains(&self, k: usize) -> bool {
        match self.row {
            Some(row) => row.get(k).is_some_and(|&f| f != 0),
            None => self.tenants.is_tried(self.tenant, k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sim::rng::{Purpose, stream};
    use rand::seq::SliceRandom;

    #[test]
    fn a_model_runs_from_its_start_until_it_completes_or_is_cancelled() {
        let csv = "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\n";
        let trace = crate::models::trace::parse_trace("t.csv", csv.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut t = Tenants::new(
            &trace,
            &TenantUsers::list(&[0]),
            &[0],
            2,
            TenantLimits::default(),
        );
        t.arrive(0);
        assert!(!t.is_running_model(0, 0) && !t.is_running_model(0, 1));
        t.start(0, 0, 0, true, 1_000_000);
        t.start(0, 1, 0, true, 2_000_000);
        assert!(t.is_running_model(0, 0) && t.is_running_model(0, 1));
        t.complete(0, 0, 0, 0.5);
        assert!(!t.is_running_model(0, 0) && t.is_tried(0, 0));
        t.cancel_job(0, 1, 2_000_000, 500_000);
        assert!(!t.is_running_model(0, 1) && t.is_tried(0, 1));
        assert_eq!(t.running(0), 0);
    }

    /// A tenant is done once nothing of it runs and nothing will start:
    /// every model started (and finished), or it left, or a limit holds;
    /// not while a job runs, nor before it arrived.
    #[test]
    fn a_tenant_is_done_when_no_job_runs_and_none_will_start() {
        let csv = "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\n";
        let trace = crate::models::trace::parse_trace("t.csv", csv.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let limits = TenantLimits::default();
        let mut t = Tenants::new(
            &trace,
            &TenantUsers::list(&[0, 0, 0]),
            &[0, 0, 0],
            2,
            limits,
        );
        assert!(!t.is_done(0), "not arrived");
        for i in 0..3 {
            t.arrive(i);
        }
        assert!(!t.is_done(0), "models left to run");
        // Tenant 0 runs both models: done only once the second completes.
        t.start(0, 0, 0, true, 1_000_000);
        t.start(0, 1, 0, true, 2_000_000);
        assert!(!t.is_done(0), "jobs running, no model left");
        t.complete(0, 0, 0, 0.5);
        assert!(!t.is_done(0), "a job still running");
        t.complete(0, 1, 0, 0.9);
        assert!(t.is_done(0));
        // Tenant 1 leaves with a job running: done once it is cancelled.
        t.start(1, 0, 0, true, 1_000_000);
        t.leave(1, 0);
        assert!(!t.is_done(1), "its job still runs");
        t.cancel_job(1, 0, 1_000_000, 10);
        assert!(t.is_done(1));
        // Tenant 2 hits its budget with nothing running.
        t.exhaust(2);
        assert!(t.is_done(2));
        // max_jobs = 1: done after its one job, with a model left.
        let one = TenantLimits {
            max_jobs: Some(1),
            ..TenantLimits::default()
        };
        let mut t = Tenants::new(&trace, &TenantUsers::list(&[0]), &[0], 2, one);
        t.arrive(0);
        t.start(0, 1, 0, true, 1_000_000);
        assert!(!t.is_done(0));
        t.complete(0, 1, 0, 0.9);
        assert!(t.is_done(0) && t.untried(0) == 1);
    }

    use proptest::prelude::*;

    /// One made-up engine call: (kind, tenant, model, a number).
    type Op = (u8, usize, usize, u64);

    /// Every accessor of tenant `i`, as one comparable value.
    fn view(t: &Tenants, trace: &Trace, i: usize) -> String {
        let k = trace.n_models();
        format!(
            "{:?}",
            (
                (t.started(i), t.used(i), t.has_left(i), t.is_exhausted(i)),
                (
                    t.has_arrived(i),
                    t.running(i),
                    t.is_done(i),
                    t.completed(i),
                    t.last_job(i)
                ),
                (
                    t.untried(i),
                    t.best(i).to_bits(),
                    t.is_waiting(i),
                    t.is_eligible(i)
                ),
                (t.end_reason(i, false), t.end_reason(i, true), t.left_at(i)),
                (0..k)
                    .map(|m| {
                        (
                            (t.is_tried(i, m), t.tried(i).contains(m)),
                            t.is_running_model(i, m),
                            t.level_started(i, m),
                            t.level_done(i, m),
                            t.is_available(trace, i, m),
                        )
                    })
                    .collect::<Vec<_>>(),
            )
        )
    }

    /// Apply `op` to `t` if the engine could make that call now (a start
    /// of a model not started, a completion or cancel of a running one).
    fn apply(t: &mut Tenants, (kind, i, m, x): Op, limits: TenantLimits) {
        match kind {
            0 => t.arrive(i),
            1 if t.is_eligible(i) && !t.is_tried(i, m) => {
                let runtime = 1 + x % 900;
                if t.would_exceed_budget(i, runtime) && limits.budget.is_some() {
                    t.exhaust(i);
                } else {
                    t.start(i, m, 0, true, runtime);
                    t.set_last_job(i, (x % 50) as u32);
                }
            }
            2 if t.is_running_model(i, m) => {
                t.complete(i, m, 0, (x % 1000) as f64 / 1000.0);
            }
            3 if t.is_running_model(i, m) => {
                t.leave(i, x % 77);
                t.cancel_job(i, m, 1000, x % 1000);
            }
            4 if t.has_arrived(i) && t.running(i) == 0 && t.completed(i) == 0 => t.leave(i, x),
            5 if t.is_eligible(i) => t.wait(i),
            _ => {}
        }
    }

    /// One user `a` with models m1 (0.5, 1 s) and m2 (0.9, 2 s).
    fn one_user_two_models() -> Trace {
        crate::models::trace::parse_trace(
            "t.csv",
            "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\n".as_bytes(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Hints are taken for any tenant, live, parked, not arrived or out
    /// of range (the engine hints the tenants of queued completions,
    /// which may be done by then), and change nothing.
    #[test]
    fn prefetch_hints_take_any_tenant_in_any_state() {
        let trace = one_user_two_models();
        let mut t = Tenants::new(
            &trace,
            &TenantUsers::list(&[0, 0, 0]),
            &[0, 0, 0],
            1,
            TenantLimits::default(),
        );
        t.parked = Spill::with_threshold(0);
        t.parked_flags = Spill::with_threshold(0);
        // Tenant 0 live, tenant 1 parked (on disk), tenant 2 not arrived.
        t.arrive(0);
        t.start(0, 0, 0, true, 1);
        t.arrive(1);
        t.start(1, 0, 0, true, 1);
        t.complete(1, 0, 0, 0.5);
        t.leave(1, 9);
        t.park(1).expect("park");
        let writes = t.parked.file_writes();
        for i in [0, 1, 2, 3, usize::MAX] {
            for step in [
                PrefetchStep::Index,
                PrefetchStep::Record,
                PrefetchStep::Data,
            ] {
                t.prefetch(i, step);
            }
        }
        assert_eq!(t.parked.file_writes(), writes);
        assert!(t.is_tried(0, 0) && !t.is_tried(0, 1) && !t.is_eligible(0));
        assert!(t.is_parked(1) && t.best(1) == 0.5 && t.left_at(1) == Some(9));
        assert!(!t.is_parked(2) && !t.is_eligible(2));
    }

    /// Regression (issue 34, scale-year): done tenants were written to
    /// the parked sequences at their index, and tenants are done in a
    /// shuffled order, so on file every one was a write of its own (2 ×
    /// 10^7 in scale-year). Parked in a shuffled order they are now
    /// appended, a write buffer at a time, and read back as they were.
    #[test]
    fn done_tenants_parked_in_a_shuffled_order_take_a_write_a_buffer_not_one_each() {
        let trace = one_user_two_models();
        let n = 5_000;
        let mut t = Tenants::new(
            &trace,
            &TenantUsers::list(&vec![0; n]),
            &vec![0; n],
            1,
            TenantLimits::default(),
        );
        t.parked = Spill::with_threshold(0);
        t.parked_flags = Spill::with_threshold(0);
        // A fixed shuffle of the tenants, as arrivals are (DESIGN §2.8).
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut stream(7, 0, Purpose::Arrivals));
        for &i in &order {
            t.arrive(i);
            t.start(i, 0, 0, true, 1);
            t.complete(i, 0, 0, 0.001 * (i % 900) as f64);
            if i % 2 == 0 {
                t.leave(i, 7 + i as u64);
            } else {
                t.start(i, 1, 0, true, 2);
                t.complete(i, 1, 0, 0.9);
            }
            assert!(t.is_done(i));
            t.park(i).expect("park");
        }
        assert!(t.parked.is_spilled());
        let writes = t.parked.file_writes() + t.parked_flags.file_writes();
        // 49 + 8 bytes a tenant: 285 KB, five write buffers.
        assert!(writes <= 10, "{writes} writes for {n} tenants");
        assert_eq!(t.parked.len(), n as u64);
        for i in [0, 1, 2, 4_999, order[0], order[n - 1]] {
            assert!(t.is_parked(i) && t.is_done(i) && !t.is_eligible(i));
            assert_eq!(
                t.best(i),
                if i % 2 == 0 {
                    0.001 * (i % 900) as f64
                } else {
                    0.9
                }
            );
            assert_eq!(t.left_at(i), (i % 2 == 0).then_some(7 + i as u64));
            assert!(t.is_tried(i, 0) && t.is_tried(i, 1) == (i % 2 == 1));
        }
        let end = t.end_reasons(|_| false).expect("end reasons");
        assert!(
            (0..n)
                .all(|i| end.left_at.get(i).expect("read") == (i % 2 == 0).then_some(7 + i as u64))
        );
        // Leave times are held for the leavers only (read from live and
        // parked state alike), not for every tenant.
        assert_eq!(
            (end.left_at.len(), end.left_at.count().expect("read")),
            (n, n.div_ceil(2))
        );
        let ended = end.states.reasons().expect("read");
        assert!((0..n).all(|i| ended[i]
            == if i % 2 == 0 {
                EndReason::Patience
            } else {
                EndReason::AllModelsRun
            }));
    }

    /// A parked tenant whose state changes comes back to a slot, and its
    /// record stops counting; parked again, its later record counts
    /// (read one at a time, and in the end's one pass), in both forms of
    /// the places.
    #[test]
    fn a_tenant_parked_again_counts_its_later_record() {
        let trace = one_user_two_models();
        for runs in [false, true] {
            let mut t = Tenants::new(
                &trace,
                &TenantUsers::list(&[0, 0, 0]),
                &[0, 0, 0],
                1,
                TenantLimits::default(),
            );
            if runs {
                t.slot_of = SlotIndex::sparse(3);
                t.places = ParkedPlaces::in_runs(1, 0);
            }
            for i in 0..3 {
                t.arrive(i);
                t.exhaust(i);
                assert!(t.is_done(i));
                t.park(i).expect("park");
            }
            // Tenant 1 leaves after it was parked: live again, then parked
            // again at a later place. Tenant 2 leaves and stays live.
            t.leave(1, 40);
            assert!(!t.is_parked(1) && t.left_at(1) == Some(40));
            t.park(1).expect("park");
            t.leave(1, 50);
            t.park(1).expect("park");
            t.leave(2, 60);
            assert_eq!(t.parked.len(), 5);
            assert!(t.is_parked(0) && t.is_parked(1) && !t.is_parked(2));
            assert_eq!(t.left_at(1), Some(50));
            let (states, left) = if runs {
                (
                    EndStatesBuilder::in_runs(3, 1, 0),
                    LeftAtBuilder::with_bounds(3, 0, 1, 0),
                )
            } else {
                (EndStatesBuilder::new(3), LeftAtBuilder::new(3))
            };
            let end = t
                .end_reasons_in(states, left, |_| false)
                .expect("end reasons");
            assert_eq!(end.left_at.is_in_runs(), runs);
            assert_eq!(
                end.states.reasons().expect("read"),
                vec![EndReason::Budget, EndReason::Patience, EndReason::Patience]
            );
            assert_eq!(
                end.states.budget_flags().expect("read"),
                vec![true, true, true]
            );
            assert_eq!(end.left_at.get(0).expect("read"), None);
            assert_eq!(end.left_at.get(1).expect("read"), Some(50));
            assert_eq!(end.left_at.get(2).expect("read"), Some(60));
            assert_eq!(end.left_at.count().expect("read"), 2);
        }
    }

    proptest! {
        /// Tenants parked when done (in memory, and on file: every record
        /// spilled; with the index forms of a small run, and of a large
        /// one: slot numbers in a hash table, places in sorted runs)
        /// answer every accessor as tenants never parked (the reference:
        /// all state live), after every call, for every tenant;
        /// the end reasons read in one pass equal those read one by one;
        /// and the slots never outnumber the most tenants live at once.
        #[test]
        fn parked_tenants_answer_as_tenants_kept_live(
            ops in prop::collection::vec((0u8..6, 0usize..6, 0usize..3, any::<u64>()), 0..160),
            spill in prop::bool::ANY,
            runs in prop::bool::ANY,
            budget in prop::option::of(500u64..3000),
            partial in prop::bool::ANY,
        ) {
            let csv = if partial {
                // User b lacks model m3.
                "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\na,m3,0.7,1\nb,m1,0.4,1\nb,m2,0.6,1\n"
            } else {
                "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\na,m3,0.7,1\n"
            };
            let trace = crate::models::trace::parse_trace("t.csv", csv.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            let users: Vec<usize> = (0..6).map(|i| if partial { i % 2 } else { 0 }).collect();
            let limits = TenantLimits { budget, ..TenantLimits::default() };
            let mut kept = Tenants::new(&trace, &TenantUsers::list(&users), &[0; 6], 2, limits);
            let mut parked = kept.clone();
            if spill {
                parked.parked = Spill::with_threshold(0);
                parked.parked_flags = Spill::with_threshold(0);
            }
            if runs {
                // A large run's forms: slot numbers hashed, places in
                // sorted runs (of two, on disk).
                parked.slot_of = SlotIndex::sparse(6);
                parked.places = ParkedPlaces::in_runs(2, 0);
            }
            let mut most = 0;
            for op in ops {
                // Only calls valid on the kept tenants (the two must agree
                // on validity too, checked by the views below).
                let (_, i, m, _) = op;
                let m = m.min(trace.n_models() - 1);
                if m < trace.n_models() && (users[i] == 0 || m < 2) {
                    apply(&mut kept, (op.0, i, m, op.3), limits);
                    apply(&mut parked, (op.0, i, m, op.3), limits);
                }
                for j in 0..6 {
                    if parked.is_done(j) {
                        parked.park(j).expect("park");
                    }
                }
                most = most.max((0..6).filter(|&j| kept.has_arrived(j) && !kept.is_done(j)).count());
                for j in 0..6 {
                    prop_assert_eq!(view(&parked, &trace, j), view(&kept, &trace, j), "tenant {}", j);
                    // A tenant's flags read as a row (live) or one by one
                    // (parked, not arrived) answer as `is_tried`.
                    for t in [&parked, &kept] {
                        for m in 0..trace.n_models() {
                            prop_assert_eq!(t.tried(j).contains(m), t.is_tried(j, m), "tenant {} model {}", j, m);
                        }
                    }
                }
                prop_assert!(parked.check().is_ok());
            }
            let over = |i: usize| i.is_multiple_of(3);
            // A large run's end states: in sorted runs (of two, on disk).
            let (states, left) = if runs {
                (EndStatesBuilder::in_runs(6, 2, 0), LeftAtBuilder::with_bounds(6, 0, 2, 0))
            } else {
                (EndStatesBuilder::new(6), LeftAtBuilder::new(6))
            };
            let end = parked.end_reasons_in(states, left, over).expect("end reasons");
            prop_assert_eq!(end.states.is_in_runs(), runs);
            prop_assert_eq!(end.left_at.is_in_runs(), runs && end.left_at.count().expect("read") > 0);
            let want: Vec<EndReason> = (0..6).map(|i| kept.end_reason(i, over(i))).collect();
            prop_assert_eq!(end.states.reasons().expect("read"), want);
            prop_assert_eq!(end.states.budget_flags().expect("read"), (0..6).map(|i| kept.is_exhausted(i)).collect::<Vec<_>>());
            prop_assert_eq!(end.left_at, (0..6).map(|i| kept.left_at(i)).collect::<Vec<_>>());
            // Done tenants gave their slots back: the slots are the most
            // tenants arrived and not done at once, plus at most the one
            // an engine call just ended (parked after the call).
            prop_assert!(parked.high_water() <= most + 1, "{} slots, {} at once", parked.high_water(), most);
        }
    }
}
