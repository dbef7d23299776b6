//! The internet-scale scenarios of issue 34 (`scenarios/scale-1m.toml`,
//! `scenarios/scale-year.toml`; their file names are an interface: tests
//! outside the repository run them). Running them takes minutes and
//! gigabytes (docs/PERFORMANCE.md, "Internet scale (issue 34)"), so the
//! suite never runs them: it validates them, and checks that they say what
//! the issue asks for.

use toml::{Table, Value};

use crate::common::{INTERNET_SCALE, repo, tenantsim};

fn table(name: &str) -> Table {
    std::fs::read_to_string(repo(&format!("scenarios/{name}.toml")))
        .expect("readable")
        .parse()
        .expect("valid TOML")
}

fn int(t: &Table, path: &[&str]) -> i64 {
    let mut v: &Value = t.get(path[0]).expect("key");
    for k in &path[1..] {
        v = v.get(*k).expect("key");
    }
    v.as_integer().expect("integer")
}

/// `tenantsim validate` accepts each of [`INTERNET_SCALE`] (the scenarios
/// the other bundled-scenario tests leave out), and its description states the
/// tenants and GPUs of the issue: 1,000 prior users and 10^6 (10^7)
/// tenants, 2,048 GPUs.
///
/// Ignored by default, and failing today for scale-year: `validate`
/// checks the memory estimate first (DESIGN §8.5), which refuses
/// scale-year (33.1 GiB: every one of its 10^7 tenants' state and loss
/// curve held to the end of the run; its trace is lazy, DESIGN §1.2
/// "Lazy rows") until a tenant's state is held only while it is present
/// (issue 34, open); and validate still hashes the whole generated trace
/// (scale-1m: 6.6 s and 0.75 GB in a release build; minutes in a debug
/// build). Run it with `cargo test --release --test it
/// scale_scenarios:: -- --ignored`.
#[test]
#[ignore = "scale-year is refused by the memory estimate until issue 34's memory by active tenants lands; scale-1m takes minutes in a debug build"]
fn scale_1m_and_scale_year_validate_with_the_issues_sizes() {
    for (name, tenants) in INTERNET_SCALE.into_iter().zip([1_000_000, 10_000_000]) {
        let out = tenantsim()
            .arg("validate")
            .arg(repo(&format!("scenarios/{name}.toml")))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {err}");
        assert!(
            err.contains(&format!("split: 1000 prior users, {tenants} tenants")),
            "{name}: {err}"
        );
        assert!(err.contains("cluster: 2048 GPUs"), "{name}: {err}");
    }
}

/// The year's arrival rate is 10^7 tenants over 365 × 24 = 8,760 hours:
/// λ = 10^7 / 8,760 = 1,141.552511… per hour, so the expected arrival time
/// of the last tenant (10^7 / λ) is 8,760 h to within 10^-12. Both
/// scenarios are every tenant at once (scale-1m: no `[arrivals]`) or
/// Poisson with a patience (scale-year).
#[test]
fn scale_year_arrives_by_poisson_over_one_year_with_a_patience() {
    let t = table("scale-year");
    let arrivals = t.get("arrivals").expect("[arrivals]");
    assert_eq!(
        arrivals.get("kind").and_then(Value::as_str),
        Some("poisson")
    );
    let rate = arrivals
        .get("rate_per_hour")
        .and_then(Value::as_float)
        .expect("rate_per_hour");
    let tenants = int(&t, &["trace", "syn", "users"]) - int(&t, &["split", "prior_count"]);
    assert_eq!(tenants, 10_000_000);
    let hours = tenants as f64 / rate;
    assert!((hours - 8760.0).abs() < 1e-12 * 8760.0, "{hours} h");
    assert!(int(&t, &["limits", "patience_s"]) > 0);
    assert_eq!(int(&t, &["cluster", "gpus"]), 2048);

    let m = table("scale-1m");
    assert!(m.get("arrivals").is_none(), "scale-1m: all at t = 0");
    assert_eq!(
        int(&m, &["trace", "syn", "users"]) - int(&m, &["split", "prior_count"]),
        1_000_000
    );
    assert_eq!(int(&m, &["trace", "syn", "models"]), 20);
    assert_eq!(int(&m, &["cluster", "gpus"]), 2048);
}
