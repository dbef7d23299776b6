//! Values named by a string in scenario files: the unit enums of keys such
//! as `[cluster] placement`, `[output] grid` and `[trace.syn] rows`.
//!
//! serde's derived `Deserialize` of a unit enum asks TOML for an enum, and
//! TOML answers a key given anything but a string or a table with "wanted
//! string or table", which names neither the key's values nor what it got;
//! a sweep's point, read from a `toml::Value`, reads "invalid type: unit
//! variant, expected string only" instead, so a sweep blamed its own axis
//! for the base file's mistake (the two messages differed). An enum that
//! implements [`ByName`] and `named_in_files!` is read from its name in
//! human-readable formats (TOML, JSON), so either reader says "invalid
//! type: integer `2`, expected `log` or `linear`" (and "unknown value
//! `lin`, …" for an unknown name, in TOML's words:
//! [`super::scenario::in_toml_words`]). Binary formats (the run codec's
//! postcard) keep serde's derived encoding, byte for byte, and written
//! files keep the derived text (a name is a string either way).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};

/// A unit enum written in files by name.
pub trait ByName: Copy + 'static {
    /// Every value, in the order messages list them.
    const VALUES: &'static [Self];
    /// Their names in files, in the same order (serde's names: a test of
    /// each implementation checks that the derived encoding writes them).
    const NAMES: &'static [&'static str];
}

/// Read a `T` from its name in a human-readable format; in any other,
/// through `derived` (serde's derived `Deserialize`, kept by
/// `#[serde(remote = "Self")]`).
///
/// # Errors
/// Anything but a string, or an unknown name, with the names listed.
pub fn deserialize<'de, T: ByName, D: Deserializer<'de>>(
    deserializer: D,
    derived: fn(D) -> Result<T, D::Error>,
) -> Result<T, D::Error> {
    if deserializer.is_human_readable() {
        deserializer.deserialize_str(Name(PhantomData))
    } else {
        derived(deserializer)
    }
}

/// The visitor of a name.
struct Name<T>(PhantomData<T>);

impl<T: ByName> Visitor<'_> for Name<T> {
    type Value = T;

    /// serde's own wording of a list of variants ("`a`", "`a` or `b`",
    /// "one of `a`, `b`, `c`"), so an unknown name and a wrong type list
    /// them alike.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |n: &str| format!("`{n}`");
        match T::NAMES {
            [] => write!(f, "no value (there are none)"),
            [a] => write!(f, "{}", quoted(a)),
            [a, b] => write!(f, "{} or {}", quoted(a), quoted(b)),
            names => {
                let all: Vec<String> = names.iter().map(|n| quoted(n)).collect();
                write!(f, "one of {}", all.join(", "))
            }
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::NAMES
            .iter()
            .zip(T::VALUES)
            .find(|(name, _)| **name == v)
            .map(|(_, value)| *value)
            .ok_or_else(|| E::unknown_variant(v, T::NAMES))
    }
}

/// `Serialize` and `Deserialize` for a [`ByName`] enum that derives both
/// under `#[serde(remote = "Self")]`: serialised as derived, deserialised
/// by [`deserialize`].
macro_rules! named_in_files {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$t>::serialize(self, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::core::io::by_name::deserialize(d, <$t>::deserialize)
            }
        }
    };
}
pub(crate) use named_in_files;

/// Test helpers: a [`ByName`] implementation agrees with serde's derived
/// encoding.
#[cfg(test)]
pub mod check {
    use super::ByName;

    /// Each value serialises (JSON, derived) to its name, reads back from
    /// it in JSON and TOML, and round-trips through the run codec's
    /// postcard with the derived encoding (its variant index).
    pub fn agrees<T>()
    where
        T: ByName + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        assert_eq!(T::VALUES.len(), T::NAMES.len());
        for (i, (value, name)) in T::VALUES.iter().zip(T::NAMES).enumerate() {
            let json = serde_json::to_string(value).expect("json");
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&json).expect("json back"), *value);
            #[derive(serde::Deserialize)]
            struct Doc<T> {
                v: T,
            }
            let doc: Doc<T> = toml::from_str(&format!("v = \"{name}\"")).expect("toml");
            assert_eq!(doc.v, *value);
            let bytes = postcard::to_allocvec(value).expect("postcard");
            assert_eq!(bytes, [u8::try_from(i).expect("few values")]);
            assert_eq!(postcard::from_bytes::<T>(&bytes).expect("back"), *value);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(remote = "Self", rename_all = "kebab-case")]
    enum Three {
        One,
        TwoWords,
        Many,
    }

    impl ByName for Three {
        const VALUES: &'static [Self] = &[Self::One, Self::TwoWords, Self::Many];
        const NAMES: &'static [&'static str] = &["one", "two-words", "many"];
    }

    named_in_files!(Three);

    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(remote = "Self", rename_all = "lowercase")]
    enum Two {
        Log,
        Linear,
    }

    impl ByName for Two {
        const VALUES: &'static [Self] = &[Self::Log, Self::Linear];
        const NAMES: &'static [&'static str] = &["log", "linear"];
    }

    named_in_files!(Two);

    #[derive(Debug, Deserialize)]
    struct Doc {
        #[allow(dead_code)]
        grid: Two,
        #[allow(dead_code)]
        kind: Option<Three>,
    }

    fn toml_message(text: &str) -> String {
        toml::from_str::<Doc>(text)
            .expect_err("bad")
            .message()
            .to_string()
    }

    fn value_message(text: &str) -> String {
        let table: toml::Table = toml::from_str(text).expect("a table");
        Doc::deserialize(toml::Value::Table(table))
            .expect_err("bad")
            .message()
            .to_string()
    }

    #[test]
    fn implementations_agree_with_the_derived_encoding() {
        check::agrees::<Three>();
        check::agrees::<Two>();
    }

    /// The bug: "wanted string or table" from TOML, "invalid type: unit
    /// variant, expected string only" from a `toml::Value` (a sweep's
    /// point), neither naming the values.
    #[test]
    fn a_number_for_a_named_value_read_wanted_string_or_table() {
        for (text, expected) in [
            (
                "grid = 2",
                "invalid type: integer `2`, expected `log` or `linear`",
            ),
            (
                "grid = \"log\"\nkind = 2",
                "invalid type: integer `2`, expected one of `one`, `two-words`, `many`",
            ),
        ] {
            assert_eq!(toml_message(text), expected);
            assert_eq!(value_message(text), expected);
        }
        assert_eq!(
            toml_message("grid = true"),
            "invalid type: boolean `true`, expected `log` or `linear`"
        );
        assert_eq!(
            toml_message("grid = { log = 1 }"),
            "invalid type: map, expected `log` or `linear`"
        );
    }

    #[test]
    fn an_unknown_name_lists_the_names() {
        let want = "unknown variant `lin`, expected `log` or `linear`";
        assert_eq!(toml_message("grid = \"lin\""), want);
        assert_eq!(value_message("grid = \"lin\""), want);
        assert_eq!(
            toml_message("grid = \"log\"\nkind = \"four\""),
            "unknown variant `four`, expected one of `one`, `two-words`, `many`"
        );
    }
}
