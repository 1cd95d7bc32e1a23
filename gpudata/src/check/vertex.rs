//! Host vertex buffers against a vertex entry point's `@location` inputs.

use naga::{Binding, Handle, ShaderStage, Type, TypeInner};

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch, WgslLocation};
use super::shader::Shader;
use super::structs::finish;
use crate::format::VertexFormat;
use crate::layout::{BufferLayout, StepMode, VertexLayout};
use crate::record::shader_rules::vertex_accepts;

/// One attribute a host vertex buffer feeds: its name, format and shader location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexAttributeInput {
    /// The attribute (field or column) name.
    pub name: String,
    /// Its format.
    pub format: VertexFormat,
    /// The `@location` it feeds.
    pub location: u32,
}

/// One host vertex buffer: a name for messages, its step mode and the attributes it feeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexBufferInput {
    /// The buffer's name, prefixing its attributes in mismatches (`particles.color`).
    pub name: String,
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
        VertexBufferInput {
            name: name.into(),
            step_mode: T::STEP_MODE,
            attributes: T::FORMAT
                .fields()
                .iter()
                .zip(first..)
                .map(|(field, location)| VertexAttributeInput {
                    name: field.name().to_owned(),
                    format: field.format(),
                    location,
                })
                .collect(),
        }
    }

    /// The buffers of a [`VertexLayout`] (any source's
    /// [`vertex_layout`](crate::layout::VertexLayoutSource::vertex_layout)), slot by slot, each
    /// attribute with its name, format and location.
    #[must_use]
    pub fn from_vertex_layout(layout: &VertexLayout) -> Vec<VertexBufferInput> {
        let mut buffers: Vec<VertexBufferInput> = layout
            .buffers()
            .iter()
            .enumerate()
            .map(|(slot, buffer)| VertexBufferInput {
                name: layout.buffer_name(slot).unwrap_or_default().to_owned(),
                step_mode: match buffer.step_mode {
                    wgpu::VertexStepMode::Instance => StepMode::Instance,
                    _ => StepMode::Vertex,
                },
                attributes: Vec::new(),
            })
            .collect();
        for (name, format, location, slot) in layout.attributes() {
            if let Some(buffer) = buffers.get_mut(slot) {
                buffer.attributes.push(VertexAttributeInput {
                    name: name.to_owned(),
                    format,
                    location,
                });
            }
        }
        buffers
    }

    /// The buffer of a [`BufferLayout`] whose attribute `i` feeds location `base_location + i`,
    /// as [`BufferLayout::to_wgpu`] assigns them.
    #[must_use]
    pub fn from_layout(layout: &BufferLayout, base_location: u32) -> VertexBufferInput {
        VertexBufferInput {
            name: layout.name.clone(),
            step_mode: layout.step_mode.unwrap_or_default(),
            attributes: layout
                .resolved_attributes()
                .into_iter()
                .zip(base_location..)
                .map(|(a, location)| VertexAttributeInput {
                    name: a.attribute,
                    format: a.format,
                    location,
                })
                .collect(),
        }
    }
}

/// A vertex entry point's input at a location.
struct Input {
    name: String,
    location: u32,
    ty: Handle<Type>,
    at: Option<WgslLocation>,
}

impl Shader {
    /// The `@location` inputs of the vertex entry point `entry`: arguments and members of
    /// struct arguments (built-ins skipped).
    fn vertex_inputs(&self, entry: &str) -> Result<Vec<Input>, ShaderCheckError> {
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

    /// Checks host vertex buffers (several, of either step mode) against the vertex entry point
    /// `entry`: every `@location` input is fed, no two attributes feed one location, every
    /// attribute feeds an input, and each format can feed its input's type (luma.gl's
    /// `isGPUVectorFormatCompatibleWithShaderType`: equal component counts; an `f32` input reads
    /// float, float16 and normalized formats, `f16` float16 only, `i32` sint and `u32` uint, so
    /// a `unorm8x4` feeds `vec4<f32>` and a `uint32x2` feeds `vec2<u32>`).
    ///
    /// ```
    /// use gpudata::check::{MismatchError, Shader, ShaderCheckError, VertexBufferInput};
    /// use gpudata::{BufferLayout, VertexFormat};
    ///
    /// let shader = Shader::parse(
    ///     "@vertex fn vs(@location(0) position: vec2<f32>, @location(1) id: u32) -> @builtin(position) vec4<f32> {
    ///          return vec4<f32>(position, f32(id), 1.0);
    ///      }",
    /// )?;
    /// let positions = BufferLayout::single("position", VertexFormat::Unorm8x2, 4);
    /// let ids = BufferLayout::single("id", VertexFormat::Float32, 4);
    /// let buffers = [
    ///     VertexBufferInput::from_layout(&positions, 0),
    ///     VertexBufferInput::from_layout(&ids, 1),
    /// ];
    /// let Err(ShaderCheckError::Mismatches { mismatches, .. }) = shader.check_vertex_inputs("vs", &buffers)
    /// else {
    ///     panic!("a float32 cannot feed a u32")
    /// };
    /// assert_eq!(mismatches.len(), 1);
    /// assert!(matches!(mismatches[0].error, MismatchError::InputKind { location: 1, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingEntryPoint`]; [`ShaderCheckError::Mismatches`] listing every
    /// [`MismatchError::UnfedInput`], [`MismatchError::DuplicateLocation`],
    /// [`MismatchError::UnreadAttribute`] and [`MismatchError::InputKind`].
    pub fn check_vertex_inputs(
        &self,
        entry: &str,
        buffers: &[VertexBufferInput],
    ) -> Result<(), ShaderCheckError> {
        let mut mismatches = Vec::new();
        self.compare_vertex_inputs(entry, buffers, false, &mut mismatches)?;
        finish(format!("vertex entry {entry}"), mismatches)
    }

    /// The vertex check's comparisons; with `names`, an input named other than the attribute
    /// feeding it is a mismatch too.
    pub(super) fn compare_vertex_inputs(
        &self,
        entry: &str,
        buffers: &[VertexBufferInput],
        names: bool,
        out: &mut Vec<ShaderMismatch>,
    ) -> Result<(), ShaderCheckError> {
        let inputs = self.vertex_inputs(entry)?;
        let mut fed: Vec<(u32, String)> = Vec::new();
        for buffer in buffers {
            for attribute in &buffer.attributes {
                let path = format!("{}.{}", buffer.name, attribute.name);
                if let Some((_, first)) = fed.iter().find(|(l, _)| *l == attribute.location) {
                    out.push(ShaderMismatch {
                        path,
                        location: None,
                        error: MismatchError::DuplicateLocation {
                            location: attribute.location,
                            first: first.clone(),
                        },
                    });
                    continue;
                }
                fed.push((attribute.location, path.clone()));
                let Some(input) = inputs.iter().find(|i| i.location == attribute.location) else {
                    out.push(ShaderMismatch {
                        path,
                        location: None,
                        error: MismatchError::UnreadAttribute {
                            location: attribute.location,
                            format: attribute.format,
                        },
                    });
                    continue;
                };
                let accepted = self
                    .value_type(input.ty)
                    .is_some_and(|t| vertex_accepts(attribute.format, t));
                if !accepted {
                    out.push(ShaderMismatch {
                        path: path.clone(),
                        location: input.at,
                        error: MismatchError::InputKind {
                            location: input.location,
                            format: attribute.format,
                            delivers: attribute.format.vertex_input_type().to_string(),
                            shader_type: self.type_text(input.ty),
                        },
                    });
                }
                if names && input.name != attribute.name {
                    out.push(ShaderMismatch {
                        path,
                        location: input.at,
                        error: MismatchError::InputName {
                            location: input.location,
                            input: input.name.clone(),
                        },
                    });
                }
            }
        }
        for input in &inputs {
            if !fed.iter().any(|(l, _)| *l == input.location) {
                out.push(ShaderMismatch {
                    path: format!("{entry}({})", input.name),
                    location: input.at,
                    error: MismatchError::UnfedInput {
                        location: input.location,
                        shader_type: self.type_text(input.ty),
                    },
                });
            }
        }
        Ok(())
    }
}
