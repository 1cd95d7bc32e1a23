//! WGSL accessor text: functions that read one value of any [`VertexFormat`] from 32-bit words
//! and return it as vertex fetch would deliver it (normalized formats as `f32`, `float16` as
//! `f32`, `unorm8x4-bgra` swizzled to RGBA, `unorm10-10-10-2` unpacked).

use std::fmt::Write as _;

use crate::format::{DataType, VertexFormat};
use crate::table::TableError;

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

/// The raw bits of component `k` (as `u32`, or `i32` for signed types) and its decoded WGSL
/// expression over the name `r{k}` bound to those bits.
fn component(words: &str, format: VertexFormat, k: u64) -> (String, String) {
    let data_type = format.data_type();
    let bytes = data_type.byte_length();
    let signed = matches!(
        data_type,
        DataType::Sint8
            | DataType::Sint16
            | DataType::Sint32
            | DataType::Snorm8
            | DataType::Snorm16
    );
    let raw = raw_component(words, k, bytes, signed);
    let r = format!("r{k}");
    let decoded = match data_type {
        DataType::Uint8
        | DataType::Uint16
        | DataType::Uint32
        | DataType::Sint8
        | DataType::Sint16
        | DataType::Sint32 => r,
        DataType::Unorm8 => format!("f32({r}) / 255.0"),
        DataType::Unorm16 => format!("f32({r}) / 65535.0"),
        DataType::Snorm8 => format!("max(f32({r}) / 127.0, -1.0)"),
        DataType::Snorm16 => format!("max(f32({r}) / 32767.0, -1.0)"),
        DataType::Float16 => half_to_f32(&r),
        DataType::Float32 => format!("bitcast<f32>({r})"),
    };
    (raw, decoded)
}

/// An exact binary16 to binary32 conversion of the low 16 bits of `r` with integer operations
/// (`unpack2x16float` needs a capability some backends lack).
fn half_to_f32(r: &str) -> String {
    let sign = format!("(({r} & 0x8000u) << 16u)");
    let exponent = format!("(({r} >> 10u) & 0x1fu)");
    let mantissa = format!("({r} & 0x3ffu)");
    let normal =
        format!("bitcast<f32>({sign} | (({exponent} + 112u) << 23u) | ({mantissa} << 13u))");
    let special = format!("bitcast<f32>({sign} | 0x7f800000u | ({mantissa} << 13u))");
    let subnormal = format!(
        "(select(1.0, -1.0, ({r} & 0x8000u) != 0u) * f32({mantissa}) * 5.9604644775390625e-8)"
    );
    format!("select(select({normal}, {special}, {exponent} == 31u), {subnormal}, {exponent} == 0u)")
}

/// The `let` lines binding each component's raw bits, and the components in the order a
/// shader receives them.
fn components(words: &str, format: VertexFormat) -> (Vec<String>, Vec<String>) {
    if format.is_packed_bits() {
        let lets = vec![format!("let r0 = {words}[b / 4u];")];
        return (
            lets,
            vec![
                "f32(extractBits(r0, 0u, 10u)) / 1023.0".to_owned(),
                "f32(extractBits(r0, 10u, 10u)) / 1023.0".to_owned(),
                "f32(extractBits(r0, 20u, 10u)) / 1023.0".to_owned(),
                "f32(extractBits(r0, 30u, 2u)) / 3.0".to_owned(),
            ],
        );
    }
    let (lets, mut out): (Vec<String>, Vec<String>) = (0..u64::from(format.components()))
        .map(|k| {
            let (raw, decoded) = component(words, format, k);
            (format!("let r{k} = {raw};"), decoded)
        })
        .unzip();
    if format.is_bgra() {
        out.swap(0, 2);
    }
    (lets, out)
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
    let (lets, parts) = components(words, format);
    let mut out = String::new();
    let _ = writeln!(out, "fn {fn_name}(row: u32) -> {ty} {{");
    let _ = writeln!(out, "    let b = {base}u + row * {stride}u;");
    for line in lets {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "    return {ty}({});", parts.join(", "));
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::{accessor_fn, check_wgsl_name};
    use crate::format::VertexFormat;

    #[test]
    fn names_must_start_with_a_letter() {
        for good in ["a", "positions", "color_2", "X"] {
            assert!(check_wgsl_name(good).is_ok(), "{good}");
        }
        for bad in ["", "_a", "2d", "a-b", "é", "a b"] {
            assert!(check_wgsl_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn accessors_read_components_at_their_byte() {
        let text = accessor_fn("c_at", "c_words", VertexFormat::Unorm8x4Bgra, 8, 4);
        assert!(
            text.starts_with("fn c_at(row: u32) -> vec4<f32> {"),
            "{text}"
        );
        assert!(text.contains("let b = 8u + row * 4u;"), "{text}");
        // Stored B, G, R, A; returned R, G, B, A.
        let ret = text.lines().find(|l| l.contains("return")).unwrap();
        let r2 = ret.find("f32(r2)").unwrap();
        let r0 = ret.find("f32(r0)").unwrap();
        assert!(r2 < r0, "{ret}");
        let text = accessor_fn("v_at", "v_words", VertexFormat::Float32x3, 0, 12);
        assert!(text.contains("let r2 = v_words[(b + 8u) / 4u];"), "{text}");
    }
}
