//! Statistics and checks of results: means and confidence bands, `check` against goldens, `compare` of two folders; it may import core's basics, [`crate::core::sim`] and [`crate::core::io`], not [`crate::core::run`].

pub mod check;
pub mod compare;
pub mod rank_select;
pub mod stats;
