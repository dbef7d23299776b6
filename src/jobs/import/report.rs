//! What an import kept and skipped ([`ImportReport`]), shared by every
//! importer of this folder (a leaf: it imports none of them).

use std::fmt;

/// What an import kept and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Data rows read.
    pub rows: usize,
    /// Jobs written.
    pub kept: usize,
    /// Skipped: asked for no GPU.
    pub cpu_only: usize,
    /// Skipped: never started (no start / scheduled time).
    pub never_ran: usize,
    /// Skipped: zero or negative run time.
    pub no_duration: usize,
    /// Kept with one whole GPU instead of a fraction (Alibaba, `whole`).
    pub fractional_rounded: usize,
    /// Skipped: fractional GPU (Alibaba, `drop`).
    pub fractional_dropped: usize,
    /// GPUs over the kept jobs.
    pub gpus: u64,
    /// Skipped: a duplicated line (Gavel's repeated first job).
    pub duplicates: usize,
    /// What the import could not carry or changed, one sentence each
    /// (printed as warnings).
    pub notes: Vec<String>,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows: {} jobs kept ({} GPUs); skipped {} with no GPU, {} that never ran, {} with no run time",
            self.rows, self.kept, self.gpus, self.cpu_only, self.never_ran, self.no_duration
        )?;
        if self.fractional_rounded > 0 {
            write!(
                f,
                "; {} fractional-GPU jobs given one whole GPU",
                self.fractional_rounded
            )?;
        }
        if self.duplicates > 0 {
            write!(f, "; {} duplicated lines dropped", self.duplicates)?;
        }
        if self.fractional_dropped > 0 {
            write!(
                f,
                "; {} fractional-GPU jobs dropped",
                self.fractional_dropped
            )?;
        }
        Ok(())
    }
}
