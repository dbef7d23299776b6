//! Reading `run.json` back: the one reader of a results folder's manifest
//! (`core::run::manifest` writes it). `compare`, `check --stat`, `whatif`,
//! `table`, `plot`, `report` and the results-folder test of `--force`
//! read it through [`ManifestDoc`], so a missing, special, oversized,
//! non-UTF-8 or broken `run.json` reads, and fails, the same way
//! everywhere (docs/REFERENCE.md "Results folder" lists the fields).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::core::error::{Error, Result};

/// The manifest's file name in a results folder.
pub const FILE: &str = "run.json";

/// The largest `run.json` read, bytes. A manifest is a few kilobytes, its
/// warnings and a sweep point included; anything larger is not one.
pub const MAX_BYTES: u64 = 16 << 20;

/// A parsed `run.json`, with the path it came from (for messages).
#[derive(Debug, Clone)]
pub struct ManifestDoc {
    path: PathBuf,
    value: Value,
}

impl ManifestDoc {
    /// Read `dir/run.json`. `Ok(None)` when there is none; an error that
    /// names the file when it is there but cannot be a manifest: not a
    /// regular file (a FIFO is refused without being opened), larger than
    /// [`MAX_BYTES`], not UTF-8, or not JSON. `purpose` says why the caller
    /// reads it (it ends the not-JSON message: "`compare` reads its seed …").
    pub fn read(dir: &Path, purpose: &str) -> Result<Option<Self>> {
        let path = dir.join(FILE);
        if let Some(e) = crate::core::io::special_file_error(&path, FILE) {
            return Err(e);
        }
        if !path.is_file() {
            return Ok(None);
        }
        let text = crate::core::io::read_text(&path, FILE, "a JSON text file", MAX_BYTES)?;
        Self::parse(&path, &text, purpose).map(Some)
    }

    /// Parse the text of the manifest at `path` (already read, e.g. by a
    /// figure's source); a text that is not JSON is an error naming the
    /// line and column.
    pub fn parse(path: &Path, text: &str, purpose: &str) -> Result<Self> {
        let value = serde_json::from_str(text).map_err(|e| {
            Error::input(format!(
                "{}: line {}, column {}: not JSON ({e}); {purpose}",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            value,
        })
    }

    /// Where it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole document.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Whether `tool` is `"tenantsim"`: a manifest this program wrote.
    pub fn is_tenantsim(&self) -> bool {
        self.value.get("tool").and_then(Value::as_str) == Some("tenantsim")
    }

    /// `mode`: `"jobs"` or `"shared"`; absent for model mode.
    pub fn mode(&self) -> Option<&str> {
        self.value.get("mode").and_then(Value::as_str)
    }

    /// The run's seed, when it is an integer.
    pub fn seed(&self) -> Option<u64> {
        self.value.get("seed").and_then(Value::as_u64)
    }

    /// The run's repetitions, when an integer.
    pub fn repetitions(&self) -> Option<u64> {
        self.value.get("repetitions").and_then(Value::as_u64)
    }

    /// The resolved scenario.
    pub fn scenario(&self) -> Option<&Value> {
        self.value.get("scenario")
    }

    /// The scenario's `name`.
    pub fn scenario_name(&self) -> Option<&str> {
        self.value.pointer("/scenario/name").and_then(Value::as_str)
    }

    /// The scenario file, as given on the command line.
    pub fn scenario_path(&self) -> Option<&str> {
        self.value.get("scenario_path").and_then(Value::as_str)
    }

    /// The SHA-256 of the trace: model mode's `trace.sha256`, else job
    /// mode's `job_trace.sha256`.
    pub fn trace_sha256(&self) -> Option<&Value> {
        ["/trace/sha256", "/job_trace/sha256"]
            .iter()
            .find_map(|p| self.value.pointer(p))
    }

    /// A field by JSON pointer (`/scenario/output/confidence`).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        self.value.pointer(pointer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_manifest_is_none_and_a_broken_one_names_line_column_and_purpose() {
        let tmp = tempfile::tempdir().expect("tempdir");
        assert!(
            ManifestDoc::read(tmp.path(), "p")
                .expect("absent")
                .is_none()
        );
        std::fs::write(tmp.path().join(FILE), "{\n  \"seed\" 1}").expect("write");
        let e = ManifestDoc::read(tmp.path(), "`x` reads its seed").expect_err("broken");
        let m = e.message();
        assert!(m.contains("run.json: line 2, column 10: not JSON ("), "{m}");
        assert!(m.ends_with("); `x` reads its seed"), "{m}");
    }

    #[test]
    fn the_fields_read_from_a_model_and_a_job_manifest() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let model = r#"{"tool": "tenantsim", "seed": 7, "repetitions": 3,
            "scenario_path": "s.toml", "scenario": {"name": "q"},
            "trace": {"sha256": "ab"}}"#;
        std::fs::write(tmp.path().join(FILE), model).expect("write");
        let m = ManifestDoc::read(tmp.path(), "p")
            .expect("reads")
            .expect("there");
        assert!(m.is_tenantsim());
        assert_eq!(
            (m.seed(), m.repetitions(), m.mode()),
            (Some(7), Some(3), None)
        );
        assert_eq!(
            (m.scenario_name(), m.scenario_path()),
            (Some("q"), Some("s.toml"))
        );
        assert_eq!(m.trace_sha256(), Some(&Value::from("ab")));
        let jobs =
            r#"{"tool": "other", "mode": "jobs", "seed": -1, "job_trace": {"sha256": "cd"}}"#;
        let j = ManifestDoc::parse(Path::new("r/run.json"), jobs, "p").expect("parses");
        assert!(!j.is_tenantsim());
        assert_eq!((j.seed(), j.mode()), (None, Some("jobs")));
        assert_eq!(j.trace_sha256(), Some(&Value::from("cd")));
        assert_eq!(j.path(), Path::new("r/run.json"));
    }

    #[test]
    fn a_manifest_over_the_limit_is_refused_before_it_is_parsed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let f = std::fs::File::create(tmp.path().join(FILE)).expect("create");
        f.set_len(MAX_BYTES + 1).expect("sparse file");
        let e = ManifestDoc::read(tmp.path(), "p").expect_err("too big");
        assert!(
            e.message().contains("larger than 16777216 bytes"),
            "{}",
            e.message()
        );
    }
}
