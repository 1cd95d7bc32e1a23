//! The fixed-width fields of a table's columns, read from every batch: the common ground of the
//! conversions between packed columns, interleaved rows and segmented tables.

use crate::data::{GpuDataFormat, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::BufferLayout;
use crate::table::TableError;

use crate::kernels::copy::{CopyRecorder, StridedCopy};
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

    /// Records the copies of every value to `dst`, the first at `dst_offset`, every
    /// `dst_stride` bytes. `gaps_free`: the bytes between destination values belong to nobody.
    pub(crate) fn write_to(
        &self,
        recorder: &mut CopyRecorder<'_>,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        dst_stride: u64,
        gaps_free: bool,
    ) -> Result<(), TableError> {
        let element = self.format.element_format().byte_length();
        let mut at = dst_offset;
        for chunk in &self.chunks {
            recorder.copy(&StridedCopy {
                src: chunk.buffer,
                src_offset: chunk.byte_offset,
                src_stride: chunk.byte_stride,
                dst,
                dst_offset: at,
                dst_stride,
                rows: chunk.values,
                row_bytes: element,
                gaps_free,
            })?;
            at = chunk
                .values
                .checked_mul(dst_stride)
                .and_then(|b| at.checked_add(b))
                .ok_or_else(|| TableError::Overflow {
                    what: format!("the destination of field `{}`", self.name),
                })?;
        }
        Ok(())
    }
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

/// Copies `field` into a new packed buffer of `byte_stride` bytes per value and returns it.
pub(crate) fn copy_fields_packed(
    gpu: &Gpu,
    recorder: &mut CopyRecorder<'_>,
    field: &FieldSource<'_>,
    byte_stride: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, TableError> {
    let size = field
        .values()
        .checked_mul(byte_stride)
        .ok_or_else(|| TableError::Overflow {
            what: format!("the packed size of field `{}`", field.name),
        })?;
    let buffer = crate::device::buffers::create_buffer(gpu, size, usage, "gpudata packed column")?;
    field.write_to(recorder, &buffer, 0, byte_stride, true)?;
    Ok(buffer)
}
