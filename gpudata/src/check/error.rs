//! The check area's errors: [`ShaderCheckError`] (a check that could not run, or found
//! disagreements) and [`MismatchError`] (one disagreement between the host and the shader),
//! carried with its field path and WGSL position in a [`ShaderMismatch`].

use std::fmt;

use crate::count::Count;
use crate::format::VertexFormat;
use crate::layout::LayoutError;
use crate::record::shader_rules::{offset_hint, vertex_scalar_name};
pub use gpudata_names::WgslBound;

/// A line and column of the WGSL source (both from 1), from naga's spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgslLocation {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

impl fmt::Display for WgslLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One disagreement: the host field or shader input it is about (`velocity`,
/// `particles[].velocity`, `location 2`), where the shader declares it, and what differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderMismatch {
    /// The field path on the host side, or the shader's name for what the host lacks.
    pub path: String,
    /// The WGSL line and column of the shader's declaration, when the shader has one.
    pub location: Option<WgslLocation>,
    /// What differs.
    pub error: MismatchError,
}

impl fmt::Display for ShaderMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_mismatch(f, &self.path, self.location, &self.error)
    }
}

/// One mismatch's line: `` `path` (wgsl line:column): error `` (the position when known).
pub(super) fn write_mismatch(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    location: Option<WgslLocation>,
    error: &dyn fmt::Display,
) -> fmt::Result {
    write!(f, "`{path}`")?;
    if let Some(at) = location {
        write!(f, " (wgsl {at})")?;
    }
    write!(f, ": {error}")
}

/// The mismatches of one check, one per line, for [`ShaderCheckError::Mismatches`] (and the
/// bind group check's).
pub(super) struct Lines<'a, T>(pub(super) &'a [T]);

impl<T: fmt::Display> fmt::Display for Lines<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for mismatch in self.0 {
            write!(f, "\n  {mismatch}")?;
        }
        Ok(())
    }
}

/// A host struct, vertex layout or table binding and a WGSL shader that cannot be compared, or
/// that disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShaderCheckError {
    /// The WGSL text does not parse.
    #[error("wgsl does not parse at {line}:{column}: {message}")]
    Parse {
        /// The line of naga's first label, from 1 (0 when naga gives no position).
        line: u32,
        /// Its column, from 1.
        column: u32,
        /// naga's message.
        message: String,
    },
    /// The WGSL text passes one of the bounds gpudata holds it to before naga reads it: naga's
    /// reader recurses once per level of an expression (a sum of 10,000 terms is 10,000 levels),
    /// and a deep enough one would overflow the stack and abort the process.
    #[error("wgsl at {line}:{column} is past gpudata's bound on what naga reads: {bound}")]
    TooComplex {
        /// The bound passed.
        bound: WgslBound,
        /// The line where the expression, statement or declaration passing it starts (or
        /// the bracket), from 1.
        line: u32,
        /// Its column, from 1.
        column: u32,
    },
    /// The shader declares no struct of that name.
    #[error("the shader declares no struct `{name}`")]
    MissingStruct {
        /// The name asked for.
        name: String,
    },
    /// The shader has no vertex entry point of that name.
    #[error("the shader has no vertex entry point `{name}`")]
    MissingEntryPoint {
        /// The name asked for.
        name: String,
    },
    /// The shader has no compute entry point of that name (for
    /// [`Shader::workgroup_size`](super::Shader::workgroup_size) and
    /// [`Shader::workgroups`](super::Shader::workgroups)).
    #[error("the shader has no compute entry point `{name}`")]
    MissingComputeEntryPoint {
        /// The name asked for.
        name: String,
    },
    /// The compute entry point sizes its workgroup with `override` constants, which the
    /// pipeline sets: the shader alone does not say the size.
    #[error(
        "compute entry point `{name}` sizes its workgroup with override constants, which only the pipeline's constants settle: give @workgroup_size literal or const sizes"
    )]
    OverrideWorkgroupSize {
        /// The entry point.
        name: String,
    },
    /// More workgroups than the device dispatches in one dimension.
    #[error(
        "`{entry}` runs {workgroup_size} invocations a workgroup, so {invocations} invocations need {workgroups} workgroups, past the device's max_compute_workgroups_per_dimension ({limit}): dispatch in parts, or use larger workgroups"
    )]
    TooManyWorkgroups {
        /// The entry point.
        entry: String,
        /// The invocations asked for.
        invocations: u32,
        /// Its workgroup's size along x.
        workgroup_size: u32,
        /// The workgroups they need.
        workgroups: u32,
        /// The device's limit.
        limit: u32,
    },
    /// The shader declares no global variable of that name.
    #[error("the shader declares no global `{name}`")]
    MissingGlobal {
        /// The name asked for.
        name: String,
    },
    /// The host type tree has no layout under the address space's rules.
    #[error("the host declaration has no layout: {0}")]
    HostLayout(#[from] LayoutError),
    /// The check ran and found disagreements, all of them listed.
    #[error("{subject} disagrees with the shader in {count}:{}", Lines(.mismatches), count = Count(.mismatches.len(), "place"))]
    Mismatches {
        /// What was checked (`struct Particle`, `vertex entry vs_main`, `global particles`).
        subject: String,
        /// Every disagreement found, in declaration order.
        mismatches: Vec<ShaderMismatch>,
    },
}

/// One way a host declaration and a WGSL declaration disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MismatchError {
    /// A struct member sits at another byte offset.
    #[error("host offset {host}, shader offset {shader} ({shader_type} aligns to {align}); {}", offset_hint(*.host, *.shader))]
    Offset {
        /// The host field's offset.
        host: u64,
        /// The shader member's offset.
        shader: u64,
        /// The shader member's WGSL type.
        shader_type: String,
        /// Its WGSL alignment.
        align: u64,
    },
    /// A struct member has a WGSL type that does not store the host field's format.
    #[error(
        "host format {format} is stored as {carrier}, the shader declares {shader_type}; declare the member as {carrier} or change the field's type"
    )]
    Type {
        /// The host field's format.
        format: VertexFormat,
        /// The WGSL type that stores it (`VertexFormat::wgsl_carrier`).
        carrier: String,
        /// The shader member's WGSL type.
        shader_type: String,
    },
    /// A member of a host type tree has another WGSL type than the shader's member (a leaf, an
    /// array's element type or count, or a struct where the other side has none).
    #[error(
        "host type {host}, the shader declares {shader_type}; declare the same type on both sides"
    )]
    DeclType {
        /// The host member's WGSL type.
        host: String,
        /// The shader member's WGSL type.
        shader_type: String,
    },
    /// A host field has no member of its name in the shader struct.
    #[error(
        "the shader struct `{shader_struct}` has no member of this name; add it to the wgsl, rename the field with #[gpu(name = \"...\")], or make it #[gpu(padding)]"
    )]
    MissingInShader {
        /// The shader struct.
        shader_struct: String,
    },
    /// A shader struct member has no host field of its name.
    #[error(
        "the shader member ({shader_type} at offset {offset}) has no host field; add one, or rename a field with #[gpu(name = \"...\")]"
    )]
    MissingOnHost {
        /// The member's WGSL type.
        shader_type: String,
        /// Its offset.
        offset: u64,
    },
    /// The host row's stride differs from the shader struct's size (or array stride).
    #[error("host stride {host_bytes}, shader stride {shader_bytes}; make the last fields agree or set #[gpu(stride = {shader})]", host_bytes = Count(*.host, "byte"), shader_bytes = Count(*.shader, "byte"))]
    Stride {
        /// The host byte stride.
        host: u64,
        /// The shader's struct size or array stride.
        shader: u64,
    },
    /// A vertex shader input is fed by no attribute of the host buffers.
    #[error("the shader reads {shader_type} at location {location}, which no host attribute feeds")]
    UnfedInput {
        /// The input's location.
        location: u32,
        /// Its WGSL type.
        shader_type: String,
    },
    /// A host attribute's format delivers another scalar kind than the shader input reads
    /// (WebGPU's one rule, as wgpu applies it: float, unorm, snorm and float16 formats deliver
    /// floats, read by `f32` and `f16` inputs; sint formats `i32`; uint formats `u32`; component
    /// counts may differ).
    #[error(
        "location {location}: {format} delivers {delivers}, `{input}` reads {shader_type}; a vertex input reads the scalar kind its format delivers: feed it a format of its kind (float, unorm or snorm for f32 and f16; sint for i32; uint for u32) or declare it with {} components", vertex_scalar_name(*.format)
    )]
    InputKind {
        /// The location.
        location: u32,
        /// The host format.
        format: VertexFormat,
        /// What the format delivers to a shader (`VertexFormat::vertex_input_type`).
        delivers: String,
        /// The shader input, as `entry(name)`.
        input: String,
        /// The input's WGSL type.
        shader_type: String,
    },
    /// Two host attributes feed one location.
    #[error(
        "location {location} is fed twice, first by `{first}`; give each attribute its own location"
    )]
    DuplicateLocation {
        /// The location.
        location: u32,
        /// The attribute that fed it first.
        first: String,
    },
    /// The shader input at an attribute's location has another name (checked for tables, whose
    /// columns are bound by name).
    #[error(
        "the shader input at location {location} is named `{input}`; name the column or the input alike"
    )]
    InputName {
        /// The location.
        location: u32,
        /// The shader input's name.
        input: String,
    },
    /// A global sits at another `@group`/`@binding`.
    #[error(
        "host binds @group({group}) @binding({binding}), the shader declares @group({shader_group}) @binding({shader_binding})"
    )]
    Binding {
        /// The host's group.
        group: u32,
        /// The host's binding.
        binding: u32,
        /// The shader's group.
        shader_group: u32,
        /// The shader's binding.
        shader_binding: u32,
    },
    /// The host binds nothing where the shader declares a global, or the shader declares nothing
    /// where the host binds.
    #[error("the shader declares no buffer at @group({group}) @binding({binding})")]
    NoBinding {
        /// The group.
        group: u32,
        /// The binding.
        binding: u32,
    },
    /// A global is in an address space the host does not bind it as.
    #[error("the host binds a {host} buffer, the shader declares var<{shader}>")]
    AddressSpace {
        /// What the host binds (`uniform`, `storage, read`, `uniform or storage`).
        host: String,
        /// The shader's address space.
        shader: String,
    },
    /// A global's type holds no struct rows of the host type.
    #[error(
        "the shader declares {shader_type}, which holds no rows of a struct; declare a struct, an array of one, or a struct ending in a runtime-sized array of one"
    )]
    GlobalType {
        /// The global's WGSL type.
        shader_type: String,
    },
    /// The host binds fewer bytes than the shader's type needs.
    #[error("the host binds {bound_bytes}, the shader's {shader_type} needs at least {required_bytes}", bound_bytes = Count(*.bound, "byte"), required_bytes = Count(*.required, "byte"))]
    BindingSize {
        /// Bytes bound.
        bound: u64,
        /// Bytes the shader's type needs (its size; one element of a runtime-sized array).
        required: u64,
        /// The global's WGSL type.
        shader_type: String,
    },
    /// A vertex buffer's layout breaks one of WebGPU's rules for a vertex buffer layout: its
    /// stride not a multiple of 4 ([`LayoutError::MisalignedStride`]), an attribute unaligned
    /// ([`LayoutError::MisalignedAttribute`]), past the stride
    /// ([`LayoutError::AttributeOutsideStride`], [`LayoutError::AttributeBeyondStrideLimit`] for
    /// stride 0, against the device's stride limit) or of a `-webgl` format
    /// ([`LayoutError::WebglOnlyVertexAttribute`]).
    #[error(transparent)]
    VertexLayout(LayoutError),
    /// A vertex buffer's stride is past the device's `max_vertex_buffer_array_stride`.
    #[error(
        "byte stride {stride} is past the device's limit of {limit} (max_vertex_buffer_array_stride)"
    )]
    StridePastLimit {
        /// The stride.
        stride: u64,
        /// The device's limit.
        limit: u32,
    },
    /// An attribute's location is past the device's `max_vertex_attributes`.
    #[error(
        "location {location} is past the device's {limit} vertex attributes (max_vertex_attributes); use locations below {limit}"
    )]
    LocationPastLimit {
        /// The location.
        location: u32,
        /// The device's limit.
        limit: u32,
    },
    /// The vertex state has more attributes, all buffers together, than the device's
    /// `max_vertex_attributes`.
    #[error("{count_attributes} in all, past the device's limit of {limit} (max_vertex_attributes)", count_attributes = Count(*.count, "attribute"))]
    TooManyVertexAttributes {
        /// Attributes of all buffers.
        count: usize,
        /// The device's limit.
        limit: u32,
    },
    /// The vertex state has more buffers than the device's `max_vertex_buffers`, or than 16,
    /// the most wgpu 30 takes.
    #[error("{count_buffers}, past the limit of {limit} (the device's max_vertex_buffers, and at most 16 in wgpu)", count_buffers = Count(*.count, "vertex buffer"))]
    TooManyVertexBuffers {
        /// Buffers.
        count: usize,
        /// The limit: the device's, or 16.
        limit: u32,
    },
}
