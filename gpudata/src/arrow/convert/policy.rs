//! The conversion policy: which [`Conversion`] each column gets, explicitly or by the `auto`
//! rule, and whether nullable columns get validity masks.

use std::fmt;
use std::str::FromStr;

use arrow_schema::DataType as ArrowType;

use super::ConversionError;
use super::temporal::TimeStep;
use crate::arrow::{FormatChoice, default_format};

/// What one column becomes on its way to the GPU.
///
/// Every conversion but [`Float32`](Self::Float32) on large integers and the float32 offsets of
/// temporal values that need more than 24 bits is exact, and every one is undone on readback
/// ([`restore_batch`](super::restore_batch)), which gives back the original Arrow type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Conversion {
    /// Chosen by the column's type, with a reason in the report (see
    /// [`Conversion::auto_for`]).
    #[default]
    Auto,
    /// The adapter's default format for the type, unchanged (`value-list<uint8>` for strings).
    AsIs,
    /// Timestamp / Date / Time / Duration → `float32` offsets from an origin, in a step unit;
    /// origin and step are stored in the column's metadata. `None` picks them from the first
    /// batch: the origin is its smallest value (0 for Time and Duration), the step the coarsest
    /// unit that divides every offset (so whole minutes become exact integers).
    TimeOffset {
        /// The origin, in the column's own unit (`None`: chosen).
        origin: Option<i64>,
        /// The step (`None`: chosen).
        step: Option<TimeStep>,
    },
    /// Timestamp / Date / Time / Duration → `float32x2` `[hi, lo]` with `hi + lo` the exact
    /// offset in steps (checked: an offset beyond 2^48 steps is an error).
    TimeSplit {
        /// The origin, in the column's own unit (`None`: chosen).
        origin: Option<i64>,
    },
    /// Int64 → `sint32`, UInt64 → `uint32`, checked: a value outside the 32-bit range is an
    /// error naming it.
    Narrow,
    /// Int64 / UInt64 → `float32` (rounded beyond 2^24; the report counts rounded values).
    Float32,
    /// Int64 / UInt64 as their two 32-bit words (`sint32x2` / `uint32x2`, low word first).
    Words,
    /// Boolean → `uint8` 0 / 1: the bitmap is uploaded (a bit per row) and unpacked on the
    /// GPU.
    Uint8,
    /// Boolean → `uint32` 0 / 1: the bitmap is uploaded (a bit per row) and unpacked on the
    /// GPU.
    Uint32,
    /// Utf8 / LargeUtf8 / Utf8View / Dictionary<_, Utf8> → `uint32` category ids, one
    /// dictionary for the whole stream, kept on the host.
    Categories,
    /// Utf8 / LargeUtf8 / Utf8View → value lists on the GPU: the column's UTF-8 bytes
    /// (`value-list<uint8>`, Utf8View first gathered into one buffer) and beside it a
    /// `<name>_offsets` `uint32x2` column holding each row's `[start, end)` byte range in them
    /// (from 0 in each GPU batch), so shaders read the strings themselves.
    ValueList,
    /// Float64 / Decimal128 (through Float64) → `float32x2` `[hi, lo]` by the fround operation.
    Fround,
    /// Leave the column out.
    Skip,
}

impl Conversion {
    /// Every conversion's name, as [`FromStr`] reads it.
    pub const NAMES: [&'static str; 13] = [
        "auto",
        "as-is",
        "time-offset",
        "time-split",
        "narrow",
        "float32",
        "words",
        "uint8",
        "uint32",
        "categories",
        "value-list",
        "fround",
        "skip",
    ];

    /// The name ([`FromStr`] reads it back; options of `time-offset` print as `time-offset`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Conversion::Auto => "auto",
            Conversion::AsIs => "as-is",
            Conversion::TimeOffset { .. } => "time-offset",
            Conversion::TimeSplit { .. } => "time-split",
            Conversion::Narrow => "narrow",
            Conversion::Float32 => "float32",
            Conversion::Words => "words",
            Conversion::Uint8 => "uint8",
            Conversion::Uint32 => "uint32",
            Conversion::Categories => "categories",
            Conversion::ValueList => "value-list",
            Conversion::Fround => "fround",
            Conversion::Skip => "skip",
        }
    }

    /// The `auto` choice for a column of `data_type`, and why; `None` when nothing carries it.
    ///
    /// | type | auto | why |
    /// |---|---|---|
    /// | Timestamp, Date, Time, Duration | `time-offset` | luma.gl's temporal rule: `f32` offsets from an origin kept in metadata |
    /// | Int64, UInt64 | `narrow` | exact when every value fits 32 bits (the first batch decides; a later value that does not fit is an error) |
    /// | Boolean | `uint32` | WGSL storage reads 32-bit words (`uint8` quarters the bytes for vertex input) |
    /// | Utf8, LargeUtf8, Utf8View, Dictionary<_, Utf8> | `categories` | a shader can colour or filter by an id; the labels stay on the host |
    /// | Float64, Decimal128, FixedSizeList<Float64, 1..=2> | `fround` | two `f32` keep about 48 bits |
    /// | anything the adapter's default format takes | `as-is` | |
    #[must_use]
    pub fn auto_for(data_type: &ArrowType) -> Option<(Conversion, &'static str)> {
        use ArrowType as T;
        Some(match data_type {
            T::Timestamp(..)
            | T::Date32
            | T::Date64
            | T::Time32(_)
            | T::Time64(_)
            | T::Duration(_) => (
                Conversion::TimeOffset {
                    origin: None,
                    step: None,
                },
                "temporal values become float32 offsets from an origin kept in the column metadata",
            ),
            T::Int64 | T::UInt64 => (
                Conversion::Narrow,
                "64-bit integers narrow to 32 bits exactly when every value fits",
            ),
            T::Boolean => (
                Conversion::Uint32,
                "booleans become uint32 0/1, which WGSL storage and vertex input both read",
            ),
            T::Utf8 | T::LargeUtf8 | T::Utf8View => (
                Conversion::Categories,
                "strings become uint32 category ids; the labels stay on the host",
            ),
            T::Dictionary(_, value) if is_text(value) => (
                Conversion::Categories,
                "dictionary strings become uint32 category ids shared by every batch",
            ),
            T::Float64 | T::Decimal128(..) => (
                Conversion::Fround,
                "64-bit floats split into two float32 (about 48 bits kept)",
            ),
            T::FixedSizeList(child, 1 | 2) if child.data_type() == &T::Float64 => (
                Conversion::Fround,
                "64-bit floats split into two float32 (about 48 bits kept)",
            ),
            other => {
                crate::arrow::resolve_format("", other, FormatChoice::Default, false).ok()?;
                (Conversion::AsIs, "the adapter's default format carries it")
            }
        })
    }

    /// Whether this conversion applies to `data_type`, and if not, which types it takes.
    pub(crate) fn check(self, data_type: &ArrowType) -> Result<(), &'static str> {
        use ArrowType as T;
        let ok = match self {
            Conversion::Auto | Conversion::Skip => true,
            Conversion::AsIs => default_format("", data_type).is_ok(),
            Conversion::TimeOffset { .. } | Conversion::TimeSplit { .. } => {
                super::temporal::base_nanos(data_type).is_some()
            }
            Conversion::Narrow | Conversion::Float32 | Conversion::Words => {
                matches!(data_type, T::Int64 | T::UInt64)
            }
            Conversion::Uint8 | Conversion::Uint32 => data_type == &T::Boolean,
            Conversion::Categories => {
                is_text(data_type) || matches!(data_type, T::Dictionary(_, v) if is_text(v))
            }
            Conversion::ValueList => is_text(data_type),
            Conversion::Fround => match data_type {
                T::Float64 | T::Decimal128(..) => true,
                T::FixedSizeList(child, 1 | 2) => child.data_type() == &T::Float64,
                _ => false,
            },
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Conversion::AsIs => "a type the adapter's default format carries",
            Conversion::TimeOffset { .. } | Conversion::TimeSplit { .. } => {
                "Timestamp, Date32, Date64, Time32, Time64 or Duration"
            }
            Conversion::Narrow | Conversion::Float32 | Conversion::Words => "Int64 or UInt64",
            Conversion::Uint8 | Conversion::Uint32 => "Boolean",
            Conversion::Categories => "Utf8, LargeUtf8, Utf8View or Dictionary<_, Utf8>",
            Conversion::ValueList => "Utf8, LargeUtf8 or Utf8View",
            Conversion::Fround => "Float64, Decimal128 or FixedSizeList<Float64, 1..=2>",
            Conversion::Auto | Conversion::Skip => "any type",
        })
    }
}

pub(crate) fn is_text(data_type: &ArrowType) -> bool {
    matches!(
        data_type,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View
    )
}

impl fmt::Display for Conversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Conversion {
    type Err = ConversionError;

    /// Reads a [`Conversion::name`]; `time-offset` and `time-split` choose their origin (and
    /// step) from the first batch.
    fn from_str(s: &str) -> Result<Conversion, ConversionError> {
        Ok(match s {
            "auto" => Conversion::Auto,
            "as-is" => Conversion::AsIs,
            "time-offset" => Conversion::TimeOffset {
                origin: None,
                step: None,
            },
            "time-split" => Conversion::TimeSplit { origin: None },
            "narrow" => Conversion::Narrow,
            "float32" => Conversion::Float32,
            "words" => Conversion::Words,
            "uint8" => Conversion::Uint8,
            "uint32" => Conversion::Uint32,
            "categories" => Conversion::Categories,
            "value-list" => Conversion::ValueList,
            "fround" => Conversion::Fround,
            "skip" => Conversion::Skip,
            _ => {
                return Err(ConversionError::Unknown { name: s.to_owned() });
            }
        })
    }
}

/// Which columns get a `uint32` validity mask column beside them (`<name>_valid`: 1 for a
/// valid row, 0 for a null one), so that shaders see nulls (luma.gl's analytics ingestion).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaskPolicy {
    /// No mask columns; nulls are kept as readback metadata only.
    Never,
    /// Nullable columns whose first batch has nulls (the default).
    #[default]
    IfNulls,
    /// Every nullable column.
    Nullable,
}

/// The conversion policy of a stream or table: a conversion per named column, the rest by
/// [`Conversion::Auto`] (or [`Conversion::AsIs`] with [`Conversions::as_is`]).
///
/// ```
/// use gpudata::arrow::convert::{Conversion, Conversions};
///
/// let policy = Conversions::auto()
///     .column("delay", Conversion::Float32)
///     .column("origin", Conversion::AsIs);
/// assert_eq!(policy.for_column("delay"), Conversion::Float32);
/// assert_eq!(policy.for_column("date"), Conversion::Auto);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversions {
    columns: Vec<(String, Conversion)>,
    otherwise: Conversion,
    /// Which columns get validity masks.
    pub masks: MaskPolicy,
    /// Whether columns that nothing carries are left out and reported (`true` under `auto`) or
    /// fail the ingest.
    pub skip_unsupported: bool,
}

impl Default for Conversions {
    fn default() -> Conversions {
        Conversions::auto()
    }
}

impl Conversions {
    /// `auto` for every column, masks for columns with nulls, unsupported columns skipped.
    #[must_use]
    pub fn auto() -> Conversions {
        Conversions {
            columns: Vec::new(),
            otherwise: Conversion::Auto,
            masks: MaskPolicy::IfNulls,
            skip_unsupported: true,
        }
    }

    /// `as-is` for every column (the adapter's plain rules), no masks, unsupported columns an
    /// error.
    #[must_use]
    pub fn as_is() -> Conversions {
        Conversions {
            columns: Vec::new(),
            otherwise: Conversion::AsIs,
            masks: MaskPolicy::Never,
            skip_unsupported: false,
        }
    }

    /// Sets column `name`'s conversion (an error at the first batch if there is no such column).
    #[must_use]
    pub fn column(mut self, name: impl Into<String>, conversion: Conversion) -> Conversions {
        let name = name.into();
        self.columns.retain(|(n, _)| *n != name);
        self.columns.push((name, conversion));
        self
    }

    /// Sets the mask policy.
    #[must_use]
    pub fn masks(mut self, masks: MaskPolicy) -> Conversions {
        self.masks = masks;
        self
    }

    /// The conversion asked for column `name`.
    #[must_use]
    pub fn for_column(&self, name: &str) -> Conversion {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.otherwise, |(_, c)| *c)
    }

    /// The columns named explicitly.
    pub fn named(&self) -> impl Iterator<Item = (&str, Conversion)> {
        self.columns.iter().map(|(n, c)| (n.as_str(), *c))
    }
}
