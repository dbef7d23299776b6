//! Matching a CSV header against the columns a format requires and allows,
//! with the same messages for every format.

use std::io::Read;

use csv::StringRecord;

use crate::error::{Error, Result};

/// The position of each of `required` then `optional` in `headers` (a
/// UTF-8 BOM on the first name is ignored). Rejects, naming `source` and
/// line 1: an empty header, an unknown column, a column given twice, a
/// missing required column.
pub fn match_columns(
    source: &str,
    headers: &StringRecord,
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
/// name `source` and the line; a BOM at the start of the file is dropped).
pub fn csv_with_header<R: Read>(source: &str, input: R) -> Result<(CsvReader<R>, StringRecord)> {
    let reader = CsvReader::new(source, input, true)?;
    let headers = reader.headers().clone();
    Ok((reader, headers))
}

const BOM: char = '\u{feff}';

/// A CSV reader with a header row that knows the *physical* line each
/// record starts on — blank lines and newlines inside quoted fields
/// counted — and names it in every error, including the csv crate's own.
/// A UTF-8 byte order mark is accepted only as the first bytes of the file
/// (and dropped); anywhere else it is an error naming its line.
#[derive(Debug)]
pub struct CsvReader<R: Read> {
    source: String,
    reader: csv::Reader<LineIndex<R>>,
    headers: StringRecord,
}

impl<R: Read> CsvReader<R> {
    /// Read the header of `input`; `source` names it in errors; `trim`
    /// trims every field of surrounding spaces.
    pub fn new(source: &str, input: R, trim: bool) -> Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(if trim {
                csv::Trim::All
            } else {
                csv::Trim::None
            })
            .from_reader(LineIndex::new(input));
        let mut headers = StringRecord::new();
        let mut empty = true;
        match reader.read_record(&mut headers) {
            Ok(true) => empty = false,
            Ok(false) => {}
            Err(e) => return Err(csv_error_at(source, &e, reader.get_mut())),
        }
        if !empty {
            let start = record_start(&headers);
            let line = reader.get_mut().line_at(start);
            // Only a BOM that is the very first bytes of the file is one.
            let at_file_start = reader.get_ref().first_content_offset() == Some(start);
            let mut fields: Vec<String> = headers.iter().map(str::to_string).collect();
            if at_file_start {
                if let Some(f) = fields.first_mut() {
                    if let Some(rest) = f.strip_prefix(BOM) {
                        *f = if trim {
                            rest.trim().to_string()
                        } else {
                            rest.to_string()
                        };
                    }
                }
            }
            if fields.iter().any(|f| f.contains(BOM)) {
                return Err(bom_error(source, line));
            }
            let mut clean = StringRecord::from(fields);
            clean.set_position(headers.position().cloned());
            headers = clean;
        }
        // From here on every record must have as many fields as the header.
        Ok(Self {
            source: source.to_string(),
            reader,
            headers,
        })
    }

    /// The header (empty for an empty file).
    pub fn headers(&self) -> &StringRecord {
        &self.headers
    }

    /// The file's name in messages.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Read the next record into `record`; returns the physical line it
    /// starts on, or `None` at the end. A record with another number of
    /// fields than the header, invalid UTF-8 or a byte order mark is an
    /// error naming the line.
    pub fn read_record(&mut self, record: &mut StringRecord) -> Result<Option<u64>> {
        match self.reader.read_record(record) {
            Ok(false) => Ok(None),
            Ok(true) => {
                let line = self.reader.get_mut().line_at(record_start(record));
                if record.len() != self.headers.len() {
                    return Err(Error::input(format!(
                        "{}: line {line}: expected {} fields like the header, found {}",
                        self.source,
                        self.headers.len(),
                        record.len()
                    )));
                }
                if record.as_slice().contains(BOM) {
                    return Err(bom_error(&self.source, line));
                }
                Ok(Some(line))
            }
            Err(e) => Err(csv_error_at(&self.source, &e, self.reader.get_mut())),
        }
    }
}

fn record_start(record: &StringRecord) -> u64 {
    record.position().map_or(0, csv::Position::byte)
}

fn bom_error(source: &str, line: u64) -> Error {
    Error::input(format!(
        "{source}: line {line}: a byte order mark (U+FEFF) inside the file: \
         it is allowed only as the first bytes of the file (was the file concatenated from several?)"
    ))
}

/// A csv crate error as a message naming the file and the physical line.
fn csv_error_at<R: Read>(source: &str, err: &csv::Error, index: &mut LineIndex<R>) -> Error {
    let at = err.position().map_or_else(String::new, |p| {
        format!(": line {}", index.line_at(p.byte()))
    });
    let what = match err.kind() {
        csv::ErrorKind::Utf8 { .. } => "invalid UTF-8: expected text encoded as UTF-8".to_string(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields like the header, found {len}"),
        csv::ErrorKind::Io(e) => format!("read error: {e}"),
        _ => crate::echo::shown(&err.to_string()),
    };
    Error::input(format!("{source}{at}: {what}"))
}

/// The input of a [`CsvReader`], passed through unchanged while it notes
/// where lines start: for every line that has content (a byte other than
/// CR or LF), its byte offset and line number. The csv crate skips blank
/// lines before a record and reports the offset where it started looking,
/// so the record's line is that of the first line with content at or after
/// that offset. Entries before the last record looked up are dropped, so
/// the index holds no more than the lines of the bytes read ahead.
#[derive(Debug)]
struct LineIndex<R> {
    inner: R,
    /// Bytes passed through so far.
    offset: u64,
    /// The physical line of the next byte.
    line: u64,
    /// Whether the previous byte ended a line (or there was none yet).
    at_line_start: bool,
    /// Whether the previous byte was a CR (a following LF ends no line).
    after_cr: bool,
    /// (offset, line) of the first content byte of each line.
    starts: std::collections::VecDeque<(u64, u64)>,
    /// The offset of the first content byte of the file.
    first_content: Option<u64>,
}

impl<R> LineIndex<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            offset: 0,
            line: 1,
            at_line_start: true,
            after_cr: false,
            starts: std::collections::VecDeque::new(),
            first_content: None,
        }
    }

    fn note(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match b {
                b'\n' => {
                    if !self.after_cr {
                        self.line += 1;
                    }
                    self.after_cr = false;
                    self.at_line_start = true;
                }
                b'\r' => {
                    self.line += 1;
                    self.after_cr = true;
                    self.at_line_start = true;
                }
                _ => {
                    if self.at_line_start {
                        self.starts.push_back((self.offset, self.line));
                        self.first_content.get_or_insert(self.offset);
                    }
                    self.after_cr = false;
                    self.at_line_start = false;
                }
            }
            self.offset += 1;
        }
    }

    /// The line of the first content at or after byte `offset` (entries
    /// before it are dropped: offsets looked up only grow).
    fn line_at(&mut self, offset: u64) -> u64 {
        while self.starts.front().is_some_and(|&(o, _)| o < offset) {
            self.starts.pop_front();
        }
        self.starts.front().map_or(self.line, |&(_, line)| line)
    }

    fn first_content_offset(&self) -> Option<u64> {
        self.first_content
    }
}

impl<R: Read> Read for LineIndex<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.note(&buf[..n]);
        Ok(n)
    }
}

/// The position of the first header equal to one of `names` (a UTF-8 BOM
/// on the first header is ignored).
pub fn find_column(headers: &StringRecord, names: &[&str]) -> Option<usize> {
    headers
        .iter()
        .position(|h| names.contains(&h.trim_start_matches('\u{feff}')))
}
