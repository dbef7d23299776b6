//! Per-tenant state of one simulation, readable by every policy.

use crate::trace::{Micros, Trace};

/// State of the tenants of one run. Tenant `i` is trace user
/// [`Tenants::user`]`(i)`; tenants are ordered by trace index, so "lowest
/// index" tie-breaking is trace order (DESIGN §1).
#[derive(Debug, Clone)]
pub struct Tenants {
    user: Vec<usize>,
    n_models: usize,
    arrival: Vec<Micros>,
    arrived: Vec<bool>,
    running: Vec<u32>,
    completed: Vec<u32>,
    untried: Vec<u32>,
    best: Vec<f64>,
    /// `n × K` mask over trace models: completed or running.
    tried: Vec<bool>,
    max_running: u32,
}

impl Tenants {
    /// Fresh state for trace users `users` (ascending), arriving at
    /// `arrival` (µs), each allowed `max_running` concurrent jobs.
    pub fn new(trace: &Trace, users: &[usize], arrival: &[Micros], max_running: u32) -> Self {
        let n = users.len();
        let k = trace.n_models();
        Self {
            user: users.to_vec(),
            n_models: k,
            arrival: arrival.to_vec(),
            arrived: vec![false; n],
            running: vec![0; n],
            completed: vec![0; n],
            untried: users
                .iter()
                .map(|&u| u32::try_from(trace.models_of(u).len()).unwrap_or(u32::MAX))
                .collect(),
            best: vec![0.0; n],
            tried: vec![false; n * k],
            max_running,
        }
    }

    /// Number of tenants.
    pub fn len(&self) -> usize {
        self.user.len()
    }
    /// Whether there are no tenants.
    pub fn is_empty(&self) -> bool {
        self.user.is_empty()
    }
    /// Trace user index of tenant `i`.
    pub fn user(&self, i: usize) -> usize {
        self.user[i]
    }
    /// Trace user indices of all tenants.
    pub fn users(&self) -> &[usize] {
        &self.user
    }
    /// Arrival time of tenant `i` in µs.
    pub fn arrival(&self, i: usize) -> Micros {
        self.arrival[i]
    }
    /// Whether tenant `i` has arrived.
    pub fn has_arrived(&self, i: usize) -> bool {
        self.arrived[i]
    }
    /// Jobs of tenant `i` running now.
    pub fn running(&self, i: usize) -> u32 {
        self.running[i]
    }
    /// Jobs of tenant `i` completed so far.
    pub fn completed(&self, i: usize) -> u32 {
        self.completed[i]
    }
    /// Available models of tenant `i` neither completed nor running.
    pub fn untried(&self, i: usize) -> u32 {
        self.untried[i]
    }
    /// best_i: the highest accuracy among completed jobs, 0 before the first.
    pub fn best(&self, i: usize) -> f64 {
        self.best[i]
    }
    /// Whether trace model `k` of tenant `i` has completed or is running.
    pub fn is_tried(&self, i: usize, k: usize) -> bool {
        self.tried[i * self.n_models + k]
    }
    /// The limit on concurrent jobs per tenant.
    pub fn max_running(&self) -> u32 {
        self.max_running
    }

    /// Eligible (DESIGN §2): arrived, has untried models, and fewer running
    /// jobs than the limit.
    pub fn is_eligible(&self, i: usize) -> bool {
        self.arrived[i] && self.untried[i] > 0 && self.running[i] < self.max_running
    }

    pub(super) fn arrive(&mut self, i: usize) {
        self.arrived[i] = true;
    }

    pub(super) fn start(&mut self, i: usize, k: usize) {
        let slot = &mut self.tried[i * self.n_models + k];
        debug_assert!(!*slot, "pair started twice");
        *slot = true;
        self.untried[i] -= 1;
        self.running[i] += 1;
    }

    /// Record a completion; returns the previous best.
    pub(super) fn complete(&mut self, i: usize, accuracy: f64) -> f64 {
        self.running[i] -= 1;
        self.completed[i] += 1;
        let old = self.best[i];
        if accuracy > old {
            self.best[i] = accuracy;
        }
        old
    }
}
