//! The SHA-256 that identifies a trace (`run.json`'s `trace.sha256`, the
//! result cache's and shards' keys): known when the trace is loaded, or,
//! for a lazily held generated trace, computed the first time it is asked
//! for (DESIGN §1.2 "Per-user rows").
//!
//! A lazy `[trace.syn]` trace holds no row, so its digest (the SHA-256 of
//! its canonical CSV text, DESIGN §1.2) means formatting and hashing every
//! row again: 2 × 10^8 lines for `scenarios/scale-year.toml`, 18–20 s of
//! `tenantsim validate` on the quiet 2-core machine (0.6 s without;
//! docs/PERFORMANCE.md "Validating a lazy trace hashed it"), which never
//! reads it. A
//! run reads it where it needs it (the cache keys before the first task,
//! `run.json` at the end), once: clones share the computed value.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// A trace's SHA-256 (lowercase hex), computed at most once.
#[derive(Clone)]
pub struct TraceDigest(Arc<Slot>);

/// The value, and how to compute it if it is not known yet.
struct Slot {
    value: OnceLock<String>,
    compute: Box<dyn Fn() -> String + Send + Sync>,
}

impl TraceDigest {
    /// A digest already computed (`hex`: lowercase hex).
    pub fn known(hex: String) -> Self {
        Self(Arc::new(Slot {
            value: OnceLock::from(hex),
            compute: Box::new(String::new),
        }))
    }

    /// A digest `compute` gives the first time [`Self::hex`] is called (on
    /// whichever clone), and never again.
    pub fn deferred(compute: impl Fn() -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(Slot {
            value: OnceLock::new(),
            compute: Box::new(compute),
        }))
    }

    /// The digest, lowercase hex (computed now if it was deferred and no
    /// clone has asked yet).
    pub fn hex(&self) -> &str {
        self.0.value.get_or_init(|| (self.0.compute)())
    }

    /// Whether the digest is computed (always for [`Self::known`]; for
    /// [`Self::deferred`], once [`Self::hex`] was called).
    pub fn is_computed(&self) -> bool {
        self.0.value.get().is_some()
    }
}

impl PartialEq for TraceDigest {
    fn eq(&self, other: &Self) -> bool {
        self.hex() == other.hex()
    }
}

impl Eq for TraceDigest {}

impl PartialEq<&str> for TraceDigest {
    fn eq(&self, other: &&str) -> bool {
        self.hex() == *other
    }
}

impl PartialEq<String> for TraceDigest {
    fn eq(&self, other: &String) -> bool {
        self.hex() == other
    }
}

/// The hex digest, or `<deferred>` while it is not computed: printing a
/// scenario never computes it.
impl fmt::Debug for TraceDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.value.get() {
            Some(hex) => write!(f, "{hex:?}"),
            None => f.write_str("<deferred>"),
        }
    }
}

impl fmt::Display for TraceDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hex())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn a_deferred_digest_is_computed_once_when_first_read_by_any_clone() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let d = TraceDigest::deferred(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            "ab12".to_string()
        });
        let copy = d.clone();
        assert!(!d.is_computed());
        assert_eq!(format!("{d:?}"), "<deferred>");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert_eq!(copy.hex(), "ab12");
        assert!(d.is_computed(), "the clones share the value");
        assert_eq!((d.hex(), d.to_string()), ("ab12", "ab12".to_string()));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(format!("{d:?}"), "\"ab12\"");
    }

    #[test]
    fn digests_compare_by_their_hex() {
        let (a, b) = (
            TraceDigest::known("ff".into()),
            TraceDigest::deferred(|| "ff".into()),
        );
        assert!(a.is_computed());
        assert_eq!(a, b);
        assert_eq!(a, "ff");
        assert_eq!(b, "ff".to_string());
        assert_ne!(a, TraceDigest::known("fe".into()));
    }
}
