//! Operations on GPU columns and rows: WGSL compute generated from the formats, and a CPU
//! reference ([`cpu`]) of the same semantics that the tests hold every kernel to.
//!
//! | operation | reads | returns |
//! |---|---|---|
//! | [`add`], [`subtract`], [`multiply`], [`divide`], [`arithmetic()`] (also [`ArithmeticOp::Remainder`]) | columns, constants, literals | one packed column of the joined type |
//! | [`evaluate`] of an [`Expr`] (`col(0) * col(1) + col(2)`: arithmetic, math functions, comparisons, `select`) | columns by index, constants, literals | one packed column: the last operation's format or the one asked for, in one kernel |
//! | [`pow`], [`sqrt`], [`abs`], [`sin`], [`cos`], [`tan`], [`exp`], [`log`], [`math()`] | columns, constants, literals | one packed float32 column (`abs`: the joined type) |
//! | [`dot`], [`length`], [`equal_all`], [`select`], [`swizzle`], [`interleave_lanes`], [`lanes()`] | columns, constants | one packed column (luma.gl's lane rules; `interleave_lanes` past four lanes: rows of a packed struct of 4-lane fields) |
//! | [`interleave`] / [`deinterleave`], [`deinterleave_views`] | one column per field / rows | rows of a struct format / one packed column per field |
//! | [`fround`], [`fround_f64`] | float64 as `uint32x2`/`uint32x4` word pairs | `float32x2`/`float32x4` high and low parts |
//! | [`mask`] ([`Predicate`]: [`less`], [`greater`], [`equal`], [`between`]) | columns compared with constants or columns | a [`GpuMask`] (one bit per row) |
//! | [`compact`], [`compact_data`] | a mask and columns (or whole rows) | the kept rows of each, packed ([`Compacted`]) |
//! | [`prefix_sum`] | a one-lane integer column | its exclusive prefix sum, `n + 1` `uint32` values |
//! | [`extent`] | a column | one `[min, max]` row per lane |
//! | [`gather`] | a column and row indices | the indexed rows |
//! | [`sequence`], [`segmented_map`] | a count / segment starts | `sint32` values / `uint32x2` (segment, offset) rows |
//! | [`sort`], [`argsort`], [`sort_pairs`], [`top_k`], [`segmented_sort`], [`segmented_sort_pairs`] | `uint32` / `sint32` / `float32` keys (values of 4 bytes per row, segment offsets or ids) | the sorted keys, `uint32` row ids, the values in the keys' order ([`Sorted`]) |
//! | [`argsort_by`] | several [`SortKey`]s: columns (in one or more pieces), each ascending or descending, with a validity mask and its nulls first or last | `uint32` row ids sorting the rows lexicographically, stably |
//! | [`reduce`] | a one-lane column, a mask | count, valid count, sum, minimum, maximum, mean ([`Reduction`]) |
//! | [`histogram`] | a one-lane column, weights, a mask | counts (and weight sums) in equal bins ([`GpuHistogram`]) |
//! | [`group_by`] | an integer key column, values, a mask | count, sum, minimum, maximum, mean per group ([`GpuGroups`]) |
//! | [`grid_aggregate`] | `float32x2` positions, values, a mask | the same per cell of a 2D grid, texture-ready ([`GpuGrid`]) |
//!
//! Every operation takes the [`Gpu`](crate::Gpu) its data lives on and returns new
//! [`GpuData`](crate::GpuData) (usages `STORAGE | VERTEX | COPY_SRC | COPY_DST`) that reads back
//! like any other data. Columns are [`GpuDataView`](crate::GpuDataView)s: packed columns,
//! strided children of interleaved rows and segments of a segmented table alike. Columns larger
//! than one buffer are chunked [`GpuVector`](crate::GpuVector)s, which [`piecewise`]' one
//! driver runs the same kernels over, piece by piece. Kernels compile once per device, in the `Gpu`'s pipeline cache. The
//! `plan_*` forms take an [`OpsConfig`] and return an [`OpPlan`] to run or to record into a
//! compute pass of yours. 8- and 16-bit formats are read and written (unlike luma.gl's WebGPU
//! backend), and normalized, `float16` and `unorm10-10-10-2` values are decoded.
//!
//! # Semantics
//!
//! - **Arithmetic** follows luma.gl (spec §8.3–8.5): the output type joins the inputs' types
//!   (any float → `float32`; only unsigned → `uint` of the widest; signed with unsigned narrower
//!   than 32 bits → `sint` of `max(signed bits, 2 × unsigned bits)`; `uint32` with a signed
//!   type → `float32`; a normalized input makes an integer result `float32`), the output size
//!   is the largest input size, and lane `l` of an input is its lane `l`, its lane 0 when it
//!   has one lane, else 0. Float results are computed in `f32` (an integer operand of a float
//!   result converts to `f32` first: exact below 2^24). **Integer results are exact**: wrapping
//!   32-bit integer arithmetic stored modulo 2^bits, integer division truncating and division
//!   by zero giving 0 — luma.gl's CPU backend's values wherever its `f64` arithmetic is exact,
//!   and the exact ones where it rounds (products past 2^53). A [`Literal`] keeps the data's
//!   type; in an integer computation, a literal lane that is not an integer of the
//!   computation's range (`0.75`, `-2.5`, `1e10` on `sint32`) makes its step exact on the real
//!   numbers, then truncated toward zero and wrapped into 32 bits, as luma.gl's typed arrays
//!   store `x op literal` (a NaN or infinite literal gives 0); literals before the first data
//!   operand combine first, in `f64`, as luma.gl's CPU backend computes them. A NaN result may
//!   carry another payload than the CPU's (GPUs need not propagate payloads). Normalized values
//!   decode as `f32(x) / max` (luma.gl's rule), correctly rounded (computed with integer
//!   operations, not a division). All data inputs need the same length. Chains round (floats)
//!   or truncate and wrap (integers) after every step, and the generated WGSL pins that order,
//!   so the GPU equals the CPU reference bit for bit on lavapipe.
//! - **Real GPUs and IEEE 754**: WGSL allows `f32` division 2.5 ulp from the correctly rounded
//!   quotient (an NVIDIA H100's `a / b` is not correctly rounded), the float functions the
//!   accuracy [`MathOp`] states, and lets an implementation assume no value is NaN or infinite
//!   (on an H100, `0 / 0` came back as 1). Float `divide`, the math functions and NaN or
//!   infinite inputs can therefore differ from the CPU reference on a real GPU, and so can
//!   subnormal values, which WGSL lets a GPU flush to zero; `add`, `subtract` and `multiply` of
//!   other finite floats, every integer result and every decoded value (normalized, float16)
//!   do not.
//! - **Math functions**: WGSL's builtins, within the accuracy WGSL states ([`MathOp`]).
//! - **Fused expressions** ([`Expr`], [`evaluate`]): one kernel per expression, each column read
//!   once and the result encoded once; every node means what its one-step operation means (its
//!   type joins its operands', its value is what that operation stores: narrow integers wrap,
//!   floats round), so a fused expression equals the chain of one-step operations bit for bit.
//!   The one-step operations are the one-node form of the same engine. Comparisons give
//!   `uint32` 1 or 0 (integers exactly across signedness, anything with a float in `f32`).
//!   The kernel is compiled once per shape (tree, formats, layouts), not per data.
//! - **Lane operations** ([`LaneOp`]): luma.gl's lane-count rules and errors.
//! - **interleave / deinterleave** move bytes; `deinterleave(interleave(columns))` returns the
//!   columns byte for byte.
//! - **fround** splits each float64 `x` into `hi = x` rounded to `f32` and `lo = x − hi` rounded
//!   to `f32`, with integer operations (no `shader-f64`), bit for bit the CPU formula.
//! - **Selection** ([`mask`], [`compact`], [`gather`], [`extent`], [`prefix_sum`]): each
//!   function's documentation states its NaN, `-0` and out-of-range rules.
//! - **Sorting** is a stable radix sort in a total order: floats
//!   `-NaN < -inf < … < -0 < +0 < … < +inf < +NaN`, descending its exact reverse (see
//!   [`sort`]).
//! - **Aggregation** ([`reduce`], [`histogram`], [`group_by`], [`grid_aggregate`]): NaN values
//!   are skipped as nulls; `reduce` sums floats by a pairwise tree (error at most
//!   `(⌈log₂ n⌉ + 4) · 2⁻²⁴ · Σ|x|`) and integers exactly in 64 bits; per-group sums are
//!   exact fixed-point integer sums rounded once, the same bits on every run.
//!
//! # Sizes
//!
//! Inputs and outputs larger than the device's `max_storage_buffer_binding_size` are split into
//! runs, one dispatch each ([`OpPlan::dispatches`] counts them); only what cannot be split is
//! refused with [`OpError::TooLarge`]. Speed, measured beside a copy kernel and PyTorch, is in
//! the repository's BENCHMARKS.md.
//!
//! # Example
//!
//! ```no_run
//! use gpudata::{GpuData, Gpu, VertexFormat, ops};
//! # fn f(gpu: &Gpu, a: &GpuData, b: &GpuData) -> Result<(), Box<dyn std::error::Error>> {
//! // `a`: 1000 `float32x2` values, `b`: 1000 `uint8x2` values.
//! let sum = ops::add(gpu, a, b)?;
//! assert_eq!(sum.as_view().map(|v| v.format()), Some(VertexFormat::Float32x2));
//! let bytes = sum.read_bytes(gpu)?;
//! assert_eq!(bytes.len(), 8000);
//! # Ok(()) }
//! ```

mod aggregate;
mod arithmetic;
mod compact;
pub mod cpu;
mod deinterleave;
mod elementwise;
mod error;
mod exact;
mod expr;
mod extent;
mod family;
mod fround;
mod fused;
#[cfg(feature = "arrow")]
pub(crate) use fround::fround_output;
mod gather;
mod input;
mod interleave;
pub(crate) mod kernels;
mod lanes;
mod mask;
mod math;
mod output;
pub mod piecewise;
mod plan;
mod predicate;
mod semantics;
mod sort;
mod sort_by;
#[cfg(feature = "arrow")]
mod unpack;

pub use aggregate::grid::{
    GpuGrid, Grid, GridField, GridSpec, grid_aggregate, plan_grid_aggregate,
};
pub use aggregate::group::{GpuGroups, GroupKeys, Groups, group_by, plan_group_by};
pub use aggregate::histogram::{GpuHistogram, Histogram, histogram, plan_histogram};
pub use aggregate::reduce::{GpuReduction, Reduction, Total, plan_reduce, reduce};
pub use arithmetic::{add, arithmetic, divide, multiply, plan_arithmetic, subtract};
pub use deinterleave::{
    deinterleave, deinterleave_views, plan_deinterleave, plan_deinterleave_views,
};
pub use expr::{Expr, col, lit};
pub use family::{ArithmeticOp, MathOp};
#[cfg(feature = "arrow")]
pub use fround::fround_arrow;
pub use fround::{fround, fround_f64, plan_fround};
pub use fused::{MAX_EXPR_DEPTH, MAX_EXPR_NODES, evaluate, plan_evaluate};
pub use input::{IntoOperand, Literal, Operand, OperandOf};
pub use interleave::{interleave, plan_interleave};
pub use lanes::{
    LaneOp, dot, equal_all, interleave_lanes, lanes, length, plan_lanes, select, swizzle,
};
pub use math::{abs, cos, exp, log, math, plan_math, pow, sin, sqrt, tan};

pub use compact::{Compacted, compact, compact_data, plan_compact, prefix_sum};
pub(crate) use compact::{IndexRows, compact_in_layout, compact_indices, prefix_sum_pieces};
pub(crate) use extent::plan_extent_pieces;
pub use extent::{extent, plan_extent};
pub(crate) use gather::gather_pieces;
#[cfg(feature = "parquet")]
pub(crate) use gather::plan_remap_in_place;
pub use gather::{gather, plan_gather, segmented_map, sequence};
pub use mask::GpuMask;
pub use predicate::{
    Comparand, Predicate, PredicateOf, between, equal, greater, less, mask, plan_mask,
};
pub use sort::{
    Segments, SortOptions, SortOrder, Sorted, argsort, plan_argsort, plan_sort, plan_sort_pairs,
    plan_top_k, segmented_sort, segmented_sort_pairs, sort, sort_pairs, top_k,
};
pub use sort_by::{NullOrder, SortKey, argsort_by};
#[cfg(feature = "arrow")]
pub(crate) use unpack::unpack_bits;

pub use crate::format::codec::ShaderScalar;
pub use kernels::Comparison;

pub use error::OpError;
pub use kernels::OpsConfig;
pub use plan::OpPlan;
