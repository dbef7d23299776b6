//! The README and the user guide (docs/guide/): the README stays a short
//! guide (at most 300 lines), every ```sh block is either run by
//! `scripts/run-guide` or marked `ci=STEP` for a step `.ci/run` has, the
//! script finds the same blocks as this file's own parser, the links of the
//! docs point at files and headings that exist, and the reference names
//! every subcommand `tenantsim --help` lists.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{repo, tenantsim};

/// The README is a guide, not the manual: the reference moved to
/// docs/REFERENCE.md and the tutorials to docs/guide/.
const README_MAX_LINES: usize = 300;

/// README.md, then docs/guide/*.md in name order: the files
/// `scripts/run-guide` runs.
fn guide_files() -> Vec<PathBuf> {
    let mut guide: Vec<PathBuf> = fs::read_dir(repo("docs/guide"))
        .expect("docs/guide exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    assert!(guide.len() >= 8, "the guide has its tutorials: {guide:?}");
    let mut files = vec![repo("README.md")];
    files.extend(guide);
    files
}

/// A file's path relative to the repository, with `/`.
fn relative(path: &Path) -> String {
    path.strip_prefix(repo(""))
        .expect("inside the repository")
        .to_string_lossy()
        .replace('\\', "/")
}

/// One fenced ```sh block: the line of its opening fence, its info string
/// after `sh`, and its body.
#[derive(Debug)]
struct ShBlock {
    line: usize,
    info: String,
    body: String,
}

/// The ```sh blocks of a markdown text (fences of other languages are
/// skipped whole, so a ```sh line inside them would not count).
fn sh_blocks(text: &str) -> Vec<ShBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<ShBlock> = None;
    let mut other_fence = false;
    for (i, line) in text.lines().enumerate() {
        if !line.starts_with("```") {
            if let Some(b) = open.as_mut() {
                b.body.push_str(line);
                b.body.push('\n');
            }
            continue;
        }
        if let Some(b) = open.take() {
            blocks.push(b);
        } else if other_fence {
            other_fence = false;
        } else if let Some(rest) = line
            .strip_prefix("```sh")
            .filter(|r| r.is_empty() || r.starts_with(' ') || r.starts_with('\t'))
        {
            open = Some(ShBlock {
                line: i + 1,
                info: rest.trim().to_string(),
                body: String::new(),
            });
        } else {
            other_fence = true;
        }
    }
    assert!(open.is_none(), "an unterminated ```sh block");
    blocks
}

#[test]
fn readme_stays_within_300_lines() {
    let text = fs::read_to_string(repo("README.md")).expect("README.md");
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move reference material to \
         docs/REFERENCE.md or a tutorial to docs/guide/"
    );
    // The two commands and the Python one stay on the front page.
    for command in [
        "cargo run --release -- run scenarios/quickstart.toml",
        "cargo test",
        "pip install ./python",
    ] {
        assert!(text.contains(command), "README.md lacks `{command}`");
    }
}

#[test]
fn every_sh_block_of_the_guide_is_run_by_run_guide_or_marked_for_a_ci_step() {
    let ci = fs::read_to_string(repo(".ci/run")).expect(".ci/run");
    let steps: Vec<&str> = ci
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("step \""))
        .collect();
    assert_eq!(
        ci.lines()
            .filter(|l| l.contains("scripts/run-guide") && !l.trim_start().starts_with('#'))
            .filter(|l| !l.trim_start().starts_with("step "))
            .count(),
        1,
        ".ci/run calls scripts/run-guide once"
    );
    let mut problems = Vec::new();
    let mut found = BTreeSet::new();
    let (mut run, mut marked) = (0, 0);
    for file in guide_files() {
        let text = fs::read_to_string(&file).expect("readable");
        let name = relative(&file);
        for b in sh_blocks(&text) {
            found.insert(format!("{name}:{}", b.line));
            let at = format!("{name}:{}", b.line);
            if let Some(step) = b.info.strip_prefix("ci=") {
                marked += 1;
                if !steps.iter().any(|s| s.starts_with(step)) {
                    problems.push(format!("{at}: ci={step}, but .ci/run has no such step"));
                }
                continue;
            }
            if !(b.info.is_empty() || b.info == "needs=shared-data") {
                problems.push(format!("{at}: unknown fence info `{}`", b.info));
            }
            run += 1;
            // run-guide runs the block with the release binary only: cargo
            // and pip need a CI step of their own.
            for line in b.body.lines() {
                let first = line.split_whitespace().next().unwrap_or("");
                if ["cargo", "pip", "pip3", "python", "python3"].contains(&first) {
                    problems.push(format!(
                        "{at}: `{line}` needs a ci=STEP mark (run-guide runs tenantsim only)"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        run >= 15 && marked >= 3,
        "{run} blocks run, {marked} marked"
    );

    // scripts/run-guide --list sees exactly these blocks.
    let out = Command::new(repo("scripts/run-guide"))
        .arg("--list")
        .output()
        .expect("scripts/run-guide runs (bash, awk, git)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split('\t').next())
        .map(str::to_string)
        .collect();
    assert_eq!(listed, found, "run-guide --list and this parser disagree");
}

/// GitHub's anchor of a heading: lower case, punctuation dropped but `-`
/// and `_`, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (outside code fences).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fence = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if !fence && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the inline links `](target)` of a markdown text, outside
/// code fences.
fn link_targets(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(j) = rest.find(')') {
                out.push(rest[..j].to_string());
                rest = &rest[j..];
            }
        }
    }
    out
}

#[test]
fn links_of_the_readme_reference_and_guide_point_at_files_and_headings_that_exist() {
    let mut files = guide_files();
    files.push(repo("docs/REFERENCE.md"));
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = fs::read_to_string(file).expect("readable");
        let dir = file.parent().expect("a folder");
        for target in link_targets(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !resolved.exists() {
                broken.push(format!("{}: `{target}`: no such file", relative(file)));
                continue;
            }
            if let Some(anchor) = anchor {
                let heads = anchors(&fs::read_to_string(&resolved).expect("readable"));
                if !heads.contains(anchor) {
                    broken.push(format!("{}: `{target}`: no such heading", relative(file)));
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} links found");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn reference_documents_every_subcommand_of_help() {
    let out = tenantsim().arg("--help").output().expect("runs");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let reference = fs::read_to_string(repo("docs/REFERENCE.md")).expect("docs/REFERENCE.md");
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A command's line; its wrapped description is indented further.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 13, "{commands:?}");
    for c in commands {
        assert!(
            reference.contains(&format!("`tenantsim {c} ")),
            "docs/REFERENCE.md does not document `tenantsim {c}`"
        );
    }
}
