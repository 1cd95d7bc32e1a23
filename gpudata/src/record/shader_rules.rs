//! The agreement rules between one host value and one WGSL value, as `const fn`s shared by the
//! compile-time shader check (`record::shader`, `record::shader_tree`) and the run-time one
//! (`gpudata::check`): which WGSL type stores a format, which vertex input a format feeds, and
//! what to do about a misplaced member.

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
