//! Binding helpers: a data range as a vertex buffer slice, a view as its own vertex buffer
//! (offset, stride and one attribute), a data range as a storage binding; the vertex layouts of
//! data, views, typed data and constants ([`VertexLayoutSource`]).

use std::num::NonZeroU64;

use super::{GpuConstant, GpuData, GpuDataFormat, GpuDataView, TypedGpuData};
use crate::device::Gpu;
use crate::device::GpuError;
use crate::device::buffers::require_usage;
use crate::format::GpuVectorFormat;
use crate::layout::{
    BufferAttribute, BufferLayout, LayoutError, StepMode, VertexLayout, VertexLayoutSource,
    vertex_attribute,
};
use crate::record::GpuStruct;

/// Vertex buffers bind at offsets that are multiples of this (WebGPU's rule).
const VERTEX_OFFSET_ALIGNMENT: u64 = 4;

/// One [`GpuDataView`] as its own vertex buffer: the buffer range to bind and a layout with the
/// view's stride and a single attribute.
///
/// Vertex buffers bind at 4-byte aligned offsets, while a field of a packed struct may start at
/// any offset aligned to its own size: the binding starts at the view's offset rounded down to
/// 4 and the attribute sits at the remainder.
#[derive(Clone, Debug)]
pub struct VertexBinding<'a> {
    buffer: &'a wgpu::Buffer,
    offset: u64,
    size: u64,
    array_stride: u64,
    step_mode: wgpu::VertexStepMode,
    attribute: [wgpu::VertexAttribute; 1],
}

impl<'a> VertexBinding<'a> {
    /// The range to pass to [`wgpu::RenderPass::set_vertex_buffer`].
    #[must_use]
    pub fn slice(&self) -> wgpu::BufferSlice<'a> {
        // In bounds: the view lies inside its buffer and the binding ends where the view does.
        self.buffer.slice(self.offset..self.offset + self.size)
    }

    /// The layout to put in the pipeline's vertex state at this binding's slot: the view's
    /// [`vertex_layout`](VertexLayoutSource::vertex_layout), made without allocating.
    #[must_use]
    pub fn layout(&self) -> wgpu::VertexBufferLayout<'_> {
        wgpu::VertexBufferLayout {
            array_stride: self.array_stride,
            step_mode: self.step_mode,
            attributes: &self.attribute,
        }
    }

    /// The binding's first byte in the buffer (a multiple of 4).
    #[must_use]
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The binding's bytes.
    #[must_use]
    pub const fn size(&self) -> u64 {
        self.size
    }
}

fn check_vertex_stride(gpu: &Gpu, byte_stride: u64) -> Result<(), GpuError> {
    let max = gpu.limits().max_vertex_buffer_array_stride;
    if !byte_stride.is_multiple_of(4) || byte_stride > u64::from(max) {
        return Err(GpuError::VertexStride { byte_stride, max });
    }
    Ok(())
}

impl GpuData {
    /// The data's rows as a vertex buffer slice: from [`byte_offset`](Self::byte_offset),
    /// [`byte_length`](Self::byte_length) bytes. Pair it with the struct's vertex layout (for
    /// typed data, [`GpuStruct::vertex_buffer_layout`](crate::GpuStruct::vertex_buffer_layout)).
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `VERTEX`; [`GpuError::VertexStride`] for a stride wgpu
    /// cannot fetch; [`GpuError::VertexOffset`] for an offset that is not a multiple of 4;
    /// [`GpuError::EmptyBinding`] for data without rows (wgpu cannot bind an empty range).
    pub fn vertex_buffer_slice(&self, gpu: &Gpu) -> Result<wgpu::BufferSlice<'_>, GpuError> {
        require_usage(
            self.buffer_on(gpu, "bind a vertex buffer")?,
            wgpu::BufferUsages::VERTEX,
            "bind a vertex buffer",
        )?;
        check_vertex_stride(gpu, self.byte_stride())?;
        let offset = self.byte_offset();
        if !offset.is_multiple_of(VERTEX_OFFSET_ALIGNMENT) {
            return Err(GpuError::VertexDataOffset {
                byte_offset: offset,
            });
        }
        if self.byte_length() == 0 {
            return Err(GpuError::EmptyBinding {
                binding: "vertex buffer",
            });
        }
        Ok(self.buffer().slice(offset..offset + self.byte_length()))
    }

    /// The data's rows as a storage buffer binding: `length × byte_stride` bytes from
    /// [`byte_offset`](Self::byte_offset), so a WGSL `array<Row>` sees exactly `length` rows.
    /// For a struct format, the WGSL row type is
    /// [`GpuDataStructFormat::wgsl_struct`](crate::GpuDataStructFormat::wgsl_struct).
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `STORAGE`; [`GpuError::StorageOffsetAlignment`] when
    /// the offset is not a multiple of the device's `min_storage_buffer_offset_alignment`;
    /// [`GpuError::StorageOutOfBuffer`] when the last row's trailing padding lies past the
    /// buffer; [`GpuError::StorageBindingSize`] for an empty binding, one that is not a whole
    /// number of words, or one larger than the device binds.
    pub fn storage_binding(&self, gpu: &Gpu) -> Result<wgpu::BufferBinding<'_>, GpuError> {
        require_usage(
            self.buffer_on(gpu, "bind a storage buffer")?,
            wgpu::BufferUsages::STORAGE,
            "bind a storage buffer",
        )?;
        let limits = gpu.limits();
        let alignment = limits.min_storage_buffer_offset_alignment;
        let offset = self.byte_offset();
        if !offset.is_multiple_of(u64::from(alignment.max(1))) {
            return Err(GpuError::StorageOffsetAlignment {
                byte_offset: offset,
                alignment,
            });
        }
        let buffer_size = self.buffer().size();
        let size = self.length().checked_mul(self.byte_stride());
        let end = size.and_then(|s| s.checked_add(offset));
        let size = match (size, end) {
            (Some(size), Some(end)) if end <= buffer_size => size,
            _ => {
                return Err(GpuError::StorageOutOfBuffer {
                    rows: self.length(),
                    byte_stride: self.byte_stride(),
                    byte_offset: offset,
                    // An overflowing end needs more than any buffer holds.
                    needed: end.unwrap_or(u64::MAX),
                    buffer_size,
                });
            }
        };
        let max = limits.max_storage_buffer_binding_size;
        let bindable = NonZeroU64::new(size).filter(|s| s.get() % 4 == 0 && s.get() <= max);
        let Some(size) = bindable else {
            return Err(GpuError::StorageBindingSize { size, max });
        };
        Ok(wgpu::BufferBinding {
            buffer: self.buffer(),
            offset,
            size: Some(size),
        })
    }
}

impl<'a> GpuDataView<'a> {
    /// This view as its own vertex buffer: the view's stride, one attribute of its format at
    /// `shader_location`, stepping per `step_mode`.
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `VERTEX`; [`GpuError::VertexFormat`] for a `-webgl`
    /// format; [`GpuError::VertexStride`]; [`GpuError::VertexOffset`] when the bytes between the
    /// 4-byte aligned binding start and the value, plus the value, exceed the stride;
    /// [`GpuError::VertexAlignment`] when those bytes leave the value where no vertex attribute
    /// of its format may start; [`GpuError::EmptyBinding`] for an empty view.
    pub fn vertex_binding(
        &self,
        gpu: &Gpu,
        shader_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexBinding<'a>, GpuError> {
        let buffer = self.buffer_on(gpu, "bind a vertex buffer")?;
        require_usage(buffer, wgpu::BufferUsages::VERTEX, "bind a vertex buffer")?;
        let format = self.format();
        let rebase = self.byte_offset() % VERTEX_OFFSET_ALIGNMENT;
        let attribute = vertex_attribute(format, rebase, shader_location)
            .ok_or(GpuError::VertexFormat { format })?;
        check_vertex_stride(gpu, self.byte_stride())?;
        if rebase + self.element_byte_length() > self.byte_stride() {
            return Err(GpuError::VertexOffset {
                format,
                byte_offset: self.byte_offset(),
                rebase,
                format_byte_length: self.element_byte_length(),
                byte_stride: self.byte_stride(),
            });
        }
        let alignment = format.byte_length().min(4);
        if !rebase.is_multiple_of(alignment) {
            return Err(GpuError::VertexAlignment {
                format,
                byte_offset: self.byte_offset(),
                alignment,
            });
        }
        if self.length() == 0 {
            return Err(GpuError::EmptyBinding {
                binding: "vertex buffer",
            });
        }
        Ok(VertexBinding {
            buffer,
            offset: self.byte_offset() - rebase,
            size: rebase + self.byte_length(),
            array_stride: self.byte_stride(),
            step_mode: step_mode.to_wgpu(),
            attribute: [attribute],
        })
    }
}

/// The luma.gl buffer layout of rows of `format`, `byte_stride` bytes apart, in a buffer called
/// `name`: a struct's fields at their offsets, or one attribute `name` of a fixed format.
///
/// # Errors
/// [`LayoutError::NoVertexLayout`] for a list format or no format.
pub(crate) fn rows_layout(
    name: &str,
    format: Option<&GpuDataFormat>,
    byte_stride: u64,
) -> Result<BufferLayout, LayoutError> {
    match format {
        Some(GpuDataFormat::Struct(format)) => Ok(BufferLayout {
            byte_stride: Some(byte_stride),
            ..format.buffer_layout(name, None)
        }),
        Some(GpuDataFormat::Vector(GpuVectorFormat::Fixed(format))) => {
            Ok(BufferLayout::single(name, *format, byte_stride))
        }
        other => Err(LayoutError::NoVertexLayout {
            name: name.to_owned(),
            format: other.map_or_else(|| "no format".to_owned(), ToString::to_string),
        }),
    }
}

/// The data's rows at its byte stride, in a buffer called `data`: a struct format's fields (one
/// attribute per field at its offset), or one attribute `data` of its fixed format. Bind
/// [`vertex_buffer_slice`](GpuData::vertex_buffer_slice) there.
impl VertexLayoutSource for GpuData {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        rows_layout("data", self.format(), self.byte_stride())?
            .vertex_layout(base_location, step_mode)
    }
}

/// The view as its own vertex buffer ([`GpuDataView::vertex_binding`]): one attribute `view` of
/// its format, at the view's offset past the 4-byte boundary below it, at the view's stride.
impl VertexLayoutSource for GpuDataView<'_> {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        let layout = BufferLayout {
            name: "view".to_owned(),
            format: None,
            byte_stride: Some(self.byte_stride()),
            step_mode: None,
            attributes: vec![BufferAttribute {
                attribute: "view".to_owned(),
                format: self.format(),
                byte_offset: self.byte_offset() % VERTEX_OFFSET_ALIGNMENT,
            }],
        };
        layout.vertex_layout(base_location, step_mode)
    }
}

/// The rows of `T`, as [`GpuData`]'s.
impl<T: GpuStruct> VertexLayoutSource for TypedGpuData<T> {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        self.as_data().vertex_layout(base_location, step_mode)
    }
}

/// The constant as a vertex buffer of stride 0 (every vertex fetches the value): one attribute
/// `constant` of its format ([`GpuConstant::buffer_layout`]). Bind its
/// [`upload`](GpuConstant::upload) there.
impl VertexLayoutSource for GpuConstant {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        self.buffer_layout("constant")
            .vertex_layout(base_location, step_mode)
    }
}
