//! Column conversions for the types real files have (feature `arrow`): what a Parquet file's
//! Int64, timestamps, booleans, strings and decimals become on the GPU, chosen per column or by
//! an `auto` policy that says why, each undone on readback.
//!
//! | Arrow type | conversions ([`Conversion`]) | `auto` | inverse |
//! |---|---|---|---|
//! | Timestamp, Date32/64, Time32/64, Duration | `time-offset` (`float32` offsets from an origin, in a step unit), `time-split` (`float32x2` `[hi, lo]`, exact below 2^48 steps) | `time-offset`, origin the first batch's minimum (0 for Time, Duration), step the coarsest unit dividing every offset | exact when offsets are whole steps below 2^24 (split: always, or an error) |
//! | Int64, UInt64 | `narrow` (`sint32` / `uint32`, checked), `float32`, `words` (`sint32x2` / `uint32x2`) | `narrow` when the first batch fits, else `float32` | exact (`float32`: below 2^24) |
//! | Boolean | `uint8`, `uint32` (0 / 1, the bitmap uploaded and unpacked on the GPU) | `uint32` | exact |
//! | Utf8, LargeUtf8, Utf8View, Dictionary<_, Utf8> | `categories` (`uint32` ids, one host dictionary for the stream), `value-list` (strings: the UTF-8 bytes as `value-list<uint8>` plus a `<name>_offsets` `uint32x2` column of each row's `[start, end)`), `as-is` (`value-list<uint8>` for Utf8 / LargeUtf8 strings with host offsets, the keys for dictionaries) | `categories` | exact (dictionaries come back with the stream's dictionary) |
//! | Float64, FixedSizeList<Float64, 1..=2>, Decimal128 | `fround` (`float32x2` `[hi, lo]`; Decimal128 through Float64) | `fround` | about 48 bits |
//! | anything else the adapter takes | `as-is` | `as-is` | exact |
//!
//! Value-list columns get their offsets column beside them, and nullable columns can get a
//! `uint32` validity mask column (`<name>_valid`, 1 valid
//! / 0 null, [`MaskPolicy`]), so shaders see nulls; the validity also travels as readback
//! metadata as before. Converted fields carry a [`ConversionRecord`] as JSON under
//! [`CONVERSION_METADATA_KEY`] (original type, origin, step), which [`restore_batch`] reads.
//!
//! A [`ConversionPlan`] applies a policy to a stream: the first batch fixes the choices, every
//! batch converts the same way (the GPU batches share one schema, category ids stay the same),
//! and [`ConversionPlan::report`] says what each column became and why.

mod categories;
mod error;
mod metadata;
mod parallel;
mod plan;
mod policy;
mod restore;
mod temporal;
mod values;

pub use error::ConversionError;
pub use metadata::{CONVERSION_METADATA_KEY, ConversionRecord};
pub(crate) use parallel::{
    Accounting, Converted, LocalIds, Remap, StreamCategories, WorkerConverter,
};
pub use plan::{ColumnReport, ConversionPlan};
pub use policy::{Conversion, Conversions, MaskPolicy};
pub use restore::restore_batch;
pub use temporal::TimeStep;
