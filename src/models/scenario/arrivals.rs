//! Tenant arrival times, sampled per repetition.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rand::Rng;
use rand::seq::SliceRandom;

use super::ArrivalsSection;
use super::file::STREAMED;
use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::{CsvReader, number_field};
use crate::core::io::echo::{shown, shown_number};
use crate::core::io::open_input;
use crate::core::sim::rng::{Purpose, stream};
use crate::models::sim::{
    Arrivals, MAX_ARRIVAL_S, PoissonStream, PoissonTimes, UserList, beyond_limit, secs_to_us,
};
use crate::models::trace::{Micros, Trace};

/// How tenants arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrivalPlan {
    /// Every tenant at t = 0.
    AtStart,
    /// A Poisson process of `rate_per_hour` arrivals per hour.
    Poisson {
        /// Arrivals per hour (> 0).
        rate_per_hour: f64,
        /// The tenants' order drawn as they arrive (`order =
        /// "streamed"`), not shuffled whole at the start.
        streamed: bool,
    },
    /// Independent uniform arrival times over `[0, window]`.
    Uniform {
        /// Window length, µs.
        window: Micros,
    },
    /// Fixed times per trace user (µs), from a CSV `user,arrival_s`.
    File {
        /// Arrival per trace user index.
        times: HashMap<usize, Micros>,
    },
}

impl ArrivalPlan {
    /// Validate `[arrivals]`; `base` is the scenario's folder;
    /// `max_tenants` is the most tenants a repetition can have.
    pub fn from_section(
        at: &str,
        base: &Path,
        s: &ArrivalsSection,
        trace: &Trace,
        max_tenants: usize,
    ) -> Result<Self> {
        Self::from_section_in(at, "", base, s, trace, max_tenants)
    }

    /// [`ArrivalPlan::from_section`] of an `[arrivals]` table under the
    /// key prefix `p` (`"service."` in a shared scenario): messages name
    /// `[{p}arrivals]`.
    pub fn from_section_in(
        at: &str,
        p: &str,
        base: &Path,
        s: &ArrivalsSection,
        trace: &Trace,
        max_tenants: usize,
    ) -> Result<Self> {
        let err = |msg: String| Err(Error::input(format!("{at}: [{p}arrivals]: {msg}")));
        let extra = |allowed: &str| -> Result<()> {
            let given = [
                ("rate_per_hour", s.rate_per_hour.is_some()),
                ("order", s.order.is_some()),
                ("window_s", s.window_s.is_some()),
                ("path", s.path.is_some()),
            ];
            let allowed = |k: &str| allowed.split(' ').any(|a| a == k);
            if let Some((k, _)) = given.iter().find(|(k, g)| *g && !allowed(k)) {
                return Err(Error::input(format!(
                    "{at}: [{p}arrivals]: key `{k}` does not apply to kind `{}`",
                    s.kind
                )));
            }
            Ok(())
        };
        match s.kind.as_str() {
            "at-start" => {
                extra("")?;
                Ok(Self::AtStart)
            }
            "poisson" => {
                extra("rate_per_hour order")?;
                let streamed = match s.order.as_deref() {
                    None | Some("shuffled") => false,
                    Some(STREAMED) => true,
                    Some(o) => {
                        return err(format!(
                            "order: unknown order `{}`: expected shuffled or streamed",
                            shown(o)
                        ));
                    }
                };
                match s.rate_per_hour {
                    // The mean arrival time of the last of n tenants is
                    // n / rate; beyond the time limit the run would fail.
                    Some(r)
                        if r.is_finite()
                            && r > 0.0
                            && max_tenants as f64 * 3600.0 / r > MAX_ARRIVAL_S =>
                    {
                        err(format!(
                            "rate_per_hour: at {r:e} arrivals per hour, {max_tenants} tenants take {:.3e} s on average to arrive, \
                         beyond the limit of 1e12 s for simulated time: expected a rate of at least {:.3e}",
                            max_tenants as f64 * 3600.0 / r,
                            max_tenants as f64 * 3600.0 / MAX_ARRIVAL_S
                        ))
                    }
                    Some(r) if r.is_finite() && r > 0.0 => Ok(Self::Poisson {
                        rate_per_hour: r,
                        streamed,
                    }),
                    Some(r) => err(format!(
                        "rate_per_hour: expected arrivals per hour > 0, got {}",
                        shown_number(r)
                    )),
                    None => err("kind `poisson` needs `rate_per_hour`".into()),
                }
            }
            "uniform" => {
                extra("window_s")?;
                match s.window_s {
                    Some(w) if w.is_finite() && (0.0..=MAX_ARRIVAL_S).contains(&w) => {
                        Ok(Self::Uniform {
                            window: secs_to_us(w),
                        })
                    }
                    Some(w) => err(format!(
                        "window_s: expected seconds in [0, 1e12], got {}",
                        shown_number(w)
                    )),
                    None => err("kind `uniform` needs `window_s`".into()),
                }
            }
            "file" => {
                extra("path")?;
                let Some(p) = &s.path else {
                    return err("kind `file` needs `path` (a CSV `user,arrival_s`)".into());
                };
                Ok(Self::File {
                    times: read_arrival_file(&base.join(p), trace)?,
                })
            }
            other => err(format!(
                "kind: unknown kind `{other}`: expected at-start, poisson, uniform or file"
            )),
        }
    }

    /// Whether every tenant arrives at 0.
    pub fn is_at_start(&self) -> bool {
        matches!(self, Self::AtStart)
    }

    /// Arrival times of `tenants` (trace user indices, ascending) in
    /// repetition `rep`, from the `(seed, rep, arrivals)` stream.
    ///
    /// - poisson: n gaps g_j = −ln(U_j) / λ with U_j uniform in (0, 1]
    ///   (exponential inter-arrival times of a Poisson process of rate λ per
    ///   second; [`PoissonTimes`]); arrival j is at g_1 + … + g_j. With the
    ///   default order the j-th arrival goes to the j-th tenant of a
    ///   uniformly shuffled tenant order (Fisher–Yates, drawn from the same
    ///   stream after the gaps); with `order = "streamed"` it goes to a
    ///   tenant drawn uniformly from those not arrived yet, as the run
    ///   goes ([`PoissonStream`]: nothing listed).
    /// - uniform: each tenant independently uniform on [0, window].
    /// - file: the listed time; a tenant missing from the file is an error.
    ///
    /// Times are rounded to whole microseconds. Listed times are the
    /// shared list the run and its results hold, made in place (not a
    /// list copied into it: 8 bytes a tenant at the start of scale-year,
    /// docs/PERFORMANCE.md "Internet scale").
    pub fn sample(
        &self,
        tenants: &(impl UserList + ?Sized),
        trace: &Trace,
        seed: u64,
        rep: u64,
    ) -> Result<Arrivals> {
        let n = tenants.count();
        Ok(match self {
            Self::AtStart => Arrivals::Listed((0..n).map(|_| 0).collect()),
            Self::Poisson {
                rate_per_hour,
                streamed: true,
            } => Arrivals::Streamed(Arc::new(PoissonStream::new(n, *rate_per_hour, seed, rep)?)),
            Self::Poisson {
                rate_per_hour,
                streamed: false,
            } => {
                let mut times_of = PoissonTimes::new(seed, rep, *rate_per_hour);
                // One allocation of n times (a `Range` is of known
                // length), filled in place: the list is not shared yet.
                let mut shared: Arc<[Micros]> = (0..n).map(|_| 0).collect();
                let times = Arc::get_mut(&mut shared)
                    .ok_or_else(|| Error::input("internal: a new list of arrivals is shared"))?;
                for (j, slot) in times.iter_mut().enumerate() {
                    let t = times_of.next_time();
                    if t > MAX_ARRIVAL_S {
                        return Err(beyond_limit(rep, j + 1, n, *rate_per_hour, t));
                    }
                    *slot = secs_to_us(t);
                }
                // The shuffle draws the same numbers whatever the element
                // type, so the order is held as `u32` (n < 2³²: the
                // estimate refuses far fewer tenants), and the times are
                // moved to their tenants in place, following the
                // permutation's cycles: 12 bytes a tenant, not 24, at
                // the start of scale-year's 10^7 (docs/PERFORMANCE.md
                // "Internet scale").
                let mut rng = times_of.into_rng();
                let mut order: Vec<u32> = (0..n).map(|j| j as u32).collect();
                order.shuffle(&mut rng);
                scatter(times, &order);
                Arrivals::Listed(shared)
            }
            Self::Uniform { window } => {
                let mut rng = stream(seed, rep, Purpose::Arrivals);
                Arrivals::Listed(
                    (0..n)
                        .map(|_| {
                            if *window == 0 {
                                0
                            } else {
                                rng.gen_range(0..=*window)
                            }
                        })
                        .collect(),
                )
            }
            Self::File { times } => Arrivals::Listed(
                tenants
                    .each()
                    .map(|u| {
                        times.get(&u).copied().ok_or_else(|| {
                            Error::input(format!(
                                "[arrivals] file has no arrival time for tenant `{}`",
                                trace.user_id(u)
                            ))
                        })
                    })
                    .collect::<Result<_>>()?,
            ),
        })
    }
}

/// `values` moved so that the value at `j` goes to `order[j]`, for a
/// permutation `order` of `0..values.len()`, in place: each cycle of the
/// permutation is followed once (a bit per place marks the places done),
/// carrying one value along it.
fn scatter(values: &mut [Micros], order: &[u32]) {
    let mut done = crate::core::sim::Bits::new(values.len());
    for start in 0..values.len() {
        if done.get(start) {
            continue;
        }
        // Carry the value at `start` to its place, that place's value to
        // its own, and so on until the cycle returns to `start`.
        let mut carried = values[start];
        let mut j = start;
        loop {
            done.set(j);
            let to = order[j] as usize;
            std::mem::swap(&mut values[to], &mut carried);
            if to == start {
                break;
            }
            j = to;
        }
    }
}

fn read_arrival_file(path: &Path, trace: &Trace) -> Result<HashMap<usize, Micros>> {
    let file = open_input(path, "arrivals file")?;
    parse_arrival_times(&path.display().to_string(), file, trace)
}

/// Parse an arrivals CSV `user,arrival_s` read from `input` (`source`
/// names it in errors): the arrival time, µs, of each listed user of
/// `trace`, by user index. Unknown or repeated users, and times that are
/// not seconds in [0, 1e12], are errors naming the line.
pub fn parse_arrival_times(
    source: &str,
    input: impl std::io::Read,
    trace: &Trace,
) -> Result<HashMap<usize, Micros>> {
    let mut reader = CsvReader::new(source, input, true)?;
    let names: Vec<&str> = reader.headers().iter().collect();
    if names != ["user", "arrival_s"] {
        return Err(Error::input(format!(
            "{source}: line 1: expected the header `user,arrival_s`, found `{}`",
            shown(&names.join(","))
        )));
    }
    let mut times = HashMap::new();
    let mut rec = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut rec)? {
        let user = &rec[0];
        let Some(u) = trace.user_index(user) else {
            return Err(Error::input(format!(
                "{source}: line {line}: field `user`: unknown user `{}`: the trace has no such user",
                shown(user)
            )));
        };
        let t = number_field(&rec[1], source, line, "arrival_s")?;
        if !(t.is_finite() && (0.0..=MAX_ARRIVAL_S).contains(&t)) {
            return Err(Error::input(format!(
                "{source}: line {line}: field `arrival_s`: expected seconds in [0, 1e12], got {}",
                shown_number(t)
            )));
        }
        if times.insert(u, secs_to_us(t)).is_some() {
            return Err(Error::input(format!(
                "{source}: line {line}: user `{}` is listed twice",
                shown(user)
            )));
        }
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand() -> Trace {
        crate::models::trace::parse_trace(
            "hand.csv",
            &include_bytes!("../../../traces/hand.csv")[..],
        )
        .expect("hand trace")
    }

    /// Poisson arrivals as sampled until 2026-12-05 (the reference): the
    /// gaps, then a shuffled `usize` order, then each time copied to its
    /// tenant in a third vector.
    fn poisson_by_copies(n: usize, rate_per_hour: f64, seed: u64, rep: u64) -> Vec<Micros> {
        let mut rng = stream(seed, rep, Purpose::Arrivals);
        let lambda = rate_per_hour / 3600.0;
        let mut t = 0.0f64;
        let times: Vec<Micros> = (0..n)
            .map(|_| {
                let u: f64 = 1.0 - rng.r#gen::<f64>();
                t += -libm::log(u) / lambda;
                secs_to_us(t)
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut out = vec![0; n];
        for (j, &i) in order.iter().enumerate() {
            out[i] = times[j];
        }
        out
    }

    /// Regression for the sampling's memory: the times moved in place by
    /// the `u32` order's cycles are the times copied by the `usize` order,
    /// bit for bit, for many sizes, seeds and repetitions.
    #[test]
    fn poisson_arrivals_moved_in_place_equal_those_copied() {
        let trace = hand();
        let plan = ArrivalPlan::Poisson {
            rate_per_hour: 250.0,
            streamed: false,
        };
        for n in [0, 1, 2, 3, 7, 64, 1_000, 4_099] {
            let tenants: Vec<usize> = (0..n).collect();
            for (seed, rep) in [(1, 0), (1, 3), (99, 0), (u64::MAX, 7)] {
                let got = plan
                    .sample(&tenants, &trace, seed, rep)
                    .expect("in range")
                    .to_list();
                assert_eq!(
                    got[..],
                    poisson_by_copies(n, 250.0, seed, rep)[..],
                    "n {n}, seed {seed}, rep {rep}"
                );
            }
        }
    }

    /// The streamed order draws the same times as the shuffled one (the
    /// same gaps of the same stream) and gives them to other tenants; it
    /// lists nothing.
    #[test]
    fn a_streamed_order_has_the_shuffled_orders_times_for_other_tenants() {
        let trace = hand();
        let tenants: Vec<usize> = (0..2_000).collect();
        let plan = |streamed| ArrivalPlan::Poisson {
            rate_per_hour: 250.0,
            streamed,
        };
        let shuffled = plan(false)
            .sample(&tenants, &trace, 4, 1)
            .expect("in range");
        let streamed = plan(true).sample(&tenants, &trace, 4, 1).expect("in range");
        assert!(shuffled.listed().is_some() && streamed.listed().is_none());
        let (mut a, mut b) = (shuffled.to_list().to_vec(), streamed.to_list().to_vec());
        assert_ne!(a, b);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(streamed.last(), shuffled.last());
    }

    #[test]
    fn an_order_is_shuffled_or_streamed_and_only_for_poisson() {
        let trace = hand();
        let section = |kind: &str, order: &str| ArrivalsSection {
            kind: kind.into(),
            rate_per_hour: (kind == "poisson").then_some(10.0),
            order: Some(order.into()),
            window_s: (kind == "uniform").then_some(10.0),
            path: None,
        };
        let plan = |kind, order| {
            ArrivalPlan::from_section("s.toml", Path::new(""), &section(kind, order), &trace, 3)
        };
        assert!(matches!(
            plan("poisson", "streamed"),
            Ok(ArrivalPlan::Poisson { streamed: true, .. })
        ));
        assert!(matches!(
            plan("poisson", "shuffled"),
            Ok(ArrivalPlan::Poisson {
                streamed: false,
                ..
            })
        ));
        let err = plan("poisson", "sorted").expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "s.toml: [arrivals]: order: unknown order `sorted`: expected shuffled or streamed"
        );
        let err = plan("uniform", "streamed").expect_err("not poisson");
        assert_eq!(
            err.to_string(),
            "s.toml: [arrivals]: key `order` does not apply to kind `uniform`"
        );
    }

    #[test]
    fn scatter_moves_each_value_to_its_place() {
        let values: Vec<Micros> = (0..9).map(|v| 100 + v).collect();
        // Cycles (0 4 2), (1), (3 8 5 7 6).
        let order = [4u32, 1, 0, 8, 2, 7, 3, 6, 5];
        let mut moved = values.clone();
        scatter(&mut moved, &order);
        for (j, &to) in order.iter().enumerate() {
            assert_eq!(moved[to as usize], values[j]);
        }
    }

    #[test]
    fn poisson_arrivals_beyond_the_time_limit_are_an_error_not_clamped() {
        let trace = hand();
        // About 3.6e12 s between arrivals: the first already lies beyond.
        for streamed in [false, true] {
            let slow = ArrivalPlan::Poisson {
                rate_per_hour: 1e-9,
                streamed,
            };
            let err = slow
                .sample(&[0, 1, 2], &trace, 1, 0)
                .expect_err("beyond 1e12 s");
            assert!(
                err.to_string().contains("beyond the limit of 1e12 s"),
                "{err}"
            );
            let fine = ArrivalPlan::Poisson {
                rate_per_hour: 1.0,
                streamed,
            };
            let times = fine
                .sample(&[0, 1, 2], &trace, 1, 0)
                .expect("in range")
                .to_list();
            assert!(times.iter().all(|&t| t < secs_to_us(MAX_ARRIVAL_S)));
        }
    }

    #[test]
    fn a_rate_too_low_for_the_tenants_is_rejected_when_the_scenario_loads() {
        let trace = hand();
        let section = ArrivalsSection {
            kind: "poisson".into(),
            rate_per_hour: Some(1e-8),
            order: None,
            window_s: None,
            path: None,
        };
        let err = ArrivalPlan::from_section("s.toml", Path::new(""), &section, &trace, 3)
            .expect_err("mean arrival beyond 1e12 s");
        assert!(
            err.to_string().contains("expected a rate of at least"),
            "{err}"
        );
        assert!(
            ArrivalPlan::from_section("s.toml", Path::new(""), &section, &trace, 2).is_ok(),
            "two tenants at 1e-8 per hour arrive within 7.2e11 s on average"
        );
    }

    #[test]
    fn arrival_files_name_the_physical_line() {
        let trace = hand();
        let err = parse_arrival_times(
            "a.csv",
            "user,arrival_s\n\nu1,0\n\n\nu2,x\n".as_bytes(),
            &trace,
        )
        .expect_err("bad time");
        assert_eq!(
            err.to_string(),
            "a.csv: line 6: field `arrival_s`: expected a number, got `x`"
        );
    }
}
