//! Segmented tables: a table whose columns are contiguous segments of one allocation
//! ([`SegmentedTable`], laid out by [`SegmentedLayout`](super::segment::SegmentedLayout)), and
//! the conversions between packed columns, interleaved rows and segmented tables, all with GPU
//! copies.

use std::fmt;

use crate::data::{BufferHandle, DEFAULT_USAGE, GpuData, GpuDataDescriptor};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::layout::{BufferLayout, GpuDataStructFormat, StepMode, StructLayout};
use crate::table::TableError;

use super::fields::{
    FieldPlace, FieldSource, Grouping, copy_fields_packed, output_size, table_fields, write_fields,
};
use super::segment::{Segment, SegmentSpec, SegmentStride, SegmentedLayout};
use crate::data::GpuConstant;
use crate::device::buffers::create_buffer;
use crate::device::transfer::{WaitMode, row_granule, upload, write_bytes};
use crate::ops::kernels::transform::relayout::{Relayout, Target};
use crate::table::column::batch::RecordBatchOptions;
use crate::table::column::schema::{Metadata, RESERVED_INDEX_COLUMN};
use crate::table::column::table::{GpuColumn, GpuTable};
use crate::table::column::vector::GpuVector;

/// Options of the conversions into segmented tables and packed columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentOptions {
    /// The byte stride of each segment or packed column.
    pub stride: SegmentStride,
}

/// A table whose columns are contiguous segments of one buffer (the *segmented* layout:
/// column-major, one allocation).
///
/// Interleaved columns are split: each struct field or layout attribute becomes its own segment,
/// named after it. The table owns the allocation ([`destroy`](Self::destroy) frees it); its
/// [`table`](Self::table) view holds one batch whose columns are [`GpuData`] sharing the buffer at
/// each segment's offset, so everything that binds or reads a [`GpuTable`] works on it.
pub struct SegmentedTable {
    layout: SegmentedLayout,
    buffer: wgpu::Buffer,
    table: GpuTable,
    num_rows: u64,
}

/// A host column for [`SegmentedTableBuilder`].
struct HostColumn<'a> {
    spec: SegmentSpec,
    bytes: &'a [u8],
}

/// Builds a [`SegmentedTable`] from borrowed host bytes: the buffer is created mapped and each
/// column's bytes are written straight into its segment (no intermediate host copy, spread to
/// the segment's stride where it is wider than a value).
///
/// ```
/// use gpudata::VertexFormat;
/// use gpudata::GpuConstant;
/// use gpudata::table::SegmentedTableBuilder;
///
/// let gpu = &gpudata::Gpu::headless()?;
/// let positions: [[f32; 2]; 3] = [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]];
/// let colors: [[u8; 4]; 3] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
/// let table = SegmentedTableBuilder::new()
///     .column("positions", VertexFormat::Float32x2, bytemuck::cast_slice(&positions))
///     .column("colors", VertexFormat::Unorm8x4, bytemuck::cast_slice(&colors))
///     .constant("size", GpuConstant::from_value(4.0f32))
///     .build(gpu)?;
/// assert_eq!(table.table().num_rows(), 3);
/// let colors = table.layout().segment("colors").unwrap();
/// assert_eq!(colors.byte_offset() % table.layout().alignment(), 0);
/// assert_eq!(table.segment_data("colors").unwrap().read_bytes(gpu)?.len(), 12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct SegmentedTableBuilder<'a> {
    columns: Vec<HostColumn<'a>>,
    constants: Vec<(String, GpuConstant)>,
    stride: SegmentStride,
    usage: Option<wgpu::BufferUsages>,
    num_rows: Option<u64>,
    metadata: Metadata,
}

impl<'a> SegmentedTableBuilder<'a> {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        SegmentedTableBuilder::default()
    }

    /// Adds a column of packed values of `format` (whole values back to back).
    #[must_use]
    pub fn column(self, name: impl Into<String>, format: VertexFormat, bytes: &'a [u8]) -> Self {
        let length = bytes.len() as u64 / format.byte_length();
        self.column_spec(SegmentSpec::new(name, format, length), bytes)
    }

    /// Adds a column described by `spec` (a list column gives its `value_length`), its packed
    /// values in `bytes`; the spec's `byte_stride` is ignored in favour of the builder's
    /// [`stride`](Self::stride). The spec's data type and readback metadata go to the segment
    /// and its [`GpuData`]. A list column's buffer layout is one attribute of its element format
    /// at the segment's stride (its flattened elements).
    #[must_use]
    pub fn column_spec(mut self, spec: SegmentSpec, bytes: &'a [u8]) -> Self {
        self.columns.push(HostColumn { spec, bytes });
        self
    }

    /// Adds a constant column.
    #[must_use]
    pub fn constant(mut self, name: impl Into<String>, constant: GpuConstant) -> Self {
        self.constants.push((name.into(), constant));
        self
    }

    /// The stride of the segments (default [`SegmentStride::Packed`]).
    #[must_use]
    pub fn stride(mut self, stride: SegmentStride) -> Self {
        self.stride = stride;
        self
    }

    /// The buffer's usage (default [`DEFAULT_USAGE`], plus `INDEX` for an `indices` column).
    #[must_use]
    pub fn usage(mut self, usage: wgpu::BufferUsages) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The row count of a table of constants only.
    #[must_use]
    pub fn num_rows(mut self, num_rows: u64) -> Self {
        self.num_rows = Some(num_rows);
        self
    }

    /// The schema metadata of the table (and its batch).
    #[must_use]
    pub fn metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }

    /// Lays the columns out for `gpu`, uploads them and builds the table.
    ///
    /// # Errors
    /// [`TableError::HostBytes`] when a column's bytes are not its values; as
    /// [`SegmentedLayout::new`]; [`TableError::Gpu`] when the buffer cannot be created; as
    /// [`GpuTable::from_columns`] (row counts must agree).
    pub fn build(self, gpu: &Gpu) -> Result<SegmentedTable, TableError> {
        let mut specs = Vec::with_capacity(self.columns.len());
        for column in &self.columns {
            let element = column.spec.format.element_format();
            let values = column.spec.value_length.unwrap_or(column.spec.length);
            let expected = values.checked_mul(element.byte_length());
            if expected != Some(column.bytes.len() as u64) {
                return Err(TableError::HostBytes {
                    column: column.spec.name.clone(),
                    format: column.spec.format.to_string(),
                    values,
                    found: column.bytes.len() as u64,
                });
            }
            let mut spec = column.spec.clone();
            spec.byte_stride = Some(self.stride.byte_stride(element));
            specs.push(spec);
        }
        let layout = SegmentedLayout::new(SegmentedLayout::device_alignment(gpu), specs)?;
        let has_indices = layout.segment(RESERVED_INDEX_COLUMN).is_some();
        let usage = self.usage.unwrap_or(DEFAULT_USAGE)
            | wgpu::BufferUsages::COPY_DST
            | if has_indices {
                wgpu::BufferUsages::INDEX
            } else {
                wgpu::BufferUsages::empty()
            };
        let buffer = create_buffer(gpu, layout.byte_length(), usage, "gpudata segmented table")?;
        write_segments(gpu, &buffer, &layout, &self.columns)?;
        // List segments hold flattened elements: their layout is one attribute of the element
        // format at the segment's stride (a table cannot synthesize one for a list column).
        let list_layouts = layout
            .segments()
            .iter()
            .map(|s| {
                s.format().is_list().then(|| {
                    BufferLayout::single(s.name(), s.format().element_format(), s.byte_stride())
                })
            })
            .collect();
        SegmentedTable::assemble(
            gpu,
            layout,
            buffer,
            list_layouts,
            self.constants,
            self.num_rows,
            RecordBatchOptions {
                metadata: self.metadata,
                ..RecordBatchOptions::default()
            },
        )
    }
}

/// Writes each column's values into its segment of `buffer` through the transfer engine, so
/// the host memory staged at once stays within the device's transfer budget however large the
/// table: packed columns as they are, wider strides value by value with zeroed padding.
fn write_segments(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    layout: &SegmentedLayout,
    columns: &[HostColumn<'_>],
) -> Result<(), TableError> {
    for (segment, column) in layout.segments().iter().zip(columns) {
        if column.bytes.is_empty() {
            continue;
        }
        let start = segment.byte_offset();
        let element = segment.row_byte_length();
        let stride = segment.byte_stride();
        let bytes = column.bytes;
        let written = if stride == element {
            pollster::block_on(write_bytes(gpu, buffer, start, bytes, WaitMode::Block))
        } else {
            // Chunks start at whole values and whole words; each fills its values and the
            // padding between them (staging memory is not zeroed).
            let granule = row_granule(stride);
            let fill = |at: u64, mut dst: wgpu::WriteOnly<'_, [u8]>| {
                // `at` is a multiple of the stride; the chunk holds its values' strides.
                let first = at / stride;
                let (stride, element) = (stride as usize, element as usize);
                let mut offset = 0;
                for value in bytes.chunks_exact(element).skip(first as usize) {
                    if offset >= dst.len() {
                        break;
                    }
                    let take = element.min(dst.len() - offset);
                    dst.slice(offset..offset + take)
                        .copy_from_slice(&value[..take]);
                    let pad_end = (offset + stride).min(dst.len());
                    dst.slice(offset + take..pad_end).fill(0);
                    offset += stride;
                }
                if offset < dst.len() {
                    dst.slice(offset..).fill(0);
                }
            };
            let len = segment.reserved_byte_length();
            pollster::block_on(upload(
                gpu,
                buffer,
                start,
                len,
                granule,
                &fill,
                WaitMode::Block,
            ))
        };
        written?;
    }
    Ok(())
}

impl SegmentedTable {
    /// The table's fields as segments of one new buffer, copied on the GPU (no host round trip):
    /// packed columns, interleaved columns (split into one segment per field or attribute) and
    /// every batch (concatenated). Constants are kept. Works from any [`GpuTable`].
    ///
    /// # Errors
    /// [`TableError::UnsplittableColumn`] for a column with neither format nor attributes;
    /// [`TableError::DuplicateColumn`] when split fields collide; as [`SegmentedLayout::new`];
    /// [`TableError::Gpu`] when a source lacks `COPY_SRC` or a buffer cannot be created.
    pub fn from_table(
        gpu: &Gpu,
        table: &GpuTable,
        options: SegmentOptions,
    ) -> Result<SegmentedTable, TableError> {
        table.check_device(gpu, "segment a table")?;
        let fields = table_fields(table)?;
        let specs = fields.iter().map(|f| SegmentSpec {
            name: f.name.clone(),
            format: f.format,
            length: f.rows(),
            value_length: Some(f.values()),
            byte_stride: Some(options.stride.byte_stride(f.format.element_format())),
            data_type: f.data_type.clone(),
            readback_metadata: None,
        });
        let layout = SegmentedLayout::new(SegmentedLayout::device_alignment(gpu), specs)?;
        let usage = DEFAULT_USAGE
            | if layout.segment(RESERVED_INDEX_COLUMN).is_some() {
                wgpu::BufferUsages::INDEX
            } else {
                wgpu::BufferUsages::empty()
            };
        let mut relayout = Relayout::new(gpu, "gpudata segment columns");
        // Given to nobody before the re-layout is submitted below; dropped on every error
        // before it.
        let buffer = relayout.output(
            output_size(layout.byte_length(), "gpudata segmented table")?,
            usage,
            "gpudata segmented table",
        )?;
        let targets: Vec<Target<'_>> = layout
            .segments()
            .iter()
            .map(|segment| Target {
                buffer: &buffer,
                offset: segment.byte_offset(),
                stride: segment.byte_stride(),
                first_row: 0,
                region_bytes: segment.reserved_byte_length(),
            })
            .collect();
        let places: Vec<FieldPlace> = (0..fields.len())
            .map(|target| FieldPlace { target, byte: 0 })
            .collect();
        let sources: Vec<&FieldSource<'_>> = fields.iter().collect();
        write_fields(
            gpu,
            &mut relayout,
            &sources,
            &places,
            &targets,
            Grouping::ByColumn,
            true,
        )?;
        relayout.submit()?;
        drop(targets);
        let constants = table.constants().map(|(n, c)| (n.to_owned(), *c)).collect();
        let options = RecordBatchOptions {
            num_rows: Some(table.num_rows()),
            metadata: table.schema().metadata.clone(),
            ..RecordBatchOptions::default()
        };
        let layouts = fields.iter().map(|f| f.list_layout.clone()).collect();
        SegmentedTable::assemble(
            gpu,
            layout,
            buffer,
            layouts,
            constants,
            Some(table.num_rows()),
            options,
        )
    }

    fn assemble(
        gpu: &Gpu,
        layout: SegmentedLayout,
        buffer: wgpu::Buffer,
        list_layouts: Vec<Option<BufferLayout>>,
        constants: Vec<(String, GpuConstant)>,
        num_rows: Option<u64>,
        mut options: RecordBatchOptions,
    ) -> Result<SegmentedTable, TableError> {
        let mut columns: Vec<(String, GpuColumn)> = Vec::new();
        for (i, segment) in layout.segments().iter().enumerate() {
            let data = GpuData::new(BufferHandle::Shared(buffer.clone()), segment.descriptor())?
                .on_device(gpu);
            let mut vector = GpuVector::from_data(segment.name().to_owned(), vec![data])?;
            vector.set_readback_metadata(segment.data_type().cloned());
            vector.set_buffer_layout(list_layouts.get(i).cloned().flatten());
            columns.push((segment.name().to_owned(), GpuColumn::Vector(vector)));
        }
        columns.extend(
            constants
                .into_iter()
                .map(|(n, c)| (n, GpuColumn::Constant(c))),
        );
        options.num_rows = if layout.segments().is_empty() {
            num_rows.or(Some(0))
        } else {
            None
        };
        let given_rows = options.num_rows;
        let table = GpuTable::from_columns(columns, options)?;
        // A table without columns has no batch to count rows in: keep the given count.
        let num_rows = given_rows.unwrap_or_else(|| table.num_rows());
        Ok(SegmentedTable {
            layout,
            buffer,
            table,
            num_rows,
        })
    }

    /// Rows: the segments' rows, or the row count given for a table without segments (which
    /// [`table`](Self::table) cannot hold when it has no constants either).
    #[must_use]
    pub const fn num_rows(&self) -> u64 {
        self.num_rows
    }

    /// The segment metadata.
    #[must_use]
    pub fn layout(&self) -> &SegmentedLayout {
        &self.layout
    }

    /// The segment of column `name`.
    #[must_use]
    pub fn segment(&self, name: &str) -> Option<&Segment> {
        self.layout.segment(name)
    }

    /// The one buffer all segments live in.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The segments as a [`GpuTable`] of one batch, for binding and reading.
    #[must_use]
    pub fn table(&self) -> &GpuTable {
        &self.table
    }

    /// The storage binding of segment `name`: its reserved bytes, starting at its (aligned)
    /// offset. `None` for an unknown or empty segment.
    #[must_use]
    pub fn segment_binding(&self, name: &str) -> Option<wgpu::BufferBinding<'_>> {
        let segment = self.layout.segment(name)?;
        Some(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: segment.byte_offset(),
            size: Some(wgpu::BufferSize::new(segment.reserved_byte_length())?),
        })
    }

    /// The data of segment `name`: rows of its format at its offset in the shared buffer.
    #[must_use]
    pub fn segment_data(&self, name: &str) -> Option<&GpuData> {
        self.table.batches().first()?.column(name)
    }

    /// The segments as packed columns, one new buffer each (GPU copies).
    ///
    /// # Errors
    /// As [`GpuTable::to_packed`].
    pub fn to_packed(&self, gpu: &Gpu, options: SegmentOptions) -> Result<GpuTable, TableError> {
        self.table.to_packed(gpu, options)
    }

    /// The segments interleaved into rows of one struct column `name` (GPU copies).
    ///
    /// # Errors
    /// As [`GpuTable::to_interleaved`].
    pub fn to_interleaved(
        &self,
        gpu: &Gpu,
        name: &str,
        layout: StructLayout,
        step_mode: Option<StepMode>,
    ) -> Result<GpuTable, TableError> {
        self.table.to_interleaved(gpu, name, layout, step_mode)
    }

    /// The table view and the allocation it shares, giving up the eager free: the memory lives
    /// until the last handle to the buffer is dropped.
    #[must_use]
    pub fn into_table(self) -> GpuTable {
        self.table
    }

    /// Frees the allocation now.
    pub fn destroy(self) {
        self.buffer.destroy();
    }
}

impl fmt::Debug for SegmentedTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentedTable")
            .field("layout", &self.layout)
            .field("buffer_size", &self.buffer.size())
            .field("table", &self.table)
            .finish()
    }
}

/// The body of [`GpuTable::to_packed`].
pub(crate) fn to_packed(
    table: &GpuTable,
    gpu: &Gpu,
    options: SegmentOptions,
) -> Result<GpuTable, TableError> {
    let fields = table_fields(table)?;
    let mut relayout = Relayout::new(gpu, "gpudata pack columns");
    let sources: Vec<&FieldSource<'_>> = fields.iter().collect();
    let strides: Vec<u64> = fields
        .iter()
        .map(|f| options.stride.byte_stride(f.format.element_format()))
        .collect();
    let usages: Vec<wgpu::BufferUsages> = fields.iter().map(|f| usage_for(&f.name)).collect();
    let buffers = copy_fields_packed(gpu, &mut relayout, &sources, &strides, &usages)?;
    relayout.submit()?;
    let mut columns: Vec<(String, GpuColumn)> = Vec::new();
    for ((field, buffer), stride) in fields.iter().zip(buffers).zip(strides) {
        let vector = packed_vector(gpu, field, buffer, stride)?;
        columns.push((field.name.clone(), GpuColumn::Vector(vector)));
    }
    finish_conversion(table, columns)
}

/// The body of [`GpuTable::to_interleaved`].
pub(crate) fn to_interleaved(
    table: &GpuTable,
    gpu: &Gpu,
    name: &str,
    layout: StructLayout,
    step_mode: Option<StepMode>,
) -> Result<GpuTable, TableError> {
    let fields = table_fields(table)?;
    let (indices, rows): (Vec<&FieldSource<'_>>, Vec<&FieldSource<'_>>) =
        fields.iter().partition(|f| f.name == RESERVED_INDEX_COLUMN);
    for field in &rows {
        if field.format.is_list() {
            return Err(TableError::InterleaveList {
                column: field.column.clone(),
            });
        }
    }
    let mut relayout = Relayout::new(gpu, "gpudata interleave columns");
    let mut columns: Vec<(String, GpuColumn)> = Vec::new();
    if !rows.is_empty() {
        let format = GpuDataStructFormat::new(
            layout,
            rows.iter()
                .map(|f| (f.name.clone(), f.format.element_format())),
        )?;
        let length = rows[0].rows();
        let size =
            length
                .checked_mul(format.byte_stride())
                .ok_or_else(|| TableError::Overflow {
                    what: format!("the rows of interleaved column `{name}`"),
                })?;
        // Given to nobody before the re-layout is submitted below; dropped on every error
        // before it.
        let buffer = relayout.output(
            output_size(size, "gpudata interleaved rows")?,
            DEFAULT_USAGE,
            "gpudata interleaved rows",
        )?;
        // Every field of a row in one kernel (N sources, one output), batch by batch.
        let target = Target {
            buffer: &buffer,
            offset: 0,
            stride: format.byte_stride(),
            first_row: 0,
            region_bytes: size,
        };
        let places: Vec<FieldPlace> = format
            .fields()
            .iter()
            .map(|place| FieldPlace {
                target: 0,
                byte: place.byte_offset(),
            })
            .collect();
        write_fields(
            gpu,
            &mut relayout,
            &rows,
            &places,
            &[target],
            Grouping::Rows,
            false,
        )?;
        let data = GpuData::new(
            BufferHandle::Owned(buffer),
            GpuDataDescriptor::new(format, length),
        )?
        .on_device(gpu);
        let vector = GpuVector::from_struct_data(name, data, step_mode)?;
        columns.push((name.to_owned(), GpuColumn::Vector(vector)));
    }
    let strides: Vec<u64> = indices
        .iter()
        .map(|f| f.format.element_format().byte_length())
        .collect();
    let usages: Vec<wgpu::BufferUsages> = indices.iter().map(|f| usage_for(&f.name)).collect();
    let buffers = copy_fields_packed(gpu, &mut relayout, &indices, &strides, &usages)?;
    relayout.submit()?;
    for ((field, buffer), stride) in indices.iter().zip(buffers).zip(strides) {
        columns.push((
            field.name.clone(),
            GpuColumn::Vector(packed_vector(gpu, field, buffer, stride)?),
        ));
    }
    finish_conversion(table, columns)
}

/// Adds the constants and builds the converted table.
fn finish_conversion(
    table: &GpuTable,
    mut columns: Vec<(String, GpuColumn)>,
) -> Result<GpuTable, TableError> {
    let has_vectors = !columns.is_empty();
    columns.extend(
        table
            .constants()
            .map(|(n, c)| (n.to_owned(), GpuColumn::Constant(*c))),
    );
    GpuTable::from_columns(
        columns,
        RecordBatchOptions {
            num_rows: (!has_vectors).then_some(table.num_rows()),
            metadata: table.schema().metadata.clone(),
            ..RecordBatchOptions::default()
        },
    )
}

fn usage_for(name: &str) -> wgpu::BufferUsages {
    if name == RESERVED_INDEX_COLUMN {
        DEFAULT_USAGE | wgpu::BufferUsages::INDEX
    } else {
        DEFAULT_USAGE
    }
}

fn packed_vector(
    gpu: &Gpu,
    field: &FieldSource<'_>,
    buffer: wgpu::Buffer,
    byte_stride: u64,
) -> Result<GpuVector, TableError> {
    let data = GpuData::new(
        BufferHandle::Owned(buffer),
        GpuDataDescriptor {
            format: Some(field.format.into()),
            length: field.rows(),
            value_length: Some(field.values()),
            stride: None,
            byte_offset: 0,
            byte_stride: Some(byte_stride),
            row_byte_length: None,
            readback_metadata: None,
            metrics: crate::data::MetricsPolicy::Data,
        },
    )?
    .on_device(gpu);
    let mut vector = GpuVector::from_data(field.name.clone(), vec![data])?;
    vector.set_readback_metadata(field.data_type.clone());
    vector.set_buffer_layout(field.list_layout.clone());
    Ok(vector)
}
