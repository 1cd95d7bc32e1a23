//! Feature `serde`: [`ShaderBlockLayout`] in luma.gl's JSON shape, and luma.gl's composite shader
//! types (`{"a": "vec3<f32>", "b": ["mat4x4<f32>", 2], "c": {"x": "f32"}}`) read into a
//! [`StructDecl`].

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserializer, Serialize, Serializer};

use crate::layout::{
    BlockField, DeclarationLimits, LayoutError, MemberDecl, ShaderBlockLayout, StructDecl, TypeDecl,
};

struct Fields<'a>(&'a [(String, BlockField)]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (path, field) in self.0 {
            map.serialize_entry(path, field)?;
        }
        map.end()
    }
}

impl Serialize for BlockField {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("BlockField", 8)?;
        s.serialize_field("offset", &self.offset)?;
        s.serialize_field("size", &self.size)?;
        s.serialize_field("components", &self.components)?;
        s.serialize_field("columns", &self.columns)?;
        s.serialize_field("rows", &self.rows)?;
        s.serialize_field("columnStride", &self.column_stride)?;
        s.serialize_field("shaderType", &self.shader_type.to_string())?;
        s.serialize_field("type", self.scalar.as_str())?;
        s.end()
    }
}

impl Serialize for ShaderBlockLayout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ShaderBlockLayout", 4)?;
        s.serialize_field("layout", self.layout.as_str())?;
        s.serialize_field("units", "bytes")?;
        s.serialize_field("byteLength", &self.byte_length)?;
        s.serialize_field("fields", &Fields(&self.fields))?;
        s.end()
    }
}

/// luma.gl's `CompositeShaderType`: a type string, `[element, length]`, or a struct of members in
/// order.
enum Composite {
    Leaf(String),
    Array(Box<Composite>, u32),
    Struct(Vec<(String, Composite)>),
}

/// Reads a [`Composite`] at most `depth` arrays and structs deep, with at most
/// `limits.max_members` members per struct, refusing as soon as either bound is passed.
#[derive(Clone, Copy)]
struct CompositeSeed<'l, 'm> {
    /// Levels of arrays and structs left below this one.
    depth: usize,
    limits: &'l DeclarationLimits,
    /// The member being read (for errors).
    member: &'m str,
}

impl<'l, 'm> CompositeSeed<'l, 'm> {
    /// The depth left for what this array or struct holds, or the refusal.
    fn inner<E: de::Error>(self) -> Result<usize, E> {
        self.depth.checked_sub(1).ok_or_else(|| {
            E::custom(LayoutError::TooDeep {
                member: self.member.to_owned(),
                max: self.limits.max_depth,
            })
        })
    }
}

impl<'de> DeserializeSeed<'de> for CompositeSeed<'_, '_> {
    type Value = Composite;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Composite, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CompositeSeed<'_, '_> {
    type Value = Composite;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a WGSL type string, an [element, length] array or an object of members")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Composite, E> {
        Ok(Composite::Leaf(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Composite, A::Error> {
        let element: Composite = seq
            .next_element_seed(CompositeSeed {
                depth: self.inner()?,
                ..self
            })?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let length: u32 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(Composite::Array(Box::new(element), length))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Composite, A::Error> {
        let depth = self.inner()?;
        let mut members = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            if members.len() == self.limits.max_members {
                return Err(de::Error::custom(LayoutError::TooManyMembers {
                    structure: format!("the object holding member `{name}`"),
                    max: self.limits.max_members,
                }));
            }
            let ty = map.next_value_seed(CompositeSeed {
                depth,
                limits: self.limits,
                member: &name,
            })?;
            members.push((name, ty));
        }
        Ok(Composite::Struct(members))
    }
}

/// A struct name for the anonymous struct at member `path` of `root`: `Root_light_color`.
fn struct_name(root: &str, path: &str) -> String {
    let mut name = root.to_owned();
    for part in path.split(['.', '[', ']']).filter(|p| !p.is_empty()) {
        name.push('_');
        name.push_str(part);
    }
    name
}

fn to_type<E: de::Error>(
    root: &str,
    path: &str,
    ty: Composite,
    limits: &DeclarationLimits,
) -> Result<TypeDecl, E> {
    Ok(match ty {
        Composite::Leaf(text) => TypeDecl::parse_with_limits(&text, limits).map_err(E::custom)?,
        Composite::Array(element, length) => TypeDecl::Array {
            element: Box::new(to_type(root, &format!("{path}[]"), *element, limits)?),
            count: Some(length),
        },
        Composite::Struct(members) => TypeDecl::Struct(to_struct(
            struct_name(root, path),
            root,
            path,
            members,
            limits,
        )?),
    })
}

fn to_struct<E: de::Error>(
    name: String,
    root: &str,
    path: &str,
    members: Vec<(String, Composite)>,
    limits: &DeclarationLimits,
) -> Result<StructDecl, E> {
    let members = members
        .into_iter()
        .map(|(member, ty)| {
            let at = crate::layout::member_path(path, &member);
            Ok(MemberDecl {
                name: member,
                ty: to_type(root, &at, ty, limits)?,
                align: None,
                size: None,
            })
        })
        .collect::<Result<_, E>>()?;
    Ok(StructDecl { name, members })
}

impl StructDecl {
    /// Reads luma.gl's composite shader types (the `uniformTypes` of `makeShaderBlockLayout`) as
    /// struct `name`: `{"a": "vec3<f32>", "b": ["mat4x4<f32>", 2], "c": {"x": "f32"}}`. Members
    /// keep their order; an object member becomes a struct named after its path (`Block_c`).
    ///
    /// ```
    /// use gpudata::layout::{AddressSpace, StructDecl};
    ///
    /// let mut json = serde_json::Deserializer::from_str(
    ///     r#"{"a": "vec3<f32>", "b": ["mat4x4<f32>", 2], "c": {"x": "f32"}}"#,
    /// );
    /// let block = StructDecl::from_composite("Block", &mut json)?;
    /// let layout = block.block_layout(AddressSpace::Uniform)?;
    /// assert_eq!(layout.field("b[1]").unwrap().offset, 80);
    /// assert_eq!(layout.field("c.x").unwrap().offset, 144);
    /// assert_eq!(layout.byte_length, 160);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// At most [`DeclarationLimits::MAX_MEMBERS`] members per struct and
    /// [`DeclarationLimits::MAX_DEPTH`] levels of arrays and structs;
    /// [`from_composite_with_limits`](Self::from_composite_with_limits) takes other bounds.
    ///
    /// # Errors
    /// The deserializer's error for input of another shape, an unknown type string or a
    /// declaration over its limits ([`LayoutError::TooManyMembers`],
    /// [`LayoutError::TooDeep`]'s messages), refused as soon as the bound is passed.
    pub fn from_composite<'de, D: Deserializer<'de>>(
        name: &str,
        deserializer: D,
    ) -> Result<StructDecl, D::Error> {
        StructDecl::from_composite_with_limits(name, deserializer, &DeclarationLimits::DEFAULT)
    }

    /// [`from_composite`](Self::from_composite) within `limits`.
    ///
    /// # Errors
    /// As [`from_composite`](Self::from_composite).
    pub fn from_composite_with_limits<'de, D: Deserializer<'de>>(
        name: &str,
        deserializer: D,
        limits: &DeclarationLimits,
    ) -> Result<StructDecl, D::Error> {
        // The top-level object is the struct itself, not a level of nesting.
        let seed = CompositeSeed {
            depth: limits.max_depth.saturating_add(1),
            limits,
            member: name,
        };
        match seed.deserialize(deserializer)? {
            Composite::Struct(members) => to_struct(name.to_owned(), name, "", members, limits),
            _ => Err(de::Error::custom(
                "expected an object of members at the top level",
            )),
        }
    }
}
