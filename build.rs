//! Records the git commit the binary is built from (for `run.json`), or
//! "unknown" when git or the repository is not available, and the build
//! identity of the result cache (`TENANTSIM_BUILD_ID`: SHA-256 of every
//! file under `src/`, `Cargo.toml`, `Cargo.lock`, this file, the
//! compiler's `rustc -vV`, the profile, target and flags; DESIGN §10.2),
//! and the name of the cargo profile (`TENANTSIM_BUILD_PROFILE`: `debug`,
//! `release`, `optimized`…, which `tenantsim bench` prints). Never fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// Every file under `dir`, sorted by path.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The build identity: what the code and its compilation are made of.
fn build_id() -> String {
    let mut h = Sha256::new();
    let mut files = Vec::new();
    files_under(Path::new("src"), &mut files);
    files.sort();
    for f in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        files.push(PathBuf::from(f));
    }
    for f in &files {
        h.update(f.to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(f).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if let Ok(out) = Command::new(rustc).arg("-vV").output() {
        h.update(&out.stdout);
    }
    for var in ["PROFILE", "TARGET", "OPT_LEVEL", "CARGO_ENCODED_RUSTFLAGS"] {
        h.update(var.as_bytes());
        h.update(std::env::var(var).unwrap_or_default().as_bytes());
        h.update([0]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The cargo profile of this build: the folder of the target directory
/// that `OUT_DIR` lies in (`<target>/<profile>/build/<package>/out`), or
/// "unknown". Cargo itself tells build scripts only `debug` or `release`
/// (`PROFILE`), not which named profile (`--profile optimized`).
fn profile_name() -> String {
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    Path::new(&out)
        .ancestors()
        .nth(3)
        .and_then(|d| d.file_name())
        .map_or_else(|| "unknown".into(), |n| n.to_string_lossy().into_owned())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TENANTSIM_GIT_COMMIT");
    // The build identity reads these (a folder: any change under it).
    for p in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rustc-env=TENANTSIM_BUILD_ID={}", build_id());
    println!("cargo:rustc-env=TENANTSIM_BUILD_PROFILE={}", profile_name());
    // Rebuild when HEAD moves: HEAD itself and the branch it points to.
    for name in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", name])
            && Path::new(&p).exists()
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(p) = git(&["rev-parse", "--git-path", &branch])
        && Path::new(&p).exists()
    {
        println!("cargo:rerun-if-changed={p}");
    }
    let commit = std::env::var("TENANTSIM_GIT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=TENANTSIM_GIT_COMMIT={commit}");
}
