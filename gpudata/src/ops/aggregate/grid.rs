//! `grid_aggregate`: positions binned into a 2D grid, count, sum, minimum, maximum and mean per
//! cell, laid out as a texture copy reads them (luma.gl's `GPUGridAggregation`).

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::aggregate::atomics::{self, Cells, Job, Keys, Piece};
use crate::ops::kernels::aggregate::tree::Source;
use crate::ops::kernels::dispatch::submit;
use crate::ops::{GpuMask, OpError, OpPlan, OpsConfig};

use super::histogram::{bin_scale, resolve_range};
use super::{bytes_read, column, data_words, lane_of, one_buffer_pieces};

const OP: &str = "grid_aggregate";

/// The cells of a [`grid_aggregate`]: `width × height` over `bounds` (`[min_x, min_y, max_x,
/// max_y]`), or over the smallest and largest kept position on each axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSpec {
    /// Cells per row (x).
    pub width: u32,
    /// Rows of cells (y).
    pub height: u32,
    /// `[min_x, min_y, max_x, max_y]`; `None`: the positions' extent.
    pub bounds: Option<[f32; 4]>,
}

/// One output of a grid, for [`GpuGrid::texture`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridField {
    /// Rows per cell (`r32uint`).
    Count,
    /// Per-cell sums (`r32float`).
    Sum,
    /// Per-cell minima (`r32float`).
    Min,
    /// Per-cell maxima (`r32float`).
    Max,
    /// Per-cell means (`r32float`).
    Mean,
}

/// A grid aggregation on the GPU ([`grid_aggregate`]'s result). Every output holds `height`
/// rows of `row_pitch` bytes (a multiple of 256, as `copy_buffer_to_texture` needs), the
/// first `width` values of each row the cells of that row (y up), the rest padding.
#[derive(Debug)]
pub struct GpuGrid {
    /// Cells per row.
    pub width: u32,
    /// Rows of cells.
    pub height: u32,
    /// Bytes from one row of cells to the next.
    pub row_pitch: u32,
    /// The bounds binned, `[min_x, min_y, max_x, max_y]`.
    pub bounds: [f32; 4],
    /// Rows per cell (with values: rows whose value is not NaN), `uint32`.
    pub count: GpuData,
    /// Per-cell sums, `float32` (with values; as `group_by`'s, deterministic).
    pub sum: Option<GpuData>,
    /// Per-cell minima, `float32` (NaN for empty cells).
    pub min: Option<GpuData>,
    /// Per-cell maxima, `float32` (NaN for empty cells).
    pub max: Option<GpuData>,
    /// Per-cell means, `float32` (NaN for empty cells).
    pub mean: Option<GpuData>,
    /// Four `uint32` words: positions outside the bounds, 0, positions with a NaN coordinate, 0.
    pub outside: GpuData,
}

/// A grid read back, cells row by row without the padding.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Cells per row.
    pub width: u32,
    /// Rows of cells.
    pub height: u32,
    /// The bounds binned.
    pub bounds: [f32; 4],
    /// Rows per cell.
    pub count: Vec<u32>,
    /// Per-cell sums.
    pub sum: Option<Vec<f32>>,
    /// Per-cell minima.
    pub min: Option<Vec<f32>>,
    /// Per-cell maxima.
    pub max: Option<Vec<f32>>,
    /// Per-cell means.
    pub mean: Option<Vec<f32>>,
    /// Positions outside the bounds.
    pub outside: u32,
    /// Positions with a NaN coordinate.
    pub nan: u32,
}

impl GpuGrid {
    fn field(&self, field: GridField) -> Option<&GpuData> {
        match field {
            GridField::Count => Some(&self.count),
            GridField::Sum => self.sum.as_ref(),
            GridField::Min => self.min.as_ref(),
            GridField::Max => self.max.as_ref(),
            GridField::Mean => self.mean.as_ref(),
        }
    }

    /// The grid read back. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when a readback fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Grid, OpError> {
        let pitch = (self.row_pitch / 4) as usize;
        let (w, h) = (self.width as usize, self.height as usize);
        let cells = |d: &GpuData| -> Result<Vec<u32>, OpError> {
            let words = data_words(gpu, OP, d)?;
            Ok((0..h)
                .flat_map(|y| words[y * pitch..y * pitch + w].to_vec())
                .collect())
        };
        let floats = |d: Option<&GpuData>| -> Result<Option<Vec<f32>>, OpError> {
            d.map(|d| Ok(cells(d)?.into_iter().map(f32::from_bits).collect()))
                .transpose()
        };
        let outside = data_words(gpu, OP, &self.outside)?;
        Ok(Grid {
            width: self.width,
            height: self.height,
            bounds: self.bounds,
            count: cells(&self.count)?,
            sum: floats(self.sum.as_ref())?,
            min: floats(self.min.as_ref())?,
            max: floats(self.max.as_ref())?,
            mean: floats(self.mean.as_ref())?,
            outside: outside[0],
            nan: outside[2],
        })
    }

    /// A new `width × height` texture (`r32uint` for the count, `r32float` otherwise; usages
    /// `TEXTURE_BINDING | COPY_DST | COPY_SRC`) holding `field`, copied on the GPU (queued after
    /// the aggregation): ready to sample in a heatmap.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for a field the grid has not (sums without values);
    /// [`OpError::Gpu`] when the device refuses the texture or the copy.
    pub fn texture(&self, gpu: &Gpu, field: GridField) -> Result<wgpu::Texture, OpError> {
        let data = self.field(field).ok_or(OpError::WrongData {
            op: OP,
            expected: "a grid aggregated with values",
            found: "a grid of counts only".to_owned(),
        })?;
        let format = if field == GridField::Count {
            wgpu::TextureFormat::R32Uint
        } else {
            wgpu::TextureFormat::R32Float
        };
        let size = wgpu::Extent3d {
            width: self.width,
            height: self.height,
            depth_or_array_layers: 1,
        };
        let texture = crate::device::error_scope(gpu, "create a grid texture", || {
            gpu.device().create_texture(&wgpu::TextureDescriptor {
                label: Some(OP),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        })
        .map_err(|source| OpError::Gpu { op: OP, source })?;
        submit(gpu, OP, "copy a grid into a texture", |encoder| {
            encoder.copy_buffer_to_texture(
                wgpu::TexelCopyBufferInfo {
                    buffer: data.buffer(),
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(self.row_pitch),
                        rows_per_image: Some(self.height),
                    },
                },
                texture.as_image_copy(),
                size,
            );
        })
        .map_err(|source| OpError::Gpu { op: OP, source })?;
        Ok(texture)
    }
}

/// The bytes from one row of `width` 4-byte cells to the next: a multiple of 256.
pub(crate) fn row_pitch(width: u32) -> u64 {
    (u64::from(width) * 4).next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT))
}

/// The x (`lane` 0) or y (1) coordinates of `positions` as a `float32` view.
pub(crate) fn axis<'a>(positions: &GpuDataView<'a>, lane: u64) -> Result<GpuDataView<'a>, OpError> {
    GpuDataView::new(
        positions.buffer(),
        VertexFormat::Float32,
        positions.length(),
        positions.byte_offset() + 4 * lane,
        Some(positions.byte_stride()),
    )
    .map_err(|e| OpError::data(OP, e))
}

/// The cells of `spec` over `pieces`' positions: given bounds checked, or each axis' extent
/// reduced on the GPU and read back.
pub(crate) fn resolve_cells(
    gpu: &Gpu,
    pieces: &[Piece<'_>],
    spec: &GridSpec,
) -> Result<Cells, OpError> {
    let bins = spec.width.min(spec.height);
    if bins == 0 {
        return Err(OpError::InvalidArgument {
            op: OP,
            argument: "the grid size",
            expected: "at least 1 x 1 cells",
            found: format!("{} x {}", spec.width, spec.height),
        });
    }
    let mut range = [(0.0f32, 0.0f32); 2];
    for (lane, r) in range.iter_mut().enumerate() {
        let given = spec.bounds.map(|b| (b[lane], b[lane + 2]));
        let sources = pieces
            .iter()
            .map(|p| {
                Ok(Source {
                    view: axis(&p.key, lane as u64)?,
                    mask: p.mask,
                })
            })
            .collect::<Result<Vec<_>, OpError>>()?;
        let cells = if lane == 0 { spec.width } else { spec.height };
        *r = resolve_range(gpu, OP, &sources, VertexFormat::Float32, cells, given)?;
    }
    let [(x0, x1), (y0, y1)] = range;
    let width = spec.width;
    let pitch = row_pitch(width) / 4;
    Ok(Cells {
        width,
        height: spec.height,
        pitch: u32::try_from(pitch).map_err(|_| OpError::Overflow { op: OP, input: 0 })?,
        bounds: [x0, y0, x1, y1],
        scale: [bin_scale(width, x0, x1), bin_scale(spec.height, y0, y1)],
    })
}

/// Plans a grid aggregation of the pieces' `key` views (`float32x2` positions) with their
/// `value` views (of `value`).
pub(crate) fn plan_grid_pieces(
    gpu: &Gpu,
    pieces: &[Piece<'_>],
    value: Option<VertexFormat>,
    spec: &GridSpec,
    config: &OpsConfig,
) -> Result<OpPlan<GpuGrid>, OpError> {
    let value = value.map(|f| lane_of(OP, 1, f)).transpose()?;
    let cells = resolve_cells(gpu, pieces, spec)?;
    let groups = u64::from(cells.height)
        .checked_mul(u64::from(cells.pitch))
        .ok_or(OpError::Overflow { op: OP, input: 0 })?;
    let planner = Planner::new(gpu, config);
    let job = Job {
        keys: Keys::Cells(cells),
        groups,
        value,
        pieces,
        table: None,
        float_extremes: true,
    };
    let (dispatches, acc) = atomics::plan(&planner, OP, &job)?;
    let moved = bytes_read(pieces);
    let f32_column = |b: &wgpu::Buffer| column(gpu, OP, b, VertexFormat::Float32, groups);
    let (count, sum, min, max, mean) = match &acc.columns {
        Some([count, sum, min, max, mean]) => (
            column(gpu, OP, count, VertexFormat::Uint32, groups)?,
            Some(f32_column(sum)?),
            Some(f32_column(min)?),
            Some(f32_column(max)?),
            Some(f32_column(mean)?),
        ),
        None => (
            column(gpu, OP, &acc.counts, VertexFormat::Uint32, groups)?,
            None,
            None,
            None,
            None,
        ),
    };
    let output = GpuGrid {
        width: cells.width,
        height: cells.height,
        row_pitch: cells.pitch * 4,
        bounds: cells.bounds,
        count,
        sum,
        min,
        max,
        mean,
        outside: column(gpu, OP, &acc.dropped, VertexFormat::Uint32, 4)?,
    };
    Ok(OpPlan::from_dispatches(gpu, OP, dispatches, moved, output))
}

/// Plans [`grid_aggregate`]. `config.rows_per_thread` sets the rows each invocation handles (by
/// default as [`plan_group_by`](crate::ops::plan_group_by) chooses). Without bounds, planning reduces each axis on the GPU and reads its extent
/// back.
///
/// # Errors
/// As [`grid_aggregate`].
pub fn plan_grid_aggregate(
    gpu: &Gpu,
    positions: GpuDataView<'_>,
    values: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    spec: &GridSpec,
    config: &OpsConfig,
) -> Result<OpPlan<GpuGrid>, OpError> {
    check_positions(positions.format())?;
    let value = values.map(|v| v.format());
    let pieces = one_buffer_pieces(gpu, OP, positions, values, mask)?;
    plan_grid_pieces(gpu, &pieces, value, spec, config)
}

/// Refuses positions that are not `float32x2`.
pub(crate) fn check_positions(format: VertexFormat) -> Result<(), OpError> {
    if format == VertexFormat::Float32x2 {
        Ok(())
    } else {
        Err(OpError::UnsupportedFormat {
            op: OP,
            input: 0,
            format,
            expected: "float32x2 positions",
        })
    }
}

/// `float32x2` positions binned into a grid of `spec.width × spec.height` cells over
/// `spec.bounds` (or the kept positions' extent on each axis): a position `(x, y)` inside the
/// bounds falls in cell `(min(⌊(x − min_x) · sx⌋, width − 1), min(⌊(y − min_y) · sy⌋,
/// height − 1))`, `sx = width / (max_x − min_x)` in `f32` (as [`histogram`](crate::ops::histogram())'s
/// bins, per axis). Each cell counts its positions; with `values` (one-lane, same rows) it
/// also gets the count, sum, minimum, maximum and mean of its values, as
/// [`group_by`](crate::ops::group_by()) computes them (deterministic fixed-point sums; NaN
/// values skipped; integer extremes as `f32`; empty cells NaN). Positions outside the bounds
/// or with a NaN coordinate count apart.
///
/// The outputs are laid out for textures: `height` rows of [`GpuGrid::row_pitch`] bytes, so
/// [`GpuGrid::texture`] copies one into an `r32uint` or `r32float` texture in one
/// `copy_buffer_to_texture` (or bind the buffer and index `y · row_pitch / 4 + x`). Cells are
/// accumulated in storage atomics (in workgroup memory for grids of up to 4096 cells, padding
/// included).
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for positions not `float32x2` or values not of one float32,
/// float16 or integer component; [`OpError::InvalidArgument`] for a grid of no cells, bounds
/// not finite, `min > max`, or positions whose extent is not finite (give bounds);
/// [`OpError::LengthMismatch`] for values (input 1) or a mask (input 2) of another row count;
/// the input checks of every operation; [`OpError::TooManyRows`] past 2³¹ rows;
/// [`OpError::TooLarge`] for a grid past a binding; [`OpError::Gpu`].
pub fn grid_aggregate(
    gpu: &Gpu,
    positions: GpuDataView<'_>,
    values: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    spec: &GridSpec,
) -> Result<GpuGrid, OpError> {
    plan_grid_aggregate(gpu, positions, values, mask, spec, &OpsConfig::default())?.run(gpu)
}
