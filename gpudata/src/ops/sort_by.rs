//! Rows ordered by several keys ([`argsort_by`]): the permutation that sorts a table by one or
//! more columns, lexicographically and stably, each key ascending or descending with its nulls
//! first or last. One stable [`sort_pairs`](super::sort_pairs) per key (and one more per key
//! with a validity mask), from the last key to the first, each carrying the permutation so far:
//! the least significant digit order of a radix sort, one key at a time. Keys in several pieces
//! (the chunks of a [`GpuVector`](crate::GpuVector), the batches of a
//! [`GpuTable`](crate::GpuTable)) are read through the permutation with one gather each.

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::PrimitiveType;
use crate::format::VertexFormat;
use crate::format::codec::decoded_type;
use crate::ops::gather::gather_pieces;
use crate::ops::output::view_of;
use crate::ops::{
    GpuMask, OpError, SortOptions, SortOrder, argsort, col, evaluate, select, sequence, sort_pairs,
};

const OP: &str = "argsort_by";

/// Where the null rows of a key with a validity mask go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NullOrder {
    /// After every valid row (the default, in both orders).
    #[default]
    Last,
    /// Before every valid row.
    First,
}

/// One key of [`argsort_by`]: a column of one-lane rows of any integer, normalized or float
/// format, ordered by the value a shader reads (one view, or
/// the consecutive pieces of a column held in several buffers), its order, and optionally a
/// validity mask (a set bit a valid row) and where its null rows go.
///
/// ```no_run
/// use gpudata::ops::{NullOrder, SortKey};
/// # fn f<'a>(a: gpudata::GpuDataView<'a>, valid: &'a gpudata::ops::GpuMask) {
/// let key = SortKey::new(a).descending().with_validity(valid).with_nulls(NullOrder::First);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct SortKey<'a> {
    pieces: Vec<GpuDataView<'a>>,
    order: SortOrder,
    validity: Option<&'a GpuMask>,
    nulls: NullOrder,
}

impl<'a> SortKey<'a> {
    /// An ascending key of the rows of `column`, every row valid.
    #[must_use]
    pub fn new(column: GpuDataView<'a>) -> SortKey<'a> {
        SortKey::from_pieces(vec![column])
    }

    /// An ascending key of a column held in `pieces`: consecutive row ranges, in row order, of
    /// one format ([`piecewise::sort_key`](crate::ops::piecewise::sort_key) makes one of a
    /// chunked column).
    #[must_use]
    pub fn from_pieces(pieces: Vec<GpuDataView<'a>>) -> SortKey<'a> {
        SortKey {
            pieces,
            order: SortOrder::Ascending,
            validity: None,
            nulls: NullOrder::Last,
        }
    }

    /// The same key in `order`.
    #[must_use]
    pub fn with_order(mut self, order: SortOrder) -> SortKey<'a> {
        self.order = order;
        self
    }

    /// The same key, descending.
    #[must_use]
    pub fn descending(self) -> SortKey<'a> {
        self.with_order(SortOrder::Descending)
    }

    /// The same key with the rows `validity` does not keep as nulls: they sort together, apart
    /// from the valid rows (where [`with_nulls`](Self::with_nulls) says), in their rows' order
    /// among themselves as far as the other keys leave it; their values are not read.
    #[must_use]
    pub fn with_validity(mut self, validity: &'a GpuMask) -> SortKey<'a> {
        self.validity = Some(validity);
        self
    }

    /// The same key with its null rows placed `nulls`.
    #[must_use]
    pub fn with_nulls(mut self, nulls: NullOrder) -> SortKey<'a> {
        self.nulls = nulls;
        self
    }

    /// The key's order.
    #[must_use]
    pub fn order(&self) -> SortOrder {
        self.order
    }

    /// Where its null rows go.
    #[must_use]
    pub fn nulls(&self) -> NullOrder {
        self.nulls
    }

    /// Its validity mask, if any.
    #[must_use]
    pub fn validity(&self) -> Option<&'a GpuMask> {
        self.validity
    }

    /// Its pieces, in row order.
    #[must_use]
    pub fn pieces(&self) -> &[GpuDataView<'a>] {
        &self.pieces
    }

    /// Its row count: the pieces' rows together (saturating).
    #[must_use]
    pub fn length(&self) -> u64 {
        self.pieces
            .iter()
            .fold(0u64, |sum, p| sum.saturating_add(p.length()))
    }

    /// The key format, checked: every piece of one of the sort's key formats.
    fn format(&self, input: usize) -> Result<VertexFormat, OpError> {
        let format = self
            .pieces
            .first()
            .map_or(VertexFormat::Uint32, GpuDataView::format);
        if wide_key_format(format).is_none() {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input,
                format,
                expected: "a one-lane key format (integer, normalized or float)",
            });
        }
        for piece in &self.pieces {
            if piece.format() != format {
                return Err(OpError::UnsupportedFormat {
                    op: OP,
                    input,
                    format: piece.format(),
                    expected: "the format of the key's first piece",
                });
            }
        }
        Ok(format)
    }
}

/// The 32-bit key format a one-lane key of `format` sorts as: its value as a shader reads it
/// (`uint32` for unsigned integers, `sint32` for signed ones, `float32` for floats, float16 and
/// normalized formats, the last widened exactly, so the order is the value's); `None` for a
/// format of several lanes, packed bits or WebGL-only.
#[must_use]
pub(crate) fn wide_key_format(format: VertexFormat) -> Option<VertexFormat> {
    if format.components() != 1 || format.is_packed_bits() || format.is_webgl_only() {
        return None;
    }
    Some(match decoded_type(format) {
        PrimitiveType::U32 => VertexFormat::Uint32,
        PrimitiveType::I32 => VertexFormat::Sint32,
        PrimitiveType::F32 | PrimitiveType::F16 => VertexFormat::Float32,
    })
}

/// The permutation that sorts rows by `keys`, lexicographically: by the first key, rows with
/// equal first keys by the second, and so on; stable (rows equal in every key keep their
/// order). `uint32` row ids, row `i` of the output the row that sorts to place `i`. Each key
/// sorts in [`sort`](super::sort())'s total order (floats: `-NaN < -inf < … < -0 < +0 < … <
/// +inf < +NaN`), ascending or descending; a key with a validity mask puts its null rows first
/// or last (in both orders), and null rows are equal in that key. A key of a narrower format
/// sorts by the value a shader reads from it, widened to 32 bits (`uint8` as `uint32`, `sint16`
/// as `sint32`, `unorm8`, `snorm16` and `float16` as `float32`: `snorm`'s two encodings of -1
/// are equal keys; the order among a `float16` key's NaNs follows the device's widening).
///
/// Cost: one stable radix sort of 32-bit keys carrying the permutation per key (a narrower key
/// widened first, one pass over it), and a gather
/// of each key but the last through the permutation (a key in several pieces is gathered
/// even when last); a key with a validity mask adds the mask's flags unpacked, two gathers of
/// them, a select (null rows' words set to 0, so that nulls are equal in the key) and one
/// more sort by the flags.
///
/// ```no_run
/// use gpudata::ops::{self, SortKey};
/// # fn f(gpu: &gpudata::Gpu, a: gpudata::GpuDataView<'_>, b: gpudata::GpuDataView<'_>) -> Result<(), gpudata::OpError> {
/// // By `a` ascending, then by `b` descending.
/// let order = ops::argsort_by(gpu, &[SortKey::new(a), SortKey::new(b).descending()])?;
/// assert_eq!(order.length(), a.length());
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`OpError::NoInputs`] for no keys; [`OpError::UnsupportedFormat`] for a key that is not
/// one lane of an integer, normalized or float format (or pieces of several formats), naming
/// the key;
/// [`OpError::LengthMismatch`] for a key or a validity mask of another row count than the first
/// key (a mask's input is `keys.len()` plus the key's position); the input checks of every
/// operation; [`OpError::TooManyRows`] past `u32::MAX` rows (row ids and the sort's element
/// indices are 32-bit); [`OpError::TooLarge`] when a key's rows gathered do not fit one buffer;
/// the sort's errors (its columns are bound in parts past one storage binding:
/// [`OpError::TooManyBindings`] when the parts exceed the device's bindings per stage);
/// [`OpError::Gpu`].
pub fn argsort_by(gpu: &Gpu, keys: &[SortKey<'_>]) -> Result<GpuData, OpError> {
    let Some(first) = keys.first() else {
        return Err(OpError::NoInputs { op: OP });
    };
    let rows = first.length();
    for (input, key) in keys.iter().enumerate() {
        key.format(input)?;
        OpError::check_length(OP, input, rows, key.length())?;
        if let Some(mask) = key.validity {
            OpError::check_length(OP, keys.len() + input, rows, mask.len())?;
        }
    }
    // Row ids are 32-bit (`sequence`'s wrapping `sint32` ids read as `uint32`), and so are the
    // sort's element indices.
    let count = u32::try_from(rows).map_err(|_| OpError::TooManyRows {
        op: OP,
        length: rows,
        max: u64::from(u32::MAX),
    })?;
    let mut order: Option<GpuData> = None;
    for key in keys.iter().rev() {
        let format = key
            .pieces
            .first()
            .map_or(VertexFormat::Uint32, GpuDataView::format);
        // A narrower key read as its 32-bit value, piece by piece (one pass each).
        let wide = wide_key_format(format).unwrap_or(format);
        let widened: Vec<GpuData> = if wide == format {
            Vec::new()
        } else {
            key.pieces
                .iter()
                .map(|piece| evaluate(gpu, &col(0), &[*piece], Some(wide)))
                .collect::<Result<_, _>>()?
        };
        let pieces = if wide == format {
            key.pieces.clone()
        } else {
            views(&widened)?
        };
        let format = wide;
        let mut words = through(gpu, order.as_ref(), &pieces, format, count)?;
        let flags = match key.validity {
            Some(mask) => Some(mask.flags(gpu)?),
            None => None,
        };
        if let Some(flags) = &flags {
            // Null rows' words all 0, so that they are equal in this key: the key's bits
            // where the row is valid, else the (zero) flag, as `uint32`, then read as the key.
            let valid = flags_in(gpu, flags, order.as_ref(), count)?;
            let (valid, bits) = (valid.view()?, words.view()?);
            let bits = reinterpret(bits, VertexFormat::Uint32)?;
            let equalized = select(gpu, valid, bits, valid)?;
            words = Words::Read(equalized, format);
        }
        let options = SortOptions {
            order: key.order,
            ..SortOptions::default()
        };
        order = Some(carry(gpu, &words, order.as_ref(), &options)?);
        if let Some(flags) = &flags {
            let valid = flags_in(gpu, flags, order.as_ref(), count)?;
            // Valid rows are 1: descending puts them first, so the nulls last.
            let flag_order = match key.nulls {
                NullOrder::Last => SortOptions::descending(),
                NullOrder::First => SortOptions::ascending(),
            };
            order = Some(carry(gpu, &valid, order.as_ref(), &flag_order)?);
        }
    }
    // `keys` is not empty, so the loop ran.
    order.ok_or(OpError::NoInputs { op: OP })
}

/// A mask's flags (`uint32` 1 for a valid row, in pieces) in the order `order`.
fn flags_in<'a>(
    gpu: &Gpu,
    flags: &'a [GpuData],
    order: Option<&GpuData>,
    count: u32,
) -> Result<Words<'a>, OpError> {
    through(gpu, order, &views(flags)?, VertexFormat::Uint32, count)
}

/// The same rows as `view` read as `format`, of the same byte length.
fn reinterpret(view: GpuDataView<'_>, format: VertexFormat) -> Result<GpuDataView<'_>, OpError> {
    GpuDataView::new(
        view.buffer(),
        format,
        view.length(),
        view.byte_offset(),
        Some(view.byte_stride()),
    )
    .map(|v| match view.device() {
        Some(gpu) => v.on_device(gpu),
        None => v,
    })
    .map_err(|e| OpError::data(OP, e))
}

/// The views of whole data.
fn views(data: &[GpuData]) -> Result<Vec<GpuDataView<'_>>, OpError> {
    data.iter()
        .map(|d| view_of(OP, d, "a column of one vertex format"))
        .collect()
}

/// Holder of the rows a sort reads: a view of the caller's data, a packed copy, or a packed
/// copy read as another format of the same size.
enum Words<'a> {
    View(GpuDataView<'a>),
    Owned(GpuData),
    Read(GpuData, VertexFormat),
}

impl Words<'_> {
    fn view(&self) -> Result<GpuDataView<'_>, OpError> {
        match self {
            Words::View(view) => Ok(*view),
            Words::Owned(data) => views(std::slice::from_ref(data)).map(|mut v| v.remove(0)),
            Words::Read(data, format) => {
                let view = views(std::slice::from_ref(data))?.remove(0);
                reinterpret(view, *format)
            }
        }
    }
}

/// The rows of `pieces` in the order `order` (row `i` the row `order[i]`), or as they are
/// without an order: one view when they are one, else one packed gathered copy.
fn through<'a>(
    gpu: &Gpu,
    order: Option<&GpuData>,
    pieces: &[GpuDataView<'a>],
    format: VertexFormat,
    count: u32,
) -> Result<Words<'a>, OpError> {
    let ids = match (order, pieces) {
        (None, [one]) => return Ok(Words::View(*one)),
        (None, _) => sequence(gpu, count, 0, 1)?,
        (Some(order), _) => order.share(),
    };
    // `sequence` writes `sint32` ids (wrapping past 2³¹), which a gather reads as negative:
    // its bits read as `uint32`.
    let id_views = views(std::slice::from_ref(&ids))?
        .into_iter()
        .map(|v| reinterpret(v, VertexFormat::Uint32))
        .collect::<Result<Vec<_>, _>>()?;
    let mut gathered = gather_pieces(gpu, &id_views, pieces, format)?;
    if gathered.len() > 1 {
        return Err(OpError::TooLarge {
            op: OP,
            what: "one buffer of a key's rows",
            size: u64::from(count) * 4,
            limit: gpu.limits().max_buffer_size,
        });
    }
    match gathered.pop() {
        Some(data) => Ok(Words::Owned(data)),
        // No rows: the empty view of the first piece (or of the ids).
        None => Ok(Words::Owned(ids)),
    }
}

/// The order `carried` (or the rows' own, without one) stably sorted by `keys`.
fn carry(
    gpu: &Gpu,
    keys: &Words<'_>,
    carried: Option<&GpuData>,
    options: &SortOptions,
) -> Result<GpuData, OpError> {
    let keys = keys.view()?;
    match carried {
        None => argsort(gpu, keys, options),
        Some(order) => {
            let values = views(std::slice::from_ref(order))?.remove(0);
            Ok(sort_pairs(gpu, keys, values, options)?.values)
        }
    }
}
