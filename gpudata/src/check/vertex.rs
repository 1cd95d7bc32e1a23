//! A pipeline's host vertex buffers ([`VertexBufferInput`]) and a vertex entry point's
//! `@location` inputs, as the vertex-state check (`vertex_state.rs`) compares them.

use naga::{Binding, Handle, ShaderStage, Type, TypeInner};

use super::error::{ShaderCheckError, WgslLocation};
use super::shader::Shader;
use crate::data::VertexSetMember;
use crate::format::VertexFormat;
use crate::layout::{BufferLayout, GpuDataStructFormat, StepMode, VertexLayout};

/// One attribute a host vertex buffer feeds: its name, format, byte offset in the row and shader
/// location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexAttributeInput {
    /// The attribute (field or column) name.
    pub name: String,
    /// Its format.
    pub format: VertexFormat,
    /// Its byte offset in the row.
    pub offset: u64,
    /// The `@location` it feeds.
    pub location: u32,
}

/// One host vertex buffer of a pipeline's vertex state: a name for messages, its stride, step
/// mode and the attributes it feeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexBufferInput {
    /// The buffer's name, prefixing its attributes in mismatches (`particles.color`).
    pub name: String,
    /// Bytes between rows (0: every vertex or instance reads the same row, as in wgpu).
    pub array_stride: u64,
    /// Per-vertex or per-instance stepping.
    pub step_mode: StepMode,
    /// The attributes.
    pub attributes: Vec<VertexAttributeInput>,
}

impl VertexBufferInput {
    /// The buffer of a derived type: its fields with the locations of
    /// [`GpuStruct::vertex_buffer_layout`](crate::GpuStruct::vertex_buffer_layout) (field `i`
    /// at `N + i` for `#[gpu(location = N)]`) and its `#[gpu(step_mode = "...")]`.
    #[must_use]
    pub fn of<T: crate::GpuStruct>(name: impl Into<String>) -> VertexBufferInput {
        let first = T::vertex_buffer_layout()
            .attributes
            .first()
            .map_or(0, |a| a.shader_location);
        Self::of_format(name.into(), T::FORMAT, T::STEP_MODE, first)
    }

    /// The buffer of a vertex set's member (a derived type, as
    /// [`VertexBufferSet`](crate::data::VertexBufferSet) describes it).
    pub(super) fn of_member(member: &VertexSetMember) -> VertexBufferInput {
        Self::of_format(
            member.name.to_owned(),
            member.format,
            member.step_mode,
            member.first_location,
        )
    }

    /// Rows of `format` stepping by `step_mode`, field `i` at `first + i`.
    fn of_format(
        name: String,
        format: &GpuDataStructFormat,
        step_mode: StepMode,
        first: u32,
    ) -> VertexBufferInput {
        VertexBufferInput {
            name,
            array_stride: format.byte_stride(),
            step_mode,
            attributes: format
                .fields()
                .iter()
                .zip(first..)
                .map(|(field, location)| VertexAttributeInput {
                    name: field.name().to_owned(),
                    format: field.format(),
                    offset: field.byte_offset(),
                    location,
                })
                .collect(),
        }
    }

    /// The buffers of a [`VertexLayout`] (any source's
    /// [`vertex_layout`](crate::layout::VertexLayoutSource::vertex_layout)), slot by slot, each
    /// attribute with its name, format, byte offset and location.
    #[must_use]
    pub fn from_vertex_layout(layout: &VertexLayout) -> Vec<VertexBufferInput> {
        let mut buffers: Vec<VertexBufferInput> = layout
            .buffers()
            .iter()
            .enumerate()
            .map(|(slot, buffer)| VertexBufferInput {
                name: layout.buffer_name(slot).unwrap_or_default().to_owned(),
                array_stride: buffer.array_stride,
                step_mode: match buffer.step_mode {
                    wgpu::VertexStepMode::Instance => StepMode::Instance,
                    _ => StepMode::Vertex,
                },
                attributes: Vec::new(),
            })
            .collect();
        for (name, format, location, slot) in layout.attributes() {
            let offset = layout
                .buffers()
                .get(slot)
                .and_then(|b| b.attributes.iter().find(|a| a.shader_location == location))
                .map_or(0, |a| a.offset);
            if let Some(buffer) = buffers.get_mut(slot) {
                buffer.attributes.push(VertexAttributeInput {
                    name: name.to_owned(),
                    format,
                    offset,
                    location,
                });
            }
        }
        buffers
    }

    /// The buffer of a [`BufferLayout`] whose attribute `i` feeds location `base_location + i`,
    /// as [`BufferLayout::to_wgpu`] assigns them; its stride is the layout's byte stride (for a
    /// single-attribute layout without one, the format's length; else 0).
    #[must_use]
    pub fn from_layout(layout: &BufferLayout, base_location: u32) -> VertexBufferInput {
        VertexBufferInput {
            name: layout.name.clone(),
            array_stride: layout
                .byte_stride
                .or(layout.format.map(VertexFormat::byte_length))
                .unwrap_or(0),
            step_mode: layout.step_mode.unwrap_or_default(),
            attributes: layout
                .resolved_attributes()
                .into_iter()
                .zip(base_location..)
                .map(|(a, location)| VertexAttributeInput {
                    name: a.attribute,
                    format: a.format,
                    offset: a.byte_offset,
                    location,
                })
                .collect(),
        }
    }

    /// The buffer of a wgpu vertex buffer layout (a derived type's
    /// [`vertex_buffer_layout`](crate::GpuStruct::vertex_buffer_layout), a table binding's, one
    /// written by hand), named `name`; each attribute is named by its location
    /// (`@location(3)`). A 64-bit float format, which gpudata does not describe, is `None`.
    #[must_use]
    pub fn from_wgpu(
        name: impl Into<String>,
        layout: &wgpu::VertexBufferLayout<'_>,
    ) -> Option<VertexBufferInput> {
        let attributes = layout
            .attributes
            .iter()
            .map(|a| {
                Some(VertexAttributeInput {
                    name: format!("@location({})", a.shader_location),
                    format: VertexFormat::from_wgpu(a.format)?,
                    offset: a.offset,
                    location: a.shader_location,
                })
            })
            .collect::<Option<_>>()?;
        Some(VertexBufferInput {
            name: name.into(),
            array_stride: layout.array_stride,
            step_mode: match layout.step_mode {
                wgpu::VertexStepMode::Instance => StepMode::Instance,
                wgpu::VertexStepMode::Vertex => StepMode::Vertex,
            },
            attributes,
        })
    }
}

/// A vertex entry point's input at a location.
pub(super) struct Input {
    /// The argument's or struct member's name.
    pub(super) name: String,
    /// Its `@location`.
    pub(super) location: u32,
    /// Its type.
    pub(super) ty: Handle<Type>,
    /// Where it is declared.
    pub(super) at: Option<WgslLocation>,
}

impl Shader {
    /// The `@location` inputs of the vertex entry point `entry`: arguments and members of
    /// struct arguments (built-ins skipped).
    pub(super) fn vertex_inputs(&self, entry: &str) -> Result<Vec<Input>, ShaderCheckError> {
        let module = self.module();
        let ep = module
            .entry_points
            .iter()
            .find(|ep| ep.name == entry && ep.stage == ShaderStage::Vertex)
            .ok_or_else(|| ShaderCheckError::MissingEntryPoint {
                name: entry.to_owned(),
            })?;
        let mut inputs = Vec::new();
        for argument in &ep.function.arguments {
            let name = argument.name.clone().unwrap_or_default();
            match (&argument.binding, &module.types[argument.ty].inner) {
                (Some(Binding::Location { location, .. }), _) => inputs.push(Input {
                    at: self.parameter_location(entry, &name),
                    name,
                    location: *location,
                    ty: argument.ty,
                }),
                (None, TypeInner::Struct { members, .. }) => {
                    let span = module.types.get_span(argument.ty);
                    for member in members {
                        if let Some(Binding::Location { location, .. }) = member.binding {
                            let name = member.name.clone().unwrap_or_default();
                            inputs.push(Input {
                                at: self.declaration_in(span, &name),
                                name,
                                location,
                                ty: member.ty,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(inputs)
    }
}
