//! WGSL accessor text: functions that read one value of any [`VertexFormat`] from 32-bit words
//! and return it as vertex fetch would deliver it (normalized formats as `f32`, `float16` as
//! `f32`, `unorm8x4-bgra` swizzled to RGBA, `unorm10-10-10-2` unpacked).

use std::fmt::Write as _;

use crate::error::TableError;
use crate::format::{DataType, VertexFormat};

/// Whether `name` can prefix generated WGSL identifiers: an ASCII letter, then ASCII letters,
/// digits and `_`. Generated names append a suffix (`_at`, `_words`), so they are never
/// keywords.
pub(crate) fn check_wgsl_name(name: &str) -> Result<(), TableError> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(TableError::WgslName {
            column: name.to_owned(),
        })
    }
}

/// The WGSL text of component `k` (of `component_bytes` bytes) of a value that starts at byte
/// `b` (a WGSL `u32` expression named `b`) of the words in `words`, raw: unsigned bits as `u32`
/// or, with `signed`, sign-extended as `i32`.
fn raw_component(words: &str, k: u64, component_bytes: u64, signed: bool) -> String {
    let at = if k == 0 {
        "b".to_owned()
    } else {
        format!("(b + {}u)", k * component_bytes)
    };
    let word = format!("{words}[{at} / 4u]");
    match (component_bytes, signed) {
        (4, false) => word,
        (4, true) => format!("bitcast<i32>({word})"),
        (bytes, false) => format!("extractBits({word}, ({at} % 4u) * 8u, {}u)", bytes * 8),
        (bytes, true) => format!(
            "extractBits(bitcast<i32>({word}), ({at} % 4u) * 8u, {}u)",
            bytes * 8
        ),
    }
}

/// The decoded WGSL expression of component `k`.
fn component(words: &str, format: VertexFormat, k: u64) -> String {
    let data_type = format.data_type();
    let bytes = data_type.byte_length();
    match data_type {
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => {
            raw_component(words, k, bytes, false)
        }
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => {
            raw_component(words, k, bytes, true)
        }
        DataType::Unorm8 => format!("f32({}) / 255.0", raw_component(words, k, bytes, false)),
        DataType::Unorm16 => format!("f32({}) / 65535.0", raw_component(words, k, bytes, false)),
        DataType::Snorm8 => format!(
            "max(f32({}) / 127.0, -1.0)",
            raw_component(words, k, bytes, true)
        ),
        DataType::Snorm16 => format!(
            "max(f32({}) / 32767.0, -1.0)",
            raw_component(words, k, bytes, true)
        ),
        DataType::Float16 => format!(
            "unpack2x16float({}).x",
            raw_component(words, k, bytes, false)
        ),
        DataType::Float32 => format!("bitcast<f32>({})", raw_component(words, k, bytes, false)),
    }
}

/// The components of one value, in the order a shader receives them.
fn components(words: &str, format: VertexFormat) -> Vec<String> {
    if format.is_packed_bits() {
        let word = format!("{words}[b / 4u]");
        return vec![
            format!("f32(extractBits({word}, 0u, 10u)) / 1023.0"),
            format!("f32(extractBits({word}, 10u, 10u)) / 1023.0"),
            format!("f32(extractBits({word}, 20u, 10u)) / 1023.0"),
            format!("f32(extractBits({word}, 30u, 2u)) / 3.0"),
        ];
    }
    let mut out: Vec<String> = (0..u64::from(format.components()))
        .map(|k| component(words, format, k))
        .collect();
    if format.is_bgra() {
        out.swap(0, 2);
    }
    out
}

/// A WGSL function `fn {fn_name}(row: u32) -> T` that reads the value of `row` from `words`
/// (an `array<u32>` or `vec4<u32>` in scope), the value starting at byte `base + row * stride`,
/// and returns it as a vertex shader would receive it (`T` is
/// [`VertexFormat::vertex_input_type`]).
///
/// The caller guarantees that `base` and `stride` are multiples of the format's component size,
/// so no component straddles two words.
pub(crate) fn accessor_fn(
    fn_name: &str,
    words: &str,
    format: VertexFormat,
    base: u64,
    stride: u64,
) -> String {
    let ty = format.vertex_input_type().to_string();
    let parts = components(words, format);
    let mut out = String::new();
    let _ = writeln!(out, "fn {fn_name}(row: u32) -> {ty} {{");
    let _ = writeln!(out, "    let b = {base}u + row * {stride}u;");
    let _ = writeln!(out, "    return {ty}({});", parts.join(", "));
    let _ = writeln!(out, "}}");
    out
}
