//! [`GpuDataStructFormat`]: named fixed-width fields per row, with offsets and stride.

use std::borrow::Cow;

use super::limits::{DeclarationLimits, take_bounded};
use super::rules::{LayoutCursor, LayoutRuleError, RowShape, StructLayout};
use crate::format::VertexFormat;
use crate::layout::{LayoutError, check_field_name};

/// One field of a [`GpuDataStructFormat`]: name, format and byte offset in the row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuDataStructField {
    name: Cow<'static, str>,
    format: VertexFormat,
    byte_offset: u64,
}

impl GpuDataStructField {
    /// A field with a `'static` name; `const`, for the derive's expansion. The offset is trusted:
    /// use [`GpuDataStructFormat::new`] to compute offsets.
    #[doc(hidden)]
    #[must_use]
    pub const fn from_static(
        name: &'static str,
        format: VertexFormat,
        byte_offset: u64,
    ) -> GpuDataStructField {
        GpuDataStructField {
            name: Cow::Borrowed(name),
            format,
            byte_offset,
        }
    }

    /// A field at an offset placed by WGSL's memory model (type-tree lowering).
    pub(super) fn new_placed(name: String, format: VertexFormat, byte_offset: u64) -> Self {
        GpuDataStructField {
            name: Cow::Owned(name),
            format,
            byte_offset,
        }
    }

    /// The field name; `const`, so `T::FORMAT.fields()[i].name()` works in `const` items.
    #[must_use]
    pub const fn name(&self) -> &str {
        match &self.name {
            Cow::Borrowed(name) => name,
            Cow::Owned(name) => name.as_str(),
        }
    }

    /// The field's vertex format.
    #[must_use]
    pub const fn format(&self) -> VertexFormat {
        self.format
    }

    /// Byte offset from the start of the row.
    #[must_use]
    pub const fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// Bytes of the field's payload (the format's byte length, not its carrier's size).
    #[must_use]
    pub const fn byte_length(&self) -> u64 {
        self.format.byte_length()
    }

    /// One past the last payload byte.
    #[must_use]
    pub const fn byte_end(&self) -> u64 {
        self.byte_offset + self.format.byte_length()
    }
}

/// Several named fixed-width fields stored in each row, laid out by one [`StructLayout`].
///
/// Corresponds to luma.gl's `GPUDataStructFormat`: fields in declaration order, total
/// components, row byte length (through the end of the last payload) and byte stride (trailing
/// padding included). Build one at run time with [`GpuDataStructFormat::new`] or
/// [`GpuDataStructFormat::parse`], or at compile time with `#[derive(GpuStruct)]`; both place
/// fields with the same [`LayoutCursor`].
///
/// ```
/// use gpudata::{GpuDataStructFormat, StructLayout};
///
/// let format = GpuDataStructFormat::parse(
///     StructLayout::Packed,
///     [("tag", "uint8"), ("pair", "uint8x2"), ("color", "unorm8x4"), ("position", "float32x3")],
/// )?;
/// let offsets: Vec<u64> = format.fields().iter().map(|f| f.byte_offset()).collect();
/// assert_eq!(offsets, [0, 2, 4, 8]);
/// assert_eq!((format.row_byte_length(), format.byte_stride()), (20, 20));
/// # Ok::<(), gpudata::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuDataStructFormat {
    layout: StructLayout,
    fields: Cow<'static, [GpuDataStructField]>,
    shape: RowShape,
}

impl GpuDataStructFormat {
    /// Lays out `fields` (name and format, in declaration order) under `layout`, at most
    /// [`DeclarationLimits::MAX_FIELDS`] of them ([`with_limits`](Self::with_limits) takes
    /// other bounds).
    ///
    /// # Errors
    /// [`LayoutError::TooManyFields`], [`LayoutError::NoFields`],
    /// [`LayoutError::InvalidFieldName`] (a name that is not a field path: `position`,
    /// `lights[1].color`), [`LayoutError::DuplicateField`], [`LayoutError::WebglOnlyInPacked`],
    /// [`LayoutError::Overflow`].
    pub fn new<N>(
        layout: StructLayout,
        fields: impl IntoIterator<Item = (N, VertexFormat)>,
    ) -> Result<GpuDataStructFormat, LayoutError>
    where
        N: Into<Cow<'static, str>>,
    {
        GpuDataStructFormat::with_limits(layout, fields, &DeclarationLimits::DEFAULT)
    }

    /// [`new`](Self::new) with at most `limits.max_fields` fields: the iterator is read only
    /// that far, so an oversized declaration is refused before its fields are laid out.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_limits<N>(
        layout: StructLayout,
        fields: impl IntoIterator<Item = (N, VertexFormat)>,
        limits: &DeclarationLimits,
    ) -> Result<GpuDataStructFormat, LayoutError>
    where
        N: Into<Cow<'static, str>>,
    {
        let declared = take_bounded(fields, limits.max_fields);
        if declared.len() > limits.max_fields {
            return Err(LayoutError::TooManyFields {
                max: limits.max_fields,
            });
        }
        let declared: Vec<(Cow<'static, str>, VertexFormat)> = declared
            .into_iter()
            .map(|(name, format)| (name.into(), format))
            .collect();
        GpuDataStructFormat::lay_out(layout, declared)
    }

    /// Places `declared` (already within its limits).
    fn lay_out(
        layout: StructLayout,
        declared: Vec<(Cow<'static, str>, VertexFormat)>,
    ) -> Result<GpuDataStructFormat, LayoutError> {
        check_field_names(declared.iter().map(|(n, _)| n.as_ref()))?;
        let name_of = |index: usize| declared[index].0.as_ref().to_owned();
        if let Some((first, second)) = first_duplicate(declared.iter().map(|(n, _)| n.as_ref())) {
            return Err(LayoutError::from_rule(
                LayoutRuleError::DuplicateName { first, second },
                name_of,
            ));
        }
        let mut cursor = LayoutCursor::new(layout);
        let mut offsets = Vec::with_capacity(declared.len());
        for (_, format) in &declared {
            offsets.push(
                cursor
                    .place(*format)
                    .map_err(|e| LayoutError::from_rule(e, name_of))?,
            );
        }
        let shape = cursor
            .finish()
            .map_err(|e| LayoutError::from_rule(e, name_of))?;
        let fields = declared
            .into_iter()
            .zip(offsets)
            .map(|((name, format), byte_offset)| GpuDataStructField {
                name,
                format,
                byte_offset,
            })
            .collect::<Vec<_>>();
        Ok(GpuDataStructFormat {
            layout,
            fields: Cow::Owned(fields),
            shape,
        })
    }

    /// Lays out fields declared as strings (`("position", "float32x3")`), at most
    /// [`DeclarationLimits::MAX_FIELDS`] of them.
    ///
    /// # Errors
    /// [`LayoutError::TooManyFields`], [`LayoutError::UnknownFormat`] naming the field and the
    /// string, then as [`new`](Self::new).
    pub fn parse<'a>(
        layout: StructLayout,
        fields: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<GpuDataStructFormat, LayoutError> {
        GpuDataStructFormat::parse_with_limits(layout, fields, &DeclarationLimits::DEFAULT)
    }

    /// [`parse`](Self::parse) with at most `limits.max_fields` fields, refused before any
    /// format string is read.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with_limits<'a>(
        layout: StructLayout,
        fields: impl IntoIterator<Item = (&'a str, &'a str)>,
        limits: &DeclarationLimits,
    ) -> Result<GpuDataStructFormat, LayoutError> {
        let declared = take_bounded(fields, limits.max_fields);
        if declared.len() > limits.max_fields {
            return Err(LayoutError::TooManyFields {
                max: limits.max_fields,
            });
        }
        let parsed = declared
            .into_iter()
            .map(|(name, format)| {
                VertexFormat::from_name(format)
                    .map(|f| (Cow::Owned(name.to_owned()), f))
                    .ok_or_else(|| LayoutError::UnknownFormat {
                        field: name.to_owned(),
                        format: format.to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        GpuDataStructFormat::lay_out(layout, parsed)
    }

    /// A format from fields and totals computed in a `const` item; the derive's expansion calls
    /// this with the output of [`layout_formats`](super::layout_formats).
    #[doc(hidden)]
    #[must_use]
    pub const fn from_static(
        layout: StructLayout,
        fields: &'static [GpuDataStructField],
        shape: RowShape,
    ) -> GpuDataStructFormat {
        GpuDataStructFormat {
            layout,
            fields: Cow::Borrowed(fields),
            shape,
        }
    }

    /// A format whose fields were placed by WGSL's memory model (type-tree lowering): names
    /// checked for duplicates, offsets and totals trusted.
    pub(super) fn from_placed(
        layout: StructLayout,
        fields: Vec<GpuDataStructField>,
        shape: RowShape,
    ) -> Result<GpuDataStructFormat, LayoutError> {
        if fields.is_empty() {
            return Err(LayoutError::NoFields);
        }
        check_field_names(fields.iter().map(GpuDataStructField::name))?;
        if let Some((first, second)) = first_duplicate(fields.iter().map(GpuDataStructField::name))
        {
            return Err(LayoutError::DuplicateField {
                field: fields[second].name().to_owned(),
                first,
                second,
            });
        }
        Ok(GpuDataStructFormat {
            layout,
            fields: Cow::Owned(fields),
            shape,
        })
    }

    /// The layout rules.
    #[must_use]
    pub const fn layout(&self) -> StructLayout {
        self.layout
    }

    /// Fields in declaration order; `const`, so a derived struct's fields can be read in `const`
    /// items (`T::FORMAT.fields()[1].byte_offset()`).
    #[must_use]
    pub const fn fields(&self) -> &[GpuDataStructField] {
        match &self.fields {
            Cow::Borrowed(fields) => fields,
            Cow::Owned(fields) => fields.as_slice(),
        }
    }

    /// The field called `name`, with its index.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<(usize, &GpuDataStructField)> {
        self.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name() == name)
    }

    /// Scalar components in one row.
    #[must_use]
    pub const fn components(&self) -> u32 {
        self.shape.components
    }

    /// Bytes through the end of the last field's payload, without trailing padding.
    #[must_use]
    pub const fn row_byte_length(&self) -> u64 {
        self.shape.row_byte_length
    }

    /// Bytes between adjacent rows, trailing padding included.
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.shape.byte_stride
    }

    /// The row's alignment in bytes (4 for packed; the largest carrier alignment for
    /// wgsl-storage).
    #[must_use]
    pub const fn alignment(&self) -> u64 {
        self.shape.alignment
    }

    /// The row totals.
    #[must_use]
    pub const fn shape(&self) -> RowShape {
        self.shape
    }

    /// Byte ranges inside one stride that no field's payload covers, in order: `(offset, len)`.
    #[must_use]
    pub fn padding(&self) -> Vec<(u64, u64)> {
        let mut covered: Vec<(u64, u64)> = self
            .fields
            .iter()
            .map(|f| (f.byte_offset(), f.byte_end()))
            .collect();
        covered.sort_unstable();
        let mut gaps = Vec::new();
        let mut at = 0;
        for (start, end) in covered {
            if start > at {
                gaps.push((at, start - at));
            }
            at = at.max(end);
        }
        if self.byte_stride() > at {
            gaps.push((at, self.byte_stride() - at));
        }
        gaps
    }
}

/// The first repeated name: `(first, second)` where `second` is the lowest index whose name an
/// earlier index `first` already has, in one pass over a hash map, so that run-time declarations
/// of any size are checked in linear time (struct fields here, buffer layout attributes in
/// `BufferLayout::to_wgpu`). The derive checks its field names at macro time.
pub(super) fn first_duplicate<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Option<(usize, usize)> {
    let names = names.into_iter();
    let mut seen = std::collections::HashMap::with_capacity(names.size_hint().0);
    names
        .enumerate()
        .find_map(|(second, name)| seen.insert(name, second).map(|first| (first, second)))
}

/// The first name of `names` that breaks the field-name rule, as
/// [`LayoutError::InvalidFieldName`].
fn check_field_names<'a>(mut names: impl Iterator<Item = &'a str>) -> Result<(), LayoutError> {
    names.try_for_each(|name| {
        check_field_name(name).map_err(|problem| LayoutError::InvalidFieldName {
            field: name.to_owned(),
            problem,
        })
    })
}
