//! Reading the CSVs of a results folder for plotting: from the folder on
//! disk (`tenantsim plot`) or from the texts a run is about to write (the
//! plots drawn at the end of `tenantsim run`), through the same parser, so
//! both give the same figures. Every problem is an error that names the
//! file, and the line and column where there is one.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::CsvReader;
use crate::core::io::echo::shown;
use crate::core::io::{open_input, read_input};

/// Files on disk larger than this are read row by row from the file instead
/// of as one text (a `tenants.csv` of a million repetitions is gigabytes).
const STREAM_ABOVE_BYTES: u64 = 8 << 20;

/// Where the CSVs come from.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    /// The results folder (named in errors; read when a file is not given
    /// in `texts`).
    pub dir: PathBuf,
    /// File name → text, used instead of the file on disk.
    pub texts: BTreeMap<&'a str, &'a str>,
    /// The scenario name for titles, when the caller knows it (otherwise
    /// read from `run.json`, else the folder's name).
    pub name: Option<String>,
}

impl<'a> Source<'a> {
    /// Read everything from the folder `dir`.
    pub fn dir(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            texts: BTreeMap::new(),
            name: None,
        }
    }

    /// Use `texts` (name, text) for the files they name; the display name
    /// of the folder is `dir`.
    pub fn texts(dir: &Path, texts: &[(&'a str, &'a str)]) -> Self {
        Self {
            dir: dir.to_path_buf(),
            texts: texts.iter().copied().collect(),
            name: None,
        }
    }

    /// The path of `name` as shown in messages.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Whether `name` is available.
    pub fn has(&self, name: &str) -> bool {
        self.texts.contains_key(name) || (self.texts.is_empty() && self.path(name).is_file())
    }

    /// The text of `name`, an error naming it when it is missing or not
    /// UTF-8.
    pub fn text(&self, name: &str) -> Result<Cow<'a, str>> {
        if let Some(t) = self.texts.get(name) {
            return Ok(Cow::Borrowed(*t));
        }
        let path = self.path(name);
        if !self.texts.is_empty() {
            return Err(Error::input(format!(
                "{} not found: no such file",
                path.display()
            )));
        }
        let bytes = read_input(&path, "results file")?;
        String::from_utf8(bytes).map(Cow::Owned).map_err(|e| {
            Error::input(format!(
                "{}: invalid UTF-8 at byte {}: expected text",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// Open `name` as a CSV with at least the columns `required`. A large
    /// file on disk is streamed from the file (see [`Table::open_file`]).
    pub fn table(&self, name: &str, required: &[&str]) -> Result<Table<'a>> {
        let path = self.path(name);
        if !self.texts.contains_key(name)
            && std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() > STREAM_ABOVE_BYTES)
        {
            return Table::open_file(&path, required);
        }
        let text = self.text(name)?;
        Table::parse(&path.display().to_string(), text, required)
    }

    /// `name` opened, or `None` when the file does not exist.
    pub fn optional_table(&self, name: &str, required: &[&str]) -> Result<Option<Table<'a>>> {
        if self.has(name) {
            self.table(name, required).map(Some)
        } else {
            Ok(None)
        }
    }
}

/// A CSV file: its header, checked when opened, and its text, whose rows
/// are parsed one at a time as they are read (a `jobs.csv` of millions of
/// rows is never held as strings).
#[derive(Debug, Clone)]
pub struct Table<'a> {
    /// The file, for messages.
    pub source: String,
    body: Body<'a>,
    header: Vec<String>,
}

/// Where a table's rows are read from.
#[derive(Debug, Clone)]
enum Body<'a> {
    /// A text held in memory.
    Text(Cow<'a, str>),
    /// A file, opened afresh for each pass over the rows.
    File(PathBuf),
}

impl<'a> Table<'a> {
    /// Open `text` (from `source`); every name in `required` must be a
    /// column. Rows are checked as they are read (every row must have as
    /// many fields as the header).
    pub fn parse(source: &str, text: impl Into<Cow<'a, str>>, required: &[&str]) -> Result<Self> {
        Self::open(source.to_string(), Body::Text(text.into()), required)
    }

    /// Open the CSV file `path` without reading it whole: the rows are read
    /// from the file as they are asked for, so only one row is held at a
    /// time. Checks as [`Table::parse`]; invalid UTF-8 is an error naming
    /// the line where it is met.
    pub fn open_file(path: &Path, required: &[&str]) -> Result<Self> {
        Self::open(
            path.display().to_string(),
            Body::File(path.to_path_buf()),
            required,
        )
    }

    /// Read and check the header of `body`: not empty, every `required`
    /// column present.
    fn open(source: String, body: Body<'a>, required: &[&str]) -> Result<Self> {
        let mut table = Self {
            source,
            body,
            header: Vec::new(),
        };
        let reader = CsvReader::new(&table.source, table.bytes()?, false)?;
        let header: Vec<String> = reader.headers().iter().map(str::to_string).collect();
        drop(reader);
        let source = &table.source;
        if header.iter().all(|h| h.trim().is_empty()) {
            return Err(Error::input(format!(
                "{source}: empty file: expected a header line with the columns {}",
                required.join(",")
            )));
        }
        if let Some(missing) = required.iter().find(|c| !header.iter().any(|h| h == *c)) {
            return Err(Error::input(format!(
                "{source}: line 1: missing column `{missing}` (expected the columns {})",
                required.join(",")
            )));
        }
        table.header = header;
        Ok(table)
    }

    /// A fresh reader over the table's bytes.
    fn bytes(&self) -> Result<Box<dyn std::io::Read + '_>> {
        match &self.body {
            Body::Text(t) => Ok(Box::new(t.as_bytes())),
            Body::File(p) => Ok(Box::new(std::io::BufReader::new(open_input(
                p,
                "results file",
            )?))),
        }
    }

    /// The header.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Index of column `name`.
    pub fn col(&self, name: &str) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            Error::input(format!("{}: line 1: missing column `{name}`", self.source))
        })
    }

    /// An error unless the table has at least one row.
    pub fn require_rows(&self, what: &str) -> Result<()> {
        match self.rows().next() {
            None => Err(Error::input(format!(
                "{}: no data rows: expected {what}",
                self.source
            ))),
            Some(r) => r.map(|_| ()),
        }
    }

    /// The rows, parsed as they are read; a malformed row is an error
    /// naming its physical line (and ends the rows).
    pub fn rows(&self) -> impl Iterator<Item = Result<Row<'_>>> + '_ {
        // The header was read and checked when the table was opened.
        let mut reader = self
            .bytes()
            .and_then(|b| CsvReader::new(&self.source, b, false));
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let reader = match &mut reader {
                Ok(r) => r,
                Err(e) => {
                    done = true;
                    return Some(Err(e.clone()));
                }
            };
            let mut record = csv::StringRecord::new();
            match reader.read_record(&mut record) {
                Ok(Some(line)) => Some(Ok(Row {
                    table: &self.source,
                    header: &self.header,
                    record,
                    line,
                })),
                Ok(None) => {
                    done = true;
                    None
                }
                Err(e) => {
                    done = true;
                    Some(Err(e))
                }
            }
        })
    }
}

/// A number cell that may say "never" or "not applicable".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    /// A finite number.
    Num(f64),
    /// `inf`.
    Inf,
    /// `n/a` (or an empty cell).
    NotApplicable,
}

/// One row of a [`Table`].
#[derive(Debug, Clone)]
pub struct Row<'t> {
    table: &'t str,
    header: &'t [String],
    record: csv::StringRecord,
    line: u64,
}

impl Row<'_> {
    /// The line of the row in its file.
    pub fn line(&self) -> u64 {
        self.line
    }

    fn err(&self, col: usize, what: &str) -> Error {
        let name = self.header.get(col).map_or("?", String::as_str);
        Error::input(format!(
            "{}: line {}, column `{name}`: {what}, found `{}`",
            self.table,
            self.line(),
            shown(self.str(col))
        ))
    }

    /// The text of column `col`.
    pub fn str(&self, col: usize) -> &str {
        self.record.get(col).unwrap_or("")
    }

    /// A non-empty text.
    pub fn name(&self, col: usize) -> Result<&str> {
        let s = self.str(col);
        if s.is_empty() {
            Err(self.err(col, "expected a name"))
        } else {
            Ok(s)
        }
    }

    /// A finite number.
    pub fn num(&self, col: usize) -> Result<f64> {
        match self.str(col).trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err(col, "expected a finite number")),
        }
    }

    /// A loss L(τ): a difference of accuracies, in [0, 1] (a value outside
    /// would be drawn clipped to the axes, silently).
    pub fn loss(&self, col: usize) -> Result<f64> {
        let v = self.num(col)?;
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(self.err(
                col,
                "expected a loss in [0, 1] (a difference of accuracies)",
            ))
        }
    }

    /// A finite number ≥ 0.
    pub fn non_negative(&self, col: usize) -> Result<f64> {
        let v = self.num(col)?;
        if v >= 0.0 {
            Ok(v)
        } else {
            Err(self.err(col, "expected a number ≥ 0"))
        }
    }

    /// A whole number ≥ 0.
    pub fn count(&self, col: usize) -> Result<u64> {
        self.str(col)
            .trim()
            .parse::<u64>()
            .map_err(|_| self.err(col, "expected a whole number ≥ 0"))
    }

    /// A time in seconds ≥ 0, or `inf` (`None`).
    pub fn time_or_inf(&self, col: usize) -> Result<Option<f64>> {
        if self.str(col).trim() == "inf" {
            return Ok(None);
        }
        match self.str(col).trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
            _ => Err(self.err(col, "expected seconds ≥ 0 or `inf`")),
        }
    }

    /// A number, `inf` or `n/a` (empty counts as `n/a`).
    pub fn cell(&self, col: usize) -> Result<Cell> {
        match self.str(col).trim() {
            "inf" => Ok(Cell::Inf),
            "n/a" | "" => Ok(Cell::NotApplicable),
            s => match s.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(Cell::Num(v)),
                _ => Err(self.err(col, "expected a number, `inf` or `n/a`")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table streamed from its file reads the same rows, lines and errors
    /// as the same text held in memory.
    #[test]
    fn file_tables_read_like_text_tables() {
        let text = "name,x\n\np,1\n\"q\nr\",2\np,oops\n";
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).expect("write");
        let held = Table::parse(&path.display().to_string(), text, &["name"]).expect("text");
        let streamed = Table::open_file(&path, &["name"]).expect("file");
        assert_eq!(held.header(), streamed.header());
        let read = |t: &Table<'_>| -> Vec<(u64, String, std::result::Result<f64, String>)> {
            t.rows()
                .map(|r| {
                    let r = r.expect("row");
                    (
                        r.line(),
                        r.str(0).to_string(),
                        r.num(1).map_err(|e| e.to_string()),
                    )
                })
                .collect()
        };
        let rows = read(&streamed);
        assert_eq!(rows, read(&held));
        // Physical lines: the blank line 2 is skipped; the quoted newline
        // makes the third record start on line 4 and the last on line 6.
        let lines: Vec<u64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(lines, [3, 4, 6]);
        assert!(
            rows[2].2.as_ref().is_err_and(|e| e.contains("line 6")),
            "{rows:?}"
        );
        // Missing columns and empty files are the same errors.
        let err = Table::open_file(&path, &["name", "y"]).expect_err("missing y");
        assert!(
            err.to_string().contains("line 1: missing column `y`"),
            "{err}"
        );
        std::fs::write(&path, "").expect("write");
        let err = Table::open_file(&path, &["name"]).expect_err("empty");
        assert!(err.to_string().contains("empty file"), "{err}");
        // Invalid UTF-8 is named with its line.
        std::fs::write(&path, b"name,x\np,1\n\xff,2\n").expect("write");
        let t = Table::open_file(&path, &["name"]).expect("header");
        let err = t.rows().find_map(|r| r.err()).expect("an error");
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let t = Table::parse("r/curves.csv", "a,b\n1,2\n3,x\n", &["a", "b"]).expect("parse");
        let b = t.col("b").expect("b");
        let errs: Vec<String> = t
            .rows()
            .filter_map(|r| r.expect("row").num(b).err())
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            errs,
            ["r/curves.csv: line 3, column `b`: expected a finite number, found `x`"]
        );
        let missing = Table::parse("f.csv", "a\n1\n", &["a", "b"]).expect_err("missing b");
        assert!(
            missing
                .to_string()
                .contains("f.csv: line 1: missing column `b`")
        );
        let ragged = Table::parse("f.csv", "a,b\n1\n", &["a"]).expect("header");
        let err = ragged.require_rows("rows").expect_err("ragged");
        assert!(err.to_string().contains("f.csv: line 2"), "{err}");
        let empty = Table::parse("f.csv", "", &["a"]).expect_err("empty");
        assert!(empty.to_string().contains("f.csv: empty file"));
    }

    #[test]
    fn cells_read_inf_and_na() {
        let t = Table::parse("f.csv", "s\n1.5\ninf\nn/a\n\n", &["s"]).expect("parse");
        let cells: Vec<Cell> = t
            .rows()
            .map(|r| r.expect("row").cell(0).expect("cell"))
            .collect();
        assert_eq!(cells, [Cell::Num(1.5), Cell::Inf, Cell::NotApplicable]);
    }
}
