//! The text of the Slurm scripts that `tenantsim slurm` writes
//! (docs/DISTRIBUTED.md): a job array with one task per shard
//! (`SLURM_ARRAY_TASK_ID` is the shard index), a merge job, and a submit
//! script that submits the array and then the merge with
//! `--dependency=afterok` on it. Only text is made here; the command writes
//! the files.
//!
//! Every path in the scripts is absolute and shell-quoted, so they run
//! from any folder and survive spaces and quotes in paths. Values that end
//! up in `#SBATCH` lines (which sbatch reads without a shell) are checked
//! to need no quoting.

use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};

/// The result cache the shards use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cache {
    /// `run`'s default cache (no option passed; resolved in the jobs'
    /// working directory, the folder the scripts were written in).
    Default,
    /// `--cache DIR` (absolute).
    Dir(PathBuf),
    /// `--no-cache`.
    Off,
}

/// What the scripts of one scenario need. Paths must be absolute.
#[derive(Debug, Clone)]
pub struct SlurmJob<'a> {
    /// The scenario's name (what `run` names `results/<name>` after).
    pub name: &'a str,
    /// The scenario file.
    pub scenario: &'a Path,
    /// Number of shards (array tasks), ≥ 1.
    pub shards: u32,
    /// The tenantsim binary the jobs call: an absolute path, or a bare
    /// command name looked up on the nodes' `PATH`.
    pub bin: &'a Path,
    /// The jobs' working directory and where the scripts live.
    pub workdir: &'a Path,
    /// The merged results folder `OUT`; shard I of N is written to
    /// `OUT.shard-I-of-N` beside it (what `run --shard I/N` names it by
    /// default), the jobs' logs to `OUT.slurm-logs/`.
    pub out: &'a Path,
    /// `--partition` of both jobs.
    pub partition: Option<&'a str>,
    /// `--time` of both jobs.
    pub time: Option<&'a str>,
    /// CPUs per array task (`--cpus-per-task`, and the shard's `--threads`).
    pub cpus: u32,
    /// Memory per array task in bytes (`--mem`, rounded up to whole MiB);
    /// `None`: the cluster's default.
    pub mem: Option<u64>,
    /// The result cache of the shards.
    pub cache: Cache,
}

/// The three scripts, by role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmScripts {
    /// `<name>-array.sbatch`.
    pub array: String,
    /// `<name>-merge.sbatch`.
    pub merge: String,
    /// `<name>-submit.sh`.
    pub submit: String,
}

/// `bytes` as `sbatch --mem` takes them: Slurm's `M` is MiB; whole MiB,
/// rounded up so the request is never below the figure it was given.
pub fn mem_mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20).max(1)
}

/// The file names of the scripts of scenario `name`: array, merge, submit.
pub fn script_names(name: &str) -> [String; 3] {
    [
        format!("{name}-array.sbatch"),
        format!("{name}-merge.sbatch"),
        format!("{name}-submit.sh"),
    ]
}

/// `s` as one shell word: unchanged when it holds only characters no
/// shell treats specially, else in single quotes (a `'` inside becomes
/// `'\''`).
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./:=@%+,".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A path as a shell word; non-UTF-8 paths cannot be written into the
/// scripts.
fn quote_path(what: &str, path: &Path) -> Result<String> {
    let text = path.to_str().ok_or_else(|| {
        Error::input(format!(
            "{what} {} is not valid UTF-8: the Slurm scripts cannot name it",
            path.display()
        ))
    })?;
    if !path.is_absolute() {
        return Err(Error::input(format!(
            "{what} {text} must be an absolute path in the Slurm scripts"
        )));
    }
    Ok(shell_quote(text))
}

/// A path in a Slurm `--output` file pattern: `%` is Slurm's escape, so a
/// literal one is `%%`.
fn slurm_pattern_path(path: &Path) -> String {
    path.to_string_lossy().replace('%', "%%")
}

/// An option value that goes into an `#SBATCH` line: letters, digits and
/// `_ - . : ,` only (partition names, time limits such as `1-12:00:00`).
fn sbatch_value(option: &str, value: &str) -> Result<String> {
    let ok = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.:,".contains(&b));
    if ok {
        Ok(value.to_string())
    } else {
        Err(Error::usage(format!(
            "{option}: expected letters, digits and `_ - . : ,` only, got `{value}`"
        )))
    }
}

/// The scenario name as a Slurm job name: every character but letters,
/// digits, `_ - .` becomes `_`.
fn job_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `#SBATCH` lines both jobs share: partition and time limit.
fn shared_directives(job: &SlurmJob<'_>) -> Result<String> {
    let mut text = String::new();
    if let Some(p) = job.partition {
        text += &format!("#SBATCH --partition={}\n", sbatch_value("--partition", p)?);
    }
    if let Some(t) = job.time {
        text += &format!("#SBATCH --time={}\n", sbatch_value("--time", t)?);
    }
    Ok(text)
}

/// Where the jobs of results folder `out` write their logs:
/// `OUT.slurm-logs` beside it.
pub fn logs_folder(out: &Path) -> Result<PathBuf> {
    let name = out.file_name().ok_or_else(|| {
        Error::input(format!(
            "--out {}: expected a folder path that ends in a name",
            out.display()
        ))
    })?;
    let mut logs = name.to_os_string();
    logs.push(".slurm-logs");
    Ok(out.with_file_name(logs))
}

/// The three scripts of `job`.
pub fn slurm_scripts(job: &SlurmJob<'_>) -> Result<SlurmScripts> {
    if job.shards == 0 {
        return Err(Error::usage("--shards: expected at least 1 shard"));
    }
    if job.cpus == 0 {
        return Err(Error::usage("--cpus: expected at least 1 CPU"));
    }
    let n = job.shards;
    let bin = if job.bin.components().count() == 1 && job.bin.is_relative() {
        let name = job.bin.to_str().ok_or_else(|| {
            Error::input(format!("--bin {} is not valid UTF-8", job.bin.display()))
        })?;
        shell_quote(name)
    } else {
        quote_path("the tenantsim binary", job.bin)?
    };
    let scenario = quote_path("the scenario file", job.scenario)?;
    let workdir = quote_path("the working folder", job.workdir)?;
    let out = quote_path("the results folder", job.out)?;
    let logs = logs_folder(job.out)?;
    let logs_q = quote_path("the logs folder", &logs)?;
    let cache = match &job.cache {
        Cache::Default => String::new(),
        Cache::Dir(dir) => format!(" --cache {}", quote_path("the cache folder", dir)?),
        Cache::Off => " --no-cache".to_string(),
    };
    let shared = shared_directives(job)?;
    let jname = job_name(job.name);
    let name = job.name;
    let [array_file, merge_file, submit_file] = script_names(name);
    let array_path = quote_path("the array script", &job.workdir.join(&array_file))?;
    let merge_path = quote_path("the merge script", &job.workdir.join(&merge_file))?;
    let last = n - 1;
    let cpus = job.cpus;
    let mem = job.mem.map_or(String::new(), |b| {
        format!("#SBATCH --mem={}M\n", mem_mib(b))
    });

    let array = format!(
        "#!/bin/bash
# Shard $SLURM_ARRAY_TASK_ID of the {n} shards of scenario `{name}`, one job
# array task each. Written by `tenantsim slurm`; submit with {submit_file},
# which also submits the merge ({merge_file}).
#SBATCH --job-name=tenantsim-{jname}
#SBATCH --array=0-{last}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={cpus}
{mem}{shared}set -euo pipefail
shard=\"${{SLURM_ARRAY_TASK_ID:?not a Slurm job array task: submit the array with sbatch}}\"
out={out}
exec {bin} run {scenario} --shard \"$shard/{n}\" --out \"$out.shard-$shard-of-{n}\" --threads {cpus}{cache} --quiet
"
    );

    let merge = format!(
        "#!/bin/bash
# Merges the {n} shards of scenario `{name}` into its results folder.
# Written by `tenantsim slurm`; {submit_file} submits it to start when
# every task of {array_file} has succeeded.
#SBATCH --job-name=tenantsim-{jname}-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
{shared}set -euo pipefail
out={out}
shards=()
for ((i = 0; i < {n}; i++)); do
  shards+=(\"$out.shard-$i-of-{n}\")
done
exec {bin} merge \"${{shards[@]}}\" --out \"$out\"
"
    );

    // sbatch reads `%` in --output as a pattern: the folder's own `%`s
    // are doubled.
    let array_log = shell_quote(&format!("{}/array-%A_%a.out", slurm_pattern_path(&logs)));
    let merge_log = shell_quote(&format!("{}/merge-%j.out", slurm_pattern_path(&logs)));
    let submit = format!(
        "#!/bin/bash
# Submits scenario `{name}` to Slurm: {array_file} (a job array of {n}
# shards), then {merge_file}, which starts only when every shard has
# succeeded (afterok) and is cancelled if one fails. Written by
# `tenantsim slurm`. Extra arguments go to both sbatch calls (e.g.
# --account=NAME).
set -euo pipefail
cd {workdir}
mkdir -p {logs_q}
array=$(sbatch --parsable --chdir={workdir} --output={array_log} \"$@\" {array_path})
array=${{array%%;*}}
merge=$(sbatch --parsable --chdir={workdir} --output={merge_log} \\
  --dependency=\"afterok:$array\" --kill-on-invalid-dep=yes \"$@\" {merge_path})
merge=${{merge%%;*}}
echo \"array job $array ({n} shards), merge job $merge\"
echo \"results: \"{out}
echo \"logs: \"{logs_q}
"
    );
    Ok(SlurmScripts {
        array,
        merge,
        submit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job<'a>(root: &'a Path, paths: &'a [PathBuf; 3]) -> SlurmJob<'a> {
        SlurmJob {
            name: "my sweep",
            scenario: &paths[0],
            shards: 4,
            bin: &paths[1],
            workdir: root,
            out: &paths[2],
            partition: Some("short"),
            time: Some("1-02:00:00"),
            cpus: 3,
            // quickstart's estimate at 3 threads: 32.08 MiB.
            mem: Some(33_640_579),
            cache: Cache::Dir(root.join("cache")),
        }
    }

    fn paths(root: &Path) -> [PathBuf; 3] {
        [
            root.join("it's here/s.toml"),
            PathBuf::from("/opt/tenantsim/bin/tenantsim"),
            root.join("results/my sweep"),
        ]
    }

    #[test]
    fn shell_quote_leaves_plain_words_and_quotes_the_rest() {
        assert_eq!(
            shell_quote("/a/b-c_d.e:f=g@h%i+j,k"),
            "/a/b-c_d.e:f=g@h%i+j,k"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$HOME`x`"), "'$HOME`x`'");
    }

    #[test]
    fn scripts_of_a_sweep_with_spaces_and_quotes_in_paths() {
        let root = Path::new("/work dir");
        let p = paths(root);
        let s = slurm_scripts(&job(root, &p)).expect("scripts");
        let array = "#!/bin/bash
# Shard $SLURM_ARRAY_TASK_ID of the 4 shards of scenario `my sweep`, one job
# array task each. Written by `tenantsim slurm`; submit with my sweep-submit.sh,
# which also submits the merge (my sweep-merge.sbatch).
#SBATCH --job-name=tenantsim-my_sweep
#SBATCH --array=0-3
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=3
#SBATCH --mem=33M
#SBATCH --partition=short
#SBATCH --time=1-02:00:00
set -euo pipefail
shard=\"${SLURM_ARRAY_TASK_ID:?not a Slurm job array task: submit the array with sbatch}\"
out='/work dir/results/my sweep'
exec /opt/tenantsim/bin/tenantsim run '/work dir/it'\\''s here/s.toml' --shard \"$shard/4\" \
--out \"$out.shard-$shard-of-4\" --threads 3 --cache '/work dir/cache' --quiet
";
        assert_eq!(s.array, array);
        let merge = "#!/bin/bash
# Merges the 4 shards of scenario `my sweep` into its results folder.
# Written by `tenantsim slurm`; my sweep-submit.sh submits it to start when
# every task of my sweep-array.sbatch has succeeded.
#SBATCH --job-name=tenantsim-my_sweep-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --partition=short
#SBATCH --time=1-02:00:00
set -euo pipefail
out='/work dir/results/my sweep'
shards=()
for ((i = 0; i < 4; i++)); do
  shards+=(\"$out.shard-$i-of-4\")
done
exec /opt/tenantsim/bin/tenantsim merge \"${shards[@]}\" --out \"$out\"
";
        assert_eq!(s.merge, merge);
        let submit = "#!/bin/bash
# Submits scenario `my sweep` to Slurm: my sweep-array.sbatch (a job array of 4
# shards), then my sweep-merge.sbatch, which starts only when every shard has
# succeeded (afterok) and is cancelled if one fails. Written by
# `tenantsim slurm`. Extra arguments go to both sbatch calls (e.g.
# --account=NAME).
set -euo pipefail
cd '/work dir'
mkdir -p '/work dir/results/my sweep.slurm-logs'
array=$(sbatch --parsable --chdir='/work dir' \
--output='/work dir/results/my sweep.slurm-logs/array-%A_%a.out' \"$@\" '/work dir/my sweep-array.sbatch')
array=${array%%;*}
merge=$(sbatch --parsable --chdir='/work dir' --output='/work dir/results/my sweep.slurm-logs/merge-%j.out' \\
  --dependency=\"afterok:$array\" --kill-on-invalid-dep=yes \"$@\" '/work dir/my sweep-merge.sbatch')
merge=${merge%%;*}
echo \"array job $array (4 shards), merge job $merge\"
echo \"results: \"'/work dir/results/my sweep'
echo \"logs: \"'/work dir/results/my sweep.slurm-logs'
";
        assert_eq!(s.submit, submit);
    }

    #[test]
    fn no_partition_no_time_no_cache_and_a_bare_binary_name() {
        let root = Path::new("/w");
        let p = paths(root);
        let mut j = job(root, &p);
        j.partition = None;
        j.time = None;
        j.cache = Cache::Off;
        j.shards = 1;
        j.cpus = 1;
        j.mem = None;
        j.bin = Path::new("tenantsim");
        let s = slurm_scripts(&j).expect("scripts");
        assert!(!s.array.contains("--partition") && !s.array.contains("--time"));
        assert!(!s.array.contains("--mem"), "{}", s.array);
        assert!(!s.merge.contains("--partition") && !s.merge.contains("--time"));
        assert!(s.array.contains("#SBATCH --array=0-0\n"), "{}", s.array);
        assert!(
            s.array.ends_with(
                "exec tenantsim run '/w/it'\\''s here/s.toml' --shard \"$shard/1\" \
                 --out \"$out.shard-$shard-of-1\" --threads 1 --no-cache --quiet\n"
            ),
            "{}",
            s.array
        );
        assert!(s.merge.contains("exec tenantsim merge "), "{}", s.merge);
        j.cache = Cache::Default;
        let s = slurm_scripts(&j).expect("scripts");
        assert!(s.array.ends_with("--threads 1 --quiet\n"), "{}", s.array);
    }

    /// `--mem` in whole MiB (Slurm's `M`), never below the bytes given;
    /// the array's tasks only (the merge takes the cluster's default).
    #[test]
    fn the_memory_a_shard_asks_for_is_rounded_up_to_whole_mib() {
        let root = Path::new("/w");
        let p = paths(root);
        let mut j = job(root, &p);
        for (bytes, want) in [
            (1, "1M"),
            (1 << 20, "1M"),
            ((1 << 20) + 1, "2M"),
            (3_249_158_200, "3099M"),
        ] {
            j.mem = Some(bytes);
            let s = slurm_scripts(&j).expect("scripts");
            assert!(
                s.array.contains(&format!("\n#SBATCH --mem={want}\n")),
                "{bytes}: {}",
                s.array
            );
            assert!(!s.merge.contains("--mem"), "{}", s.merge);
        }
    }

    #[test]
    fn percent_in_the_logs_folder_is_doubled_for_sbatch_output_patterns() {
        let root = Path::new("/w");
        let mut p = paths(root);
        p[2] = PathBuf::from("/w/100%/sweep");
        let s = slurm_scripts(&job(root, &p)).expect("scripts");
        assert!(
            s.submit
                .contains("--output=/w/100%%/sweep.slurm-logs/array-%A_%a.out "),
            "{}",
            s.submit
        );
        assert!(
            s.submit.contains("mkdir -p /w/100%/sweep.slurm-logs\n"),
            "{}",
            s.submit
        );
    }

    #[test]
    fn bad_partition_or_time_names_the_option() {
        let root = Path::new("/w");
        let p = paths(root);
        let mut j = job(root, &p);
        j.partition = Some("gpu long");
        let e = slurm_scripts(&j).expect_err("space in a partition");
        assert_eq!(
            e.message(),
            "--partition: expected letters, digits and `_ - . : ,` only, got `gpu long`"
        );
        j.partition = None;
        j.time = Some("1:00\n#SBATCH --x");
        let e = slurm_scripts(&j).expect_err("newline in a time");
        assert!(
            e.message().starts_with("--time: expected"),
            "{}",
            e.message()
        );
        j.time = None;
        j.shards = 0;
        let e = slurm_scripts(&j).expect_err("no shards");
        assert_eq!(e.message(), "--shards: expected at least 1 shard");
    }

    #[test]
    fn relative_paths_are_refused() {
        let root = Path::new("/w");
        let mut p = paths(root);
        p[2] = PathBuf::from("results/x");
        let e = slurm_scripts(&job(root, &p)).expect_err("relative out");
        assert_eq!(
            e.message(),
            "the results folder results/x must be an absolute path in the Slurm scripts"
        );
    }

    #[test]
    fn script_names_follow_the_scenario_name() {
        assert_eq!(
            script_names("a b"),
            [
                "a b-array.sbatch".to_string(),
                "a b-merge.sbatch".to_string(),
                "a b-submit.sh".to_string()
            ]
        );
    }
}
