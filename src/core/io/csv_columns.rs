//! Reading CSV inputs the same way in every format: [`CsvReader`] names the
//! physical line of every record and error and accepts a byte order mark
//! only at the start of the file; [`match_columns`] matches a header
//! against the columns a format requires and allows, with the same
//! messages for every format.

use std::io::Read;

use csv::StringRecord;

use crate::core::error::{Error, Result};

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
        // The BOM at the start of the file was dropped by `LineIndex`; a
        // second one right after it would be dropped by the csv crate.
        if reader.get_ref().second_bom {
            return Err(bom_error(source, 1));
        }
        if !empty && headers.as_slice().contains(BOM) {
            let line = reader.get_mut().line_at(record_start(&headers));
            return Err(bom_error(source, line));
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
        _ => crate::core::io::echo::shown(&err.to_string()),
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
    /// The first bytes of the input, held back until it is known whether
    /// they are a UTF-8 byte order mark (then dropped: the csv crate drops
    /// it only when its first read happens to hold all three bytes).
    head: [u8; 6],
    /// Bytes of `head` filled, and already handed out.
    head_len: usize,
    head_pos: usize,
    head_done: bool,
    /// Whether a second BOM followed the first.
    second_bom: bool,
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
            head: [0; 6],
            second_bom: false,
            head_len: 0,
            head_pos: 0,
            head_done: false,
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
}

impl<R: Read> Read for LineIndex<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.head_done {
            // Six bytes: a BOM, and whether another follows (the csv crate
            // would silently drop that one too).
            while self.head_len < 6 {
                match self.inner.read(&mut self.head[self.head_len..]) {
                    Ok(0) => break,
                    Ok(n) => self.head_len += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            const BOM_BYTES: [u8; 3] = [0xef, 0xbb, 0xbf];
            if self.head[..self.head_len].starts_with(&BOM_BYTES) {
                self.head_pos = 3;
                self.second_bom = self.head[3..self.head_len].starts_with(&BOM_BYTES);
            }
            self.head_done = true;
        }
        let n = if self.head_pos < self.head_len {
            let n = buf.len().min(self.head_len - self.head_pos);
            buf[..n].copy_from_slice(&self.head[self.head_pos..self.head_pos + n]);
            self.head_pos += n;
            n
        } else {
            self.inner.read(buf)?
        };
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

/// The text of field `field` on `line` of `source`, parsed as a number
/// (anything Rust's `f64` parser takes); the error names the file, line and
/// field and shows the text.
pub fn number_field(text: &str, source: &str, line: u64, field: &str) -> Result<f64> {
    text.parse::<f64>()
        .map_err(|_| field_error(text, source, line, field, "a number"))
}

/// [`number_field`] for an integer.
pub fn integer_field(text: &str, source: &str, line: u64, field: &str) -> Result<i64> {
    text.parse::<i64>()
        .map_err(|_| field_error(text, source, line, field, "an integer"))
}

fn field_error(text: &str, source: &str, line: u64, field: &str, expected: &str) -> Error {
    Error::input(format!(
        "{source}: line {line}: field `{field}`: expected {expected}, got `{}`",
        crate::core::io::echo::shown(text)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_name_file_line_and_field() {
        assert_eq!(number_field("2.5e3", "t.csv", 4, "x").ok(), Some(2500.0));
        assert_eq!(integer_field("-7", "t.csv", 4, "y").ok(), Some(-7));
        let e = |r: Result<f64>| r.expect_err("an error").to_string();
        assert_eq!(
            e(number_field("1,5", "t.csv", 4, "x")),
            "t.csv: line 4: field `x`: expected a number, got `1,5`"
        );
        assert_eq!(
            integer_field("2.0", "t.csv", 9, "y")
                .expect_err("an error")
                .to_string(),
            "t.csv: line 9: field `y`: expected an integer, got `2.0`"
        );
    }

    /// A reader that hands out one byte per call, so record boundaries
    /// fall everywhere relative to the reads.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.is_empty()) {
                (Some((&b, rest)), false) => {
                    buf[0] = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    /// (line, first field) of every record, or the error message.
    fn lines_of(text: &str, trickle: bool) -> std::result::Result<Vec<(u64, String)>, String> {
        let run = |input: Box<dyn Read + '_>| -> Result<Vec<(u64, String)>> {
            let mut r = CsvReader::new("f.csv", input, true)?;
            let mut rec = StringRecord::new();
            let mut out = Vec::new();
            while let Some(line) = r.read_record(&mut rec)? {
                out.push((line, rec[0].to_string()));
            }
            Ok(out)
        };
        let input: Box<dyn Read> = if trickle {
            Box::new(Trickle(text.as_bytes()))
        } else {
            Box::new(text.as_bytes())
        };
        run(input).map_err(|e| e.to_string())
    }

    fn both(text: &str) -> std::result::Result<Vec<(u64, String)>, String> {
        let whole = lines_of(text, false);
        assert_eq!(whole, lines_of(text, true), "trickled input differs");
        whole
    }

    fn owned(v: &[(u64, &str)]) -> std::result::Result<Vec<(u64, String)>, String> {
        Ok(v.iter().map(|&(l, s)| (l, s.to_string())).collect())
    }

    #[test]
    fn blank_lines_count_toward_the_line_of_a_record() {
        assert_eq!(both("a,b\n\n\n1,2\n\n3,4\n"), owned(&[(4, "1"), (6, "3")]));
        assert_eq!(
            both("a,b\n\n\n1\n"),
            Err("f.csv: line 4: expected 2 fields like the header, found 1".into())
        );
        // Blank lines before the header too.
        assert_eq!(both("\n\na,b\n1,2\n"), owned(&[(4, "1")]));
    }

    #[test]
    fn quoted_newlines_count_toward_later_lines() {
        assert_eq!(
            both("a,b\n\"x\ny\nz\",1\n2,3\n"),
            owned(&[(2, "x\ny\nz"), (5, "2")])
        );
        assert_eq!(
            both("a,b\n\"x\n\n\",1\n\n2\n"),
            Err("f.csv: line 6: expected 2 fields like the header, found 1".into())
        );
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_once() {
        assert_eq!(
            both("a,b\r\n1,2\r\n\r\n3,4\r\n"),
            owned(&[(2, "1"), (4, "3")])
        );
        assert_eq!(both("a,b\r1,2\r\r3,4"), owned(&[(2, "1"), (4, "3")]));
    }

    #[test]
    fn invalid_utf8_names_its_physical_line() {
        let mut bytes = b"a,b\n\n1,2\n\n\n3,".to_vec();
        bytes.push(0xff);
        bytes.push(b'\n');
        let mut r = CsvReader::new("f.csv", bytes.as_slice(), true).expect("header");
        let mut rec = StringRecord::new();
        assert_eq!(r.read_record(&mut rec).expect("row"), Some(3));
        let err = r.read_record(&mut rec).expect_err("bad utf-8").to_string();
        assert!(err.starts_with("f.csv: line 6: invalid UTF-8"), "{err}");
    }

    #[test]
    fn a_bom_is_accepted_only_as_the_first_bytes_of_the_file() {
        assert_eq!(both("\u{feff}a,b\n1,2\n"), owned(&[(2, "1")]));
        let (_, headers) = csv_with_header("f.csv", "\u{feff}a,b\n".as_bytes()).expect("ok");
        assert_eq!(&headers[0], "a");
        let mid = both("a,b\n1,2\n\u{feff}3,4\n").expect_err("mid-file BOM");
        assert!(mid.starts_with("f.csv: line 3: a byte order mark"), "{mid}");
        let inner = both("a,b\n1,x\u{feff}y\n").expect_err("BOM inside a field");
        assert!(
            inner.starts_with("f.csv: line 2: a byte order mark"),
            "{inner}"
        );
        let twice = both("\u{feff}\u{feff}a,b\n1,2\n").expect_err("two BOMs");
        assert!(
            twice.starts_with("f.csv: line 1: a byte order mark"),
            "{twice}"
        );
        let late = both("\n\u{feff}a,b\n1,2\n").expect_err("BOM after a blank line");
        assert!(
            late.starts_with("f.csv: line 2: a byte order mark"),
            "{late}"
        );
        let second_col = both("a,\u{feff}b\n1,2\n").expect_err("BOM in a later column");
        assert!(second_col.starts_with("f.csv: line 1:"), "{second_col}");
    }

    #[test]
    fn an_empty_input_has_an_empty_header() {
        let r = CsvReader::new("f.csv", "".as_bytes(), true).expect("empty is not an error here");
        assert!(r.headers().is_empty());
        let r = CsvReader::new("f.csv", "\n\n".as_bytes(), true).expect("blank lines only");
        assert!(r.headers().is_empty());
    }
}
