//! Shards of a plan's flat task list (DESIGN §10.3): which tasks a shard
//! holds, its folder (`manifest.json` and `runs.bin`) and reading it back.
//!
//! Task k (the flat index over points × repetitions × policies) belongs to
//! shard `k mod N`: every task is in exactly one shard, shard sizes differ
//! by at most one, and each shard gets a slice of every sweep point, so a
//! sweep whose points cost very different amounts (GPU counts, loads)
//! still splits evenly (contiguous ranges would hand one shard all of the
//! expensive points).
//!
//! `runs.bin` is `TSSHARD2` then one record per task in task order: the
//! task id (u64) and a checked entry bound to the task
//! ([`crate::core::run::cache::seal_bound`]: the task's key and the
//! encoded run, their length and SHA-256), so a record moved to another
//! task's place, or edited with its checksum recomputed but its identity
//! kept from another task, is refused when merged.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::core::run::cache::{Checked, StoredRun, Written, read_bound, write_bound};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";
/// The runs' file name.
pub const RUNS: &str = "runs.bin";
/// The manifest's `format`.
pub const FORMAT: &str = "tenantsim-shard/2";
const MAGIC: &[u8; 8] = b"TSSHARD2";

/// Shard `index` of `count` (`--shard I/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// I, from 0.
    pub index: u64,
    /// N, at least 1.
    pub count: u64,
}

impl ShardSpec {
    /// Parse `I/N` with 0 ≤ I < N.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let bad =
            |why: &str| format!("expected I/N with 0 <= I < N (e.g. 0/4), got `{text}`: {why}");
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| bad("no `/` between the shard index and the count"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| bad("the index is not a whole number"))?;
        let count: u64 = n
            .trim()
            .parse()
            .map_err(|_| bad("the count is not a whole number"))?;
        if count == 0 {
            return Err(bad("the count must be at least 1"));
        }
        if index >= count {
            return Err(bad(&format!(
                "the index must be below the count (shards are numbered 0 to {})",
                count - 1
            )));
        }
        Ok(Self { index, count })
    }

    /// Whether task `k` is this shard's.
    pub fn owns(&self, k: u64) -> bool {
        k % self.count == self.index
    }

    /// How many of `total` tasks are this shard's.
    pub fn len(&self, total: u64) -> u64 {
        if self.index >= total {
            0
        } else {
            (total - self.index).div_ceil(self.count)
        }
    }

    /// Whether it holds none of `total` tasks.
    pub fn is_empty(&self, total: u64) -> bool {
        self.len(total) == 0
    }

    /// The `j`-th task of this shard.
    pub fn task(&self, j: u64) -> u64 {
        self.index + j * self.count
    }

    /// The default shard folder of scenario `name`:
    /// `results/NAME.shard-I-of-N`.
    pub fn default_folder(&self, name: &str) -> PathBuf {
        PathBuf::from("results").join(format!("{name}.shard-{}-of-{}", self.index, self.count))
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How to load the plan again (`tenantsim merge`): the scenario and the
/// command-line overrides of the shard's run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipe {
    /// The scenario file, absolute.
    pub scenario_path: PathBuf,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--reps`.
    pub repetitions: Option<u32>,
    /// `--no-plots`.
    pub no_plots: bool,
    /// `--jobs`.
    pub jobs: bool,
}

/// `manifest.json` of a shard folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// The tool and build that ran it ([`crate::core::run::identity::TOOL_BUILD`]).
    pub tool: String,
    /// `models` or `jobs`.
    pub mode: String,
    /// The scenario's name.
    pub name: String,
    /// SHA-256 of every point's resolved scenario.
    pub scenario_sha256: String,
    /// SHA-256 of every point's input hashes (trace, arrivals, node list).
    pub trace_sha256: String,
    /// The same apart, to name what changed: `scenario` (every point's
    /// resolved scenario) and each input the mode names (`trace`,
    /// `arrivals`; `job trace`, `cluster`, `job types`), each a SHA-256
    /// over every point (empty in manifests written before it existed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parts: BTreeMap<String, String>,
    /// How to load the plan again.
    pub recipe: Recipe,
    /// Shard index and count.
    pub shard: ShardSpec,
    /// Tasks of the whole plan.
    pub total_tasks: u64,
    /// The task ids it holds, ascending.
    pub tasks: Vec<u64>,
    /// Of those, how many came from the result cache.
    pub from_cache: u64,
    /// And how many were simulated.
    pub ran: u64,
}

impl Manifest {
    /// Read `DIR/manifest.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MANIFEST);
        if !path.is_file() {
            return Err(Error::input(format!(
                "{} is not a shard folder: no {MANIFEST} (written by `tenantsim run --shard I/N`)",
                dir.display()
            )));
        }
        let text = crate::core::io::read_text(&path, "shard manifest", "JSON", 1 << 30)?;
        let m: Self = serde_json::from_str(&text)
            .map_err(|e| Error::input(format!("{}: not a shard manifest: {e}", path.display())))?;
        if m.format != FORMAT {
            return Err(Error::input(format!(
                "{}: format `{}`, expected `{FORMAT}`",
                path.display(),
                m.format
            )));
        }
        Ok(m)
    }
}

/// Writes `runs.bin` record by record.
#[derive(Debug)]
pub struct RunsWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl RunsWriter {
    /// Start `path`.
    pub fn create(path: &Path) -> Result<Self> {
        let file = File::create(path).map_err(|e| Error::io("create", path, &e))?;
        let mut out = BufWriter::new(file);
        out.write_all(MAGIC)
            .map_err(|e| Error::io("write", path, &e))?;
        Ok(Self {
            path: path.to_path_buf(),
            out,
        })
    }

    /// Append task `task`'s encoded run, bound to the task's key.
    pub fn push(&mut self, task: u64, key: &str, payload: &[u8]) -> Result<()> {
        self.push_with(task, key, &mut |out| {
            out.write_all(payload)
                .map_err(|e| Error::input(format!("cannot write an encoded run: {e}")))
        })
    }

    /// Append task `task`'s run as `encode` writes it, bound to the task's
    /// key, written as it is encoded ([`write_bound`]): never held whole
    /// (a run of 10^7 tenants is gigabytes). A run longer than a record
    /// holds ([`MAX_RECORD_BYTES`](crate::core::limits::MAX_RECORD_BYTES))
    /// is an error naming the task.
    pub fn push_with(
        &mut self,
        task: u64,
        key: &str,
        encode: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        let max = crate::core::limits::MAX_RECORD_BYTES;
        let room = max.saturating_sub(key.len() as u64);
        let written = self
            .out
            .write_all(&task.to_le_bytes())
            .and_then(|()| write_bound(&mut self.out, key, room, encode))
            .map_err(|e| Error::io("write", &self.path, &e))?;
        match written? {
            Written::Whole => Ok(()),
            Written::TooLarge => Err(Error::input(format!(
                "{}: the run of task {task} is larger than a shard record holds ({max} bytes)",
                self.path.display()
            ))),
        }
    }

    /// Flush and close.
    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::io("write", &path, e.error()))?;
        file.sync_all().map_err(|e| Error::io("write", &path, &e))
    }
}

/// Reads one shard's `runs.bin` in order, reopening the file when it was
/// closed (merging a thousand shards keeps only some open at once).
#[derive(Debug)]
pub struct RunsReader {
    path: PathBuf,
    /// The file's length when opened: no record may claim more.
    len: u64,
    offset: u64,
    file: Option<BufReader<File>>,
}

impl RunsReader {
    /// The runs of shard folder `dir` (checks the header).
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(RUNS);
        let what = "shard runs file";
        let len = crate::core::io::open_input(&path, what)?
            .metadata()
            .map_err(|e| Error::io(&format!("read {what}"), &path, &e))?
            .len();
        let mut r = Self {
            path,
            len,
            offset: 0,
            file: None,
        };
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(Error::input(format!(
                "{}: not a tenantsim shard runs file",
                r.path.display()
            )));
        }
        r.close();
        Ok(r)
    }

    fn reader(&mut self) -> Result<&mut BufReader<File>> {
        if self.file.is_none() {
            let mut f = crate::core::io::open_input(&self.path, "shard runs file")?;
            f.seek(SeekFrom::Start(self.offset))
                .map_err(|e| Error::io("read", &self.path, &e))?;
            self.file = Some(BufReader::with_capacity(64 * 1024, f));
        }
        self.file
            .as_mut()
            .ok_or_else(|| Error::input("internal: shard file not open"))
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<()> {
        let at = self.offset;
        let path = self.path.clone();
        self.reader()?.read_exact(buf).map_err(|e| {
            Error::input(format!(
                "{}: truncated at byte {at} ({e}): the shard is incomplete; run it again",
                path.display()
            ))
        })?;
        self.offset += buf.len() as u64;
        Ok(())
    }

    /// Close the file (it is reopened at the same place when read again).
    pub fn close(&mut self) {
        self.file = None;
    }

    /// The next record: its task id and where its entry is, whose run
    /// [`Record::run`] checks and reads for the task's key. The entry is
    /// not read here: its length is checked against what the file holds
    /// and stepped over.
    pub fn next_record(&mut self) -> Result<Record> {
        let at = self.offset;
        let mut head = [0u8; 24];
        self.read_exact(&mut head)?;
        let task = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let len = u64::from_le_bytes(head[16..24].try_into().unwrap_or_default());
        // The length is checked against what the file still holds (and
        // the documented maximum) before the record is used.
        let left = self.len.saturating_sub(self.offset).saturating_sub(32);
        let max = crate::core::limits::MAX_RECORD_BYTES;
        if len > max || len > left {
            return Err(Error::input(format!(
                "{}: record of task {task} at byte {at} is damaged: it claims {len} bytes, but {} \
                 (the shard is damaged or incomplete; run it again)",
                self.path.display(),
                if len > max {
                    format!("a record holds at most {max}")
                } else {
                    format!("only {left} remain in the file")
                }
            )));
        }
        let rest = len + 32;
        let step = i64::try_from(rest).map_err(|_| {
            Error::input(format!(
                "{}: record at byte {at} is too large ({len} bytes)",
                self.path.display()
            ))
        })?;
        let path = self.path.clone();
        self.reader()?
            .seek_relative(step)
            .map_err(|e| Error::io("read", &path, &e))?;
        self.offset += rest;
        Ok(Record {
            task,
            at,
            entry_len: 16 + rest,
            path: self.path.clone(),
        })
    }
}

/// One record of a `runs.bin`, as found ([`RunsReader::next_record`]).
#[derive(Debug)]
pub struct Record {
    /// The task id it says it holds.
    pub task: u64,
    /// Where the record starts; its entry follows the 8-byte task id.
    at: u64,
    entry_len: u64,
    path: PathBuf,
}

impl Record {
    /// The encoded run, if the entry is whole and bound to `key` (the key
    /// of the task the merge expects here, [`crate::core::run::identity::TaskKeys`]):
    /// the entry is checked in one pass over the file, then its run read
    /// from the same open file as asked ([`StoredRun`], as the result
    /// cache reads its entries).
    pub fn run(&self, key: &str) -> Result<StoredRun> {
        let (task, at, path) = (self.task, self.at, self.path.display());
        let read_error = |e: std::io::Error| {
            Error::input(format!(
                "{path}: the run of task {task} (byte {at}) cannot be read ({e}): the shard is damaged or incomplete; run it again"
            ))
        };
        let file = crate::core::io::open_input(&self.path, "shard runs file")?;
        // The entry follows the record's 8-byte task id.
        match read_bound(file, at + 8, self.entry_len, key).map_err(read_error)? {
            Checked::Run(run) => Ok(run),
            Checked::Damaged => Err(Error::input(format!(
                "{path}: the run of task {task} (byte {at}) fails its checksum: the shard is damaged; run it again"
            ))),
            Checked::OtherTask => Err(Error::input(format!(
                "{path}: the record of task {task} (byte {at}) holds the run of another task (its identity differs from the one this scenario gives task {task}): the shard was edited or its records moved; run it again"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_task_once_and_are_balanced() {
        for total in [0u64, 1, 5, 6, 7, 100] {
            for count in 1..9u64 {
                let mut seen = vec![0u32; total as usize];
                let mut sizes = Vec::new();
                for index in 0..count {
                    let s = ShardSpec { index, count };
                    sizes.push(s.len(total));
                    for j in 0..s.len(total) {
                        let k = s.task(j);
                        assert!(s.owns(k));
                        seen[k as usize] += 1;
                    }
                }
                assert!(
                    seen.iter().all(|&n| n == 1),
                    "{total} tasks, {count} shards"
                );
                let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                assert!(hi.zip(lo).is_some_and(|(h, l)| h - l <= 1));
            }
        }
    }

    #[test]
    fn shard_text_is_checked() {
        assert_eq!(
            ShardSpec::parse("2/7"),
            Ok(ShardSpec { index: 2, count: 7 })
        );
        for bad in ["7/7", "0/0", "a/2", "1", "1/b", "-1/3", ""] {
            assert!(ShardSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(ShardSpec::parse("3/3").expect_err("bad").contains("0 to 2"));
    }

    #[test]
    fn a_run_is_streamed_into_its_record_with_the_bytes_of_seal_bound() {
        // Removed when the test ends, whether it passes or not.
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        let (k1, k2) = ("1".repeat(64), "2".repeat(64));
        // 300 KB written in three pieces (the entry's length is patched in
        // after them), then a small record after it.
        let run: Vec<u8> = (0..300_000u32).map(|i| (i % 239) as u8).collect();
        let mut w = RunsWriter::create(&dir.join(RUNS)).expect("create");
        w.push_with(1, &k1, &mut |out| {
            for part in run.chunks(100_000) {
                out.write_all(part)
                    .map_err(|e| Error::input(e.to_string()))?;
            }
            Ok(())
        })
        .expect("push");
        w.push(2, &k2, b"xy").expect("push");
        w.finish().expect("finish");
        let mut want = MAGIC.to_vec();
        want.extend_from_slice(&1u64.to_le_bytes());
        want.extend_from_slice(&crate::core::run::cache::seal_bound(&k1, &run));
        want.extend_from_slice(&2u64.to_le_bytes());
        want.extend_from_slice(&crate::core::run::cache::seal_bound(&k2, b"xy"));
        assert!(std::fs::read(dir.join(RUNS)).expect("read") == want);
        // Read back as it is asked, each from its own place.
        let mut r = RunsReader::open(dir).expect("open");
        let (first, second) = (r.next_record().expect("1"), r.next_record().expect("2"));
        let mut back = Vec::new();
        second
            .run(&k2)
            .expect("run")
            .read_to_end(&mut back)
            .expect("read");
        assert_eq!(back, b"xy");
        let mut stored = first.run(&k1).expect("run");
        assert_eq!(stored.len(), run.len() as u64);
        back.clear();
        stored.read_to_end(&mut back).expect("read");
        assert!(back == run);
        // An error of the encoding is the caller's.
        let mut w = RunsWriter::create(&dir.join(RUNS)).expect("create");
        let err = w
            .push_with(3, &k1, &mut |_| Err(Error::input("cannot encode: bad")))
            .expect_err("an encoding error");
        assert!(err.to_string().contains("bad"), "{err}");
    }

    #[test]
    fn runs_round_trip_and_damage_is_named() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        let (k3, k10) = ("3".repeat(64), "a".repeat(64));
        let mut w = RunsWriter::create(&dir.join(RUNS)).expect("create");
        w.push(3, &k3, b"abc").expect("push");
        w.push(10, &k10, b"").expect("push");
        w.finish().expect("finish");
        let mut r = RunsReader::open(dir).expect("open");
        let read = |run: Result<StoredRun>| {
            let mut bytes = Vec::new();
            run.expect("run").read_to_end(&mut bytes).expect("read");
            bytes
        };
        let first = r.next_record().expect("1");
        assert_eq!((first.task, read(first.run(&k3))), (3, b"abc".to_vec()));
        r.close();
        let second = r.next_record().expect("2");
        assert_eq!((second.task, read(second.run(&k10))), (10, Vec::new()));
        assert!(r.next_record().is_err());
        // Bound to its task: under another task's key it is refused.
        let err = first.run(&k10).expect_err("another task's");
        assert!(err.to_string().contains("another task"), "{err}");
        let mut bytes = std::fs::read(dir.join(RUNS)).expect("read");
        bytes[8 + 8 + 16 + 64] ^= 0xff;
        std::fs::write(dir.join(RUNS), &bytes).expect("write");
        let err = RunsReader::open(dir)
            .expect("open")
            .next_record()
            .and_then(|r| r.run(&k3).map(|_| ()))
            .expect_err("damaged");
        assert!(err.to_string().contains("task 3"), "{err}");
    }
}
