//! `docs/ERRORS.md` stays complete and true: every variant of every error enum has an entry, no
//! entry names a variant that is gone, each entry's message is the variant's `#[error]` text,
//! every cited test function and trybuild case exists, every compile-fail case under `tests/ui`
//! is cited, and each derive entry's message appears in a cited case's pinned `.stderr`.
//!
//! The enum sources are read at compile time (`include_str!`, so a change to them rebuilds this
//! test); cited files are read at run time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CATALOGUE: &str = include_str!("../../docs/ERRORS.md");

/// (path, text, enums to read: `None` for every `pub enum` of the file).
const SOURCES: &[(&str, &str, Option<&[&str]>)] = &[
    (
        "gpudata/src/format/error.rs",
        include_str!("../../gpudata/src/format/error.rs"),
        None,
    ),
    (
        "gpudata/src/layout/error.rs",
        include_str!("../../gpudata/src/layout/error.rs"),
        None,
    ),
    (
        "gpudata/src/data/error.rs",
        include_str!("../../gpudata/src/data/error.rs"),
        None,
    ),
    (
        "gpudata/src/device/error.rs",
        include_str!("../../gpudata/src/device/error.rs"),
        None,
    ),
    (
        "gpudata/src/kernels/error.rs",
        include_str!("../../gpudata/src/kernels/error.rs"),
        None,
    ),
    (
        "gpudata/src/table/error.rs",
        include_str!("../../gpudata/src/table/error.rs"),
        None,
    ),
    (
        "gpudata/src/arrow/error.rs",
        include_str!("../../gpudata/src/arrow/error.rs"),
        None,
    ),
    (
        "gpudata/src/record/rows.rs",
        include_str!("../../gpudata/src/record/rows.rs"),
        Some(&["RowBytesError"]),
    ),
    (
        "gpudata/src/layout/rules.rs",
        include_str!("../../gpudata/src/layout/rules.rs"),
        Some(&["LayoutRuleError"]),
    ),
];

/// The `#[error]` text of a variant: a format string, `transparent`, or none (no `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Template {
    Text(String),
    Transparent,
    None,
}

/// `line` without string literals and `//` comments, for counting brackets.
fn code_only(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(s) = chars.next() {
                    match s {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

fn depth_change(line: &str) -> i32 {
    code_only(line)
        .chars()
        .map(|c| match c {
            '{' | '(' | '[' => 1,
            '}' | ')' | ']' => -1,
            _ => 0,
        })
        .sum()
}

/// The first string literal of `text`, unescaped (`\"`, `\\`, `\n`, and `\` line continuations).
fn first_string(text: &str) -> Option<String> {
    let start = text.find('"')? + 1;
    let mut out = String::new();
    let mut chars = text[start..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                '\n' => {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                }
                other => out.push(other),
            },
            other => out.push(other),
        }
    }
    None
}

fn is_variant_start(trimmed: &str) -> Option<&str> {
    let end = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(trimmed.len());
    let name = &trimmed[..end];
    let rest = trimmed[end..].trim_start();
    let starts_upper = name.starts_with(|c: char| c.is_ascii_uppercase());
    let follows = rest.is_empty() || rest.starts_with(['{', '(', ',']);
    (starts_upper && follows).then_some(name)
}

/// The variants of `enum_name` in `source`, in order, with their `#[error]` templates.
fn variants(source: &str, enum_name: &str) -> Vec<(String, Template)> {
    let lines: Vec<&str> = source.lines().collect();
    let header = format!("pub enum {enum_name} ");
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&header))
        .unwrap_or_else(|| panic!("`pub enum {enum_name}` not found"));
    let mut out = Vec::new();
    let mut depth = 0;
    let mut attribute: Option<String> = None;
    let mut template = Template::None;
    for line in &lines[start..] {
        let trimmed = line.trim();
        if let Some(text) = attribute.as_mut() {
            text.push('\n');
            text.push_str(line);
        } else if depth == 1 && !trimmed.starts_with("//") {
            if trimmed.starts_with("#[error(") {
                attribute = Some((*line).to_owned());
            } else if let Some(name) = is_variant_start(trimmed) {
                out.push((
                    name.to_owned(),
                    std::mem::replace(&mut template, Template::None),
                ));
            }
        }
        depth += depth_change(line);
        if depth == 1
            && let Some(text) = attribute.take()
        {
            template = match first_string(&text) {
                Some(s) => Template::Text(s),
                None if text.contains("transparent") => Template::Transparent,
                None => Template::None,
            };
        }
        if depth == 0 && code_only(line).contains('}') {
            break;
        }
    }
    out
}

/// Every `pub enum` declared in `source`.
fn enum_names(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub enum "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// One `###` entry of the catalogue.
#[derive(Debug, Default)]
struct Entry {
    heading: String,
    messages: Vec<String>,
    message_line: String,
    tests: Vec<String>,
    has_test_line: bool,
}

/// The text between the `` `` `` delimiters of a double-backtick code span.
fn double_span(text: &str) -> Option<String> {
    let start = text.find("`` ")? + 3;
    let end = text[start..].find(" ``")? + start;
    Some(text[start..end].to_owned())
}

/// The single-backtick code spans of `text`.
fn spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn entries(catalogue: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut in_messages = false;
    for line in catalogue.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            out.push(Entry {
                heading: heading.trim().to_owned(),
                ..Entry::default()
            });
            in_messages = false;
            continue;
        }
        let Some(entry) = out.last_mut() else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("- **Message:**") {
            entry.message_line = rest.to_owned();
            entry.messages.extend(double_span(rest));
            in_messages = false;
        } else if line.starts_with("- **Messages:**") {
            in_messages = true;
        } else if in_messages && line.starts_with("  - ") {
            entry.messages.extend(double_span(line));
        } else if let Some(rest) = line.strip_prefix("- **Test:**") {
            entry.has_test_line = true;
            entry.tests = spans(rest)
                .into_iter()
                .filter(|s| s.contains(".rs"))
                .collect();
            in_messages = false;
        } else if !line.starts_with("  ") {
            in_messages = false;
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Problems with one citation: `path.rs::function` or a trybuild case `tests/ui/.../case.rs`.
fn check_citation(citation: &str, problems: &mut Vec<String>, context: &str) {
    let (path, function) = match citation.split_once("::") {
        Some((path, function)) => (path, Some(function)),
        None => (citation, None),
    };
    let file = root().join(path);
    let Ok(text) = std::fs::read_to_string(&file) else {
        problems.push(format!("{context}: cited file `{path}` does not exist"));
        return;
    };
    match function {
        Some(function) => {
            let found = text.lines().any(|l| {
                let l = l.trim_start();
                ["fn ", "async fn ", "pub fn "].iter().any(|prefix| {
                    l.strip_prefix(prefix).is_some_and(|rest| {
                        rest.strip_prefix(function)
                            .is_some_and(|after| after.starts_with(['(', '<']))
                    })
                })
            });
            if !found {
                problems.push(format!("{context}: `{path}` has no function `{function}`"));
            }
        }
        None if path.starts_with("tests/ui/") => {
            if !file.with_extension("stderr").is_file() {
                problems.push(format!(
                    "{context}: trybuild case `{path}` has no `.stderr`"
                ));
            }
        }
        None => problems.push(format!(
            "{context}: `{citation}` names a file but no test function (`path.rs::name`)"
        )),
    }
}

/// The compile-fail cases under `tests/ui` (`fail/<category>/*.rs` and `errors/*.rs`).
fn ui_cases() -> BTreeSet<String> {
    fn rs_files(dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rs_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root()).unwrap();
                out.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    rs_files(&root().join("tests/ui/fail"), &mut out);
    rs_files(&root().join("tests/ui/errors"), &mut out);
    out
}

/// The longest run of `message` outside `{placeholders}`.
fn longest_literal(message: &str) -> &str {
    let mut best = "";
    let mut rest = message;
    loop {
        let (literal, after) = match rest.find('{') {
            Some(open) => (&rest[..open], Some(&rest[open..])),
            None => (rest, None),
        };
        if literal.len() > best.len() {
            best = literal;
        }
        match after.and_then(|a| a.find('}').map(|close| &a[close + 1..])) {
            Some(next) => rest = next,
            None => return best,
        }
    }
}

#[test]
fn every_error_has_a_catalogue_entry_with_an_existing_test() {
    let mut problems = Vec::new();
    let catalogue = entries(CATALOGUE);
    let by_heading: BTreeMap<&str, &Entry> = catalogue
        .iter()
        .map(|e| (e.heading.trim_matches('`'), e))
        .collect();

    // Every variant has an entry whose message is its `#[error]` text.
    let mut known: BTreeSet<String> = BTreeSet::new();
    let mut enums: BTreeSet<String> = BTreeSet::new();
    for (path, source, only) in SOURCES {
        let names: Vec<String> = match only {
            Some(names) => names.iter().map(|n| (*n).to_owned()).collect(),
            None => enum_names(source),
        };
        for enum_name in names {
            enums.insert(enum_name.clone());
            for (variant, template) in variants(source, &enum_name) {
                let key = format!("{enum_name}::{variant}");
                known.insert(key.clone());
                let Some(entry) = by_heading.get(key.as_str()) else {
                    problems.push(format!(
                        "`{key}` ({path}) has no entry in docs/ERRORS.md (add `### `{key}``)"
                    ));
                    continue;
                };
                match &template {
                    Template::Text(text) if entry.messages.first() != Some(text) => {
                        problems.push(format!(
                            "`{key}`: the catalogue's message {:?} is not the `#[error]` text {text:?}",
                            entry.messages.first()
                        ));
                    }
                    Template::Transparent if !entry.message_line.contains("transparent") => {
                        problems.push(format!(
                            "`{key}` is `#[error(transparent)]`: its entry should say so"
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(
        known.len() > 150,
        "the enum parser found only {} variants",
        known.len()
    );

    // Every entry names a live variant (or a compile error), and cites tests that exist.
    let mut cited_cases = BTreeSet::new();
    for entry in &catalogue {
        let name = entry.heading.trim_matches('`');
        let compile_error = name.starts_with("derive: ") || name.starts_with("ownership: ");
        if !compile_error {
            let enum_name = name.split("::").next().unwrap_or_default();
            if !enums.contains(enum_name) {
                problems.push(format!(
                    "entry `{name}` names no error enum (headings are `Enum::Variant`, `derive: ...` or `ownership: ...`)"
                ));
            } else if !known.contains(name) {
                problems.push(format!(
                    "entry `{name}` names a variant that no longer exists"
                ));
            }
        }
        if !entry.has_test_line || entry.tests.is_empty() {
            problems.push(format!(
                "entry `{name}` cites no test (`- **Test:** `path.rs::name``)"
            ));
        }
        if entry.messages.is_empty() && !entry.message_line.contains("transparent") {
            problems.push(format!("entry `{name}` has no message"));
        }
        for citation in &entry.tests {
            check_citation(citation, &mut problems, &format!("entry `{name}`"));
            if citation.starts_with("tests/ui/") && !citation.contains("::") {
                cited_cases.insert(citation.clone());
            }
        }
        // A compile error's message appears in the output pinned for one of its cases.
        if compile_error {
            let stderr: Vec<String> = entry
                .tests
                .iter()
                .filter(|c| c.starts_with("tests/ui/") && !c.contains("::"))
                .filter_map(|c| {
                    std::fs::read_to_string(root().join(c).with_extension("stderr")).ok()
                })
                .collect();
            if !stderr.is_empty() {
                for message in &entry.messages {
                    let literal = longest_literal(message);
                    if !stderr.iter().any(|s| s.contains(literal)) {
                        problems.push(format!(
                            "entry `{name}`: no cited `.stderr` contains {literal:?}"
                        ));
                    }
                }
            }
        }
    }

    // Every compile-fail case is cited.
    for case in ui_cases() {
        if !cited_cases.contains(&case) {
            problems.push(format!(
                "compile-fail case `{case}` is cited by no entry of docs/ERRORS.md"
            ));
        }
    }

    assert!(
        problems.is_empty(),
        "docs/ERRORS.md is out of date ({} problems):\n- {}",
        problems.len(),
        problems.join("\n- ")
    );
}

#[test]
fn the_parsers_read_what_they_claim() {
    let source = "pub enum E {\n    /// Doc with {braces}.\n    #[error(\n        \"a `{x}` \\\"q\\\" \\\n         b\"\n    )]\n    A { x: u8 },\n    #[error(transparent)]\n    B(#[from] F),\n    C,\n}\n";
    assert_eq!(
        variants(source, "E"),
        vec![
            ("A".to_owned(), Template::Text("a `{x}` \"q\" b".to_owned())),
            ("B".to_owned(), Template::Transparent),
            ("C".to_owned(), Template::None),
        ]
    );
    let parsed = entries(
        "### `E::A`\n\n- **Message:** `` a `{x}` ``\n- **Test:** `tests/t.rs::a`, `tests/ui/x/y.rs` (note)\n",
    );
    assert_eq!(parsed[0].messages, ["a `{x}`"]);
    assert_eq!(parsed[0].tests, ["tests/t.rs::a", "tests/ui/x/y.rs"]);
    assert_eq!(
        longest_literal("field `{f}`: unsupported vertex format `{g}`; x"),
        "`: unsupported vertex format `"
    );
}
