//! The agreement rules between a host field and a WGSL declaration, as `const fn`s: the
//! compile-time shader check of `#[derive(GpuStruct)]` (`#[gpu(shader = "...", ...)]`) calls
//! them in `const` items, through `__private`, with the facts the macro read from the WGSL
//! file; the run-time check (`gpudata::check`, feature `naga`) calls the same rules, so the two
//! cannot disagree. Messages for the compile-time check are written here; the run-time check's
//! are its error enums' `#[error]` texts.

use super::private::{Analysis, Msg};
use crate::format::{GpuVectorFormat, PrimitiveType, ShaderType, VertexFormat};

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

/// Whether a vertex attribute of `format` can feed a shader input of `shader`: luma.gl's
/// `isGPUVectorFormatCompatibleWithShaderType`, [`GpuVectorFormat::is_compatible_with`].
#[must_use]
pub const fn vertex_accepts(format: VertexFormat, shader: ShaderType) -> bool {
    GpuVectorFormat::Fixed(format).is_compatible_with(shader)
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

/// A WGSL struct member as the macro read it.
#[derive(Clone, Copy, Debug)]
pub struct ShaderMember {
    /// `Struct.member`.
    pub path: &'static str,
    /// `file:line:column` of the member.
    pub at: &'static str,
    /// Its type, when it is a scalar or vector of `f32`, `f16`, `i32` or `u32`.
    pub ty: Option<ShaderType>,
    /// Its WGSL type as written by naga.
    pub type_name: &'static str,
    /// Its byte offset.
    pub offset: u64,
    /// Its alignment.
    pub align: u64,
}

/// A vertex entry point's input as the macro read it.
#[derive(Clone, Copy, Debug)]
pub struct ShaderInput {
    /// `entry(name)`.
    pub path: &'static str,
    /// `file:line:column` of the input.
    pub at: &'static str,
    /// Its `@location`.
    pub location: u32,
    /// Its type, when it is a scalar or vector of `f32`, `f16`, `i32` or `u32`.
    pub ty: Option<ShaderType>,
    /// Its WGSL type as written by naga.
    pub type_name: &'static str,
}

const fn field_head<const N: usize>(analysis: &Analysis<N>, k: usize, path: &str, at: &str) -> Msg {
    Msg::new()
        .str("field `")
        .str(analysis.names[k])
        .str("` disagrees with wgsl `")
        .str(path)
        .str("` (")
        .str(at)
        .str("): ")
}

/// Why gpu field `k` does not match the shader member `m`, or `None`.
#[must_use]
pub const fn member_problem<const N: usize>(
    analysis: &Analysis<N>,
    k: usize,
    m: &ShaderMember,
) -> Option<Msg> {
    if !analysis.valid {
        // The struct's own problem is reported; a layout of zeros would only add noise.
        return None;
    }
    let format = analysis.formats[k];
    let accepted = match m.ty {
        Some(ty) => storage_accepts(format, ty),
        None => false,
    };
    if !accepted {
        let carrier = format.wgsl_carrier();
        let carrier = type_name(ShaderType::new(carrier.primitive(), carrier.components()));
        return Some(
            field_head(analysis, k, m.path, m.at)
                .str("host format ")
                .str(format.as_str())
                .str(" is stored as ")
                .str(carrier)
                .str(", the shader declares ")
                .str(m.type_name)
                .str("; declare the member as ")
                .str(carrier)
                .str(" or change the field's type"),
        );
    }
    let host = analysis.layout.offsets[k];
    if host != m.offset {
        return Some(
            field_head(analysis, k, m.path, m.at)
                .str("host offset ")
                .num(host)
                .str(", shader offset ")
                .num(m.offset)
                .str(" (")
                .str(m.type_name)
                .str(" aligns to ")
                .num(m.align)
                .str("); ")
                .str(offset_hint(host, m.offset)),
        );
    }
    None
}

/// Why the struct's stride differs from the shader struct's size, or `None`.
#[must_use]
pub const fn stride_problem<const N: usize>(
    analysis: &Analysis<N>,
    shader_struct: &str,
    at: &str,
    size: u64,
) -> Option<Msg> {
    let host = analysis.layout.shape.byte_stride;
    if host == size || !analysis.valid {
        return None;
    }
    Some(
        Msg::new()
            .str("the struct's stride disagrees with wgsl `")
            .str(shader_struct)
            .str("` (")
            .str(at)
            .str("): host stride ")
            .num(host)
            .str(" bytes, shader size ")
            .num(size)
            .str(" bytes; make the last fields agree or set #[gpu(stride = ")
            .num(size)
            .str(")]"),
    )
}

/// Why gpu field `k`, fed to `input`'s location, cannot feed it, or `None`.
#[must_use]
pub const fn input_problem<const N: usize>(
    analysis: &Analysis<N>,
    k: usize,
    input: &ShaderInput,
) -> Option<Msg> {
    if !analysis.valid {
        return None;
    }
    let format = analysis.formats[k];
    let accepted = match input.ty {
        Some(ty) => vertex_accepts(format, ty),
        None => false,
    };
    if accepted {
        return None;
    }
    Some(
        Msg::new()
            .str("field `")
            .str(analysis.names[k])
            .str("` feeds location ")
            .num(input.location as u64)
            .str(", read as ")
            .str(input.type_name)
            .str(" by wgsl `")
            .str(input.path)
            .str("` (")
            .str(input.at)
            .str("): ")
            .str(format.as_str())
            .str(" delivers ")
            .str(type_name(format.vertex_input_type()))
            .str("; use a format of the input's kind and component count, or change the input's type"),
    )
}
