//! [`WgslType`]: a host-shareable WGSL type as `'static` data, built in `const` items (the
//! derive's expansion describes each struct this way) and laid out by a `const fn` walk over the
//! rules of `layout::memory`.

use super::memory::{
    AddressSpace, LeafType, MemberCursor, TypeLayout, TypeRuleError, array_layout, leaf_layout,
};
use crate::format::PrimitiveType;

/// A host-shareable WGSL type, all of it `'static` and `Copy`, so it can be built and laid out in
/// `const` items. [`TypeDecl`](super::TypeDecl) is the owned form for declarations read at run
/// time; [`TypeDecl::from`](super::TypeDecl) converts.
///
/// ```
/// use gpudata::layout::{AddressSpace, WgslMember, WgslStruct, WgslType};
///
/// const LIGHT: WgslStruct = WgslStruct::new("Light", &[
///     WgslMember::new("position", WgslType::vec(3)),
///     WgslMember::new("intensity", WgslType::F32),
/// ]);
/// const SCENE: WgslStruct = WgslStruct::new("Scene", &[
///     WgslMember::new("view", WgslType::mat(4, 4)),
///     WgslMember::new("lights", WgslType::array(&WgslType::Struct(&LIGHT), 4)),
/// ]);
/// const OFFSETS: [u64; 2] = match SCENE.offsets::<2>(AddressSpace::Uniform) {
///     Ok((offsets, _)) => offsets,
///     Err(_) => panic!(),
/// };
/// assert_eq!(OFFSETS, [0, 64]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgslType {
    /// A scalar, vector, matrix or atomic.
    Leaf(LeafType),
    /// `array<E, N>` (`count: Some(N)`) or the runtime-sized `array<E>` (`None`).
    Array {
        /// `E`.
        element: &'static WgslType,
        /// `N`.
        count: Option<u32>,
    },
    /// A struct.
    Struct(&'static WgslStruct),
}

/// A WGSL struct: its name and members in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgslStruct {
    /// The struct's WGSL name.
    pub name: &'static str,
    /// Its members.
    pub members: &'static [WgslMember],
}

/// One member of a [`WgslStruct`], with WGSL's `@align` and `@size` attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgslMember {
    /// The member's name.
    pub name: &'static str,
    /// Its type.
    pub ty: WgslType,
    /// `@align(n)`.
    pub align: Option<u64>,
    /// `@size(n)`.
    pub size: Option<u64>,
}

impl WgslType {
    /// `f32`.
    pub const F32: WgslType = WgslType::Leaf(LeafType::Scalar(PrimitiveType::F32));
    /// `f16`.
    pub const F16: WgslType = WgslType::Leaf(LeafType::Scalar(PrimitiveType::F16));
    /// `i32`.
    pub const I32: WgslType = WgslType::Leaf(LeafType::Scalar(PrimitiveType::I32));
    /// `u32`.
    pub const U32: WgslType = WgslType::Leaf(LeafType::Scalar(PrimitiveType::U32));

    /// A scalar.
    #[must_use]
    pub const fn scalar(scalar: PrimitiveType) -> WgslType {
        WgslType::Leaf(LeafType::Scalar(scalar))
    }

    /// `vecN<f32>`.
    #[must_use]
    pub const fn vec(components: u8) -> WgslType {
        WgslType::vector(components, PrimitiveType::F32)
    }

    /// `vecN<T>`.
    #[must_use]
    pub const fn vector(components: u8, scalar: PrimitiveType) -> WgslType {
        WgslType::Leaf(LeafType::Vector { components, scalar })
    }

    /// `matCxR<f32>`.
    #[must_use]
    pub const fn mat(columns: u8, rows: u8) -> WgslType {
        WgslType::matrix(columns, rows, PrimitiveType::F32)
    }

    /// `matCxR<T>`.
    #[must_use]
    pub const fn matrix(columns: u8, rows: u8, scalar: PrimitiveType) -> WgslType {
        WgslType::Leaf(LeafType::Matrix {
            columns,
            rows,
            scalar,
        })
    }

    /// `atomic<T>`.
    #[must_use]
    pub const fn atomic(scalar: PrimitiveType) -> WgslType {
        WgslType::Leaf(LeafType::Atomic(scalar))
    }

    /// `array<E, N>`.
    #[must_use]
    pub const fn array(element: &'static WgslType, count: u32) -> WgslType {
        WgslType::Array {
            element,
            count: Some(count),
        }
    }

    /// `array<E>`, runtime-sized.
    #[must_use]
    pub const fn runtime_array(element: &'static WgslType) -> WgslType {
        WgslType::Array {
            element,
            count: None,
        }
    }

    /// Whether this is `array<E>` (runtime-sized).
    #[must_use]
    pub const fn is_runtime_array(&self) -> bool {
        matches!(self, WgslType::Array { count: None, .. })
    }

    /// The type's layout under `space`'s rules, through the `const fn` rules of
    /// `layout::memory`.
    ///
    /// # Errors
    /// The first [`TypeRuleError`] of the type or anything it contains.
    pub const fn layout(&self, space: AddressSpace) -> Result<TypeLayout, TypeRuleError> {
        match self {
            WgslType::Leaf(leaf) => leaf_layout(*leaf, space),
            WgslType::Array { element, count } => match element.layout(space) {
                Ok(element) => array_layout(element, *count, space),
                Err(e) => Err(e),
            },
            WgslType::Struct(s) => match s.offsets::<0>(space) {
                Ok((_, layout)) => Ok(layout),
                Err((_, e)) => Err(e),
            },
        }
    }
}

impl WgslMember {
    /// A member without attributes.
    #[must_use]
    pub const fn new(name: &'static str, ty: WgslType) -> WgslMember {
        WgslMember {
            name,
            ty,
            align: None,
            size: None,
        }
    }

    /// The member with `@align(n)`.
    #[must_use]
    pub const fn with_align(mut self, n: u64) -> WgslMember {
        self.align = Some(n);
        self
    }

    /// The member with `@size(n)`.
    #[must_use]
    pub const fn with_size(mut self, n: u64) -> WgslMember {
        self.size = Some(n);
        self
    }
}

impl WgslStruct {
    /// A struct.
    #[must_use]
    pub const fn new(name: &'static str, members: &'static [WgslMember]) -> WgslStruct {
        WgslStruct { name, members }
    }

    /// The first `N` member offsets (`N` at most the member count; `0` for the layout alone) and
    /// the struct's layout under `space`'s rules.
    ///
    /// # Errors
    /// The index of the member at fault (the member count for problems of the whole struct)
    /// and the rule it breaks.
    pub const fn offsets<const N: usize>(
        &self,
        space: AddressSpace,
    ) -> Result<([u64; N], TypeLayout), (usize, TypeRuleError)> {
        let mut offsets = [0u64; N];
        let mut cursor = MemberCursor::new(space);
        let mut i = 0;
        while i < self.members.len() {
            let member = &self.members[i];
            let ty = match member.ty.layout(space) {
                Ok(ty) => ty,
                Err(e) => return Err((i, e)),
            };
            match cursor.place(ty, member.ty.is_runtime_array(), member.align, member.size) {
                Ok(placed) => {
                    if i < N {
                        offsets[i] = placed.offset;
                    }
                }
                Err(e) => return Err((i, e)),
            }
            i += 1;
        }
        match cursor.finish() {
            Ok(layout) => Ok((offsets, layout)),
            Err(e) => Err((self.members.len(), e)),
        }
    }
}
