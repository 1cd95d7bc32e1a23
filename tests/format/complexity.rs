//! Work on user input grows linearly with it: a declaration of a million fields is parsed, from
//! a field list and from luma.gl's JSON, and the time of two sizes ten times apart is compared
//! loosely (a linear algorithm takes about 10 times as long, a quadratic one 100 times). No
//! declaration size is capped: the check that once compared every pair of names is linear now,
//! so a cap would only refuse honest inputs (WGSL and wgpu bound what a device can use, and say
//! so when the declaration is used).

use std::time::{Duration, Instant};

use gpudata::{GpuDataStructFormat, StructLayout, VertexFormat};

/// `n` fields `f0`, `f1`, ... of `float32`, packed.
fn fields(n: usize) -> Vec<(String, VertexFormat)> {
    (0..n)
        .map(|i| (format!("f{i}"), VertexFormat::Float32))
        .collect()
}

/// The fastest of `runs` runs of `f` on a fresh `input`.
fn fastest<I: Clone, T>(runs: usize, input: &I, f: impl Fn(I) -> T) -> (Duration, T) {
    let mut best = None;
    for _ in 0..runs {
        let input = input.clone();
        let start = Instant::now();
        let out = f(input);
        let elapsed = start.elapsed();
        if best.as_ref().is_none_or(|(b, _)| elapsed < *b) {
            best = Some((elapsed, out));
        }
    }
    best.unwrap()
}

fn assert_linear(what: &str, small: Duration, large: Duration) {
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
    eprintln!("{what}: 100k in {small:?}, 1M in {large:?}, ratio {ratio:.1}");
    assert!(
        ratio < 40.0,
        "{what}: 1M fields took {large:?}, 100k took {small:?}: ratio {ratio:.1}, expected about 10"
    );
}

#[test]
fn a_million_fields_declare_in_linear_time() {
    let declare =
        |f: Vec<(String, VertexFormat)>| GpuDataStructFormat::new(StructLayout::Packed, f).unwrap();
    // The small size three times (its fastest run), the large one once: an unlucky large run
    // only makes the ratio larger, which the loose bound absorbs.
    let (small, _) = fastest(3, &fields(100_000), declare);
    let (large, format) = fastest(1, &fields(1_000_000), declare);
    assert_eq!(format.fields().len(), 1_000_000);
    assert_eq!(format.byte_stride(), 4_000_000);
    assert_eq!(format.fields()[999_999].byte_offset(), 3_999_996);
    assert_linear("field list", small, large);
}

#[test]
fn a_million_fields_of_json_parse_in_linear_time() {
    // luma.gl's JSON shape (as `GpuDataStructFormat` serializes), written directly.
    let json = |n: usize| {
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
    };
    let parse = |text: String| serde_json::from_str::<GpuDataStructFormat>(&text);
    let (small, format) = fastest(3, &json(100_000), parse);
    assert_eq!(format.unwrap().fields().len(), 100_000);
    // A million fields whose last name repeats the first: every field is read, and the
    // duplicate is found.
    let text = json(1_000_000).replacen("\"f999999\"", "\"f0\"", 1);
    assert!(text.len() > 50_000_000, "{} bytes", text.len());
    let (large, result) = fastest(1, &text, parse);
    let error = result.unwrap_err();
    assert!(
        error.to_string().contains("duplicate field `f0`"),
        "{error}"
    );
    assert_linear("luma.gl JSON", small, large);
}
