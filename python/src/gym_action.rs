//! The actions of `tenantsim.gym` in model mode (DESIGN §15.3) and which
//! of them are allowed at a decision point. Two action kinds:
//!
//! - `tenant` (gymnasium `Discrete(N + 1)`): `a < N` gives the free GPU to
//!   tenant `a` (its model chosen by the scenario's selector), `a = N`
//!   leaves the free GPUs idle until the next event;
//! - `pair` (`MultiDiscrete([N + 1, K + 1])`): `(i, k)` with `k < K` starts
//!   trace model `k` for tenant `i` at the pair's top level, `k = K` lets
//!   the selector choose (so the scenario's own policy is `(i, K)`); `i =
//!   N` is idle, whatever `k`.
//!
//! An action is checked here, before the engine sees it, by the rules of
//! DESIGN §15.1 (the same the engine enforces), so an invalid one is
//! refused with nothing changed, in a vector of environments too.

use tenantsim::models::experiment::Episode;
use tenantsim::models::sim::Choice;

/// Which action space an environment has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// `Discrete(N + 1)`: a tenant, or idle.
    Tenant,
    /// `MultiDiscrete([N + 1, K + 1])`: a tenant and a model (or the
    /// selector's), or idle.
    Pair,
}

impl ActionKind {
    /// The kind named `name` (`"tenant"` or `"pair"`).
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "tenant" => Ok(Self::Tenant),
            "pair" => Ok(Self::Pair),
            other => Err(format!(
                "action: expected \"tenant\" (Discrete: a tenant or idle) or \"pair\" \
                 (MultiDiscrete: a tenant and a model), got \"{other}\""
            )),
        }
    }
}

/// An action as the environment receives it: `(tenant, model)`, `model`
/// unused in the `tenant` kind.
pub type Action = (i64, i64);

/// Whether tenant `i` may be given the free GPU now (DESIGN §2.3).
pub fn tenant_allowed(episode: &Episode, i: usize) -> bool {
    let t = episode.run().tenants();
    i < t.len() && t.is_eligible(i)
}

/// Whether tenant `i` may start trace model `k` at its top level now
/// (DESIGN §15.1: available to the tenant, not tried, a level above the
/// highest started).
pub fn pair_allowed(episode: &Episode, i: usize, k: usize) -> bool {
    if !tenant_allowed(episode, i) {
        return false;
    }
    let run = episode.run();
    let (t, trace) = (run.tenants(), run.trace());
    let u = t.user(i);
    k < trace.n_models()
        && trace.is_available(u, k)
        && !t.is_tried(i, k)
        && t.level_started(i, k)
            .is_none_or(|s| s < trace.top_level(u, k))
}

/// The choice `action` stands for, or why it is not allowed now (naming
/// the action and what is allowed).
pub fn choice(episode: &Episode, kind: ActionKind, action: Action) -> Result<Choice, String> {
    let t = episode.run().tenants();
    let n = t.len();
    let k_models = episode.run().trace().n_models();
    let (a, m) = action;
    let shown = || match kind {
        ActionKind::Tenant => format!("action {a}"),
        ActionKind::Pair => format!("action ({a}, {m})"),
    };
    let allowed = || allowed_tenants(episode);
    if a < 0 || a > n as i64 {
        return Err(format!(
            "{}: the tenant must be 0 to {} (a tenant) or {n} (idle); allowed now: {}",
            shown(),
            n.saturating_sub(1),
            allowed()
        ));
    }
    let i = a as usize;
    if i == n {
        return Ok(Choice::Idle);
    }
    if !tenant_allowed(episode, i) {
        return Err(format!(
            "{}: tenant {i} is not eligible now (not arrived, nothing left to try, \
             its concurrent-job limit reached, waiting, out of budget or gone); allowed now: {}",
            shown(),
            allowed()
        ));
    }
    match kind {
        ActionKind::Tenant => Ok(Choice::Tenant(i)),
        ActionKind::Pair => {
            if m < 0 || m > k_models as i64 {
                return Err(format!(
                    "{}: the model must be 0 to {} (a trace model) or {k_models} (the selector's choice)",
                    shown(),
                    k_models.saturating_sub(1)
                ));
            }
            let k = m as usize;
            if k == k_models {
                return Ok(Choice::Tenant(i));
            }
            if !pair_allowed(episode, i, k) {
                let models: Vec<String> = (0..k_models)
                    .filter(|&k| pair_allowed(episode, i, k))
                    .map(|k| k.to_string())
                    .collect();
                return Err(format!(
                    "{}: model {k} is not available to tenant {i} or was already tried; \
                     allowed models for tenant {i}: [{}] or {k_models} (the selector's choice)",
                    shown(),
                    models.join(", ")
                ));
            }
            Ok(Choice::Pair(i, k))
        }
    }
}

/// The allowed tenants now, for a message: `[0, 3, 7] or N (idle)`.
fn allowed_tenants(episode: &Episode) -> String {
    let n = episode.run().tenants().len();
    let ok: Vec<String> = (0..n)
        .filter(|&i| tenant_allowed(episode, i))
        .take(50)
        .map(|i| i.to_string())
        .collect();
    let more = if ok.len() == 50 { ", ..." } else { "" };
    format!("tenants [{}{more}] or {n} (idle)", ok.join(", "))
}

/// The action a choice of the scenario's scheduler is: its tenant (idle:
/// `N`), and in the `pair` kind the selector's model `K`.
pub fn policy_action(choice: Choice, n: usize, k_models: usize) -> Action {
    match choice {
        Choice::Idle => (n as i64, k_models as i64),
        Choice::Tenant(i) | Choice::Pair(i, _) => (i as i64, k_models as i64),
    }
}

/// Write the tenant mask (1: allowed) into `out` (length N + 1; idle, the
/// last, is always allowed); all 0 but idle once the episode has ended.
pub fn tenant_mask(episode: &Episode, ended: bool, out: &mut [u8]) {
    let n = out.len() - 1;
    for (i, m) in out[..n].iter_mut().enumerate() {
        *m = u8::from(!ended && tenant_allowed(episode, i));
    }
    out[n] = 1;
}

/// Write the pair mask into `out` (N rows of K + 1: row i, column k < K is
/// `pair_allowed`, column K is `tenant_allowed`).
pub fn pair_mask(episode: &Episode, ended: bool, k_models: usize, out: &mut [u8]) {
    for (i, row) in out.chunks_exact_mut(k_models + 1).enumerate() {
        let ok = !ended && tenant_allowed(episode, i);
        for (k, m) in row[..k_models].iter_mut().enumerate() {
            *m = u8::from(ok && pair_allowed(episode, i, k));
        }
        row[k_models] = u8::from(ok);
    }
}

/// Rewrite the entries of the `touched` tenants in a tenant mask `out`
/// (N + 1) while the episode goes on: an entry reads only its tenant's
/// state (DESIGN §15.3), so the others are as last written.
pub fn tenant_mask_rows(episode: &Episode, touched: &[u32], out: &mut [u8]) {
    for &i in touched {
        let i = i as usize;
        out[i] = u8::from(tenant_allowed(episode, i));
    }
}

/// Rewrite the rows of the `touched` tenants in a pair mask `out` (N rows
/// of K + 1) while the episode goes on, as [`tenant_mask_rows`].
pub fn pair_mask_rows(episode: &Episode, k_models: usize, touched: &[u32], out: &mut [u8]) {
    let w = k_models + 1;
    for &i in touched {
        let i = i as usize;
        let row = &mut out[i * w..(i + 1) * w];
        let ok = tenant_allowed(episode, i);
        for (k, m) in row[..k_models].iter_mut().enumerate() {
            *m = u8::from(ok && pair_allowed(episode, i, k));
        }
        row[k_models] = u8::from(ok);
    }
}
