//! A value a simulation either borrows from its caller or owns, so that one
//! engine serves both a call that lends it everything for one run (the
//! batch runner) and a run that lives on by itself (a steppable run driven
//! from Python, a fork; DESIGN §15).

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Shared read-only data: borrowed, or shared by reference count (a fork
/// copies the reference, never the data).
#[derive(Debug)]
pub enum Shared<'a, T: ?Sized> {
    /// Lent by the caller for the run.
    Borrowed(&'a T),
    /// Shared with other runs.
    Arc(Arc<T>),
}

impl<T: ?Sized> Clone for Shared<'_, T> {
    fn clone(&self) -> Self {
        match self {
            Self::Borrowed(r) => Self::Borrowed(r),
            Self::Arc(a) => Self::Arc(Arc::clone(a)),
        }
    }
}

impl<T: ?Sized> Deref for Shared<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Self::Borrowed(r) => r,
            Self::Arc(a) => a,
        }
    }
}

/// Mutable state of one run (a policy): borrowed for the run, or owned.
#[derive(Debug)]
pub enum Held<'a, T: ?Sized> {
    /// Lent by the caller for the run.
    Borrowed(&'a mut T),
    /// Owned by the run.
    Owned(Box<T>),
}

impl<T: ?Sized> Deref for Held<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Self::Borrowed(r) => r,
            Self::Owned(b) => b,
        }
    }
}

impl<T: ?Sized> DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Self::Borrowed(r) => r,
            Self::Owned(b) => b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_and_owned_reach_the_same_value() {
        let mut x = 3_u32;
        {
            let mut h = Held::Borrowed(&mut x);
            *h += 1;
        }
        let mut o: Held<'_, u32> = Held::Owned(Box::new(x));
        *o += 1;
        assert_eq!((x, *o), (4, 5));
        let a = Arc::new(7_u32);
        let s = Shared::Arc(Arc::clone(&a));
        let t = s.clone();
        assert_eq!((*s, *t, Arc::strong_count(&a)), (7, 7, 3));
        let b = Shared::Borrowed(&x);
        assert_eq!(*b.clone(), 4);
    }
}
