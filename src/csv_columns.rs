//! Matching a CSV header against the columns a format requires and allows,
//! with the same messages for every format.

use crate::error::{Error, Result};

/// The position of each of `required` then `optional` in `headers` (a
/// UTF-8 BOM on the first name is ignored). Rejects, naming `source` and
/// line 1: an empty header, an unknown column, a column given twice, a
/// missing required column.
pub fn match_columns(
    source: &str,
    headers: &csv::StringRecord,
    required: &[&str],
    optional: &[&str],
) -> Result<Vec<Option<usize>>> {
    let expected = if optional.is_empty() {
        required.join(", ")
    } else {
        format!(
            "{} and optionally {}",
            required.join(", "),
            optional.join(", ")
        )
    };
    if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
        return Err(Error::input(format!(
            "{source}: line 1: expected a header with the columns {expected}, found an empty file"
        )));
    }
    let mut col = vec![None; required.len() + optional.len()];
    for (i, name) in headers.iter().enumerate() {
        let name = name.trim_start_matches('\u{feff}');
        let Some(slot) = required.iter().chain(optional).position(|c| *c == name) else {
            return Err(Error::input(format!(
                "{source}: line 1: unknown column `{name}`: expected the columns {expected}"
            )));
        };
        if col[slot].is_some() {
            return Err(Error::input(format!(
                "{source}: line 1: column `{name}` appears twice"
            )));
        }
        col[slot] = Some(i);
    }
    if let Some(slot) = (0..required.len()).find(|&s| col[s].is_none()) {
        return Err(Error::input(format!(
            "{source}: line 1: missing column `{}`: the header must contain {}",
            required[slot],
            required.join(", ")
        )));
    }
    Ok(col)
}

/// The reading setup every trace-like CSV shares: a header row, fields
/// trimmed of surrounding spaces. Returns the reader and its header (errors
/// name `source` and the line).
pub fn csv_with_header<R: std::io::Read>(
    source: &str,
    input: R,
) -> Result<(csv::Reader<R>, csv::StringRecord)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let headers = reader
        .headers()
        .map_err(|e| crate::trace::csv_error_for(source, &e))?
        .clone();
    Ok((reader, headers))
}

/// The position of the first header equal to one of `names` (a UTF-8 BOM
/// on the first header is ignored).
pub fn find_column(headers: &csv::StringRecord, names: &[&str]) -> Option<usize> {
    headers
        .iter()
        .position(|h| names.contains(&h.trim_start_matches('\u{feff}')))
}
