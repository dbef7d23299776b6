//! The bad-input catalogue: every folder under `tests/bad_inputs/` is one
//! case. Its `case.toml` gives the command-line `args` (with `{dir}` = the
//! case folder and `{tmp}` = a fresh temporary folder), the expected `exit`
//! code and a fragment the `stderr` message must contain. No case may panic.
//!
//! Beyond the fragment, every case's whole stderr is pinned, all cases in
//! one insta snapshot, `snapshots/it__bad_inputs__stderr_of_every_case.snap`:
//! `NAME: exit CODE: FIRST LINE`, then each further line (the source
//! excerpt of a TOML error, clap's usage) as `  | LINE`. The first line
//! is the message; for a TOML error it is only the position
//! (`TOML parse error at line 8, column 13`), the message proper follows,
//! hence the whole text. The only filtering: the case folder prints as
//! `{dir}`, the temporary folder as `{tmp}` and the repository as `{repo}`
//! (they differ between machines and runs), as in `case.toml`. A case
//! added to the catalogue fails until the snapshot is updated (see
//! `tests/it/main.rs`).

use std::fs;
use std::path::Path;

use assert_cmd::Command;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    args: Vec<String>,
    exit: i32,
    stderr: String,
}

#[test]
fn every_bad_input_gives_its_exit_code_and_message_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let mut dirs: Vec<_> = fs::read_dir(&root)
        .expect("tests/bad_inputs exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 40,
        "the catalogue should hold at least 40 cases, has {}",
        dirs.len()
    );
    let mut failures = Vec::new();
    let mut every_stderr = String::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = fs::read_to_string(dir.join("case.toml")).expect("case.toml readable");
        let case: Case = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}/case.toml: {e}"));
        let tmp = tempfile::tempdir().expect("tempdir");
        let subst = |s: &str| {
            s.replace("{dir}", &dir.display().to_string())
                .replace("{tmp}", &tmp.path().display().to_string())
        };
        let args: Vec<String> = case.args.iter().map(|a| subst(a)).collect();
        let out = Command::cargo_bin("tenantsim")
            .expect("binary built")
            .args(&args)
            .current_dir(tmp.path())
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let fragment = subst(&case.stderr);
        // The stderr with the machine's paths put back as placeholders: the
        // case folder first (it lies inside the repository), then the
        // repository, then the temporary folder.
        let pinned = stderr
            .replace(&dir.display().to_string(), "{dir}")
            .replace(&repo.display().to_string(), "{repo}")
            .replace(&tmp.path().display().to_string(), "{tmp}");
        let mut lines = pinned.lines();
        let code_text = code.map_or_else(|| "none (a signal)".to_string(), |c| c.to_string());
        let first_line = lines.next().unwrap_or_default();
        every_stderr.push_str(&format!("{name}: exit {code_text}: {first_line}\n"));
        for line in lines {
            every_stderr.push_str(&format!("  | {line}\n"));
        }
        if stderr.contains("panicked") {
            failures.push(format!("{name}: PANIC\n{stderr}"));
        } else if code != Some(case.exit) {
            failures.push(format!(
                "{name}: exit {code:?}, expected {}\n{stderr}",
                case.exit
            ));
        } else if !stderr.contains(&fragment) {
            failures.push(format!("{name}: stderr lacks `{fragment}`:\n{stderr}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
    insta::assert_snapshot!("stderr_of_every_case", every_stderr);
}
