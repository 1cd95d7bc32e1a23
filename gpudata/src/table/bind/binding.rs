//! Binding a table: everything a render pass needs (vertex buffers in layout order, constants
//! as zero-stride vertex buffers, the index buffer) and everything a compute pass needs (a
//! storage range per column or segment, a uniform per constant, WGSL accessors), from one call.

use std::fmt::Write as _;
use std::ops::Range;

use crate::data::{GpuData, GpuDataFormat};
use crate::device::Gpu;
use crate::device::GpuError;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::{StepMode, WgpuVertexLayout};
use crate::table::TableError;

use super::wgsl::{accessor_fn, check_wgsl_name};
use crate::table::column::batch::GpuRecordBatch;
use crate::table::column::constant::GpuConstant;
use crate::table::column::schema::RESERVED_INDEX_COLUMN;
use crate::table::column::table::GpuTable;

/// Options of [`GpuTable::render_bindings`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// The step mode of layouts that state none, and of the constants (whose stride is 0, so
    /// either mode fetches the same value).
    pub step_mode: StepMode,
    /// The shader location of the first attribute; the others follow in layout order.
    pub base_location: u32,
}

/// One vertex buffer range to set at a slot.
#[derive(Clone, Debug)]
pub struct VertexBufferRange {
    /// The buffer.
    pub buffer: wgpu::Buffer,
    /// The first byte (a multiple of 4).
    pub offset: u64,
    /// Bytes bound.
    pub size: u64,
}

impl VertexBufferRange {
    /// The range as a slice for [`wgpu::RenderPass::set_vertex_buffer`].
    #[must_use]
    pub fn slice(&self) -> wgpu::BufferSlice<'_> {
        self.buffer.slice(self.offset..self.offset + self.size)
    }
}

/// The index buffer of one batch.
#[derive(Clone, Debug)]
pub struct IndexBufferRange {
    /// The buffer.
    pub buffer: wgpu::Buffer,
    /// The first byte.
    pub offset: u64,
    /// Bytes bound.
    pub size: u64,
    /// `Uint32` or `Uint16`.
    pub format: wgpu::IndexFormat,
    /// Indices.
    pub count: u32,
}

/// What one batch binds for a draw.
#[derive(Clone, Debug)]
pub struct BatchDraw {
    vertex_buffers: Vec<VertexBufferRange>,
    index: Option<IndexBufferRange>,
    rows: u64,
}

impl BatchDraw {
    /// The vertex buffers, slot by slot (the table's layouts, then the constants).
    #[must_use]
    pub fn vertex_buffers(&self) -> &[VertexBufferRange] {
        &self.vertex_buffers
    }

    /// The index buffer, for a table with an `indices` column.
    #[must_use]
    pub fn index(&self) -> Option<&IndexBufferRange> {
        self.index.as_ref()
    }

    /// The batch's rows.
    #[must_use]
    pub const fn rows(&self) -> u64 {
        self.rows
    }

    /// Sets the vertex buffers (slots `0..`) and the index buffer.
    pub fn set_buffers(&self, pass: &mut wgpu::RenderPass<'_>) {
        for (slot, range) in (0u32..).zip(&self.vertex_buffers) {
            pass.set_vertex_buffer(slot, range.slice());
        }
        if let Some(index) = &self.index {
            pass.set_index_buffer(
                index.buffer.slice(index.offset..index.offset + index.size),
                index.format,
            );
        }
    }

    /// Sets the buffers and draws the rows as vertices: every index of the index buffer, or
    /// vertices `0..rows`, for `instances`.
    ///
    /// # Errors
    /// [`TableError::TooManyRows`] for more rows than a draw counts.
    pub fn draw_rows(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        instances: Range<u32>,
    ) -> Result<(), TableError> {
        self.set_buffers(pass);
        match &self.index {
            Some(index) => pass.draw_indexed(0..index.count, 0, instances),
            None => {
                let rows = u32::try_from(self.rows)
                    .map_err(|_| TableError::TooManyRows { rows: self.rows })?;
                pass.draw(0..rows, instances);
            }
        }
        Ok(())
    }

    /// Sets the buffers and draws the rows as instances of `vertices` (for instance-stepped
    /// layouts).
    ///
    /// # Errors
    /// [`TableError::TooManyRows`] for more rows than a draw counts.
    pub fn draw_instances(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        vertices: Range<u32>,
    ) -> Result<(), TableError> {
        self.set_buffers(pass);
        let rows =
            u32::try_from(self.rows).map_err(|_| TableError::TooManyRows { rows: self.rows })?;
        pass.draw(vertices, 0..rows);
        Ok(())
    }
}

/// What a render pipeline and its draws need from a table: the vertex layouts (one per table
/// layout in order, then one zero-stride layout per constant), the shader location of every
/// attribute, and per batch the buffers to bind.
#[derive(Clone, Debug)]
pub struct TableRenderBindings {
    layouts: Vec<WgpuVertexLayout>,
    locations: Vec<(String, u32)>,
    batches: Vec<BatchDraw>,
}

impl TableRenderBindings {
    /// The layouts for [`wgpu::VertexState::buffers`], slot by slot.
    #[must_use]
    pub fn vertex_layouts(&self) -> Vec<Option<wgpu::VertexBufferLayout<'_>>> {
        self.layouts.iter().map(|l| Some(l.as_wgpu())).collect()
    }

    /// The owned layouts.
    #[must_use]
    pub fn owned_layouts(&self) -> &[WgpuVertexLayout] {
        &self.layouts
    }

    /// Every attribute (layout attribute, single-format column or constant) with its shader
    /// location, in slot order.
    #[must_use]
    pub fn locations(&self) -> &[(String, u32)] {
        &self.locations
    }

    /// The shader location of `attribute`.
    #[must_use]
    pub fn location(&self, attribute: &str) -> Option<u32> {
        self.locations
            .iter()
            .find(|(n, _)| n == attribute)
            .map(|(_, l)| *l)
    }

    /// The draws, one per batch with rows.
    #[must_use]
    pub fn batches(&self) -> &[BatchDraw] {
        &self.batches
    }

    /// WGSL `@location(n) name: T` lines of a vertex input struct, one per attribute in location
    /// order (`T` as [`VertexFormat::vertex_input_type`]).
    #[must_use]
    pub fn wgsl_vertex_inputs(&self, formats: &[(String, VertexFormat)]) -> String {
        let mut out = String::new();
        for (name, location) in &self.locations {
            if let Some((_, format)) = formats.iter().find(|(n, _)| n == name) {
                let _ = writeln!(
                    out,
                    "    @location({location}) {name}: {},",
                    format.vertex_input_type()
                );
            }
        }
        out
    }
}

fn index_range(gpu: &Gpu, data: &GpuData) -> Result<IndexBufferRange, TableError> {
    let element = match data.format() {
        Some(GpuDataFormat::Vector(v)) => v.element_format(),
        _ => {
            return Err(TableError::IndexFormat {
                found: crate::table::column::vector::format_text(data.format()),
            });
        }
    };
    let (format, size) = match element {
        VertexFormat::Uint32 => (wgpu::IndexFormat::Uint32, 4),
        VertexFormat::Uint16 => (wgpu::IndexFormat::Uint16, 2),
        _ => {
            return Err(TableError::IndexFormat {
                found: crate::table::column::vector::format_text(data.format()),
            });
        }
    };
    if !data.buffer().usage().contains(wgpu::BufferUsages::INDEX) {
        return Err(GpuError::MissingUsage {
            operation: "bind an index buffer",
            required: wgpu::BufferUsages::INDEX,
            found: data.buffer().usage(),
        }
        .into());
    }
    if data.byte_stride() != size || !data.byte_offset().is_multiple_of(size) {
        return Err(TableError::IndexLayout {
            byte_offset: data.byte_offset(),
            byte_stride: data.byte_stride(),
            index_bytes: size,
        });
    }
    let count = u32::try_from(data.value_length()).map_err(|_| TableError::TooManyRows {
        rows: data.value_length(),
    })?;
    let _ = gpu;
    Ok(IndexBufferRange {
        buffer: data.buffer().clone(),
        offset: data.byte_offset(),
        size: count as u64 * size,
        format,
        count,
    })
}

/// The body of [`GpuTable::render_bindings`].
pub(crate) fn render_bindings(
    table: &GpuTable,
    gpu: &Gpu,
    options: RenderOptions,
) -> Result<TableRenderBindings, TableError> {
    let mut layouts = Vec::new();
    let mut locations = Vec::new();
    let mut next = options.base_location;
    let overflow = || TableError::Overflow {
        what: "the shader locations of the table".to_owned(),
    };
    for layout in table.buffer_layouts() {
        let mut layout = layout.clone();
        layout.step_mode = layout.step_mode.or(Some(options.step_mode));
        let wgpu_layout = layout.to_wgpu(next)?;
        for (attribute, wgpu_attribute) in layout
            .resolved_attributes()
            .iter()
            .zip(&wgpu_layout.attributes)
        {
            locations.push((attribute.attribute.clone(), wgpu_attribute.shader_location));
        }
        next = u32::try_from(wgpu_layout.attributes.len())
            .ok()
            .and_then(|n| next.checked_add(n))
            .ok_or_else(overflow)?;
        layouts.push(wgpu_layout);
    }
    let constants: Vec<(&str, &GpuConstant)> = table.constants().collect();
    let mut constant_ranges = Vec::with_capacity(constants.len());
    for (name, constant) in &constants {
        layouts.push(constant.wgpu_vertex_layout(next, options.step_mode)?);
        locations.push(((*name).to_owned(), next));
        next = next.checked_add(1).ok_or_else(overflow)?;
        constant_ranges.push(VertexBufferRange {
            buffer: constant.buffer(gpu),
            offset: 0,
            size: crate::table::column::constant::CONSTANT_BUFFER_BYTES,
        });
    }
    let mut batches = Vec::with_capacity(table.batches().len());
    for (i, batch) in table.batches().iter().enumerate() {
        if batch.num_rows() == 0 {
            continue;
        }
        batches.push(batch_draw(table, gpu, i, batch, &constant_ranges)?);
    }
    Ok(TableRenderBindings {
        layouts,
        locations,
        batches,
    })
}

fn batch_draw(
    table: &GpuTable,
    gpu: &Gpu,
    index: usize,
    batch: &GpuRecordBatch,
    constants: &[VertexBufferRange],
) -> Result<BatchDraw, TableError> {
    let mut vertex_buffers = Vec::with_capacity(table.buffer_layouts().len() + constants.len());
    for layout in table.buffer_layouts() {
        let data = batch
            .column(&layout.name)
            .ok_or_else(|| TableError::MissingBatchData {
                column: layout.name.clone(),
                batch: index,
            })?;
        data.vertex_buffer_slice(gpu)?;
        vertex_buffers.push(VertexBufferRange {
            buffer: data.buffer().clone(),
            offset: data.byte_offset(),
            size: data.byte_length(),
        });
    }
    vertex_buffers.extend(constants.iter().cloned());
    let index = batch
        .column(RESERVED_INDEX_COLUMN)
        .map(|data| index_range(gpu, data))
        .transpose()?;
    Ok(BatchDraw {
        vertex_buffers,
        index,
        rows: batch.num_rows(),
    })
}

/// One column's (or segment's) storage range and how its rows lie in it.
#[derive(Clone, Debug)]
pub struct StorageColumn {
    name: String,
    buffer: wgpu::Buffer,
    offset: u64,
    size: u64,
    base: u64,
    byte_stride: u64,
    values: u64,
    accessors: Vec<(String, VertexFormat, u64)>,
}

impl StorageColumn {
    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The binding's first byte (a multiple of the device's storage offset alignment).
    #[must_use]
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The binding's bytes (a multiple of 4).
    #[must_use]
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// The byte of the first row inside the binding (0 for aligned data such as segments).
    #[must_use]
    pub const fn base(&self) -> u64 {
        self.base
    }

    /// Bytes between rows (or list elements).
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Values bound (rows, or list elements).
    #[must_use]
    pub const fn values(&self) -> u64 {
        self.values
    }

    /// The binding.
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: wgpu::BufferSize::new(self.size),
        }
    }

    /// The values this column's WGSL accessors read: `(accessor base name, format, byte offset
    /// in the row)`.
    #[must_use]
    pub fn accessors(&self) -> &[(String, VertexFormat, u64)] {
        &self.accessors
    }
}

/// One constant bound as a uniform.
#[derive(Clone, Debug)]
pub struct UniformConstant {
    name: String,
    buffer: wgpu::Buffer,
    constant: GpuConstant,
}

impl UniformConstant {
    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The 16-byte uniform buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

/// What one batch binds for a compute pass: a read-only storage range per column, then a uniform
/// per constant, at consecutive bindings.
#[derive(Clone, Debug)]
pub struct BatchStorage {
    columns: Vec<StorageColumn>,
    constants: Vec<UniformConstant>,
    rows: u64,
}

impl BatchStorage {
    /// The storage columns, binding by binding.
    #[must_use]
    pub fn columns(&self) -> &[StorageColumn] {
        &self.columns
    }

    /// The column called `name`.
    #[must_use]
    pub fn column(&self, name: &str) -> Option<&StorageColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The constants, after the columns.
    #[must_use]
    pub fn constants(&self) -> &[UniformConstant] {
        &self.constants
    }

    /// The batch's rows.
    #[must_use]
    pub const fn rows(&self) -> u64 {
        self.rows
    }

    /// Bind group entries: column `i` at `first_binding + i`, then the constants.
    #[must_use]
    pub fn bind_group_entries(&self, first_binding: u32) -> Vec<wgpu::BindGroupEntry<'_>> {
        let columns = self
            .columns
            .iter()
            .map(|c| wgpu::BindingResource::Buffer(c.binding()));
        let constants = self.constants.iter().map(|c| c.buffer.as_entire_binding());
        (first_binding..)
            .zip(columns.chain(constants))
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect()
    }

    /// Bind group layout entries matching [`bind_group_entries`](Self::bind_group_entries),
    /// visible to `visibility`.
    #[must_use]
    pub fn bind_group_layout_entries(
        &self,
        first_binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> Vec<wgpu::BindGroupLayoutEntry> {
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = self
            .columns
            .iter()
            .map(|_| wgpu::BufferBindingType::Storage { read_only: true });
        let uniform = self
            .constants
            .iter()
            .map(|_| wgpu::BufferBindingType::Uniform);
        (first_binding..)
            .zip(storage.chain(uniform))
            .map(|(binding, ty)| entry(binding, ty))
            .collect()
    }

    /// WGSL declaring every binding of [`bind_group_entries`](Self::bind_group_entries) in
    /// `@group(group)` and an accessor per value: `fn {name}_at(row: u32) -> T` for a column of
    /// one format (for list columns, `row` counts elements), one per field or attribute of
    /// interleaved rows, one per constant, each decoding as vertex fetch would. Storage columns
    /// are `var<storage, read> {column}_words: array<u32>`.
    ///
    /// # Errors
    /// [`TableError::Wgsl`] for names that cannot prefix WGSL identifiers.
    pub fn wgsl(&self, group: u32, first_binding: u32) -> Result<String, TableError> {
        let mut out = String::new();
        let mut binding = first_binding;
        for column in &self.columns {
            check_wgsl_name(&column.name)?;
            let words = format!("{}_words", column.name);
            let _ = writeln!(
                out,
                "@group({group}) @binding({binding}) var<storage, read> {words}: array<u32>;"
            );
            for (name, format, offset) in &column.accessors {
                check_wgsl_name(name)?;
                out.push_str(&accessor_fn(
                    &format!("{name}_at"),
                    &words,
                    *format,
                    column.base + offset,
                    column.byte_stride,
                ));
            }
            binding += 1;
        }
        for constant in &self.constants {
            out.push_str(&constant.constant.wgsl(&constant.name, group, binding)?);
            binding += 1;
        }
        Ok(out)
    }
}

/// Per batch, what a compute pass binds (see [`GpuTable::storage_bindings`]).
#[derive(Clone, Debug)]
pub struct TableStorageBindings {
    batches: Vec<BatchStorage>,
}

impl TableStorageBindings {
    /// One entry per batch.
    #[must_use]
    pub fn batches(&self) -> &[BatchStorage] {
        &self.batches
    }

    /// The WGSL of the first batch, when every batch's columns lie at the same place inside
    /// their bindings (always for packed, uploaded and segmented data), so one pipeline serves
    /// all batches.
    ///
    /// # Errors
    /// [`TableError::StorageBasesDiffer`] when a batch needs other text; as
    /// [`BatchStorage::wgsl`].
    pub fn wgsl(&self, group: u32, first_binding: u32) -> Result<String, TableError> {
        let Some(first) = self.batches.first() else {
            return Ok(String::new());
        };
        let text = first.wgsl(group, first_binding)?;
        for (i, batch) in self.batches.iter().enumerate().skip(1) {
            if batch.wgsl(group, first_binding)? != text {
                return Err(TableError::StorageBasesDiffer { batch: i });
            }
        }
        Ok(text)
    }
}

/// The values WGSL accessors read from a column's rows.
fn column_accessors(
    name: &str,
    data: &GpuData,
    layout: Option<&crate::layout::BufferLayout>,
) -> Vec<(String, VertexFormat, u64)> {
    if let Some(layout) = layout.filter(|l| !l.attributes.is_empty()) {
        return layout
            .attributes
            .iter()
            .map(|a| (a.attribute.clone(), a.format, a.byte_offset))
            .collect();
    }
    match data.format() {
        Some(GpuDataFormat::Struct(s)) => s
            .fields()
            .iter()
            .map(|f| (f.name().to_owned(), f.format(), f.byte_offset()))
            .collect(),
        Some(GpuDataFormat::Vector(
            GpuVectorFormat::Fixed(f)
            | GpuVectorFormat::VertexList(f)
            | GpuVectorFormat::ValueList(f),
        )) => vec![(name.to_owned(), *f, 0)],
        None => Vec::new(),
    }
}

fn storage_column(
    gpu: &Gpu,
    name: &str,
    data: &GpuData,
    layout: Option<&crate::layout::BufferLayout>,
) -> Result<StorageColumn, TableError> {
    let buffer = data.buffer();
    if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
        return Err(GpuError::MissingUsage {
            operation: "bind a storage buffer",
            required: wgpu::BufferUsages::STORAGE,
            found: buffer.usage(),
        }
        .into());
    }
    let alignment = crate::table::SegmentedLayout::device_alignment(gpu);
    let offset = data.byte_offset() - data.byte_offset() % alignment;
    let base = data.byte_offset() - offset;
    let accessors = column_accessors(name, data, layout);
    for (field, format, field_offset) in &accessors {
        let component = format.signed_data_type().byte_length();
        let first = base + field_offset;
        if !first.is_multiple_of(component) || !data.byte_stride().is_multiple_of(component) {
            return Err(TableError::StorageMisaligned {
                column: name.to_owned(),
                field: field.clone(),
                byte_offset: data.byte_offset() + field_offset,
                byte_stride: data.byte_stride(),
                alignment: component,
            });
        }
    }
    let end = data
        .byte_offset()
        .checked_add(data.byte_length())
        .and_then(|e| e.checked_next_multiple_of(4))
        .map(|e| e.max(offset + 4));
    let size = end.map(|e| e - offset);
    let max = gpu.limits().max_storage_buffer_binding_size;
    match (end, size) {
        (Some(end), Some(size)) if end <= buffer.size() && size <= max => Ok(StorageColumn {
            name: name.to_owned(),
            buffer: buffer.clone(),
            offset,
            size,
            base,
            byte_stride: data.byte_stride(),
            values: data.value_length(),
            accessors,
        }),
        (Some(end), Some(size)) if end <= buffer.size() => {
            Err(GpuError::StorageBindingSize { size, max }.into())
        }
        _ => Err(GpuError::StorageOutOfBuffer {
            rows: data.value_length(),
            byte_stride: data.byte_stride(),
            byte_offset: data.byte_offset(),
            needed: end.unwrap_or(u64::MAX),
            buffer_size: buffer.size(),
        }
        .into()),
    }
}

/// The body of [`GpuTable::storage_bindings`].
pub(crate) fn storage_bindings(
    table: &GpuTable,
    gpu: &Gpu,
) -> Result<TableStorageBindings, TableError> {
    let constants: Vec<UniformConstant> = table
        .constants()
        .map(|(name, constant)| UniformConstant {
            name: name.to_owned(),
            buffer: constant.buffer(gpu),
            constant: constant.clone(),
        })
        .collect();
    let names: Vec<&str> = table
        .batches()
        .first()
        .map(|b| b.column_names().collect())
        .unwrap_or_default();
    let mut batches = Vec::with_capacity(table.batches().len());
    for (i, batch) in table.batches().iter().enumerate() {
        let mut columns = Vec::with_capacity(names.len());
        for name in &names {
            let data = batch
                .column(name)
                .ok_or_else(|| TableError::MissingBatchData {
                    column: (*name).to_owned(),
                    batch: i,
                })?;
            let layout = table.buffer_layouts().iter().find(|l| l.name == *name);
            columns.push(storage_column(gpu, name, data, layout)?);
        }
        batches.push(BatchStorage {
            columns,
            constants: constants.clone(),
            rows: batch.num_rows(),
        });
    }
    Ok(TableStorageBindings { batches })
}

/// The body of [`GpuTable::bindings`].
pub(crate) fn bindings(
    table: &GpuTable,
    gpu: &Gpu,
    options: RenderOptions,
) -> Result<TableBindings, TableError> {
    Ok(TableBindings {
        render: table.render_bindings(gpu, options)?,
        storage: table.storage_bindings(gpu)?,
    })
}

/// Render and compute bindings of a table (see [`GpuTable::bindings`]).
#[derive(Clone, Debug)]
pub struct TableBindings {
    /// For render pipelines and draws.
    pub render: TableRenderBindings,
    /// For compute passes.
    pub storage: TableStorageBindings,
}
