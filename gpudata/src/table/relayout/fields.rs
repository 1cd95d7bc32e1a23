//! The fixed-width fields of a table's columns, read from every batch: the common ground of the
//! conversions between packed columns, interleaved rows and segmented tables.

use crate::data::{GpuDataFormat, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::BufferLayout;
use crate::table::TableError;

use crate::ops::kernels::transform::relayout::{Field, Relayout, Run, Target};
use crate::table::column::table::GpuTable;
use crate::table::column::vector::GpuVector;

/// Where one field's values lie in one chunk.
#[derive(Clone, Debug)]
pub(crate) struct FieldChunk<'t> {
    pub buffer: &'t wgpu::Buffer,
    pub byte_offset: u64,
    pub byte_stride: u64,
    /// Logical rows.
    pub rows: u64,
    /// Values (rows, or list elements).
    pub values: u64,
}

/// One fixed-width field of a column (the column itself for vector formats; a struct field or
/// layout attribute for interleaved rows), over every batch.
#[derive(Clone, Debug)]
pub(crate) struct FieldSource<'t> {
    /// The field's name: the attribute or struct field, or the column for vector formats.
    pub name: String,
    /// The column it belongs to.
    pub column: String,
    /// The field's format (list formats keep their list).
    pub format: GpuVectorFormat,
    pub chunks: Vec<FieldChunk<'t>>,
    /// The column's adapter type, for whole-column fields.
    pub data_type: Option<ReadbackMetadata>,
    /// The table's layout of a list column (lists get no synthesized layout).
    pub list_layout: Option<BufferLayout>,
}

impl FieldSource<'_> {
    /// Values over all chunks.
    pub(crate) fn values(&self) -> u64 {
        self.chunks.iter().map(|c| c.values).sum()
    }

    /// Rows over all chunks.
    pub(crate) fn rows(&self) -> u64 {
        self.chunks.iter().map(|c| c.rows).sum()
    }

    /// The cumulative value counts at which this field's chunks end.
    fn chunk_ends(&self) -> Vec<u64> {
        let mut at = 0u64;
        self.chunks
            .iter()
            .map(|c| {
                at = at.saturating_add(c.values);
                at
            })
            .collect()
    }

    /// Values `from..to` (inside one chunk) as a run of rows.
    fn run(&self, from: u64, to: u64) -> Result<Run<'_>, TableError> {
        let overflow = || TableError::Overflow {
            what: format!("the values of field `{}`", self.name),
        };
        let mut start = 0u64;
        for chunk in &self.chunks {
            let end = start.checked_add(chunk.values).ok_or_else(overflow)?;
            if from >= start && to <= end {
                let byte_offset = (from - start)
                    .checked_mul(chunk.byte_stride)
                    .and_then(|b| b.checked_add(chunk.byte_offset))
                    .ok_or_else(overflow)?;
                return Ok(Run {
                    buffer: chunk.buffer,
                    byte_offset,
                    byte_stride: chunk.byte_stride,
                    rows: to - from,
                    row_bytes: self.format.element_format().byte_length(),
                });
            }
            start = end;
        }
        Err(overflow())
    }
}

/// Where one field's values go: value `i` to row `i` of target `target`, `byte` bytes into it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldPlace {
    pub target: usize,
    pub byte: u64,
}

/// How [`write_fields`] groups fields into kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grouping {
    /// The fields of one column together (segments, packed columns: one interleaved column's
    /// fields read once; a packed column alone, so that it can move as one block).
    ByColumn,
    /// Every field together (interleaved rows: every field of a row written by one kernel).
    Rows,
}

/// Records the copies of `fields` (`places[i]` says where field `i` goes) into `targets` (each
/// with `first_row` 0: the targets' regions hold every value of their fields).
///
/// Fields are copied in groups (`grouping`, then as many as one kernel's storage bindings
/// hold: distinct source columns plus distinct targets; fields of one group have the same
/// value count), each group in one kernel per run of values that no chunk boundary of its
/// fields splits (batches concatenated). `gaps_free`: the bytes between a target's values
/// belong to nobody (a single field may then move as one block with its source's gaps).
pub(crate) fn write_fields(
    gpu: &Gpu,
    relayout: &mut Relayout<'_>,
    fields: &[&FieldSource<'_>],
    places: &[FieldPlace],
    targets: &[Target<'_>],
    grouping: Grouping,
    gaps_free: bool,
) -> Result<(), TableError> {
    let limits = gpu.limits();
    let most = limits
        .max_storage_buffers_per_shader_stage
        .min(limits.max_bindings_per_bind_group.saturating_sub(1))
        .max(2) as usize;
    // Greedy groups: distinct source columns plus distinct targets within the binding limit.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut columns: Vec<&str> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let new_column = !columns.contains(&field.column.as_str());
        let new_target = !used.contains(&places[i].target);
        let needed = columns.len() + used.len() + usize::from(new_column) + usize::from(new_target);
        let joins = |group: &Vec<usize>| {
            let first = fields[group[0]];
            needed <= most
                && first.values() == field.values()
                && (grouping == Grouping::Rows || first.column == field.column)
        };
        match groups.last_mut() {
            Some(group) if joins(group) => group.push(i),
            _ => {
                groups.push(vec![i]);
                columns.clear();
                used.clear();
            }
        }
        if !columns.contains(&field.column.as_str()) {
            columns.push(&field.column);
        }
        if !used.contains(&places[i].target) {
            used.push(places[i].target);
        }
    }
    for group in groups {
        let mut ends: Vec<u64> = group.iter().flat_map(|&i| fields[i].chunk_ends()).collect();
        ends.sort_unstable();
        ends.dedup();
        let mut from = 0u64;
        for to in ends {
            if to == from {
                continue;
            }
            // The group's own targets, numbered in the order its fields name them.
            let mut own: Vec<usize> = Vec::new();
            let mut copies = Vec::with_capacity(group.len());
            for &i in &group {
                let target = match own.iter().position(|&t| t == places[i].target) {
                    Some(t) => t,
                    None => {
                        own.push(places[i].target);
                        own.len() - 1
                    }
                };
                copies.push(Field {
                    run: fields[i].run(from, to)?,
                    target,
                    byte: places[i].byte,
                });
            }
            let at: Vec<Target<'_>> = own
                .iter()
                .map(|&t| Target {
                    first_row: from,
                    ..targets[t]
                })
                .collect();
            relayout.copy(&copies, &at, gaps_free)?;
            from = to;
        }
    }
    Ok(())
}

/// The fields of one aggregate vector.
fn vector_fields(v: &GpuVector) -> Result<Vec<FieldSource<'_>>, TableError> {
    let attributes: Vec<(String, VertexFormat, u64)> = match v.buffer_layout() {
        Some(layout) if !layout.attributes.is_empty() => layout
            .attributes
            .iter()
            .map(|a| (a.attribute.clone(), a.format, a.byte_offset))
            .collect(),
        _ => match v.format() {
            Some(GpuDataFormat::Struct(s)) => s
                .fields()
                .iter()
                .map(|f| (f.name().to_owned(), f.format(), f.byte_offset()))
                .collect(),
            Some(GpuDataFormat::Vector(format)) => {
                let chunks = v
                    .chunks()
                    .iter()
                    .map(|c| FieldChunk {
                        buffer: c.buffer(),
                        byte_offset: c.byte_offset(),
                        byte_stride: c.byte_stride(),
                        rows: c.length(),
                        values: c.value_length(),
                    })
                    .collect();
                return Ok(vec![FieldSource {
                    name: v.name().to_owned(),
                    column: v.name().to_owned(),
                    format: *format,
                    chunks,
                    data_type: v.readback_metadata().cloned(),
                    list_layout: None,
                }]);
            }
            None => {
                return Err(TableError::UnsplittableColumn {
                    column: v.name().to_owned(),
                });
            }
        },
    };
    let mut out = Vec::with_capacity(attributes.len());
    for (name, format, offset) in attributes {
        let mut chunks = Vec::with_capacity(v.chunks().len());
        for c in v.chunks() {
            let byte_offset =
                c.byte_offset()
                    .checked_add(offset)
                    .ok_or_else(|| TableError::Overflow {
                        what: format!("the offset of field `{name}`"),
                    })?;
            chunks.push(FieldChunk {
                buffer: c.buffer(),
                byte_offset,
                byte_stride: c.byte_stride(),
                rows: c.length(),
                values: c.length(),
            });
        }
        out.push(FieldSource {
            name,
            column: v.name().to_owned(),
            format: GpuVectorFormat::Fixed(format),
            chunks,
            data_type: None,
            list_layout: None,
        });
    }
    Ok(out)
}

/// Every field of every varying column of `table`, in column order; names must be unique.
pub(crate) fn table_fields(table: &GpuTable) -> Result<Vec<FieldSource<'_>>, TableError> {
    let mut out: Vec<FieldSource<'_>> = Vec::new();
    for v in table.vectors() {
        for mut field in vector_fields(v)? {
            if field.format.is_list() {
                field.list_layout = table
                    .buffer_layouts()
                    .iter()
                    .find(|l| l.name == field.column)
                    .cloned();
            }
            if out.iter().any(|f| f.name == field.name) || table.constant(&field.name).is_some() {
                return Err(TableError::DuplicateColumn { column: field.name });
            }
            out.push(field);
        }
    }
    Ok(out)
}

/// The size of a re-layout's output buffer (`label`) holding `bytes` bytes: whole 16-byte
/// units (the kernels store in them), at least one.
pub(crate) fn output_size(bytes: u64, label: &str) -> Result<u64, TableError> {
    Ok(bytes
        .checked_next_multiple_of(16)
        .ok_or_else(|| TableError::Overflow {
            what: format!("the size of {label}"),
        })?
        .max(16))
}

/// Records the copy of each of `fields` into a new packed buffer of `strides[i]` bytes per
/// value (with usage `usages[i]`) and returns the buffers.
pub(crate) fn copy_fields_packed(
    gpu: &Gpu,
    relayout: &mut Relayout<'_>,
    fields: &[&FieldSource<'_>],
    strides: &[u64],
    usages: &[wgpu::BufferUsages],
) -> Result<Vec<wgpu::Buffer>, TableError> {
    let mut buffers = Vec::with_capacity(fields.len());
    let mut sizes = Vec::with_capacity(fields.len());
    for ((field, &stride), &usage) in fields.iter().zip(strides).zip(usages) {
        let size = field
            .values()
            .checked_mul(stride)
            .ok_or_else(|| TableError::Overflow {
                what: format!("the packed size of field `{}`", field.name),
            })?;
        // Given back only to callers that submit `relayout` before handing them on.
        buffers.push(relayout.output(
            output_size(size, "gpudata packed column")?,
            usage,
            "gpudata packed column",
        )?);
        sizes.push(size);
    }
    let targets: Vec<Target<'_>> = buffers
        .iter()
        .zip(strides)
        .zip(&sizes)
        .map(|((buffer, &stride), &size)| Target {
            buffer,
            offset: 0,
            stride,
            first_row: 0,
            region_bytes: size,
        })
        .collect();
    let places: Vec<FieldPlace> = (0..fields.len())
        .map(|target| FieldPlace { target, byte: 0 })
        .collect();
    write_fields(
        gpu,
        relayout,
        fields,
        &places,
        &targets,
        Grouping::ByColumn,
        true,
    )?;
    drop(targets);
    Ok(buffers)
}
