//! Sorting (luma.gl's `GPUSort` and `GPUSegmentedSort`): [`sort`], [`argsort`], [`sort_pairs`],
//! [`top_k`], [`segmented_sort`] and [`segmented_sort_pairs`], one stable radix sort of 32-bit
//! keys underneath ([`kernels::sort`](crate::ops::kernels::sort)), in the order [`sort`]
//! documents.

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::gather::{check_segments, read_integers};
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::select::reduce::Order;
use crate::ops::kernels::select::{index, rows};
use crate::ops::kernels::sort::wgsl::KeyOrder;
use crate::ops::kernels::sort::{self, Input, Job};
use crate::ops::output::output_data;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Ascending or descending order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortOrder {
    /// Smallest first.
    #[default]
    Ascending,
    /// Largest first (the exact reverse of the ascending order; ties still keep their rows'
    /// order).
    Descending,
}

/// How to sort: the order, and the tuning of the kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SortOptions {
    /// Ascending (the default) or descending.
    pub order: SortOrder,
    /// Tiles of keys (`256 ×` [`OpsConfig::rows_per_thread`], 3072 by default) each workgroup
    /// ranks in turn; `None` chooses from the size (one tile each up to 16384 workgroups).
    /// Tuning only: the result is the same.
    pub tiles_per_workgroup: Option<u32>,
}

impl SortOptions {
    /// Ascending order.
    #[must_use]
    pub const fn ascending() -> SortOptions {
        SortOptions {
            order: SortOrder::Ascending,
            tiles_per_workgroup: None,
        }
    }

    /// Descending order.
    #[must_use]
    pub const fn descending() -> SortOptions {
        SortOptions {
            order: SortOrder::Descending,
            tiles_per_workgroup: None,
        }
    }

    /// The same options with `tiles` tiles per workgroup.
    #[must_use]
    pub const fn with_tiles_per_workgroup(mut self, tiles: u32) -> SortOptions {
        self.tiles_per_workgroup = Some(tiles);
        self
    }
}

/// Where the segments of a segmented sort are.
#[derive(Clone, Copy, Debug)]
pub enum Segments<'a> {
    /// `S + 1` offsets, Arrow's list offsets: segment `s` is rows `offsets[s]..offsets[s +
    /// 1]`, the first offset 0, none below the one before it, the last the row count. Any
    /// one-lane integer format. They are read back and checked first, so the sort waits for the
    /// GPU once.
    Offsets(GpuDataView<'a>),
    /// One `uint32` segment id per row: rows are sorted by segment id, then by key. For ids
    /// that never decrease (the rows of each segment together, in order) that sorts each
    /// segment in its place; other ids also group their rows. The largest id is read back
    /// first (to sort only its bytes), so the sort waits for the GPU once.
    Ids(GpuDataView<'a>),
}

/// Keys and what they carried, sorted.
#[derive(Debug)]
pub struct Sorted {
    /// The keys, in the format of the input keys.
    pub keys: GpuData,
    /// The values, in the format of the input values, or `uint32` row ids ([`top_k`]).
    pub values: GpuData,
}

/// The order of key format `format`, or the error naming it as input `input` of `op`.
pub(crate) fn key_order(
    op: &'static str,
    format: VertexFormat,
    options: &SortOptions,
) -> Result<KeyOrder, OpError> {
    let order = match format {
        VertexFormat::Uint32 => Order::Unsigned,
        VertexFormat::Sint32 => Order::Signed,
        VertexFormat::Float32 => Order::Float,
        _ => {
            return Err(OpError::UnsupportedFormat {
                op,
                input: 0,
                format,
                expected: "a one-lane 32-bit key format (uint32, sint32 or float32)",
            });
        }
    };
    Ok(KeyOrder {
        order,
        descending: options.order == SortOrder::Descending,
    })
}

/// Checks values that travel with keys: 4 bytes per row, as many rows as the keys.
pub(crate) fn check_values(
    op: &'static str,
    input: usize,
    format: VertexFormat,
    rows: u64,
    keys: u64,
) -> Result<(), OpError> {
    if format.byte_length() != 4 {
        return Err(OpError::UnsupportedFormat {
            op,
            input,
            format,
            expected: "a format of 4 bytes per row",
        });
    }
    OpError::check_length(op, input, keys, rows)
}

/// Checks segment offsets (input `input`, of `format`) of a sort of `rows` rows, and returns
/// the number of 8-bit digits of the largest segment number.
pub(crate) fn check_offsets(
    op: &'static str,
    input: usize,
    format: VertexFormat,
    offsets: &[i64],
    rows: u64,
) -> Result<u32, OpError> {
    if format.components() != 1 || !format.data_type().is_integer() || format.is_normalized() {
        return Err(OpError::UnsupportedFormat {
            op,
            input,
            format,
            expected: "a one-lane integer offset format",
        });
    }
    if let Some(&last) = offsets.last() {
        OpError::check_length(op, input, rows, u64::try_from(last).unwrap_or(0))?;
    }
    check_segments(op, format, offsets, rows)?;
    Ok(digits(offsets.len().saturating_sub(2) as u64))
}

/// Checks a segment-id column (input `input`) of a sort of `rows` rows.
pub(crate) fn check_ids(
    op: &'static str,
    input: usize,
    format: VertexFormat,
    ids: u64,
    rows: u64,
) -> Result<(), OpError> {
    if format != VertexFormat::Uint32 {
        return Err(OpError::UnsupportedFormat {
            op,
            input,
            format,
            expected: "uint32 segment ids",
        });
    }
    OpError::check_length(op, input, rows, ids)
}

/// The 8-bit digits of `max` (0 for 0).
pub(crate) fn digits(max: u64) -> u32 {
    (64 - max.leading_zeros()).div_ceil(8).min(4)
}

/// What a sort carries beside its keys.
#[derive(Clone, Copy, Debug)]
enum Carried<'a> {
    Nothing,
    RowIds,
    Values(GpuDataView<'a>),
}

/// One sort as the public functions ask for it.
#[derive(Clone, Copy, Debug)]
struct Request<'a> {
    op: &'static str,
    keys: GpuDataView<'a>,
    carried: Carried<'a>,
    segments: Option<Segments<'a>>,
    keys_out: bool,
    k: Option<u64>,
}

impl<'a> Request<'a> {
    /// `op` over `keys`, writing the sorted keys and carrying nothing.
    fn keys(op: &'static str, keys: GpuDataView<'a>) -> Request<'a> {
        Request {
            op,
            keys,
            carried: Carried::Nothing,
            segments: None,
            keys_out: true,
            k: None,
        }
    }
}

/// What a planned sort writes.
struct Planned {
    dispatches: Vec<Dispatch>,
    bytes_moved: u64,
    keys: Option<GpuData>,
    values: Option<GpuData>,
}

fn plan_request(
    gpu: &Gpu,
    request: Request<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<Planned, OpError> {
    let op = request.op;
    let keys = request.keys;
    let key = key_order(op, keys.format(), options)?;
    rows::check_view(gpu, op, 0, &keys)?;
    let n = keys.length();
    if n > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op,
            length: n,
            max: u64::from(u32::MAX),
        });
    }
    let mut input = 1;
    let carried = match request.carried {
        Carried::Nothing => None,
        Carried::RowIds => Some(Input::RowIds),
        Carried::Values(values) => {
            check_values(op, input, values.format(), values.length(), n)?;
            rows::check_view(gpu, op, input, &values)?;
            input += 1;
            Some(Input::Rows(rows::Span::of(&values)))
        }
    };
    let limit = match request.k {
        Some(k) if k > n => return Err(OpError::TopKTooLarge { op, k, rows: n }),
        Some(k) => k,
        None => n,
    };
    let planner = Planner::new(gpu, config);
    let mut dispatches = Vec::new();
    // The segment ids: the caller's column, or each row's segment from the offsets (`uint32x2`
    // rows of segment and place, as `segmented_map` writes them).
    let mut segment_rows = None;
    let mut segment_digits = 0;
    let mut id_column = None;
    match request.segments {
        None => {}
        Some(Segments::Offsets(offsets)) => {
            rows::check_view(gpu, op, input, &offsets)?;
            let values = if offsets.format().components() == 1
                && offsets.format().data_type().is_integer()
            {
                read_integers(gpu, op, &offsets)?
            } else {
                Vec::new()
            };
            segment_digits = check_offsets(op, input, offsets.format(), &values, n)?;
            let segments = offsets.length() - 1;
            if n > 0 && segment_digits > 0 {
                let buffer = rows::output_buffer(&planner, op, n * 8)?;
                if let Some(starts) = offsets.slice(0, segments) {
                    dispatches.extend(index::segmented_map(&planner, op, &starts, n, &buffer)?);
                }
                segment_rows = Some(buffer);
            }
        }
        Some(Segments::Ids(ids)) => {
            check_ids(op, input, ids.format(), ids.length(), n)?;
            rows::check_view(gpu, op, input, &ids)?;
            if n > 0 {
                let extent = crate::ops::extent(gpu, ids)?;
                let bytes = extent
                    .read_bytes(gpu)
                    .map_err(|source| OpError::Gpu { op, source })?;
                extent.destroy();
                let max = bytes
                    .get(4..8)
                    .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                segment_digits = digits(u64::from(max));
                id_column = Some(ids);
            }
        }
    }
    let segments = match (&segment_rows, id_column) {
        (Some(buffer), _) => Some(Input::Rows(rows::Span {
            buffer,
            offset: 0,
            stride: 8,
            row_bytes: 4,
        })),
        (None, Some(ids)) => Some(Input::Rows(rows::Span::of(&ids))),
        (None, None) => None,
    }
    .filter(|_| segment_digits > 0)
    .map(|input| (input, segment_digits));
    let job = Job {
        rows: n,
        keys: rows::Span::of(&keys),
        key,
        segments,
        carried,
        keys_out: request.keys_out,
        limit,
        tiles_per_workgroup: options.tiles_per_workgroup,
    };
    let (sorting, outputs) = sort::plan(&planner, op, &job)?;
    dispatches.extend(sorting);
    let keys_data = outputs
        .keys
        .map(|b| output_data(gpu, op, &b, keys.format(), limit))
        .transpose()?;
    let values_format = match request.carried {
        Carried::Values(values) => values.format(),
        _ => VertexFormat::Uint32,
    };
    let values = outputs
        .carried
        .map(|b| output_data(gpu, op, &b, values_format, limit))
        .transpose()?;
    let mut bytes_moved = n * 4 + if request.keys_out { limit * 4 } else { 0 };
    if let Carried::Values(_) = request.carried {
        bytes_moved += n * 4;
    }
    if values.is_some() {
        bytes_moved += limit * 4;
    }
    if segments.is_some() {
        bytes_moved += n * 4;
    }
    Ok(Planned {
        dispatches,
        bytes_moved,
        keys: keys_data,
        values,
    })
}

/// The request's output `data`: [`sort::plan`] writes the keys of every request whose
/// `keys_out` is set and the values of every request that carries some, so the error (that
/// the operation wrote nothing) is never returned.
fn written(op: &'static str, data: Option<GpuData>) -> Result<GpuData, OpError> {
    data.ok_or(OpError::NoInputs { op })
}

fn plan_keys(
    gpu: &Gpu,
    request: Request<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    let op = request.op;
    let planned = plan_request(gpu, request, options, config)?;
    let output = if request.keys_out {
        planned.keys
    } else {
        planned.values
    };
    Ok(OpPlan::from_dispatches(
        gpu,
        op,
        planned.dispatches,
        planned.bytes_moved,
        written(op, output)?,
    ))
}

fn plan_pairs(
    gpu: &Gpu,
    request: Request<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<Sorted>, OpError> {
    let op = request.op;
    let planned = plan_request(gpu, request, options, config)?;
    let sorted = Sorted {
        keys: written(op, planned.keys)?,
        values: written(op, planned.values)?,
    };
    Ok(OpPlan::from_dispatches(
        gpu,
        op,
        planned.dispatches,
        planned.bytes_moved,
        sorted,
    ))
}

/// Plans [`sort`].
///
/// `config.rows_per_thread` sets the keys each invocation ranks per tile (1 to 32, default 12;
/// fewer where the device's workgroup storage is small); `config.subgroups` whether the
/// ranking uses subgroup ballots where the device has them.
///
/// # Errors
/// As [`sort`].
pub fn plan_sort(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    plan_keys(gpu, Request::keys("sort", keys), options, config)
}

/// The keys of a one-lane `uint32`, `sint32` or `float32` column, sorted, into a new packed
/// column of their format.
///
/// # Order
///
/// `uint32` and `sint32` keys sort by value. `float32` keys sort in the total order of their
/// bits with the sign flipped (IEEE 754's `totalOrder`):
/// `-NaN < -inf < … < -1 < -0 < +0 < 1 < … < +inf < +NaN`, so `-0` sorts before `+0`, NaNs
/// with the sign bit set before every number and the others after every number (among NaNs,
/// by payload). Keys are moved as bits: NaN payloads and the sign of zero come back unchanged.
/// [`SortOrder::Descending`] is the exact reverse of that order. Every sort is stable in both
/// orders: equal keys keep the order of their rows.
///
/// ```no_run
/// use gpudata::ops::{self, SortOptions};
/// # fn f(gpu: &gpudata::Gpu, keys: gpudata::GpuDataView<'_>) -> Result<(), gpudata::OpError> {
/// let sorted = ops::sort(gpu, keys, &SortOptions::descending())?;
/// assert_eq!(sorted.length(), keys.length());
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for another key format; the input checks of every
/// operation; [`OpError::TooManyRows`] past `u32::MAX` keys (element indices are 32-bit);
/// [`OpError::TooLarge`] when the keys' words do not fit one buffer (`max_buffer_size`);
/// [`OpError::TooManyBindings`] when a column larger than one storage binding
/// (`max_storage_buffer_binding_size`) needs more parts than a kernel may bind (columns past
/// one binding are bound in parts, each at most the limit); [`OpError::Gpu`].
///
/// Columns larger than one storage binding sort as smaller ones do: every column a pass reads
/// or writes is bound in parts (the kernels pick the part by element index), so a one-buffer
/// column sorts whatever the device's binding limit, up to its buffer limit (WebGPU's defaults
/// bind 128 MiB of a 256 MiB buffer).
pub fn sort(gpu: &Gpu, keys: GpuDataView<'_>, options: &SortOptions) -> Result<GpuData, OpError> {
    plan_sort(gpu, keys, options, &OpsConfig::default())?.run(gpu)
}

/// Plans [`argsort`].
///
/// # Errors
/// As [`argsort`].
pub fn plan_argsort(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    let request = Request {
        carried: Carried::RowIds,
        keys_out: false,
        ..Request::keys("argsort", keys)
    };
    plan_keys(gpu, request, options, config)
}

/// The permutation that sorts `keys` (as [`sort`] does): `uint32` row ids, row `i` of the
/// output the row of the keys that sorts to place `i`.
///
/// # Errors
/// As [`sort`].
pub fn argsort(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    options: &SortOptions,
) -> Result<GpuData, OpError> {
    plan_argsort(gpu, keys, options, &OpsConfig::default())?.run(gpu)
}

/// Plans [`sort_pairs`].
///
/// # Errors
/// As [`sort_pairs`].
pub fn plan_sort_pairs(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    values: GpuDataView<'_>,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<Sorted>, OpError> {
    let request = Request {
        carried: Carried::Values(values),
        ..Request::keys("sort_pairs", keys)
    };
    plan_pairs(gpu, request, options, config)
}

/// The keys sorted as [`sort`] sorts them, and `values` (any format of 4 bytes per row:
/// `float32`, `uint32`, `unorm8x4`, `float16x2`, …; its bytes moved unchanged) in the same
/// order.
///
/// # Errors
/// As [`sort`]; [`OpError::UnsupportedFormat`] for values of another size,
/// [`OpError::LengthMismatch`] for values of another length.
pub fn sort_pairs(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    values: GpuDataView<'_>,
    options: &SortOptions,
) -> Result<Sorted, OpError> {
    plan_sort_pairs(gpu, keys, values, options, &OpsConfig::default())?.run(gpu)
}

/// Plans [`top_k`].
///
/// # Errors
/// As [`top_k`].
pub fn plan_top_k(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    k: u64,
    options: &SortOptions,
    config: &OpsConfig,
) -> Result<OpPlan<Sorted>, OpError> {
    let request = Request {
        carried: Carried::RowIds,
        k: Some(k),
        ..Request::keys("top_k", keys)
    };
    plan_pairs(gpu, request, options, config)
}

/// The first `k` keys of [`sort`]'s order (the `k` smallest, or with
/// [`SortOrder::Descending`] the `k` largest; ties in the order of their rows) and their `uint32`
/// row ids. It sorts all the keys and writes only the first `k`.
///
/// # Errors
/// As [`sort`]; [`OpError::TopKTooLarge`] for `k` above the row count.
pub fn top_k(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    k: u64,
    options: &SortOptions,
) -> Result<Sorted, OpError> {
    plan_top_k(gpu, keys, k, options, &OpsConfig::default())?.run(gpu)
}

/// The keys of each segment sorted on their own (as [`sort`] sorts them), segments in their
/// order: a new column of the keys' format.
///
/// # Errors
/// As [`sort`]; for [`Segments::Offsets`] (input 1) [`OpError::UnsupportedFormat`] for a
/// format other than a one-lane integer, [`OpError::Empty`] for no offsets,
/// [`OpError::FirstSegment`], [`OpError::DecreasingSegment`], [`OpError::SegmentPastEnd`] and
/// [`OpError::LengthMismatch`] for a last offset other than the row count; for
/// [`Segments::Ids`], [`OpError::UnsupportedFormat`] for ids that are not `uint32` and
/// [`OpError::LengthMismatch`].
pub fn segmented_sort(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    segments: Segments<'_>,
    options: &SortOptions,
) -> Result<GpuData, OpError> {
    let request = Request {
        segments: Some(segments),
        ..Request::keys("segmented_sort", keys)
    };
    plan_keys(gpu, request, options, &OpsConfig::default())?.run(gpu)
}

/// [`segmented_sort`] with values that travel with the keys, as in [`sort_pairs`] (the
/// segments are input 2).
///
/// # Errors
/// As [`segmented_sort`] and [`sort_pairs`].
pub fn segmented_sort_pairs(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    values: GpuDataView<'_>,
    segments: Segments<'_>,
    options: &SortOptions,
) -> Result<Sorted, OpError> {
    let request = Request {
        carried: Carried::Values(values),
        segments: Some(segments),
        ..Request::keys("segmented_sort", keys)
    };
    plan_pairs(gpu, request, options, &OpsConfig::default())?.run(gpu)
}
