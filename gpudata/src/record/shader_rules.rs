//! The agreement rules between one host value and one WGSL value, as `const fn`s shared by the
//! compile-time shader check (`derive_support::shader`, `derive_support::shader_tree`) and the
//! run-time one (`gpudata::check`): which WGSL type stores a format, which vertex input a format
//! feeds (WebGPU's rule, as wgpu applies it), and what to do about a misplaced member.

use crate::format::{PrimitiveType, ShaderType, VertexFormat};
use crate::layout::AddressSpace;

/// Whether a storage struct member of WGSL type `shader` stores a field of `format`: its WGSL
/// carrier ([`VertexFormat::wgsl_carrier`]: `f32`/`i32`/`u32`/`vecN` for 32-bit formats, one
/// `u32` or a `vec2<u32>` of raw bits otherwise), or, for `float16x2`/`float16x4`, the `f16`
/// vector of the same bits and layout.
#[must_use]
pub const fn storage_accepts(format: VertexFormat, shader: ShaderType) -> bool {
    let carrier = format.wgsl_carrier();
    let same_carrier = carrier.components() == shader.components()
        && carrier.primitive() as u8 == shader.primitive() as u8;
    let f16_vector = matches!(shader.primitive(), PrimitiveType::F16)
        && matches!(
            (format, shader.components()),
            (VertexFormat::Float16x2, 2) | (VertexFormat::Float16x4, 4)
        );
    same_carrier || f16_vector
}

/// What a vertex attribute of one format does to the shader input it feeds, by WebGPU's rules
/// as wgpu applies them ([`vertex_feed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexFeed {
    /// The input reads the attribute.
    Accepted,
    /// A `-webgl` format: wgpu cannot fetch it at all.
    Unfetchable,
    /// The input is not a scalar or vector of `f32`, `f16`, `i32` or `u32`.
    NotNumeric,
    /// The format's scalar kind (float, sint or uint) is not the input's.
    KindDiffers,
}

/// The scalar kind a value of `primitive` has in WebGPU's vertex rules: float (`f32`, `f16`),
/// sint (`i32`) or uint (`u32`).
const fn scalar_kind(primitive: PrimitiveType) -> u8 {
    match primitive {
        PrimitiveType::F32 | PrimitiveType::F16 => 0,
        PrimitiveType::I32 => 1,
        PrimitiveType::U32 => 2,
    }
}

/// What a vertex attribute of `format` does to a shader input of type `shader` (`None`: not a
/// numeric scalar or vector): WebGPU's rule as wgpu-core 30 applies it
/// (`validation.rs`, `check_stage`): only the scalar **kind** is compared. Unorm, snorm, float16
/// and float32 formats deliver floats, sint formats `i32`, uint formats `u32`; an `f16` input is
/// a float input, fed by any float format. Component counts need not agree (missing components
/// read as 0, 0, 0, 1; extra ones are dropped), nor widths. The one rule both the derive's
/// `vertex_entry` check and [`Shader::check_vertex_state`](crate::check::Shader::check_vertex_state)
/// apply.
#[must_use]
pub const fn vertex_feed(format: VertexFormat, shader: Option<ShaderType>) -> VertexFeed {
    if format.is_webgl_only() {
        return VertexFeed::Unfetchable;
    }
    let Some(shader) = shader else {
        return VertexFeed::NotNumeric;
    };
    if scalar_kind(format.vertex_input_type().primitive()) == scalar_kind(shader.primitive()) {
        VertexFeed::Accepted
    } else {
        VertexFeed::KindDiffers
    }
}

/// The formats that feed an input of `shader`'s scalar kind, for messages.
#[must_use]
pub const fn vertex_formats_of(shader: PrimitiveType) -> &'static str {
    match shader {
        PrimitiveType::F32 | PrimitiveType::F16 => "a float, unorm or snorm format",
        PrimitiveType::I32 => "a sint format",
        PrimitiveType::U32 => "a uint format",
    }
}

/// The scalar type a format delivers to a vertex shader (`f32`, `i32`, `u32`), for messages.
#[must_use]
pub const fn vertex_scalar_name(format: VertexFormat) -> &'static str {
    format.vertex_input_type().primitive().as_str()
}

/// What to do about a member the host places at `host` and the shader at `shader`.
#[must_use]
pub const fn offset_hint(host: u64, shader: u64) -> &'static str {
    if host < shader {
        "insert a #[gpu(padding)] field before it, or reorder the fields"
    } else {
        "the shader places it earlier: reorder the fields, or give the wgsl member an @align"
    }
}

/// The WGSL spelling of `ty` (`f32`, `vec3<f32>`), for `const` messages.
#[must_use]
pub const fn type_name(ty: ShaderType) -> &'static str {
    const NAMES: [[&str; 4]; 4] = [
        ["f32", "vec2<f32>", "vec3<f32>", "vec4<f32>"],
        ["f16", "vec2<f16>", "vec3<f16>", "vec4<f16>"],
        ["i32", "vec2<i32>", "vec3<i32>", "vec4<i32>"],
        ["u32", "vec2<u32>", "vec3<u32>", "vec4<u32>"],
    ];
    let row = match ty.primitive() {
        PrimitiveType::F32 => 0,
        PrimitiveType::F16 => 1,
        PrimitiveType::I32 => 2,
        PrimitiveType::U32 => 3,
    };
    NAMES[row][ty.components() as usize - 1]
}

/// One vertex entry point a derived struct was checked against (`#[gpu(vertex_entry = "...")]`):
/// the shader file, the entry point and every input it reads, as the derive found them.
/// [`GpuStruct::VERTEX_ENTRIES`](crate::GpuStruct::VERTEX_ENTRIES) holds them, and
/// [`check_vertex_set!`](crate::check_vertex_set) reads them to check a whole vertex state.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct VertexEntry {
    /// The shader file's path, as the derive resolved it.
    pub shader: &'static str,
    /// The entry point's name.
    pub entry: &'static str,
    /// Every input the entry point reads.
    pub inputs: &'static [EntryInput],
}

/// One input of a [`VertexEntry`]: its location, the name it is declared with and where.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct EntryInput {
    /// `@location(N)`.
    pub location: u32,
    /// The input's name (`position`, or `in.position` for a struct member).
    pub name: &'static str,
    /// Where the input is declared (`file.wgsl:12:5`).
    pub at: &'static str,
}

/// Whether a host struct of `host` bytes, laid out under `space`'s rules, holds a WGSL struct of
/// `shader` bytes: equal sizes, or, in the uniform address space, the WGSL size rounded up to 16
/// (what a host `wgsl-uniform` struct measures: the bytes a struct member takes in a uniform
/// buffer). A binding of the larger value is valid WebGPU (a binding may be larger than the
/// shader reads), so the check accepts it. Array strides are compared exactly elsewhere.
#[must_use]
pub const fn struct_size_agrees(space: AddressSpace, host: u64, shader: u64) -> bool {
    host == shader
        || (matches!(space, AddressSpace::Uniform) && one_value_size_agrees(host, shader))
}

/// Whether host rows of `host` bytes hold the one WGSL value of `shader` bytes a global reads
/// (a struct global, not an array of them, whose stride would have to match): equal, or the
/// WGSL size rounded up to 16, what a host `wgsl-uniform` struct measures; the larger binding is
/// valid WebGPU.
#[must_use]
pub const fn one_value_size_agrees(host: u64, shader: u64) -> bool {
    host == shader || host == shader.next_multiple_of(16)
}
