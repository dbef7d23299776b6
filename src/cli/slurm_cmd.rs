//! `tenantsim slurm SCENARIO --shards N`: write the Slurm job array, merge
//! and submit scripts of a scenario into the current folder
//! ([`crate::core::run::slurm`] makes their text).

use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};
use crate::core::resources::human_bytes;
use crate::core::run::slurm::{Cache, SlurmJob, logs_folder, mem_mib, script_names, slurm_scripts};
use crate::registry::Registry;

/// Slurm's default `MaxArraySize` (slurm.conf): the largest array index
/// is one less.
const SLURM_DEFAULT_MAX_ARRAY_SIZE: u32 = 1001;

/// Arguments of `tenantsim slurm`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Writes <name>-array.sbatch, <name>-merge.sbatch and <name>-submit.sh \
into the current folder; run ./<name>-submit.sh on the cluster's login node. Shard I goes to \
OUT.shard-I-of-N and the job logs to OUT.slurm-logs/, beside OUT; these and the cache must be on \
a file system every node sees (docs/DISTRIBUTED.md)."
)]
pub struct SlurmArgs {
    /// The scenario file (TOML), checked as `validate` does.
    pub scenario: PathBuf,
    /// Number of shards: the job array's tasks.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub shards: u32,
    /// Slurm partition of every job [default: the cluster's default].
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit of every job, as sbatch --time takes it (e.g. 2:00:00)
    /// [default: the partition's].
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// CPUs per shard (sbatch --cpus-per-task), also the shard's --threads.
    #[arg(long, value_name = "C", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cpus: u32,
    /// Memory per shard (sbatch --mem; e.g. 4G, 500M; powers of 1024)
    /// [default: the scenario's memory estimate at --cpus threads (a
    /// sweep's largest point's); the cluster's default where it makes
    /// none].
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub mem: Option<u64>,
    /// Result cache the shards share (passed to `run --cache`) [default:
    /// run's default cache].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Shards run without the result cache (`run --no-cache`).
    #[arg(long)]
    pub no_cache: bool,
    /// The merged results folder [default: results/<scenario name>].
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)] // clap help text
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The tenantsim binary the jobs run [default: this one, by its
    /// absolute path].
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    /// Replace script files of these names that already exist.
    #[arg(long)]
    pub force: bool,
}

/// `tenantsim slurm`.
pub fn slurm(args: &SlurmArgs, registry: &Registry) -> Result<()> {
    for line in write_slurm_scripts(args, registry)? {
        eprintln!("{line}");
    }
    Ok(())
}

/// What `tenantsim slurm` does, for library callers: validate the
/// scenario (with the policies of `registry`), write the three scripts
/// into the current folder, and return the lines it prints.
pub fn write_slurm_scripts(args: &SlurmArgs, registry: &Registry) -> Result<Vec<String>> {
    let (name, tasks, estimate) =
        crate::run::name_tasks_and_memory(&args.scenario, registry, args.cpus)?;
    let mem = args.mem.or(estimate);
    let workdir = std::env::current_dir()
        .map_err(|e| Error::input(format!("cannot read the current folder: {e}")))?;
    let scenario = absolute(&args.scenario)?;
    let out = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join(&name)),
    )?;
    let logs = logs_folder(&out)?;
    check_merge_target(&out, &workdir, &scenario, &logs, args.shards)?;
    let bin = match &args.bin {
        // A bare name (`tenantsim`) is looked up on the nodes' PATH.
        Some(b) if b.components().count() == 1 && !b.is_absolute() => b.clone(),
        Some(b) => absolute(b)?,
        None => std::env::current_exe().map_err(|e| {
            Error::input(format!(
                "cannot find the path of this tenantsim binary ({e}): pass --bin PATH"
            ))
        })?,
    };
    let cache = match (&args.cache, args.no_cache) {
        (Some(dir), _) => Cache::Dir(absolute(dir)?),
        (None, true) => Cache::Off,
        (None, false) => Cache::Default,
    };
    let job = SlurmJob {
        name: &name,
        scenario: &scenario,
        shards: args.shards,
        bin: &bin,
        workdir: &workdir,
        out: &out,
        partition: args.partition.as_deref(),
        time: args.time.as_deref(),
        cpus: args.cpus,
        mem,
        cache,
    };
    let scripts = slurm_scripts(&job)?;
    let names = script_names(&name);
    if !args.force {
        for file in &names {
            if workdir.join(file).exists() {
                return Err(Error::input(format!(
                    "{} already exists: not replaced (pass --force to replace the scripts)",
                    workdir.join(file).display()
                )));
            }
        }
    }
    for (file, text) in names
        .iter()
        .zip([&scripts.array, &scripts.merge, &scripts.submit])
    {
        write_script(&workdir.join(file), text)?;
    }
    let mut lines = Vec::new();
    if u64::from(args.shards) > tasks {
        lines.push(format!(
            "warning: {} shards for {tasks} task(s): {} shard(s) will hold no task",
            args.shards,
            u64::from(args.shards) - tasks
        ));
    }
    if args.shards > SLURM_DEFAULT_MAX_ARRAY_SIZE {
        lines.push(format!(
            "warning: {} array tasks exceed Slurm's default MaxArraySize ({SLURM_DEFAULT_MAX_ARRAY_SIZE}); \
             check `scontrol show config | grep MaxArraySize` on the cluster",
            args.shards
        ));
    }
    lines.push(format!(
        "wrote {}, {} and {} ({} shards of `{name}`, {tasks} tasks)",
        names[0], names[1], names[2], args.shards
    ));
    match (args.mem, estimate) {
        (Some(m), Some(e)) if m < e => lines.push(format!(
            "warning: --mem {} is below the scenario's memory estimate at --cpus {}, {}: where \
             Slurm enforces --mem (cgroups), each shard refuses to start, its memory check reading \
             that limit (DESIGN §8.5)",
            human_bytes(m),
            args.cpus,
            human_bytes(e)
        )),
        (Some(m), _) => lines.push(format!("each shard asks Slurm for --mem={}M", mem_mib(m))),
        (None, Some(e)) => lines.push(format!(
            "each shard asks Slurm for --mem={}M: the scenario's memory estimate at --cpus {}, {} \
             (DESIGN §8.5; `tenantsim validate --threads {}` itemises it); --mem SIZE changes it",
            mem_mib(e),
            args.cpus,
            human_bytes(e),
            args.cpus
        )),
        (None, None) => {}
    }
    lines.push(format!(
        "submit with: ./{}; shards in {}.shard-I-of-{}, logs in {}, results in {}",
        names[2],
        out.display(),
        args.shards,
        logs.display(),
        out.display()
    ));
    Ok(lines)
}

/// Refuse, before any script is written, an `--out` the merge job would
/// refuse after the whole array ran: one that holds the working folder
/// (where the merge runs and the scripts are), the scenario, a shard
/// folder or the logs (a results folder is replaced as a whole), a file,
/// or a non-empty folder tenantsim did not write (the merge script passes
/// no `--force`).
fn check_merge_target(
    out: &Path,
    workdir: &Path,
    scenario: &Path,
    logs: &Path,
    shards: u32,
) -> Result<()> {
    use crate::core::io::{is_results_folder, resolve};
    let mut shard = out.file_name().unwrap_or_default().to_os_string();
    shard.push(format!(".shard-0-of-{shards}"));
    let shard = out.with_file_name(shard);
    let resolved = resolve(out)?;
    for (what, path) in [
        (
            "the working folder (where the scripts are written and the merge job runs)",
            workdir,
        ),
        ("the scenario file", scenario),
        ("the shard folders, such as", shard.as_path()),
        ("the job logs folder", logs),
    ] {
        if resolve(path).is_ok_and(|p| p.starts_with(&resolved)) {
            return Err(Error::input(format!(
                "--out {}: it holds {what} {}, and the merge replaces the results folder as a \
                 whole, so it would refuse after the whole array ran; no script written: choose \
                 another --out (e.g. results/NAME)",
                out.display(),
                path.display()
            )));
        }
    }
    if out.exists() && !out.is_dir() {
        return Err(Error::input(format!(
            "--out {}: exists and is not a folder, so the merge would refuse it after the whole \
             array ran; no script written: choose another --out",
            out.display()
        )));
    }
    let non_empty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if non_empty && !is_results_folder(out) {
        return Err(Error::input(format!(
            "--out {}: a folder tenantsim did not write, which the merge (run without --force) \
             would refuse after the whole array ran; no script written: choose a new folder, or \
             move it away",
            out.display()
        )));
    }
    Ok(())
}

/// `path` made absolute against the current folder (not resolved: the
/// cluster's nodes may mount it where this machine does not yet see it).
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path)
        .map_err(|e| Error::input(format!("cannot make {} absolute: {e}", path.display())))
}

/// Write an executable script atomically.
fn write_script(path: &Path, text: &str) -> Result<()> {
    crate::core::io::write_atomic(path, text.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io("make executable", path, &e))?;
    }
    Ok(())
}
