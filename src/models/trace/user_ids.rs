//! A trace's user ids: listed, or a generated trace's `u0…` ids made when
//! asked for (10^7 users would hold about 500 MB of `String`s).

use std::borrow::Cow;

use super::generate::padded_id;

/// User ids in index order.
#[derive(Debug, Clone)]
pub(super) enum UserIds {
    /// Each id held.
    Listed(Vec<String>),
    /// `padded_id("u", i, n)` for i in 0..n ([`padded_id`]).
    Padded { n: usize },
}

impl UserIds {
    /// Number of users.
    pub(super) fn len(&self) -> usize {
        match self {
            UserIds::Listed(ids) => ids.len(),
            UserIds::Padded { n } => *n,
        }
    }

    /// The id of user `u` (`u` < [`UserIds::len`]).
    pub(super) fn get(&self, u: usize) -> Cow<'_, str> {
        match self {
            UserIds::Listed(ids) => Cow::Borrowed(&ids[u]),
            UserIds::Padded { n } => Cow::Owned(padded_id("u", u, *n)),
        }
    }

    /// The index of the user whose id is `id`.
    pub(super) fn position(&self, id: &str) -> Option<usize> {
        match self {
            UserIds::Listed(ids) => ids.iter().position(|u| u == id),
            UserIds::Padded { n } => {
                let digits = id.strip_prefix('u')?;
                let u: usize = digits.parse().ok()?;
                (u < *n && padded_id("u", u, *n) == id).then_some(u)
            }
        }
    }
}
