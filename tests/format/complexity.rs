//! Work on user input is bounded and linear. Under the default [`DeclarationLimits`] a
//! declaration of a million fields or members (a field list, luma.gl's struct-format JSON, WGSL
//! member text, luma.gl's composite JSON) is refused as soon as its count passes the bound: the
//! tests check that the input was read only that far (items pulled from the iterator, the JSON
//! column where serde_json stopped), so the refusal costs the bound's work, not the input's.
//! With the bounds raised, the same declarations are accepted and two sizes ten times apart are
//! timed: a linear algorithm takes about 10 times as long, a quadratic one 100 times, and the
//! ratio is compared loosely (the machine is shared): below 60, the fastest of three small runs
//! against the fastest of two large ones (one large run read 46 once at load average 12). Timings are printed for the record
//! (RELIABILITY.md), not asserted beyond the ratio.

use std::cell::Cell;
use std::time::{Duration, Instant};

use gpudata::layout::{AddressSpace, DeclarationLimits, StructDecl};
use gpudata::{GpuDataStructFormat, LayoutError, StructLayout, VertexFormat};

/// No bound at all.
const UNBOUNDED: DeclarationLimits = DeclarationLimits {
    max_fields: usize::MAX,
    max_members: usize::MAX,
    max_depth: DeclarationLimits::MAX_DEPTH,
};

/// `n` fields `f0`, `f1`, ... of `float32`.
fn fields(n: usize) -> Vec<(String, VertexFormat)> {
    (0..n)
        .map(|i| (format!("f{i}"), VertexFormat::Float32))
        .collect()
}

/// luma.gl's struct-format JSON (as `GpuDataStructFormat` serializes it) of `n` packed
/// `float32` fields, on one line.
fn struct_json(n: usize) -> String {
    let mut text = String::from(r#"{"type":"struct","layout":"packed","fields":{"#);
    for i in 0..n {
        let comma = if i + 1 < n { "," } else { "" };
        text.push_str(&format!(
            r#""f{i}":{{"format":"float32","byteOffset":{},"byteLength":4}}{comma}"#,
            4 * i
        ));
    }
    text.push_str(&format!(
        r#"}},"components":{n},"byteStride":{},"rowByteLength":{}}}"#,
        4 * n,
        4 * n
    ));
    text
}

/// WGSL member text of `n` members `m0: f32, m1: vec2<f32>, ...`.
fn members(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let ty = if i % 2 == 0 { "f32" } else { "vec2<f32>" };
        text.push_str(&format!("m{i}: {ty}, "));
    }
    text
}

/// luma.gl's composite-type JSON of `n` `f32` members, on one line.
fn composite_json(n: usize) -> String {
    let members: Vec<String> = (0..n).map(|i| format!(r#""m{i}":"f32""#)).collect();
    format!("{{{}}}", members.join(","))
}

/// The fastest of `runs` runs of `f` on a fresh copy of `input`, and its output.
fn fastest<I: Clone, T>(runs: usize, input: &I, f: impl Fn(I) -> T) -> (Duration, T) {
    let mut best: Option<(Duration, T)> = None;
    for _ in 0..runs {
        let input = input.clone();
        let start = Instant::now();
        let out = f(input);
        let elapsed = start.elapsed();
        if best.as_ref().is_none_or(|(b, _)| elapsed < *b) {
            best = Some((elapsed, out));
        }
    }
    best.expect("at least one run")
}

fn assert_linear(what: &str, sizes: (usize, usize), small: Duration, large: Duration) {
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
    eprintln!(
        "{what}: {} in {small:?}, {} in {large:?}, ratio {ratio:.1}",
        sizes.0, sizes.1
    );
    assert!(
        ratio < 60.0,
        "{what}: {} took {large:?}, {} took {small:?}: ratio {ratio:.1}, expected about 10",
        sizes.1,
        sizes.0
    );
}

/// The column where serde_json stopped reading a one-line document, from its error.
fn stopped_at(error: &serde_json::Error) -> usize {
    assert_eq!(error.line(), 1, "{error}");
    error.column()
}

#[test]
fn a_million_fields_are_refused_by_the_default_bound_after_reading_the_bound() {
    let max = DeclarationLimits::MAX_FIELDS;
    // A field list: the iterator is pulled one past the bound, no further.
    let pulled = Cell::new(0usize);
    let lazy = (0..1_000_000).map(|i| {
        pulled.set(pulled.get() + 1);
        (format!("f{i}"), VertexFormat::Float32)
    });
    let start = Instant::now();
    let refused = GpuDataStructFormat::new(StructLayout::Packed, lazy);
    let list_time = start.elapsed();
    assert_eq!(refused, Err(LayoutError::TooManyFields { max: 65_536 }));
    assert_eq!(pulled.get(), max + 1);
    let message = refused.unwrap_err().to_string();
    assert!(
        message.contains("more than 65536 fields")
            && message.contains("DeclarationLimits::max_fields")
            && message.contains("GpuDataStructFormat::with_limits"),
        "{message}"
    );

    // Strings: refused before a format string is read (the last one is not a format).
    let names: Vec<String> = (0..1_000_000).map(|i| format!("f{i}")).collect();
    let mut declared: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "float32")).collect();
    declared[999_999].1 = "not-a-format";
    assert_eq!(
        GpuDataStructFormat::parse(StructLayout::Packed, declared),
        Err(LayoutError::TooManyFields { max: 65_536 })
    );

    // 58 MB of luma.gl JSON: serde_json stops inside the first 7% of the text.
    let text = struct_json(1_000_000);
    assert!(text.len() > 50_000_000, "{} bytes", text.len());
    let start = Instant::now();
    let error = serde_json::from_str::<GpuDataStructFormat>(&text).unwrap_err();
    let json_time = start.elapsed();
    assert!(
        error.to_string().contains("more than 65536 fields"),
        "{error}"
    );
    let column = stopped_at(&error);
    assert!(
        column < text.len() / 14,
        "stopped at column {column} of {}",
        text.len()
    );
    eprintln!(
        "refused 1,000,000 fields: list in {list_time:?}, {} MB of JSON in {json_time:?} (read {column} bytes)",
        text.len() / 1_000_000
    );
}

#[test]
fn a_million_members_are_refused_by_wgsls_bound_after_reading_the_bound() {
    // WGSL member text: split only one member past WGSL's 1023.
    let text = members(1_000_000);
    let start = Instant::now();
    let refused = StructDecl::parse("Block", &text);
    let text_time = start.elapsed();
    assert_eq!(
        refused,
        Err(LayoutError::TooManyMembers {
            structure: "Block".to_owned(),
            max: 1023
        })
    );
    // A syntax error after the bound is never reached.
    assert!(matches!(
        StructDecl::parse("Block", &format!("{}oops", members(1024))),
        Err(LayoutError::TooManyMembers { max: 1023, .. })
    ));
    assert!(matches!(
        StructDecl::parse("Block", &format!("{}oops", members(1000))),
        Err(LayoutError::MemberSyntax { .. })
    ));

    // luma.gl's composite JSON: serde_json stops after 1024 members.
    let json = composite_json(1_000_000);
    let start = Instant::now();
    let error = StructDecl::from_composite("Block", &mut serde_json::Deserializer::from_str(&json))
        .unwrap_err();
    let json_time = start.elapsed();
    assert!(
        error.to_string().contains("more than 1023 members"),
        "{error}"
    );
    assert!(stopped_at(&error) < 20_000, "{error}");
    eprintln!(
        "refused 1,000,000 members: WGSL text in {text_time:?}, composite JSON in {json_time:?}"
    );
}

#[test]
fn nesting_and_flattening_are_bounded_before_the_work() {
    // array<array<...<f32>...>> a hundred thousand deep: refused after 15 levels, no stack
    // overflow, no scan per level of the whole text.
    let deep = format!("{}f32{}", "array<".repeat(100_000), ">".repeat(100_000));
    assert_eq!(
        StructDecl::parse("S", &format!("a: {deep}")),
        Err(LayoutError::TooDeep {
            member: "a".to_owned(),
            max: 15
        })
    );
    let fifteen = format!("{}f32{}", "array<".repeat(15), ", 1>".repeat(15));
    let deep = StructDecl::parse("S", &format!("a: {fifteen}")).unwrap();
    assert_eq!(deep.placements(AddressSpace::Storage).unwrap().1.size, 4);
    // Composite JSON sixteen levels deep (below serde_json's own recursion limit).
    let mut nested = String::from(r#""f32""#);
    for _ in 0..16 {
        nested = format!(r#"{{"x":{nested}}}"#);
    }
    let error = StructDecl::from_composite(
        "Block",
        &mut serde_json::Deserializer::from_str(&format!(r#"{{"a":{nested}}}"#)),
    )
    .unwrap_err();
    assert!(error.to_string().contains("more than 15 levels"), "{error}");

    // A shader block layout lists every array element: four billion of them are counted and
    // refused before one is listed.
    let huge = StructDecl::parse("Block", "a: array<f32, 4000000000>").unwrap();
    assert_eq!(
        huge.block_layout(AddressSpace::Storage),
        Err(LayoutError::TooManyFields { max: 65_536 })
    );
    let raised = DeclarationLimits {
        max_fields: 100_000,
        ..DeclarationLimits::DEFAULT
    };
    let block = StructDecl::parse("Block", "a: array<f32, 100000>")
        .unwrap()
        .block_layout_with_limits(AddressSpace::Storage, &raised)
        .unwrap();
    assert_eq!(block.fields.len(), 100_000);
    assert_eq!(block.field("a[99999]").unwrap().offset, 399_996);
}

#[test]
fn a_million_fields_declare_in_linear_time_with_the_bound_raised() {
    let declare = |f: Vec<(String, VertexFormat)>| {
        GpuDataStructFormat::with_limits(StructLayout::Packed, f, &UNBOUNDED).unwrap()
    };
    // The small size three times, the large one twice (the fastest run of each): an unlucky
    // large run only makes the ratio larger, which the loose bound absorbs.
    let (small, _) = fastest(3, &fields(100_000), declare);
    let (large, format) = fastest(2, &fields(1_000_000), declare);
    assert_eq!(format.fields().len(), 1_000_000);
    assert_eq!(format.byte_stride(), 4_000_000);
    assert_eq!(format.fields()[999_999].byte_offset(), 3_999_996);
    assert_linear("field list", (100_000, 1_000_000), small, large);
}

#[test]
fn a_million_fields_of_json_parse_in_linear_time_with_the_bound_raised() {
    let parse = |text: String| {
        GpuDataStructFormat::deserialize_with_limits(
            &mut serde_json::Deserializer::from_str(&text),
            &UNBOUNDED,
        )
    };
    let (small, format) = fastest(3, &struct_json(100_000), parse);
    assert_eq!(format.unwrap().fields().len(), 100_000);
    // A million fields whose last name repeats the first: every field is read, and the
    // duplicate is found.
    let text = struct_json(1_000_000).replacen("\"f999999\"", "\"f0\"", 1);
    let (large, result) = fastest(2, &text, parse);
    let error = result.unwrap_err();
    assert!(
        error.to_string().contains("duplicate field `f0`"),
        "{error}"
    );
    assert_linear("luma.gl JSON", (100_000, 1_000_000), small, large);
}

#[test]
fn wgsl_members_parse_lay_out_and_print_in_linear_time_with_the_bound_raised() {
    // Parse, place every member, and write the WGSL text (whose duplicate check was quadratic).
    let run = |text: String| {
        let decl = StructDecl::parse_with_limits("Block", &text, &UNBOUNDED).unwrap();
        let wgsl = decl.wgsl(AddressSpace::Storage).unwrap();
        (decl.members.len(), wgsl.len())
    };
    let (small, (n, _)) = fastest(3, &members(20_000), run);
    assert_eq!(n, 20_000);
    let (large, (n, wgsl)) = fastest(2, &members(200_000), run);
    assert_eq!(n, 200_000);
    assert!(wgsl > 200_000 * 10, "{wgsl} bytes of WGSL");
    assert_linear("WGSL members", (20_000, 200_000), small, large);
}
