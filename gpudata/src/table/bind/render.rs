//! Render bindings: everything a render pass needs from a table (the vertex layouts, vertex
//! buffers in layout order, constants as zero-stride vertex buffers, the index buffer).

use std::ops::Range;

use crate::data::{GpuData, GpuDataFormat};
use crate::device::Gpu;
use crate::device::GpuError;
use crate::format::VertexFormat;
use crate::layout::{StepMode, VertexLayout, VertexLayoutSource};
use crate::table::TableError;

use crate::table::column::batch::GpuRecordBatch;
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
    batch: usize,
}

impl BatchDraw {
    /// The batch's index in the table ([`GpuTable::batches`]): batches without rows have no
    /// draw, so this is not always the draw's position in [`TableRenderBindings::batches`].
    #[must_use]
    pub const fn batch(&self) -> usize {
        self.batch
    }

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

/// What a render pipeline and its draws need from a table: its vertex layout (the table's
/// [`vertex_layout`](VertexLayoutSource::vertex_layout): one buffer per table layout in order,
/// then one zero-stride buffer per constant), the shader location of every attribute, and per
/// batch the buffers to bind.
#[derive(Clone, Debug)]
pub struct TableRenderBindings {
    layout: VertexLayout,
    locations: Vec<(String, u32)>,
    batches: Vec<BatchDraw>,
}

impl TableRenderBindings {
    /// The layouts for [`wgpu::VertexState::buffers`], slot by slot: `vertex_layout().as_wgpu()`.
    #[must_use]
    pub fn vertex_layouts(&self) -> Vec<Option<wgpu::VertexBufferLayout<'_>>> {
        self.layout.as_wgpu()
    }

    /// The vertex layout: every buffer, attribute, format and location.
    #[must_use]
    pub const fn vertex_layout(&self) -> &VertexLayout {
        &self.layout
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

    /// WGSL `@location(n) name: T,` lines of a vertex input struct, one per attribute in
    /// location order (`T` as [`VertexFormat::vertex_input_type`]): the layout's
    /// [`wgsl_vertex_inputs`](VertexLayout::wgsl_vertex_inputs).
    #[must_use]
    pub fn wgsl_vertex_inputs(&self) -> String {
        self.layout.wgsl_vertex_inputs()
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
    if !data
        .buffer_on(gpu, "bind an index buffer")?
        .usage()
        .contains(wgpu::BufferUsages::INDEX)
    {
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
    let layout = table.vertex_layout(options.base_location, options.step_mode)?;
    let locations = layout
        .attributes()
        .map(|(name, _, location, _)| (name.to_owned(), location))
        .collect();
    let mut constant_ranges = Vec::with_capacity(table.constants().len());
    for (_, constant) in table.constants() {
        constant_ranges.push(VertexBufferRange {
            buffer: table.uploads.buffer(gpu, constant)?,
            offset: 0,
            size: crate::data::CONSTANT_BUFFER_BYTES,
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
        layout,
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
    let index_buffer = batch
        .column(RESERVED_INDEX_COLUMN)
        .map(|data| index_range(gpu, data))
        .transpose()?;
    Ok(BatchDraw {
        vertex_buffers,
        index: index_buffer,
        rows: batch.num_rows(),
        batch: index,
    })
}
