//! Picking: which row of a table is under a pixel (luma.gl's `GPUIndexPickingTarget`).
//!
//! Every row is drawn with its *row id* (its index over all batches of the table, in batch
//! order) plus one into an `r32uint` [`PickingTarget`] cleared to [`NO_ROW`] (0), so row 0
//! writes 1 and "no row" is never a row. A pixel ([`PickingTarget::read_pixel`]) or a rectangle
//! ([`PickingTarget::read_rect`]) is read back and a [`RowResolver`] maps the ids to the batch
//! and the row within it ([`PickedRow`]), and to the row of the Arrow source the batch came from
//! ([`SourceRow`]). Ids are `u32`: a table of at most `u32::MAX` rows.
//!
//! The draws of all batches go into one pass and one submission. Each batch's first row id
//! sits in its own slot of one uniform buffer ([`PickOffsets`]), chosen per draw by a dynamic
//! offset; the buffer is written once, when it is made, and cannot be written again (it has no
//! `COPY_DST` usage). So no batch can read another's offset: what luma.gl's users met — per-batch
//! uniforms written with `queue.write_buffer` before each draw all read the last batch's value,
//! as every write runs before the submitted draws — cannot be written here.
//!
//! The shader writes the id with the WGSL of [`PickOffsets::wgsl`] (`gpudata_pick_id(row)`), or
//! [`PointPicking`] is a ready point-list pipeline whose positions come from the table's
//! columns.
//!
//! ```
//! use gpudata::table::{
//!     GpuColumn, GpuTable, GpuVector, PickOffsets, PickingTarget, PointPicking, PointPosition,
//!     PointView, RecordBatchOptions, RenderOptions, RowResolver,
//! };
//! use gpudata::{GpuData, StepMode, VertexFormat};
//!
//! let gpu = &gpudata::Gpu::headless()?;
//! let usage = gpudata::data::DEFAULT_USAGE;
//! // Two batches: rows at pixels (0, 0), (1, 0) and (3, 1) of a 4 × 2 target.
//! let a = GpuData::from_slice(gpu, VertexFormat::Float32x2, &[[0.5f32, 0.5], [1.5, 0.5]], usage)?;
//! let b = GpuData::from_slice(gpu, VertexFormat::Float32x2, &[[3.5f32, 1.5]], usage)?;
//! let xy = GpuVector::from_data("xy", vec![a, b])?;
//! let table = GpuTable::from_columns([("xy", GpuColumn::from(xy))], RecordBatchOptions::default())?;
//! let bindings = table.render_bindings(gpu, RenderOptions { step_mode: StepMode::Vertex, base_location: 0 })?;
//!
//! let resolver = RowResolver::new(&table)?;
//! let offsets = PickOffsets::new(gpu, &resolver)?;
//! let target = PickingTarget::new(gpu, 4, 2)?;
//! // Pixel rows count down from the top: y from 0 at the top to 2 at the bottom.
//! let view = PointView { x_range: [0.0, 4.0], y_range: [2.0, 0.0] };
//! let points = PointPicking::new(gpu, &bindings, &PointPosition::Lanes("xy".into()), view)?;
//! points.render(gpu, &target, &offsets, &bindings)?;
//!
//! let picked = target.pick(gpu, &resolver, 3, 1)?.unwrap();
//! assert_eq!((picked.global_row, picked.batch, picked.row), (2, 1, 0));
//! assert_eq!(target.read_pixel(gpu, 0, 0)?, Some(0));
//! assert_eq!(target.read_pixel(gpu, 2, 0)?, None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod offsets;
mod points;
mod rect_mask;
mod resolve;
mod target;

pub use error::PickError;
pub use offsets::PickOffsets;
pub use points::{PointPicking, PointPosition, PointView};
pub use resolve::{PickedRow, RowResolver, SourceRow};
pub use target::{NO_ROW, PickRect, PickingTarget};
