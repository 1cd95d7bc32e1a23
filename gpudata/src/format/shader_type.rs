//! Shader attribute types (`f32`, `vec3<f32>`, `vec4u`, ...) and WGSL storage carriers.

use core::fmt;
use core::str::FromStr;

use super::PrimitiveType;
use crate::format::FormatError;

/// A shader attribute type: a scalar or a 2-, 3- or 4-component vector of `f32`, `f16`, `i32` or
/// `u32`.
///
/// Parses the WGSL spellings `f32`, `vec3<f32>` and the aliases `vec3f`, `vec2h`, `vec4i`,
/// `vec2u`; displays the long form. Corresponds to luma.gl's `AttributeShaderType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShaderType {
    primitive: PrimitiveType,
    components: u8,
}

impl ShaderType {
    /// A type of `components` values of `primitive`; component counts outside `1..=4` are
    /// clamped into that range.
    #[must_use]
    pub const fn new(primitive: PrimitiveType, components: u32) -> ShaderType {
        let components = if components < 1 {
            1
        } else if components > 4 {
            4
        } else {
            components
        };
        ShaderType {
            primitive,
            components: components as u8,
        }
    }

    /// The scalar type.
    #[must_use]
    pub const fn primitive(self) -> PrimitiveType {
        self.primitive
    }

    /// Number of components (1 to 4).
    #[must_use]
    pub const fn components(self) -> u32 {
        self.components as u32
    }

    /// Whether values are `i32` or `u32`.
    #[must_use]
    pub const fn is_integer(self) -> bool {
        matches!(self.primitive, PrimitiveType::I32 | PrimitiveType::U32)
    }

    /// luma.gl's rule: everything but `u32` is signed.
    #[must_use]
    pub const fn is_signed(self) -> bool {
        !matches!(self.primitive, PrimitiveType::U32)
    }

    /// Bytes of one value: components × (2 for `f16`, else 4).
    #[must_use]
    pub const fn byte_length(self) -> u64 {
        self.primitive.byte_length() * self.components as u64
    }
}

impl fmt::Display for ShaderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.components == 1 {
            f.write_str(self.primitive.as_str())
        } else {
            write!(f, "vec{}<{}>", self.components, self.primitive)
        }
    }
}

fn parse_primitive(s: &str) -> Option<PrimitiveType> {
    match s {
        "f32" => Some(PrimitiveType::F32),
        "f16" => Some(PrimitiveType::F16),
        "i32" => Some(PrimitiveType::I32),
        "u32" => Some(PrimitiveType::U32),
        _ => None,
    }
}

fn parse_alias(c: char) -> Option<PrimitiveType> {
    match c {
        'f' => Some(PrimitiveType::F32),
        'h' => Some(PrimitiveType::F16),
        'i' => Some(PrimitiveType::I32),
        'u' => Some(PrimitiveType::U32),
        _ => None,
    }
}

impl FromStr for ShaderType {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || FormatError::UnknownShaderType {
            shader_type: s.to_owned(),
        };
        if let Some(primitive) = parse_primitive(s) {
            return Ok(ShaderType::new(primitive, 1));
        }
        let rest = s.strip_prefix("vec").ok_or_else(unknown)?;
        let mut chars = rest.chars();
        let components = match chars.next() {
            Some(c @ '2'..='4') => u32::from(c) - u32::from('0'),
            _ => return Err(unknown()),
        };
        let tail = chars.as_str();
        let primitive =
            if let Some(inner) = tail.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
                parse_primitive(inner)
            } else {
                let mut tail_chars = tail.chars();
                match (tail_chars.next(), tail_chars.next()) {
                    (Some(c), None) => parse_alias(c),
                    _ => None,
                }
            };
        primitive
            .map(|p| ShaderType::new(p, components))
            .ok_or_else(unknown)
    }
}

/// The WGSL type that carries a format's raw bytes in a `wgsl-storage` struct, with its WGSL
/// host-shareable size and alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgslCarrier {
    primitive: PrimitiveType,
    components: u8,
}

impl WgslCarrier {
    pub(crate) const fn new(primitive: PrimitiveType, components: u32) -> WgslCarrier {
        WgslCarrier {
            primitive,
            components: components as u8,
        }
    }

    /// The scalar type (`f32`, `i32` or `u32`).
    #[must_use]
    pub const fn primitive(self) -> PrimitiveType {
        self.primitive
    }

    /// Number of components (1 to 4).
    #[must_use]
    pub const fn components(self) -> u32 {
        self.components as u32
    }

    /// Size in bytes under WGSL's host-shareable rules (4 per component).
    #[must_use]
    pub const fn byte_size(self) -> u64 {
        4 * self.components as u64
    }

    /// Alignment in bytes under WGSL's host-shareable rules: 4 for scalars, 8 for `vec2`, 16 for
    /// `vec3` and `vec4`.
    #[must_use]
    pub const fn byte_align(self) -> u64 {
        wgsl_alignment(self.components, 4)
    }

    /// The WGSL type text, e.g. `vec2<u32>`.
    #[must_use]
    pub fn wgsl(self) -> String {
        ShaderType::new(self.primitive, self.components()).to_string()
    }
}

impl fmt::Display for WgslCarrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&ShaderType::new(self.primitive, self.components()), f)
    }
}

/// WGSL's alignment of `components` values of `width` bytes each: a scalar (1) as wide as it is,
/// `vec2` twice the scalar, `vec3` and `vec4` four times. The one vector alignment rule, for the
/// carriers here and the memory model's leaves (`layout::memory`).
#[must_use]
pub(crate) const fn wgsl_alignment(components: u8, width: u64) -> u64 {
    match components {
        1 => width,
        2 => 2 * width,
        _ => 4 * width,
    }
}
