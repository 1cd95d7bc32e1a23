//! [`GpuTable::pack_batches`]: several batches merged into one with GPU copies.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::Gpu;
use crate::table::TableError;

use super::fields::output_size;
use crate::ops::kernels::transform::relayout::{Field, Relayout, Run, Target};
use crate::table::column::batch::{GpuRecordBatch, RecordBatchOptions, SourceInfo};
use crate::table::column::schema::RESERVED_INDEX_COLUMN;
use crate::table::column::table::GpuTable;
use crate::table::column::vector::checked_sum;

/// Options of [`GpuTable::pack_batches`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackOptions {
    /// Without it, all batches become one. With it, batches are grouped greedily until a
    /// group's rows reach it (the remainder forms a last group); it must be positive.
    pub min_batch_size: Option<u64>,
}

/// Merged source info: only when every batch has one, with the same source batch, and their
/// rows are contiguous.
fn merge_source_info(batches: &[GpuRecordBatch]) -> Option<SourceInfo> {
    let first = batches.first()?.source_info()?;
    let mut merged = first;
    for batch in &batches[1..] {
        let info = batch.source_info()?;
        let next = merged
            .source_row_index_offset
            .checked_add(merged.source_row_count)?;
        if info.source_batch_index != first.source_batch_index
            || info.source_row_index_offset != next
        {
            return None;
        }
        merged.source_row_count = merged.source_row_count.checked_add(info.source_row_count)?;
    }
    Some(merged)
}

/// The greedy groups of `rows` (half-open index ranges).
fn groups(rows: &[u64], min_batch_size: Option<u64>) -> Vec<std::ops::Range<usize>> {
    let Some(min) = min_batch_size else {
        return std::iter::once(0..rows.len()).collect();
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut sum = 0u64;
    for (i, r) in rows.iter().enumerate() {
        sum = sum.saturating_add(*r);
        if sum >= min {
            out.push(start..i + 1);
            start = i + 1;
            sum = 0;
        }
    }
    if start < rows.len() {
        out.push(start..rows.len());
    }
    out
}

/// One packed column to build: its name, destination size and the source chunks.
struct PackedColumn {
    name: String,
    size: u64,
}

/// The body of [`GpuTable::pack_batches`].
pub(crate) fn pack_batches(
    table: &mut GpuTable,
    gpu: &Gpu,
    options: PackOptions,
) -> Result<(), TableError> {
    if table.batches.len() <= 1 {
        return Ok(());
    }
    if table
        .batches
        .iter()
        .any(|b| b.column(RESERVED_INDEX_COLUMN).is_some())
    {
        return Err(TableError::PackIndexed);
    }
    if options.min_batch_size == Some(0) {
        return Err(TableError::MinBatchSize { found: 0 });
    }
    let rows: Vec<u64> = table.batches.iter().map(GpuRecordBatch::num_rows).collect();
    let groups = groups(&rows, options.min_batch_size);

    // Plan every group before any GPU work.
    let mut plans: Vec<(std::ops::Range<usize>, Vec<PackedColumn>)> = Vec::new();
    for group in &groups {
        if group.len() < 2 {
            continue;
        }
        let batches = &table.batches[group.clone()];
        let first = &batches[0];
        if first.is_empty() {
            return Err(TableError::PackEmptyBatch { batch: group.start });
        }
        let mut columns = Vec::new();
        for (name, _) in first.columns() {
            let mut size = 0u64;
            for (i, batch) in batches.iter().enumerate() {
                let data = batch
                    .column(name)
                    .ok_or_else(|| TableError::MissingBatchData {
                        column: name.to_owned(),
                        batch: group.start + i,
                    })?;
                if let Some(GpuDataFormat::Vector(v)) = data.format()
                    && v.is_list()
                {
                    return Err(TableError::PackVariableLength {
                        column: name.to_owned(),
                    });
                }
                size = data
                    .length()
                    .checked_mul(data.byte_stride())
                    .and_then(|b| size.checked_add(b))
                    .ok_or_else(|| TableError::Overflow {
                        what: format!("the packed size of column `{name}`"),
                    })?;
            }
            columns.push(PackedColumn {
                name: name.to_owned(),
                size,
            });
        }
        plans.push((group.clone(), columns));
    }

    // Copy.
    let mut relayout = Relayout::new(gpu, "gpudata pack batches");
    let mut packed: Vec<(std::ops::Range<usize>, GpuRecordBatch)> = Vec::new();
    for (group, columns) in plans {
        let batches = &table.batches[group.clone()];
        let mut out_columns = Vec::with_capacity(columns.len());
        for column in columns {
            let template =
                batches[0]
                    .column(&column.name)
                    .ok_or_else(|| TableError::MissingBatchData {
                        column: column.name.clone(),
                        batch: group.start,
                    })?;
            // Given to nobody before `submit` below (the packed batches replace the old ones
            // only after it), dropped on every error before it.
            let buffer = relayout.output(
                output_size(column.size, "gpudata packed column")?,
                crate::data::DEFAULT_USAGE,
                "gpudata packed column",
            )?;
            let mut offset = 0u64;
            let mut length = 0u64;
            let mut value_length = 0u64;
            for batch in batches {
                let Some(data) = batch.column(&column.name) else {
                    continue;
                };
                // Batches of one column share its stride: batch rows follow each other.
                let stride = template.byte_stride();
                if data.byte_stride() != stride {
                    return Err(TableError::CopyRange {
                        src_offset: data.byte_offset(),
                        dst_offset: offset,
                        rows: data.length(),
                        row_bytes: data.row_byte_length(),
                    });
                }
                relayout.copy(
                    &[Field {
                        run: Run {
                            buffer: data.buffer_on(gpu, "pack batches")?,
                            byte_offset: data.byte_offset(),
                            byte_stride: stride,
                            rows: data.length(),
                            row_bytes: data.row_byte_length(),
                        },
                        target: 0,
                        byte: 0,
                    }],
                    &[Target {
                        buffer: &buffer,
                        offset: 0,
                        stride,
                        first_row: length,
                        region_bytes: column.size,
                    }],
                    true,
                )?;
                // Within `column.size`, checked above.
                offset += data.length() * data.byte_stride();
                length += data.length();
                value_length += data.value_length();
            }
            let descriptor = GpuDataDescriptor {
                format: template.format().cloned(),
                length,
                value_length: Some(value_length),
                stride: Some(template.stride()),
                byte_offset: 0,
                byte_stride: Some(template.byte_stride()),
                row_byte_length: Some(template.row_byte_length()),
                readback_metadata: template.readback_metadata().cloned(),
                metrics: crate::data::MetricsPolicy::Data,
            };
            let data = GpuData::new(BufferHandle::Owned(buffer), descriptor)?.on_device(gpu);
            out_columns.push((column.name, data));
        }
        let num_rows =
            checked_sum(batches.iter().map(GpuRecordBatch::num_rows)).ok_or_else(|| {
                TableError::Overflow {
                    what: "the packed row count".to_owned(),
                }
            })?;
        let null_count =
            checked_sum(batches.iter().map(GpuRecordBatch::null_count)).ok_or_else(|| {
                TableError::Overflow {
                    what: "the packed null count".to_owned(),
                }
            })?;
        let batch = GpuRecordBatch::with_options(
            out_columns,
            RecordBatchOptions {
                buffer_layouts: Some(table.buffer_layouts().to_vec()),
                fields: Some(table.varying_schema().fields),
                num_rows: Some(num_rows),
                metadata: batches[0].schema().metadata.clone(),
                source_info: merge_source_info(batches),
                null_count,
            },
        )?;
        packed.push((group, batch));
    }
    relayout.submit()?;

    // Swap, last group first so earlier ranges stay valid; destroy what was replaced.
    for (group, batch) in packed.into_iter().rev() {
        let replaced: Vec<GpuRecordBatch> = table
            .batches
            .splice(group, std::iter::once(batch))
            .collect();
        for old in replaced {
            old.destroy();
        }
    }
    table.refresh()
}

/// One copy of [`__copy_blocks`]: `size` bytes from `src_offset` of `src` to `dst_offset` of
/// `dst`. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct BlockCopySpec<'a> {
    /// The source buffer.
    pub src: &'a wgpu::Buffer,
    /// The first source byte.
    pub src_offset: u64,
    /// The destination buffer.
    pub dst: &'a wgpu::Buffer,
    /// The first destination byte.
    pub dst_offset: u64,
    /// The bytes copied.
    pub size: u64,
}

/// Records `copies` as one re-layout and submits it: each copy as
/// [`GpuTable::pack_batches`] copies one batch's column (one block-copy kernel block where the
/// bytes move as a word-aligned block between storage buffers), into buffers the caller made
/// (benchmarks time pack's copies into already initialized outputs; tests drive many blocks
/// through it), with the kernels tuned by `config`. Not API: nothing here is covered by semver.
///
/// # Errors
/// [`TableError::CopyRange`] for a copy that leaves a buffer or cannot be bound;
/// [`TableError::Gpu`] for a buffer without the usage a copy needs, or what the device refuses.
#[doc(hidden)]
pub fn __copy_blocks(
    gpu: &Gpu,
    copies: &[BlockCopySpec<'_>],
    config: crate::ops::OpsConfig,
) -> Result<(), TableError> {
    let mut relayout = Relayout::new(gpu, "gpudata copy blocks").with_config(config);
    for copy in copies {
        record_block(
            &mut relayout,
            copy.src,
            copy.src_offset,
            copy.dst,
            copy.dst_offset,
            copy.size,
        )?;
    }
    relayout.submit()?;
    Ok(())
}

/// One copy of [`__copy_blocks_into_fresh`]: `size` bytes from `src_offset` of `src` to
/// `dst_offset` of output `dst`. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct FreshCopySpec<'a> {
    /// The source buffer.
    pub src: &'a wgpu::Buffer,
    /// The first source byte.
    pub src_offset: u64,
    /// The output's index in `sizes`.
    pub dst: usize,
    /// The first byte in that output.
    pub dst_offset: u64,
    /// The bytes copied.
    pub size: u64,
}

/// [`__copy_blocks`] into outputs of `sizes` bytes (multiples of 4) that the re-layout makes,
/// as [`GpuTable::pack_batches`] makes its packed columns (without wgpu's zero-fill where the
/// device allows, the bytes no copy writes cleared): one buffer per output, or with
/// `one_buffer` all outputs in one buffer, each at a multiple of 256 bytes. Returns the
/// buffers. Benchmarks use it to tell what a fresh output costs from what an allocation
/// costs; `config` tunes the block kernel (its `rows_per_thread`: vectors per invocation).
/// Not API.
///
/// # Errors
/// [`TableError::CopyRange`] for a copy outside its output or source, or an output index
/// outside `sizes`; [`TableError::Gpu`] for what the device refuses.
#[doc(hidden)]
pub fn __copy_blocks_into_fresh(
    gpu: &Gpu,
    sizes: &[u64],
    copies: &[FreshCopySpec<'_>],
    one_buffer: bool,
    config: crate::ops::OpsConfig,
) -> Result<Vec<wgpu::Buffer>, TableError> {
    let overflow = || TableError::Overflow {
        what: "the outputs' bytes".to_owned(),
    };
    let mut relayout = Relayout::new(gpu, "gpudata copy blocks").with_config(config);
    let mut places = Vec::with_capacity(sizes.len());
    let mut buffers = Vec::new();
    if one_buffer {
        let mut at = 0u64;
        for size in sizes {
            places.push((0, at));
            at = at
                .checked_add(*size)
                .map(|end| end.next_multiple_of(256))
                .ok_or_else(overflow)?;
        }
        buffers.push(relayout.output(
            output_size(at, "gpudata copy blocks")?,
            crate::data::DEFAULT_USAGE,
            "gpudata copy blocks",
        )?);
    } else {
        for (i, size) in sizes.iter().enumerate() {
            places.push((i, 0));
            buffers.push(relayout.output(
                output_size(*size, "gpudata copy blocks")?,
                crate::data::DEFAULT_USAGE,
                "gpudata copy blocks",
            )?);
        }
    }
    for copy in copies {
        let range = || TableError::CopyRange {
            src_offset: copy.src_offset,
            dst_offset: copy.dst_offset,
            rows: copy.size,
            row_bytes: 1,
        };
        let (buffer, base) = places.get(copy.dst).copied().ok_or_else(range)?;
        let end = copy.dst_offset.checked_add(copy.size).ok_or_else(range)?;
        if end > sizes[copy.dst] {
            return Err(range());
        }
        let dst_offset = base.checked_add(copy.dst_offset).ok_or_else(range)?;
        record_block(
            &mut relayout,
            copy.src,
            copy.src_offset,
            &buffers[buffer],
            dst_offset,
            copy.size,
        )?;
    }
    relayout.submit()?;
    Ok(buffers)
}

/// Records the copy of `size` bytes from `src_offset` of `src` to `dst_offset` of `dst` in
/// `relayout`, as bytes (a block where they are word-aligned).
fn record_block(
    relayout: &mut Relayout<'_>,
    src: &wgpu::Buffer,
    src_offset: u64,
    dst: &wgpu::Buffer,
    dst_offset: u64,
    size: u64,
) -> Result<(), TableError> {
    relayout.copy(
        &[Field {
            run: Run {
                buffer: src,
                byte_offset: src_offset,
                byte_stride: 1,
                rows: size,
                row_bytes: 1,
            },
            target: 0,
            byte: 0,
        }],
        &[Target {
            buffer: dst,
            offset: 0,
            stride: 1,
            first_row: dst_offset,
            region_bytes: dst.size(),
        }],
        true,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::groups;

    #[test]
    fn greedy_groups() {
        assert_eq!(groups(&[2, 2, 2], Some(3)), vec![0..2, 2..3]);
        assert_eq!(groups(&[2, 2, 2], None), vec![0..3]);
        assert_eq!(groups(&[5, 1, 1], Some(2)), vec![0..1, 1..3]);
        assert_eq!(groups(&[1, 1, 1], Some(10)), vec![0..3]);
    }
}
