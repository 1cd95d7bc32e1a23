//! The strided byte copy of table re-layouts (pack, segment, interleave), recorded into one
//! command encoder: a `copy_buffer_to_buffer` when the bytes move as one 4-byte aligned block,
//! else a compute kernel that assembles each destination word from the source bytes, keeping the
//! destination's other bytes (the other fields of interleaved rows, neighbouring segments).
//!
//! The kernel compiles through the device's pipeline cache and is split by the planner's rules
//! ([`split`](super::split)): one dispatch per copy, or one per run of rows of about equal size
//! when the copy's source or destination range is larger than one storage binding
//! (`max_storage_buffer_binding_size`), each binding only its own rows at storage-aligned
//! offsets, dispatched in two dimensions past the per-dimension limit. It is written for
//! correctness, not speed (one invocation per destination word); the operations' interleave and
//! deinterleave kernels are the fast path.

use crate::device::buffers::filled_buffer;
use std::collections::HashMap;

use super::split::{binding_start, dispatch_shape, even_runs, max_binding_size};
use crate::device::{Gpu, GpuError, error_scope};
use crate::layout::strided_byte_length;

/// Why a copy cannot be recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CopyError {
    /// The rows leave a buffer, or their byte arithmetic overflows, or a run of them cannot be
    /// bound or dispatched; the fields are the copy's.
    Range {
        src_offset: u64,
        dst_offset: u64,
        rows: u64,
        row_bytes: u64,
    },
    /// A buffer without a usage the copy needs, or the device refused the work.
    Gpu(GpuError),
}

impl From<GpuError> for CopyError {
    fn from(error: GpuError) -> Self {
        CopyError::Gpu(error)
    }
}

/// The label of the copy's pipeline.
const LABEL: &str = "gpudata table copy";

/// One strided byte copy: `rows` rows of `row_bytes` bytes, read every `src_stride` bytes from
/// `src_offset` of `src` and written every `dst_stride` bytes from `dst_offset` of `dst`. Bytes
/// of `dst` outside the rows are left as they are, unless `gaps_free` says that the bytes between
/// destination rows belong to nobody (then a block copy may fill them with the source's).
#[derive(Clone, Debug)]
pub(crate) struct StridedCopy<'a> {
    pub src: &'a wgpu::Buffer,
    pub src_offset: u64,
    pub src_stride: u64,
    pub dst: &'a wgpu::Buffer,
    pub dst_offset: u64,
    pub dst_stride: u64,
    pub rows: u64,
    pub row_bytes: u64,
    pub gaps_free: bool,
}

impl StridedCopy<'_> {
    /// Bytes from the first row's start to the last row's end, or `None` on overflow.
    fn span(&self, stride: u64) -> Option<u64> {
        strided_byte_length(self.rows, stride, self.row_bytes)
    }
}

const KERNEL: &str = r"
struct Params {
    src_offset: u32,
    src_stride: u32,
    dst_offset: u32,
    dst_stride: u32,
    rows: u32,
    row_bytes: u32,
    first_word: u32,
    word_count: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * 64u;
    if (i >= p.word_count) {
        return;
    }
    let w = p.first_word + i;
    var word = dst[w];
    for (var k = 0u; k < 4u; k++) {
        let d = w * 4u + k;
        if (d < p.dst_offset) {
            continue;
        }
        let rel = d - p.dst_offset;
        let row = rel / p.dst_stride;
        let within = rel % p.dst_stride;
        if (row >= p.rows || within >= p.row_bytes) {
            continue;
        }
        let s = p.src_offset + row * p.src_stride + within;
        let byte = (src[s / 4u] >> ((s % 4u) * 8u)) & 0xffu;
        let shift = k * 8u;
        word = (word & ~(0xffu << shift)) | (byte << shift);
    }
    dst[w] = word;
}
";

/// A binding window: `[start, start + size)` of a buffer, `start` aligned for storage binding.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: u64,
    size: u64,
}

/// The storage window covering bytes `[from, to)` of a buffer of `buffer_size` bytes.
fn window(from: u64, to: u64, buffer_size: u64, alignment: u64) -> Option<Window> {
    let start = binding_start(from, alignment);
    let end = to.checked_next_multiple_of(4)?.min(buffer_size);
    (end > start && (end - start).is_multiple_of(4)).then_some(Window {
        start,
        size: end - start,
    })
}

/// The copy's error when its ranges cannot be copied.
fn copy_range(copy: &StridedCopy<'_>) -> CopyError {
    CopyError::Range {
        src_offset: copy.src_offset,
        dst_offset: copy.dst_offset,
        rows: copy.rows,
        row_bytes: copy.row_bytes,
    }
}

/// Where the kernel reads a copy's source: the source buffer itself, or a storage copy of it.
struct Source<'b> {
    buffer: &'b wgpu::Buffer,
    /// The first row's byte in `buffer`.
    offset: u64,
}

/// One dispatch's rows: their windows, first source and destination bytes, and the destination
/// words they touch.
struct Run {
    src: Window,
    dst: Window,
    src_offset: u64,
    dst_offset: u64,
    first_word: u64,
    end_word: u64,
}

/// Records strided copies into one encoder and submits them together.
pub(crate) struct CopyRecorder<'g> {
    gpu: &'g Gpu,
    encoder: wgpu::CommandEncoder,
    /// Source buffers without `STORAGE` usage, staged once into a storage buffer.
    staged: HashMap<wgpu::Buffer, wgpu::Buffer>,
}

impl<'g> CopyRecorder<'g> {
    pub(crate) fn new(gpu: &'g Gpu, label: &str) -> CopyRecorder<'g> {
        CopyRecorder {
            gpu,
            encoder: gpu
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) }),
            staged: HashMap::new(),
        }
    }

    /// Records `copy`.
    pub(crate) fn copy(&mut self, copy: &StridedCopy<'_>) -> Result<(), CopyError> {
        if copy.rows == 0 || copy.row_bytes == 0 {
            return Ok(());
        }
        let too_large = || copy_range(copy);
        let src_span = copy.span(copy.src_stride).ok_or_else(too_large)?;
        let dst_span = copy.span(copy.dst_stride).ok_or_else(too_large)?;
        let src_end = copy
            .src_offset
            .checked_add(src_span)
            .ok_or_else(too_large)?;
        let dst_end = copy
            .dst_offset
            .checked_add(dst_span)
            .ok_or_else(too_large)?;
        if src_end > copy.src.size() || dst_end > copy.dst.size() {
            return Err(too_large());
        }
        for (buffer, needed, what) in [
            (copy.src, wgpu::BufferUsages::COPY_SRC, "copy gpu data out"),
            (copy.dst, wgpu::BufferUsages::COPY_DST, "copy gpu data in"),
        ] {
            if !buffer.usage().contains(needed) {
                return Err(GpuError::MissingUsage {
                    operation: what,
                    required: needed,
                    found: buffer.usage(),
                }
                .into());
            }
        }
        let block = copy.src_stride == copy.dst_stride
            && (copy.rows == 1 || copy.src_stride == copy.row_bytes || copy.gaps_free)
            && copy.src_offset.is_multiple_of(4)
            && copy.dst_offset.is_multiple_of(4)
            && src_span.is_multiple_of(4);
        if block {
            self.encoder.copy_buffer_to_buffer(
                copy.src,
                copy.src_offset,
                copy.dst,
                copy.dst_offset,
                Some(src_span),
            );
            return Ok(());
        }
        self.kernel_copy(copy, src_end)
    }

    /// Records `copy` through the kernel (`src_end`: one past its last source byte).
    fn kernel_copy(&mut self, copy: &StridedCopy<'_>, src_end: u64) -> Result<(), CopyError> {
        let too_large = || copy_range(copy);
        if !copy.dst.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(GpuError::MissingUsage {
                operation: "copy gpu data into strided rows",
                required: wgpu::BufferUsages::STORAGE,
                found: copy.dst.usage(),
            }
            .into());
        }
        // Sources without STORAGE usage are copied whole (word-aligned) into a staging buffer.
        let (src_buffer, src_offset) = if copy.src.usage().contains(wgpu::BufferUsages::STORAGE) {
            (copy.src.clone(), copy.src_offset)
        } else {
            let start = copy.src_offset - copy.src_offset % 4;
            let end = src_end
                .checked_next_multiple_of(4)
                .filter(|&e| e <= copy.src.size())
                .ok_or_else(too_large)?;
            let staging = self.stage(copy.src, start, end - start);
            (staging, copy.src_offset - start)
        };
        let source = Source {
            buffer: &src_buffer,
            offset: src_offset,
        };
        // One dispatch when both windows fit a binding (the usual case); else runs of rows,
        // each binding only its own bytes. Dispatches run in order, so runs whose rows share a
        // destination word each keep the other's bytes.
        if self.windows(copy, &source, 0, copy.rows).is_some() {
            return self.dispatch(copy, &source, 0, copy.rows);
        }
        // As few runs as the binding allows, of about equal size (no sliver at the end).
        for (first, rows) in even_runs(0, copy.rows, self.rows_per_run(copy), 1) {
            self.dispatch(copy, &source, first, rows)?;
        }
        Ok(())
    }

    /// The largest storage binding the copy kernel uses.
    fn max_binding(&self) -> u64 {
        max_binding_size(self.gpu.limits())
    }

    /// Storage offset alignment of the device (at least 4).
    fn alignment(&self) -> u64 {
        u64::from(self.gpu.limits().min_storage_buffer_offset_alignment).max(4)
    }

    /// Rows per run when a copy must be split: the most whose windows fit a binding whatever
    /// the first row (a window starts up to `alignment - 1` bytes before its first byte and
    /// ends up to 3 bytes after its last); at least 1.
    fn rows_per_run(&self, copy: &StridedCopy<'_>) -> u64 {
        let room = copy
            .row_bytes
            .checked_add(self.alignment())
            .and_then(|slack| slack.checked_add(4))
            .and_then(|slack| self.max_binding().checked_sub(slack));
        let mut rows = u64::from(u32::MAX);
        for stride in [copy.src_stride, copy.dst_stride] {
            rows = rows.min(match room {
                None => 1,
                Some(_) if stride == 0 => u64::MAX,
                Some(room) => room / stride + 1,
            });
        }
        rows.max(1)
    }

    /// The source and destination windows of rows `first..first + rows`, and the destination's
    /// first and end words; `None` when a window exceeds the binding limit or the arithmetic
    /// overflows.
    fn windows(
        &self,
        copy: &StridedCopy<'_>,
        source: &Source<'_>,
        first: u64,
        rows: u64,
    ) -> Option<Run> {
        let alignment = self.alignment();
        let max_binding = self.max_binding();
        let last = rows.checked_sub(1)?;
        let src_offset = first
            .checked_mul(copy.src_stride)?
            .checked_add(source.offset)?;
        let src_end = last
            .checked_mul(copy.src_stride)?
            .checked_add(src_offset)?
            .checked_add(copy.row_bytes)?;
        let dst_offset = first
            .checked_mul(copy.dst_stride)?
            .checked_add(copy.dst_offset)?;
        let dst_end = last
            .checked_mul(copy.dst_stride)?
            .checked_add(dst_offset)?
            .checked_add(copy.row_bytes)?;
        let src = window(src_offset, src_end, source.buffer.size(), alignment)?;
        let first_word = dst_offset / 4;
        let end_word = dst_end.div_ceil(4);
        let dst = window(first_word * 4, end_word * 4, copy.dst.size(), alignment)?;
        (src.size <= max_binding && dst.size <= max_binding).then_some(Run {
            src,
            dst,
            src_offset,
            dst_offset,
            first_word,
            end_word,
        })
    }

    /// Records one dispatch of the kernel over rows `first..first + rows` of `copy`.
    fn dispatch(
        &mut self,
        copy: &StridedCopy<'_>,
        source: &Source<'_>,
        first: u64,
        rows: u64,
    ) -> Result<(), CopyError> {
        let too_large = || copy_range(copy);
        let run = self
            .windows(copy, source, first, rows)
            .ok_or_else(too_large)?;
        let limits = self.gpu.limits();
        let rebase = |v: u64, base: u64| u32::try_from(v - base).map_err(|_| too_large());
        let word_count = run.end_word - run.first_word;
        let params: [u32; 8] = [
            rebase(run.src_offset, run.src.start)?,
            u32::try_from(copy.src_stride).map_err(|_| too_large())?,
            rebase(run.dst_offset, run.dst.start)?,
            u32::try_from(copy.dst_stride.max(1)).map_err(|_| too_large())?,
            u32::try_from(rows).map_err(|_| too_large())?,
            u32::try_from(copy.row_bytes).map_err(|_| too_large())?,
            rebase(run.first_word * 4, run.dst.start)? / 4,
            u32::try_from(word_count).map_err(|_| too_large())?,
        ];
        let device = self.gpu.device();
        let pipeline = self
            .gpu
            .pipelines()
            .compute(self.gpu, LABEL, KERNEL, "main")?;
        fn entry(binding: u32, buffer: &wgpu::Buffer, w: Window) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: w.start,
                    size: wgpu::BufferSize::new(w.size),
                }),
            }
        }
        let bind_group = error_scope(self.gpu, "bind a table copy", || {
            let uniform = filled_buffer(
                self.gpu,
                "gpudata table copy params",
                bytemuck::cast_slice(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpudata table copy"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    entry(0, source.buffer, run.src),
                    entry(1, copy.dst, run.dst),
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            })
        })?;
        let groups = word_count.div_ceil(64);
        let (x, y) = dispatch_shape(groups, limits.max_compute_workgroups_per_dimension.max(1))
            .ok_or_else(too_large)?;
        let mut pass = self
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpudata table copy"),
                timestamp_writes: None,
            });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
        drop(pass);
        Ok(())
    }

    /// A storage copy of `size` bytes of `buffer` from `start` (both multiples of 4).
    fn stage(&mut self, buffer: &wgpu::Buffer, start: u64, size: u64) -> wgpu::Buffer {
        if start == 0
            && size == buffer.size()
            && let Some(staged) = self.staged.get(buffer)
        {
            return staged.clone();
        }
        let staging = self.gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpudata table copy staging"),
            size: size.max(4),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.encoder
            .copy_buffer_to_buffer(buffer, start, &staging, 0, Some(size));
        if start == 0 && size == buffer.size() {
            self.staged.insert(buffer.clone(), staging.clone());
        }
        staging
    }

    /// Submits every recorded copy, inside an error scope: a copy wgpu refuses when the
    /// encoder is finished or submitted (a buffer destroyed since it was recorded, a device
    /// out of memory) comes back as [`CopyError::Gpu`], not through wgpu's panicking handler.
    pub(crate) fn submit(self) -> Result<(), CopyError> {
        let CopyRecorder { gpu, encoder, .. } = self;
        error_scope(gpu, "submit the table copies", || {
            gpu.queue().submit([encoder.finish()]);
        })?;
        Ok(())
    }
}
