//! Compaction (the rows a [`GpuMask`] keeps, of several columns or row sets at once) and the
//! prefix sum it is built on.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, GpuDataView};
use crate::device::Gpu;
use crate::device::transfer::{WaitMode, read_range};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::compact::{self, BLOCK_ROWS, Source};
use crate::ops::kernels::select::rows::{self, Span};
use crate::ops::kernels::select::scan::{self, Words};
use crate::ops::kernels::select::{predicate, primitives};
use crate::ops::mask::{GpuMask, read_u32};
use crate::ops::output::{cut_views, output_data};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// What [`compact`] returns: one [`GpuData`] per input, holding the kept rows in their order,
/// and how many rows were kept.
#[derive(Debug)]
pub struct Compacted {
    /// The kept rows of each input, in the inputs' order.
    pub columns: Vec<GpuData>,
    /// The number of rows kept.
    pub kept: u64,
}

/// Rows of one input and the format its output has.
struct Input<'a> {
    source: Source<'a>,
    format: GpuDataFormat,
}

fn view_input<'a>(
    gpu: &Gpu,
    op: &'static str,
    i: usize,
    view: &GpuDataView<'a>,
) -> Result<Input<'a>, OpError> {
    rows::check_view(gpu, op, i, view)?;
    let bytes = view.format().byte_length();
    Ok(Input {
        source: Source {
            rows: Span::of(view),
            out_stride: bytes,
        },
        format: GpuVectorFormat::Fixed(view.format()).into(),
    })
}

fn data_input<'a>(gpu: &Gpu, op: &'static str, data: &'a GpuData) -> Result<Input<'a>, OpError> {
    data.buffer_on(gpu, "plan an operation")
        .map_err(|source| OpError::Gpu { op, source })?;
    let format = data.format().cloned().ok_or_else(|| OpError::WrongData {
        op,
        expected: "data with a format",
        found: "data without one".to_owned(),
    })?;
    let out_stride = match &format {
        GpuDataFormat::Struct(rows) => rows.byte_stride(),
        GpuDataFormat::Vector(GpuVectorFormat::Fixed(f)) => f.byte_length(),
        other => {
            return Err(OpError::WrongData {
                op,
                expected: "fixed-size rows (a vertex format or a struct)",
                found: format!("{other:?}"),
            });
        }
    };
    Ok(Input {
        source: Source {
            rows: Span {
                buffer: data.buffer(),
                offset: data.byte_offset(),
                stride: data.byte_stride(),
                row_bytes: data.row_byte_length().min(out_stride),
            },
            out_stride,
        },
        format,
    })
}

fn plan_inputs(
    gpu: &Gpu,
    op: &'static str,
    mask: &GpuMask,
    inputs: Vec<Input<'_>>,
    lengths: &[u64],
    config: &OpsConfig,
) -> Result<OpPlan<Compacted>, OpError> {
    let planner = Planner::new(gpu, config);
    let mask_buffer = mask.buffer(op)?;
    mask.words(op)?
        .buffer_on(gpu, "plan an operation")
        .map_err(|source| OpError::Gpu { op, source })?;
    let length = mask.len();
    for (input, &found) in lengths.iter().enumerate() {
        OpError::check_length(op, input, length, found)?;
    }
    if length > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op,
            length,
            max: u64::from(u32::MAX),
        });
    }
    let words = length.div_ceil(32);
    let (scan, offsets, blocks) = scan::mask_block_offsets(&planner, op, mask_buffer, words)?;
    // The count (and, when the rows are split, every block's offset) is needed to size and
    // bind the outputs: run the scan and read it back.
    OpPlan::from_dispatches(gpu, op, scan, 0, ()).run(gpu)?;
    let sources: Vec<Source<'_>> = inputs.iter().map(|i| i.source).collect();
    let limits = gpu.limits();
    let runs = if length == 0 {
        0
    } else {
        compact::run_count(op, limits, length, &sources, mask_buffer)?
    };
    let before: Vec<u64> = if runs > 1 {
        let raw = pollster::block_on(read_range(
            gpu,
            &offsets,
            0,
            (blocks + 1) * 4,
            "read back the block offsets",
            WaitMode::Block,
        ))
        .map_err(|source| OpError::Gpu { op, source })?;
        raw.chunks_exact(4)
            .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect()
    } else {
        let mut v = vec![0; usize::try_from(blocks + 1).unwrap_or(0)];
        if let Some(last) = v.last_mut() {
            *last = if length == 0 {
                0
            } else {
                read_u32(gpu, op, &offsets, blocks)?
            };
        }
        v
    };
    let kept = before.last().copied().unwrap_or(0);
    let mut outputs = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let size = kept
            .checked_mul(input.source.out_stride)
            .ok_or(OpError::Overflow { op, input: 0 })?;
        outputs.push(rows::output_buffer(&planner, op, size)?);
    }
    let lookup = |b: u64| -> Option<u64> {
        if runs > 1 {
            before.get(usize::try_from(b).ok()?).copied()
        } else if b == 0 {
            Some(0)
        } else {
            Some(kept)
        }
    };
    let dispatches = compact::plan(
        &planner,
        op,
        mask_buffer,
        &offsets,
        &sources,
        &outputs,
        length,
        &lookup,
    )?;
    let moved: u64 = inputs
        .iter()
        .map(|i| length * i.source.rows.row_bytes + kept * i.source.rows.row_bytes)
        .sum();
    let columns = inputs
        .into_iter()
        .zip(&outputs)
        .map(|(input, buffer)| output_data(gpu, op, buffer, input.format, kept))
        .collect::<Result<Vec<_>, _>>()?;
    debug_assert!(blocks * BLOCK_ROWS >= length);
    Ok(OpPlan::from_dispatches(
        gpu,
        op,
        dispatches,
        moved + words * 4,
        Compacted { columns, kept },
    ))
}

/// Columns that share a buffer and a stride and lie in one row window: one row set to compact
/// (an interleaved buffer's rows, or a column of its own).
struct Window<'a> {
    buffer: &'a wgpu::Buffer,
    stride: u64,
    start: u64,
    end: u64,
    columns: Vec<usize>,
}

/// `columns` grouped by the rows they share, in the order each window is first met.
fn windows<'a>(columns: &[&'a GpuData]) -> Vec<Window<'a>> {
    let mut windows: Vec<Window<'a>> = Vec::new();
    for (i, data) in columns.iter().enumerate() {
        let (offset, stride) = (data.byte_offset(), data.byte_stride());
        let end = offset + data.row_byte_length();
        let found = windows.iter_mut().find(|w| {
            *w.buffer == *data.buffer()
                && w.stride == stride
                && offset.max(w.start) - offset.min(w.start) < stride.max(1)
        });
        match found {
            Some(w) => {
                w.start = w.start.min(offset);
                w.end = w.end.max(end);
                w.columns.push(i);
            }
            None => windows.push(Window {
                buffer: data.buffer(),
                stride,
                start: offset,
                end,
                columns: vec![i],
            }),
        }
    }
    windows
}

/// The rows `mask` keeps of `columns` (data of fixed-size rows, `mask.len()` rows each), each
/// keeping its format and its place in its rows, in one pass: columns that share a buffer and
/// a stride in one row window (the fields of interleaved rows) are compacted together into one
/// new buffer, each at its offset in the window, rows at the window's stride (the first column
/// of a window owns the buffer, the others share it); a column of its own keeps its stride.
/// What [`GpuTable::filter`](crate::GpuTable::filter) keeps of each batch. The outputs carry no
/// readback metadata.
///
/// # Errors
/// As [`compact`].
pub(crate) fn compact_in_layout(
    gpu: &Gpu,
    mask: &GpuMask,
    columns: &[&GpuData],
) -> Result<Compacted, OpError> {
    const OP: &str = "filter";
    let windows = windows(columns);
    let inputs = windows
        .iter()
        .map(|w| Input {
            source: Source {
                rows: Span {
                    buffer: w.buffer,
                    offset: w.start,
                    stride: w.stride,
                    row_bytes: w.end - w.start,
                },
                out_stride: w.stride.max(w.end - w.start),
            },
            format: GpuVectorFormat::Fixed(VertexFormat::Uint8).into(),
        })
        .collect();
    let lengths = vec![mask.len(); windows.len()];
    let plan = plan_inputs(gpu, OP, mask, inputs, &lengths, &OpsConfig::default())?;
    let buffers: Vec<wgpu::Buffer> = plan
        .output()
        .columns
        .iter()
        .map(|c| c.buffer().clone())
        .collect();
    let kept = plan.output().kept;
    plan.run(gpu)?;
    let mut out: Vec<Option<GpuData>> = columns.iter().map(|_| None).collect();
    for (window, buffer) in windows.iter().zip(buffers) {
        for (k, &c) in window.columns.iter().enumerate() {
            let data = columns[c];
            let descriptor = GpuDataDescriptor {
                format: data.format().cloned(),
                length: kept,
                value_length: Some(kept),
                stride: Some(data.stride()),
                byte_offset: data.byte_offset() - window.start,
                byte_stride: Some(window.stride),
                row_byte_length: Some(data.row_byte_length()),
                ..GpuDataDescriptor::default()
            };
            let handle = if k == 0 {
                BufferHandle::Owned(buffer.clone())
            } else {
                BufferHandle::Shared(buffer.clone())
            };
            out[c] = Some(GpuData::new(handle, descriptor).map_err(|e| OpError::data(OP, e))?);
        }
    }
    Ok(Compacted {
        columns: out.into_iter().flatten().collect(),
        kept,
    })
}

/// Plans the compaction of `columns` by `mask` (see [`compact`]). Planning runs the mask's scan
/// and reads the kept count back (the outputs' size); the plan's dispatches copy the rows, so
/// [`OpPlan::encode`] repeats only the copy.
///
/// # Errors
/// As [`compact`].
pub fn plan_compact(
    gpu: &Gpu,
    mask: &GpuMask,
    columns: &[GpuDataView<'_>],
    config: &OpsConfig,
) -> Result<OpPlan<Compacted>, OpError> {
    const OP: &str = "compact";
    let inputs = columns
        .iter()
        .enumerate()
        .map(|(i, v)| view_input(gpu, OP, i, v))
        .collect::<Result<Vec<_>, _>>()?;
    let lengths: Vec<u64> = columns.iter().map(GpuDataView::length).collect();
    plan_inputs(gpu, OP, mask, inputs, &lengths, config)
}

/// The rows `mask` keeps, of every column at once, in their order: one pass over the columns
/// (packed columns, strided children of interleaved rows, segments alike), each written packed
/// into a new [`GpuData`] of its format, plus the kept count (cuDF's `apply_boolean_mask`).
///
/// ```no_run
/// use gpudata::ops::{self, Predicate};
/// # fn f(gpu: &gpudata::Gpu, x: gpudata::GpuDataView<'_>, y: gpudata::GpuDataView<'_>) -> Result<(), gpudata::OpError> {
/// let mask = ops::mask(gpu, &Predicate::between(x, 0.0f32, 1.0f32))?;
/// let kept = ops::compact(gpu, &mask, &[x, y])?;
/// assert_eq!(kept.columns[0].length(), kept.kept);
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`OpError::LengthMismatch`] for a column whose length is not the mask's;
/// [`OpError::WrongData`] for a mask in several pieces; the input checks of every operation; [`OpError::TooManyRows`] past `u32::MAX` rows; [`OpError::TooLarge`],
/// [`OpError::Gpu`].
pub fn compact(
    gpu: &Gpu,
    mask: &GpuMask,
    columns: &[GpuDataView<'_>],
) -> Result<Compacted, OpError> {
    plan_compact(gpu, mask, columns, &OpsConfig::default())?.run(gpu)
}

/// The rows `mask` keeps of whole data: vertex-format columns or struct rows (interleaved
/// tables' rows, padding included), each into new data of the same format.
///
/// # Errors
/// [`OpError::WrongData`] for data without a fixed row format (lists), then as [`compact`].
pub fn compact_data(gpu: &Gpu, mask: &GpuMask, data: &[&GpuData]) -> Result<Compacted, OpError> {
    const OP: &str = "compact";
    let inputs = data
        .iter()
        .map(|d| data_input(gpu, OP, d))
        .collect::<Result<Vec<_>, _>>()?;
    let lengths: Vec<u64> = data.iter().map(|d| d.length()).collect();
    plan_inputs(gpu, OP, mask, inputs, &lengths, &OpsConfig::default())?.run(gpu)
}

/// The exclusive prefix sum of a one-lane integer column (`uint8`, `uint16`, `uint32`, `sint8`,
/// `sint16`, `sint32`: counts, flags such as an Arrow boolean column converted to `uint8`,
/// offsets), in wrapping 32-bit arithmetic: `n + 1` values, value `i` the sum of the values
/// before row `i`, the last the total; `uint32` for unsigned input, `sint32` for signed input
/// (8- and 16-bit values widened first). Floats are refused: a parallel scan adds them in
/// another order than a running sum, so its result would depend on the device's blocking.
/// A column larger than one buffer (a chunked [`GpuVector`](crate::GpuVector)), or whose sums
/// would not fit one, is summed by [`piecewise::prefix_sum`](super::piecewise::prefix_sum)
/// into a chunked result.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for another format; the input checks of every operation;
/// [`OpError::TooLarge`], [`OpError::Gpu`].
pub fn prefix_sum(gpu: &Gpu, column: GpuDataView<'_>) -> Result<GpuData, OpError> {
    const OP: &str = "prefix_sum";
    let output = prefix_sum_output(OP, column.format())?;
    rows::check_view(gpu, OP, 0, &column)?;
    let planner = Planner::new(gpu, &OpsConfig::default());
    let n = column.length();
    let (dispatches, out) = scan::exclusive_scan(&planner, OP, scan_words(&column), n)?;
    OpPlan::from_dispatches(gpu, OP, dispatches, 0, ()).run(gpu)?;
    output_data(gpu, OP, &out, output, n + 1)
}

/// The prefix sum of one column held in `pieces` (consecutive row ranges, in order, of
/// `format`: the chunks of a column larger than one buffer), as [`prefix_sum`] gives it for
/// their rows: one output per piece of rows, in order, the last holding one value more (the
/// total). A piece whose output would not fit one buffer is cut into pieces that do; empty
/// pieces give no output, and a column of no rows gives one output holding the total, 0. The
/// carries between pieces are added on the GPU, with no readback.
///
/// # Errors
/// As [`prefix_sum`] (`input` in an error is the piece's position), with
/// [`OpError::UnsupportedFormat`] for a piece of another format than `format`.
pub(crate) fn prefix_sum_pieces(
    gpu: &Gpu,
    pieces: &[GpuDataView<'_>],
    format: VertexFormat,
) -> Result<Vec<GpuData>, OpError> {
    const OP: &str = "prefix_sum";
    let output = prefix_sum_output(OP, format)?;
    for (i, piece) in pieces.iter().enumerate() {
        rows::check_view(gpu, OP, i, piece)?;
        if piece.format() != format {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input: i,
                format: piece.format(),
                expected: "the format of the column",
            });
        }
    }
    let planner = Planner::new(gpu, &OpsConfig::default());
    // Each output holds its rows' values and one word more (the running total after them).
    let most = (gpu.limits().max_buffer_size / 4).saturating_sub(1);
    if most == 0 {
        return Err(OpError::TooLarge {
            op: OP,
            what: "an output buffer",
            size: 8,
            limit: gpu.limits().max_buffer_size,
        });
    }
    let cut = cut_views(pieces, most);
    if cut.is_empty() {
        let total = rows::output_buffer(&planner, OP, 4)?;
        return Ok(vec![output_data(gpu, OP, &total, output, 1)?]);
    }
    let outs = cut
        .iter()
        .map(|p| rows::output_buffer(&planner, OP, (p.length() + 1) * 4))
        .collect::<Result<Vec<_>, _>>()?;
    let words: Vec<(Words<'_>, u64)> = cut.iter().map(|p| (scan_words(p), p.length())).collect();
    let out_refs: Vec<&wgpu::Buffer> = outs.iter().collect();
    let dispatches = scan::exclusive_scan_pieces(&planner, OP, &words, &out_refs)?;
    OpPlan::from_dispatches(gpu, OP, dispatches, 0, ()).run(gpu)?;
    let last = cut.len() - 1;
    cut.iter()
        .zip(&outs)
        .enumerate()
        .map(|(i, (p, out))| {
            let values = p.length() + u64::from(i == last);
            output_data(gpu, OP, out, output, values)
        })
        .collect()
}

/// The elements of a [`prefix_sum`] input: its integers, sign-extended when signed.
fn scan_words<'a>(column: &GpuDataView<'a>) -> Words<'a> {
    Words {
        buffer: column.buffer(),
        offset: column.byte_offset(),
        stride: column.byte_stride(),
        unit: column.format().byte_length(),
        signed: column.format().is_signed(),
        popcount: false,
    }
}

/// The output format of [`prefix_sum`] over `format`: `uint32` or `sint32`.
pub(crate) fn prefix_sum_output(
    op: &'static str,
    format: VertexFormat,
) -> Result<VertexFormat, OpError> {
    use VertexFormat as F;
    match format {
        F::Uint8 | F::Uint16 | F::Uint32 => Ok(F::Uint32),
        F::Sint8 | F::Sint16 | F::Sint32 => Ok(F::Sint32),
        other => Err(OpError::UnsupportedFormat {
            op,
            input: 0,
            format: other,
            expected: "a one-lane integer format (uint8, uint16, uint32, sint8, sint16, sint32)",
        }),
    }
}

/// Indices to filter with [`compact_indices`]: `count` indices of `unit` bytes (2 or 4) at byte
/// `offset + i × stride` of `buffer`.
pub(crate) struct IndexRows<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub stride: u64,
    pub unit: u64,
    pub count: u64,
}

/// The primitives of `primitive` consecutive indices (1 point, 2 line, 3 triangle) whose every
/// index is a row `mask` keeps, each index renumbered to its row's place among the kept rows
/// (the mask's exclusive prefix sum at that row), in their order: a new buffer of packed
/// indices of `indices.unit` bytes (with the usages of every operation output, INDEX among
/// them) and how many indices it holds. Indices at or past the mask's length drop their
/// primitive; so does the incomplete primitive that a count not a multiple of `primitive`
/// ends with.
pub(crate) fn compact_indices(
    gpu: &Gpu,
    mask: &GpuMask,
    indices: IndexRows<'_>,
    primitive: u64,
) -> Result<(wgpu::Buffer, u64), OpError> {
    const OP: &str = "filter indices";
    let planner = Planner::new(gpu, &OpsConfig::default());
    let primitives = indices.count / primitive;
    let rows = mask.len();
    if primitives == 0 || rows == 0 {
        return Ok((rows::output_buffer(&planner, OP, 0)?, 0));
    }
    let mask_buffer = mask.buffer(OP)?;
    let words = rows.div_ceil(32);
    let (mut dispatches, ranks) = scan::exclusive_scan(
        &planner,
        OP,
        Words {
            buffer: mask_buffer,
            offset: 0,
            stride: 4,
            unit: 4,
            signed: false,
            popcount: true,
        },
        words,
    )?;
    let keep = rows::output_buffer(&planner, OP, predicate::mask_words(primitives) * 4)?;
    let group_bytes = primitive
        .checked_mul(indices.unit)
        .ok_or(OpError::Overflow { op: OP, input: 0 })?;
    let size = primitives
        .checked_mul(group_bytes)
        .ok_or(OpError::Overflow { op: OP, input: 0 })?;
    let renumbered = rows::output_buffer(&planner, OP, size)?;
    dispatches.extend(primitives::plan(
        &planner,
        OP,
        primitives::Vertices {
            mask: mask_buffer,
            ranks: &ranks,
            rows,
        },
        primitives::Indices {
            buffer: indices.buffer,
            offset: indices.offset,
            stride: indices.stride,
            unit: indices.unit,
            per_primitive: primitive,
        },
        primitives,
        &keep,
        &renumbered,
    )?);
    OpPlan::from_dispatches(gpu, OP, dispatches, 0, ()).run(gpu)?;
    let keep = GpuMask::from_buffer(gpu, keep, primitives)?;
    let input = Input {
        source: Source {
            rows: Span::packed(&renumbered, group_bytes),
            out_stride: group_bytes,
        },
        format: GpuVectorFormat::Fixed(VertexFormat::Uint8).into(),
    };
    let plan = plan_inputs(
        gpu,
        OP,
        &keep,
        vec![input],
        &[primitives],
        &OpsConfig::default(),
    )?;
    let buffer = plan.output().columns[0].buffer().clone();
    let kept = plan.output().kept;
    plan.run(gpu)?;
    Ok((buffer, kept * primitive))
}
