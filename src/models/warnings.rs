//! Warnings about degenerate set-ups: scenarios that run, but whose results
//! say little. They go to stderr and into `run.json` (`warnings`); they
//! never change a result (a stalled run's regret is defined in DESIGN
//! §2.6; the warning only says so).
//!
//! - [`setup_warnings`], known before any run: a horizon shorter than every
//!   job a tenant could run (no job can finish), and a scenario where every
//!   possible tenant has a single model (there is nothing to select).
//! - [`stalled_warnings`], known after aggregation: a policy that ran
//!   nothing in some repetition, or left the GPUs idle while a tenant
//!   still had a model to run (a stalled run, DESIGN §2.6);
//! - [`never_reaches_warnings`], known after aggregation: a policy whose
//!   mean loss curve reaches none of the thresholds.

use crate::models::aggregate::Aggregate;
use crate::models::metrics::stall::Stall;
use crate::models::scenario::Scenario;
use crate::models::trace::Micros;

/// µs as seconds, shortest form (`2000000` → `2`).
fn format_seconds(us: Micros) -> String {
    (us as f64 / 1e6).to_string()
}

/// The trace users that can be tenants in some repetition: the listed
/// tenants, or every user not listed as a prior user, one at a time (not
/// a list of them: 80 MB for scale-year's 10^7 users, which set its peak
/// of memory at the start and the end of a run; docs/PERFORMANCE.md
/// "Internet scale").
fn possible_tenants(s: &Scenario) -> Box<dyn Iterator<Item = usize> + '_> {
    match (&s.split.fixed_tenants, &s.split.fixed_prior) {
        (Some(t), _) => Box::new(t.iter().copied()),
        (None, Some(p)) => {
            let prior: std::collections::HashSet<usize> = p.iter().copied().collect();
            Box::new((0..s.trace.n_users()).filter(move |u| !prior.contains(u)))
        }
        (None, None) => Box::new(0..s.trace.n_users()),
    }
}

/// Warnings about `s` that hold before anything runs.
pub fn setup_warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(horizon) = s.config.horizon {
        let shortest: Option<Micros> = possible_tenants(s)
            .flat_map(|u| s.trace.models_of(u).iter().map(move |&k| (u, k)))
            .map(|(u, k)| s.trace.runtime_us(u, k))
            .min();
        if let Some(shortest) = shortest
            && shortest > horizon
        {
            out.push(format!(
                "horizon_s = {} is shorter than every job a tenant can run (the shortest takes {} s): no job finishes, so every loss stays at its start",
                format_seconds(horizon),
                format_seconds(shortest)
            ));
        }
    }
    let mut tenants = possible_tenants(s).peekable();
    if tenants.peek().is_some() && tenants.all(|u| s.trace.models_of(u).len() == 1) {
        out.push(
            "every tenant has exactly one model: there is no model to select, so the selectors cannot differ"
                .to_string(),
        );
    }
    out
}

/// A warning for each policy (by `names`) whose T(θ) on the mean loss curve
/// is ∞ for every threshold (`time_to[p][k]` for threshold k).
pub fn never_reaches_warnings(
    names: &[String],
    time_to: &[Vec<Option<Micros>>],
    thresholds: &[f64],
) -> Vec<String> {
    if thresholds.is_empty() {
        return Vec::new();
    }
    names
        .iter()
        .zip(time_to)
        .filter(|(_, t)| t.iter().all(Option::is_none))
        .map(|(name, _)| {
            let list: Vec<String> = thresholds.iter().map(|t| t.to_string()).collect();
            format!(
                "policy `{name}` never reaches any threshold ({}) on its mean loss curve: its T(θ) and speedups are all inf / n/a",
                list.join(", ")
            )
        })
        .collect()
}

/// A warning for each policy (by `names`) and way of stalling with
/// stalled repetitions (DESIGN §2.6): `stalled[p]` is (repetitions that
/// ran nothing, repetitions left idle with work, repetitions) of policy p.
pub fn stalled_warnings(names: &[String], stalled: &[(usize, usize, usize)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, &(nothing, idle, n)) in names.iter().zip(stalled) {
        if nothing > 0 {
            out.push(format!(
                "policy `{name}` ran nothing in {nothing} of {n} repetition(s): the run ended at the last arrival and no job lowered any loss (no job started: a budget or job limit below every job?); its cumulative regret there counts the loss it left up to the stall horizon, not up to that early end, so it never looks better than a policy that worked (DESIGN §2.6)"
            ));
        }
        if idle > 0 {
            out.push(format!(
                "policy `{name}` left the GPUs idle in {idle} of {n} repetition(s): the run ended, with nothing running, while a tenant still had a model it could run (a scheduler that returned no tenant although one was eligible?); its cumulative regret there counts the loss it left up to the stall horizon, not up to that early end, so stopping early never looks better than working (DESIGN §2.6)"
            ));
        }
    }
    out
}

/// The warnings only a finished run can give: [`stalled_warnings`] and
/// [`never_reaches_warnings`] of `agg`'s policies.
pub fn result_warnings(agg: &Aggregate) -> Vec<String> {
    let names: Vec<String> = agg.policies.iter().map(|p| p.name.clone()).collect();
    let stalled: Vec<(usize, usize, usize)> = agg
        .policies
        .iter()
        .map(|p| {
            (
                p.reps.stalled(Stall::NothingLowered),
                p.reps.stalled(Stall::LeftIdle),
                p.reps.len(),
            )
        })
        .collect();
    let times: Vec<Vec<Option<Micros>>> = agg.policies.iter().map(|p| p.time_to.clone()).collect();
    let mut out = stalled_warnings(&names, &stalled);
    out.extend(never_reaches_warnings(&names, &times, &agg.thresholds));
    out
}

/// Every warning of a finished run of `s` with aggregate `agg`, setup
/// warnings first: what `run.json` records under `warnings`.
pub fn run_warnings(s: &Scenario, agg: &Aggregate) -> Vec<String> {
    let mut out = setup_warnings(s);
    out.extend(result_warnings(agg));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::io::scenario::Overrides;
    use crate::models::scenario::parse_scenario;

    fn scenario(extra: &str, trace: &str) -> Scenario {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let trace_path = dir.path().join("t.csv");
        if let Err(e) = std::fs::write(&trace_path, trace) {
            panic!("{e}");
        }
        let text = format!(
            "name = \"w\"\nseed = 1\nrepetitions = 1\nthresholds = [0.1]\n{extra}\n\
             [trace]\npath = \"t.csv\"\n[cluster]\ngpus = 1\n\
             [[policy]]\nname = \"p\"\nscheduler = \"round-robin\"\nselector = \"random\"\n"
        );
        match parse_scenario(&dir.path().join("s.toml"), &text, Overrides::default()) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    const TWO_MODELS: &str = "user,model,accuracy,runtime_s\nu0,a,0.5,3\nu0,b,0.7,5\nu1,a,0.6,4\n";

    #[test]
    fn horizon_shorter_than_every_job() {
        // Shortest job 3 s: a 2 s horizon warns, a 3 s one does not.
        let w = setup_warnings(&scenario("horizon_s = 2", TWO_MODELS));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("horizon_s = 2") && w[0].contains("3 s"),
            "{w:?}"
        );
        assert!(setup_warnings(&scenario("horizon_s = 3", TWO_MODELS)).is_empty());
        assert!(setup_warnings(&scenario("", TWO_MODELS)).is_empty());
    }

    #[test]
    fn every_tenant_with_one_model() {
        let one = "user,model,accuracy,runtime_s\nu0,a,0.5,3\nu1,b,0.7,5\n";
        let w = setup_warnings(&scenario("", one));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("exactly one model"), "{w:?}");
        // u0 has two models: no warning.
        assert!(setup_warnings(&scenario("", TWO_MODELS)).is_empty());
    }

    #[test]
    fn policy_that_never_reaches_any_threshold() {
        let names = ["a".to_string(), "b".to_string()];
        let w = never_reaches_warnings(
            &names,
            &[vec![None, Some(5)], vec![None, None]],
            &[0.1, 0.2],
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("`b`") && w[0].contains("0.1, 0.2"), "{w:?}");
        assert!(never_reaches_warnings(&names, &[vec![], vec![]], &[]).is_empty());
    }
}
