//! The GPU types of a model-selection cluster and each (user, model) pair's
//! runtime on each type (DESIGN §11.4).
//!
//! GPUs are numbered node by node in the order the scenario gives the node
//! groups, so `nodes = [{type = "v100", count = 2}, {type = "k80", count =
//! 1, gpus_per_node = 2}]` has GPUs 0–1 of type `v100` and 2–3 of type
//! `k80`; the lowest-free-index rule of DESIGN §2.4 is unchanged.
//!
//! The runtime c_t[u,k] of pair (u, k) on type t is, first that applies:
//! 1. the trace's `runtime_s.<t>` cell of the pair, if the column exists
//!    and the cell is not empty;
//! 2. c[u,k] / f, f = `[cluster.model_speed.<t>]`'s factor of model k;
//! 3. c[u,k] / f, f = `[cluster.speed]`'s factor of t (default 1);
//!
//! c[u,k] being the trace's `runtime_s` in µs as rounded at load, and the
//! quotient rounded to the nearest µs (at least 1 µs) once, here. A factor
//! of 1 leaves c[u,k] exactly as it is, so an untyped cluster (one
//! anonymous type) runs on the trace's runtimes themselves.
//!
//! ```
//! use tenantsim::models::sim::GpuTypes;
//! let t = GpuTypes::untyped(4);
//! assert!(!t.is_typed());
//! assert_eq!((t.gpus(), t.n_types(), t.type_of(3)), (4, 1, 0));
//! ```

use std::collections::BTreeMap;

use ndarray::Array2;

use crate::core::error::{Error, Result};
use crate::core::io::cluster::{ClusterSpec, GpuType};
use crate::core::io::echo::shown;
use crate::models::trace::{MAX_RUNTIME_S, Micros, Trace, with_matrix_row};

/// Speed factors of a typed cluster: `[cluster.speed]` (type → factor) and
/// `[cluster.model_speed.<type>]` (type → model → factor).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpeedTable {
    /// Per type name: runtime on it = runtime_s / factor.
    pub speed: BTreeMap<String, f64>,
    /// Per type name, per model id: overrides `speed` for that model.
    pub model_speed: BTreeMap<String, BTreeMap<String, f64>>,
}

/// The GPU types of a cluster, the type of each GPU and the runtimes on
/// each type. Built once per scenario and shared read-only by every run.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuTypes {
    /// Type names by [`GpuType`]; `[""]` when untyped.
    names: Vec<String>,
    /// Type of each GPU, by GPU index; empty when untyped.
    of_gpu: Vec<GpuType>,
    /// GPUs of each type.
    per_type: Vec<u32>,
    gpus: u32,
    /// Runtime matrix (µs) of each type; empty when untyped (the trace's
    /// own matrix is every GPU's).
    runtimes: Vec<Array2<Micros>>,
}

impl GpuTypes {
    /// `gpus` GPUs of the one anonymous type, running the trace's runtimes.
    pub fn untyped(gpus: u32) -> Self {
        Self {
            names: vec![String::new()],
            of_gpu: Vec::new(),
            per_type: vec![gpus],
            gpus,
            runtimes: Vec::new(),
        }
    }

    /// The types of `spec` and the runtimes of `trace` on each, by the rule
    /// of the module documentation. `at` names the scenario in errors. An
    /// untyped `spec` gives [`GpuTypes::untyped`] (its speed table must be
    /// empty, and the trace's `runtime_s.<type>` columns, if any, are not
    /// read).
    ///
    /// # Errors
    /// An input error naming the field: a speed factor that is not a finite
    /// number > 0, a speed for a type the cluster lacks, a model speed for a
    /// model the trace lacks, a `runtime_s.<type>` column of a type the
    /// cluster lacks, or a runtime beyond the limit once divided.
    pub fn build(at: &str, spec: &ClusterSpec, trace: &Trace, speeds: &SpeedTable) -> Result<Self> {
        let gpus = u32::try_from(spec.gpus()).map_err(|_| {
            Error::input(format!(
                "{at}: [cluster]: more than 2^32 GPUs in the cluster"
            ))
        })?;
        if !spec.is_typed() {
            if let Some(key) = speeds
                .speed
                .keys()
                .next()
                .or(speeds.model_speed.keys().next())
            {
                return Err(Error::input(format!(
                    "{at}: [cluster]: a speed is given for GPU type `{}`, but the cluster has no \
                     types: give `nodes = [{{type = …, count = …}}, …]` instead of `gpus`",
                    shown(key)
                )));
            }
            return Ok(Self::untyped(gpus));
        }
        let names = spec.types().to_vec();
        let type_list = names.join(", ");
        let type_of = |field: &str, name: &str| -> Result<usize> {
            names.iter().position(|t| t == name).ok_or_else(|| {
                Error::input(format!(
                    "{at}: {field}: unknown GPU type `{}`: the cluster's types are {type_list}",
                    shown(name)
                ))
            })
        };
        let check_factor = |field: String, f: f64| -> Result<f64> {
            if f.is_finite() && f > 0.0 {
                Ok(f)
            } else {
                Err(Error::input(format!(
                    "{at}: {field}: expected a speed factor, a finite number > 0 (runtime = runtime_s / factor), got {f}"
                )))
            }
        };
        // Factor per (type, model): model_speed, else speed, else 1.
        let k = trace.n_models();
        let mut factor = vec![1.0; names.len() * k];
        for (name, &f) in &speeds.speed {
            let t = type_of(&format!("[cluster.speed].{}", shown(name)), name)?;
            let f = check_factor(format!("[cluster.speed].{name}"), f)?;
            factor[t * k..(t + 1) * k].fill(f);
        }
        for (name, models) in &speeds.model_speed {
            let t = type_of(&format!("[cluster.model_speed].{}", shown(name)), name)?;
            for (model, &f) in models {
                let field = format!("[cluster.model_speed.{name}].{}", shown(model));
                let m = trace.model_index(model).ok_or_else(|| {
                    Error::input(format!(
                        "{at}: {field}: unknown model `{}`: the trace {} has no such model",
                        shown(model),
                        trace.source()
                    ))
                })?;
                factor[t * k + m] = check_factor(field, f)?;
            }
        }
        let mut columns: Vec<Option<&Array2<Micros>>> = vec![None; names.len()];
        for (name, matrix) in trace.typed_runtimes_us() {
            let Some(t) = names.iter().position(|n| n == name) else {
                return Err(Error::input(format!(
                    "{at}: [cluster]: the trace {} has a column `runtime_s.{name}`, but the cluster \
                     has no GPU type `{name}` (its types are {type_list})",
                    trace.source()
                )));
            };
            columns[t] = Some(matrix);
        }
        let Some(base) = trace.runtime_matrix_us() else {
            return Err(Error::input(format!(
                "{at}: [cluster]: GPU types need the trace's runtimes held whole, but the \
                 `[trace.syn]` trace {} is produced row by row: give `[trace.syn] rows = \"dense\"`",
                trace.source()
            )));
        };
        let max_us = MAX_RUNTIME_S * 1e6;
        let mut runtimes = Vec::with_capacity(names.len());
        for (t, column) in columns.iter().enumerate() {
            let mut m = base.clone();
            for u in 0..trace.n_users() {
                for &j in trace.models_of(u) {
                    let given = column.map_or(0, |c| c[[u, j]]);
                    if given > 0 {
                        m[[u, j]] = given;
                        continue;
                    }
                    let f = factor[t * k + j];
                    if f == 1.0 {
                        continue;
                    }
                    let us = (base[[u, j]] as f64 / f).round();
                    if us > max_us {
                        return Err(Error::input(format!(
                            "{at}: [cluster]: model `{}` of user `{}` would run {} s on GPU type `{}` \
                             (runtime_s / speed factor {f}), beyond the limit of {MAX_RUNTIME_S:e} s",
                            trace.models()[j],
                            trace.user_id(u),
                            us / 1e6,
                            names[t]
                        )));
                    }
                    m[[u, j]] = (us as Micros).max(1);
                }
            }
            runtimes.push(m);
        }
        let of_gpu: Vec<GpuType> = spec
            .nodes()
            .iter()
            .flat_map(|n| std::iter::repeat_n(n.gpu_type, n.gpus as usize))
            .collect();
        let per_type = (0..names.len())
            .map(|t| of_gpu.iter().filter(|&&g| usize::from(g) == t).count() as u32)
            .collect();
        Ok(Self {
            names,
            of_gpu,
            per_type,
            gpus,
            runtimes,
        })
    }

    /// Whether the scenario named GPU types.
    pub fn is_typed(&self) -> bool {
        !self.of_gpu.is_empty()
    }

    /// Type names by [`GpuType`] (`[""]` when untyped).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of types (1 when untyped).
    pub fn n_types(&self) -> usize {
        self.names.len()
    }

    /// GPUs in the cluster.
    pub fn gpus(&self) -> u32 {
        self.gpus
    }

    /// GPUs of type `t`.
    pub fn gpus_of_type(&self, t: GpuType) -> u32 {
        self.per_type[usize::from(t)]
    }

    /// The type of GPU `gpu` (0 when untyped).
    pub fn type_of(&self, gpu: u32) -> GpuType {
        self.of_gpu.get(gpu as usize).copied().unwrap_or(0)
    }

    /// `read` of trace user `u`'s runtimes (µs) on type `t`, by model
    /// index (0 where missing): the trace's own when untyped.
    pub fn with_runtimes_us<R>(
        &self,
        trace: &Trace,
        t: GpuType,
        u: usize,
        read: impl FnOnce(&[Micros]) -> R,
    ) -> R {
        match self.runtimes.get(usize::from(t)) {
            Some(m) => with_matrix_row(m, u, read),
            None => trace.with_runtimes_us(u, read),
        }
    }

    /// The runtime (µs) of trace user `u`'s model `k` on type `t` (0 for a
    /// missing pair).
    pub fn runtime_us(&self, trace: &Trace, t: GpuType, u: usize, k: usize) -> Micros {
        match self.runtimes.get(usize::from(t)) {
            Some(m) => m[[u, k]],
            None => trace.runtime_us(u, k),
        }
    }

    /// A curve job's cost `cost` µs (DESIGN §12.1) on a GPU of type `t`:
    /// scaled by the pair's speed on that type, ⌊cost · r_t / r⌋ with r_t
    /// the pair's runtime on type t and r its runtime in the trace (at
    /// least 1 µs); `cost` itself on an untyped cluster.
    pub fn scaled_us(&self, trace: &Trace, t: GpuType, u: usize, k: usize, cost: Micros) -> Micros {
        match self.runtimes.get(usize::from(t)) {
            Some(m) => {
                let base = u128::from(trace.runtime_us(u, k).max(1));
                let scaled = u128::from(cost) * u128::from(m[[u, k]]) / base;
                Micros::try_from(scaled).unwrap_or(Micros::MAX).max(1)
            }
            None => cost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::io::cluster::{NodeGroup, groups_to_spec};
    use crate::models::trace::parse_trace;

    fn spec() -> ClusterSpec {
        let g = |t: &str, count, gpus_per_node| NodeGroup {
            gpu_type: t.into(),
            count,
            gpus_per_node,
            cpus_per_node: None,
        };
        groups_to_spec(
            "s.toml",
            "[cluster].nodes",
            &[g("fast", 1, 1), g("slow", 1, 2)],
        )
        .expect("valid")
    }

    #[test]
    fn gpus_numbered_node_by_node_and_runtimes_follow_the_precedence() {
        let trace = parse_trace(
            "t.csv",
            "user,model,accuracy,runtime_s,runtime_s.slow\na,m,0.5,10,\na,n,0.6,10,7\n".as_bytes(),
        )
        .expect("valid");
        let mut speeds = SpeedTable::default();
        speeds.speed.insert("slow".into(), 0.5);
        speeds.speed.insert("fast".into(), 4.0);
        speeds
            .model_speed
            .insert("fast".into(), [("n".to_string(), 2.0)].into());
        let t = GpuTypes::build("s.toml", &spec(), &trace, &speeds).expect("valid");
        assert!(t.is_typed());
        assert_eq!([t.type_of(0), t.type_of(1), t.type_of(2)], [0, 1, 1]);
        assert_eq!((t.gpus_of_type(0), t.gpus_of_type(1)), (1, 2));
        // fast: m by the type's speed 4, n by its model speed 2.
        assert_eq!(t.runtime_us(&trace, 0, 0, 0), 2_500_000);
        assert_eq!(t.runtime_us(&trace, 0, 0, 1), 5_000_000);
        // slow: m by the speed 0.5, n by its column.
        assert_eq!(t.runtime_us(&trace, 1, 0, 0), 20_000_000);
        assert_eq!(t.runtime_us(&trace, 1, 0, 1), 7_000_000);
    }

    #[test]
    fn speed_errors_name_the_field() {
        let trace = parse_trace(
            "t.csv",
            "user,model,accuracy,runtime_s\na,m,0.5,1\n".as_bytes(),
        )
        .expect("valid");
        let err = |speeds: SpeedTable| {
            GpuTypes::build("s.toml", &spec(), &trace, &speeds)
                .expect_err("an error")
                .to_string()
        };
        let mut s = SpeedTable::default();
        s.speed.insert("slow".into(), 0.0);
        let e = err(s);
        assert!(
            e.contains("s.toml: [cluster.speed].slow: expected a speed factor"),
            "{e}"
        );
        let mut s = SpeedTable::default();
        s.speed.insert("a100".into(), 2.0);
        let e = err(s);
        assert!(e.contains("unknown GPU type `a100`"), "{e}");
        let mut s = SpeedTable::default();
        s.model_speed
            .insert("fast".into(), [("zz".to_string(), 2.0)].into());
        let e = err(s);
        assert!(
            e.contains("[cluster.model_speed.fast].zz: unknown model `zz`"),
            "{e}"
        );
        let untyped = ClusterSpec::untyped(&[2]);
        let mut s = SpeedTable::default();
        s.speed.insert("fast".into(), 2.0);
        let e = GpuTypes::build("s.toml", &untyped, &trace, &s)
            .expect_err("an error")
            .to_string();
        assert!(e.contains("the cluster has no types"), "{e}");
    }
}
