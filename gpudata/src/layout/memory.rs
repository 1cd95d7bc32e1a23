//! WGSL's memory layout rules for host-shareable types, one `const fn` per kind of node: leaf
//! types ([`leaf_layout`]), arrays ([`array_layout`]) and struct members ([`MemberCursor`]),
//! under the rules of an [`AddressSpace`].
//!
//! Both tree walkers call these and nothing else: the `const` one over [`WgslType`]
//! (`#[derive(GpuStruct)]`'s expansion) and the run-time one over [`TypeDecl`] (declarations read
//! from strings or JSON), so a layout computed at compile time and one computed at run time
//! cannot disagree. naga's `proc::Layouter` is the test oracle.
//!
//! [`WgslType`]: super::WgslType
//! [`TypeDecl`]: super::TypeDecl

use core::fmt;

use crate::format::{PrimitiveType, ShaderType, wgsl_alignment};

/// A WGSL type without members: a scalar, `vecN<T>`, `matCxR<T>` or `atomic<T>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LeafType {
    /// A scalar.
    Scalar(PrimitiveType),
    /// `vecN<T>`, `N` in 2..=4.
    Vector {
        /// `N`.
        components: u8,
        /// `T`.
        scalar: PrimitiveType,
    },
    /// `matCxR<T>`, `C` and `R` in 2..=4, `T` `f32` or `f16`; `C` columns of `vecR<T>`.
    Matrix {
        /// `C`.
        columns: u8,
        /// `R`.
        rows: u8,
        /// `T`.
        scalar: PrimitiveType,
    },
    /// `atomic<T>`, `T` `u32` or `i32`.
    Atomic(PrimitiveType),
}

impl LeafType {
    /// The scalar every component is.
    #[must_use]
    pub const fn scalar(self) -> PrimitiveType {
        match self {
            LeafType::Scalar(s)
            | LeafType::Vector { scalar: s, .. }
            | LeafType::Matrix { scalar: s, .. }
            | LeafType::Atomic(s) => s,
        }
    }

    /// `(columns, rows)`: `(1, N)` for `vecN`, `(1, 1)` for scalars and atomics.
    #[must_use]
    pub const fn shape(self) -> (u8, u8) {
        match self {
            LeafType::Scalar(_) | LeafType::Atomic(_) => (1, 1),
            LeafType::Vector { components, .. } => (1, components),
            LeafType::Matrix { columns, rows, .. } => (columns, rows),
        }
    }

    /// Scalar components in one value.
    #[must_use]
    pub const fn components(self) -> u32 {
        let (columns, rows) = self.shape();
        columns as u32 * rows as u32
    }

    /// The value a scalar, vector or atomic holds (an atomic its scalar), as the host/shader
    /// checks compare it; `None` for matrices, and for atomics WGSL does not have: its atomics
    /// are `atomic<i32>` and `atomic<u32>` only, though naga parses `atomic<f32>` (allowed by
    /// its validator behind a capability), so an `atomic<f32>` stores no `f32` field.
    #[must_use]
    pub const fn value(self) -> Option<ShaderType> {
        match self {
            LeafType::Scalar(s) => Some(ShaderType::new(s, 1)),
            LeafType::Atomic(s) if is_atomic_scalar(s) => Some(ShaderType::new(s, 1)),
            LeafType::Vector { components, scalar } => {
                Some(ShaderType::new(scalar, components as u32))
            }
            LeafType::Atomic(_) | LeafType::Matrix { .. } => None,
        }
    }
}

/// Whether WGSL has `atomic<scalar>`: `i32` and `u32`.
const fn is_atomic_scalar(scalar: PrimitiveType) -> bool {
    matches!(scalar, PrimitiveType::I32 | PrimitiveType::U32)
}

impl fmt::Display for LeafType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LeafType::Scalar(s) => write!(f, "{s}"),
            LeafType::Vector { components, scalar } => write!(f, "vec{components}<{scalar}>"),
            LeafType::Matrix {
                columns,
                rows,
                scalar,
            } => write!(f, "mat{columns}x{rows}<{scalar}>"),
            LeafType::Atomic(s) => write!(f, "atomic<{s}>"),
        }
    }
}

/// The WGSL address space whose layout rules apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    /// `var<storage>`: WGSL's host-shareable rules (luma.gl's `wgsl-storage`).
    #[default]
    Storage,
    /// `var<uniform>`: the same rules plus the uniform constraints (luma.gl's `wgsl-uniform`):
    /// structs and arrays are 16-byte aligned, struct sizes are multiples of 16 (so the bytes
    /// after a struct member are at least `roundUp(16, SizeOf(S))`), array strides must be
    /// multiples of 16, and runtime-sized arrays are refused.
    Uniform,
}

impl AddressSpace {
    /// The luma.gl layout name: `wgsl-storage` or `wgsl-uniform`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            AddressSpace::Storage => "wgsl-storage",
            AddressSpace::Uniform => "wgsl-uniform",
        }
    }

    /// Looks an address space up by its luma.gl layout name.
    #[must_use]
    pub const fn from_name(name: &str) -> Option<AddressSpace> {
        if crate::format::const_str_eq(name, "wgsl-storage") {
            Some(AddressSpace::Storage)
        } else if crate::format::const_str_eq(name, "wgsl-uniform") {
            Some(AddressSpace::Uniform)
        } else {
            None
        }
    }
}

impl fmt::Display for AddressSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The runtime-sized array at the end of a type: where it starts and how far apart its elements
/// are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeTail {
    /// Byte offset of element 0 from the start of the type.
    pub offset: u64,
    /// Bytes between elements.
    pub stride: u64,
}

/// Alignment and size of a type under one address space's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeLayout {
    /// `AlignOf(T)` (or the uniform `RequiredAlignOf`), in bytes.
    pub alignment: u64,
    /// `SizeOf(T)` in bytes; for a runtime-sized type, its size with one tail element (the
    /// smallest binding a shader accepts, as naga and wgpu count it).
    pub size: u64,
    /// The runtime-sized array at the end, if any.
    pub tail: Option<RuntimeTail>,
}

impl TypeLayout {
    /// Bytes between elements of an array of this type: the size rounded up to the alignment.
    #[must_use]
    pub const fn stride(&self) -> u64 {
        self.size.div_ceil(self.alignment) * self.alignment
    }

    /// Bytes a buffer of this type needs with `elements` tail elements (the size, for a type
    /// without a runtime tail): `roundUp(alignment, tail.offset + elements * tail.stride)`, at
    /// least [`size`](Self::size) (wgpu's minimum binding size). `None` on overflow.
    #[must_use]
    pub const fn byte_length_with(&self, elements: u64) -> Option<u64> {
        let Some(tail) = self.tail else {
            return Some(self.size);
        };
        let Some(bytes) = elements.checked_mul(tail.stride) else {
            return None;
        };
        let Some(end) = tail.offset.checked_add(bytes) else {
            return None;
        };
        match align_up(end, self.alignment) {
            Some(len) if len < self.size => Some(self.size),
            other => other,
        }
    }
}

/// Why a type has no layout: a rule of WGSL's memory model it breaks. Raised by the `const fn`
/// rules, which know nodes, not names; [`LayoutError::Type`](super::LayoutError::Type) adds the
/// path of the member, and the derive a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum TypeRuleError {
    /// A `vecN` with `N` outside 2..=4.
    #[error("vectors have 2, 3 or 4 components, not {components}")]
    InvalidVector {
        /// `N`.
        components: u8,
    },
    /// A matrix with a dimension outside 2..=4 or a non-float scalar.
    #[error(
        "matrices are `matCxR<f32>` or `matCxR<f16>` with C and R in 2..=4, not mat{columns}x{rows}<{scalar}>"
    )]
    InvalidMatrix {
        /// `C`.
        columns: u8,
        /// `R`.
        rows: u8,
        /// The scalar.
        scalar: PrimitiveType,
    },
    /// An atomic of a float.
    #[error("atomics are `atomic<u32>` or `atomic<i32>`, not atomic<{scalar}>")]
    InvalidAtomic {
        /// The scalar.
        scalar: PrimitiveType,
    },
    /// An atomic in the uniform address space.
    #[error("atomics cannot be in the uniform address space; use a storage buffer")]
    AtomicInUniform,
    /// `array<E, 0>`.
    #[error("a fixed-size array needs at least one element")]
    ZeroLengthArray,
    /// An array whose element is runtime-sized, or a runtime-sized struct as a member.
    #[error(
        "a runtime-sized type can only be the last member of the outermost struct, not an array element or a nested struct's member"
    )]
    NestedRuntimeArray,
    /// A runtime-sized array in the uniform address space.
    #[error(
        "runtime-sized arrays cannot be in the uniform address space; use a fixed-size array or a storage buffer"
    )]
    RuntimeArrayInUniform,
    /// A uniform array whose stride is not a multiple of 16.
    #[error(
        "arrays in the uniform address space need a stride that is a multiple of 16, but the element stride is {stride}; use 4-component vectors or a struct element padded with `@size`"
    )]
    UniformArrayStride {
        /// The element stride.
        stride: u64,
    },
    /// A struct with no members.
    #[error("a struct needs at least one member")]
    EmptyStruct,
    /// `@align(n)` with `n` not a power of two.
    #[error("`@align({align})` is not a power of two")]
    AlignNotPowerOfTwo {
        /// `n`.
        align: u64,
    },
    /// `@align(n)` below (or not a multiple of) the type's alignment.
    #[error(
        "`@align({align})` is not a multiple of the member type's alignment {required}; use `@align({required})` or more"
    )]
    AlignBelowRequired {
        /// `n`.
        align: u64,
        /// The type's alignment.
        required: u64,
    },
    /// `@size(n)` below the type's size.
    #[error("`@size({size})` is smaller than the member type's size {required}")]
    SizeBelowRequired {
        /// `n`.
        size: u64,
        /// The type's size.
        required: u64,
    },
    /// `@size` on a runtime-sized member.
    #[error("`@size` cannot apply to a runtime-sized array")]
    SizeOnRuntimeArray,
    /// A member after the runtime-sized array.
    #[error("a runtime-sized array must be the struct's last member")]
    RuntimeArrayNotLast,
    /// Offsets or sizes past `u64::MAX`.
    #[error("offsets or sizes overflow u64")]
    Overflow,
}

impl TypeRuleError {
    /// A lowercase message without numbers, for compile-time panics.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            TypeRuleError::InvalidVector { .. } => "vectors have 2, 3 or 4 components",
            TypeRuleError::InvalidMatrix { .. } => {
                "matrices are `matCxR<f32>` or `matCxR<f16>` with C and R in 2..=4"
            }
            TypeRuleError::InvalidAtomic { .. } => "atomics are `atomic<u32>` or `atomic<i32>`",
            TypeRuleError::AtomicInUniform => "atomics cannot be in the uniform address space",
            TypeRuleError::ZeroLengthArray => "a fixed-size array needs at least one element",
            TypeRuleError::NestedRuntimeArray => {
                "a runtime-sized type can only be the last member of the outermost struct"
            }
            TypeRuleError::RuntimeArrayInUniform => {
                "runtime-sized arrays cannot be in the uniform address space"
            }
            TypeRuleError::UniformArrayStride { .. } => {
                "arrays in the uniform address space need a stride that is a multiple of 16; use 4-component vectors or a struct element"
            }
            TypeRuleError::EmptyStruct => "a struct needs at least one member",
            TypeRuleError::AlignNotPowerOfTwo { .. } => "`align` must be a power of two",
            TypeRuleError::AlignBelowRequired { .. } => {
                "`align` must be a multiple of the field type's alignment"
            }
            TypeRuleError::SizeBelowRequired { .. } => {
                "`size` must be at least the field type's size"
            }
            TypeRuleError::SizeOnRuntimeArray => "`size` cannot apply to a runtime-sized array",
            TypeRuleError::RuntimeArrayNotLast => {
                "a runtime-sized array must be the struct's last field"
            }
            TypeRuleError::Overflow => "offsets or sizes overflow u64",
        }
    }
}

/// Whether `scalar` is `f16` or `f32`.
pub(crate) const fn is_float(scalar: PrimitiveType) -> bool {
    matches!(scalar, PrimitiveType::F16 | PrimitiveType::F32)
}

/// `value` rounded up to a multiple of `align` (a power of two, never zero here).
pub(crate) const fn align_up(value: u64, align: u64) -> Option<u64> {
    match value.checked_add(align - 1) {
        Some(v) => Some(v / align * align),
        None => None,
    }
}

const fn max(a: u64, b: u64) -> u64 {
    if a > b { a } else { b }
}

/// The layout of a leaf type (the same in both address spaces): scalars as wide as they are;
/// `vec2` aligned to its size, `vec3` and `vec4` to four components; `matCxR` as `C` columns of
/// `vecR`, each column a `vecR` alignment apart. Atomics are refused in the uniform space.
///
/// # Errors
/// [`TypeRuleError::InvalidVector`], [`TypeRuleError::InvalidMatrix`],
/// [`TypeRuleError::InvalidAtomic`], [`TypeRuleError::AtomicInUniform`].
pub const fn leaf_layout(leaf: LeafType, space: AddressSpace) -> Result<TypeLayout, TypeRuleError> {
    const fn vector(components: u8, width: u64) -> (u64, u64) {
        (wgsl_alignment(components, width), components as u64 * width)
    }
    let (alignment, size) = match leaf {
        LeafType::Scalar(s) => (s.byte_length(), s.byte_length()),
        LeafType::Vector { components, scalar } => {
            if components < 2 || components > 4 {
                return Err(TypeRuleError::InvalidVector { components });
            }
            vector(components, scalar.byte_length())
        }
        LeafType::Matrix {
            columns,
            rows,
            scalar,
        } => {
            if columns < 2 || columns > 4 || rows < 2 || rows > 4 || !is_float(scalar) {
                return Err(TypeRuleError::InvalidMatrix {
                    columns,
                    rows,
                    scalar,
                });
            }
            let (align, _) = vector(rows, scalar.byte_length());
            (align, columns as u64 * align)
        }
        LeafType::Atomic(scalar) => {
            if !is_atomic_scalar(scalar) {
                return Err(TypeRuleError::InvalidAtomic { scalar });
            }
            if let AddressSpace::Uniform = space {
                return Err(TypeRuleError::AtomicInUniform);
            }
            (4, 4)
        }
    };
    Ok(TypeLayout {
        alignment,
        size,
        tail: None,
    })
}

/// The layout of `array<E, count>` (`count` `None`: `array<E>`, runtime-sized) whose element
/// lays out as `element`: stride `roundUp(AlignOf(E), SizeOf(E))`; in the uniform space the
/// stride must be a multiple of 16 and the alignment is raised to 16.
///
/// # Errors
/// [`TypeRuleError::ZeroLengthArray`], [`TypeRuleError::NestedRuntimeArray`] (a runtime-sized
/// element), [`TypeRuleError::RuntimeArrayInUniform`], [`TypeRuleError::UniformArrayStride`],
/// [`TypeRuleError::Overflow`].
pub const fn array_layout(
    element: TypeLayout,
    count: Option<u32>,
    space: AddressSpace,
) -> Result<TypeLayout, TypeRuleError> {
    if element.tail.is_some() {
        return Err(TypeRuleError::NestedRuntimeArray);
    }
    let Some(stride) = align_up(element.size, element.alignment) else {
        return Err(TypeRuleError::Overflow);
    };
    let mut alignment = element.alignment;
    if let AddressSpace::Uniform = space {
        if count.is_none() {
            return Err(TypeRuleError::RuntimeArrayInUniform);
        }
        if !stride.is_multiple_of(16) {
            return Err(TypeRuleError::UniformArrayStride { stride });
        }
        alignment = max(alignment, 16);
    }
    match count {
        Some(0) => Err(TypeRuleError::ZeroLengthArray),
        Some(n) => match stride.checked_mul(n as u64) {
            Some(size) => Ok(TypeLayout {
                alignment,
                size,
                tail: None,
            }),
            None => Err(TypeRuleError::Overflow),
        },
        None => Ok(TypeLayout {
            alignment,
            size: stride,
            tail: Some(RuntimeTail { offset: 0, stride }),
        }),
    }
}

/// Where one member went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemberPlacement {
    /// Byte offset in the struct.
    pub offset: u64,
    /// The member's alignment (`@align` or its type's).
    pub alignment: u64,
    /// The bytes it claims (`@size` or its type's size).
    pub size: u64,
}

/// Places a struct's members one at a time (WGSL: each member at the next multiple of its
/// alignment after the previous member's size; the struct aligned to its largest member and
/// sized to a multiple of that; in the uniform space aligned to at least 16).
///
/// ```
/// use gpudata::format::PrimitiveType;
/// use gpudata::layout::{AddressSpace, LeafType, MemberCursor, leaf_layout};
///
/// let space = AddressSpace::Storage;
/// let vec3 = LeafType::Vector { components: 3, scalar: PrimitiveType::F32 };
/// let vec3 = leaf_layout(vec3, space).unwrap();
/// let f32 = leaf_layout(LeafType::Scalar(PrimitiveType::F32), space).unwrap();
/// let mut cursor = MemberCursor::new(space);
/// assert_eq!(cursor.place(f32, false, None, None).unwrap().offset, 0);
/// assert_eq!(cursor.place(vec3, false, None, None).unwrap().offset, 16);
/// assert_eq!(cursor.place(f32, false, None, None).unwrap().offset, 28);
/// assert_eq!(cursor.finish().unwrap().size, 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberCursor {
    space: AddressSpace,
    next: u64,
    alignment: u64,
    members: usize,
    tail: Option<RuntimeTail>,
}

impl MemberCursor {
    /// An empty struct under `space`'s rules.
    #[must_use]
    pub const fn new(space: AddressSpace) -> MemberCursor {
        MemberCursor {
            space,
            next: 0,
            alignment: 1,
            members: 0,
            tail: None,
        }
    }

    /// Members placed so far.
    #[must_use]
    pub const fn members(&self) -> usize {
        self.members
    }

    /// Places the next member, of a type laid out as `ty` (`runtime_array`: the type is
    /// `array<E>` itself, which only the last member may be), with its `@align` and `@size`.
    ///
    /// # Errors
    /// [`TypeRuleError::RuntimeArrayNotLast`], [`TypeRuleError::NestedRuntimeArray`] (a member
    /// whose type is a struct ending in a runtime array), [`TypeRuleError::AlignNotPowerOfTwo`],
    /// [`TypeRuleError::AlignBelowRequired`], [`TypeRuleError::SizeBelowRequired`],
    /// [`TypeRuleError::SizeOnRuntimeArray`], [`TypeRuleError::Overflow`].
    pub const fn place(
        &mut self,
        ty: TypeLayout,
        runtime_array: bool,
        align: Option<u64>,
        size: Option<u64>,
    ) -> Result<MemberPlacement, TypeRuleError> {
        if self.tail.is_some() {
            return Err(TypeRuleError::RuntimeArrayNotLast);
        }
        if ty.tail.is_some() && !runtime_array {
            return Err(TypeRuleError::NestedRuntimeArray);
        }
        let alignment = match align {
            None => ty.alignment,
            Some(n) => {
                if n == 0 || !n.is_power_of_two() {
                    return Err(TypeRuleError::AlignNotPowerOfTwo { align: n });
                }
                if !n.is_multiple_of(ty.alignment) {
                    return Err(TypeRuleError::AlignBelowRequired {
                        align: n,
                        required: ty.alignment,
                    });
                }
                n
            }
        };
        let claimed = match size {
            None => ty.size,
            Some(_) if ty.tail.is_some() => return Err(TypeRuleError::SizeOnRuntimeArray),
            Some(n) => {
                if n < ty.size {
                    return Err(TypeRuleError::SizeBelowRequired {
                        size: n,
                        required: ty.size,
                    });
                }
                n
            }
        };
        let Some(offset) = align_up(self.next, alignment) else {
            return Err(TypeRuleError::Overflow);
        };
        let Some(next) = offset.checked_add(claimed) else {
            return Err(TypeRuleError::Overflow);
        };
        if let Some(tail) = ty.tail {
            self.tail = Some(RuntimeTail {
                offset: offset + tail.offset,
                stride: tail.stride,
            });
        }
        self.next = next;
        self.alignment = max(self.alignment, alignment);
        self.members += 1;
        Ok(MemberPlacement {
            offset,
            alignment,
            size: claimed,
        })
    }

    /// The struct's layout.
    ///
    /// # Errors
    /// [`TypeRuleError::EmptyStruct`], [`TypeRuleError::Overflow`].
    pub const fn finish(&self) -> Result<TypeLayout, TypeRuleError> {
        if self.members == 0 {
            return Err(TypeRuleError::EmptyStruct);
        }
        let alignment = match self.space {
            AddressSpace::Storage => self.alignment,
            AddressSpace::Uniform => max(self.alignment, 16),
        };
        match align_up(self.next, alignment) {
            Some(size) => Ok(TypeLayout {
                alignment,
                size,
                tail: self.tail,
            }),
            None => Err(TypeRuleError::Overflow),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        let big = TypeLayout {
            alignment: 16,
            size: u64::MAX - 8,
            tail: None,
        };
        assert_eq!(
            array_layout(big, Some(2), AddressSpace::Storage),
            Err(TypeRuleError::Overflow)
        );
        let mut cursor = MemberCursor::new(AddressSpace::Storage);
        let small = TypeLayout {
            alignment: 4,
            size: 4,
            tail: None,
        };
        assert!(cursor.place(small, false, None, Some(u64::MAX - 2)).is_ok());
        assert_eq!(
            cursor.place(small, false, None, None),
            Err(TypeRuleError::Overflow)
        );
        let mut cursor = MemberCursor::new(AddressSpace::Storage);
        assert!(cursor.place(big, false, None, None).is_ok());
        assert_eq!(cursor.finish(), Err(TypeRuleError::Overflow));
        let tail = array_layout(small, None, AddressSpace::Storage).unwrap();
        assert_eq!(tail.byte_length_with(u64::MAX), None);
        assert_eq!(tail.byte_length_with(0), Some(4));
        assert_eq!(tail.byte_length_with(3), Some(12));
    }

    #[test]
    fn messages_for_compile_time_panics_are_lowercase() {
        let all = [
            TypeRuleError::InvalidVector { components: 5 },
            TypeRuleError::InvalidMatrix {
                columns: 1,
                rows: 2,
                scalar: PrimitiveType::F32,
            },
            TypeRuleError::InvalidAtomic {
                scalar: PrimitiveType::F32,
            },
            TypeRuleError::AtomicInUniform,
            TypeRuleError::ZeroLengthArray,
            TypeRuleError::NestedRuntimeArray,
            TypeRuleError::RuntimeArrayInUniform,
            TypeRuleError::UniformArrayStride { stride: 4 },
            TypeRuleError::EmptyStruct,
            TypeRuleError::AlignNotPowerOfTwo { align: 3 },
            TypeRuleError::AlignBelowRequired {
                align: 4,
                required: 16,
            },
            TypeRuleError::SizeBelowRequired {
                size: 4,
                required: 12,
            },
            TypeRuleError::SizeOnRuntimeArray,
            TypeRuleError::RuntimeArrayNotLast,
            TypeRuleError::Overflow,
        ];
        for e in all {
            for m in [e.message().to_owned(), e.to_string()] {
                assert!(m.starts_with(|c: char| c.is_lowercase() || c == '`'), "{m}");
            }
        }
    }
}
