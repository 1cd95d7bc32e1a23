//! WGSL struct text whose storage layout equals a [`GpuDataStructFormat`].

use std::fmt::Write as _;

use super::GpuDataStructFormat;
use crate::format::VertexFormat;
use crate::layout::WgslError;

/// WGSL keywords and reserved words (WGSL §15.1, §15.2): none can name a struct or a member.
const RESERVED: &[&str] = &[
    // Keywords.
    "alias",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "false",
    "fn",
    "for",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "var",
    "while",
    // Reserved words.
    "NULL",
    "Self",
    "abstract",
    "active",
    "alignas",
    "alignof",
    "as",
    "asm",
    "asm_fragment",
    "async",
    "attribute",
    "auto",
    "await",
    "become",
    "cast",
    "catch",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "coherent",
    "column_major",
    "common",
    "compile",
    "compile_fragment",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "crate",
    "debugger",
    "decltype",
    "delete",
    "demote",
    "demote_to_helper",
    "do",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extends",
    "extern",
    "external",
    "fallthrough",
    "filter",
    "final",
    "finally",
    "friend",
    "from",
    "fxgroup",
    "get",
    "goto",
    "groupshared",
    "highp",
    "impl",
    "implements",
    "import",
    "inline",
    "instanceof",
    "interface",
    "layout",
    "lowp",
    "macro",
    "macro_rules",
    "match",
    "mediump",
    "meta",
    "mod",
    "module",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "nil",
    "noexcept",
    "noinline",
    "nointerpolation",
    "non_coherent",
    "noncoherent",
    "noperspective",
    "null",
    "nullptr",
    "of",
    "operator",
    "package",
    "packoffset",
    "partition",
    "pass",
    "patch",
    "pixelfragment",
    "precise",
    "precision",
    "premerge",
    "priv",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "regardless",
    "register",
    "reinterpret_cast",
    "require",
    "resource",
    "restrict",
    "self",
    "set",
    "shared",
    "sizeof",
    "smooth",
    "snorm",
    "static",
    "static_assert",
    "static_cast",
    "std",
    "subroutine",
    "super",
    "target",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "union",
    "unless",
    "unorm",
    "unsafe",
    "unsized",
    "use",
    "using",
    "varying",
    "virtual",
    "volatile",
    "wgsl",
    "where",
    "with",
    "writeonly",
    "yield",
];

/// Whether `name` can name a WGSL struct or member: ASCII letters, digits and `_`, not starting
/// with a digit, not `_` alone, not starting with `__`, not a keyword or reserved word.
#[must_use]
pub(crate) fn is_wgsl_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let starts_well = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    starts_well
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
        && !name.starts_with("__")
        && !RESERVED.contains(&name)
}

/// WGSL's predeclared names a module-scope declaration would shadow: types and type generators,
/// their aliases (`vec3f`, `mat4x4h`), address spaces and access modes, and built-in functions.
/// WGSL lets a struct shadow them, but then the predeclared meaning is gone from the whole
/// module (`struct f32 { a: f32 }` no longer means `f32`; a struct named `storage` breaks
/// `var<storage>`); naga refuses some (`f32`, `array`) and silently shadows others (`vec3f`):
/// gpudata refuses them all.
const PREDECLARED: &[&str] = &[
    // Types and type generators.
    "bool",
    "f16",
    "f32",
    "i32",
    "u32",
    "vec2",
    "vec3",
    "vec4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "array",
    "atomic",
    "ptr",
    "sampler",
    "sampler_comparison",
    "texture_1d",
    "texture_2d",
    "texture_2d_array",
    "texture_3d",
    "texture_cube",
    "texture_cube_array",
    "texture_multisampled_2d",
    "texture_external",
    "texture_storage_1d",
    "texture_storage_2d",
    "texture_storage_2d_array",
    "texture_storage_3d",
    "texture_depth_2d",
    "texture_depth_2d_array",
    "texture_depth_cube",
    "texture_depth_cube_array",
    "texture_depth_multisampled_2d",
    // Address spaces and access modes.
    "function",
    "private",
    "workgroup",
    "uniform",
    "storage",
    "read",
    "write",
    "read_write",
    // Built-in functions.
    "bitcast",
    "all",
    "any",
    "select",
    "arrayLength",
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "atan2",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "countLeadingZeros",
    "countOneBits",
    "countTrailingZeros",
    "cross",
    "degrees",
    "determinant",
    "distance",
    "dot",
    "dot4U8Packed",
    "dot4I8Packed",
    "exp",
    "exp2",
    "extractBits",
    "faceForward",
    "firstLeadingBit",
    "firstTrailingBit",
    "floor",
    "fma",
    "fract",
    "frexp",
    "insertBits",
    "inverseSqrt",
    "ldexp",
    "length",
    "log",
    "log2",
    "max",
    "min",
    "mix",
    "modf",
    "normalize",
    "pow",
    "quantizeToF16",
    "radians",
    "reflect",
    "refract",
    "reverseBits",
    "round",
    "saturate",
    "sign",
    "sin",
    "sinh",
    "smoothstep",
    "sqrt",
    "step",
    "tan",
    "tanh",
    "transpose",
    "trunc",
    "dpdx",
    "dpdxCoarse",
    "dpdxFine",
    "dpdy",
    "dpdyCoarse",
    "dpdyFine",
    "fwidth",
    "fwidthCoarse",
    "fwidthFine",
    "textureDimensions",
    "textureGather",
    "textureGatherCompare",
    "textureLoad",
    "textureNumLayers",
    "textureNumLevels",
    "textureNumSamples",
    "textureSample",
    "textureSampleBias",
    "textureSampleCompare",
    "textureSampleCompareLevel",
    "textureSampleGrad",
    "textureSampleLevel",
    "textureSampleBaseClampToEdge",
    "textureStore",
    "atomicLoad",
    "atomicStore",
    "atomicAdd",
    "atomicSub",
    "atomicMax",
    "atomicMin",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompareExchangeWeak",
    "pack4x8snorm",
    "pack4x8unorm",
    "pack4xI8",
    "pack4xU8",
    "pack4xI8Clamp",
    "pack4xU8Clamp",
    "pack2x16snorm",
    "pack2x16unorm",
    "pack2x16float",
    "unpack4x8snorm",
    "unpack4x8unorm",
    "unpack4xI8",
    "unpack4xU8",
    "unpack2x16snorm",
    "unpack2x16unorm",
    "unpack2x16float",
    "storageBarrier",
    "textureBarrier",
    "workgroupBarrier",
    "workgroupUniformLoad",
];

/// Whether `name` is one of WGSL's predeclared names ([`PREDECLARED`]) or a vector or matrix
/// alias (`vec3f`, `vec2h`, `vec4i`, `vec3u`, `mat4x4f`, `mat2x3h`).
fn is_predeclared(name: &str) -> bool {
    if PREDECLARED.contains(&name) {
        return true;
    }
    let Some(body) = name.strip_suffix(['f', 'h', 'i', 'u']) else {
        return false;
    };
    let dimension = |d: &str| matches!(d, "2" | "3" | "4");
    if let Some(n) = body.strip_prefix("vec") {
        return dimension(n);
    }
    let matrix = body
        .strip_prefix("mat")
        .and_then(|m| m.split_once('x'))
        .is_some_and(|(c, r)| dimension(c) && dimension(r));
    matrix && (name.ends_with('f') || name.ends_with('h'))
}

/// The rule for a struct's name, a module-scope declaration: [`check_name`], and not a
/// predeclared name it would shadow ([`WgslError::PredeclaredName`]). Member names only follow
/// [`check_name`]: they live in their struct and shadow nothing (`length` is a fine member).
pub(crate) fn check_struct_name(name: &str) -> Result<(), WgslError> {
    check_name(name)?;
    if is_predeclared(name) {
        return Err(WgslError::PredeclaredName {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The one WGSL identifier rule with its one error: [`is_wgsl_identifier`], or
/// [`WgslError::InvalidName`] naming `name`. Struct and member names and the prefixes of the
/// table's generated bindings and accessors all go through it.
pub(crate) fn check_name(name: &str) -> Result<(), WgslError> {
    if is_wgsl_identifier(name) {
        Ok(())
    } else {
        Err(WgslError::InvalidName {
            name: name.to_owned(),
        })
    }
}

/// The WGSL expression that decodes a carrier member into the value vertex fetch would deliver,
/// for formats whose carrier holds raw bits (`None` for 32-bit formats, which need no decoding).
const fn decode_hint(format: VertexFormat) -> Option<&'static str> {
    match format {
        VertexFormat::Unorm8x4 => Some("unpack4x8unorm({m})"),
        VertexFormat::Unorm8x4Bgra => Some("unpack4x8unorm({m}).zyxw"),
        VertexFormat::Snorm8x4 => Some("unpack4x8snorm({m})"),
        VertexFormat::Unorm16x2 => Some("unpack2x16unorm({m})"),
        VertexFormat::Snorm16x2 => Some("unpack2x16snorm({m})"),
        VertexFormat::Float16x2 => Some("unpack2x16float({m})"),
        VertexFormat::Float16x4 => Some("vec4(unpack2x16float({m}.x), unpack2x16float({m}.y))"),
        VertexFormat::Uint8x4 => Some("unpack4xU8({m})"),
        VertexFormat::Sint8x4 => Some("unpack4xI8({m})"),
        _ => None,
    }
}

impl GpuDataStructFormat {
    /// WGSL text declaring struct `name` whose storage-buffer layout is exactly this format: the
    /// same member offsets, and a size equal to [`byte_stride`](Self::byte_stride), so
    /// `array<name>` in a storage buffer steps row by row.
    ///
    /// Each field becomes a member of its WGSL carrier type
    /// ([`VertexFormat::wgsl_carrier`]): `f32`/`i32`/`u32`/`vecN` for 32-bit formats, one `u32`
    /// or a `vec2<u32>` of raw bits for every other format (a comment names the format and, where
    /// WGSL has one, the built-in that decodes it). Where a member must end later than its
    /// carrier (a gap before the next field, or trailing padding up to the stride) it gets an
    /// explicit `@size`. `@align` is never needed: WGSL can only raise alignment, which cannot
    /// move a member earlier or shrink the struct.
    ///
    /// A `wgsl-storage` format always has WGSL text. A `packed` format has one when its
    /// offsets happen to be WGSL's (e.g. `{tag: uint8, value: float32}`); otherwise the error
    /// names the first field WGSL cannot place.
    ///
    /// ```
    /// use gpudata::{GpuDataStructFormat, StructLayout};
    ///
    /// let format = GpuDataStructFormat::parse(
    ///     StructLayout::WgslStorage,
    ///     [("tag", "uint8"), ("position", "float32x3"), ("color", "unorm8x4")],
    /// )?;
    /// let wgsl = format.wgsl_struct("Row")?;
    /// assert!(wgsl.contains("position: vec3<f32>,"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WgslError::InvalidName`] for a struct or field name WGSL cannot use,
    /// [`WgslError::PredeclaredName`] for a struct name WGSL predeclares (`f32`, `array`);
    /// [`WgslError::Misaligned`] for a field off its carrier's alignment;
    /// [`WgslError::Unreachable`] for a field inside the previous member's carrier (or a first
    /// field not at 0); [`WgslError::Stride`] for a stride WGSL cannot give the struct.
    pub fn wgsl_struct(&self, name: &str) -> Result<String, WgslError> {
        check_struct_name(name)?;
        struct Member<'f> {
            name: &'f str,
            format: VertexFormat,
            offset: u64,
            carrier_size: u64,
            size: Option<u64>,
        }
        let mut members: Vec<Member<'_>> = Vec::with_capacity(self.fields().len());
        let mut end = 0u64;
        let mut max_align = 1u64;
        for field in self.fields() {
            check_name(field.name())?;
            let carrier = field.format().wgsl_carrier();
            let (align, size) = (carrier.byte_align(), carrier.byte_size());
            let offset = field.byte_offset();
            if offset % align != 0 {
                return Err(WgslError::Misaligned {
                    field: field.name().to_owned(),
                    byte_offset: offset,
                    carrier: carrier.to_string(),
                    alignment: align,
                });
            }
            // `end` and `offset` are at most the stride: no overflow.
            let natural = end.div_ceil(align) * align;
            if offset < natural || (members.is_empty() && offset > 0) {
                return Err(WgslError::Unreachable {
                    field: field.name().to_owned(),
                    byte_offset: offset,
                    wgsl_offset: natural,
                });
            }
            if offset > natural {
                // Stretch the previous member over the gap.
                if let Some(previous) = members.last_mut() {
                    previous.size = Some(offset - previous.offset);
                }
            }
            members.push(Member {
                name: field.name(),
                format: field.format(),
                offset,
                carrier_size: size,
                size: None,
            });
            end = offset + size;
            max_align = max_align.max(align);
        }
        let natural_size = end.div_ceil(max_align) * max_align;
        let stride = self.byte_stride();
        if stride < natural_size || !stride.is_multiple_of(max_align) {
            return Err(WgslError::Stride {
                byte_stride: stride,
                alignment: max_align,
                minimum: natural_size,
            });
        }
        if let Some(last) = members.last_mut().filter(|_| stride > natural_size) {
            last.size = Some(stride - last.offset);
        }

        let mut out = String::new();
        let _ = writeln!(
            out,
            "// {} layout: {} bytes per row, generated by gpudata",
            self.layout(),
            stride
        );
        let _ = writeln!(out, "struct {name} {{");
        for member in &members {
            let carrier = member.format.wgsl_carrier();
            let size = match member.size {
                Some(size) if size != member.carrier_size => format!("@size({size}) "),
                _ => String::new(),
            };
            let _ = write!(out, "    {size}{}: {carrier},", member.name);
            let native = matches!(
                member.format.data_type(),
                crate::format::DataType::Float32
                    | crate::format::DataType::Sint32
                    | crate::format::DataType::Uint32
            ) && !member.format.is_packed_bits();
            if !native {
                let _ = write!(out, " // {}", member.format);
                if let Some(hint) = decode_hint(member.format) {
                    let _ = write!(out, ": {}", hint.replace("{m}", member.name));
                }
            }
            out.push('\n');
        }
        out.push_str("}\n");
        Ok(out)
    }
}
