//! The layout rules ([`StructLayout`]) and the one `const fn` algorithm that places fields
//! ([`LayoutCursor`]).
//!
//! Both the `#[derive(GpuStruct)]` expansion (in `const` items) and runtime declarations (field
//! lists read from strings or JSON) place fields through [`LayoutCursor::place`], so a layout
//! computed at compile time and one computed at run time cannot disagree.

use core::fmt;
use core::str::FromStr;

use crate::format::VertexFormat;
use crate::layout::LayoutError;

/// The rules that place a struct format's fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StructLayout {
    /// `"wgsl-storage"` (default): each field is stored in a WGSL carrier type (`f32`/`i32`/`u32`
    /// or `vecN` for 32-bit formats; one `u32` word or a `vec2<u32>` for every other format) and
    /// placed by WGSL's host-shareable rules, so a row matches a WGSL storage struct.
    #[default]
    WgslStorage,
    /// `"wgsl-uniform"`: as `wgsl-storage`, with the row aligned to at least 16 bytes (so the
    /// stride is a multiple of 16), as a WGSL uniform buffer needs of a struct; derived structs
    /// with this layout also follow WGSL's other uniform rules (see
    /// [`AddressSpace::Uniform`](super::AddressSpace::Uniform)).
    WgslUniform,
    /// `"packed"`: WebGPU vertex-buffer rules: each offset aligned to `min(4, byte length)`, the
    /// stride rounded up to 4. WebGL-only formats are refused.
    Packed,
}

impl StructLayout {
    /// The luma.gl name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            StructLayout::WgslStorage => "wgsl-storage",
            StructLayout::WgslUniform => "wgsl-uniform",
            StructLayout::Packed => "packed",
        }
    }

    /// Looks a layout up by its luma.gl name; usable in `const` items.
    #[must_use]
    pub const fn from_name(name: &str) -> Option<StructLayout> {
        if crate::format::const_str_eq(name, "wgsl-storage") {
            Some(StructLayout::WgslStorage)
        } else if crate::format::const_str_eq(name, "wgsl-uniform") {
            Some(StructLayout::WgslUniform)
        } else if crate::format::const_str_eq(name, "packed") {
            Some(StructLayout::Packed)
        } else {
            None
        }
    }

    /// Where a field of `format` goes and how many bytes it claims under these rules:
    /// `(alignment, size)` in bytes.
    #[must_use]
    pub const fn placement(self, format: VertexFormat) -> (u64, u64) {
        match self {
            StructLayout::Packed => {
                let len = format.byte_length();
                (if len < 4 { len } else { 4 }, len)
            }
            StructLayout::WgslStorage | StructLayout::WgslUniform => {
                let carrier = format.wgsl_carrier();
                (carrier.byte_align(), carrier.byte_size())
            }
        }
    }

    /// The alignment a whole row rounds its stride up to, given the largest field alignment.
    #[must_use]
    pub const fn stride_alignment(self, max_field_align: u64) -> u64 {
        match self {
            StructLayout::Packed => 4,
            StructLayout::WgslStorage => max_field_align,
            StructLayout::WgslUniform => {
                if max_field_align > 16 {
                    max_field_align
                } else {
                    16
                }
            }
        }
    }
}

impl fmt::Display for StructLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StructLayout {
    type Err = LayoutError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StructLayout::from_name(s).ok_or_else(|| LayoutError::UnknownLayout {
            layout: s.to_owned(),
        })
    }
}

/// Why a field list has no layout, as found by the `const fn` engine (which knows positions, not
/// names; [`GpuDataStructFormat`](super::GpuDataStructFormat) adds the names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutRuleError {
    /// The list has no fields.
    NoFields,
    /// Field `index` uses a WebGL-only format under the packed rules.
    WebglOnlyInPacked {
        /// The field's position.
        index: usize,
        /// Its format.
        format: VertexFormat,
    },
    /// Offsets past field `index` do not fit in a `u64`.
    Overflow {
        /// The field's position.
        index: usize,
    },
    /// Fields `first` and `second` have the same name.
    DuplicateName {
        /// The earlier field.
        first: usize,
        /// The later field.
        second: usize,
    },
}

impl LayoutRuleError {
    /// A message without names, for compile-time panics.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            LayoutRuleError::NoFields => "a gpu struct format must declare at least one field",
            LayoutRuleError::WebglOnlyInPacked { .. } => {
                "the packed layout follows WebGPU vertex rules and cannot hold a WebGL-only \
                 `-webgl` format; use a 4-component format or the wgsl-storage layout"
            }
            LayoutRuleError::Overflow { .. } => "gpu struct format offsets overflow u64",
            LayoutRuleError::DuplicateName { .. } => "two fields of a gpu struct share a name",
        }
    }
}

/// Totals of a laid-out row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowShape {
    /// Scalar components in one row (the sum over fields).
    pub components: u32,
    /// Bytes through the end of the last field's payload, without trailing padding.
    pub row_byte_length: u64,
    /// Bytes between adjacent rows, trailing padding included.
    pub byte_stride: u64,
    /// The row's alignment (the stride is a multiple of it).
    pub alignment: u64,
}

/// The field placement algorithm, one field at a time.
///
/// ```
/// use gpudata::layout::LayoutCursor;
/// use gpudata::{StructLayout, VertexFormat};
///
/// let mut cursor = LayoutCursor::new(StructLayout::Packed);
/// assert_eq!(cursor.place(VertexFormat::Uint8), Ok(0));
/// assert_eq!(cursor.place(VertexFormat::Float32), Ok(4));
/// let shape = cursor.finish().unwrap();
/// assert_eq!((shape.row_byte_length, shape.byte_stride), (8, 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutCursor {
    layout: StructLayout,
    next_offset: u64,
    row_end: u64,
    max_align: u64,
    components: u32,
    fields: usize,
}

const fn align_up(value: u64, align: u64) -> Option<u64> {
    // Alignments are 1, 2, 4, 8 or 16: never zero.
    match value.checked_add(align - 1) {
        Some(v) => Some(v / align * align),
        None => None,
    }
}

impl LayoutCursor {
    /// An empty row under `layout`.
    #[must_use]
    pub const fn new(layout: StructLayout) -> LayoutCursor {
        LayoutCursor {
            layout,
            next_offset: 0,
            row_end: 0,
            max_align: 1,
            components: 0,
            fields: 0,
        }
    }

    /// Places the next field and returns its byte offset.
    ///
    /// # Errors
    /// [`LayoutRuleError::WebglOnlyInPacked`] or [`LayoutRuleError::Overflow`].
    pub const fn place(&mut self, format: VertexFormat) -> Result<u64, LayoutRuleError> {
        let index = self.fields;
        if matches!(self.layout, StructLayout::Packed) && format.is_webgl_only() {
            return Err(LayoutRuleError::WebglOnlyInPacked { index, format });
        }
        let (align, size) = self.layout.placement(format);
        let Some(offset) = align_up(self.next_offset, align) else {
            return Err(LayoutRuleError::Overflow { index });
        };
        let (Some(next), Some(end)) = (
            offset.checked_add(size),
            offset.checked_add(format.byte_length()),
        ) else {
            return Err(LayoutRuleError::Overflow { index });
        };
        self.next_offset = next;
        if end > self.row_end {
            self.row_end = end;
        }
        if align > self.max_align {
            self.max_align = align;
        }
        self.components = self.components.saturating_add(format.components());
        self.fields += 1;
        Ok(offset)
    }

    /// The totals of the row placed so far.
    ///
    /// # Errors
    /// [`LayoutRuleError::NoFields`] when nothing was placed; [`LayoutRuleError::Overflow`] when the
    /// padded stride does not fit.
    pub const fn finish(&self) -> Result<RowShape, LayoutRuleError> {
        if self.fields == 0 {
            return Err(LayoutRuleError::NoFields);
        }
        let alignment = self.layout.stride_alignment(self.max_align);
        let Some(byte_stride) = align_up(self.next_offset, alignment) else {
            return Err(LayoutRuleError::Overflow {
                index: self.fields - 1,
            });
        };
        Ok(RowShape {
            components: self.components,
            row_byte_length: self.row_end,
            byte_stride,
            alignment,
        })
    }
}

/// Offsets and totals of a field list laid out in a `const` context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstLayout<const N: usize> {
    /// Each field's byte offset, in declaration order.
    pub offsets: [u64; N],
    /// The row totals.
    pub shape: RowShape,
}

/// Lays out `formats` under `layout` in a `const` context; the derive's expansion calls this.
///
/// # Errors
/// As [`LayoutCursor::place`] and [`LayoutCursor::finish`].
pub const fn layout_formats<const N: usize>(
    layout: StructLayout,
    formats: &[VertexFormat; N],
) -> Result<ConstLayout<N>, LayoutRuleError> {
    let mut cursor = LayoutCursor::new(layout);
    let mut offsets = [0u64; N];
    let mut i = 0;
    while i < N {
        offsets[i] = match cursor.place(formats[i]) {
            Ok(offset) => offset,
            Err(e) => return Err(e),
        };
        i += 1;
    }
    match cursor.finish() {
        Ok(shape) => Ok(ConstLayout { offsets, shape }),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_that_overflow_are_errors_not_wraps() {
        let mut cursor = LayoutCursor::new(StructLayout::Packed);
        cursor.next_offset = u64::MAX - 2;
        cursor.fields = 7;
        assert_eq!(
            cursor.place(VertexFormat::Float32),
            Err(LayoutRuleError::Overflow { index: 7 })
        );
        let mut cursor = LayoutCursor::new(StructLayout::WgslStorage);
        cursor.next_offset = u64::MAX - 3;
        assert_eq!(
            cursor.place(VertexFormat::Float32x2),
            Err(LayoutRuleError::Overflow { index: 0 })
        );
        let mut cursor = LayoutCursor::new(StructLayout::Packed);
        assert_eq!(cursor.place(VertexFormat::Uint8), Ok(0));
        cursor.next_offset = u64::MAX;
        assert_eq!(cursor.finish(), Err(LayoutRuleError::Overflow { index: 0 }));
        let err =
            LayoutError::from_rule(LayoutRuleError::Overflow { index: 0 }, |_| "big".to_owned());
        assert_eq!(err.to_string(), "struct offsets overflow at field `big`");
    }

    #[test]
    fn messages_for_compile_time_panics_are_lowercase() {
        for e in [
            LayoutRuleError::NoFields,
            LayoutRuleError::WebglOnlyInPacked {
                index: 0,
                format: VertexFormat::Uint8x3Webgl,
            },
            LayoutRuleError::Overflow { index: 0 },
            LayoutRuleError::DuplicateName {
                first: 0,
                second: 1,
            },
        ] {
            let m = e.message();
            assert!(m.starts_with(|c: char| c.is_lowercase()), "{m}");
        }
    }
}
