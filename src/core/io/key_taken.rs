//! A table read as a derived struct with one key taken out first (the
//! shared scenario's `[cluster]`: job mode's keys and `scheduler`;
//! `[jobs]`: job mode's keys and `load`).
//!
//! serde's `flatten` would read the rest but accept unknown keys; reading
//! the table into a [`toml::Table`] first and the rest from it kept them
//! errors but lost every key's place, so a misspelt or mistyped key was
//! reported at the table's header line. Here the rest is read straight
//! from the file's own map: the struct's derive sees every key but the
//! taken one through the reader of the file, which reports each error at
//! its key's or value's line, as job mode does for the same keys.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::StringDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};

/// Keys refused with a message of their own, read at their line.
pub type Refused = &'static [(&'static str, &'static str)];

/// Read a table as `T` with its key `key` taken out first (`None` when
/// absent); each key of `refused` is an error with its message.
pub fn with_key_taken<'de, D, K, T>(
    d: D,
    key: &'static str,
    refused: Refused,
) -> Result<(Option<K>, T), D::Error>
where
    D: Deserializer<'de>,
    K: Deserialize<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_map(Split {
        key,
        refused,
        out: PhantomData,
    })
}

/// The table's visitor: reads `T` from its map, `K` taken aside.
struct Split<K, T> {
    key: &'static str,
    refused: Refused,
    out: PhantomData<fn() -> (K, T)>,
}

impl<'de, K: Deserialize<'de>, T: Deserialize<'de>> Visitor<'de> for Split<K, T> {
    type Value = (Option<K>, T);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut rest = Rest {
            map,
            keys: Keys {
                key: self.key,
                refused: self.refused,
                fields: fields_of::<T>(),
            },
            taken: None,
        };
        let t = T::deserialize(&mut rest)?;
        Ok((rest.taken, t))
    }
}

/// The file's map with the taken key skipped: a deserializer of a map
/// for `T`'s derive.
struct Rest<A, K> {
    map: A,
    keys: Keys,
    taken: Option<K>,
}

/// What a key of the table may be.
#[derive(Clone, Copy)]
struct Keys {
    /// The taken key.
    key: &'static str,
    /// Keys refused with a message of their own.
    refused: Refused,
    /// The derive's keys (empty when it does not say: then its own
    /// message names an unknown key).
    fields: &'static [&'static str],
}

impl Keys {
    /// "unknown field `x`, expected one of `a`, `b`, `key`": serde's
    /// message for an unknown key, with the taken key among those
    /// expected.
    fn unknown(&self, name: &str) -> String {
        let names: Vec<String> = self
            .fields
            .iter()
            .chain([&self.key])
            .map(|f| format!("`{f}`"))
            .collect();
        let expected = match names.as_slice() {
            [one] => one.clone(),
            [a, b] => format!("{a} or {b}"),
            _ => format!("one of {}", names.join(", ")),
        };
        format!("unknown field `{name}`, expected {expected}")
    }
}

/// The keys of a derived struct `T`, as its `Deserialize` names them when
/// it asks for a struct (empty for anything else).
fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("only the keys were asked for"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only the keys were asked for"))
        }
        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

impl<'de, A: MapAccess<'de>, K: Deserialize<'de>> MapAccess<'de> for Rest<A, K> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let mut seed = seed;
        loop {
            let key = Key {
                seed,
                keys: self.keys,
            };
            match self.map.next_key_seed(key)? {
                None => return Ok(None),
                Some(Ok(name)) => return Ok(Some(name)),
                Some(Err(back)) => {
                    self.taken = Some(self.map.next_value()?);
                    seed = back;
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

impl<'de, A: MapAccess<'de>, K: Deserialize<'de>> Deserializer<'de> for &mut Rest<A, K> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A key of the file's map, read by the file's reader (so its errors
/// carry the key's place): the taken key hands the seed back (`Err`),
/// a refused one is an error, an unknown one too (naming the taken key
/// among those expected, which `T`'s own message would leave out), any
/// other goes to `T`'s seed.
struct Key<S> {
    seed: S,
    keys: Keys,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Key<S> {
    type Value = Result<S::Value, S>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let name = String::deserialize(d)?;
        let keys = self.keys;
        if name == keys.key {
            return Ok(Err(self.seed));
        }
        if let Some((_, why)) = keys.refused.iter().find(|(k, _)| *k == name) {
            return Err(de::Error::custom(why));
        }
        if !keys.fields.is_empty() && !keys.fields.contains(&name.as_str()) {
            return Err(de::Error::custom(keys.unknown(&name)));
        }
        let name: StringDeserializer<D::Error> = name.into_deserializer();
        self.seed.deserialize(name).map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        a: u32,
        #[serde(default)]
        b: Option<String>,
    }

    #[derive(Debug, PartialEq)]
    struct Outer {
        k: Option<f64>,
        inner: Inner,
    }

    impl<'de> Deserialize<'de> for Outer {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let (k, inner) = with_key_taken(d, "k", &[("c", "`c` is not a key here")])?;
            Ok(Self { k, inner })
        }
    }

    #[derive(Debug, Deserialize)]
    struct Doc {
        #[allow(dead_code)]
        t: Outer,
    }

    /// The error of `text` read as a document (`[t]` on line 1).
    fn error(text: &str) -> String {
        toml::from_str::<Doc>(text)
            .expect_err("an error")
            .to_string()
    }

    #[test]
    fn the_taken_key_goes_aside_and_the_rest_to_the_derive() {
        let read = |text: &str| toml::from_str::<Doc>(text).expect("reads").t;
        let want = |k, b: Option<&str>| Outer {
            k,
            inner: Inner {
                a: 1,
                b: b.map(String::from),
            },
        };
        assert_eq!(
            read("[t]\na = 1\nk = 2.5\nb = \"x\"\n"),
            want(Some(2.5), Some("x"))
        );
        assert_eq!(read("[t]\nk = 0.5\na = 1\n"), want(Some(0.5), None));
        assert_eq!(read("[t]\na = 1\n"), want(None, None));
        // Through a `toml::Value` too (a sweep point's reader).
        let value: toml::Value = toml::from_str("a = 1\nk = 3.0\n").expect("toml");
        assert_eq!(
            Outer::deserialize(value).expect("reads"),
            want(Some(3.0), None)
        );
    }

    #[test]
    fn the_keys_are_asked_of_the_derive() {
        assert_eq!(fields_of::<Inner>(), ["a", "b"]);
        assert!(fields_of::<u32>().is_empty());
        let keys = |fields| Keys {
            key: "k",
            refused: &[],
            fields,
        };
        // serde's wording for one, two and more names.
        assert_eq!(keys(&[]).unknown("x"), "unknown field `x`, expected `k`");
        assert_eq!(
            keys(&["a"]).unknown("x"),
            "unknown field `x`, expected `a` or `k`"
        );
        assert_eq!(
            keys(&["a", "b"]).unknown("x"),
            "unknown field `x`, expected one of `a`, `b`, `k`"
        );
    }

    #[test]
    fn every_mistake_is_reported_at_its_own_line() {
        // An unknown key of the rest: the derive's message, at the key.
        let e = error("[t]\na = 1\nd = 2\n");
        assert!(e.starts_with("TOML parse error at line 3, column 1"), "{e}");
        assert!(
            e.contains("unknown field `d`, expected one of `a`, `b`, `k`"),
            "{e}"
        );
        // A refused key: its own message, at the key.
        let e = error("[t]\na = 1\nc = 2\n");
        assert!(e.starts_with("TOML parse error at line 3, column 1"), "{e}");
        assert!(e.contains("`c` is not a key here"), "{e}");
        // A wrong type, taken or not: at the value.
        let e = error("[t]\na = 1\nk = \"x\"\n");
        assert!(e.starts_with("TOML parse error at line 3, column 5"), "{e}");
        assert!(
            e.contains("invalid type: string \"x\", expected f64"),
            "{e}"
        );
        let e = error("[t]\nk = 1.0\na = \"x\"\n");
        assert!(e.starts_with("TOML parse error at line 3, column 5"), "{e}");
        assert!(
            e.contains("invalid type: string \"x\", expected u32"),
            "{e}"
        );
        // A missing key of the rest: the table's line, where it is missing.
        let e = error("[t]\nk = 1.0\n");
        assert!(e.starts_with("TOML parse error at line 1, column 1"), "{e}");
        assert!(e.contains("missing field `a`"), "{e}");
    }
}
