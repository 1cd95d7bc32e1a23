//! Vertex buffer layouts: luma.gl's `BufferLayout` shape and its lowering to wgpu.

use core::fmt;
use core::str::FromStr;
use std::borrow::Cow;

use super::GpuDataStructFormat;
use super::struct_format::first_duplicate;
use crate::format::VertexFormat;
use crate::layout::LayoutError;

/// The one builder of wgpu vertex attributes: the attribute that reads a field of `format` at
/// byte `offset` of a row into shader location `shader_location`; `None` for a WebGL-only
/// (`-webgl`) format, which no wgpu vertex attribute reads. Runtime layouts
/// ([`BufferLayout::to_wgpu`]), data views (`GpuDataView::vertex_binding`) and the derive's
/// attribute tables (flat structs and nested ones alike, `FLOAT32_PLACEHOLDER` where this gives
/// none) all build theirs here.
#[must_use]
pub(crate) const fn vertex_attribute(
    format: VertexFormat,
    offset: u64,
    shader_location: u32,
) -> Option<wgpu::VertexAttribute> {
    match format.to_wgpu() {
        Some(format) => Some(wgpu::VertexAttribute {
            format,
            offset,
            shader_location,
        }),
        None => None,
    }
}

/// What the derive's `const` attribute tables hold where [`vertex_attribute`] gives none (a
/// WebGL-only format): a `float32` attribute at the field's offset and location. The struct fails
/// to compile at that field when its attributes are asked for, so it is never used.
pub(crate) const FLOAT32_PLACEHOLDER: wgpu::VertexAttribute = wgpu::VertexAttribute {
    format: wgpu::VertexFormat::Float32,
    offset: 0,
    shader_location: 0,
};

/// Whether a vertex buffer advances per vertex or per instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StepMode {
    /// `"vertex"`: one row per vertex.
    #[default]
    Vertex,
    /// `"instance"`: one row per instance.
    Instance,
}

impl StepMode {
    /// The WebGPU name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            StepMode::Vertex => "vertex",
            StepMode::Instance => "instance",
        }
    }

    /// The wgpu equivalent.
    #[must_use]
    pub const fn to_wgpu(self) -> wgpu::VertexStepMode {
        match self {
            StepMode::Vertex => wgpu::VertexStepMode::Vertex,
            StepMode::Instance => wgpu::VertexStepMode::Instance,
        }
    }
}

impl fmt::Display for StepMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StepMode {
    type Err = LayoutError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "vertex" => Ok(StepMode::Vertex),
            "instance" => Ok(StepMode::Instance),
            _ => Err(LayoutError::UnknownStepMode {
                step_mode: s.to_owned(),
            }),
        }
    }
}

/// How far into a row an attribute of a layout with byte stride 0 may reach: WebGPU's default
/// `maxVertexBufferArrayStride`, which every device supports (WebGPU bounds stride-0 attributes
/// by that limit; a device with a higher one accepts more, but a layout checked here works on all).
const STRIDE_ZERO_LIMIT: u64 = 2048;

/// One attribute of an interleaved [`BufferLayout`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct BufferAttribute {
    /// The attribute (shader input) name.
    pub attribute: String,
    /// Its format.
    pub format: VertexFormat,
    /// Its byte offset inside a row.
    pub byte_offset: u64,
}

/// How one vertex buffer's bytes map to shader attributes, in luma.gl's `BufferLayout` shape:
/// either a single attribute (`format`) or interleaved `attributes` sharing a `byte_stride`.
///
/// With feature `serde` it serializes with luma.gl's camelCase keys, omitting absent parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct BufferLayout {
    /// The buffer (and, for single-attribute layouts, attribute) name.
    pub name: String,
    /// The format of a single-attribute layout.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub format: Option<VertexFormat>,
    /// Bytes between rows; defaults to the format's byte length for single-attribute layouts.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub byte_stride: Option<u64>,
    /// Per-vertex or per-instance stepping, when stated.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub step_mode: Option<StepMode>,
    /// Interleaved attributes, in declaration order.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub attributes: Vec<BufferAttribute>,
}

impl BufferLayout {
    /// A single-attribute layout.
    #[must_use]
    pub fn single(name: impl Into<String>, format: VertexFormat, byte_stride: u64) -> BufferLayout {
        BufferLayout {
            name: name.into(),
            format: Some(format),
            byte_stride: Some(byte_stride),
            step_mode: None,
            attributes: Vec::new(),
        }
    }

    /// The attribute called `name`.
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&BufferAttribute> {
        self.attributes.iter().find(|a| a.attribute == name)
    }

    /// The attributes this layout feeds: the interleaved list, or one attribute at offset 0
    /// named after the buffer for a single-attribute layout.
    #[must_use]
    pub fn resolved_attributes(&self) -> Vec<BufferAttribute> {
        self.attributes_view().into_owned()
    }

    /// [`resolved_attributes`](Self::resolved_attributes) without copying the interleaved list.
    fn attributes_view(&self) -> Cow<'_, [BufferAttribute]> {
        match (self.attributes.is_empty(), self.format) {
            (true, Some(format)) => Cow::Owned(vec![BufferAttribute {
                attribute: self.name.clone(),
                format,
                byte_offset: 0,
            }]),
            _ => Cow::Borrowed(&self.attributes),
        }
    }

    /// Lowers the layout to wgpu, giving attribute `i` shader location `base_location + i`.
    ///
    /// # Errors
    /// [`LayoutError::NoByteStride`], [`LayoutError::NoAttributes`],
    /// [`LayoutError::WebglOnlyVertexAttribute`], [`LayoutError::MisalignedStride`],
    /// [`LayoutError::MisalignedAttribute`], [`LayoutError::AttributeOutsideStride`],
    /// [`LayoutError::AttributeBeyondStrideLimit`], [`LayoutError::DuplicateAttribute`],
    /// [`LayoutError::LocationOverflow`].
    pub fn to_wgpu(&self, base_location: u32) -> Result<WgpuVertexLayout, LayoutError> {
        let attributes = self.attributes_view();
        if attributes.is_empty() {
            return Err(LayoutError::NoAttributes {
                layout: self.name.clone(),
            });
        }
        let stride = match (self.byte_stride, self.format) {
            (Some(stride), _) => stride,
            (None, Some(format)) => format.byte_length(),
            (None, None) => {
                return Err(LayoutError::NoByteStride {
                    layout: self.name.clone(),
                });
            }
        };
        if stride % 4 != 0 {
            return Err(LayoutError::MisalignedStride {
                layout: self.name.clone(),
                byte_stride: stride,
            });
        }
        let names = attributes.iter().map(|a| a.attribute.as_str());
        if let Some((first, second)) = first_duplicate(names) {
            return Err(LayoutError::DuplicateAttribute {
                layout: self.name.clone(),
                attribute: attributes[second].attribute.clone(),
                first,
                second,
            });
        }
        let mut out = Vec::with_capacity(attributes.len());
        for (i, attribute) in attributes.iter().enumerate() {
            // Built first, so a WebGL-only format is the first error; its location is set last.
            let built = vertex_attribute(attribute.format, attribute.byte_offset, base_location)
                .ok_or_else(|| LayoutError::WebglOnlyVertexAttribute {
                    attribute: attribute.attribute.clone(),
                    format: attribute.format,
                })?;
            let align = attribute.format.byte_length().min(4);
            if attribute.byte_offset % align != 0 {
                return Err(LayoutError::MisalignedAttribute {
                    attribute: attribute.attribute.clone(),
                    byte_offset: attribute.byte_offset,
                    alignment: align,
                });
            }
            let end = attribute
                .byte_offset
                .checked_add(attribute.format.byte_length());
            if stride == 0 && end.is_none_or(|end| end > STRIDE_ZERO_LIMIT) {
                return Err(LayoutError::AttributeBeyondStrideLimit {
                    attribute: attribute.attribute.clone(),
                    byte_offset: attribute.byte_offset,
                    byte_length: attribute.format.byte_length(),
                    max_stride: STRIDE_ZERO_LIMIT,
                });
            }
            if stride != 0 && end.is_none_or(|end| end > stride) {
                return Err(LayoutError::AttributeOutsideStride {
                    attribute: attribute.attribute.clone(),
                    byte_offset: attribute.byte_offset,
                    byte_length: attribute.format.byte_length(),
                    byte_stride: stride,
                });
            }
            let location = u32::try_from(i)
                .ok()
                .and_then(|i| base_location.checked_add(i))
                .ok_or(LayoutError::LocationOverflow { base_location })?;
            out.push(wgpu::VertexAttribute {
                shader_location: location,
                ..built
            });
        }
        Ok(WgpuVertexLayout {
            array_stride: stride,
            step_mode: self.step_mode.unwrap_or_default().to_wgpu(),
            attributes: out,
        })
    }
}

/// An owned [`wgpu::VertexBufferLayout`]: borrow it with [`as_wgpu`](Self::as_wgpu) when
/// building a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgpuVertexLayout {
    /// Bytes between rows.
    pub array_stride: u64,
    /// Per-vertex or per-instance stepping.
    pub step_mode: wgpu::VertexStepMode,
    /// Attributes with their shader locations.
    pub attributes: Vec<wgpu::VertexAttribute>,
}

impl WgpuVertexLayout {
    /// The borrowed form wgpu's pipeline descriptors take.
    #[must_use]
    pub fn as_wgpu(&self) -> wgpu::VertexBufferLayout<'_> {
        wgpu::VertexBufferLayout {
            array_stride: self.array_stride,
            step_mode: self.step_mode,
            attributes: &self.attributes,
        }
    }
}

impl GpuDataStructFormat {
    /// Lowers the struct to an interleaved [`BufferLayout`] named `name`: fields in declaration
    /// order with their formats and offsets, the struct's byte stride, and `step_mode` when
    /// given (luma.gl's `getBufferLayoutFromGPUDataStructFormat`).
    #[must_use]
    pub fn buffer_layout(
        &self,
        name: impl Into<String>,
        step_mode: Option<StepMode>,
    ) -> BufferLayout {
        BufferLayout {
            name: name.into(),
            format: None,
            byte_stride: Some(self.byte_stride()),
            step_mode,
            attributes: self
                .fields()
                .iter()
                .map(|f| BufferAttribute {
                    attribute: f.name().to_owned(),
                    format: f.format(),
                    byte_offset: f.byte_offset(),
                })
                .collect(),
        }
    }
}
