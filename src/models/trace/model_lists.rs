//! Each user's available models: a list per user, or one list every user
//! shares (a generated trace, where every user has every model).

use std::sync::Arc;

/// Available model indices per user, ascending.
#[derive(Debug, Clone)]
pub(super) enum ModelLists {
    /// One list per user; users with the same list as the user before them
    /// share its allocation (16 bytes a user).
    PerUser(Vec<Arc<[usize]>>),
    /// `list` for each of `users` users (no bytes per user).
    Every { list: Arc<[usize]>, users: usize },
}

impl ModelLists {
    /// User `u`'s list.
    #[inline]
    pub(super) fn get(&self, u: usize) -> &Arc<[usize]> {
        match self {
            ModelLists::PerUser(lists) => &lists[u],
            ModelLists::Every { list, users } => {
                assert!(u < *users, "user {u} of {users}");
                list
            }
        }
    }

    /// The list every user shares, if there is one for all.
    pub(super) fn shared(&self) -> Option<&Arc<[usize]>> {
        match self {
            ModelLists::PerUser(_) => None,
            ModelLists::Every { list, .. } => Some(list),
        }
    }

    /// Available pairs, summed over the users.
    pub(super) fn n_pairs(&self) -> usize {
        match self {
            ModelLists::PerUser(lists) => lists.iter().map(|m| m.len()).sum(),
            ModelLists::Every { list, users } => list.len() * users,
        }
    }
}
