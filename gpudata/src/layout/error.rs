//! The layout area's errors: [`LayoutError`] (struct formats and buffer layouts that cannot be
//! built) and [`WgslError`] (struct formats WGSL cannot declare).

use crate::count::Count;
use crate::format::VertexFormat;
use crate::layout::{FieldNameProblem, LayoutRuleError, TypeRuleError};

/// A struct format or buffer layout that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The layout string is not `wgsl-storage`, `wgsl-uniform` or `packed`.
    #[error(
        "unknown struct layout `{layout}`: expected `wgsl-storage`, `wgsl-uniform` or `packed`"
    )]
    UnknownLayout {
        /// The string given.
        layout: String,
    },
    /// The step mode string is not `vertex` or `instance`.
    #[error("unknown step mode `{step_mode}`: expected `vertex` or `instance`")]
    UnknownStepMode {
        /// The string given.
        step_mode: String,
    },
    /// A field's format string names no vertex format.
    #[error("field `{field}` has unsupported vertex format `{format}`")]
    UnknownFormat {
        /// The field.
        field: String,
        /// The string given.
        format: String,
    },
    /// The struct declares no field.
    #[error("a gpu struct format must declare at least one field")]
    NoFields,
    /// A field name that is not a field path (see [`FieldNameProblem`]).
    #[error(
        "field name {field:?} is not a field path: expected identifiers joined by `.`, each with optional `[N]` indices (`position`, `lights[1].color`), found {problem}"
    )]
    InvalidFieldName {
        /// The name.
        field: String,
        /// What is wrong with it, and where.
        problem: FieldNameProblem,
    },
    /// Two fields share a name.
    #[error("duplicate field `{field}`: fields {first} and {second} share the name")]
    DuplicateField {
        /// The name.
        field: String,
        /// Position of the first.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A packed struct holds a `-webgl` format.
    #[error(
        "packed struct field `{field}` uses WebGL-only format `{format}`: the packed layout follows WebGPU vertex rules; use a 4-component format or the wgsl-storage layout"
    )]
    WebglOnlyInPacked {
        /// The field.
        field: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Offsets overflow `u64`.
    #[error("struct offsets overflow at field `{field}`")]
    Overflow {
        /// The field being placed.
        field: String,
    },
    /// A buffer layout has neither attributes nor a format.
    #[error("buffer layout `{layout}` has no attributes and no format")]
    NoAttributes {
        /// The layout name.
        layout: String,
    },
    /// An interleaved buffer layout has no byte stride.
    #[error("buffer layout `{layout}` requires a byte stride for interleaved attributes")]
    NoByteStride {
        /// The layout name.
        layout: String,
    },
    /// A vertex buffer stride that is not a multiple of 4.
    #[error(
        "buffer layout `{layout}` has byte stride {byte_stride}: wgpu vertex strides must be a multiple of 4"
    )]
    MisalignedStride {
        /// The layout name.
        layout: String,
        /// The stride.
        byte_stride: u64,
    },
    /// An attribute offset not aligned to `min(4, byte length)`.
    #[error(
        "attribute `{attribute}` at byte offset {byte_offset}: vertex attributes must be aligned to {alignment_bytes}",
        alignment_bytes = Count(*.alignment, "byte")
    )]
    MisalignedAttribute {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// The required alignment.
        alignment: u64,
    },
    /// An attribute that ends past the stride.
    #[error(
        "attribute `{attribute}` spans bytes {byte_offset}..{byte_offset}+{byte_length}, past the byte stride {byte_stride}"
    )]
    AttributeOutsideStride {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// Its length.
        byte_length: u64,
        /// The stride.
        byte_stride: u64,
    },
    /// An attribute of a layout with byte stride 0 (every vertex reads the same row) that ends
    /// past the largest stride every WebGPU device accepts, the bound WebGPU puts on such reads.
    #[error(
        "attribute `{attribute}` ends at byte {end} (offset {byte_offset} plus {length_bytes}), past {max_bytes}, the most a layout with byte stride 0 may read",
        end = byte_offset.saturating_add(*byte_length),
        length_bytes = Count(*.byte_length, "byte"),
        max_bytes = Count(*.max_stride, "byte")
    )]
    AttributeBeyondStrideLimit {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// Its length.
        byte_length: u64,
        /// WebGPU's default `maxVertexBufferArrayStride`.
        max_stride: u64,
    },
    /// Two attributes of one buffer layout with the same name.
    #[error(
        "buffer layout `{layout}` names attribute `{attribute}` twice (attributes {first} and {second}): attribute names must be unique"
    )]
    DuplicateAttribute {
        /// The layout.
        layout: String,
        /// The repeated name.
        attribute: String,
        /// Position of the first.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A `-webgl` format in a wgpu vertex layout.
    #[error(
        "attribute `{attribute}` uses WebGL-only format `{format}`, which wgpu cannot fetch as a vertex attribute"
    )]
    WebglOnlyVertexAttribute {
        /// The attribute.
        attribute: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Shader locations past `u32::MAX`.
    #[error("shader locations starting at {base_location} overflow u32")]
    LocationOverflow {
        /// The first location.
        base_location: u32,
    },
    /// Values asked for their vertex layout that are not rows of fixed-width vertex formats.
    #[error(
        "`{name}` ({format}) has no vertex layout: vertex buffers hold rows of fixed-width vertex formats"
    )]
    NoVertexLayout {
        /// The data, vector or column.
        name: String,
        /// What it holds (a list format, `no format`).
        format: String,
    },
    /// A WGSL type (a member at `path`, or the whole type) breaks a rule of WGSL's memory model.
    #[error("`{path}`: {source}")]
    Type {
        /// The member path, luma.gl style (`lights[].color`), or `(root)`.
        path: String,
        /// The rule broken.
        source: TypeRuleError,
    },
    /// A type tree lowered to a row format ([`StructDecl::row_format`](super::StructDecl::row_format))
    /// with a runtime-sized array: a row has a fixed size.
    #[error(
        "member `{field}` holds a runtime-sized array, which a row format cannot: rows have a fixed size; use a fixed-size array<E, N>"
    )]
    RuntimeArrayInRow {
        /// The top-level member holding it.
        field: String,
    },
    /// A leaf of a type tree lowered to a row format that no vertex format holds.
    #[error(
        "field `{field}` is `{leaf}`, which no vertex format holds (WebGPU has no float16x3, the format of a vec3<f16> and of a matCx3<f16>'s columns), so the struct has no row format; use vec4<f16> (matCx4<f16> for a matrix), array<f16, 3> or f32 components"
    )]
    NoVertexFormat {
        /// The leaf's path (`light.color`, a matrix `m`).
        field: String,
        /// The leaf as declared (a `vec3<f16>`, or a matrix of such columns).
        leaf: crate::layout::LeafType,
    },
    /// A WGSL type string gpudata does not read.
    #[error(
        "member `{member}` has unknown WGSL type `{text}`: expected a scalar, vecN<T>, matCxR<T>, atomic<T>, a shorthand such as vec3f, or array<E, N> / array<E> of them"
    )]
    UnknownType {
        /// The member (empty for a type read alone).
        member: String,
        /// The text.
        text: String,
    },
    /// A member declaration that is not `[@align(n)] [@size(n)] name: type`.
    #[error(
        "`{text}` is not a WGSL member declaration: expected `[@align(n)] [@size(n)] name: type`"
    )]
    MemberSyntax {
        /// The declaration.
        text: String,
    },
    /// A flat struct format or shader block layout with more fields than its
    /// [`DeclarationLimits::max_fields`](crate::layout::DeclarationLimits::max_fields) allows,
    /// refused when the count passes it.
    #[error(
        "the declaration has more than {max} fields, the bound `DeclarationLimits::max_fields`: pass larger limits to the `_with_limits` form of the call (`GpuDataStructFormat::with_limits`, `GpuDataStructFormat::deserialize_with_limits`, `StructDecl::block_layout_with_limits`)"
    )]
    TooManyFields {
        /// The bound.
        max: usize,
    },
    /// A WGSL struct with more members than its
    /// [`DeclarationLimits::max_members`](crate::layout::DeclarationLimits::max_members) allows
    /// (by default WGSL's own limit), refused when the count passes it.
    #[error(
        "struct `{structure}` declares more than {max} members, the bound `DeclarationLimits::max_members` (by default WGSL's limit per struct): pass larger limits to `StructDecl::parse_with_limits` or `StructDecl::from_composite_with_limits`"
    )]
    TooManyMembers {
        /// The struct.
        structure: String,
        /// The bound.
        max: usize,
    },
    /// A member type nested deeper than its
    /// [`DeclarationLimits::max_depth`](crate::layout::DeclarationLimits::max_depth) allows (by
    /// default WGSL's own limit), refused before the deeper levels are read.
    #[error(
        "member `{member}` nests arrays and structs more than {max} levels deep, the bound `DeclarationLimits::max_depth` (by default WGSL's limit of composite nesting): pass larger limits to `StructDecl::parse_with_limits` or `StructDecl::from_composite_with_limits`"
    )]
    TooDeep {
        /// The member (empty for a type read alone).
        member: String,
        /// The bound.
        max: usize,
    },
    /// A serialized struct format whose stated numbers disagree with its fields.
    #[error("serialized struct format states {what} {found}, but its fields give {expected}")]
    Inconsistent {
        /// Which number (`byteOffset of field "a"`, `byteStride`, ...).
        what: String,
        /// What the fields give.
        expected: u64,
        /// What was stated.
        found: u64,
    },
}

impl LayoutError {
    /// Names the fields of a [`LayoutRuleError`] found by the `const fn` engine.
    pub(crate) fn from_rule(error: LayoutRuleError, name_of: impl Fn(usize) -> String) -> Self {
        match error {
            LayoutRuleError::NoFields => LayoutError::NoFields,
            LayoutRuleError::WebglOnlyInPacked { index, format } => {
                LayoutError::WebglOnlyInPacked {
                    field: name_of(index),
                    format,
                }
            }
            LayoutRuleError::Overflow { index } => LayoutError::Overflow {
                field: name_of(index),
            },
            LayoutRuleError::DuplicateName { first, second } => LayoutError::DuplicateField {
                field: name_of(second),
                first,
                second,
            },
        }
    }
}

/// A struct format that WGSL cannot declare as a storage struct.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WgslError {
    /// A struct or field name that is not a WGSL identifier.
    #[error(
        "`{name}` is not a valid WGSL identifier: expected ASCII letters, digits and `_`, not starting with a digit or `__`, and not a WGSL keyword"
    )]
    InvalidName {
        /// The name.
        name: String,
    },
    /// A struct name that is one of WGSL's predeclared names (a type, an alias such as `vec3f`,
    /// an address space or access mode, a built-in function), which the struct would shadow in
    /// the whole module.
    #[error(
        "`{name}` cannot name a WGSL struct: it is a WGSL predeclared type, address space, access mode or built-in function, which the struct would shadow in the whole module; rename the struct"
    )]
    PredeclaredName {
        /// The name.
        name: String,
    },
    /// A field whose offset is not a multiple of its carrier's alignment.
    #[error(
        "field `{field}` at byte offset {byte_offset} cannot be a WGSL storage member: its carrier `{carrier}` needs {alignment}-byte alignment"
    )]
    Misaligned {
        /// The field.
        field: String,
        /// Its offset.
        byte_offset: u64,
        /// Its WGSL carrier type.
        carrier: String,
        /// The carrier's alignment.
        alignment: u64,
    },
    /// A field at an offset WGSL's member placement cannot give it.
    #[error(
        "field `{field}` at byte offset {byte_offset} cannot be a WGSL storage member: WGSL places it at byte {wgsl_offset} or later, after the previous member's carrier"
    )]
    Unreachable {
        /// The field.
        field: String,
        /// Its offset.
        byte_offset: u64,
        /// The first offset WGSL can give it.
        wgsl_offset: u64,
    },
    /// A struct that declares one member name twice.
    #[error("struct `{structure}` declares member `{member}` twice")]
    DuplicateMember {
        /// The struct.
        structure: String,
        /// The member.
        member: String,
    },
    /// Two different structs of one type tree with the same name.
    #[error(
        "two different structs are named `{name}`: WGSL text declares each struct once, so rename one"
    )]
    ConflictingStruct {
        /// The name.
        name: String,
    },
    /// The type has no layout in the address space asked for.
    #[error("the type has no WGSL layout: {0}")]
    Layout(#[from] Box<LayoutError>),
    /// A byte stride WGSL cannot give the struct.
    #[error(
        "byte stride {byte_stride} cannot be a WGSL struct size: expected a multiple of the struct alignment {alignment} of at least {minimum}"
    )]
    Stride {
        /// The format's byte stride.
        byte_stride: u64,
        /// The struct's WGSL alignment.
        alignment: u64,
        /// The smallest size its members allow.
        minimum: u64,
    },
}
