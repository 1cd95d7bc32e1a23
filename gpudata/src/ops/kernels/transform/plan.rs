//! From validated inputs to a ready dispatch: grouping views into sources, choosing rows per
//! invocation and load/store widths, bindings (checked against the device's limits, and split
//! into several dispatches over runs of rows when one binding cannot hold them), the generated
//! kernel, its uniform and the output buffers. [`OpPlan`] is the result.

use crate::device::buffers::{create_buffer, filled_buffer};
use std::sync::Arc;

use super::wgsl_gen::{
    self, BindingDecl, Body, KernelLayout, OutputDecl, SourceDecl, StagedOutput, StagedSource,
    ValueRef, pitch,
};
use crate::data::GpuDataView;
use crate::device::Gpu;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::shape::ViewShape;
use crate::ops::kernels::split::{
    binding_start, check_binding_count, dispatch_shape, even_runs, max_binding_size,
};

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
    pub dispatches: Vec<Dispatch>,
    pub outputs: Vec<wgpu::Buffer>,
    pub bytes_moved: u64,
}

/// The recorded parts of one dispatch.
pub(crate) struct Dispatch {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    workgroups: (u32, u32),
    rows_per_thread: u32,
    wgsl: Arc<str>,
}

impl Dispatch {
    /// Records the dispatch into `pass`.
    pub(crate) fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.workgroups.0, self.workgroups.1, 1);
    }

    /// A dispatch of a kernel generated outside the row-transform generator (the selection
    /// kernels of [`rows`](crate::ops::kernels::select::rows)), one row per invocation.
    pub(crate) fn new(
        pipeline: wgpu::ComputePipeline,
        bind_group: wgpu::BindGroup,
        workgroups: (u32, u32),
        wgsl: Arc<str>,
    ) -> Dispatch {
        Dispatch {
            pipeline,
            bind_group,
            workgroups,
            rows_per_thread: 1,
            wgsl,
        }
    }
}

/// A source before it gets a load unit: rows of one buffer read with one stride, and the views
/// inside each row.
struct SourceGroup<'a> {
    buffer: &'a wgpu::Buffer,
    stride: u64,
    offset: u64,
    end: u64,
    /// Bytes of each row the views read.
    used: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Rows per invocation: the fewest that make every output's rows whole 16-byte chunks and every
/// source's rows whole words, then more (up to `preferred`, while an invocation writes at most
/// 64 bytes) so that sources can be read in wider units.
fn rows_per_thread(
    source_strides: &[u64],
    output_strides: &[u64],
    requested: Option<u32>,
    staging: bool,
) -> u32 {
    let mut needed = 1u64;
    for &s in output_strides {
        needed = needed.max(16 / gcd(16, s));
    }
    for &s in source_strides {
        needed = needed.max(4 / gcd(4, s));
    }
    let mut g = needed;
    match requested {
        Some(r) => {
            while g < u64::from(r).min(16) {
                g *= 2;
            }
        }
        // Staging makes wide rows coalesced already; more rows per invocation only cost
        // registers and workgroup memory (measured on an H200: interleave into 32-byte rows ran
        // at 93% of a copy with one row per invocation, 56% with four).
        None if staging => {}
        None => {
            let preferred = source_strides
                .iter()
                .map(|&s| (16 / gcd(16, s)).min(4))
                .max()
                .unwrap_or(1);
            let row_bytes: u64 = output_strides.iter().sum();
            while g < preferred && g * row_bytes <= 64 {
                g *= 2;
            }
        }
    }
    // At most 16: `needed` is at most 16 and the loops stop at 16 or below.
    g as u32
}

/// The widest load or store unit (16, 8 or 4 bytes) that `bytes`, the bytes of one invocation's
/// rows, is a whole number of.
fn widest_unit(bytes: u64) -> u64 {
    [16u64, 8, 4]
        .into_iter()
        .find(|&u| bytes.is_multiple_of(u))
        .unwrap_or(4)
}

/// Where a placed kernel writes one output: rows of `stride` bytes (the request's output
/// stride) in a region of an existing `buffer` that starts at byte `offset` (a multiple of 16),
/// request row 0 going to the region's row `first_row`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placement<'b> {
    pub buffer: &'b wgpu::Buffer,
    pub offset: u64,
    pub first_row: u64,
}

/// The outputs of a plan: fresh buffers (an operation's), or placements (a re-layout's).
#[derive(Clone, Copy)]
enum Outputs<'o, 'b> {
    Fresh(&'o [wgpu::Buffer]),
    Placed(&'o [Placement<'b>]),
}

impl Outputs<'_, '_> {
    fn placed(&self) -> bool {
        matches!(self, Outputs::Placed(_))
    }
}

/// One output binding of a dispatch: its range and the first invocation's store base in it.
struct OutputTarget<'b> {
    buffer: &'b wgpu::Buffer,
    start: u64,
    size: u64,
    stride: u64,
    base: u64,
}

/// Plans the kernels of `request`; `make_body` gets the [`ValueRef`] of each view, in order.
///
/// Usually one dispatch. When a source could be read in `vec4<u32>` (or `vec2<u32>`) units but
/// its buffer ends inside the last unit (buffers are padded to 4 bytes, not 16), the rows are
/// split: the bulk is read in the wide units and a short tail dispatch reads the last rows in
/// 32-bit words, so the fast path never reads past a buffer.
///
/// When a range's bindings would exceed the device's `max_storage_buffer_binding_size`, it is
/// split further into runs of rows ([`RowGeometry::chunks`]), each dispatch binding only the
/// bytes of its own rows, at storage-aligned offsets, with its own row count and source bases.
/// Every run starts on a multiple of `step` rows, so the runs of a range share one pipeline.
pub(crate) fn build<'a, B: Body>(
    ops: &Planner<'_>,
    request: KernelRequest<'a>,
    make_body: impl Fn(&[ValueRef]) -> B,
) -> Result<Built, OpError> {
    let op = request.op;
    let limits = ops.device().limits();
    let (groups, refs) = group_sources(ops, &request)?;
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
/// `places[o]` (see [`Placement`] and the placed kernels of [`wgsl_gen`]). Every byte of the
/// buffers outside the placed rows keeps its value, so several plans (one per batch, field or
/// segment) can fill one buffer; their dispatches must run in the order planned. Row splitting,
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
    let (groups, refs) = group_sources(ops, &request)?;
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

/// Rows per invocation of a plan over `groups` writing `output_strides`.
fn rows_per_thread_of(
    ops: &Planner<'_>,
    groups: &[SourceGroup<'_>],
    output_strides: &[u64],
) -> u32 {
    let source_strides: Vec<u64> = groups.iter().map(|g| g.stride).collect();
    rows_per_thread(
        &source_strides,
        output_strides,
        ops.config().rows_per_thread,
        ops.config().stage_outputs,
    )
}

/// Checks the request's views (lengths, shapes, device) and groups those that share a buffer,
/// a stride and a row window into sources; returns the sources and each view's place in them.
fn group_sources<'a>(
    ops: &Planner<'_>,
    request: &KernelRequest<'a>,
) -> Result<(Vec<SourceGroup<'a>>, Vec<ValueRef>), OpError> {
    let op = request.op;
    for (i, view) in request.views.iter().enumerate() {
        if view.length() != request.length {
            return Err(OpError::LengthMismatch {
                op,
                input: i,
                expected: request.length,
                found: view.length(),
            });
        }
        let buffer = view
            .buffer_on(ops.gpu(), "plan an operation")
            .map_err(|source| OpError::Gpu { op, source })?;
        ViewShape::of(view).check(op, i, buffer.size(), true)?;
    }
    ops.gpu()
        .check_lost("plan an operation")
        .map_err(|source| OpError::Gpu { op, source })?;
    if request.length > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op,
            length: request.length,
            max: u64::from(u32::MAX),
        });
    }

    // Group views that share a buffer and a stride and lie in one row window.
    let mut order: Vec<usize> = (0..request.views.len()).collect();
    order.sort_by_key(|&i| {
        let v = &request.views[i];
        (v.byte_stride(), v.byte_offset())
    });
    let mut groups: Vec<SourceGroup<'a>> = Vec::new();
    let mut refs = vec![ValueRef { source: 0, rel: 0 }; request.views.len()];
    for &i in &order {
        let view = request.views[i];
        let end = ViewShape::of(&view).end(op, i)?;
        let found = groups.iter().position(|g| {
            g.buffer == view.buffer()
                && g.stride == view.byte_stride()
                && view.byte_offset() - g.offset < g.stride.max(1)
        });
        let source = match found {
            Some(s) => {
                groups[s].end = groups[s].end.max(end);
                groups[s].used += view.format().byte_length();
                s
            }
            None => {
                groups.push(SourceGroup {
                    buffer: view.buffer(),
                    stride: view.byte_stride(),
                    offset: view.byte_offset(),
                    end,
                    used: view.format().byte_length(),
                });
                groups.len() - 1
            }
        };
        refs[i] = ValueRef {
            source,
            rel: view.byte_offset() - groups[source].offset,
        };
    }
    Ok((groups, refs))
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
            dispatches.push(dispatch(
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

/// A storage range one dispatch binds: a source buffer's `[start, end)`, read in `decl.unit`s.
struct BindingRange<'a> {
    decl: BindingDecl,
    buffer: &'a wgpu::Buffer,
    start: u64,
    end: u64,
}

impl BindingRange<'_> {
    fn size(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// The source side of one dispatch: its bindings, its sources and each source's base (in load
/// units from the start of its binding).
struct SourceBindings<'a> {
    bindings: Vec<BindingRange<'a>>,
    sources: Vec<SourceDecl>,
    /// Negative only for a placed dispatch whose first block begins before its source.
    bases: Vec<i128>,
}

/// What every dispatch of one operation shares: where the sources' rows lie, the outputs' row
/// sizes and the device's binding rules. Splits rows into dispatches whose bindings fit.
struct RowGeometry<'g, 'a> {
    op: &'static str,
    groups: &'g [SourceGroup<'a>],
    output_strides: &'g [u64],
    /// Rows of the whole operation.
    length: u64,
    /// Rows per invocation.
    g64: u64,
    /// Storage offset alignment (at least 16).
    align: u64,
    /// Every dispatch but the last of a range covers a multiple of `step` rows, so that each
    /// output binding starts at an aligned offset and on an invocation's first row.
    step: u64,
    /// The largest storage binding.
    max_binding: u64,
    /// Whether the outputs are placements (a dispatch then starts at its first row's block).
    placed: bool,
}

impl<'a> RowGeometry<'_, 'a> {
    fn overflow(&self, input: usize) -> OpError {
        OpError::Overflow { op: self.op, input }
    }

    /// The source bindings of rows `first_row..first_row + rows`, each source read in
    /// `units[s]` bytes. Each binding runs from the storage-aligned start of its first unit to
    /// the end of the last unit its rows use (never past the buffer's last whole unit). Sources
    /// in one buffer read in the same unit share a binding while the union fits the binding
    /// limit.
    ///
    /// `lo` rows before the first (a placed dispatch's place in its first block) are read as
    /// well: the bases point at row `first_row - lo`, below the binding's start (wrapping) when
    /// those rows lie before the buffer.
    fn source_bindings(
        &self,
        units: &[u64],
        first_row: u64,
        rows: u64,
        lo: u64,
    ) -> Result<SourceBindings<'a>, OpError> {
        // Rows of the operation after this dispatch's last.
        let after = self
            .length
            .checked_sub(first_row)
            .and_then(|r| r.checked_sub(rows))
            .ok_or_else(|| self.overflow(0))?;
        let mut bindings: Vec<BindingRange<'a>> = Vec::new();
        let mut sources = Vec::with_capacity(self.groups.len());
        let mut firsts = Vec::with_capacity(self.groups.len());
        for (s, (group, &unit)) in self.groups.iter().zip(units).enumerate() {
            let offset = first_row
                .checked_mul(group.stride)
                .and_then(|d| d.checked_add(group.offset))
                .ok_or_else(|| self.overflow(s))?;
            // The block's first row, as a signed byte position (`lo × stride` is below 16 rows).
            let virtual_row = i128::from(offset) - i128::from(lo) * i128::from(group.stride);
            let unit_i = i128::from(unit);
            let phase = virtual_row.rem_euclid(unit_i) as u64;
            let first = virtual_row - i128::from(phase);
            // `first` lies in [offset - 16 × stride, offset]: the u64 conversions hold.
            let start = binding_start(first.max(0) as u64, self.align);
            let end = after
                .checked_mul(group.stride)
                .and_then(|d| group.end.checked_sub(d))
                .and_then(|e| e.checked_next_multiple_of(unit))
                .ok_or_else(|| self.overflow(s))?
                .min(group.buffer.size() / unit * unit);
            let shared = bindings.iter().position(|b| {
                b.buffer == group.buffer
                    && u64::from(b.decl.unit) == unit
                    && b.end.max(end).saturating_sub(b.start.min(start)) <= self.max_binding
            });
            let binding = match shared {
                Some(b) => {
                    bindings[b].start = bindings[b].start.min(start);
                    bindings[b].end = bindings[b].end.max(end);
                    b
                }
                None => {
                    bindings.push(BindingRange {
                        decl: BindingDecl {
                            // 4, 8 or 16.
                            unit: unit as u32,
                            read_only: true,
                        },
                        buffer: group.buffer,
                        start,
                        end,
                    });
                    bindings.len() - 1
                }
            };
            sources.push(SourceDecl {
                binding,
                unit: unit as u32,
                stride: group.stride,
                phase,
            });
            firsts.push(first);
        }
        let bases = sources
            .iter()
            .zip(firsts)
            .map(|(source, first)| {
                (first - i128::from(bindings[source.binding].start)) / i128::from(source.unit)
            })
            .collect();
        Ok(SourceBindings {
            bindings,
            sources,
            bases,
        })
    }

    /// Bytes output `o`'s binding needs for `rows` rows: whole invocations of `G` rows, and
    /// for a placed output the most that its first block and its aligned start can add.
    fn output_size(&self, o: usize, rows: u64) -> Result<u64, OpError> {
        let slack = if self.placed {
            self.g64 * self.output_strides[o] + self.align
        } else {
            0
        };
        rows.div_ceil(self.g64)
            .checked_mul(self.g64)
            .and_then(|r| r.checked_mul(self.output_strides[o]))
            .and_then(|b| b.checked_add(slack))
            .ok_or_else(|| self.overflow(o))
    }

    /// The output bindings of rows `first_row..first_row + rows`, and the dispatch's `lo` (its
    /// first row's place in its first block; 0 for fresh outputs).
    fn targets<'b>(
        &self,
        outputs: Outputs<'b, 'b>,
        first_row: u64,
        rows: u64,
    ) -> Result<(Vec<OutputTarget<'b>>, u64), OpError> {
        let mut targets = Vec::with_capacity(self.output_strides.len());
        match outputs {
            Outputs::Fresh(buffers) => {
                for (o, (buffer, &stride)) in buffers.iter().zip(self.output_strides).enumerate() {
                    targets.push(OutputTarget {
                        buffer,
                        start: first_row * stride,
                        size: self.output_size(o, rows)?,
                        stride,
                        base: 0,
                    });
                }
                Ok((targets, 0))
            }
            Outputs::Placed(places) => {
                let mut lo = 0;
                for (o, (place, &stride)) in places.iter().zip(self.output_strides).enumerate() {
                    let overflow = || self.overflow(o);
                    let first = place
                        .first_row
                        .checked_add(first_row)
                        .ok_or_else(overflow)?;
                    let block = first / self.g64 * self.g64;
                    lo = first - block;
                    let unit = widest_unit(self.g64 * stride);
                    let block_byte = block
                        .checked_mul(stride)
                        .and_then(|b| b.checked_add(place.offset))
                        .ok_or_else(overflow)?;
                    let end = first
                        .checked_add(rows)
                        .and_then(|r| r.checked_mul(stride))
                        .and_then(|b| b.checked_add(place.offset))
                        .and_then(|b| b.checked_next_multiple_of(unit))
                        .ok_or_else(overflow)?
                        .min(place.buffer.size() / unit * unit);
                    let start = binding_start(block_byte, self.align);
                    targets.push(OutputTarget {
                        buffer: place.buffer,
                        start,
                        size: end.saturating_sub(start),
                        stride,
                        base: (block_byte - start) / unit,
                    });
                }
                Ok((targets, lo))
            }
        }
    }

    /// Whether one dispatch over rows `first_row..first_row + rows` binds nothing larger than
    /// the limit.
    fn fits(&self, units: &[u64], first_row: u64, rows: u64) -> Result<bool, OpError> {
        let lo = if self.placed { self.g64 - 1 } else { 0 };
        let sources = self.source_bindings(units, first_row, rows, lo)?;
        if sources.bindings.iter().any(|b| b.size() > self.max_binding) {
            return Ok(false);
        }
        for o in 0..self.output_strides.len() {
            if self.output_size(o, rows)? > self.max_binding {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Rows per dispatch when rows must be split: the most, in whole `step`s, that keep every
    /// binding within the limit whatever the first row (a source binding may begin up to
    /// `align - unit` bytes before its first unit, start `unit - 1` bytes into it and end
    /// `unit - 1` bytes past its last row). At least one `step`: when even that does not fit,
    /// the dispatch reports [`OpError::TooLarge`].
    fn chunk_rows(&self, units: &[u64]) -> u64 {
        let mut rows = u64::MAX;
        for &stride in self.output_strides {
            let room = if self.placed {
                // The first block and the aligned start (see `output_size`).
                self.max_binding
                    .saturating_sub(self.g64 * stride * 2 + self.align)
            } else {
                self.max_binding
            };
            if let Some(fit) = room.checked_div(stride) {
                rows = rows.min(fit);
            }
        }
        for (group, &unit) in self.groups.iter().zip(units) {
            // Bytes the views use of the last row, from the group's offset in it.
            let extent = (self.length - 1)
                .checked_mul(group.stride)
                .and_then(|d| group.end.checked_sub(group.offset)?.checked_sub(d));
            // A placed dispatch also reads up to `G - 1` rows before its first.
            let before = if self.placed {
                (self.g64 - 1).saturating_mul(group.stride)
            } else {
                0
            };
            let room = extent
                .and_then(|e| {
                    e.checked_add(self.align)?
                        .checked_add(unit)?
                        .checked_add(before)
                })
                .and_then(|slack| self.max_binding.checked_sub(slack));
            rows = rows.min(match room {
                None => 0,
                Some(_) if group.stride == 0 => u64::MAX,
                Some(room) => room / group.stride + 1,
            });
        }
        (rows / self.step * self.step).max(self.step)
    }

    /// Rows `from..to` as `(first row, rows)` dispatches: one when its bindings fit (the usual
    /// case, unchanged by splitting), else as few consecutive runs as
    /// [`chunk_rows`](Self::chunk_rows) allows, of about equal size (whole `step`s each, the
    /// last one the rest) so no dispatch is a sliver. `from` is a multiple of `step`.
    fn chunks(&self, units: &[u64], from: u64, to: u64) -> Result<Vec<(u64, u64)>, OpError> {
        if self.fits(units, from, to - from)? {
            return Ok(vec![(from, to - from)]);
        }
        Ok(even_runs(from, to, self.chunk_rows(units), self.step))
    }
}

/// One dispatch over rows `first_row..first_row + rows` of the sources (`span`, with `lo`, the
/// first row's place in its block for a placed dispatch), reading each source in `units[s]`
/// bytes and writing the outputs' ranges in `targets`.
fn dispatch(
    ops: &Planner<'_>,
    geometry: &RowGeometry<'_, '_>,
    units: &[u64],
    span: (u64, u64, u64),
    targets: &[OutputTarget<'_>],
    constants: &[[u32; 4]],
    body: &dyn Body,
) -> Result<Dispatch, OpError> {
    let (first_row, rows, lo) = span;
    let op = geometry.op;
    let device = ops.device();
    let limits = device.limits();
    let g64 = geometry.g64;
    // At most 16: see `rows_per_thread`.
    let g_rows = g64 as u32;
    // A placed dispatch covers its rows' blocks: `lo` rows of the first belong to others.
    let threads = (rows + lo).div_ceil(g64);
    let overflow = |input: usize| OpError::Overflow { op, input };

    let SourceBindings {
        bindings,
        sources,
        bases,
    } = geometry.source_bindings(units, first_row, rows, lo)?;
    let bases = bases
        .into_iter()
        .enumerate()
        .map(|(s, base)| {
            // A negative base (a placed first block before its source) wraps: the kernel's
            // unsigned index arithmetic brings every row of the range back into the binding.
            match u32::try_from(base) {
                Ok(base) => Ok(base),
                Err(_) if base < 0 && base > -(1 << 31) => Ok(base as i32 as u32),
                Err(_) => Err(overflow(s)),
            }
        })
        .collect::<Result<Vec<u32>, OpError>>()?;
    let max_binding = geometry.max_binding;
    for binding in &bindings {
        if binding.size() > max_binding {
            return Err(OpError::TooLarge {
                op,
                what: "a storage binding",
                size: binding.size(),
                limit: max_binding,
            });
        }
    }

    let mut outputs = Vec::with_capacity(targets.len());
    let mut output_ranges = Vec::with_capacity(targets.len());
    for (o, target) in targets.iter().enumerate() {
        let unit = widest_unit(g64 * target.stride);
        let size = target.size;
        if size > max_binding {
            return Err(OpError::TooLarge {
                op,
                what: "a storage binding",
                size,
                limit: max_binding,
            });
        }
        outputs.push(OutputDecl {
            binding: bindings.len() + o,
            unit: unit as u32,
            row_stride: target.stride,
        });
        output_ranges.push((target.start, size));
    }
    check_binding_count(op, &limits, (bindings.len() + outputs.len()) as u64)?;

    let (staged_sources, staged_outputs, stage_len) =
        staging(ops, geometry.groups, &sources, &outputs, g64);

    // Dispatch shape.
    let workgroup_size = ops.workgroup_size();
    let workgroups = threads.div_ceil(u64::from(workgroup_size));
    let max_dim = limits.max_compute_workgroups_per_dimension;
    let too_large = OpError::DispatchTooLarge {
        op,
        workgroups,
        limit: max_dim,
    };
    let (x, y) = dispatch_shape(workgroups, max_dim).ok_or(too_large.clone())?;
    if u64::from(x) * u64::from(y) * u64::from(workgroup_size) > u64::from(u32::MAX) {
        return Err(too_large);
    }

    let layout = KernelLayout {
        workgroup_size,
        rows_per_thread: g_rows,
        bindings: bindings
            .iter()
            .map(|b| b.decl.clone())
            .chain(outputs.iter().map(|o| BindingDecl {
                unit: o.unit,
                read_only: false,
            }))
            .collect(),
        sources,
        outputs,
        constants: constants.len(),
        staged_sources,
        staged_outputs,
        stage_len,
        placed: geometry.placed,
    };
    let wgsl: Arc<str> = Arc::from(wgsl_gen::generate(&layout, body));
    let pipeline = ops.pipeline(op, &wgsl)?;

    let mut params = vec![[0u32; 4]; layout.param_len()];
    // `rows`, `rows + lo` and `threads` fit in u32: the caller checked the length, and a
    // placed dispatch covers at most one more block.
    let end = u32::try_from(rows + lo).map_err(|_| overflow(0))?;
    params[0] = [end, threads as u32, lo as u32, 0];
    for (i, base) in bases.iter().enumerate() {
        params[1 + i / 4][i % 4] = *base;
    }
    if geometry.placed {
        for (o, target) in targets.iter().enumerate() {
            params[layout.output_base() + o / 4][o % 4] =
                u32::try_from(target.base).map_err(|_| overflow(o))?;
        }
    }
    for (j, c) in constants.iter().enumerate() {
        params[layout.constant_base() + j] = *c;
    }
    let param_bytes: Vec<u8> = params
        .iter()
        .flat_map(|v| v.iter().flat_map(|w| w.to_le_bytes()))
        .collect();

    let bind_group = ops.scope(op, "bind the kernel's buffers", || {
        let params = filled_buffer(ops.gpu(), op, &param_bytes, wgpu::BufferUsages::UNIFORM);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: params.as_entire_binding(),
        }];
        for (i, b) in bindings.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: b.buffer,
                    offset: b.start,
                    size: wgpu::BufferSize::new(b.size()),
                }),
            });
        }
        for (o, (target, (offset, size))) in targets.iter().zip(&output_ranges).enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: (bindings.len() + o) as u32 + 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: target.buffer,
                    offset: *offset,
                    size: wgpu::BufferSize::new(*size),
                }),
            });
        }
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(op),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    })?;

    Ok(Dispatch {
        pipeline,
        bind_group,
        workgroups: (x, y),
        rows_per_thread: g_rows,
        wgsl,
    })
}

/// Which sources and outputs go through workgroup memory, where, and the array's length.
///
/// An invocation that reads or writes more than one `vec4<u32>` of a source or output does so at
/// a stride of `G × row bytes` from its neighbours, so each of its wide loads and stores covers
/// only part of the memory segments a warp touches. Staging makes the global side fully
/// coalesced: the workgroup stores an output's rows from workgroup memory in consecutive
/// `vec4<u32>`s ([`OpsConfig::stage_outputs`](crate::ops::OpsConfig::stage_outputs)), and, if asked,
/// loads a source's rows the same way (only when the views use at least half of each row).
/// Sources and outputs share one array (outputs reuse it after a barrier); what does not fit the
/// device's workgroup storage stays direct, smallest staged first.
#[allow(clippy::type_complexity)] // Three results of one decision.
fn staging(
    ops: &Planner<'_>,
    groups: &[SourceGroup<'_>],
    sources: &[SourceDecl],
    outputs: &[OutputDecl],
    g64: u64,
) -> (Vec<Option<StagedSource>>, Vec<Option<StagedOutput>>, u64) {
    let mut staged_sources = vec![None; sources.len()];
    let mut staged_outputs = vec![None; outputs.len()];
    let config = ops.config();
    let wg = u64::from(ops.workgroup_size());
    let budget = u64::from(ops.device().limits().max_compute_workgroup_storage_size) / 16;
    let mut candidates: Vec<(usize, u64, u64, u64)> = sources
        .iter()
        .zip(groups)
        .enumerate()
        .filter_map(|(s, (source, group))| {
            let chunks = g64 * source.stride / 16;
            let wanted = config.stage_sources && source.unit == 16 && chunks >= 2;
            (wanted && 2 * group.used >= source.stride).then(|| {
                let span = (source.phase + g64 * source.stride).div_ceil(16);
                let len = (wg - 1) * chunks + span;
                // Elements of the padded array the run occupies.
                let room = len.div_ceil(chunks) * pitch(chunks);
                (s, chunks, len, room)
            })
        })
        .collect();
    candidates.sort_by_key(|c| c.3);
    let mut used = 0;
    for (s, chunks, len, room) in candidates {
        if used + room <= budget {
            staged_sources[s] = Some(StagedSource {
                offset: used,
                chunks,
                len,
            });
            used += room;
        }
    }
    let mut candidates: Vec<(usize, u64)> = outputs
        .iter()
        .enumerate()
        .filter_map(|(o, output)| {
            let chunks = g64 * output.row_stride / 16;
            (config.stage_outputs && output.unit == 16 && chunks >= 2).then_some((o, chunks))
        })
        .collect();
    candidates.sort_by_key(|c| c.1);
    let mut used_out = 0;
    for (o, chunks) in candidates {
        let room = wg * pitch(chunks);
        if used_out + room <= budget {
            staged_outputs[o] = Some(StagedOutput {
                offset: used_out,
                chunks,
            });
            used_out += room;
        }
    }
    (staged_sources, staged_outputs, used.max(used_out))
}

/// One operation, ready to record: its pipeline, bindings and workgroup counts, and the output it
/// writes (allocated, not yet written).
///
/// [`run`](Self::run) records and submits it once; [`encode`](Self::encode) records it into a
/// compute pass of yours, as often as you like (benchmarks, per-frame work), writing the same
/// output each time.
pub struct OpPlan<T> {
    op: &'static str,
    gpu: Gpu,
    dispatches: Vec<Dispatch>,
    bytes_moved: u64,
    output: T,
}

impl<T> OpPlan<T> {
    pub(crate) fn new(op: &'static str, built: Built, output: T) -> OpPlan<T> {
        OpPlan {
            op,
            gpu: built.gpu,
            dispatches: built.dispatches,
            bytes_moved: built.bytes_moved,
            output,
        }
    }

    /// A plan of dispatches built outside the row-transform planner (the selection kernels).
    pub(crate) fn from_dispatches(
        gpu: &Gpu,
        op: &'static str,
        dispatches: Vec<Dispatch>,
        bytes_moved: u64,
        output: T,
    ) -> OpPlan<T> {
        OpPlan {
            op,
            gpu: gpu.clone(),
            dispatches,
            bytes_moved,
            output,
        }
    }

    /// The operation's name.
    #[must_use]
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// Records the dispatches into `pass` (none for empty inputs).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        for d in &self.dispatches {
            d.encode(pass);
        }
    }

    /// Records and submits the dispatches (inside an error scope) and returns the output. The
    /// GPU finishes the work in the background; reading the output back waits for it.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when wgpu refuses the submission, for example because an input's buffer
    /// was destroyed after planning; with [`GpuError::OtherDevice`](crate::GpuError::OtherDevice)
    /// when `gpu` is not the device the plan was made on, and
    /// [`GpuError::DeviceLost`](crate::GpuError::DeviceLost) when it is lost.
    pub fn run(self, gpu: &Gpu) -> Result<T, OpError> {
        let op = self.op;
        gpu.check_same_device(Some(&self.gpu), "submit the kernels")
            .and_then(|()| gpu.check_lost("submit the kernels"))
            .map_err(|source| OpError::Gpu { op, source })?;
        if !self.dispatches.is_empty() {
            crate::device::error_scope(gpu, "submit the kernels", || {
                let mut encoder = gpu
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(op) });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(op),
                        timestamp_writes: None,
                    });
                    self.encode(&mut pass);
                }
                gpu.queue().submit([encoder.finish()]);
            })
            .map_err(|source| OpError::Gpu { op, source })?;
        }
        Ok(self.output)
    }

    /// The output the dispatch writes.
    #[must_use]
    pub fn output(&self) -> &T {
        &self.output
    }

    /// Bytes one run must move at least: every input value read once and every output row
    /// written once.
    #[must_use]
    pub fn bytes_moved(&self) -> u64 {
        self.bytes_moved
    }

    /// Workgroups in x and y of the main dispatch (`(0, 0)` for empty inputs).
    #[must_use]
    pub fn workgroups(&self) -> (u32, u32) {
        self.dispatches.first().map_or((0, 0), |d| d.workgroups)
    }

    /// The number of dispatches: 0 for empty inputs, 1 usually, 2 when the last rows of a
    /// source read in wide units run as a separate tail, and more when a source or output range
    /// exceeds the device's `max_storage_buffer_binding_size`: the rows are then split into runs
    /// that each bind only their own bytes.
    #[must_use]
    pub fn dispatches(&self) -> usize {
        self.dispatches.len()
    }

    /// Rows each invocation handles (`0` for empty inputs).
    #[must_use]
    pub fn rows_per_invocation(&self) -> u32 {
        self.dispatches.first().map_or(0, |d| d.rows_per_thread)
    }

    /// The generated WGSL of the main dispatch (`None` for empty inputs).
    #[must_use]
    pub fn wgsl(&self) -> Option<&str> {
        self.dispatches.first().map(|d| &*d.wgsl)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for OpPlan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpPlan")
            .field("op", &self.op)
            .field("workgroups", &self.workgroups())
            .field("dispatches", &self.dispatches())
            .field("rows_per_invocation", &self.rows_per_invocation())
            .field("bytes_moved", &self.bytes_moved)
            .field("output", &self.output)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::rows_per_thread;

    #[test]
    fn rows_per_thread_makes_outputs_whole_chunks() {
        // float32 packed add: 4 rows of 4 bytes.
        assert_eq!(rows_per_thread(&[4, 4], &[4], None, true), 4);
        // uint8 output: 16 rows.
        assert_eq!(rows_per_thread(&[1, 1], &[1], None, true), 16);
        // fround: 8-byte rows.
        assert_eq!(rows_per_thread(&[8], &[8], None, true), 2);
        // Interleave into 32-byte rows from a 12-byte column: one row with staging; without,
        // widened to 4 rows so the column reads as whole 16-byte chunks.
        assert_eq!(rows_per_thread(&[12, 4, 8], &[32], None, true), 1);
        assert_eq!(rows_per_thread(&[12, 4, 8], &[32], None, false), 4);
        // A request never goes below what alignment needs.
        assert_eq!(rows_per_thread(&[1], &[4], Some(1), true), 4);
        assert_eq!(rows_per_thread(&[4], &[16], Some(8), true), 8);
    }
}
