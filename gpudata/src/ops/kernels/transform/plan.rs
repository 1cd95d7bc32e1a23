//! The row-transform planner: from a [`KernelRequest`] (validated views, a length, output
//! strides, constants) to the dispatches that run it, writing fresh output buffers
//! ([`build`], an operation's) or placed ranges of existing ones ([`build_placed`], a table
//! re-layout's). The sources are grouped by [`grouping`](super::grouping), the rows laid out and
//! split by [`geometry`](super::geometry), each dispatch generated and bound by
//! [`kernel`].

use super::body::{Body, ValueRef};
use super::geometry::{Outputs, Placement, RowGeometry, gcd, rows_per_thread_of, widest_unit};
use super::grouping::{SourceGroup, group_sources};
use super::kernel;
use crate::data::GpuDataView;
use crate::device::Gpu;
use crate::device::buffers::create_buffer;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::split::max_binding_size;

/// Usage of an operation's output buffers: written by its kernels, then read back, copied,
/// written again or drawn from.
const OUTPUT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::VERTEX);

/// What a kernel reads and writes, before it is laid out.
pub(crate) struct KernelRequest<'a> {
    /// The operation, for errors and labels.
    pub op: &'static str,
    /// Every value the rows read, each with the same length.
    pub views: Vec<GpuDataView<'a>>,
    /// The row count.
    pub length: u64,
    /// Bytes per row of each output.
    pub output_strides: Vec<u64>,
    /// Constant operands, as raw `vec4<u32>` bits.
    pub constants: Vec<[u32; 4]>,
}

/// A planned dispatch and the buffers it writes.
pub(crate) struct Built {
    /// The device the kernels were planned on.
    pub gpu: Gpu,
    /// The dispatches, to run in order.
    pub dispatches: Vec<Dispatch>,
    /// The output buffers, one per output stride.
    pub outputs: Vec<wgpu::Buffer>,
    /// Bytes one run moves at least.
    pub bytes_moved: u64,
}

/// Plans the kernels of `request`; `make_body` gets the [`ValueRef`] of each view, in order.
///
/// Usually one dispatch. When a source could be read in `vec4<u32>` (or `vec2<u32>`) units but
/// its buffer ends inside the last unit (buffers are padded to 4 bytes, not 16), the rows are
/// split: the bulk is read in the wide units and a short tail dispatch reads the last rows in
/// 32-bit words, so the fast path never reads past a buffer.
///
/// When a range's bindings would exceed the device's `max_storage_buffer_binding_size`, it is
/// split further into runs of rows ([`RowGeometry::chunks`](super::geometry::RowGeometry::chunks)), each dispatch binding only the
/// bytes of its own rows, at storage-aligned offsets, with its own row count and source bases.
/// Every run starts on a multiple of `step` rows, so the runs of a range share one pipeline.
pub(crate) fn build<'a, B: Body>(
    ops: &Planner<'_>,
    request: KernelRequest<'a>,
    make_body: impl Fn(&[ValueRef]) -> B,
) -> Result<Built, OpError> {
    let op = request.op;
    let limits = ops.device().limits();
    let (groups, refs) = group_sources(ops, op, &request.views, request.length)?;
    let length = request.length;
    let g64 = u64::from(rows_per_thread_of(ops, &groups, &request.output_strides));
    let threads = length.div_ceil(g64);

    // Outputs, sized for whole invocations.
    let mut output_sizes = Vec::with_capacity(request.output_strides.len());
    for (o, &stride) in request.output_strides.iter().enumerate() {
        let size = threads
            .checked_mul(g64 * stride)
            .ok_or(OpError::Overflow { op, input: o })?
            .max(4);
        if size > limits.max_buffer_size {
            return Err(OpError::TooLarge {
                op,
                what: "an output buffer",
                size,
                limit: limits.max_buffer_size,
            });
        }
        output_sizes.push(size);
    }
    let output_buffers = output_sizes
        .iter()
        .map(|&size| {
            create_buffer(ops.gpu(), size, OUTPUT_USAGE, op)
                .map_err(|source| OpError::Gpu { op, source })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let dispatches = plan_dispatches(
        ops,
        &request,
        &groups,
        &refs,
        g64,
        Outputs::Fresh(&output_buffers),
        make_body,
    )?;
    Ok(Built {
        gpu: ops.gpu().clone(),
        dispatches,
        outputs: output_buffers,
        bytes_moved: bytes_moved(&request),
    })
}

/// Bytes a plan of `request` moves at least: every input value read once and every output row
/// written once.
fn bytes_moved(request: &KernelRequest<'_>) -> u64 {
    let bytes_read: u64 = request
        .views
        .iter()
        .map(|v| v.length() * v.format().byte_length())
        .sum();
    let bytes_written: u64 = request
        .output_strides
        .iter()
        .map(|s| s * request.length)
        .sum();
    bytes_read + bytes_written
}

/// Plans the kernels of `request` writing into existing buffers: output `o`'s rows go to
/// `places[o]` (see [`Placement`] and the placed kernels of [`wgsl_gen`](super::wgsl_gen)).
/// Every byte of the buffers outside the placed rows keeps its value, so several plans (one per
/// batch, field or segment) can fill one buffer; their dispatches must run in the order planned. Row splitting,
/// tails and binding limits are as in [`build`].
pub(crate) fn build_placed<'a, B: Body>(
    ops: &Planner<'_>,
    request: KernelRequest<'a>,
    places: &[Placement<'_>],
    make_body: impl Fn(&[ValueRef]) -> B,
) -> Result<Vec<Dispatch>, OpError> {
    let op = request.op;
    if places.len() != request.output_strides.len() {
        return Err(OpError::Overflow { op, input: 0 });
    }
    let (groups, refs) = group_sources(ops, op, &request.views, request.length)?;
    for (o, (place, &stride)) in places.iter().zip(&request.output_strides).enumerate() {
        let end = place
            .first_row
            .checked_add(request.length)
            .and_then(|rows| rows.checked_mul(stride))
            .and_then(|bytes| bytes.checked_add(place.offset))
            .ok_or(OpError::Overflow { op, input: o })?;
        if !place.offset.is_multiple_of(16) || end > place.buffer.size() {
            return Err(OpError::OutOfBounds {
                op,
                input: o,
                needed: end,
                available: place.buffer.size(),
            });
        }
    }
    let g64 = u64::from(rows_per_thread_of(ops, &groups, &request.output_strides));
    plan_dispatches(
        ops,
        &request,
        &groups,
        &refs,
        g64,
        Outputs::Placed(places),
        make_body,
    )
}

/// The dispatches of `request` over its `groups` of sources, `g64` rows per invocation, into
/// `outputs`.
fn plan_dispatches<B: Body>(
    ops: &Planner<'_>,
    request: &KernelRequest<'_>,
    groups: &[SourceGroup<'_>],
    refs: &[ValueRef],
    g64: u64,
    outputs: Outputs<'_, '_>,
    make_body: impl Fn(&[ValueRef]) -> B,
) -> Result<Vec<Dispatch>, OpError> {
    let op = request.op;
    let limits = ops.device().limits();
    let length = request.length;
    if length == 0 {
        return Ok(Vec::new());
    }

    // The widest unit each source's stride allows, and whether its buffer ends inside one.
    let ideal: Vec<u64> = groups.iter().map(|g| widest_unit(g64 * g.stride)).collect();
    let fits = |g: &SourceGroup<'_>, u: u64| {
        g.end
            .checked_next_multiple_of(u)
            .is_some_and(|e| e <= g.buffer.size())
    };
    let short = groups
        .iter()
        .zip(&ideal)
        .filter(|(g, u)| !fits(g, **u))
        .map(|(g, _)| 16u64.div_ceil(g.stride.max(1)))
        .max();
    // Rows of the bulk: a multiple of `G` whose output bytes keep tail bindings aligned.
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
    let step = request
        .output_strides
        .iter()
        .map(|&s| align / gcd(align, s))
        .fold(g64, u64::max);
    let bulk = match short {
        None => length,
        Some(tail) => length.saturating_sub(tail) / step * step,
    };
    let rows = RowGeometry {
        op,
        groups,
        output_strides: &request.output_strides,
        length,
        g64,
        align,
        step,
        max_binding: max_binding_size(&limits),
        placed: outputs.placed(),
    };
    let mut ranges = Vec::with_capacity(2);
    if bulk > 0 {
        ranges.push((0, bulk, ideal.clone()));
    }
    if bulk < length {
        let fitted: Vec<u64> = groups
            .iter()
            .zip(&ideal)
            .map(|(g, &u)| {
                [u, 8, 4]
                    .into_iter()
                    .find(|&w| w <= u && (g64 * g.stride).is_multiple_of(w) && fits(g, w))
                    .unwrap_or(4)
            })
            .collect();
        ranges.push((bulk, length, fitted));
    }
    let body = make_body(refs);
    let mut dispatches = Vec::new();
    for (from, to, units) in &ranges {
        for (first_row, count) in rows.chunks(units, *from, *to)? {
            let (targets, lo) = rows.targets(outputs, first_row, count)?;
            dispatches.push(kernel::dispatch(
                ops,
                &rows,
                units,
                (first_row, count, lo),
                &targets,
                &request.constants,
                &body,
            )?);
        }
    }
    Ok(dispatches)
}
