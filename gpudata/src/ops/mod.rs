//! Operations on GPU columns and rows, as WGSL compute generated from formats, with a CPU
//! reference ([`cpu`]) of the same semantics.
//!
//! | operation | reads | writes |
//! |---|---|---|
//! | [`add`], [`subtract`], [`multiply`], [`divide`], [`arithmetic()`] | columns of any format, constants | one packed column of the joined type |
//! | [`interleave`] | one column per field | rows of a [`GpuDataStructFormat`](crate::GpuDataStructFormat) (packed or wgsl-storage) |
//! | [`deinterleave`], [`deinterleave_views`] | rows (or any views) | one packed column per field |
//! | [`fround`], [`fround_f64`] | float64 values as `uint32x2`/`uint32x4` word pairs | `float32x2`/`float32x4` high and low parts |
//! | [`pow`], [`sqrt`], [`abs`], [`sin`], [`cos`], [`tan`], [`exp`], [`log`], [`math()`] | columns, constants, literals | one packed float32 column (`abs`: the joined type) |
//! | [`dot`], [`length`], [`equal_all`] | columns, constants | float32 (`equal_all`: uint32 0/1), one lane |
//! | [`select`], [`swizzle`], [`interleave_lanes`], [`lanes()`] | columns, constants | one packed column (luma.gl's lane rules) |
//!
//! Every operation takes the [`Gpu`](crate::Gpu) its data lives on and returns
//! [`GpuData`](crate::GpuData) that owns a new buffer (usages `STORAGE | VERTEX | COPY_SRC |
//! COPY_DST`) and reads back like any other data (`read_bytes`, `read_values`, `get_child`).
//! Columns are [`GpuDataView`](crate::GpuDataView)s: packed columns, strided children of
//! interleaved rows and segments of a segmented table alike; rows are struct-formatted
//! [`GpuData`](crate::GpuData). Kernels compile once per device, in the `Gpu`'s pipeline cache
//! ([`Gpu::compiled_pipelines`](crate::Gpu::compiled_pipelines)). The `plan_*` forms take an
//! [`OpsConfig`] (the kernels' tuning) and return an [`OpPlan`] to run or to record into a
//! compute pass of yours. Unlike luma.gl's WebGPU backend, 8- and 16-bit formats are read (as
//! 32-bit words, unpacked in WGSL) and written (whole words assembled from several rows), and
//! normalized, `float16` and `unorm10-10-10-2` values are decoded.
//!
//! # Semantics
//!
//! - **Arithmetic** follows luma.gl (spec §8.3–8.5): the output type joins the inputs' types
//!   (any float → `float32`; only unsigned → `uint` of the widest; signed with unsigned narrower
//!   than 32 bits → `sint` of `max(signed bits, 2 × unsigned bits)`; `uint32` with a signed
//!   type → `float32`; a normalized input makes an integer result `float32`), the output size
//!   is the largest input size, and lane `l` of an input is its lane `l`, its lane 0 when it
//!   has one lane, else 0. Float results are computed in `f32`; integer results in wrapping
//!   32-bit arithmetic (`i32` for signed, `u32` for unsigned) and stored modulo 2^bits; integer
//!   division by zero gives 0. A NaN result may carry another payload than the CPU's (GPUs
//!   need not propagate payloads; float16 NaNs reach the arithmetic with their bits as stored).
//!   Normalized values decode as `f32(x) / max` (luma.gl's rule), snorm clamped to −1;
//!   `float16` decodes exactly; `unorm8x4-bgra` reads in memory order, as luma.gl does. All data
//!   inputs need the same length (luma.gl takes the longest). A single data operand comes back
//!   unchanged, in its own format (luma.gl's `add(a)`). A [`Literal`] keeps the data's
//!   type: integer data stays in wrapping integer arithmetic when every literal lane is an
//!   integer of the computation's range, else computes in `f32` and truncates into the integer
//!   output (negative values wrap, non-finite values store 0, as a typed array stores them;
//!   beyond ±2³¹ gpudata clamps where luma.gl wraps). Chains round after every step (luma.gl's
//!   CPU backend fuses them in f64), and the generated WGSL pins that order: operands are
//!   decoded first, and normalized values, intermediate results and products pass through an
//!   integer OR with a uniform zero, so no compiler can factor, reassociate or fuse them; the
//!   GPU equals the CPU reference bit for bit.
//! - **Math functions** ([`pow`] … [`log`]): float32 output of the larger lane count (`abs`:
//!   the joined type, integers wrapping at their minimum, floats by clearing the sign bit); WGSL's
//!   builtins, within the accuracy WGSL states ([`MathOp`]).
//! - **Lane operations** ([`LaneOp`]): luma.gl's `dot`, `length` (float32, summed in lane order,
//!   rounded per step), `equalAll` (uint32 0/1), `select` (the join of its values, one-lane
//!   operands broadcast), `swizzle` (bits unchanged) and `interleave` ([`interleave_lanes`]: one
//!   column of the promoted type), with luma.gl's lane-count rules and errors.
//! - **interleave / deinterleave** move bytes: a column and its field need the same component
//!   count and component size (so `uint8x4` may fill a `unorm8x4` field), and padding bytes of
//!   the rows are written as zeros. `deinterleave(interleave(columns))` returns the columns
//!   byte for byte.
//! - **fround** splits each float64 `x` into `hi = x` rounded to the nearest `f32` (ties to
//!   even) and `lo = x − hi` rounded to `f32`, computed with integer operations (no
//!   `shader-f64`), bit for bit equal to the CPU formula. NaN gives `(NaN, NaN)`, ±Inf gives
//!   `(±Inf, NaN)`, a finite value past the `f32` range gives `(±Inf, ∓Inf)`; NaNs are written
//!   as `0x7fc00000`.
//!
//! # Speed
//!
//! Each invocation handles `G` rows (1 to 16), chosen so that its output rows are whole 16-byte
//! chunks: packed `float32` add reads and writes `vec4<u32>`s, as the fastest copy kernel does;
//! 8-bit outputs are assembled sixteen rows at a time. Sources are read in the widest unit their
//! stride and offset allow. Outputs of rows wider than 16 bytes go through workgroup memory so
//! that a workgroup's stores are consecutive ([`OpsConfig::stage_outputs`]). Workgroups are 256
//! invocations wide, dispatched in two dimensions when one holds more than the device's
//! per-dimension limit. On an H200 every operation runs at 86–105% of the fastest WGSL copy
//! kernel (BENCHMARKS.md, "GPU operations (H200)").
//!
//! # Inputs larger than one binding
//!
//! When an input's rows or an output are larger than the device's
//! `max_storage_buffer_binding_size` (128 MiB by default; 2–4 GiB on large GPUs), the rows are
//! split into runs, one dispatch each, every dispatch binding only its own rows' bytes at offsets
//! the device accepts ([`OpPlan::dispatches`] counts them; all are recorded into one pass). When
//! everything fits, the plan stays one dispatch. Only what cannot be split is refused with
//! [`OpError::TooLarge`]: an output larger than `max_buffer_size`, or a single row whose values
//! (with the bytes that align its binding) exceed a binding.
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

mod arithmetic;
mod compact;
pub mod cpu;
mod deinterleave;
mod elementwise;
mod error;
mod extent;
mod family;
mod fround;
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
mod plan;
mod predicate;

pub use arithmetic::{add, arithmetic, divide, multiply, plan_arithmetic, subtract};
pub use deinterleave::{
    deinterleave, deinterleave_views, plan_deinterleave, plan_deinterleave_views,
};
pub use family::{ArithmeticOp, MathOp};
#[cfg(feature = "arrow")]
pub use fround::fround_arrow;
pub use fround::{fround, fround_f64, plan_fround};
pub use input::{Constant, IntoOperand, Literal, Operand, OperandOf};
pub use interleave::{interleave, plan_interleave};
pub use lanes::{
    LaneOp, dot, equal_all, interleave_lanes, lanes, length, plan_lanes, select, swizzle,
};
pub use math::{abs, cos, exp, log, math, plan_math, pow, sin, sqrt, tan};

pub use compact::{Compacted, compact, compact_data, plan_compact, prefix_sum};
pub(crate) use compact::{IndexRows, RowSet, compact_indices, compact_row_sets, prefix_sum_pieces};
pub(crate) use extent::plan_extent_pieces;
pub use extent::{extent, plan_extent};
pub(crate) use gather::gather_pieces;
pub use gather::{gather, plan_gather, segmented_map, sequence};
pub use mask::GpuMask;
pub use predicate::{
    Comparand, Predicate, PredicateOf, between, equal, greater, less, mask, plan_mask,
};

pub use crate::format::codec::Scalar;
pub use kernels::Comparison;

pub use error::OpError;
pub use kernels::OpsConfig;
pub use plan::OpPlan;
