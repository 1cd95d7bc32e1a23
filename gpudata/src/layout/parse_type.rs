//! WGSL type and member declarations read from text: `vec3<f32>`, `array<mat4x4<f32>, 2>`,
//! `array<u32>`, the shorthand aliases (`vec3f`, `mat4x4h`), and member lists such as
//! `"a: vec3<f32>, @align(16) b: array<mat4x4<f32>, 2>"`.

use gpudata_names::{CountSyntax, LeafSyntax, ScalarSyntax, TypeSyntax, type_syntax};

use super::decl::{MemberDecl, StructDecl, TypeDecl};
use super::limits::DeclarationLimits;
use super::memory::LeafType;
use crate::format::PrimitiveType;
use crate::layout::LayoutError;

fn primitive(scalar: ScalarSyntax) -> PrimitiveType {
    match scalar {
        ScalarSyntax::F32 => PrimitiveType::F32,
        ScalarSyntax::F16 => PrimitiveType::F16,
        ScalarSyntax::I32 => PrimitiveType::I32,
        ScalarSyntax::U32 => PrimitiveType::U32,
    }
}

fn leaf(syntax: LeafSyntax) -> LeafType {
    match syntax {
        LeafSyntax::Scalar(s) => LeafType::Scalar(primitive(s)),
        LeafSyntax::Vector { components, scalar } => LeafType::Vector {
            components,
            scalar: primitive(scalar),
        },
        LeafSyntax::Matrix {
            columns,
            rows,
            scalar,
        } => LeafType::Matrix {
            columns,
            rows,
            scalar: primitive(scalar),
        },
        LeafSyntax::Atomic(s) => LeafType::Atomic(primitive(s)),
    }
}

/// Why [`parse_type`] read no type.
enum Unread {
    /// Not a type gpudata reads.
    Unknown,
    /// Nested deeper than the bound.
    TooDeep,
}

/// The type `text` spells (in `gpudata_names`' grammar, shared with the derive), nested at
/// most `depth` arrays deep: each level is checked before its text is scanned, so a deep input
/// costs the bound's worth of scans, not its own depth's.
fn parse_type(text: &str, depth: usize) -> Result<TypeDecl, Unread> {
    match type_syntax(text).ok_or(Unread::Unknown)? {
        TypeSyntax::Leaf(syntax) => Ok(TypeDecl::Leaf(leaf(syntax))),
        TypeSyntax::Array(array) => {
            let depth = depth.checked_sub(1).ok_or(Unread::TooDeep)?;
            let (element, count) = array.parts();
            let element = Box::new(parse_type(element, depth)?);
            let count = match count {
                CountSyntax::Fixed(n) => Some(n),
                CountSyntax::RuntimeSized => None,
                CountSyntax::Invalid => return Err(Unread::Unknown),
            };
            Ok(TypeDecl::Array { element, count })
        }
    }
}

/// [`parse_type`] with `member`'s name in its errors.
fn parse_member_type(
    member: &str,
    text: &str,
    limits: &DeclarationLimits,
) -> Result<TypeDecl, LayoutError> {
    parse_type(text, limits.max_depth).map_err(|unread| match unread {
        Unread::Unknown => LayoutError::UnknownType {
            member: member.to_owned(),
            text: text.trim().to_owned(),
        },
        Unread::TooDeep => LayoutError::TooDeep {
            member: member.to_owned(),
            max: limits.max_depth,
        },
    })
}

/// Splits `text` at the commas and newlines outside `<...>` and `(...)`, stopping after
/// `max + 1` non-empty parts (more than `max` is all the caller needs to know).
fn split_members(text: &str, max: usize) -> Vec<&str> {
    let bound = max.saturating_add(1);
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' | '\n' | ';' if depth == 0 => {
                let part = text[start..i].trim();
                if !part.is_empty() {
                    parts.push(part);
                    if parts.len() == bound {
                        return parts;
                    }
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    let part = text[start..].trim();
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// `@align(n)` / `@size(n)` at the start of `text`: the attribute, its value and the rest.
fn attribute(text: &str) -> Option<(&str, u64, &str)> {
    let rest = text.strip_prefix('@')?;
    let (name, rest) = rest.split_once('(')?;
    let (value, rest) = rest.split_once(')')?;
    Some((name.trim(), value.trim().parse().ok()?, rest.trim_start()))
}

fn parse_member(text: &str, limits: &DeclarationLimits) -> Result<MemberDecl, LayoutError> {
    let syntax = || LayoutError::MemberSyntax {
        text: text.to_owned(),
    };
    let mut rest = text;
    let (mut align, mut size) = (None, None);
    while rest.starts_with('@') {
        let (name, value, after) = attribute(rest).ok_or_else(syntax)?;
        match name {
            "align" => align = Some(value),
            "size" => size = Some(value),
            _ => return Err(syntax()),
        }
        rest = after;
    }
    let (name, ty) = rest.split_once(':').ok_or_else(syntax)?;
    let (name, ty) = (name.trim(), ty.trim());
    let ty = parse_member_type(name, ty, limits)?;
    Ok(MemberDecl {
        name: name.to_owned(),
        ty,
        align,
        size,
    })
}

impl TypeDecl {
    /// Reads a WGSL type without structs: a scalar (`f32`, `f16`, `i32`, `u32`), `vecN<T>`,
    /// `matCxR<T>`, `atomic<T>`, a predeclared alias (`vec3f`, `mat4x4h`), `array<E, N>` or
    /// `array<E>` of any of them, nested at most [`DeclarationLimits::MAX_DEPTH`] arrays deep.
    /// Validity (`vec5`, `mat4x4<i32>`) is checked by the layout.
    ///
    /// # Errors
    /// [`LayoutError::UnknownType`] with the text, [`LayoutError::TooDeep`].
    pub fn parse(text: &str) -> Result<TypeDecl, LayoutError> {
        TypeDecl::parse_with_limits(text, &DeclarationLimits::DEFAULT)
    }

    /// [`parse`](Self::parse) nested at most `limits.max_depth` arrays deep.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with_limits(
        text: &str,
        limits: &DeclarationLimits,
    ) -> Result<TypeDecl, LayoutError> {
        parse_member_type("", text, limits)
    }
}

impl StructDecl {
    /// Reads struct `name`'s members from WGSL member declarations separated by commas,
    /// semicolons or newlines, each optionally with `@align(n)` and `@size(n)`:
    /// `"a: vec3<f32>, @align(16) b: array<mat4x4<f32>, 2>"`.
    ///
    /// At most [`DeclarationLimits::MAX_MEMBERS`] members (WGSL's limit), each nested at most
    /// [`DeclarationLimits::MAX_DEPTH`] deep; [`parse_with_limits`](Self::parse_with_limits)
    /// takes other bounds.
    ///
    /// # Errors
    /// [`LayoutError::TooManyMembers`] (before any member is read),
    /// [`LayoutError::MemberSyntax`] for a declaration that is not `name: type`,
    /// [`LayoutError::UnknownType`] for a type [`TypeDecl::parse`] does not read,
    /// [`LayoutError::TooDeep`].
    pub fn parse(name: &str, members: &str) -> Result<StructDecl, LayoutError> {
        StructDecl::parse_with_limits(name, members, &DeclarationLimits::DEFAULT)
    }

    /// [`parse`](Self::parse) within `limits`.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with_limits(
        name: &str,
        members: &str,
        limits: &DeclarationLimits,
    ) -> Result<StructDecl, LayoutError> {
        let parts = split_members(members, limits.max_members);
        if parts.len() > limits.max_members {
            return Err(LayoutError::TooManyMembers {
                structure: name.to_owned(),
                max: limits.max_members,
            });
        }
        Ok(StructDecl {
            name: name.to_owned(),
            members: parts
                .into_iter()
                .map(|part| parse_member(part, limits))
                .collect::<Result<_, _>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_aliases_read_as_wgsl_spells_them() {
        let mat = TypeDecl::Leaf(LeafType::Matrix {
            columns: 4,
            rows: 3,
            scalar: PrimitiveType::F16,
        });
        assert_eq!(TypeDecl::parse("mat4x3<f16>").unwrap(), mat);
        assert_eq!(TypeDecl::parse("mat4x3h").unwrap(), mat);
        assert_eq!(
            TypeDecl::parse(" array< array<vec2u, 3>, 2u > ").unwrap(),
            TypeDecl::Array {
                element: Box::new(TypeDecl::Array {
                    element: Box::new(TypeDecl::Leaf(LeafType::Vector {
                        components: 2,
                        scalar: PrimitiveType::U32
                    })),
                    count: Some(3)
                }),
                count: Some(2)
            }
        );
        assert!(
            TypeDecl::parse("array<atomic<u32>>")
                .unwrap()
                .is_runtime_array()
        );
        for bad in [
            "vec5<f32>",
            "mat4<f32>",
            "array<f32, x>",
            "Light",
            "bool",
            "vec3b",
        ] {
            assert!(TypeDecl::parse(bad).is_err(), "{bad}");
        }
        let s = StructDecl::parse("S", "@align(16) @size(32) a: f32,\n b: vec3f;").unwrap();
        assert_eq!(s.members[0].align, Some(16));
        assert_eq!(s.members[0].size, Some(32));
        assert!(matches!(
            StructDecl::parse("S", "a f32"),
            Err(LayoutError::MemberSyntax { .. })
        ));
        assert!(matches!(
            StructDecl::parse("S", "@stride(4) a: f32"),
            Err(LayoutError::MemberSyntax { .. })
        ));
    }
}
