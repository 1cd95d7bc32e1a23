//! [`PointPicking`]: a ready pipeline drawing every row of a table as one point whose position
//! comes from its columns, writing the row's id into a [`PickingTarget`].

use crate::device::Gpu;
use crate::device::buffers::create_filled_buffer;
use crate::device::scope::error_scope;
use crate::format::VertexFormat;
use crate::table::TableRenderBindings;

use super::{PickError, PickOffsets, PickingTarget};

/// Where a row's point is: one column of two or more lanes (`x`, `y` its first two), or two
/// one-lane columns. Any numeric vertex format works: vertex fetch decodes it and the value
/// is converted to `f32`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointPosition {
    /// One column whose first two lanes are `x` and `y`.
    Lanes(String),
    /// `x` from one column, `y` from another.
    Columns {
        /// The column of `x`.
        x: String,
        /// The column of `y`.
        y: String,
    },
}

/// The data ranges mapped onto the target: `x_range[0]` to the left edge, `x_range[1]` to the
/// right, `y_range[0]` to the bottom, `y_range[1]` to the top (a reversed range flips the
/// axis). Points outside are clipped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointView {
    /// Data `x` at the left and the right edge.
    pub x_range: [f32; 2],
    /// Data `y` at the bottom and the top edge.
    pub y_range: [f32; 2],
}

/// A point-list pipeline drawing every row of a table as one pixel at its position with
/// [`PickOffsets::wgsl`]'s id: group 0 holds the offsets, group 1 the view. Rows step per
/// vertex or per instance as the position column's buffer does. [`render`](Self::render)
/// draws all batches in one pass and one submission; [`draw`](Self::draw) records them into a
/// pass of your own (whose color attachment 0 is a [`PickingTarget`]).
#[derive(Debug)]
pub struct PointPicking {
    pipeline: wgpu::RenderPipeline,
    view: wgpu::BindGroup,
    instanced: bool,
    wgsl: String,
}

/// A vertex attribute's location and format in `bindings`.
fn attribute(
    bindings: &TableRenderBindings,
    column: &str,
) -> Result<(u32, VertexFormat, wgpu::VertexStepMode), PickError> {
    let layout = bindings.vertex_layout();
    layout
        .attributes()
        .find(|(name, ..)| *name == column)
        .map(|(_, format, location, slot)| (location, format, layout.buffers()[slot].step_mode))
        .ok_or_else(|| PickError::NoSuchColumn {
            column: column.to_owned(),
        })
}

/// Refuses a format whose lane count is below `lanes` or that is not numeric.
fn check_format(
    column: &str,
    format: VertexFormat,
    lanes: u32,
    expected: &'static str,
) -> Result<(), PickError> {
    if format.components() < lanes {
        return Err(PickError::PositionFormat {
            column: column.to_owned(),
            format,
            expected,
        });
    }
    Ok(())
}

impl PointPicking {
    /// The pipeline for `bindings` (a table's render bindings), placing rows by `position`
    /// over `view`.
    ///
    /// # Errors
    /// [`PickError::NoSuchColumn`], [`PickError::PositionFormat`] (a `Lanes` column of one
    /// lane), [`PickError::Gpu`] when the device refuses the shader, pipeline or view buffer.
    pub fn new(
        gpu: &Gpu,
        bindings: &TableRenderBindings,
        position: &PointPosition,
        view: PointView,
    ) -> Result<PointPicking, PickError> {
        let (inputs, point, step) = match position {
            PointPosition::Lanes(column) => {
                let (location, format, step) = attribute(bindings, column)?;
                check_format(column, format, 2, "a column of two or more lanes")?;
                let ty = format.vertex_input_type();
                (
                    format!("@location({location}) in_p: {ty}"),
                    "vec2<f32>(in_p.xy)".to_owned(),
                    step,
                )
            }
            PointPosition::Columns { x, y } => {
                let (lx, fx, sx) = attribute(bindings, x)?;
                let (ly, fy, _) = attribute(bindings, y)?;
                check_format(x, fx, 1, "a numeric column")?;
                check_format(y, fy, 1, "a numeric column")?;
                let (tx, ty) = (fx.vertex_input_type(), fy.vertex_input_type());
                let lane = |f: VertexFormat, v: &str| {
                    if f.components() == 1 {
                        format!("f32({v})")
                    } else {
                        format!("f32({v}.x)")
                    }
                };
                if lx == ly {
                    (
                        format!("@location({lx}) in_x: {tx}"),
                        format!("vec2<f32>({}, {})", lane(fx, "in_x"), lane(fx, "in_x")),
                        sx,
                    )
                } else {
                    (
                        format!("@location({lx}) in_x: {tx}, @location({ly}) in_y: {ty}"),
                        format!("vec2<f32>({}, {})", lane(fx, "in_x"), lane(fy, "in_y")),
                        sx,
                    )
                }
            }
        };
        let instanced = step == wgpu::VertexStepMode::Instance;
        let row = if instanced {
            "instance_index"
        } else {
            "vertex_index"
        };
        let wgsl = format!(
            "{offsets}
struct GpudataPointView {{
    x_range: vec2<f32>,
    y_range: vec2<f32>,
}}

@group(1) @binding(0) var<uniform> gpudata_view: GpudataPointView;

struct GpudataPointOut {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) id: u32,
}}

@vertex
fn vs(@builtin({row}) row: u32, {inputs}) -> GpudataPointOut {{
    let p = {point};
    let lo = vec2<f32>(gpudata_view.x_range.x, gpudata_view.y_range.x);
    let hi = vec2<f32>(gpudata_view.x_range.y, gpudata_view.y_range.y);
    var out: GpudataPointOut;
    out.position = vec4<f32>((p - lo) / (hi - lo) * 2.0 - 1.0, 0.0, 1.0);
    out.id = gpudata_pick_id(row);
    return out;
}}

@fragment
fn fs(in: GpudataPointOut) -> @location(0) u32 {{
    return in.id;
}}
",
            offsets = PickOffsets::wgsl(0, 0)
        );
        let view_entry = wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let offsets_layout = PickOffsets::bind_group_layout(gpu)?;
        let view_layout = gpu
            .layouts()
            .layout(gpu, "gpudata point view", &[view_entry])?;
        let words = [
            view.x_range[0],
            view.x_range[1],
            view.y_range[0],
            view.y_range[1],
        ];
        let view_buffer = create_filled_buffer(
            gpu,
            16,
            wgpu::BufferUsages::UNIFORM,
            "gpudata point view",
            |bytes| {
                bytes.copy_from_slice(bytemuck::cast_slice(&words));
                Ok::<(), PickError>(())
            },
        )?;
        let pipeline = PickingTarget::pipeline(
            gpu,
            &wgsl,
            &[&offsets_layout, &view_layout],
            &bindings.vertex_layouts(),
            wgpu::PrimitiveTopology::PointList,
        )?;
        let view = error_scope(gpu, "create the point view's bind group", || {
            gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpudata point view"),
                layout: &view_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: view_buffer.as_entire_binding(),
                }],
            })
        })?;
        Ok(PointPicking {
            pipeline,
            view,
            instanced,
            wgsl,
        })
    }

    /// The pipeline's WGSL (the offsets' snippet included), for reading or adapting.
    #[must_use]
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }

    /// The render pipeline.
    #[must_use]
    pub fn pipeline(&self) -> &wgpu::RenderPipeline {
        &self.pipeline
    }

    /// Records every batch of `bindings` into `pass`, each with its slot of `offsets`.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`] for offsets of another table; [`PickError::Table`] for
    /// a batch of more rows than a draw counts.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        offsets: &PickOffsets,
        bindings: &TableRenderBindings,
    ) -> Result<(), PickError> {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(1, &self.view, &[]);
        let instanced = self.instanced;
        offsets.draw_batches(pass, 0, bindings, |pass, batch| {
            if instanced {
                batch.draw_instances(pass, 0..1)
            } else {
                batch.draw_rows(pass, 0..1)
            }
        })
    }

    /// Clears `target` and draws every batch of `bindings` into it: one pass, one encoder,
    /// one submission.
    ///
    /// # Errors
    /// As [`draw`](Self::draw) (nothing is submitted then); [`PickError::Gpu`] when the device
    /// refuses the pass or the submission, or `target` or `offsets` belong to another device.
    pub fn render(
        &self,
        gpu: &Gpu,
        target: &PickingTarget,
        offsets: &PickOffsets,
        bindings: &TableRenderBindings,
    ) -> Result<(), PickError> {
        gpu.check_same_device(Some(offsets.device()), "draw rows for picking")?;
        gpu.check_same_device(Some(target.device()), "draw rows for picking")?;
        error_scope(gpu, "draw rows for picking", || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata point picking"),
                    });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("gpudata point picking"),
                    color_attachments: &[Some(target.color_attachment())],
                    ..Default::default()
                });
                self.draw(&mut pass, offsets, bindings)?;
            }
            gpu.queue().submit([encoder.finish()]);
            Ok(())
        })?
    }
}
