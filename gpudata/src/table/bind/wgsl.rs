//! WGSL accessor text: functions that read one value of any [`VertexFormat`] from 32-bit words
//! and return it as vertex fetch would deliver it (normalized formats as `f32`, `float16` as
//! `f32`, `unorm8x4-bgra` swizzled to RGBA, `unorm10-10-10-2` unpacked).

use std::fmt::Write as _;

use crate::format::{VertexFormat, codec, wgsl_codec};
use crate::table::TableError;

/// Checks that `name` can prefix the generated WGSL identifiers (`{name}_at`, `{name}_words`):
/// the one WGSL identifier rule of [`layout`](crate::layout).
///
/// # Errors
/// [`TableError::Wgsl`] with [`WgslError::InvalidName`](crate::layout::WgslError::InvalidName).
pub(crate) fn check_wgsl_name(name: &str) -> Result<(), TableError> {
    Ok(crate::layout::check_wgsl_name(name)?)
}

/// The WGSL text of the unit `k` (of `unit_bytes` bytes) of a value that starts at byte `b` (a
/// WGSL `u32` expression named `b`) of the words in `words`: its bits as a zero-extended `u32`.
fn raw_unit(words: &str, k: u64, unit_bytes: u64) -> String {
    let at = if k == 0 {
        "b".to_owned()
    } else {
        format!("(b + {}u)", k * unit_bytes)
    };
    let word = format!("{words}[{at} / 4u]");
    match unit_bytes {
        4 => word,
        bytes => format!("extractBits({word}, ({at} % 4u) * 8u, {}u)", bytes * 8),
    }
}

/// The `let` lines binding each unit's raw bits to `r{k}`, and the components in the order a
/// shader receives them, decoded by the format's [`wgsl_codec`] snippet: normalized components
/// by integer operations, correctly rounded on every WGSL implementation (the division WGSL
/// allows 2.5 ulp is one ulp off on real GPUs), float16 NaNs quiet, as vertex fetch delivers.
fn components(words: &str, format: VertexFormat) -> (Vec<String>, Vec<String>) {
    let unit_bytes = codec::unit_byte_length(format);
    let units = format.byte_length() / unit_bytes;
    let lets = (0..units)
        .map(|k| format!("let r{k} = {};", raw_unit(words, k, unit_bytes)))
        .collect();
    let parts = (0..format.components())
        .map(|lane| {
            let stored = codec::fetch_order(format, lane);
            let unit = format!("r{}", codec::unit_of_lane(format, stored));
            wgsl_codec::decode_unit_exact(format, stored, &unit, wgsl_codec::NanBits::Quiet)
        })
        .collect();
    (lets, parts)
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
        for good in ["a", "positions", "color_2", "X", "_a"] {
            assert!(check_wgsl_name(good).is_ok(), "{good}");
        }
        for bad in ["", "_", "__a", "2d", "a-b", "é", "a b", "var"] {
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
        let r2 = ret.find("r2").unwrap();
        let r0 = ret.find("r0").unwrap();
        assert!(r2 < r0, "{ret}");
        // Normalized components decode by integer operations, not by a division.
        assert!(!ret.contains('/'), "{ret}");
        assert!(ret.contains("countLeadingZeros(r2)"), "{ret}");
        let text = accessor_fn("v_at", "v_words", VertexFormat::Float32x3, 0, 12);
        assert!(text.contains("let r2 = v_words[(b + 8u) / 4u];"), "{text}");
    }
}
