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

use crate::core::limits::{MAX_GPUS, MAX_REPETITIONS, MAX_TRACE_JOBS, grouped};

/// The largest integer a TOML file can hold.
const TOML_MAX: u64 = i64::MAX as u64;

/// A whole number for a `T`, described as `what` from `min` to `max`.
struct Whole<T> {
    what: &'static str,
    min: u64,
    max: u64,
    into: PhantomData<T>,
}

impl<T> Whole<T> {
    fn read<'de, D: Deserializer<'de>>(
        d: D,
        what: &'static str,
        min: u64,
        max: u64,
    ) -> Result<T, D::Error>
    where
        T: TryFrom<u64>,
    {
        d.deserialize_u64(Self {
            what,
            min,
            max,
            into: PhantomData,
        })
    }
}

impl<T: TryFrom<u64>> Visitor<'_> for Whole<T> {
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
        T::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
}

/// A seed: any whole number from 0 up.
pub fn seed<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Whole::read(d, "a whole number", 0, TOML_MAX)
}

/// `repetitions` (at most [`MAX_REPETITIONS`], checked by the loaders).
pub fn repetitions<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Whole::read(d, "a whole number of repetitions", 1, MAX_REPETITIONS)
}

/// Model mode's `[cluster] gpus` (at most [`MAX_GPUS`], checked by the
/// loader).
pub fn gpus<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Whole::read(d, "a whole number of GPUs", 1, MAX_GPUS).map(Some)
}

/// Job mode's `[jobs] sample` (at most the trace's jobs, checked by the
/// loader).
pub fn jobs<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    Whole::read(d, "a whole number of jobs", 1, MAX_TRACE_JOBS).map(Some)
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
}
