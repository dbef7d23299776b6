//! Presentation of a results folder: the figures ([`figures`]), the HTML report ([`report`]) and the LaTeX/Markdown tables ([`table`]); it may import only [`crate::core`].
//!
//! The report and the tables are not figures, but they present the same
//! folder and reuse the figures' readers (`figures::read`), kinds and fonts:
//! one room holds all three, so `present` is the one module the command line
//! asks to show results, and `figures` stays the plotters code alone.

pub mod figures;
pub mod report;
pub mod table;
