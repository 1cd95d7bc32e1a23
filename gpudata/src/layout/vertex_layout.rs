//! [`VertexLayoutSource`]: the one way to a wgpu vertex layout from anything a vertex stage can
//! read, and [`VertexLayout`], what it returns.

use std::fmt::Write as _;

use super::{BufferLayout, GpuDataStructFormat, LayoutError, StepMode, WgpuVertexLayout};
use crate::format::VertexFormat;

/// Something a vertex stage can read: struct formats, luma.gl buffer layouts, GPU data and its
/// views, typed data, constants, vectors, record batches and tables (a derived struct's own
/// `'static` layout is [`GpuStruct::vertex_buffer_layout`](crate::GpuStruct::vertex_buffer_layout),
/// equal to `T::FORMAT.vertex_layout(N, T::STEP_MODE)` for `#[gpu(location = N)]`).
///
/// [`vertex_layout`](Self::vertex_layout) never leaves an attribute out: what cannot be fetched
/// is an error naming the attribute and its format.
///
/// ```
/// use gpudata::layout::VertexLayoutSource;
/// use gpudata::{GpuDataStructFormat, StepMode, StructLayout};
///
/// let format = GpuDataStructFormat::parse(
///     StructLayout::Packed,
///     [("position", "float32x3"), ("color", "unorm8x4")],
/// )?;
/// let layout = format.vertex_layout(2, StepMode::Instance)?;
/// assert_eq!(layout.buffers()[0].array_stride, 16);
/// assert_eq!(layout.location("color"), Some(3));
/// // Ready for `wgpu::VertexState::buffers`.
/// let _buffers: Vec<Option<wgpu::VertexBufferLayout<'_>>> = layout.as_wgpu();
/// # Ok::<(), gpudata::LayoutError>(())
/// ```
pub trait VertexLayoutSource {
    /// The vertex layout that fetches every value of `self`: one buffer per vertex buffer slot
    /// (a table has one per buffer layout, then one per constant), the attributes at
    /// consecutive shader locations from `base_location`, every buffer stepping per `step_mode`
    /// unless it states its own (a [`BufferLayout`]'s `step_mode`).
    ///
    /// # Errors
    /// [`LayoutError::WebglOnlyVertexAttribute`] for a `-webgl` format;
    /// [`LayoutError::NoVertexLayout`] for values that are not rows of fixed-width formats
    /// (list or format-less data); and the checks of
    /// [`BufferLayout::to_wgpu`] (strides and offsets wgpu cannot fetch, shader locations past
    /// `u32::MAX`).
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError>;
}

/// An owned wgpu vertex layout: one [`WgpuVertexLayout`] per vertex buffer slot, every attribute
/// with its shader location, and the names and formats of the attributes and buffers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexLayout {
    buffers: Vec<WgpuVertexLayout>,
    /// Per buffer, its name.
    names: Vec<String>,
    /// Per attribute, buffer by buffer: its name and format.
    attributes: Vec<(String, VertexFormat)>,
}

impl VertexLayout {
    /// The layout of one [`BufferLayout`]: [`BufferLayout::to_wgpu`] at `base_location`, stepping
    /// per `step_mode` unless the layout states its own.
    ///
    /// # Errors
    /// As [`BufferLayout::to_wgpu`].
    pub(crate) fn of_buffer(
        layout: &BufferLayout,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        let stepped;
        let layout = if layout.step_mode.is_none() {
            stepped = BufferLayout {
                step_mode: Some(step_mode),
                ..layout.clone()
            };
            &stepped
        } else {
            layout
        };
        let buffer = layout.to_wgpu(base_location)?;
        Ok(VertexLayout {
            buffers: vec![buffer],
            names: vec![layout.name.clone()],
            attributes: layout
                .resolved_attributes()
                .into_iter()
                .map(|a| (a.attribute, a.format))
                .collect(),
        })
    }

    /// The layouts of `layouts` in order, each from the location after the one before.
    ///
    /// # Errors
    /// As [`BufferLayout::to_wgpu`]; [`LayoutError::LocationOverflow`].
    pub(crate) fn of_buffers<'a>(
        layouts: impl IntoIterator<Item = &'a BufferLayout>,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        let mut out = VertexLayout::default();
        for layout in layouts {
            let next = out.next_location(base_location)?;
            out.append(VertexLayout::of_buffer(layout, next, step_mode)?);
        }
        Ok(out)
    }

    /// The layouts, slot by slot.
    #[must_use]
    pub fn buffers(&self) -> &[WgpuVertexLayout] {
        &self.buffers
    }

    /// The borrowed layouts [`wgpu::VertexState::buffers`] takes, slot by slot.
    #[must_use]
    pub fn as_wgpu(&self) -> Vec<Option<wgpu::VertexBufferLayout<'_>>> {
        self.buffers.iter().map(|b| Some(b.as_wgpu())).collect()
    }

    /// The name of the buffer at `slot` (a table's column or constant, a vector's name).
    #[must_use]
    pub fn buffer_name(&self, slot: usize) -> Option<&str> {
        self.names.get(slot).map(String::as_str)
    }

    /// Every attribute, slot by slot: its name, format, shader location and slot.
    pub fn attributes(&self) -> impl Iterator<Item = (&str, VertexFormat, u32, usize)> {
        let wgpu = self
            .buffers
            .iter()
            .enumerate()
            .flat_map(|(slot, b)| b.attributes.iter().map(move |a| (a.shader_location, slot)));
        self.attributes
            .iter()
            .zip(wgpu)
            .map(|((name, format), (location, slot))| (name.as_str(), *format, location, slot))
    }

    /// The shader location of the attribute called `name`.
    #[must_use]
    pub fn location(&self, name: &str) -> Option<u32> {
        self.attributes()
            .find(|(n, ..)| *n == name)
            .map(|(_, _, location, _)| location)
    }

    /// The location after the last attribute: where the next source's attributes go (`base`
    /// for a layout without attributes).
    ///
    /// # Errors
    /// [`LayoutError::LocationOverflow`] past `u32::MAX`.
    pub fn next_location(&self, base: u32) -> Result<u32, LayoutError> {
        match self.attributes().map(|(_, _, location, _)| location).max() {
            None => Ok(base),
            Some(last) => last.checked_add(1).ok_or(LayoutError::LocationOverflow {
                base_location: base,
            }),
        }
    }

    /// Appends `other`'s buffers (give it locations from [`next_location`](Self::next_location)).
    pub fn append(&mut self, other: VertexLayout) {
        self.buffers.extend(other.buffers);
        self.names.extend(other.names);
        self.attributes.extend(other.attributes);
    }

    /// WGSL `@location(n) name: T,` lines of a vertex input struct, one per attribute in slot
    /// order (`T` as [`VertexFormat::vertex_input_type`]).
    #[must_use]
    pub fn wgsl_vertex_inputs(&self) -> String {
        let mut out = String::new();
        for (name, format, location, _) in self.attributes() {
            let _ = writeln!(
                out,
                "    @location({location}) {name}: {},",
                format.vertex_input_type()
            );
        }
        out
    }
}

impl VertexLayoutSource for BufferLayout {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        VertexLayout::of_buffer(self, base_location, step_mode)
    }
}

/// The rows of a struct format: one attribute per field at its offset, the struct's stride, in
/// a buffer named `rows`.
impl VertexLayoutSource for GpuDataStructFormat {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        VertexLayout::of_buffer(&self.buffer_layout("rows", None), base_location, step_mode)
    }
}
