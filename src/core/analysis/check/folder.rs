//! What kind of results folder a path is: one run (`summary.csv`) or a
//! sweep (`sweep.csv` and one `point-*` folder per grid point, DESIGN §6.10).

use std::path::Path;

use crate::core::error::{Error, Result};

/// The layout of a results folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// One run: `summary.csv` in the folder itself.
    Single,
    /// A sweep: the `point-*` folders, sorted by name.
    Sweep(Vec<String>),
}

/// The layout of `dir`; `what` ("results", "golden") names it in errors.
/// A path that is not a folder, or a folder with neither `summary.csv`
/// nor `sweep.csv`, is an error.
pub fn layout(dir: &Path, what: &str) -> Result<Layout> {
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{what} folder {} not found",
            dir.display()
        )));
    }
    // A FIFO or device in place of a results file is named, never read
    // (nor reported as missing).
    for name in ["sweep.csv", "summary.csv"] {
        let what = format!("{what} folder's {name}");
        if let Some(e) = crate::core::io::special_file_error(&dir.join(name), &what) {
            return Err(e);
        }
    }
    if dir.join("sweep.csv").is_file() {
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io("read the folder", dir, &e))?;
        let mut points = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read the folder", dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("point-") && entry.path().is_dir() {
                points.push(name);
            }
        }
        points.sort();
        return Ok(Layout::Sweep(points));
    }
    if dir.join("summary.csv").is_file() {
        return Ok(Layout::Single);
    }
    Err(Error::input(format!(
        "{what} folder {}: neither summary.csv (one run) nor sweep.csv (a sweep) found",
        dir.display()
    )))
}

/// The column names of `dir/summary.csv` (its first line), to tell the
/// modes apart before comparing.
pub fn summary_header(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join("summary.csv");
    let file = crate::core::io::open_input(&path, "summary")?;
    let reader = crate::core::io::csv_columns::CsvReader::new(
        &path.display().to_string(),
        std::io::BufReader::new(file),
        false,
    )?;
    Ok(reader.headers().iter().map(str::to_string).collect())
}
