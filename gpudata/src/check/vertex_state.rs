//! A pipeline's vertex state (its vertex buffers, per vertex and per instance) against one or
//! more vertex entry points, by WebGPU's rules as wgpu applies them (wgpu-core 30:
//! `create_render_pipeline`'s vertex buffer checks and `validation.rs`'s `check_stage`): what
//! wgpu accepts, this accepts.
//!
//! - **The buffers** (checked once, whatever the entry points): at most `max_vertex_buffers`
//!   buffers (and 16, the most wgpu 30 takes: past it, it panics) and `max_vertex_attributes` attributes in all; each stride a multiple of 4 and at
//!   most `max_vertex_buffer_array_stride`; each attribute of a format wgpu fetches (no
//!   `-webgl`), aligned to `min(4, its length)`, inside the stride (inside the stride limit for
//!   stride 0), at a location below `max_vertex_attributes`, fed by no other attribute of any
//!   buffer.
//! - **Each entry point:** every `@location` input it declares is fed by an attribute, whose
//!   format delivers the input's scalar kind ([`vertex_feed`]: float for `f32` and `f16`
//!   inputs, sint for `i32`, uint for `u32`; component counts may differ). Attributes no input
//!   reads are allowed, so one buffer set serves a depth-only entry point and a shaded one.

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch};
use super::shader::Shader;
use super::structs::finish;
use super::vertex::VertexBufferInput;
use crate::data::VertexBufferSet;
use crate::layout::LayoutError;
use crate::record::shader_rules::{VertexFeed, vertex_feed};

impl Shader {
    /// Checks a pipeline's vertex buffers against the vertex entry point `entry` under WebGPU's
    /// default limits (16 attributes, 8 buffers, strides up to 2048 bytes: what every device
    /// offers): [`check_vertex_state`](Self::check_vertex_state) with
    /// `wgpu::Limits::default()`.
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
    /// // unorm8x4 feeds a vec2<f32>: the scalar kinds agree, the component counts need not.
    /// let positions = BufferLayout::single("position", VertexFormat::Unorm8x4, 4);
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
    /// As [`check_vertex_state`](Self::check_vertex_state).
    pub fn check_vertex_inputs(
        &self,
        entry: &str,
        buffers: &[VertexBufferInput],
    ) -> Result<(), ShaderCheckError> {
        self.check_vertex_state(&[entry], buffers, &wgpu::Limits::default())
    }

    /// Checks a pipeline's vertex buffers (several, of either step mode, in slot order) against
    /// each vertex entry point of `entries` (a depth-only pass and a shaded pass sharing the
    /// buffers), under the device's `limits` ([`Gpu::limits`](crate::Gpu::limits)), by WebGPU's
    /// rules as wgpu applies them (the module's documentation lists them): a vertex state this
    /// accepts, `create_render_pipeline` accepts with each entry point, and the other way round.
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingEntryPoint`]; [`ShaderCheckError::Mismatches`] listing every
    /// problem: of the buffers ([`MismatchError::TooManyVertexBuffers`],
    /// [`MismatchError::TooManyVertexAttributes`], [`MismatchError::StridePastLimit`],
    /// [`MismatchError::VertexLayout`], [`MismatchError::LocationPastLimit`],
    /// [`MismatchError::DuplicateLocation`]), then of each entry point
    /// ([`MismatchError::InputKind`] at the attribute, [`MismatchError::UnfedInput`] at the
    /// input).
    pub fn check_vertex_state(
        &self,
        entries: &[&str],
        buffers: &[VertexBufferInput],
        limits: &wgpu::Limits,
    ) -> Result<(), ShaderCheckError> {
        let mut mismatches = Vec::new();
        buffer_problems(buffers, Some(limits), &mut mismatches);
        for entry in entries {
            self.compare_vertex_inputs(entry, buffers, false, &mut mismatches)?;
        }
        let subject = match entries {
            [entry] => format!("vertex entry {entry}"),
            _ => format!("vertex state for entries {}", entries.join(", ")),
        };
        finish(subject, mismatches)
    }

    /// Checks a [`VertexBufferSet`] (a tuple of derived row types in slot order, the buffers a
    /// pipeline made with [`VertexBufferSet::layouts`] reads) against each vertex entry point of
    /// `entries`, under the device's `limits`: [`check_vertex_state`](Self::check_vertex_state)
    /// over the set's buffers, each named by its row type and its attributes by field. Where
    /// each type's own `vertex_entry = "..."` check looks at one buffer, this one sees them
    /// together: a location fed twice, an input no buffer feeds.
    ///
    /// ```
    /// use gpudata::check::{MismatchError, Shader, ShaderCheckError};
    /// use gpudata::GpuStruct;
    ///
    /// #[derive(Clone, Copy, GpuStruct)]
    /// #[gpu(step_mode = "instance")]
    /// struct Particle {
    ///     position: [f32; 2],
    /// }
    ///
    /// #[derive(Clone, Copy, GpuStruct)]
    /// #[gpu(layout = "packed", location = 1)]
    /// struct Corner {
    ///     offset: [f32; 2],
    /// }
    ///
    /// let shader = Shader::parse(
    ///     "@vertex fn vs(@location(0) position: vec2<f32>, @location(1) offset: vec2<f32>,
    ///                    @location(2) tint: vec4<f32>) -> @builtin(position) vec4<f32> {
    ///          return vec4<f32>(position + offset, tint.x, 1.0);
    ///      }",
    /// )?;
    /// let limits = wgpu::Limits::default();
    /// let Err(ShaderCheckError::Mismatches { mismatches, .. }) =
    ///     shader.check_vertex_set::<(Particle, Corner)>(&["vs"], &limits)
    /// else {
    ///     panic!("no buffer feeds the tint")
    /// };
    /// assert!(matches!(mismatches[0].error, MismatchError::UnfedInput { location: 2, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`check_vertex_state`](Self::check_vertex_state).
    pub fn check_vertex_set<S: VertexBufferSet>(
        &self,
        entries: &[&str],
        limits: &wgpu::Limits,
    ) -> Result<(), ShaderCheckError> {
        let buffers: Vec<VertexBufferInput> = S::members()
            .iter()
            .map(VertexBufferInput::of_member)
            .collect();
        self.check_vertex_state(entries, &buffers, limits)
    }

    /// One entry point's comparisons: each input fed by an attribute of its scalar kind; with
    /// `names`, an input named other than the attribute feeding it is a mismatch too. An
    /// attribute whose location another fed first is skipped ([`buffer_problems`] names it).
    pub(super) fn compare_vertex_inputs(
        &self,
        entry: &str,
        buffers: &[VertexBufferInput],
        names: bool,
        out: &mut Vec<ShaderMismatch>,
    ) -> Result<(), ShaderCheckError> {
        let inputs = self.vertex_inputs(entry)?;
        let mut fed: Vec<u32> = Vec::new();
        for buffer in buffers {
            for attribute in &buffer.attributes {
                if fed.contains(&attribute.location) {
                    continue;
                }
                fed.push(attribute.location);
                let Some(input) = inputs.iter().find(|i| i.location == attribute.location) else {
                    continue;
                };
                let path = format!("{}.{}", buffer.name, attribute.name);
                match vertex_feed(attribute.format, self.value_type(input.ty)) {
                    VertexFeed::Accepted | VertexFeed::Unfetchable => {}
                    VertexFeed::NotNumeric | VertexFeed::KindDiffers => out.push(ShaderMismatch {
                        path: path.clone(),
                        location: input.at,
                        error: MismatchError::InputKind {
                            location: input.location,
                            format: attribute.format,
                            delivers: attribute.format.vertex_input_type().to_string(),
                            input: format!("{entry}({})", input.name),
                            shader_type: self.type_text(input.ty),
                        },
                    }),
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
            if !fed.contains(&input.location) {
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

/// The most vertex buffers wgpu 30 takes, whatever the device's `max_vertex_buffers` (lavapipe
/// reports 32): its front end holds a pipeline's buffers in an array of 16
/// (`wgpu_core::MAX_VERTEX_BUFFERS`) and panics past it.
const WGPU_MAX_VERTEX_BUFFERS: u32 = 16;

/// The problems of the buffers themselves, whatever the shader: their layouts, locations fed
/// twice and, with `limits`, the device's limits.
pub(super) fn buffer_problems(
    buffers: &[VertexBufferInput],
    limits: Option<&wgpu::Limits>,
    out: &mut Vec<ShaderMismatch>,
) {
    let whole = |error| ShaderMismatch {
        path: "vertex state".to_owned(),
        location: None,
        error,
    };
    if let Some(limits) = limits {
        let max_buffers = limits.max_vertex_buffers.min(WGPU_MAX_VERTEX_BUFFERS);
        if buffers.len() > max_buffers as usize {
            out.push(whole(MismatchError::TooManyVertexBuffers {
                count: buffers.len(),
                limit: max_buffers,
            }));
        }
        let count = buffers.iter().map(|b| b.attributes.len()).sum::<usize>();
        if count > limits.max_vertex_attributes as usize {
            out.push(whole(MismatchError::TooManyVertexAttributes {
                count,
                limit: limits.max_vertex_attributes,
            }));
        }
    }
    // wgpu's default stride limit when no limits are given (what a stride-0 buffer may read).
    let max_stride = limits.map_or(2048, |l| u64::from(l.max_vertex_buffer_array_stride));
    let mut fed: Vec<(u32, String)> = Vec::new();
    for buffer in buffers {
        let at_buffer = |error| ShaderMismatch {
            path: buffer.name.clone(),
            location: None,
            error,
        };
        let stride = buffer.array_stride;
        if let Some(limits) = limits
            && stride > u64::from(limits.max_vertex_buffer_array_stride)
        {
            out.push(at_buffer(MismatchError::StridePastLimit {
                stride,
                limit: limits.max_vertex_buffer_array_stride,
            }));
        }
        if stride % 4 != 0 {
            out.push(at_buffer(MismatchError::VertexLayout(
                LayoutError::MisalignedStride {
                    layout: buffer.name.clone(),
                    byte_stride: stride,
                },
            )));
        }
        for attribute in &buffer.attributes {
            let path = format!("{}.{}", buffer.name, attribute.name);
            let mut push = |error| {
                out.push(ShaderMismatch {
                    path: path.clone(),
                    location: None,
                    error,
                });
            };
            let (format, offset) = (attribute.format, attribute.offset);
            let length = format.byte_length();
            let layout = if format.is_webgl_only() {
                Some(LayoutError::WebglOnlyVertexAttribute {
                    attribute: attribute.name.clone(),
                    format,
                })
            } else if offset % length.min(4) != 0 {
                Some(LayoutError::MisalignedAttribute {
                    attribute: attribute.name.clone(),
                    byte_offset: offset,
                    alignment: length.min(4),
                })
            } else if offset
                .checked_add(length)
                .is_none_or(|end| end > if stride == 0 { max_stride } else { stride })
            {
                Some(if stride == 0 {
                    LayoutError::AttributeBeyondStrideLimit {
                        attribute: attribute.name.clone(),
                        byte_offset: offset,
                        byte_length: length,
                        max_stride,
                    }
                } else {
                    LayoutError::AttributeOutsideStride {
                        attribute: attribute.name.clone(),
                        byte_offset: offset,
                        byte_length: length,
                        byte_stride: stride,
                    }
                })
            } else {
                None
            };
            if let Some(layout) = layout {
                push(MismatchError::VertexLayout(layout));
            }
            if let Some(limits) = limits
                && attribute.location >= limits.max_vertex_attributes
            {
                push(MismatchError::LocationPastLimit {
                    location: attribute.location,
                    limit: limits.max_vertex_attributes,
                });
            }
            match fed.iter().find(|(l, _)| *l == attribute.location) {
                Some((_, first)) => push(MismatchError::DuplicateLocation {
                    location: attribute.location,
                    first: first.clone(),
                }),
                None => fed.push((attribute.location, path.clone())),
            }
        }
    }
}
