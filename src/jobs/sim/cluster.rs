//! The cluster of job-trace mode: nodes × GPUs, and the placement rules of
//! DESIGN §9.1.
//!
//! - `consolidate`: a job's GPUs all come from one node; among the nodes
//!   with enough free GPUs, the one with the fewest free GPUs (best fit),
//!   then the lowest index.
//! - `spread`: GPUs are taken one at a time from the node with the most free
//!   GPUs (then the lowest index); a job fits when the cluster has enough
//!   free GPUs.
//!
//! Nodes are kept in buckets by their number of free GPUs (one bitset of
//! nodes per free count, plus a bitset of non-empty buckets), one such
//! structure per GPU type, so both rules cost a few word scans per GPU
//! taken and nothing is allocated after construction. A placement is made
//! on one type ([`Cluster::place_on`]); which type is the type policy's
//! choice (DESIGN §11.2, [`super::type_policy`]).
//!
//! # CPUs, the second resource (DESIGN §14.6)
//!
//! With CPUs per node ([`Cluster::with_cpus`], some node > 0) a job needs
//! `gpus` GPUs and `cpus` CPUs ([`Cluster::place_job_on`]):
//!
//! - `consolidate`: both from one node; among the nodes with at least
//!   `gpus` free GPUs and `cpus` free CPUs, the fewest free GPUs, then the
//!   fewest free CPUs, then the lowest index. The GPU buckets are walked
//!   from `gpus` up; within the first bucket holding a node with enough
//!   CPUs, its nodes are scanned for the fewest free CPUs (a scan of the
//!   bucket, only when CPUs are counted).
//! - `spread`: it fits when its type has `gpus` free GPUs and `cpus` free
//!   CPUs in all. GPUs are taken one at a time as without CPUs; then the
//!   CPUs from the nodes the GPUs came from, in the order they were first
//!   taken, at most a node's free CPUs from each; the rest from the
//!   type's node with the most free CPUs (then the lowest index), as many
//!   as it has, again until none is left.
//!
//! A job of 0 GPUs needs only CPUs (under `consolidate` it goes to the node
//! with the fewest free GPUs that has its CPUs: CPU work packs onto nodes
//! whose GPUs are busy). Without CPUs (the default) nothing of this runs:
//! a job's `cpus` are ignored and placement is exactly the GPU-only rule.

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::core::io::by_name::{ByName, named_in_files};
use crate::core::io::cluster::GpuType;

/// How a job's GPUs are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "kebab-case")]
pub enum Placement {
    /// All GPUs from one node, best fit then lowest index.
    Consolidate,
    /// One GPU at a time from the node with the most free GPUs.
    Spread,
}

impl Placement {
    /// The scenario name ([`ByName::NAMES`], in variant order: its test
    /// checks the order).
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl ByName for Placement {
    const VALUES: &'static [Self] = &[Self::Consolidate, Self::Spread];
    const NAMES: &'static [&'static str] = &["consolidate", "spread"];
}

named_in_files!(Placement);

/// GPUs (and CPUs, DESIGN §14.6) a job holds on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Alloc {
    /// Node index.
    pub node: u32,
    /// GPUs taken on that node.
    pub gpus: u32,
    /// CPUs taken on that node (0 when CPUs are not counted).
    #[serde(default)]
    pub cpus: u32,
}

/// A fixed-size bitset with first/last set-bit queries.
#[derive(Debug, Clone)]
struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    fn new(bits: usize) -> Self {
        Self {
            words: vec![0; bits.div_ceil(64).max(1)],
        }
    }
    fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }
    /// The lowest set bit at or after `from`.
    fn first_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        if w >= self.words.len() {
            return None;
        }
        let mut word = self.words[w] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            if w == self.words.len() {
                return None;
            }
            word = self.words[w];
        }
    }
    /// The highest set bit.
    fn last(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + 63 - w.leading_zeros() as usize)
    }
}

/// The nodes of one GPU type, kept in buckets by their number of free
/// GPUs. Local node `k` is the pool's `k`-th node in cluster order, so the
/// lowest local index is the lowest cluster index.
#[derive(Debug, Clone)]
struct Pool {
    /// Cluster index of each local node.
    nodes: Vec<u32>,
    total: u64,
    free_total: u64,
    max_capacity: u32,
    /// CPUs of the pool's nodes, in all and free (0 when not counted).
    cpu_total: u64,
    cpu_free_total: u64,
    /// `buckets[f]`: local nodes with exactly `f` free GPUs.
    buckets: Vec<BitSet>,
    bucket_len: Vec<u32>,
    /// Free counts `f` with `bucket_len[f] > 0`.
    nonempty: BitSet,
}

impl Pool {
    fn new(nodes: Vec<u32>, capacity: &[u32]) -> Self {
        let max_capacity = nodes
            .iter()
            .map(|&n| capacity[n as usize])
            .max()
            .unwrap_or(0);
        let levels = max_capacity as usize + 1;
        let total = nodes.iter().map(|&n| u64::from(capacity[n as usize])).sum();
        let mut p = Self {
            total,
            free_total: total,
            max_capacity,
            cpu_total: 0,
            cpu_free_total: 0,
            buckets: (0..levels).map(|_| BitSet::new(nodes.len())).collect(),
            bucket_len: vec![0; levels],
            nonempty: BitSet::new(levels),
            nodes,
        };
        for k in 0..p.nodes.len() {
            let g = capacity[p.nodes[k] as usize];
            p.insert(k, g);
        }
        p
    }

    fn insert(&mut self, local: usize, free: u32) {
        let f = free as usize;
        self.buckets[f].set(local);
        self.bucket_len[f] += 1;
        if self.bucket_len[f] == 1 {
            self.nonempty.set(f);
        }
    }

    fn remove(&mut self, local: usize, free: u32) {
        let f = free as usize;
        self.buckets[f].clear(local);
        self.bucket_len[f] -= 1;
        if self.bucket_len[f] == 0 {
            self.nonempty.clear(f);
        }
    }

    /// Best fit: (free GPUs, cluster index) of the node with the fewest
    /// free GPUs among those with at least `gpus` free, then the lowest
    /// index.
    fn best_fit(&self, gpus: u32) -> Option<(u32, usize)> {
        let f = self.nonempty.first_from(gpus as usize)?;
        let k = self.buckets[f].first_from(0)?;
        Some((f as u32, self.nodes[k] as usize))
    }

    /// Best fit with CPUs: (free GPUs, free CPUs, cluster index) of the
    /// node with the fewest free GPUs among those with at least `gpus` free
    /// GPUs and `cpus` free CPUs, then the fewest free CPUs, then the lowest
    /// index.
    fn best_fit_cpus(&self, gpus: u32, cpus: u32, cpu_free: &[u32]) -> Option<(u32, u32, usize)> {
        let mut f = self.nonempty.first_from(gpus as usize)?;
        loop {
            let mut best: Option<(u32, usize)> = None;
            let mut at = self.buckets[f].first_from(0);
            while let Some(k) = at {
                let n = self.nodes[k] as usize;
                let c = cpu_free[n];
                // Local order is cluster order: a strict `<` keeps the
                // lowest index among equals.
                if c >= cpus && best.is_none_or(|(b, _)| c < b) {
                    best = Some((c, n));
                    if c == cpus {
                        break;
                    }
                }
                at = self.buckets[f].first_from(k + 1);
            }
            if let Some((c, n)) = best {
                return Some((f as u32, c, n));
            }
            f = self.nonempty.first_from(f + 1)?;
        }
    }

    /// The cluster index of the node with the most free CPUs (then the
    /// lowest index), if any CPU is free.
    fn most_free_cpus(&self, cpu_free: &[u32]) -> Option<usize> {
        let mut best: Option<(u32, usize)> = None;
        for &n in &self.nodes {
            let c = cpu_free[n as usize];
            if c > 0 && best.is_none_or(|(b, _)| c > b) {
                best = Some((c, n as usize));
            }
        }
        best.map(|(_, n)| n)
    }

    /// The cluster index of the node with the most free GPUs (then the
    /// lowest index), if any GPU is free.
    fn most_free(&self) -> Option<usize> {
        let f = self.nonempty.last().filter(|&f| f > 0)?;
        let k = self.buckets[f].first_from(0)?;
        Some(self.nodes[k] as usize)
    }
}

/// Free and used GPUs per node, with the placement rule; one bucket
/// structure per GPU type (DESIGN §11.2), so a placement looks only at the
/// nodes of the types it may use and a job never spans types.
#[derive(Debug, Clone)]
pub struct Cluster {
    placement: Placement,
    capacity: Vec<u32>,
    free: Vec<u32>,
    node_type: Vec<GpuType>,
    /// Index of each node within its type's pool.
    local: Vec<u32>,
    total: u64,
    free_total: u64,
    max_capacity: u32,
    pools: Vec<Pool>,
    /// CPUs per node; empty when CPUs are not counted (DESIGN §14.6).
    cpu_capacity: Vec<u32>,
    cpu_free: Vec<u32>,
    cpu_total: u64,
    cpu_free_total: u64,
    max_cpus: u32,
}

impl Cluster {
    /// A cluster with `capacity[n]` GPUs on node `n`, all free and of one
    /// anonymous type. Every node has at least one GPU (checked when the
    /// scenario is loaded).
    pub fn new(capacity: &[u32], placement: Placement) -> Self {
        Self::typed(capacity, &[], 1, placement)
    }

    /// A cluster with `capacity[n]` GPUs of type `node_type[n]` on node
    /// `n` (an empty `node_type`: every node has type 0). Types are
    /// `0..max(types, max(node_type) + 1)`; a type with no node has an
    /// empty pool.
    pub fn typed(
        capacity: &[u32],
        node_type: &[GpuType],
        types: usize,
        placement: Placement,
    ) -> Self {
        let node_type: Vec<GpuType> = if node_type.is_empty() {
            vec![0; capacity.len()]
        } else {
            node_type.to_vec()
        };
        let types = node_type
            .iter()
            .map(|&t| t as usize + 1)
            .max()
            .unwrap_or(1)
            .max(types);
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); types];
        let mut local = Vec::with_capacity(capacity.len());
        for (n, &t) in node_type.iter().enumerate() {
            local.push(members[t as usize].len() as u32);
            members[t as usize].push(n as u32);
        }
        let pools: Vec<Pool> = members
            .into_iter()
            .map(|m| Pool::new(m, capacity))
            .collect();
        let total = capacity.iter().map(|&g| u64::from(g)).sum();
        Self {
            placement,
            capacity: capacity.to_vec(),
            free: capacity.to_vec(),
            node_type,
            local,
            total,
            free_total: total,
            max_capacity: capacity.iter().copied().max().unwrap_or(0),
            pools,
            cpu_capacity: Vec::new(),
            cpu_free: Vec::new(),
            cpu_total: 0,
            cpu_free_total: 0,
            max_cpus: 0,
        }
    }

    /// The same cluster with `cpus[n]` CPUs on node `n` (DESIGN §14.6).
    /// CPUs are counted only when some node has at least one; an empty
    /// `cpus` or all zeros leave the cluster as it was (every job's `cpus`
    /// ignored).
    pub fn with_cpus(mut self, cpus: &[u32]) -> Self {
        if cpus.iter().all(|&c| c == 0) {
            return self;
        }
        let mut cpu = vec![0u32; self.capacity.len()];
        for (n, c) in cpu.iter_mut().enumerate() {
            *c = cpus.get(n).copied().unwrap_or(0);
        }
        for pool in &mut self.pools {
            pool.cpu_total = pool.nodes.iter().map(|&n| u64::from(cpu[n as usize])).sum();
            pool.cpu_free_total = pool.cpu_total;
        }
        self.cpu_total = cpu.iter().map(|&c| u64::from(c)).sum();
        self.cpu_free_total = self.cpu_total;
        self.max_cpus = cpu.iter().copied().max().unwrap_or(0);
        self.cpu_free.clone_from(&cpu);
        self.cpu_capacity = cpu;
        self
    }

    fn set_cpu_free(&mut self, node: usize, free: u32) {
        let old = self.cpu_free[node];
        let pool = &mut self.pools[self.node_type[node] as usize];
        pool.cpu_free_total = pool.cpu_free_total - u64::from(old) + u64::from(free);
        self.cpu_free[node] = free;
        self.cpu_free_total = self.cpu_free_total - u64::from(old) + u64::from(free);
    }

    /// Whether CPUs are counted (some node has CPUs).
    pub fn counts_cpus(&self) -> bool {
        !self.cpu_capacity.is_empty()
    }
    /// CPUs of node `n` (0 when not counted).
    pub fn cpu_capacity(&self, n: usize) -> u32 {
        self.cpu_capacity.get(n).copied().unwrap_or(0)
    }
    /// Free CPUs of node `n` (0 when not counted).
    pub fn free_cpus(&self, n: usize) -> u32 {
        self.cpu_free.get(n).copied().unwrap_or(0)
    }
    /// CPUs in the cluster (0 when not counted).
    pub fn cpu_total(&self) -> u64 {
        self.cpu_total
    }
    /// Free CPUs in the cluster (0 when not counted).
    pub fn cpu_free_total(&self) -> u64 {
        self.cpu_free_total
    }
    /// CPUs on the node with the most CPUs (0 when not counted).
    pub fn max_cpus(&self) -> u32 {
        self.max_cpus
    }
    /// CPUs of type `t`'s nodes (0 when not counted).
    pub fn cpus_of_type(&self, t: GpuType) -> u64 {
        self.pools[t as usize].cpu_total
    }
    /// Free CPUs on type `t`'s nodes (0 when not counted).
    pub fn free_cpus_of_type(&self, t: GpuType) -> u64 {
        self.pools[t as usize].cpu_free_total
    }

    fn set_free(&mut self, node: usize, free: u32) {
        let old = self.free[node];
        let pool = &mut self.pools[self.node_type[node] as usize];
        let k = self.local[node] as usize;
        pool.remove(k, old);
        pool.insert(k, free);
        pool.free_total = pool.free_total - u64::from(old) + u64::from(free);
        self.free[node] = free;
        self.free_total = self.free_total - u64::from(old) + u64::from(free);
    }

    /// The placement rule.
    pub fn placement(&self) -> Placement {
        self.placement
    }
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.capacity.len()
    }
    /// GPUs of node `n`.
    pub fn capacity(&self, n: usize) -> u32 {
        self.capacity[n]
    }
    /// Free GPUs of node `n`.
    pub fn free(&self, n: usize) -> u32 {
        self.free[n]
    }
    /// GPUs in the cluster.
    pub fn total(&self) -> u64 {
        self.total
    }
    /// Free GPUs in the cluster.
    pub fn free_total(&self) -> u64 {
        self.free_total
    }
    /// GPUs on the largest node.
    pub fn max_capacity(&self) -> u32 {
        self.max_capacity
    }
    /// Number of GPU types (1 when untyped).
    pub fn types(&self) -> usize {
        self.pools.len()
    }
    /// The GPU type of node `n`.
    pub fn node_type(&self, n: usize) -> GpuType {
        self.node_type[n]
    }
    /// GPUs of type `t`.
    pub fn total_of_type(&self, t: GpuType) -> u64 {
        self.pools[t as usize].total
    }
    /// Free GPUs of type `t`.
    pub fn free_of_type(&self, t: GpuType) -> u64 {
        self.pools[t as usize].free_total
    }
    /// GPUs on the largest node of type `t`.
    pub fn max_capacity_of_type(&self, t: GpuType) -> u32 {
        self.pools[t as usize].max_capacity
    }

    /// Whether a job of `gpus` GPUs (and no CPUs) fits now on type `t`
    /// under the placement rule.
    pub fn fits_on(&self, gpus: u32, t: GpuType) -> bool {
        self.fits_job_on(gpus, 0, t)
    }

    /// Whether a job of `gpus` GPUs and `cpus` CPUs fits now on type `t`
    /// under the placement rule (`cpus` ignored when CPUs are not counted).
    pub fn fits_job_on(&self, gpus: u32, cpus: u32, t: GpuType) -> bool {
        let pool = &self.pools[t as usize];
        if !self.counts_cpus() {
            return match self.placement {
                Placement::Consolidate => pool.best_fit(gpus).is_some(),
                Placement::Spread => pool.free_total >= u64::from(gpus),
            };
        }
        match self.placement {
            Placement::Consolidate => pool.best_fit_cpus(gpus, cpus, &self.cpu_free).is_some(),
            Placement::Spread => {
                pool.free_total >= u64::from(gpus) && pool.cpu_free_total >= u64::from(cpus)
            }
        }
    }

    /// Whether a job of `gpus` GPUs and `cpus` CPUs would fit type `t` when
    /// the cluster is empty: under `consolidate` one node of the type with
    /// both (without CPUs: its largest node's GPUs), under `spread` the
    /// type's totals. A scan of the type's nodes when CPUs are counted.
    pub fn could_ever_fit(&self, gpus: u32, cpus: u32, t: GpuType) -> bool {
        let pool = &self.pools[t as usize];
        match (self.placement, self.counts_cpus()) {
            (Placement::Consolidate, false) => gpus <= pool.max_capacity,
            (Placement::Spread, false) => u64::from(gpus) <= pool.total,
            (Placement::Consolidate, true) => pool.nodes.iter().any(|&n| {
                gpus <= self.capacity[n as usize] && cpus <= self.cpu_capacity[n as usize]
            }),
            (Placement::Spread, true) => {
                u64::from(gpus) <= pool.total && u64::from(cpus) <= pool.cpu_total
            }
        }
    }

    /// Whether a job of `gpus` GPUs fits now on some type (any type when
    /// untyped).
    pub fn fits(&self, gpus: u32) -> bool {
        self.fits_job(gpus, 0)
    }

    /// Whether a job of `gpus` GPUs and `cpus` CPUs fits now on some type.
    pub fn fits_job(&self, gpus: u32, cpus: u32) -> bool {
        (0..self.pools.len()).any(|t| self.fits_job_on(gpus, cpus, t as GpuType))
    }

    /// The type a job of `gpus` GPUs that may use the types of `mask` (bit
    /// `t` = type `t`) goes to under the placement rule alone (type
    /// policy `agnostic`): under `consolidate` the type of the best-fit
    /// node among the nodes of those types (fewest free GPUs, then lowest
    /// node index); under `spread` the lowest type index with enough free
    /// GPUs. `None` if it fits on none.
    pub fn agnostic_type(&self, gpus: u32, mask: u64) -> Option<GpuType> {
        self.agnostic_type_for(gpus, 0, mask)
    }

    /// [`Cluster::agnostic_type`] for a job of `gpus` GPUs and `cpus`
    /// CPUs: with CPUs counted, under `consolidate` the type of the best-fit
    /// node of [`Cluster::place_job_on`] (fewest free GPUs, then fewest free
    /// CPUs, then lowest index); under `spread` the lowest type with enough
    /// of both.
    pub fn agnostic_type_for(&self, gpus: u32, cpus: u32, mask: u64) -> Option<GpuType> {
        if self.counts_cpus() {
            return match self.placement {
                Placement::Consolidate => {
                    let mut best: Option<(u32, u32, usize)> = None;
                    for (t, pool) in self.pools.iter().enumerate() {
                        if mask & (1 << t) == 0 {
                            continue;
                        }
                        if let Some(c) = pool.best_fit_cpus(gpus, cpus, &self.cpu_free)
                            && best.is_none_or(|b| c < b)
                        {
                            best = Some(c);
                        }
                    }
                    best.map(|(_, _, n)| self.node_type[n])
                }
                Placement::Spread => (0..self.pools.len())
                    .find(|&t| mask & (1 << t) != 0 && self.fits_job_on(gpus, cpus, t as GpuType))
                    .map(|t| t as GpuType),
            };
        }
        match self.placement {
            Placement::Consolidate => {
                let mut best: Option<(u32, usize)> = None;
                for (t, pool) in self.pools.iter().enumerate() {
                    if mask & (1 << t) == 0 {
                        continue;
                    }
                    if let Some(c) = pool.best_fit(gpus)
                        && best.is_none_or(|b| c < b)
                    {
                        best = Some(c);
                    }
                }
                best.map(|(_, n)| self.node_type[n])
            }
            Placement::Spread => (0..self.pools.len())
                .find(|&t| mask & (1 << t) != 0 && self.fits_on(gpus, t as GpuType))
                .map(|t| t as GpuType),
        }
    }

    /// Place a job of `gpus` GPUs on the lowest type it fits on (type 0
    /// when untyped), as [`Cluster::place_on`].
    pub fn place(&mut self, gpus: u32, out: &mut [Alloc]) -> Option<usize> {
        let t = (0..self.pools.len()).find(|&t| self.fits_on(gpus, t as GpuType))?;
        self.place_on(gpus, t as GpuType, out)
    }

    /// Place a job of `gpus` GPUs on nodes of type `t` by the placement
    /// rule, writing its per-node allocation into `out` (at least
    /// `min(gpus, nodes)` long) and returning how many entries were
    /// written; `None` (and nothing changed) if it does not fit there.
    pub fn place_on(&mut self, gpus: u32, t: GpuType, out: &mut [Alloc]) -> Option<usize> {
        self.place_job_on(gpus, 0, t, out)
    }

    /// Place a job of `gpus` GPUs and `cpus` CPUs on nodes of type `t` by
    /// the placement rule (module documentation), writing its per-node
    /// allocation into `out` (at least `min(gpus + cpus, nodes)` long when
    /// CPUs are counted, else `min(gpus, nodes)`; one entry under
    /// `consolidate`) and returning how many entries were written; `None`
    /// (and nothing changed) if it does not fit there. `cpus` is ignored
    /// when CPUs are not counted.
    pub fn place_job_on(
        &mut self,
        gpus: u32,
        cpus: u32,
        t: GpuType,
        out: &mut [Alloc],
    ) -> Option<usize> {
        if !self.fits_job_on(gpus, cpus, t) {
            return None;
        }
        if self.counts_cpus() {
            return self.place_with_cpus(gpus, cpus, t, out);
        }
        match self.placement {
            Placement::Consolidate => {
                let (_, n) = self.pools[t as usize].best_fit(gpus)?;
                self.set_free(n, self.free[n] - gpus);
                out[0] = Alloc {
                    node: n as u32,
                    gpus,
                    cpus: 0,
                };
                Some(1)
            }
            Placement::Spread => {
                let mut len = 0;
                for _ in 0..gpus {
                    let n = self.pools[t as usize].most_free()?;
                    self.set_free(n, self.free[n] - 1);
                    match out[..len].iter_mut().find(|a| a.node == n as u32) {
                        Some(a) => a.gpus += 1,
                        None => {
                            out[len] = Alloc {
                                node: n as u32,
                                gpus: 1,
                                cpus: 0,
                            };
                            len += 1;
                        }
                    }
                }
                Some(len)
            }
        }
    }

    /// [`Cluster::place_job_on`] with CPUs counted; the caller checked that
    /// the job fits.
    fn place_with_cpus(
        &mut self,
        gpus: u32,
        cpus: u32,
        t: GpuType,
        out: &mut [Alloc],
    ) -> Option<usize> {
        match self.placement {
            Placement::Consolidate => {
                let (_, _, n) = self.pools[t as usize].best_fit_cpus(gpus, cpus, &self.cpu_free)?;
                self.set_free(n, self.free[n] - gpus);
                self.set_cpu_free(n, self.cpu_free[n] - cpus);
                out[0] = Alloc {
                    node: n as u32,
                    gpus,
                    cpus,
                };
                Some(1)
            }
            Placement::Spread => {
                let mut len = 0;
                for _ in 0..gpus {
                    let n = self.pools[t as usize].most_free()?;
                    self.set_free(n, self.free[n] - 1);
                    match out[..len].iter_mut().find(|a| a.node == n as u32) {
                        Some(a) => a.gpus += 1,
                        None => {
                            out[len] = Alloc {
                                node: n as u32,
                                gpus: 1,
                                cpus: 0,
                            };
                            len += 1;
                        }
                    }
                }
                let mut rest = cpus;
                for a in &mut out[..len] {
                    let n = a.node as usize;
                    let take = rest.min(self.cpu_free[n]);
                    a.cpus = take;
                    rest -= take;
                    let free = self.cpu_free[n] - take;
                    self.set_cpu_free(n, free);
                }
                while rest > 0 {
                    let n = self.pools[t as usize].most_free_cpus(&self.cpu_free)?;
                    let take = rest.min(self.cpu_free[n]);
                    rest -= take;
                    self.set_cpu_free(n, self.cpu_free[n] - take);
                    // A node GPUs came from has no free CPU left, so `n`
                    // is a new entry.
                    out[len] = Alloc {
                        node: n as u32,
                        gpus: 0,
                        cpus: take,
                    };
                    len += 1;
                }
                Some(len)
            }
        }
    }

    /// Give back the GPUs of an allocation.
    pub fn release(&mut self, allocs: &[Alloc]) -> Result<()> {
        for a in allocs {
            let n = a.node as usize;
            let free = self.free[n] + a.gpus;
            if free > self.capacity[n] {
                return Err(Error::input(format!(
                    "internal error: node {n} would have {free} free GPUs of {}",
                    self.capacity[n]
                )));
            }
            self.set_free(n, free);
            if a.cpus > 0 {
                let cpu_free = self.free_cpus(n) + a.cpus;
                if cpu_free > self.cpu_capacity(n) {
                    return Err(Error::input(format!(
                        "internal error: node {n} would have {cpu_free} free CPUs of {}",
                        self.cpu_capacity(n)
                    )));
                }
                self.set_cpu_free(n, cpu_free);
            }
        }
        Ok(())
    }

    /// Whether exactly these GPUs (and CPUs) are free now.
    pub fn can_occupy(&self, allocs: &[Alloc]) -> bool {
        allocs.iter().all(|a| {
            self.free[a.node as usize] >= a.gpus
                && (a.cpus == 0 || self.free_cpus(a.node as usize) >= a.cpus)
        })
    }

    /// Take exactly these GPUs again (undoing a release at the same
    /// instant). The caller checked [`Cluster::can_occupy`].
    pub fn occupy(&mut self, allocs: &[Alloc]) -> Result<()> {
        if !self.can_occupy(allocs) {
            return Err(Error::input(
                "internal error: re-occupying GPUs that are no longer free",
            ));
        }
        for a in allocs {
            let n = a.node as usize;
            self.set_free(n, self.free[n] - a.gpus);
            if a.cpus > 0 {
                self.set_cpu_free(n, self.cpu_free[n] - a.cpus);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_by_name_agrees_with_the_derived_encoding() {
        crate::core::io::by_name::check::agrees::<Placement>();
        for (p, name) in Placement::VALUES.iter().zip(Placement::NAMES) {
            assert_eq!(p.name(), *name);
        }
    }

    fn take(c: &mut Cluster, gpus: u32) -> Vec<Alloc> {
        let mut out = vec![Alloc::default(); gpus as usize];
        let n = c.place(gpus, &mut out).expect("fits");
        out.truncate(n);
        out
    }

    #[test]
    fn consolidate_is_best_fit_then_lowest_index() {
        // Free GPUs per node: [4, 2, 3, 2].
        let mut c = Cluster::new(&[4, 2, 3, 2], Placement::Consolidate);
        // 2 GPUs: nodes 1 and 3 have exactly 2 free; the lowest index wins.
        assert_eq!(
            take(&mut c, 2),
            [Alloc {
                node: 1,
                gpus: 2,
                cpus: 0
            }]
        );
        // Free [4, 0, 3, 2]: 3 GPUs go to node 2 (3 free) not node 0 (4).
        assert_eq!(
            take(&mut c, 3),
            [Alloc {
                node: 2,
                gpus: 3,
                cpus: 0
            }]
        );
        // Free [4, 0, 0, 2]: 1 GPU goes to node 3 (2 free, best fit).
        assert_eq!(
            take(&mut c, 1),
            [Alloc {
                node: 3,
                gpus: 1,
                cpus: 0
            }]
        );
        // 5 GPUs fit nowhere although 5 are free in total.
        assert_eq!(c.free_total(), 5);
        assert!(!c.fits(5));
        let mut out = [Alloc::default(); 4];
        assert_eq!(c.place(5, &mut out), None);
        assert_eq!(c.free_total(), 5, "a failed placement changes nothing");
        assert_eq!(
            take(&mut c, 4),
            [Alloc {
                node: 0,
                gpus: 4,
                cpus: 0
            }]
        );
    }

    #[test]
    fn spread_takes_one_gpu_at_a_time_from_the_most_free_node() {
        // Free [2, 3, 3].
        let mut c = Cluster::new(&[2, 3, 3], Placement::Spread);
        // 4 GPUs: node 1 (3, lowest of the two 3s) → [2,2,3]; node 2 (3) →
        // [2,2,2]; node 0 (2, lowest) → [1,2,2]; node 1 → [1,1,2].
        assert_eq!(
            take(&mut c, 4),
            [
                Alloc {
                    node: 1,
                    gpus: 2,
                    cpus: 0
                },
                Alloc {
                    node: 2,
                    gpus: 1,
                    cpus: 0
                },
                Alloc {
                    node: 0,
                    gpus: 1,
                    cpus: 0
                }
            ]
        );
        assert_eq!((c.free(0), c.free(1), c.free(2)), (1, 1, 2));
        // 4 GPUs fit under spread as soon as 4 are free anywhere.
        assert!(c.fits(4));
        assert!(!c.fits(5));
    }

    #[test]
    fn release_and_occupy_restore_the_same_state() -> Result<()> {
        let mut c = Cluster::new(&[8, 8], Placement::Consolidate);
        let a = take(&mut c, 3);
        let b = take(&mut c, 5);
        assert_eq!(
            a,
            [Alloc {
                node: 0,
                gpus: 3,
                cpus: 0
            }]
        );
        // Best fit: node 0 has 5 free, node 1 has 8.
        assert_eq!(
            b,
            [Alloc {
                node: 0,
                gpus: 5,
                cpus: 0
            }]
        );
        c.release(&a)?;
        assert!(c.can_occupy(&a));
        c.occupy(&a)?;
        assert_eq!(c.free(0), 0);
        assert!(
            c.release(&[Alloc {
                node: 1,
                gpus: 1,
                cpus: 0
            }])
            .is_err()
        );
        Ok(())
    }

    #[test]
    fn large_nodes_and_many_nodes_use_multiword_bitsets() {
        let caps: Vec<u32> = (0..200).map(|i| if i == 150 { 100 } else { 1 }).collect();
        let mut c = Cluster::new(&caps, Placement::Consolidate);
        assert_eq!(
            take(&mut c, 70),
            [Alloc {
                node: 150,
                gpus: 70,
                cpus: 0,
            }]
        );
        assert_eq!(
            take(&mut c, 30),
            [Alloc {
                node: 150,
                gpus: 30,
                cpus: 0,
            }]
        );
        assert_eq!(
            take(&mut c, 1),
            [Alloc {
                node: 0,
                gpus: 1,
                cpus: 0
            }]
        );
        let mut s = Cluster::new(&caps, Placement::Spread);
        assert_eq!(
            take(&mut s, 1),
            [Alloc {
                node: 150,
                gpus: 1,
                cpus: 0
            }]
        );
    }

    #[test]
    fn typed_pools_place_only_on_their_type_and_never_span() {
        // Nodes: 0 a(4), 1 b(2), 2 a(2), 3 b(8).
        let mut c = Cluster::typed(&[4, 2, 2, 8], &[0, 1, 0, 1], 2, Placement::Consolidate);
        assert_eq!(c.types(), 2);
        assert_eq!((c.total_of_type(0), c.total_of_type(1)), (6, 10));
        let mut out = [Alloc::default(); 8];
        // 2 GPUs on type a: best fit is node 2 (2 free), not node 1 (type b).
        assert_eq!(c.place_on(2, 0, &mut out), Some(1));
        assert_eq!(
            out[0],
            Alloc {
                node: 2,
                gpus: 2,
                cpus: 0
            }
        );
        // 8 GPUs do not fit on type a at all.
        assert!(!c.fits_on(8, 0));
        assert!(c.fits_on(8, 1));
        // Agnostic over both types: 2 GPUs go to node 1 (2 free, type b).
        assert_eq!(c.agnostic_type(2, 0b11), Some(1));
        assert_eq!(c.agnostic_type(2, 0b01), Some(0));
        assert_eq!(c.agnostic_type(5, 0b01), None);
        // Spread within a type takes GPUs from its own nodes only.
        let mut s = Cluster::typed(&[4, 2, 2, 8], &[0, 1, 0, 1], 2, Placement::Spread);
        assert_eq!(s.place_on(6, 0, &mut out), Some(2));
        assert_eq!(
            out[..2],
            [
                Alloc {
                    node: 0,
                    gpus: 4,
                    cpus: 0
                },
                Alloc {
                    node: 2,
                    gpus: 2,
                    cpus: 0
                }
            ]
        );
        assert_eq!(s.free_of_type(0), 0);
        assert_eq!(s.free_of_type(1), 10);
        assert!(!s.fits_on(1, 0));
        assert_eq!(s.agnostic_type(3, 0b11), Some(1));
    }
}
