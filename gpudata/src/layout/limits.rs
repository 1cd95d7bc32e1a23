//! [`DeclarationLimits`]: how large a declaration read at run time may be before it is refused,
//! counted while reading, before any per-field structure is built.

/// Bounds on declarations gpudata reads at run time: flat struct formats (field lists, parsed
/// strings, luma.gl's struct-format JSON), luma.gl shader block layouts, WGSL member lists and
/// luma.gl's composite-type JSON. A declaration over a bound is refused as soon as the count
/// passes it (a [`LayoutError`](crate::LayoutError) naming the bound), so a hostile or
/// mistaken input costs at most the bound's worth of work, not the input's.
///
/// The entry points without `_with_limits` in their name use [`DeclarationLimits::DEFAULT`];
/// their `_with_limits` twins take your own:
///
/// ```
/// use gpudata::layout::DeclarationLimits;
/// use gpudata::{GpuDataStructFormat, LayoutError, StructLayout, VertexFormat};
///
/// let fields = |n: usize| (0..n).map(|i| (format!("f{i}"), VertexFormat::Float32));
/// let too_many = GpuDataStructFormat::new(StructLayout::Packed, fields(70_000));
/// assert!(matches!(too_many, Err(LayoutError::TooManyFields { max: 65_536 })));
///
/// let limits = DeclarationLimits { max_fields: 100_000, ..DeclarationLimits::DEFAULT };
/// let format = GpuDataStructFormat::with_limits(StructLayout::Packed, fields(70_000), &limits)?;
/// assert_eq!(format.byte_stride(), 280_000);
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeclarationLimits {
    /// The most fields of a flat struct format ([`GpuDataStructFormat`](crate::GpuDataStructFormat))
    /// and leaves of a [`ShaderBlockLayout`](super::ShaderBlockLayout). Default
    /// [`MAX_FIELDS`](Self::MAX_FIELDS).
    pub max_fields: usize,
    /// The most members of one WGSL struct ([`StructDecl`](super::StructDecl)). Default
    /// [`MAX_MEMBERS`](Self::MAX_MEMBERS).
    pub max_members: usize,
    /// The deepest nesting of arrays and structs in one member's type (`array<array<f32, 2>, 2>`
    /// nests 2 deep). Default [`MAX_DEPTH`](Self::MAX_DEPTH). Reading and laying out a type
    /// recurses once per level: a bound in the thousands risks the thread's stack.
    pub max_depth: usize,
}

impl DeclarationLimits {
    /// 65,536 fields: one per byte of the largest uniform buffer binding WebGPU's default limits
    /// allow (`maxUniformBufferBindingSize`, 64 KiB). A flattened uniform block (luma.gl names
    /// every leaf, `lights[3].color`) has at most 32,768 leaves there (2 bytes each, `f16`), and
    /// a vertex or storage row of more fields than that is not a row anyone binds; WGSL's 1023
    /// does not apply, since flat formats are luma.gl's and name leaves of nested types.
    pub const MAX_FIELDS: usize = 65_536;
    /// 1023 members: WGSL's own limit on the members of one structure type (the WGSL
    /// specification's "Limits" section); a longer struct is not valid WGSL.
    pub const MAX_MEMBERS: usize = 1023;
    /// 15 levels: WGSL's own limit on the nesting depth of a composite type (the WGSL
    /// specification's "Limits" section).
    pub const MAX_DEPTH: usize = 15;

    /// The defaults: [`MAX_FIELDS`](Self::MAX_FIELDS), [`MAX_MEMBERS`](Self::MAX_MEMBERS),
    /// [`MAX_DEPTH`](Self::MAX_DEPTH).
    pub const DEFAULT: DeclarationLimits = DeclarationLimits {
        max_fields: Self::MAX_FIELDS,
        max_members: Self::MAX_MEMBERS,
        max_depth: Self::MAX_DEPTH,
    };
}

impl Default for DeclarationLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// At most `max + 1` items of `items` in a vector (`max + 1` tells the caller there were more),
/// so that refusing an oversized declaration costs the bound, not the input.
pub(crate) fn take_bounded<T>(items: impl IntoIterator<Item = T>, max: usize) -> Vec<T> {
    let items = items.into_iter();
    let bound = max.saturating_add(1);
    let mut out = Vec::with_capacity(items.size_hint().0.min(bound));
    out.extend(items.take(bound));
    out
}
