//! Whole numbers of scenario files, read with messages in plain words: a
//! value that does not fit (negative, fractional, too large, not a number)
//! reads "expected a whole number of repetitions from 1 to 1,000,000"
//! (the documented range, docs/REFERENCE.md "Limits"), not serde's
//! "expected u32", and keeps toml's line and column. Values that fit the
//! field but break a limit are left to the loaders' checks, which say so
//! with the limit (`--reps` is checked there too).
//!
//! Use with `#[serde(deserialize_with = "…")]`.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserializer;
use serde::de::{Error, Unexpected, Visitor};

use crate::core::limits::{
    MAX_CPUS_PER_NODE, MAX_FIDELITIES, MAX_GPUS, MAX_GPUS_PER_NODE, MAX_GRID_POINTS, MAX_NODES,
    MAX_REPETITIONS, MAX_TRACE_INDEX, MIN_GRID_POINTS, grouped,
};

/// The largest integer a TOML file can hold.
const TOML_MAX: u64 = i64::MAX as u64;

/// The integer types a whole number is read into, bare or optional (an
/// `Option` field read with `#[serde(default, deserialize_with = …)]`:
/// absent is `None`, present is `Some`).
pub trait FromWhole: Sized {
    /// `v` as `Self`, or `None` when it does not fit.
    fn from_whole(v: u64) -> Option<Self>;
}

macro_rules! from_whole {
    ($($t:ty),*) => {$(
        impl FromWhole for $t {
            fn from_whole(v: u64) -> Option<Self> {
                Self::try_from(v).ok()
            }
        }
        impl FromWhole for Option<$t> {
            fn from_whole(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok().map(Some)
            }
        }
    )*};
}
from_whole!(u32, u64, usize);

/// A whole number for a `T`, described as `what` from `min` to `max`.
struct Whole<T> {
    what: &'static str,
    min: u64,
    max: u64,
    into: PhantomData<T>,
}

/// Read a whole number for a `T`, described in its error as `what` from
/// `min` to `max` (the documented range; a value that fits `T` is
/// returned whatever the range, for the loader to check against its
/// limit).
pub fn read<'de, D: Deserializer<'de>, T: FromWhole>(
    d: D,
    what: &'static str,
    min: u64,
    max: u64,
) -> Result<T, D::Error> {
    d.deserialize_u64(Whole {
        what,
        min,
        max,
        into: PhantomData,
    })
}

impl<T: FromWhole> Visitor<'_> for Whole<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} from {} to {}",
            self.what,
            grouped(self.min),
            grouped(self.max)
        )
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
        }
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
        T::from_whole(v).ok_or_else(|| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
}

/// One reader per key: `$name` reads "a whole number of `$what` from `$min`
/// to `$max`".
macro_rules! keys {
    ($($(#[$doc:meta])* $name:ident: $what:literal, $min:expr, $max:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<'de, D: Deserializer<'de>, T: FromWhole>(d: D) -> Result<T, D::Error> {
            read(d, $what, $min, $max)
        }
    )*};
}

keys! {
    /// A seed: any whole number from 0 up.
    seed: "a whole number", 0, TOML_MAX;
    /// `repetitions` (at most [`MAX_REPETITIONS`], checked by the loaders).
    repetitions: "a whole number of repetitions", 1, MAX_REPETITIONS;
    /// Model mode's `[cluster] gpus` and the service's `max_gpus` (at most
    /// [`MAX_GPUS`], or the cluster's, checked by the loaders).
    gpus: "a whole number of GPUs", 1, MAX_GPUS;
    /// The service's `gpus_per_job` (at most its `max_gpus`).
    gpus_per_job: "a whole number of GPUs per job", 1, MAX_GPUS;
    /// Job mode's `[jobs] sample` (at most the trace's jobs, checked by the
    /// loader).
    jobs: "a whole number of jobs", 1, MAX_TRACE_INDEX;
    /// `max_jobs_per_tenant` and `[limits] max_jobs`.
    jobs_per_tenant: "a whole number of jobs", 1, MAX_TRACE_INDEX;
    /// Users of a generated trace (`[trace.syn] users`).
    users: "a whole number of users", 1, MAX_TRACE_INDEX;
    /// Models of a generated trace (`[trace.syn] models`).
    models: "a whole number of models", 1, MAX_TRACE_INDEX;
    /// Fidelities of a generated curve trace (`[trace.syn] fidelities`).
    fidelities: "a whole number of fidelities", 1, MAX_FIDELITIES as u64;
    /// `[split] prior_count`.
    prior_users: "a whole number of prior users", 0, MAX_TRACE_INDEX;
    /// `[split] tenant_count`.
    tenants: "a whole number of tenants", 1, MAX_TRACE_INDEX;
    /// `[output] grid_points`.
    grid_points: "a whole number of grid points", MIN_GRID_POINTS, MAX_GRID_POINTS;
    /// A job-mode cluster's `nodes` and a node group's `count`.
    nodes: "a whole number of nodes", 1, MAX_NODES;
    /// `gpus_per_node` of a job-mode cluster or node group.
    gpus_per_node: "a whole number of GPUs per node", 1, MAX_GPUS_PER_NODE;
    /// `cpus_per_node` of a cluster or node group (0: not counted).
    cpus_per_node: "a whole number of CPUs per node", 0, MAX_CPUS_PER_NODE;
    /// A workflow policy's `parallel_k`.
    sub_jobs: "a whole number of sub-jobs", 1, MAX_TRACE_INDEX;
    /// `[workflows.cache]` sizes in bytes.
    bytes: "a whole number of bytes", 0, TOML_MAX;
    /// `[workflows.cache] bandwidth_bytes_per_s` (0: unlimited).
    bytes_per_s: "a whole number of bytes per second", 0, TOML_MAX;
    /// `[workflows.retry] max_retries`.
    retries: "a whole number of retries", 0, MAX_TRACE_INDEX;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct File {
        #[serde(default, deserialize_with = "seed")]
        seed: u64,
        #[serde(default, deserialize_with = "repetitions")]
        repetitions: u32,
        #[serde(default, deserialize_with = "gpus")]
        gpus: Option<u64>,
        #[serde(default, deserialize_with = "sub_jobs")]
        parallel_k: Option<u32>,
        #[serde(default = "two", deserialize_with = "grid_points")]
        grid_points: u32,
        #[serde(default, deserialize_with = "users")]
        users: usize,
    }

    fn two() -> u32 {
        2
    }

    fn read(text: &str) -> Result<File, String> {
        toml::from_str(text).map_err(|e| e.message().to_string())
    }

    #[test]
    fn whole_numbers_that_do_not_fit_are_named_in_plain_words() {
        let ok = read("seed = 7\nrepetitions = 4000000000\ngpus = 0").expect("fits");
        assert_eq!(
            (ok.seed, ok.repetitions, ok.gpus),
            (7, 4_000_000_000, Some(0))
        );
        assert_eq!(read("").expect("defaults").gpus, None);
        assert_eq!(
            read("seed = -7").expect_err("negative"),
            "invalid value: integer `-7`, expected a whole number from 0 to 9,223,372,036,854,775,807"
        );
        assert_eq!(
            read("repetitions = 100000000000").expect_err("too large"),
            "invalid value: integer `100000000000`, expected a whole number of repetitions from 1 to 1,000,000"
        );
        assert_eq!(
            read("gpus = 1.5").expect_err("fractional"),
            "invalid type: floating point `1.5`, expected a whole number of GPUs from 1 to 100,000"
        );
    }

    #[test]
    fn each_integer_type_bare_or_optional_reads_what_fits_and_states_the_range_otherwise() {
        let ok = read("parallel_k = 4294967295\ngrid_points = 0\nusers = 7").expect("fits");
        assert_eq!(
            (ok.parallel_k, ok.grid_points, ok.users),
            (Some(u32::MAX), 0, 7)
        );
        let absent = read("").expect("defaults");
        assert_eq!((absent.parallel_k, absent.grid_points), (None, 2));
        // One past u32: the range, not "expected u32"; the same for an
        // optional field.
        assert_eq!(
            read("grid_points = 4294967296").expect_err("too large"),
            "invalid value: integer `4294967296`, expected a whole number of grid points from 2 to 100,000"
        );
        assert_eq!(
            read("parallel_k = -1").expect_err("negative"),
            "invalid value: integer `-1`, expected a whole number of sub-jobs from 1 to 4,294,967,295"
        );
        assert_eq!(
            read("users = \"7\"").expect_err("a string"),
            "invalid type: string \"7\", expected a whole number of users from 1 to 4,294,967,295"
        );
    }
}
