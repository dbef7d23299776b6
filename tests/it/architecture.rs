//! The dependency rule between top-level modules (issue 15), checked on the
//! source text: `cli → {models, jobs, plot} → core`, `models` and `jobs`
//! never import each other, `plot` imports only `core`, no cycle between
//! top-level modules, and only `src/cli/` (and `src/main.rs`) names `clap`.
//!
//! The checker reads every `.rs` file under `src/`, blanks out comments
//! (line, doc and nested block comments), string, byte-string, raw-string
//! and char literals (keeping line breaks, so line numbers stay right), and
//! finds the paths that leave a file's top-level module:
//! - `crate::X…` and `$crate::X…` (also `crate::{X…, Y…}` groups);
//! - `super::` chains that climb out of the top-level module, counting
//!   inline `mod name { … }` blocks as one level each;
//! - `tenantsim::X…` in `src/main.rs` (the binary sees the library by name).
//!
//! The nodes are the entries of `src/` (a new folder or file there is a new
//! node automatically), plus `main` (`src/main.rs`) and `lib` (`src/lib.rs`,
//! the crate root: a path such as `crate::Error` that names no module is an
//! edge to `lib`). Every edge must be in [`ALLOWED`]; a new module needs a
//! line there, which is the point.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// The allowed edges `from → to` between top-level modules. Anything else
/// fails the test.
const ALLOWED: &[(&str, &str)] = &[
    ("main", "cli"),
    ("main", "registry"),
    ("lib", "core"),
    // The registry joins both modes' policies; `run` runs a scenario with
    // a registry (the library entry point); the prelude re-exports what a
    // policy author needs, and the cli turns arguments into `run`'s
    // options. Neither `run` nor the prelude imports the cli.
    ("registry", "models"),
    ("registry", "jobs"),
    ("registry", "core"),
    ("run", "registry"),
    ("run", "models"),
    ("run", "jobs"),
    ("run", "present"),
    ("run", "core"),
    ("prelude", "run"),
    ("prelude", "registry"),
    ("prelude", "models"),
    ("prelude", "jobs"),
    ("prelude", "core"),
    ("cli", "run"),
    ("cli", "registry"),
    ("cli", "models"),
    ("cli", "jobs"),
    ("cli", "present"),
    ("cli", "core"),
    // Shared-cluster mode is a room above both modes (it composes them);
    // neither mode imports it.
    ("shared", "models"),
    ("shared", "jobs"),
    ("shared", "present"),
    ("shared", "core"),
    ("run", "shared"),
    ("registry", "shared"),
    ("prelude", "shared"),
    ("cli", "shared"),
    // Workflows (issue 30): their traces, cache and policies know only
    // core; the shared engine runs them, run and the cli load and write
    // them.
    ("workflows", "core"),
    ("shared", "workflows"),
    ("run", "workflows"),
    ("cli", "workflows"),
    // Their cache eviction and parallelisation rules are registry entries
    // (DESIGN §14.8), re-exported for a policy author.
    ("registry", "workflows"),
    ("prelude", "workflows"),
    ("models", "core"),
    ("jobs", "core"),
    ("present", "core"),
];

/// Files that may name `clap`: the command line and the binary.
fn may_name_clap(path: &str) -> bool {
    path.starts_with("src/cli/") || path == "src/main.rs"
}

#[test]
fn top_level_modules_follow_the_dependency_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    read_sources(root, &root.join("src"), &mut files);
    assert!(
        files.iter().any(|(p, _)| p == "src/lib.rs") && files.len() > 20,
        "expected the crate's sources under {}, found {} files",
        root.join("src").display(),
        files.len()
    );
    let graph = Graph::from_sources(&files);
    for module in ["core", "models", "jobs", "present", "cli"] {
        assert!(
            graph.nodes.contains(module),
            "top-level module `{module}` not found: {:?}",
            graph.nodes
        );
    }
    // The checker sees the real dependencies, not an empty graph.
    assert!(graph.edges.contains_key(&("cli".into(), "models".into())));
    assert!(graph.edges.contains_key(&("models".into(), "core".into())));
    let problems = graph.problems(ALLOWED, &[]);
    assert!(
        problems.is_empty(),
        "the module dependency rule (issue 15, issue 28: cli → run → {{models, jobs, present}} → core) is broken:\n{}",
        problems.join("\n")
    );
}

/// The checker on a few in-memory files: a forbidden edge, a cycle, a
/// `super::` chain out of a module, comments and strings that must not
/// count, and `clap` outside the cli.
#[test]
fn checker_finds_forbidden_edges_cycles_and_clap_but_not_comments() {
    let files: Vec<(String, String)> = [
        (
            "src/core/mod.rs",
            "//! Uses crate::models::x in a doc comment.\n\
             // crate::jobs in a line comment\n\
             /* crate::cli /* nested crate::present::figures */ still a comment crate::models */\n\
             const S: &str = \"crate::models::y and clap\";\n\
             const R: &str = r#\"crate::jobs \"quoted\" \"#;\n\
             const C: char = '\"'; fn f<'a>(x: &'a str) -> &'a str { x }\n\
             pub mod inner;\n",
        ),
        (
            "src/core/inner.rs",
            "use super::super::present::Chart;\nuse super::Other;\n",
        ),
        (
            "src/present/figures/mod.rs",
            "use crate::core::error::Result;\n",
        ),
        (
            "src/models/mod.rs",
            "use crate::core::x;\n\nuse crate::jobs::Job;\n",
        ),
        (
            "src/models/a.rs",
            "#[derive(clap::Args)]\nstruct A;\n\
             mod tests {\n    use super::super::b;\n}\n\
             use super::super::core::y;\n",
        ),
        (
            "src/jobs/mod.rs",
            "use crate::{\n    core::e,\n    models::{M, N},\n};\n",
        ),
        (
            "src/cli/mod.rs",
            "use clap::Parser;\nuse crate::models::M;\n",
        ),
        (
            "src/main.rs",
            "use tenantsim::cli::Cli;\nuse clap::Parser;\n",
        ),
        ("src/lib.rs", "pub mod core;\npub use crate::core::Error;\n"),
        (
            "src/fresh.rs",
            "pub(crate) fn f() -> crate::Error { todo!() }\n",
        ),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let graph = Graph::from_sources(&files);
    assert_eq!(
        graph.nodes,
        [
            "cli", "core", "fresh", "jobs", "lib", "main", "models", "present"
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<BTreeSet<_>>()
    );
    let edges: Vec<(String, String, Vec<String>)> = graph
        .edges
        .iter()
        .map(|((a, b), locs)| {
            let at = locs.iter().map(|l| format!("{}:{}", l.file, l.line));
            (a.clone(), b.clone(), at.collect())
        })
        .collect();
    let want = |a: &str, b: &str, at: &[&str]| {
        (
            a.to_string(),
            b.to_string(),
            at.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    // Nothing from core/mod.rs's comments and literals; the inline `mod
    // tests` keeps `super::super::b` inside models.
    assert_eq!(
        edges,
        [
            want("cli", "models", &["src/cli/mod.rs:2"]),
            want("core", "present", &["src/core/inner.rs:1"]),
            want("fresh", "lib", &["src/fresh.rs:1"]),
            want("jobs", "core", &["src/jobs/mod.rs:2"]),
            want("jobs", "models", &["src/jobs/mod.rs:3"]),
            want("lib", "core", &["src/lib.rs:2"]),
            want("main", "cli", &["src/main.rs:1"]),
            want(
                "models",
                "core",
                &["src/models/a.rs:6", "src/models/mod.rs:1"]
            ),
            want("models", "jobs", &["src/models/mod.rs:3"]),
            want("present", "core", &["src/present/figures/mod.rs:1"]),
        ]
    );
    let clap: Vec<String> = graph
        .clap
        .iter()
        .map(|l| format!("{}:{}", l.file, l.line))
        .collect();
    assert_eq!(
        clap,
        ["src/cli/mod.rs:1", "src/main.rs:2", "src/models/a.rs:1"]
    );

    let problems = graph.problems(ALLOWED, &[("present", "models")]);
    let text = problems.join("\n");
    for needle in [
        "forbidden dependency core → present:\n  src/core/inner.rs:1: super::super::present",
        "forbidden dependency models → jobs:\n  src/models/mod.rs:3: crate::jobs",
        "forbidden dependency jobs → models:\n  src/jobs/mod.rs:3: crate::models",
        "forbidden dependency fresh → lib:\n  src/fresh.rs:1: crate::Error",
        "module cycle: jobs → models → jobs\n  jobs → models: src/jobs/mod.rs:3: crate::models",
        "module cycle: core → present → core",
        "`clap` outside src/cli/:\n  src/models/a.rs:1",
        "the tolerated edges list present → models, which no longer exists",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    assert_eq!(problems.len(), 8, "{text}");
    assert!(!text.contains("src/core/mod.rs"), "{text}");

    // A tolerated edge is not reported, but the cycle it closes still is.
    let known = [("models", "jobs"), ("jobs", "models")];
    let text = graph.problems(ALLOWED, &known).join("\n");
    assert!(
        !text.contains("forbidden dependency models → jobs"),
        "{text}"
    );
    assert!(
        text.contains("module cycle: jobs → models → jobs"),
        "{text}"
    );
}

#[test]
fn stripping_keeps_lines_and_code() {
    let text =
        "a /* x\n y */ b // c\n\"s\\\"\n\" 'q' b\"z\" br##\"w\"#\"## r#type\nlet c = '\\'';\n";
    let stripped = strip(text);
    assert_eq!(stripped.lines().count(), text.lines().count());
    let words: Vec<&str> = stripped.split_whitespace().collect();
    assert_eq!(words, ["a", "b", "r#type", "let", "c", "=", ";"]);
}

/// One reference: where, and the path as written.
#[derive(Debug, Clone)]
struct Loc {
    file: String,
    line: usize,
    path: String,
}

/// Top-level modules and the references between them.
#[derive(Debug, Default)]
struct Graph {
    nodes: BTreeSet<String>,
    edges: BTreeMap<(String, String), Vec<Loc>>,
    /// Every place a file names `clap` ([`may_name_clap`] filters them).
    clap: Vec<Loc>,
}

impl Graph {
    /// `files`: (path relative to the crate, e.g. `src/core/mod.rs`, text).
    fn from_sources(files: &[(String, String)]) -> Self {
        let mut g = Graph::default();
        for (path, _) in files {
            if let Some(node) = node_of(path) {
                g.nodes.insert(node);
            }
        }
        let modules: BTreeSet<String> = g
            .nodes
            .iter()
            .filter(|n| *n != "lib" && *n != "main")
            .cloned()
            .collect();
        for (path, text) in files {
            let Some(node) = node_of(path) else { continue };
            let tokens = tokens(&strip(text));
            for r in references(path, &tokens) {
                let target = if modules.contains(&r.first) {
                    r.first.clone()
                } else {
                    "lib".to_string()
                };
                if target != node {
                    let loc = Loc {
                        file: path.clone(),
                        line: r.line,
                        path: r.written,
                    };
                    g.edges.entry((node.clone(), target)).or_default().push(loc);
                }
            }
            for t in &tokens {
                if t.text == "clap" {
                    let loc = Loc {
                        file: path.clone(),
                        line: t.line,
                        path: "clap".into(),
                    };
                    g.clap.push(loc);
                }
            }
        }
        g.clap
            .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        for locs in g.edges.values_mut() {
            locs.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
            locs.dedup_by(|a, b| a.file == b.file && a.line == b.line);
        }
        g
    }

    /// Everything wrong, one message per problem, naming files and lines.
    /// `known` lists edges tolerated for a migration (none today); an entry
    /// whose edge no longer exists is itself a problem.
    fn problems(&self, allowed: &[(&str, &str)], known: &[(&str, &str)]) -> Vec<String> {
        let listed = |list: &[(&str, &str)], a: &str, b: &str| list.contains(&(a, b));
        let mut out = Vec::new();
        for ((a, b), locs) in &self.edges {
            if listed(allowed, a, b) || listed(known, a, b) {
                continue;
            }
            let mut m = format!("forbidden dependency {a} → {b}:");
            for l in locs {
                let _ = write!(m, "\n  {}:{}: {}", l.file, l.line, l.path);
            }
            out.push(m);
        }
        for cycle in self.cycles() {
            let mut m = format!("module cycle: {}", cycle.join(" → "));
            for pair in cycle.windows(2) {
                let l = &self.edges[&(pair[0].clone(), pair[1].clone())][0];
                let _ = write!(
                    m,
                    "\n  {} → {}: {}:{}: {}",
                    pair[0], pair[1], l.file, l.line, l.path
                );
            }
            out.push(m);
        }
        let outside: Vec<&Loc> = self
            .clap
            .iter()
            .filter(|l| !may_name_clap(&l.file))
            .collect();
        if !outside.is_empty() {
            let mut m = "`clap` outside src/cli/:".to_string();
            for l in outside {
                let _ = write!(m, "\n  {}:{}", l.file, l.line);
            }
            out.push(m);
        }
        for (a, b) in known {
            if !self.edges.contains_key(&(a.to_string(), b.to_string())) {
                out.push(format!(
                    "the tolerated edges list {a} → {b}, which no longer exists: remove the entry"
                ));
            }
        }
        out
    }

    /// One cycle per back edge of a depth-first search, each starting at
    /// its smallest node (so a cycle is reported once, the same way).
    fn cycles(&self) -> Vec<Vec<String>> {
        let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in self.edges.keys() {
            next.entry(a).or_default().push(b);
        }
        let mut found = BTreeSet::new();
        let mut done = BTreeSet::new();
        for start in &self.nodes {
            let mut stack = Vec::new();
            self.visit(start, &next, &mut stack, &mut done, &mut found);
        }
        found.into_iter().collect()
    }

    fn visit<'a>(
        &self,
        node: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        found: &mut BTreeSet<Vec<String>>,
    ) {
        if let Some(i) = stack.iter().position(|&n| n == node) {
            let mut cycle: Vec<String> = stack[i..].iter().map(|s| s.to_string()).collect();
            let min = (0..cycle.len()).min_by_key(|&k| &cycle[k]).unwrap_or(0);
            cycle.rotate_left(min);
            cycle.push(cycle[0].clone());
            found.insert(cycle);
            return;
        }
        if done.contains(node) {
            return;
        }
        stack.push(node);
        for &n in next.get(node).map(Vec::as_slice).unwrap_or(&[]) {
            self.visit(n, next, stack, done, found);
        }
        stack.pop();
        done.insert(node);
    }
}

/// The top-level module a file belongs to: `src/X/…` or `src/X.rs` → `X`;
/// `src/lib.rs` → `lib`, `src/main.rs` → `main`.
fn node_of(path: &str) -> Option<String> {
    let rest = path.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first).to_string())
}

/// The module path of a file: `src/models/trace/mod.rs` → `[models,
/// trace]`, `src/models/bench.rs` → `[models, bench]`, `src/lib.rs` → `[]`.
fn module_path(path: &str) -> Vec<String> {
    let rest = path.strip_prefix("src/").unwrap_or(path);
    let rest = rest.strip_suffix(".rs").unwrap_or(rest);
    let mut parts: Vec<String> = rest.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// A path that leaves the crate root: its first segment after the root,
/// the line, and the path as written.
#[derive(Debug)]
struct Reference {
    first: String,
    line: usize,
    written: String,
}

#[derive(Debug, Clone)]
struct Token {
    text: String,
    line: usize,
}

/// Identifiers (with `$` and `r#` prefixes kept), `::` and single
/// punctuation characters, with their line numbers.
fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else if is_ident(c) || (c == '$' && chars.get(i + 1).is_some_and(|&d| is_ident(d))) {
            let start = i;
            i += 1;
            while i < chars.len() && (is_ident(chars[i]) || chars[i] == '#') {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths in `tokens` that leave the top-level module of `path`.
fn references(path: &str, tokens: &[Token]) -> Vec<Reference> {
    let file_module = module_path(path);
    let is_main = path == "src/main.rs";
    let mut inline: Vec<(String, usize)> = Vec::new(); // (name, brace depth inside)
    let mut depth = 0usize;
    let mut out = Vec::new();
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        match t.text.as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if text(i + 2) == "{" => {
                inline.push((text(i + 1).to_string(), depth + 1));
            }
            _ => {}
        }
        let after_path = i > 0 && text(i - 1) == "::";
        let root = match t.text.as_str() {
            "crate" | "$crate" if !after_path && text(i + 1) == "::" => {
                Some((i + 2, t.text.clone()))
            }
            "tenantsim" if is_main && !after_path && text(i + 1) == "::" => {
                Some((i + 2, t.text.clone()))
            }
            "super" if !after_path && text(i + 1) == "::" => {
                let mut up = 0;
                let mut j = i;
                while text(j) == "super" && text(j + 1) == "::" {
                    up += 1;
                    j += 2;
                }
                let here = file_module.len() + inline.len();
                let written = vec!["super"; up].join("::");
                // Only a chain that climbs to the crate root leaves the
                // top-level module.
                (up == here).then_some((j, written))
            }
            _ => None,
        };
        if let Some((j, written)) = root {
            for (first, line) in first_segments(tokens, j) {
                out.push(Reference {
                    written: format!("{written}::{first}"),
                    first,
                    line,
                });
            }
        }
        i += 1;
    }
    out
}

/// The first segment(s) of the path continuing at `tokens[j]`: one
/// identifier, or the first identifier of each item of a `{…}` group.
fn first_segments(tokens: &[Token], j: usize) -> Vec<(String, usize)> {
    let Some(t) = tokens.get(j) else {
        return Vec::new();
    };
    if t.text != "{" {
        let ident = t.text.chars().next().is_some_and(is_ident);
        return if ident && t.text != "self" {
            vec![(t.text.clone(), t.line)]
        } else {
            Vec::new()
        };
    }
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut expect_item = true;
    for t in &tokens[j..] {
        match t.text.as_str() {
            "{" => {
                level += 1;
                if level > 1 {
                    expect_item = false;
                }
            }
            "}" => {
                level -= 1;
                if level == 0 {
                    break;
                }
            }
            "," if level == 1 => expect_item = true,
            s if expect_item && level == 1 => {
                if s.chars().next().is_some_and(is_ident) && s != "self" {
                    out.push((s.to_string(), t.line));
                }
                expect_item = false;
            }
            _ => {}
        }
    }
    out
}

/// `code` with comments and string / char literals replaced by spaces;
/// line breaks are kept, so line numbers do not move.
fn strip(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let blank = |out: &mut String, s: &[char]| {
        for &ch in s {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
    };
    let prev_ident = |i: usize| i > 0 && (is_ident(c[i - 1]) || c[i - 1] == '#');
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(i + k).copied();
        // Line comment (also `///` and `//!`).
        if c[i] == '/' && at(1) == Some('/') {
            let end = c[i..]
                .iter()
                .position(|&x| x == '\n')
                .map_or(c.len(), |p| i + p);
            blank(&mut out, &c[i..end]);
            i = end;
            continue;
        }
        // Block comment, nested.
        if c[i] == '/' && at(1) == Some('*') {
            let mut level = 0;
            let mut j = i;
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    level += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    level -= 1;
                    j += 2;
                    if level == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            let j = j.min(c.len());
            blank(&mut out, &c[i..j]);
            i = j;
            continue;
        }
        // Raw strings r"…", r#"…"#, br"…".
        let raw_start = if !prev_ident(i) && c[i] == 'r' {
            Some(i + 1)
        } else if !prev_ident(i) && c[i] == 'b' && at(1) == Some('r') {
            Some(i + 2)
        } else {
            None
        };
        if let Some(mut j) = raw_start {
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) == Some(&'"') {
                j += 1;
                while j < c.len() {
                    if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                let j = j.min(c.len());
                blank(&mut out, &c[i..j]);
                i = j;
                continue;
            }
        }
        // Strings "…" and b"…".
        let quote = if c[i] == '"' {
            Some(i)
        } else if c[i] == 'b' && !prev_ident(i) && at(1) == Some('"') {
            Some(i + 1)
        } else {
            None
        };
        if let Some(q) = quote {
            let mut j = q + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(c.len());
            blank(&mut out, &c[i..j]);
            i = j;
            continue;
        }
        // Char literals '…' (b'…'); a lifetime `'a` stays.
        if c[i] == '\'' {
            let end = if at(1) == Some('\\') {
                // Skip the escaped character itself (`'\''`).
                let from = (i + 3).min(c.len());
                c[from..]
                    .iter()
                    .position(|&x| x == '\'')
                    .map(|p| from + p + 1)
            } else if at(2) == Some('\'') {
                Some(i + 3)
            } else {
                None
            };
            if let Some(end) = end {
                blank(&mut out, &c[i..end]);
                i = end;
                continue;
            }
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// Every `.rs` file under `dir`, as (path relative to `root` with `/`,
/// text), in sorted order.
fn read_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_sources(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let rel = p
                .strip_prefix(root)
                .expect("under the crate")
                .to_string_lossy();
            out.push((rel.replace('\\', "/"), text));
        }
    }
}

// ---------------------------------------------------------------------------
// Rooms and file circles (issue 28)
// ---------------------------------------------------------------------------

/// The rooms of `src/core/` by layer: a file of a room may import files of
/// its own room and of lower layers only. The shared basics (every entry of
/// `src/core/` that is not listed here: error, interrupt, named, params,
/// choice, limits, testing) are layer 0 and import only each other.
const CORE_ROOMS: &[(&str, u8)] = &[
    // The simulation kernel knows no file format and no orchestration.
    ("sim", 1),
    // Input/output and formats may use simulated time.
    ("io", 2),
    // Statistics and checks read results folders.
    ("analysis", 3),
    // Orchestration uses everything.
    ("run", 4),
];

/// Rooms outside core with a fixed set of siblings they may import:
/// (folder under `src/`, room, the entries of the same folder it may
/// import). Its mod.rs says so in one line.
const SIBLING_RULES: &[(&str, &str, &[&str])] = &[
    // The figures know neither the report nor the tables (both read them).
    ("present", "figures", &[]),
    // The multi-fidelity selectors import the policy API, not the other
    // selectors nor the selector folder's door.
    ("models/policy/selector", "multi_fidelity", &[]),
];

/// Circles between the files of one folder that are tolerated for a
/// migration, as the check reports them: (folder under `src/`, circle).
/// None today (issue 28 broke the last ones: the policy registries, the
/// command line, `run/`, the importers and job mode's simulation). An entry
/// whose circle is no longer found is itself a problem, so the list only
/// shrinks; a new circle anywhere fails.
const TOLERATED_FILE_CIRCLES: &[(&str, &str)] = &[];

/// The files of the crate and the references between them, resolved to
/// the file each one lands in.
///
/// The rule, precisely:
/// - **Nodes.** Inside a folder `F` of `src/`, the nodes are `F`'s entries:
///   each file `F/x.rs` is node `x`, each sub-folder `F/d/` is one node `d`
///   (everything under it), and `F/mod.rs` (for `src/`: `lib.rs`) is node
///   `mod` (`lib`); `src/main.rs` is node `main`.
/// - **References.** A path that starts at `crate::`, `$crate::`,
///   `super::` (any depth, counting inline `mod name { … }` blocks),
///   `self::`, at a child module the file declares (`mod x;` then
///   `x::…`, as a `mod.rs` does), or `tenantsim::` in `src/main.rs`;
///   `{…}` groups are expanded. Comments and literals do not count;
///   `#[cfg(test)]` code counts like any other.
/// - **Resolution.** A path lands in the longest prefix that is a module
///   file; if its next segment is a name that file re-exports
///   (`pub use …` or `pub(…) use …`, also with `as`), it follows the
///   re-export to its source, and so on. So `super::Figure` from a sibling
///   of a `mod.rs` that says `pub use canvas::Figure` is an edge to
///   `canvas`, not to `mod`.
/// - **Re-exports and declarations are not edges.** `mod x;` and
///   `pub use x::Y` only open a door; whoever uses the name through the
///   door depends on its source. A private `use` in `mod.rs` is an edge of
///   `mod` like in any other file.
/// - **Edges.** A reference from file A landing in file T is, in every
///   folder `F` holding both, an edge from A's node in `F` to T's node in
///   `F` when they differ. No folder may have a circle of edges
///   ([`TOLERATED_FILE_CIRCLES`] aside), inside `src/core/` the edges
///   follow [`CORE_ROOMS`], and a room of [`SIBLING_RULES`] imports only
///   the siblings listed there.
#[derive(Debug, Default)]
struct Files {
    /// Module path of each file (`src/core/io/mod.rs` → `[core, io]`,
    /// `src/main.rs` → `[main]`) → the file.
    modules: BTreeMap<Vec<String>, String>,
    /// Per module: re-exported name → the absolute path it re-exports.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// (from module, to module, where) for every resolved reference.
    references: Vec<(Vec<String>, Vec<String>, Loc)>,
    /// Module paths that are folders (have a `mod.rs`, or are `src/`).
    folders: BTreeSet<Vec<String>>,
}

impl Files {
    fn from_sources(files: &[(String, String)]) -> Self {
        let mut f = Files::default();
        f.folders.insert(Vec::new());
        let mut parsed = Vec::new();
        for (path, text) in files {
            let module = file_module(path);
            if path.ends_with("/mod.rs") {
                f.folders.insert(module.clone());
            }
            f.modules.insert(module.clone(), path.clone());
            parsed.push((path, module, tokens(&strip(text))));
        }
        let mut uses = Vec::new();
        for (path, module, tokens) in &parsed {
            for (abs, reexport, line, written) in absolute_paths(path, module, tokens) {
                if let Some(name) = reexport {
                    f.reexports
                        .entry(module.clone())
                        .or_default()
                        .insert(name, abs);
                } else {
                    let loc = Loc {
                        file: path.to_string(),
                        line,
                        path: written,
                    };
                    uses.push((module.clone(), abs, loc));
                }
            }
        }
        for (from, abs, loc) in uses {
            if let Some(to) = f.resolve(&abs) {
                f.references.push((from, to, loc));
            }
        }
        f
    }

    /// The module file `abs` lands in, through re-exports.
    fn resolve(&self, abs: &[String]) -> Option<Vec<String>> {
        let mut path = abs.to_vec();
        for _ in 0..16 {
            let n = (0..=path.len())
                .rev()
                .find(|&n| self.modules.contains_key(&path[..n]))?;
            let module = path[..n].to_vec();
            let next = path.get(n);
            match next.and_then(|name| self.reexports.get(&module)?.get(name)) {
                Some(source) if source.as_slice() != path.as_slice() => {
                    let mut p = source.clone();
                    p.extend_from_slice(&path[n + 1..]);
                    path = p;
                }
                _ => return Some(module),
            }
        }
        None
    }

    /// The node of module `m` inside folder `folder`, if `m` is in it.
    fn node_in(&self, folder: &[String], m: &[String]) -> Option<String> {
        if m.first().is_some_and(|s| s == "main") {
            return folder.is_empty().then(|| "main".to_string());
        }
        if !m.starts_with(folder) {
            return None;
        }
        Some(match m.get(folder.len()) {
            Some(s) => s.clone(),
            None if folder.is_empty() => "lib".to_string(),
            None => "mod".to_string(),
        })
    }

    /// The edges between the nodes of each folder: folder → graph.
    fn folder_graphs(&self) -> BTreeMap<Vec<String>, Graph> {
        let mut out: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
        for folder in &self.folders {
            let g = out.entry(folder.clone()).or_default();
            for m in self.modules.keys() {
                if let Some(n) = self.node_in(folder, m) {
                    g.nodes.insert(n);
                }
            }
            for (from, to, loc) in &self.references {
                let (Some(a), Some(b)) = (self.node_in(folder, from), self.node_in(folder, to))
                else {
                    continue;
                };
                if a != b {
                    g.edges.entry((a, b)).or_default().push(loc.clone());
                }
            }
            for locs in g.edges.values_mut() {
                locs.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
                locs.dedup_by(|a, b| a.file == b.file && a.line == b.line);
            }
        }
        out
    }

    /// Every broken rule: circles inside a folder (less the tolerated
    /// ones), room order inside `core`, and tolerated circles that are gone.
    fn problems(&self, rooms: &[(&str, u8)], tolerated: &[(&str, &str)]) -> Vec<String> {
        self.problems_with(rooms, SIBLING_RULES, tolerated)
    }

    /// [`Files::problems`] with the sibling rules given.
    fn problems_with(
        &self,
        rooms: &[(&str, u8)],
        siblings: &[(&str, &str, &[&str])],
        tolerated: &[(&str, &str)],
    ) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for (folder, g) in &self.folder_graphs() {
            let name = folder.join("/");
            for cycle in g.cycles() {
                let circle = cycle.join(" → ");
                if tolerated.contains(&(name.as_str(), circle.as_str())) {
                    seen.insert((name.clone(), circle));
                    continue;
                }
                let mut m = format!("file circle in src/{name}: {circle}");
                for pair in cycle.windows(2) {
                    let l = &g.edges[&(pair[0].clone(), pair[1].clone())][0];
                    let _ = write!(
                        m,
                        "\n  {} → {}: {}:{}: {}",
                        pair[0], pair[1], l.file, l.line, l.path
                    );
                }
                out.push(m);
            }
            for ((a, b), locs) in &g.edges {
                let broken = siblings
                    .iter()
                    .any(|(f, room, may)| *f == name && room == a && !may.contains(&b.as_str()));
                if broken {
                    let mut m = format!("room rule of src/{name}/ broken: {a} imports {b}:");
                    for l in locs {
                        let _ = write!(m, "\n  {}:{}: {}", l.file, l.line, l.path);
                    }
                    out.push(m);
                }
            }
            if name == "core" {
                let layer = |n: &str| rooms.iter().find(|(r, _)| *r == n).map_or(0, |&(_, l)| l);
                for ((a, b), locs) in &g.edges {
                    let (la, lb) = (layer(a), layer(b));
                    if lb < la || (la == 0 && lb == 0) {
                        continue;
                    }
                    let mut m = format!(
                        "room rule of src/core/ broken: {a} (layer {la}) imports {b} (layer {lb}):"
                    );
                    for l in locs {
                        let _ = write!(m, "\n  {}:{}: {}", l.file, l.line, l.path);
                    }
                    out.push(m);
                }
            }
        }
        for (folder, circle) in tolerated {
            if !seen.contains(&(folder.to_string(), circle.to_string())) {
                out.push(format!(
                    "the tolerated circles list `{circle}` in src/{folder}, which no longer exists: remove the entry"
                ));
            }
        }
        out
    }
}

/// The module path of a file for [`Files`]: like [`module_path`], but
/// `src/main.rs` is `[main]` (a crate of its own, outside the library).
fn file_module(path: &str) -> Vec<String> {
    if path == "src/main.rs" {
        return vec!["main".to_string()];
    }
    module_path(path)
}

/// Every path in a file that starts at a root [`Files`] counts, made
/// absolute (segments after the crate root): (path, Some(name) when it is
/// a re-export under that name, line, the path as written).
fn absolute_paths(
    path: &str,
    module: &[String],
    tokens: &[Token],
) -> Vec<(Vec<String>, Option<String>, usize, String)> {
    let is_main = path == "src/main.rs";
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    // Child modules declared by this file: `mod x;`.
    let children: BTreeSet<&str> = (0..tokens.len())
        .filter(|&i| text(i) == "mod" && text(i + 2) == ";")
        .map(|i| text(i + 1))
        .collect();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    // Inside a `pub use` / `pub(…) use` statement: until its `;`.
    let mut in_reexport = false;
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = text(i);
        match t {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if text(i + 2) == "{" => inline.push((text(i + 1).to_string(), depth + 1)),
            ";" => in_reexport = false,
            "use" => {
                let prev = if i > 0 { text(i - 1) } else { "" };
                // `pub use` or `pub(crate) use` / `pub(super) use`.
                in_reexport = prev == "pub" || (prev == ")" && i >= 4 && text(i - 4) == "pub");
            }
            _ => {}
        }
        let after_path = i > 0 && text(i - 1) == "::";
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        let start: Option<(Vec<String>, usize, String)> = if after_path || text(i + 1) != "::" {
            None
        } else {
            match t {
                "crate" | "$crate" => Some((Vec::new(), i + 2, t.to_string())),
                "tenantsim" if is_main => Some((Vec::new(), i + 2, t.to_string())),
                "self" => Some((here.clone(), i + 2, "self".to_string())),
                "super" => {
                    let mut up = 0;
                    let mut j = i;
                    while text(j) == "super" && text(j + 1) == "::" {
                        up += 1;
                        j += 2;
                    }
                    let base = here[..here.len().saturating_sub(up)].to_vec();
                    Some((base, j, vec!["super"; up].join("::")))
                }
                c if inline.is_empty() && children.contains(c) => {
                    Some((here.clone(), i, String::new()))
                }
                _ => None,
            }
        };
        if let Some((base, j, written)) = start {
            for (tail, alias, line) in expand_path(tokens, j) {
                let mut abs = base.clone();
                abs.extend(tail.iter().cloned());
                let name = alias.or_else(|| tail.last().cloned());
                let shown = if written.is_empty() {
                    tail.join("::")
                } else {
                    format!("{written}::{}", tail.join("::"))
                };
                let reexport = if in_reexport { name } else { None };
                out.push((abs, reexport, line, shown));
            }
            // Skip what was expanded, so a group's items are not roots.
            i = path_end(tokens, j).max(i + 1) - 1;
        }
        i += 1;
    }
    out
}

/// The index just past the path continuing at `tokens[j]` (identifiers
/// joined by `::`, ending at an identifier or a `{…}` group).
fn path_end(tokens: &[Token], j: usize) -> usize {
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut k = j;
    loop {
        if text(k) == "{" {
            let mut level = 0usize;
            while k < tokens.len() {
                match text(k) {
                    "{" => level += 1,
                    "}" => {
                        level -= 1;
                        if level == 0 {
                            return k + 1;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            return k;
        }
        if !text(k).chars().next().is_some_and(is_ident) {
            return k;
        }
        if text(k + 1) == "::" {
            k += 2;
        } else {
            return k + 1;
        }
    }
}

/// The full paths of the path continuing at `tokens[j]`, groups expanded:
/// (segments, `as` alias, line). `self` in a group names the prefix.
fn expand_path(tokens: &[Token], j: usize) -> Vec<(Vec<String>, Option<String>, usize)> {
    let text = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut prefix = Vec::new();
    let mut i = j;
    let line = tokens.get(j).map_or(0, |t| t.line);
    loop {
        let t = text(i);
        if t == "{" {
            let mut out = Vec::new();
            let mut level = 0usize;
            let mut k = i;
            let mut item_start = true;
            while k < tokens.len() {
                match text(k) {
                    "{" => level += 1,
                    "}" => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    "," if level == 1 => item_start = true,
                    _ if item_start && level == 1 => {
                        item_start = false;
                        for (tail, alias, l) in expand_path(tokens, k) {
                            let mut p = prefix.clone();
                            if tail.first().is_some_and(|s| s == "self") {
                                p.extend(tail.into_iter().skip(1));
                            } else {
                                p.extend(tail);
                            }
                            out.push((p, alias, l));
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            return out;
        }
        if !t.chars().next().is_some_and(is_ident) {
            break;
        }
        prefix.push(t.to_string());
        if text(i + 1) == "::" {
            i += 2;
        } else {
            let alias = (text(i + 1) == "as").then(|| text(i + 2).to_string());
            return if prefix.is_empty() {
                Vec::new()
            } else {
                vec![(prefix, alias, line)]
            };
        }
    }
    if prefix.is_empty() {
        Vec::new()
    } else {
        vec![(prefix, None, line)]
    }
}

#[test]
fn no_file_circle_in_any_folder_and_core_rooms_keep_their_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    read_sources(root, &root.join("src"), &mut files);
    let f = Files::from_sources(&files);
    // The checker sees the real dependencies: the runner uses the cache,
    // a sibling inside core's orchestration room, and the runner's room
    // uses the kernel's.
    let graphs = f.folder_graphs();
    let run = graphs
        .get(&vec!["core".to_string(), "run".to_string()])
        .expect("src/core/run/ is a folder");
    assert!(run.edges.contains_key(&("runner".into(), "cache".into())));
    let core = graphs.get(&vec!["core".to_string()]).expect("src/core/");
    for room in ["sim", "io", "analysis", "run"] {
        assert!(core.nodes.contains(room), "room core/{room} not found");
    }
    assert!(core.edges.contains_key(&("run".into(), "io".into())));
    let present = graphs
        .get(&vec!["present".to_string()])
        .expect("src/present/");
    assert!(
        present
            .edges
            .contains_key(&("report".into(), "figures".into()))
    );
    assert!(
        present
            .edges
            .contains_key(&("table".into(), "figures".into()))
    );
    let selector: Vec<String> = ["models", "policy", "selector"].map(String::from).to_vec();
    assert!(
        graphs
            .get(&selector)
            .expect("src/models/policy/selector/")
            .nodes
            .contains("multi_fidelity")
    );
    let problems = f.problems(CORE_ROOMS, TOLERATED_FILE_CIRCLES);
    assert!(
        problems.is_empty(),
        "the rooms rule (issue 28: no circle between the files of a folder; core's rooms by layer) is broken:\n{}",
        problems.join("\n")
    );
}

/// The file-level checker on in-memory files: a door's re-export is no
/// edge and its users land in the source file; `super::` chains, `self::`,
/// child-module paths and groups resolve; a door that calls a child which
/// uses the door's own item is a circle; the room order inside core; a
/// tolerated circle that is gone is reported.
#[test]
fn file_checker_resolves_reexports_and_finds_circles_and_room_breaks() {
    let files: Vec<(String, String)> = [
        ("src/lib.rs", "pub mod core;\npub mod fig;\n"),
        (
            "src/core/mod.rs",
            "pub mod error;\npub mod io;\npub mod run;\npub mod sim;\n",
        ),
        ("src/core/error.rs", "pub struct Error;\n"),
        (
            "src/core/sim/mod.rs",
            "mod queue;\npub mod time;\npub use queue::{Queue as EventQueue, Item};\n",
        ),
        (
            "src/core/sim/queue.rs",
            "use super::time::Micros;\nuse crate::core::error::Error;\npub struct Queue;\n",
        ),
        (
            "src/core/sim/time.rs",
            "// A kernel file that reads a file: a room break.\n\
             use crate::core::io::read;\npub type Micros = u64;\n",
        ),
        (
            "src/core/io/mod.rs",
            "pub fn read() {}\nmod tests {\n    use super::super::sim::EventQueue;\n}\n",
        ),
        ("src/core/run/mod.rs", "pub mod runner;\npub mod cache;\n"),
        (
            "src/core/run/runner.rs",
            "use crate::core::{io::read, sim::{self, time::Micros}};\n\
             use super::cache::Cache;\n",
        ),
        (
            "src/core/run/cache.rs",
            "pub struct Cache;\nfn f() { self::g(); }\nfn g() {}\n",
        ),
        (
            "src/fig/mod.rs",
            "mod a;\nmod b;\npub use a::A;\npub struct Shared;\npub fn draw() { b::draw(); }\n",
        ),
        ("src/fig/a.rs", "pub struct A;\n"),
        (
            "src/fig/b.rs",
            "use super::{A, Shared};\npub fn draw() {}\n",
        ),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let f = Files::from_sources(&files);
    let graphs = f.folder_graphs();
    let edges = |folder: &[&str]| -> Vec<String> {
        let key: Vec<String> = folder.iter().map(|s| s.to_string()).collect();
        graphs[&key]
            .edges
            .iter()
            .map(|((a, b), locs)| {
                let at: Vec<String> = locs
                    .iter()
                    .map(|l| format!("{}:{}", l.file, l.line))
                    .collect();
                format!("{a} → {b} ({})", at.join(", "))
            })
            .collect()
    };
    // `sim/mod.rs` re-exports `queue::Queue as EventQueue`: io's test
    // lands in `queue` (not an edge inside sim/, since io is outside it).
    assert_eq!(
        edges(&["core", "sim"]),
        ["queue → time (src/core/sim/queue.rs:1)"]
    );
    // `use super::{A, Shared}`: A through the door's re-export to `a`,
    // Shared to the door itself; `mod a;` and `pub use a::A` are no edges
    // of the door, its call `b::draw()` is.
    assert_eq!(
        edges(&["fig"]),
        [
            "b → a (src/fig/b.rs:1)",
            "b → mod (src/fig/b.rs:1)",
            "mod → b (src/fig/mod.rs:5)",
        ]
    );
    assert_eq!(
        edges(&["core", "run"]),
        ["runner → cache (src/core/run/runner.rs:2)"]
    );
    assert_eq!(
        edges(&["core"]),
        [
            "io → sim (src/core/io/mod.rs:3)",
            "run → io (src/core/run/runner.rs:1)",
            "run → sim (src/core/run/runner.rs:1)",
            "sim → error (src/core/sim/queue.rs:2)",
            "sim → io (src/core/sim/time.rs:2)",
        ]
    );
    let rooms = [("sim", 1), ("io", 2), ("run", 4)];
    let problems = f.problems_with(&rooms, &[], &[("fig", "a → b → a")]);
    let text = problems.join("\n");
    for needle in [
        "file circle in src/fig: b → mod → b\n  b → mod: src/fig/b.rs:1: super::Shared\n  mod → b: src/fig/mod.rs:5: b::draw",
        "file circle in src/core: io → sim → io",
        "room rule of src/core/ broken: sim (layer 1) imports io (layer 2):\n  src/core/sim/time.rs:2: crate::core::io::read",
        "the tolerated circles list `a → b → a` in src/fig, which no longer exists",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    assert_eq!(problems.len(), 4, "{text}");
    // A sibling rule: `b` may import only `a`.
    let text = f
        .problems_with(&rooms, &[("fig", "b", &["a"])], &[("fig", "b → mod → b")])
        .join("\n");
    assert!(
        text.contains(
            "room rule of src/fig/ broken: b imports mod:\n  src/fig/b.rs:1: super::Shared"
        ),
        "{text}"
    );
    assert!(!text.contains("b imports a"), "{text}");
    // Tolerated, the circle is not reported.
    let text = f.problems(&rooms, &[("fig", "b → mod → b")]).join("\n");
    assert!(!text.contains("src/fig"), "{text}");
}
