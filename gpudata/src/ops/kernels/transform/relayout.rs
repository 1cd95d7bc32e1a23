//! Table re-layouts (pack, segment, interleave) as plans of the operations' kernels: a copy
//! that moves as one 4-byte aligned block is a block of the block-copy kernel ([`block_copy`]:
//! every block of a re-layout in as few dispatches as the device's binding limits allow,
//! [`block_dispatches`], the words around their bodies in the same pass, [`edges`]; a
//! `copy_buffer_to_buffer` where a buffer cannot be bound as storage); every other copy is a
//! *placed* plan of the row-transform generator ([`plan::build_placed`]) running the byte-moving row code of
//! `interleave` and `deinterleave` ([`CopyBody`]): the fields of one run of rows in one kernel
//! (N sources into one output for interleaved rows, one source into N segments or packed
//! columns), the dispatches of several runs (batches concatenated, segments of one buffer)
//! merging their edge words in the order recorded. Splitting over binding limits is the
//! planner's.
//!
//! Sources a kernel cannot bind (no `STORAGE` usage) are first copied, word-aligned, into a
//! storage buffer of the device layer. Outputs whose region does not start on a 16-byte boundary
//! (segments on a device whose storage offset alignment is below 16) are written into a
//! 16-aligned buffer of their own first, which is block-copied into place after every kernel.

use std::collections::HashMap;

use super::block::{BlockCopy, EdgeWord, Piece, block_copy, block_dispatches};
use super::fresh::{FreshOutput, edges};
use super::geometry::{Placement, gcd};
use super::moves::{CopyBody, Move};
use super::plan::{self, KernelRequest};
use super::recording::{Recording, Step};
use crate::data::GpuDataView;
use crate::device::buffers::create_buffer;
use crate::device::uninitialized::uninitialized_buffer;
use crate::device::{Gpu, GpuError};
use crate::format::VertexFormat;
use crate::layout::strided_byte_length;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Dispatch, submit};
use crate::ops::{OpError, OpsConfig};

/// Why a re-layout cannot be recorded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RelayoutError {
    /// The rows leave a buffer, or their byte arithmetic overflows, or a run of them cannot be
    /// bound or dispatched; the fields are the copy's (its first field's source).
    Range {
        src_offset: u64,
        dst_offset: u64,
        rows: u64,
        row_bytes: u64,
    },
    /// A buffer without a usage the copy needs, or the device refused the work.
    Gpu(GpuError),
}

impl From<GpuError> for RelayoutError {
    fn from(error: GpuError) -> Self {
        RelayoutError::Gpu(error)
    }
}

/// Rows of one field in one buffer: `rows` rows of `row_bytes` bytes every `byte_stride` bytes
/// from `byte_offset`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub byte_offset: u64,
    pub byte_stride: u64,
    pub rows: u64,
    pub row_bytes: u64,
}

/// Where rows go: row `first_row` of a region of `stride`-byte rows that starts at `offset` of
/// `buffer` and holds `region_bytes` bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'b> {
    pub buffer: &'b wgpu::Buffer,
    pub offset: u64,
    pub stride: u64,
    pub first_row: u64,
    pub region_bytes: u64,
}

/// One field copied: its rows, the target it goes to and its byte offset in the target's rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    pub run: Run<'a>,
    pub target: usize,
    pub byte: u64,
}

/// A region written through a 16-aligned buffer of its own: copied into place at submission.
struct Detour {
    buffer: wgpu::Buffer,
    bytes: u64,
}

/// Records the copies of one re-layout and submits them together, in order.
pub(crate) struct Relayout<'g> {
    gpu: &'g Gpu,
    label: &'static str,
    config: OpsConfig,
    steps: Vec<Step>,
    /// Source ranges without `STORAGE` usage, staged once: (buffer, start, size) → copy.
    staged: HashMap<(wgpu::Buffer, u64, u64), wgpu::Buffer>,
    /// Regions that do not start on 16 bytes: (buffer, offset) → their own buffer.
    detours: HashMap<(wgpu::Buffer, u64), Detour>,
    detour_order: Vec<(wgpu::Buffer, u64)>,
    /// The aligned bodies of block copies: their kernels run after every other kernel, as few
    /// dispatches as the binding limits allow (their bytes are written by no other kernel, and
    /// their sources by no step).
    blocks: Vec<Piece>,
    /// Outputs made without wgpu's zero-fill ([`Relayout::output`]): what no copy writes is
    /// zeroed by the block kernels where only block copies write the output, else cleared at
    /// the start of the submission.
    fresh: Vec<wgpu::Buffer>,
    /// Buffers row kernels write (they merge the words at their ranges' edges).
    kernel_targets: Vec<wgpu::Buffer>,
    /// Ranges that row kernels write whole (every byte of their rows), by buffer.
    row_writes: Vec<(wgpu::Buffer, u64, u64)>,
    /// The error of the first block copy's rows, for a block dispatch the device refuses.
    block_range: Option<RelayoutError>,
    /// The words around block copies' aligned bodies: composed by the block kernels, vector
    /// by vector ([`edges`]; their bytes are written by no other kernel, and their sources by
    /// no step).
    words: Vec<EdgeWord>,
}

/// The byte-compatible pieces a field of `bytes` bytes moves in: formats of 4-byte components
/// when `alignment` (of every offset and stride involved) is 4, of 2-byte ones when it is 2,
/// bytes otherwise; each piece with its byte offset in the field.
fn pieces(bytes: u64, alignment: u64) -> Vec<(u64, VertexFormat)> {
    let sizes: &[(u64, VertexFormat)] = match alignment {
        4 => &[
            (16, VertexFormat::Uint32x4),
            (12, VertexFormat::Uint32x3),
            (8, VertexFormat::Uint32x2),
            (4, VertexFormat::Uint32),
        ],
        2 => &[
            (8, VertexFormat::Uint16x4),
            (4, VertexFormat::Uint16x2),
            (2, VertexFormat::Uint16),
        ],
        _ => &[
            (4, VertexFormat::Uint8x4),
            (2, VertexFormat::Uint8x2),
            (1, VertexFormat::Uint8),
        ],
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes {
        let left = bytes - at;
        // The sizes end with the alignment itself, and `left` is a multiple of it.
        let &(size, format) = sizes
            .iter()
            .find(|(size, _)| *size <= left)
            .unwrap_or(&sizes[sizes.len() - 1]);
        out.push((at, format));
        at += size;
    }
    out
}

impl<'g> Relayout<'g> {
    pub(crate) fn new(gpu: &'g Gpu, label: &'static str) -> Relayout<'g> {
        Relayout {
            gpu,
            label,
            config: OpsConfig::default(),
            steps: Vec::new(),
            staged: HashMap::new(),
            detours: HashMap::new(),
            detour_order: Vec::new(),
            blocks: Vec::new(),
            fresh: Vec::new(),
            kernel_targets: Vec::new(),
            row_writes: Vec::new(),
            block_range: None,
            words: Vec::new(),
        }
    }

    /// The same re-layout with its kernels tuned by `config` (benchmarks' variants).
    pub(crate) fn with_config(mut self, config: OpsConfig) -> Relayout<'g> {
        self.config = config;
        self
    }

    /// A new output buffer of `size` bytes (a multiple of 4) with `usage`, written only by this
    /// re-layout: where the device allows ([`uninitialized_buffer`]), one without wgpu's
    /// zero-fill, whose bytes that no block copy writes [`Relayout::submit`] clears before
    /// anything else; else an ordinary buffer (zero-filled by wgpu on first use). Either way
    /// the bytes no copy writes read as zero.
    ///
    /// The caller gives the buffer to nobody before [`Relayout::submit`] returns, and drops it
    /// where the re-layout is not submitted.
    pub(crate) fn output(
        &mut self,
        size: u64,
        usage: wgpu::BufferUsages,
        label: &str,
    ) -> Result<wgpu::Buffer, GpuError> {
        // SAFETY: `submit` zeroes in its block kernels (an output only block copies write) or
        // clears first in its one submission (any other) every byte that no block copy, edge
        // word, `copy_buffer_to_buffer` step, detour copy or whole-row kernel writes (`fresh`):
        // every byte is written by it; a block kernel reads an output's vector only to keep
        // the words no block writes, which in an output only blocks write do not exist. Block kernels only store to their
        // destinations; a row kernel reads an output only to merge the words at its range's
        // edges, writing back unchanged the bytes outside its rows, which a clear or another
        // step of the same submission writes (dispatches and copies run in order), so every
        // byte left at the end is one the submission wrote from a source or a clear. The
        // caller hands the buffer to nobody before `submit` returns and drops it unsubmitted
        // otherwise (this method's contract).
        if let Some(buffer) = unsafe { uninitialized_buffer(self.gpu, size, usage, label) } {
            self.fresh.push(buffer.clone());
            return Ok(buffer);
        }
        create_buffer(self.gpu, size, usage, label)
    }

    /// The copy's error when its ranges cannot be copied.
    fn range(fields: &[Field<'_>], targets: &[Target<'_>]) -> RelayoutError {
        let first = fields.first();
        let target = first.and_then(|f| targets.get(f.target));
        RelayoutError::Range {
            src_offset: first.map_or(0, |f| f.run.byte_offset),
            dst_offset: target.map_or(0, |t| {
                t.offset
                    .saturating_add(t.first_row.saturating_mul(t.stride))
                    .saturating_add(first.map_or(0, |f| f.byte))
            }),
            rows: first.map_or(0, |f| f.run.rows),
            row_bytes: first.map_or(0, |f| f.run.row_bytes),
        }
    }

    /// Records the copy of `fields` (each with the same row count) into `targets`: row `r` of
    /// field `f` goes to row `first_row + r` of target `f.target`, `f.byte` bytes into it. The
    /// bytes of the targets' rows that no field writes are zero, except for one field copied
    /// as one block: then `gaps_free` says that the bytes between its rows belong to nobody and
    /// may take the source's. Bytes outside the rows keep their values.
    pub(crate) fn copy(
        &mut self,
        fields: &[Field<'_>],
        targets: &[Target<'_>],
        gaps_free: bool,
    ) -> Result<(), RelayoutError> {
        let Some(first) = fields.first() else {
            return Ok(());
        };
        let rows = first.run.rows;
        if rows == 0 {
            return Ok(());
        }
        let range = || Self::range(fields, targets);
        for field in fields {
            let run = &field.run;
            let target = targets.get(field.target).ok_or_else(range)?;
            let src_end = strided_byte_length(run.rows, run.byte_stride, run.row_bytes)
                .and_then(|span| span.checked_add(run.byte_offset))
                .ok_or_else(range)?;
            let dst_end = target
                .first_row
                .checked_add(rows)
                .and_then(|r| r.checked_mul(target.stride))
                .and_then(|b| b.checked_add(target.offset))
                .ok_or_else(range)?;
            if run.rows != rows
                || field.byte.saturating_add(run.row_bytes) > target.stride
                || src_end > run.buffer.size()
                || dst_end > target.buffer.size()
                || dst_end - target.offset > target.region_bytes
            {
                return Err(range());
            }
            for (buffer, needed, what) in [
                (
                    run.buffer,
                    wgpu::BufferUsages::COPY_SRC,
                    "copy gpu data out",
                ),
                (
                    target.buffer,
                    wgpu::BufferUsages::COPY_DST,
                    "copy gpu data in",
                ),
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
        }
        // Targets that start off 16 bytes go through a buffer of their own.
        let mut places: Vec<(wgpu::Buffer, u64)> = Vec::with_capacity(targets.len());
        for target in targets {
            places.push(self.place_of(target)?);
        }
        if let [field] = fields
            && self.block(
                field,
                &targets[field.target],
                &places[field.target],
                gaps_free,
            )?
        {
            return Ok(());
        }
        self.kernel(fields, targets, &places)
    }

    /// Where `target`'s region is written: its own buffer and offset, or a detour.
    fn place_of(&mut self, target: &Target<'_>) -> Result<(wgpu::Buffer, u64), RelayoutError> {
        if target.offset.is_multiple_of(16) {
            return Ok((target.buffer.clone(), target.offset));
        }
        let key = (target.buffer.clone(), target.offset);
        if let Some(detour) = self.detours.get(&key) {
            return Ok((detour.buffer.clone(), 0));
        }
        let bytes = target.region_bytes.next_multiple_of(4);
        let buffer = create_buffer(
            self.gpu,
            bytes.next_multiple_of(16).max(16),
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            "gpudata re-layout region",
        )?;
        self.detours.insert(
            key.clone(),
            Detour {
                buffer: buffer.clone(),
                bytes,
            },
        );
        self.detour_order.push(key);
        Ok((buffer, 0))
    }

    /// Records `field` as one block copy when its bytes move as one 4-byte aligned block (a
    /// kernel where both buffers can be bound as storage, else `copy_buffer_to_buffer`);
    /// whether it did.
    fn block(
        &mut self,
        field: &Field<'_>,
        target: &Target<'_>,
        place: &(wgpu::Buffer, u64),
        gaps_free: bool,
    ) -> Result<bool, RelayoutError> {
        let run = &field.run;
        let Some(span) = strided_byte_length(run.rows, run.byte_stride, run.row_bytes) else {
            return Ok(false);
        };
        // Checked in `copy`: within the target's buffer.
        let dst_offset = place.1 + target.first_row * target.stride + field.byte;
        let block = run.byte_stride == target.stride
            && (run.rows == 1 || run.byte_stride == run.row_bytes || gaps_free)
            && run.byte_offset.is_multiple_of(4)
            && dst_offset.is_multiple_of(4)
            && span.is_multiple_of(4);
        if !block {
            return Ok(false);
        }
        let range = || Self::range(std::slice::from_ref(field), std::slice::from_ref(target));
        let limits = self.gpu.limits();
        let kernels = block_copy(
            limits,
            run.buffer,
            run.byte_offset,
            &place.0,
            dst_offset,
            span,
        )
        .map_err(|error| match error {
            OpError::Gpu { source, .. } => RelayoutError::Gpu(source),
            _ => range(),
        })?;
        match kernels {
            Some(BlockCopy { pieces, words }) => {
                // One source and one destination binding beside the uniform, as every block
                // dispatch needs (checked here, where the copy is recorded).
                if limits.max_storage_buffers_per_shader_stage < 2
                    || limits.max_bindings_per_bind_group < 3
                {
                    return Err(range());
                }
                if self.block_range.is_none() {
                    self.block_range = Some(range());
                }
                self.blocks.extend(pieces);
                self.words.extend(words);
            }
            None => self.steps.push(Step::Block {
                src: run.buffer.clone(),
                src_offset: run.byte_offset,
                dst: place.0.clone(),
                dst_offset,
                size: span,
            }),
        }
        Ok(true)
    }

    /// Records `dispatches` after the steps so far (in the same pass as kernels just before).
    fn push_kernels(&mut self, dispatches: Vec<Dispatch>) {
        match self.steps.last_mut() {
            Some(Step::Kernels(recorded)) => recorded.extend(dispatches),
            _ => self.steps.push(Step::Kernels(dispatches)),
        }
    }

    /// A storage-bindable buffer holding `run`'s bytes, and the offset of its first row there.
    fn source(&mut self, run: &Run<'_>) -> Result<(wgpu::Buffer, u64), RelayoutError> {
        if run.buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Ok((run.buffer.clone(), run.byte_offset));
        }
        let start = run.byte_offset - run.byte_offset % 4;
        let end = strided_byte_length(run.rows, run.byte_stride, run.row_bytes)
            .and_then(|span| span.checked_add(run.byte_offset))
            .and_then(|end| end.checked_next_multiple_of(4))
            .filter(|&end| end <= run.buffer.size())
            .ok_or(RelayoutError::Range {
                src_offset: run.byte_offset,
                dst_offset: 0,
                rows: run.rows,
                row_bytes: run.row_bytes,
            })?;
        let key = (run.buffer.clone(), start, end - start);
        if let Some(staged) = self.staged.get(&key) {
            return Ok((staged.clone(), run.byte_offset - start));
        }
        let staged = create_buffer(
            self.gpu,
            (end - start).max(4),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            "gpudata re-layout source",
        )?;
        self.steps.push(Step::Block {
            src: run.buffer.clone(),
            src_offset: start,
            dst: staged.clone(),
            dst_offset: 0,
            size: end - start,
        });
        self.staged.insert(key, staged.clone());
        Ok((staged, run.byte_offset - start))
    }

    /// Records `fields` as one placed plan of the row-transform kernels.
    fn kernel(
        &mut self,
        fields: &[Field<'_>],
        targets: &[Target<'_>],
        places: &[(wgpu::Buffer, u64)],
    ) -> Result<(), RelayoutError> {
        let range = || Self::range(fields, targets);
        for (place, _) in places {
            if !place.usage().contains(wgpu::BufferUsages::STORAGE) {
                return Err(GpuError::MissingUsage {
                    operation: "copy gpu data into strided rows",
                    required: wgpu::BufferUsages::STORAGE,
                    found: place.usage(),
                }
                .into());
            }
        }
        let sources = fields
            .iter()
            .map(|f| self.source(&f.run))
            .collect::<Result<Vec<_>, _>>()?;
        let rows = fields[0].run.rows;
        let mut views = Vec::new();
        let mut moves = Vec::new();
        for (field, (buffer, offset)) in fields.iter().zip(&sources) {
            let run = &field.run;
            let stride = targets[field.target].stride;
            let alignment = [*offset, run.byte_stride, field.byte, stride, run.row_bytes]
                .into_iter()
                .fold(4, gcd);
            for (at, format) in pieces(run.row_bytes, alignment) {
                let view =
                    GpuDataView::new(buffer, format, rows, offset + at, Some(run.byte_stride))
                        .map_err(|_| range())?;
                moves.push((views.len(), field.target, field.byte + at, format));
                views.push(view);
            }
        }
        let request = KernelRequest {
            op: self.label,
            views,
            length: rows,
            output_strides: targets.iter().map(|t| t.stride).collect(),
            constants: Vec::new(),
        };
        let placements: Vec<Placement<'_>> = targets
            .iter()
            .zip(places)
            .map(|(t, (buffer, offset))| Placement {
                buffer,
                offset: *offset,
                first_row: t.first_row,
            })
            .collect();
        let planner = Planner::new(self.gpu, &self.config);
        let dispatches = plan::build_placed(&planner, request, &placements, |refs| CopyBody {
            moves: moves
                .iter()
                .map(|&(view, output, byte, format)| Move {
                    from: refs[view],
                    output,
                    byte,
                    format,
                })
                .collect(),
        })
        .map_err(|error| match error {
            OpError::Gpu { source, .. } => RelayoutError::Gpu(source),
            _ => range(),
        })?;
        self.push_kernels(dispatches);
        for (buffer, _) in places {
            if !self.kernel_targets.contains(buffer) {
                self.kernel_targets.push(buffer.clone());
            }
        }
        // Rows whose every byte some field writes (the fields tile the row): written whole.
        for (t, (target, (buffer, offset))) in targets.iter().zip(places).enumerate() {
            let mut bytes: Vec<(u64, u64)> = fields
                .iter()
                .filter(|f| f.target == t)
                .map(|f| (f.byte, f.byte + f.run.row_bytes))
                .collect();
            bytes.sort_unstable();
            let mut end = 0;
            for (start, stop) in bytes {
                if start > end {
                    break;
                }
                end = end.max(stop);
            }
            if end >= target.stride {
                // Checked in `copy`: within the target's buffer.
                let first = offset + target.first_row * target.stride;
                self.row_writes
                    .push((buffer.clone(), first, first + rows * target.stride));
            }
        }
        Ok(())
    }

    /// Submits every recorded copy in order, inside an error scope: a copy wgpu refuses when
    /// the encoder is finished or submitted (a buffer destroyed since it was recorded, a device
    /// out of memory) comes back as [`RelayoutError::Gpu`], not through wgpu's panicking
    /// handler.
    pub(crate) fn submit(self) -> Result<(), RelayoutError> {
        let gpu = self.gpu;
        let label = self.label;
        let recording = self.finish()?;
        #[cfg(test)]
        super::recording::LAST.with(|last| last.set(Some(recording.commands())));
        submit(gpu, label, "submit the table copies", |encoder| {
            recording.record(encoder, label);
        })?;
        Ok(())
    }

    /// The commands of the re-layout, in order, planned but not recorded.
    fn finish(self) -> Result<Recording, RelayoutError> {
        let Relayout {
            gpu,
            config,
            mut steps,
            detours,
            detour_order,
            mut blocks,
            fresh,
            kernel_targets,
            row_writes,
            block_range,
            words,
            ..
        } = self;
        // What each fresh output's copies write, and whether only block copies write it.
        let mut outputs = Vec::with_capacity(fresh.len());
        for buffer in fresh {
            let mut written: Vec<(u64, u64)> = blocks
                .iter()
                .map(Piece::writes)
                .filter(|(dst, _)| *dst == &buffer)
                .map(|(_, range)| range)
                .chain(
                    words
                        .iter()
                        .filter(|w| w.dst == buffer)
                        .map(|w| (w.dst_offset, w.dst_offset + 4)),
                )
                .chain(
                    row_writes
                        .iter()
                        .filter(|(dst, ..)| *dst == buffer)
                        .map(|&(_, start, end)| (start, end)),
                )
                .collect();
            // The block kernels bind it to store zeros: only with `STORAGE` usage.
            let mut blocks_only = !kernel_targets.contains(&buffer)
                && buffer.usage().contains(wgpu::BufferUsages::STORAGE);
            for key in detour_order.iter().filter(|(dst, _)| *dst == buffer) {
                blocks_only = false;
                written.extend(detours.get(key).map(|d| (key.1, key.1 + d.bytes)));
            }
            for step in &steps {
                if let Step::Block {
                    dst,
                    dst_offset,
                    size,
                    ..
                } = step
                    && *dst == buffer
                {
                    blocks_only = false;
                    written.push((*dst_offset, dst_offset + size));
                }
            }
            outputs.push(FreshOutput {
                buffer,
                written,
                blocks_only,
            });
        }
        let block_error = |error: OpError| match error {
            OpError::Gpu { source, .. } => RelayoutError::Gpu(source),
            _ => block_range.clone().unwrap_or(RelayoutError::Range {
                src_offset: 0,
                dst_offset: 0,
                rows: 0,
                row_bytes: 0,
            }),
        };
        let edges = edges(gpu.limits(), &words, &outputs).map_err(block_error)?;
        blocks.extend(edges.zeros);
        if !blocks.is_empty() || !edges.vectors.is_empty() {
            let planner = Planner::new(gpu, &config);
            let dispatches =
                block_dispatches(&planner, &blocks, &edges.vectors).map_err(block_error)?;
            match steps.last_mut() {
                Some(Step::Kernels(recorded)) => recorded.extend(dispatches),
                _ => steps.push(Step::Kernels(dispatches)),
            }
        }
        for (src, src_offset, dst, dst_offset, size) in edges.copies {
            steps.push(Step::Block {
                src,
                src_offset,
                dst,
                dst_offset,
                size,
            });
        }
        let detours = detour_order
            .into_iter()
            .filter_map(|key| {
                detours
                    .get(&key)
                    .map(|d| (d.buffer.clone(), key.0.clone(), key.1, d.bytes))
            })
            .collect();
        Ok(Recording {
            clears: edges.clears,
            steps,
            detours,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::pieces;
    use crate::format::VertexFormat;

    #[test]
    fn pieces_cover_the_field_in_aligned_formats() {
        assert_eq!(
            pieces(28, 4),
            [(0, VertexFormat::Uint32x4), (16, VertexFormat::Uint32x3)]
        );
        assert_eq!(
            pieces(6, 2),
            [(0, VertexFormat::Uint16x2), (4, VertexFormat::Uint16)]
        );
        assert_eq!(
            pieces(7, 1),
            [
                (0, VertexFormat::Uint8x4),
                (4, VertexFormat::Uint8x2),
                (6, VertexFormat::Uint8)
            ]
        );
    }

    /// A region that does not start on 16 bytes (segments on a device whose storage alignment is
    /// below 16: no adapter of the test machines has one, so the detour is driven here directly):
    /// two runs of bytes (a batch edge inside a word), one kernel-placed and one block-copied,
    /// land in the region through its own buffer; the bytes around it keep their values.
    #[test]
    fn regions_off_16_bytes_are_written_through_their_own_buffer() {
        use super::{Field, Relayout, Run, Target};
        use crate::data::{BufferHandle, GpuData, GpuDataDescriptor};
        use crate::device::Gpu;

        let gpu = Gpu::headless().unwrap();
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let buffer = |size: u64| {
            gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("relayout test"),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let first: Vec<u8> = (1..=7).collect();
        let second: Vec<u8> = (101..=108).collect();
        let (a, b, dst) = (buffer(8), buffer(8), buffer(32));
        gpu.queue()
            .write_buffer(&a, 0, &[first.clone(), vec![0]].concat());
        gpu.queue().write_buffer(&b, 0, &second);
        gpu.queue().write_buffer(&dst, 0, &[0xaa; 32]);
        let target = |first_row| Target {
            buffer: &dst,
            offset: 4,
            stride: 1,
            first_row,
            region_bytes: 16,
        };
        let run = |buffer, rows| Run {
            buffer,
            byte_offset: 0,
            byte_stride: 1,
            rows,
            row_bytes: 1,
        };
        let mut relayout = Relayout::new(&gpu, "relayout test");
        // Seven bytes (a kernel: not a whole word), then eight from row 7 (a kernel too).
        relayout
            .copy(
                &[Field {
                    run: run(&a, 7),
                    target: 0,
                    byte: 0,
                }],
                &[target(0)],
                true,
            )
            .unwrap();
        relayout
            .copy(
                &[Field {
                    run: run(&b, 8),
                    target: 0,
                    byte: 0,
                }],
                &[target(7)],
                true,
            )
            .unwrap();
        relayout.submit().unwrap();
        let read = GpuData::new(
            BufferHandle::Shared(dst.clone()),
            GpuDataDescriptor::new(VertexFormat::Uint8, 32),
        )
        .unwrap()
        .read_bytes(&gpu)
        .unwrap();
        let mut expected = vec![0xaa; 4];
        expected.extend_from_slice(&first);
        expected.extend_from_slice(&second);
        expected.push(0); // The region's last byte: nobody's, zero in its own buffer.
        expected.extend_from_slice(&[0xaa; 12]);
        assert_eq!(read, expected);
    }
}
