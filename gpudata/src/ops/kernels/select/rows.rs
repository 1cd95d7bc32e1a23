//! What the selection kernels (masks, scans, compaction, extent, gather, sequence,
//! segmented map) share: word-granular storage bindings with a base offset in the uniform,
//! runs of rows whose bindings fit the device (by [`split`](crate::ops::kernels::split)'s rules), the WGSL
//! that loads a component or copies a row at any byte address, and one dispatch builder.
//!
//! Unlike the row-transform generator these kernels bind each range at the storage-aligned start
//! at or before its first byte and pass the distance in the uniform, so a run of rows may start
//! anywhere; the text holds only what shapes the kernel (formats, strides, row sizes).

use crate::device::buffers::create_buffer;
use std::sync::Arc;

use crate::data::GpuDataView;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};
use crate::ops::kernels::split::{binding_start, even_runs, max_binding_size};

/// Invocations per workgroup of every selection kernel (WebGPU's default limit).
pub(crate) const WORKGROUP: u32 = 256;

/// A storage range one dispatch binds, and the distance in bytes from its start to the first
/// byte the dispatch uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bound<'a> {
    pub binding: Binding<'a>,
    pub base: u64,
}

/// The checks every input view of a selection kernel goes through: its data on `gpu`'s device
/// (another device's buffer is refused before wgpu sees it), offset and stride aligned, rows
/// inside the buffer; `input` is its position. Then the device must not be lost.
pub(crate) fn check_view(
    gpu: &crate::device::Gpu,
    op: &'static str,
    input: usize,
    view: &GpuDataView<'_>,
) -> Result<(), OpError> {
    let buffer = view
        .buffer_on(gpu, "plan an operation")
        .map_err(|source| OpError::Gpu { op, source })?;
    crate::ops::kernels::shape::ViewShape::of(view).check(op, input, buffer.size(), true)?;
    gpu.check_lost("plan an operation")
        .map_err(|source| OpError::Gpu { op, source })
}

/// The binding alignment of `gpu`'s device: its storage offset alignment, at least 16 so that a
/// binding can be read as `vec4<u32>` from its start.
pub(crate) fn alignment(limits: &wgpu::Limits) -> u64 {
    u64::from(limits.min_storage_buffer_offset_alignment).max(16)
}

/// Bytes `from..to` of `buffer`, bound from the aligned start at or before `from` to the end
/// of the word holding `to - 1` (never past the buffer's last whole word; at least one word).
pub(crate) fn bind(buffer: &wgpu::Buffer, from: u64, to: u64, align: u64) -> Bound<'_> {
    let last = buffer.size() / 4 * 4;
    // A range at the very end (no rows) still binds the buffer's last 16 bytes (one element of
    // a `vec4<u32>` array).
    let start = binding_start(from.min(last.saturating_sub(16)), align);
    let end = to.next_multiple_of(4).min(last).max(start + 16).min(last);
    Bound {
        binding: Binding {
            buffer,
            start,
            size: end.saturating_sub(start),
        },
        base: from - start,
    }
}

/// Rows of one buffer that a kernel reads or writes: `row_bytes` bytes every `stride` bytes
/// from `offset`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub stride: u64,
    pub row_bytes: u64,
}

impl<'a> Span<'a> {
    /// The rows of `view`.
    pub(crate) fn of(view: &GpuDataView<'a>) -> Span<'a> {
        Span {
            buffer: view.buffer(),
            offset: view.byte_offset(),
            stride: view.byte_stride(),
            row_bytes: view.format().byte_length(),
        }
    }

    /// Packed rows of `row_bytes` from byte 0 of `buffer`.
    pub(crate) fn packed(buffer: &'a wgpu::Buffer, row_bytes: u64) -> Span<'a> {
        Span {
            buffer,
            offset: 0,
            stride: row_bytes,
            row_bytes,
        }
    }

    /// Rows `first..first + rows` bound (one word at least, for no rows).
    pub(crate) fn bind(
        &self,
        op: &'static str,
        first: u64,
        rows: u64,
        align: u64,
    ) -> Result<Bound<'a>, OpError> {
        let overflow = OpError::Overflow { op, input: 0 };
        let from = first
            .checked_mul(self.stride)
            .and_then(|b| b.checked_add(self.offset))
            .ok_or(overflow.clone())?;
        let to = match rows {
            0 => from,
            n => (n - 1)
                .checked_mul(self.stride)
                .and_then(|b| b.checked_add(from)?.checked_add(self.row_bytes))
                .ok_or(overflow)?,
        };
        Ok(bind(self.buffer, from, to, align))
    }

    /// The most rows one binding holds whatever the first row (`None`: any number, for rows
    /// that do not advance); 0 when not even one row fits.
    fn rows_per_binding(&self, max_binding: u64, align: u64) -> Option<u64> {
        let slack = align + self.row_bytes + 4;
        if self.stride == 0 {
            return (slack <= max_binding).then_some(u64::MAX).or(Some(0));
        }
        Some(match max_binding.checked_sub(slack) {
            Some(room) => room / self.stride + 1,
            None => 0,
        })
    }
}

/// Rows `0..length` as `(first, rows)` runs, each a multiple of `step` rows (the last the rest),
/// whose bindings of `spans` and of the row masks `masks` (one bit per row, from byte 0) all fit
/// the device's largest storage binding: one run when they do for all rows.
///
/// # Errors
/// [`OpError::TooLarge`] when not even `step` rows fit one binding.
pub(crate) fn runs(
    op: &'static str,
    limits: &wgpu::Limits,
    length: u64,
    step: u64,
    spans: &[Span<'_>],
    masks: &[&wgpu::Buffer],
) -> Result<Vec<(u64, u64)>, OpError> {
    let max_binding = max_binding_size(limits);
    let align = alignment(limits);
    let mut fits_all = true;
    let mut most = u64::MAX;
    for span in spans {
        fits_all &= span.bind(op, 0, length, align)?.binding.size <= max_binding;
        if let Some(rows) = span.rows_per_binding(max_binding, align) {
            most = most.min(rows);
        }
    }
    for mask in masks {
        let words = length.div_ceil(32) * 4;
        fits_all &= bind(mask, 0, words, align).binding.size <= max_binding;
        let room = max_binding.saturating_sub(align + 64);
        most = most.min(room / 4 * 32);
    }
    if fits_all || length == 0 {
        return Ok(vec![(0, length)]);
    }
    let most = most / step * step;
    if most == 0 {
        let span = spans
            .iter()
            .max_by_key(|s| s.stride)
            .map_or(0, |s| s.stride * step);
        return Err(OpError::TooLarge {
            op,
            what: "a storage binding",
            size: span + align,
            limit: max_binding,
        });
    }
    Ok(even_runs(0, length, most, step))
}

/// The binding declaration of binding `index` (1-based; 0 is the uniform) named `name`, of
/// `u32` words or `vec4<u32>` chunks.
pub(crate) fn binding_decl(index: usize, name: &str, element: &str, writable: bool) -> String {
    let access = if writable { "read_write" } else { "read" };
    format!("@group(0) @binding({index}) var<storage, {access}> {name}: array<{element}>;\n")
}

/// The uniform and the workgroup index every selection kernel starts with: `param(i)` reads
/// `u32` parameter `i`, `group_index(wid, nwg)` flattens a two-dimensional dispatch.
pub(crate) fn header(params: usize) -> String {
    let vecs = params.div_ceil(4).max(1);
    format!(
        "struct Params {{ p: array<vec4<u32>, {vecs}> }}\n\
         @group(0) @binding(0) var<uniform> params: Params;\n\
         fn param(i: u32) -> u32 {{ return params.p[i / 4u][i % 4u]; }}\n\
         fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {{ return wid.x + wid.y * nwg.x; }}\n"
    )
}

/// A WGSL function `name(a: u32) -> u32` returning the `bytes` (1, 2 or 4) bytes at byte address
/// `a` of the `u32` binding `binding`, zero-extended (`a` aligned to `bytes`).
pub(crate) fn load_fn(name: &str, binding: &str, bytes: u64) -> String {
    match bytes {
        1 => format!(
            "fn {name}(a: u32) -> u32 {{ return ({binding}[a >> 2u] >> ((a & 3u) * 8u)) & 0xffu; }}\n"
        ),
        2 => format!(
            "fn {name}(a: u32) -> u32 {{ return ({binding}[a >> 2u] >> ((a & 2u) * 8u)) & 0xffffu; }}\n"
        ),
        _ => format!("fn {name}(a: u32) -> u32 {{ return {binding}[a >> 2u]; }}\n"),
    }
}

/// How a kernel moves one row between two bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowCopy {
    /// Whole `vec4<u32>`s: both sides 16-byte aligned, rows a multiple of 16 bytes.
    Chunks(u64),
    /// Whole words: both sides word-aligned, rows a multiple of 4 bytes.
    Words(u64),
    /// In units of 1, 2 or 4 bytes, each output word assembled whole by one invocation
    /// ([`subword`](super::subword)'s kernels; [`RowCopy::wgsl`] gives nothing for it).
    Bytes(u64),
}

impl RowCopy {
    /// The copy for rows of `row_bytes` read at `src_offset + i × src_stride` (plus binding
    /// bases, multiples of 16) into packed rows.
    pub(crate) fn choose(row_bytes: u64, src_offset: u64, src_stride: u64) -> RowCopy {
        let all = |m: u64| {
            row_bytes.is_multiple_of(m)
                && src_offset.is_multiple_of(m)
                && src_stride.is_multiple_of(m)
        };
        if all(16) {
            RowCopy::Chunks(row_bytes / 16)
        } else if all(4) {
            RowCopy::Words(row_bytes / 4)
        } else {
            RowCopy::Bytes(row_bytes)
        }
    }

    /// The element type of the source binding.
    pub(crate) fn source_element(self) -> &'static str {
        match self {
            RowCopy::Chunks(_) => "vec4<u32>",
            _ => "u32",
        }
    }

    /// The element type of the output binding.
    pub(crate) fn output_element(self) -> &'static str {
        match self {
            RowCopy::Chunks(_) => "vec4<u32>",
            RowCopy::Words(_) | RowCopy::Bytes(_) => "u32",
        }
    }

    /// WGSL statements copying the row at byte address `src` of binding `from` to byte address
    /// `dst` of binding `to` (both `u32` expressions that are names).
    pub(crate) fn wgsl(self, from: &str, src: &str, to: &str, dst: &str) -> String {
        match self {
            RowCopy::Chunks(n) => format!(
                "for (var j = 0u; j < {n}u; j++) {{ {to}[({dst} >> 4u) + j] = {from}[({src} >> 4u) + j]; }}\n"
            ),
            RowCopy::Words(n) => format!(
                "for (var j = 0u; j < {n}u; j++) {{ {to}[({dst} >> 2u) + j] = {from}[({src} >> 2u) + j]; }}\n"
            ),
            RowCopy::Bytes(_) => String::new(),
        }
    }
}

/// One dispatch of `wgsl`'s `main` over `workgroups` workgroups of [`WORKGROUP`] invocations,
/// with `params` in the uniform (binding 0) and `bindings` as bindings 1, 2, …, through the one
/// binding/dispatch path ([`Kernel::dispatch`]).
///
/// # Errors
/// [`OpError::TooLarge`] for a binding over the device's limit, [`OpError::TooManyBindings`],
/// [`OpError::DispatchTooLarge`], [`OpError::Gpu`] when the device refuses the kernel.
pub(crate) fn dispatch(
    planner: &Planner<'_>,
    op: &'static str,
    wgsl: &str,
    params: &[u32],
    bindings: &[Bound<'_>],
    workgroups: u64,
) -> Result<Dispatch, OpError> {
    let bindings: Vec<Binding<'_>> = bindings.iter().map(|b| b.binding).collect();
    let kernel = Kernel {
        op,
        wgsl: Arc::from(wgsl),
        workgroup_size: WORKGROUP,
        rows_per_thread: 1,
    };
    kernel.dispatch(planner, params, &bindings, workgroups)
}

/// A zeroed buffer of `size` bytes (at least 16, rounded up to whole words) for a kernel to write,
/// with the usages of operation outputs (storage, copies both ways, vertex and index buffers), made by the device layer
/// ([`create_buffer`](crate::device::buffers::create_buffer): checked size, error scope).
///
/// # Errors
/// [`OpError::TooLarge`] over `max_buffer_size`; [`OpError::Gpu`] when the device refuses it.
pub(crate) fn output_buffer(
    planner: &Planner<'_>,
    op: &'static str,
    size: u64,
) -> Result<wgpu::Buffer, OpError> {
    let size = size.max(16).next_multiple_of(4);
    let limit = planner.device().limits().max_buffer_size;
    if size > limit {
        return Err(OpError::TooLarge {
            op,
            what: "an output buffer",
            size,
            limit,
        });
    }
    create_buffer(
        planner.gpu(),
        size,
        wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::VERTEX
            | wgpu::BufferUsages::INDEX,
        op,
    )
    .map_err(|source| OpError::Gpu { op, source })
}

/// A 32-bit base for the uniform.
pub(crate) fn base32(op: &'static str, value: u64) -> Result<u32, OpError> {
    u32::try_from(value).map_err(|_| OpError::Overflow { op, input: 0 })
}
