//! [`TypeDecl`]: a host-shareable WGSL type as owned data, for declarations read at run time,
//! laid out by the same `const fn` rules as the `'static` [`WgslType`].

use super::memory::{
    AddressSpace, LeafType, MemberCursor, MemberPlacement, TypeLayout, TypeRuleError, array_layout,
    leaf_layout,
};
use super::wgsl_type::{WgslStruct, WgslType};
use crate::layout::LayoutError;

/// A host-shareable WGSL type as owned data: what the layout CLI, luma.gl's composite-type JSON
/// and [`TypeDecl::parse`] produce. Lays out exactly as the [`WgslType`] it is converted from
/// ([`TypeDecl::from`]); both go through the rules of `layout::memory`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeDecl {
    /// A scalar, vector, matrix or atomic.
    Leaf(LeafType),
    /// `array<E, N>` (`count: Some(N)`) or the runtime-sized `array<E>` (`None`).
    Array {
        /// `E`.
        element: Box<TypeDecl>,
        /// `N`.
        count: Option<u32>,
    },
    /// A struct.
    Struct(StructDecl),
}

/// A struct of a [`TypeDecl`]: its WGSL name and members in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDecl {
    /// The struct's WGSL name.
    pub name: String,
    /// Its members.
    pub members: Vec<MemberDecl>,
}

/// One member of a [`StructDecl`], with WGSL's `@align` and `@size` attributes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemberDecl {
    /// The member's name.
    pub name: String,
    /// Its type.
    pub ty: TypeDecl,
    /// `@align(n)`.
    pub align: Option<u64>,
    /// `@size(n)`.
    pub size: Option<u64>,
}

impl From<&WgslType> for TypeDecl {
    fn from(ty: &WgslType) -> TypeDecl {
        match ty {
            WgslType::Leaf(leaf) => TypeDecl::Leaf(*leaf),
            WgslType::Array { element, count } => TypeDecl::Array {
                element: Box::new(TypeDecl::from(*element)),
                count: *count,
            },
            WgslType::Struct(s) => TypeDecl::Struct(StructDecl::from(*s)),
        }
    }
}

impl From<&WgslStruct> for StructDecl {
    fn from(s: &WgslStruct) -> StructDecl {
        StructDecl {
            name: s.name.to_owned(),
            members: s
                .members
                .iter()
                .map(|m| MemberDecl {
                    name: m.name.to_owned(),
                    ty: TypeDecl::from(&m.ty),
                    align: m.align,
                    size: m.size,
                })
                .collect(),
        }
    }
}

/// `path` extended by a member name, luma.gl's way (`light.color`).
pub(crate) fn member_path(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

fn type_error(path: &str, source: TypeRuleError) -> LayoutError {
    LayoutError::Type {
        path: if path.is_empty() {
            "(root)".to_owned()
        } else {
            path.to_owned()
        },
        source,
    }
}

impl TypeDecl {
    /// Whether this is `array<E>` (runtime-sized).
    #[must_use]
    pub fn is_runtime_array(&self) -> bool {
        matches!(self, TypeDecl::Array { count: None, .. })
    }

    /// The type's layout under `space`'s rules.
    ///
    /// # Errors
    /// [`LayoutError::Type`] naming the member path (`lights[].color`) and the rule broken.
    pub fn layout(&self, space: AddressSpace) -> Result<TypeLayout, LayoutError> {
        self.layout_at(space, "")
    }

    pub(crate) fn layout_at(
        &self,
        space: AddressSpace,
        path: &str,
    ) -> Result<TypeLayout, LayoutError> {
        match self {
            TypeDecl::Leaf(leaf) => leaf_layout(*leaf, space).map_err(|e| type_error(path, e)),
            TypeDecl::Array { element, count } => {
                let inner = element.layout_at(space, &format!("{path}[]"))?;
                array_layout(inner, *count, space).map_err(|e| type_error(path, e))
            }
            TypeDecl::Struct(s) => Ok(s.placements_at(space, path)?.1),
        }
    }
}

impl StructDecl {
    /// Where each member goes and the struct's layout under `space`'s rules.
    ///
    /// # Errors
    /// [`LayoutError::Type`] naming the member path and the rule broken.
    pub fn placements(
        &self,
        space: AddressSpace,
    ) -> Result<(Vec<MemberPlacement>, TypeLayout), LayoutError> {
        self.placements_at(space, "")
    }

    pub(crate) fn placements_at(
        &self,
        space: AddressSpace,
        path: &str,
    ) -> Result<(Vec<MemberPlacement>, TypeLayout), LayoutError> {
        let mut cursor = MemberCursor::new(space);
        let mut placed = Vec::with_capacity(self.members.len());
        for member in &self.members {
            let at = member_path(path, &member.name);
            let ty = member.ty.layout_at(space, &at)?;
            placed.push(
                cursor
                    .place(ty, member.ty.is_runtime_array(), member.align, member.size)
                    .map_err(|e| type_error(&at, e))?,
            );
        }
        let layout = cursor.finish().map_err(|e| type_error(path, e))?;
        Ok((placed, layout))
    }
}
