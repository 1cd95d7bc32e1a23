//! `docs/ERRORS.md` stays complete and true: every variant of every error enum has an entry, no
//! entry names a variant that is gone, each entry's message is the variant's `#[error]` text,
//! every cited test function and trybuild case exists, every compile-fail case under `tests/ui`
//! is cited, and each derive entry's message appears in a cited case's pinned `.stderr`.
//!
//! The error enums are found, not listed: every `pub enum` whose name ends in `Error` in any
//! file under `gpudata/src`, parsed with `syn` (each must also be re-exported by
//! `gpudata::error`). Sources and cited files are read at run time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CATALOGUE: &str = include_str!("../../docs/ERRORS.md");

/// The `#[error]` text of a variant: a format string, `transparent`, or none (no `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Template {
    Text(String),
    Transparent,
    None,
}

/// One error enum of the sources: where it is, its name and its variants with their templates.
struct ErrorEnum {
    path: String,
    name: String,
    variants: Vec<(String, Template)>,
}

/// The template of a variant's `#[error(...)]` attribute: its first token, a string literal
/// (any format arguments after it are skipped) or `transparent`.
fn template(attrs: &[syn::Attribute]) -> Template {
    let Some(attr) = attrs.iter().find(|a| a.path().is_ident("error")) else {
        return Template::None;
    };
    attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
        let template = if input.peek(syn::LitStr) {
            Template::Text(input.parse::<syn::LitStr>()?.value())
        } else if input.parse::<syn::Ident>()? == "transparent" {
            Template::Transparent
        } else {
            Template::None
        };
        // Skip the format arguments.
        input.step(|cursor| {
            let mut rest = *cursor;
            while let Some((_, next)) = rest.token_tree() {
                rest = next;
            }
            Ok(((), rest))
        })?;
        Ok(template)
    })
    .unwrap_or_else(|e| panic!("unreadable #[error] attribute: {e}"))
}

/// The variants of `item`, in order, with their `#[error]` templates.
fn variants(item: &syn::ItemEnum) -> Vec<(String, Template)> {
    item.variants
        .iter()
        .map(|v| (v.ident.to_string(), template(&v.attrs)))
        .collect()
}

/// The `pub enum *Error`s among `items`, inline modules included.
fn collect_error_enums(items: &[syn::Item], path: &str, out: &mut Vec<ErrorEnum>) {
    for item in items {
        match item {
            syn::Item::Enum(item)
                if matches!(item.vis, syn::Visibility::Public(_))
                    && item.ident.to_string().ends_with("Error") =>
            {
                out.push(ErrorEnum {
                    path: path.to_owned(),
                    name: item.ident.to_string(),
                    variants: variants(item),
                });
            }
            syn::Item::Mod(syn::ItemMod {
                content: Some((_, items)),
                ..
            }) => collect_error_enums(items, path, out),
            _ => {}
        }
    }
}

/// The `.rs` files under `dir`, relative to the repository root, sorted.
fn rs_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root()).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn parse_source(path: &str) -> syn::File {
    let text = std::fs::read_to_string(root().join(path))
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {path}: {e}"))
}

/// Every error enum of the library: `pub enum *Error` in any file under `gpudata/src`.
fn error_enums() -> Vec<ErrorEnum> {
    let mut out = Vec::new();
    for path in rs_files(&root().join("gpudata/src")) {
        collect_error_enums(&parse_source(&path).items, &path, &mut out);
    }
    out
}

/// The last segment of every name `tree` brings into scope (`a::{b, c as d}` → `b`, `c`).
fn used_names(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(path) => used_names(&path.tree, out),
        syn::UseTree::Name(name) => {
            out.insert(name.ident.to_string());
        }
        syn::UseTree::Rename(rename) => {
            out.insert(rename.ident.to_string());
        }
        syn::UseTree::Group(group) => group.items.iter().for_each(|t| used_names(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// The names `gpudata/src/error.rs` re-exports.
fn error_module_exports() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in parse_source("gpudata/src/error.rs").items {
        if let syn::Item::Use(item) = item
            && matches!(item.vis, syn::Visibility::Public(_))
        {
            used_names(&item.tree, &mut out);
        }
    }
    out
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
    ["tests/ui/fail", "tests/ui/errors", "tests/ui/shader"]
        .iter()
        .flat_map(|dir| rs_files(&root().join(dir)))
        .collect()
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
    let exports = error_module_exports();
    for ErrorEnum {
        path,
        name: enum_name,
        variants,
    } in error_enums()
    {
        if !exports.contains(&enum_name) {
            problems.push(format!(
                "`{enum_name}` ({path}) is not re-exported by `gpudata::error` (gpudata/src/error.rs)"
            ));
        }
        enums.insert(enum_name.clone());
        for (variant, template) in variants {
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
    let source = "pub enum E {\n    /// Doc with {braces}.\n    #[error(\n        \"a `{x}` \\\"q\\\" \\\n         b\", x = 1\n    )]\n    A { x: u8 },\n    #[error(transparent)]\n    B(#[from] F),\n    C,\n}\n";
    let item: syn::ItemEnum = syn::parse_str(source).unwrap();
    assert_eq!(
        variants(&item),
        vec![
            ("A".to_owned(), Template::Text("a `{x}` \"q\" b".to_owned())),
            ("B".to_owned(), Template::Transparent),
            ("C".to_owned(), Template::None),
        ]
    );
    // The walk finds every area's enum, each in its area's folder.
    let found: BTreeMap<String, String> = error_enums()
        .into_iter()
        .map(|e| (e.name, e.path))
        .collect();
    for (name, folder) in [
        ("FormatError", "gpudata/src/format/"),
        ("LayoutError", "gpudata/src/layout/"),
        ("DataError", "gpudata/src/data/"),
        ("GpuError", "gpudata/src/device/"),
        ("OpError", "gpudata/src/ops/"),
        ("TableError", "gpudata/src/table/"),
        ("ArrowInteropError", "gpudata/src/arrow/"),
    ] {
        assert!(
            found.get(name).is_some_and(|path| path.starts_with(folder)),
            "{name} not found under {folder}: {found:?}"
        );
    }
    assert!(error_module_exports().contains("RowBytesError"));
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
