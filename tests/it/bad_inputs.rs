//! The bad-input catalogue: every folder under `tests/bad_inputs/` is one
//! case. Its `case.toml` gives the command-line `args` (with `{dir}` = the
//! case folder and `{tmp}` = a fresh temporary folder), the expected `exit`
//! code and a fragment the `stderr` message must contain. No case may panic.

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
}
