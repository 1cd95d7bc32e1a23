//! Bit-level work on row masks: a slice of a mask (rows `first..first + rows`) as a new mask,
//! its bits shifted to start at bit 0 of word 0; and bits unpacked into one `uint8` / `uint32`
//! 0 or 1 per row (Arrow booleans uploaded as their bitmap).

use super::rows::{self, Span, WORKGROUP};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;

/// The dispatches writing rows `first..first + rows` of the mask in `input` (words) into
/// `output` (zeroed, at least `ceil(rows / 32)` words).
pub(crate) fn slice(
    planner: &Planner<'_>,
    op: &'static str,
    input: &wgpu::Buffer,
    first: u64,
    rows: u64,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let words = rows.div_ceil(32);
    if words == 0 {
        return Ok(Vec::new());
    }
    let shift = first % 32;
    let tail = match rows % 32 {
        0 => 32,
        r => r,
    };
    let wgsl = word_kernel(
        8,
        "\x20   let s = param(3u);\n\
         \x20   var bits = src[param(1u) + w] >> s;\n\
         \x20   if (s != 0u && w + 1u < param(4u)) { bits |= src[param(1u) + w + 1u] << (32u - s); }\n\
         \x20   if (param(5u) + w + 1u == param(6u)) { bits &= select((1u << param(7u)) - 1u, 0xffffffffu, param(7u) == 32u); }\n\
         \x20   dst[param(2u) + w] = bits;\n",
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let src = Span {
        buffer: input,
        offset: first / 32 * 4,
        stride: 4,
        row_bytes: 8,
    };
    let dst = Span::packed(output, 4);
    let mut dispatches = Vec::new();
    for (w0, n) in rows::runs(op, &limits, words, u64::from(WORKGROUP), &[src, dst], &[])? {
        let a = src.bind(op, w0, n, align)?;
        let b = dst.bind(op, w0, n, align)?;
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, a.base / 4)?,
            rows::base32(op, b.base / 4)?,
            rows::base32(op, shift)?,
            rows::base32(op, (a.binding.size - a.base) / 4)?,
            rows::base32(op, w0)?,
            rows::base32(op, words)?,
            rows::base32(op, tail)?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[a, b],
            n.div_ceil(u64::from(WORKGROUP)),
        )?);
    }
    Ok(dispatches)
}

/// The dispatches expanding the `rows` bits of `bits` (one bit per row from bit 0 of byte 0,
/// Arrow's order) into `output` as one `width`-byte integer per row (`width` 1: `uint8`, 4:
/// `uint32`), 1 for a set bit and 0 otherwise. `output` holds at least `rows × width` bytes
/// rounded up to a word; each invocation writes one whole output word, so the bytes past the
/// last row in its last word are zeros. Used by the Arrow upload of Boolean columns and by the
/// null flags of [`GpuMask::flags`](crate::ops::GpuMask).
pub(crate) fn unpack(
    planner: &Planner<'_>,
    op: &'static str,
    bits: &wgpu::Buffer,
    rows: u64,
    width: u64,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    if rows == 0 {
        return Ok(Vec::new());
    }
    let per_word = 4 / width;
    let wgsl = word_kernel(
        4,
        &format!(
            "\x20   var word = 0u;\n\
         \x20   for (var j = 0u; j < {per_word}u; j++) {{\n\
         \x20       let r = w * {per_word}u + j;\n\
         \x20       if (r < param(3u)) {{\n\
         \x20           word |= ((src[param(1u) + (r >> 5u)] >> (r & 31u)) & 1u) << (j * {}u);\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   dst[param(2u) + w] = word;\n",
            width * 8
        ),
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let dst = Span::packed(output, width);
    let overflow = OpError::Overflow { op, input: 0 };
    let mut dispatches = Vec::new();
    // Runs start at multiples of 128 rows: a whole 16-byte chunk of bits and whole output words.
    for (r0, n) in rows::runs(op, &limits, rows, 128, &[dst], &[bits])? {
        let end_bit = r0.checked_add(n).ok_or(overflow.clone())?;
        let a = rows::bind(bits, r0 / 8, end_bit.div_ceil(8), align);
        let b = dst.bind(op, r0, n, align)?;
        let words = n.checked_mul(width).ok_or(overflow.clone())?.div_ceil(4);
        let params = [
            rows::base32(op, words)?,
            rows::base32(op, a.base / 4)?,
            rows::base32(op, b.base / 4)?,
            rows::base32(op, n)?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[a, b],
            words.div_ceil(u64::from(WORKGROUP)),
        )?);
    }
    Ok(dispatches)
}

/// The WGSL of a kernel with one invocation per output word `w` (`u32` bindings `src` and `dst`,
/// `params` parameter words, invocations past `param(0u)` return at once): the shape both bit
/// kernels share; `body` is the statements after that check.
fn word_kernel(params: usize, body: &str) -> String {
    let mut wgsl = rows::header(params);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    wgsl += &rows::binding_decl(2, "dst", "u32", true);
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let w = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (w >= param(0u)) {{ return; }}\n\
         {body}}}\n"
    );
    wgsl
}
