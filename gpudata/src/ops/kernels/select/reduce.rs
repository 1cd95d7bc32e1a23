//! The per-lane minimum and maximum of a column (`extent`): every lane's stored value is mapped
//! to a `u32` key whose unsigned order is the value's order (floats: sign-magnitude flipped, so
//! `-0 < +0`; signed integers: sign bit flipped), NaNs are skipped, and the keys are reduced with
//! `min` and `max`: per invocation over 32 rows, per workgroup and across workgroups with atomics
//! into one accumulator (one for all the pieces of a column held in several buffers). A
//! one-invocation pass then turns the keys back into values (the first row's value where it is
//! NaN, luma.gl's rule), writes the output rows and resets the accumulator, so a plan can run
//! again.
//!
//! Integers (normalized ones by their stored integers, as luma.gl compares them) and floats are
//! reduced exactly, so the result does not depend on the order of the reduction.

use crate::device::buffers::filled_buffer;

use super::rows::{self, Span, WORKGROUP};
use crate::data::GpuDataView;
use crate::format::{DataType, VertexFormat};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;

/// Rows each invocation reduces unless [`OpsConfig::rows_per_thread`](crate::ops::OpsConfig) says
/// otherwise.
const ROWS_PER_INVOCATION: u64 = 32;

/// How a lane's stored bits order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// IEEE floats of `bits` bits (NaNs skipped).
    Float,
    /// Two's complement integers.
    Signed,
    /// Unsigned integers.
    Unsigned,
}

/// The order of `format`'s lanes, or `None` for a format `extent` does not take
/// (`unorm10-10-10-2`, whose lanes are bit fields).
pub(crate) fn order(format: VertexFormat) -> Option<Order> {
    if format.is_packed_bits() {
        return None;
    }
    Some(match format.data_type() {
        DataType::Float32 | DataType::Float16 => Order::Float,
        DataType::Sint8
        | DataType::Sint16
        | DataType::Sint32
        | DataType::Snorm8
        | DataType::Snorm16 => Order::Signed,
        _ => Order::Unsigned,
    })
}

/// WGSL functions `is_nan_bits(u)`, `key(u)` and `unkey(k)` for lanes of `bytes` bytes.
pub(crate) fn key_functions(order: Order, bytes: u64) -> String {
    let bits = bytes * 8;
    let sign = 1u64 << (bits - 1);
    let mask = if bits == 32 {
        0xffff_ffff
    } else {
        (1u64 << bits) - 1
    };
    let exponent = match bits {
        16 => 0x7c00u64,
        _ => 0x7f80_0000,
    };
    let magnitude = sign - 1;
    match order {
        Order::Float => format!(
            "fn is_nan_bits(u: u32) -> bool {{ return (u & {magnitude:#x}u) > {exponent:#x}u; }}\n\
             fn key(u: u32) -> u32 {{ return select(u | {sign:#x}u, (~u) & {mask:#x}u, (u & {sign:#x}u) != 0u); }}\n\
             fn unkey(k: u32) -> u32 {{ return select((~k) & {mask:#x}u, k & {magnitude:#x}u, (k & {sign:#x}u) != 0u); }}\n"
        ),
        Order::Signed => format!(
            "fn is_nan_bits(u: u32) -> bool {{ return false; }}\n\
             fn key(u: u32) -> u32 {{ return u ^ {sign:#x}u; }}\n\
             fn unkey(k: u32) -> u32 {{ return k ^ {sign:#x}u; }}\n"
        ),
        Order::Unsigned => "fn is_nan_bits(u: u32) -> bool { return false; }\n\
             fn key(u: u32) -> u32 { return u; }\n\
             fn unkey(k: u32) -> u32 { return k; }\n"
            .to_owned(),
    }
}

/// The reduction pass: rows of the run into the accumulator (`lanes` minimum keys, then `lanes`
/// maximum keys). Parameters: rows of the run, the source's byte base.
///
/// Rows whose offset and stride are whole words (`aligned`) load each word of a row once and
/// take its 8- or 16-bit lanes out of it; other rows load each lane at its byte address (one
/// word load per lane: `uint16x2` rows then cost two loads of one word, measured on an H200 at
/// 83% of a read-only kernel).
fn reduce_kernel(
    format: VertexFormat,
    order: Order,
    stride: u64,
    aligned: bool,
    per: u64,
) -> String {
    let lanes = format.components();
    let bytes = format.byte_length() / u64::from(lanes);
    let mut wgsl = rows::header(2);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    wgsl += &rows::binding_decl(2, "acc", "atomic<u32>", true);
    wgsl += &rows::load_fn("ld", "src", bytes);
    wgsl += &key_functions(order, bytes);
    // Rows are read `unroll` at a time, every load issued before any key is compared (so
    // several loads of each invocation are in flight), rows past the run clamped to its last
    // (a duplicate does not change a minimum or a maximum).
    let unroll = per.min(8);
    let per = per.div_ceil(unroll) * unroll;
    let mut init = String::new();
    let mut loads = String::new();
    let mut step = String::new();
    let mut merge = String::new();
    for l in 0..lanes {
        init += &format!("    var mn{l} = 0xffffffffu;\n    var mx{l} = 0u;\n");
        merge += &format!("    atomicMin(&wmin[{l}], mn{l});\n    atomicMax(&wmax[{l}], mx{l});\n");
    }
    for j in 0..unroll {
        loads += &format!(
            "        let a{j} = param(1u) + min(first + (r + {j}u) * {WORKGROUP}u, n - 1u) * {stride}u;\n"
        );
        if aligned {
            let words = (u64::from(lanes) * bytes).div_ceil(4);
            for w in 0..words {
                loads += &format!("        let w{j}_{w} = src[(a{j} >> 2u) + {w}u];\n");
            }
        }
        for l in 0..lanes {
            let at = u64::from(l) * bytes;
            loads += &if !aligned {
                format!("        let u{j}_{l} = ld(a{j} + {at}u);\n")
            } else if bytes == 4 {
                format!("        let u{j}_{l} = w{j}_{};\n", at / 4)
            } else {
                format!(
                    "        let u{j}_{l} = (w{j}_{} >> {}u) & {:#x}u;\n",
                    at / 4,
                    (at % 4) * 8,
                    (1u64 << (bytes * 8)) - 1
                )
            };
            step += &format!(
                "        if (!is_nan_bits(u{j}_{l})) {{ let k = key(u{j}_{l}); mn{l} = min(mn{l}, k); mx{l} = max(mx{l}, k); }}\n"
            );
        }
    }
    wgsl += &format!(
        "var<workgroup> wmin: array<atomic<u32>, {lanes}>;\n\
         var<workgroup> wmax: array<atomic<u32>, {lanes}>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   if (lid < {lanes}u) {{ atomicStore(&wmin[lid], 0xffffffffu); atomicStore(&wmax[lid], 0u); }}\n\
         \x20   workgroupBarrier();\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let first = group * {per}u * {WORKGROUP}u + lid;\n\
         {init}\
         \x20   for (var r = 0u; r < {per}u; r += {unroll}u) {{\n\
         {loads}{step}\
         \x20   }}\n\
         {merge}\
         \x20   workgroupBarrier();\n\
         \x20   if (lid < {lanes}u) {{\n\
         \x20       atomicMin(&acc[lid], atomicLoad(&wmin[lid]));\n\
         \x20       atomicMax(&acc[{lanes}u + lid], atomicLoad(&wmax[lid]));\n\
         \x20   }}\n\
         }}\n"
    );
    wgsl
}

/// The final pass: keys to values, the first row's NaNs kept, the output rows (one per lane:
/// minimum, maximum) assembled in words, the accumulator reset. Parameter: the byte base of
/// the source's first row.
fn finish_kernel(format: VertexFormat, order: Order) -> String {
    let lanes = format.components();
    let bytes = format.byte_length() / u64::from(lanes);
    let out_words = (u64::from(lanes) * 2 * bytes).div_ceil(4);
    let mut wgsl = rows::header(1);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    wgsl += &rows::binding_decl(2, "acc", "u32", true);
    wgsl += &rows::binding_decl(3, "out", "u32", true);
    wgsl += &rows::load_fn("ld", "src", bytes);
    wgsl += &key_functions(order, bytes);
    let mut body = String::new();
    for l in 0..lanes {
        let at = u64::from(l) * 2 * bytes;
        body += &format!(
            "    let u{l} = ld(param(0u) + {}u);\n\
             \x20   var lo{l} = unkey(acc[{l}]);\n\
             \x20   var hi{l} = unkey(acc[{lanes}u + {l}]);\n\
             \x20   if (is_nan_bits(u{l})) {{ lo{l} = u{l}; hi{l} = u{l}; }}\n\
             \x20   w[{}] |= lo{l} << {}u;\n\
             \x20   w[{}] |= hi{l} << {}u;\n\
             \x20   acc[{l}] = 0xffffffffu;\n\
             \x20   acc[{lanes}u + {l}] = 0u;\n",
            u64::from(l) * bytes,
            at / 4,
            (at % 4) * 8,
            (at + bytes) / 4,
            ((at + bytes) % 4) * 8,
        );
    }
    wgsl += &format!(
        "@compute @workgroup_size(1)\n\
         fn main() {{\n\
         \x20   var w: array<u32, {out_words}>;\n\
         {body}\
         \x20   for (var i = 0u; i < {out_words}u; i++) {{ out[i] = w[i]; }}\n\
         }}\n"
    );
    wgsl
}

/// The dispatches of `extent` over the rows of `views` (consecutive pieces of one column, in
/// row order, all of one format; the first holds at least one row) into `output` (one row of
/// the format's type with two components per lane).
///
/// Every piece's rows reduce into one accumulator (its NaNs skipped, as every row's are), so a
/// column in several buffers gives exactly its one-buffer result: the final pass takes the NaN
/// rule's first row from the first piece only.
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    views: &[GpuDataView<'_>],
    order: Order,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let Some(head) = views.first() else {
        return Err(OpError::Empty { op });
    };
    let format = head.format();
    let lanes = u64::from(format.components());
    let init: Vec<u8> = (0..2 * lanes)
        .flat_map(|i| if i < lanes { u32::MAX } else { 0 }.to_le_bytes())
        .collect();
    let device = planner.device();
    let acc = planner.scope(op, "create the accumulator", || {
        filled_buffer(planner.gpu(), op, &init, wgpu::BufferUsages::STORAGE)
    })?;
    let limits = device.limits();
    let align = rows::alignment(&limits);
    let per = planner
        .config()
        .rows_per_thread
        .map_or(ROWS_PER_INVOCATION, |r| u64::from(r.clamp(1, 1024)));
    let per = per.div_ceil(per.min(8)) * per.min(8);
    let tile = per * u64::from(WORKGROUP);
    let acc_bound = rows::bind(&acc, 0, 8 * lanes, align);
    let mut dispatches = Vec::new();
    for view in views {
        let span = Span::of(view);
        let aligned = view.byte_stride().is_multiple_of(4) && view.byte_offset().is_multiple_of(4);
        let reduce = reduce_kernel(format, order, view.byte_stride(), aligned, per);
        for (first, n) in rows::runs(op, &limits, view.length(), tile, &[span], &[])? {
            if n == 0 {
                continue;
            }
            let bound = span.bind(op, first, n, align)?;
            let params = [rows::base32(op, n)?, rows::base32(op, bound.base)?];
            dispatches.push(rows::dispatch(
                planner,
                op,
                &reduce,
                &params,
                &[bound, acc_bound],
                n.div_ceil(tile),
            )?);
        }
    }
    let first = Span::of(head).bind(op, 0, 1, align)?;
    let out = rows::bind(output, 0, output.size(), align);
    dispatches.push(rows::dispatch(
        planner,
        op,
        &finish_kernel(format, order),
        &[rows::base32(op, first.base)?],
        &[first, acc_bound, out],
        1,
    )?);
    Ok(dispatches)
}
