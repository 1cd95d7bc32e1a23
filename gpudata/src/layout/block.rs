//! [`ShaderBlockLayout`]: a struct's leaves flattened with luma.gl's names (`c.x`, `b[1]`), each
//! with its offset, size and shape, as luma.gl's `makeShaderBlockLayout` reports them (in bytes,
//! where luma.gl counts 32-bit words).

use super::decl::{StructDecl, TypeDecl, member_path};
use super::limits::DeclarationLimits;
use super::memory::{AddressSpace, LeafType};
use crate::format::PrimitiveType;
use crate::layout::LayoutError;

/// One leaf of a [`ShaderBlockLayout`]: a scalar, vector or matrix member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockField {
    /// Byte offset from the start of the block.
    pub offset: u64,
    /// Bytes the value occupies (a matrix: `columns * column_stride`), without array padding.
    pub size: u64,
    /// Scalar components of the value.
    pub components: u32,
    /// Matrix columns, 1 for scalars and vectors.
    pub columns: u32,
    /// Rows of a column, the vector length, 1 for scalars.
    pub rows: u32,
    /// Bytes between matrix columns (a vector's or scalar's size otherwise).
    pub column_stride: u64,
    /// The WGSL type (`mat4x4<f32>`).
    pub shader_type: LeafType,
    /// The scalar type its components are written as.
    pub scalar: PrimitiveType,
}

/// A struct's layout flattened to its leaves, in luma.gl's `ShaderBlockLayout` shape (with
/// feature `serde` it serializes as `{layout, byteLength, fields: {"c.x": {offset, size,
/// components, columns, rows, columnStride, shaderType, type}}}`), with **byte** offsets and sizes
/// (luma.gl counts 32-bit words: divide by 4 to compare). Arrays expand per element (`b[0]`,
/// `b[1]`; arrays of arrays `m[0][1]`, which luma.gl refuses); a runtime-sized tail has no
/// elements to list and is left out (its offset and stride are in [`StructDecl::placements`]).
///
/// ```
/// use gpudata::layout::{AddressSpace, StructDecl};
///
/// let block = StructDecl::parse("Block", "a: vec3<f32>, b: array<mat2x2<f32>, 2>, c: f32")?
///     .block_layout(AddressSpace::Uniform)?;
/// assert_eq!(block.byte_length, 64);
/// assert_eq!(block.field("b[1]").unwrap().offset, 32);
/// assert_eq!(block.field("b[1]").unwrap().column_stride, 8);
/// assert_eq!(block.field("c").unwrap().offset, 48);
/// # Ok::<(), gpudata::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderBlockLayout {
    /// The rules.
    pub layout: AddressSpace,
    /// Bytes of the whole block (`SizeOf` the struct).
    pub byte_length: u64,
    /// The leaves by path, in declaration order.
    pub fields: Vec<(String, BlockField)>,
}

impl ShaderBlockLayout {
    /// The leaf at `path` (`"lights[1].color"`).
    #[must_use]
    pub fn field(&self, path: &str) -> Option<&BlockField> {
        self.fields.iter().find(|(p, _)| p == path).map(|(_, f)| f)
    }
}

fn add(
    fields: &mut Vec<(String, BlockField)>,
    path: &str,
    ty: &TypeDecl,
    offset: u64,
    space: AddressSpace,
) -> Result<(), LayoutError> {
    match ty {
        TypeDecl::Leaf(leaf) => {
            let layout = ty.layout_at(space, path)?;
            let (columns, rows) = leaf.shape();
            let width = leaf.scalar().byte_length();
            let column_stride = match leaf {
                LeafType::Matrix { .. } => layout.size / u64::from(columns),
                _ => u64::from(rows) * width,
            };
            fields.push((
                path.to_owned(),
                BlockField {
                    offset,
                    size: u64::from(columns) * column_stride,
                    components: leaf.components(),
                    columns: u32::from(columns),
                    rows: u32::from(rows),
                    column_stride,
                    shader_type: *leaf,
                    scalar: leaf.scalar(),
                },
            ));
        }
        TypeDecl::Array { element, count } => {
            let stride = element.layout_at(space, &format!("{path}[]"))?.stride();
            for i in 0..count.unwrap_or(0) {
                add(
                    fields,
                    &format!("{path}[{i}]"),
                    element,
                    offset + u64::from(i) * stride,
                    space,
                )?;
            }
        }
        TypeDecl::Struct(s) => {
            let (placed, _) = s.placements_at(space, path)?;
            for (member, at) in s.members.iter().zip(placed) {
                add(
                    fields,
                    &member_path(path, &member.name),
                    &member.ty,
                    offset + at.offset,
                    space,
                )?;
            }
        }
    }
    Ok(())
}

/// How many leaves `ty` flattens to (arrays per element, a runtime-sized tail none), or `None`
/// past `u64`.
fn leaf_count(ty: &TypeDecl) -> Option<u64> {
    match ty {
        TypeDecl::Leaf(_) => Some(1),
        TypeDecl::Array { element, count } => {
            u64::from(count.unwrap_or(0)).checked_mul(leaf_count(element)?)
        }
        TypeDecl::Struct(s) => s
            .members
            .iter()
            .try_fold(0u64, |sum, m| sum.checked_add(leaf_count(&m.ty)?)),
    }
}

impl StructDecl {
    /// The struct's leaves in `space`, luma.gl's `makeShaderBlockLayout(types, {layout})` shape,
    /// at most [`DeclarationLimits::MAX_FIELDS`] of them
    /// ([`block_layout_with_limits`](Self::block_layout_with_limits) takes another bound): the
    /// leaves are counted before any is listed, so `array<f32, 4000000000>` is refused at once.
    ///
    /// # Errors
    /// [`LayoutError::Type`] when the struct has no layout in `space`,
    /// [`LayoutError::TooManyFields`].
    pub fn block_layout(&self, space: AddressSpace) -> Result<ShaderBlockLayout, LayoutError> {
        self.block_layout_with_limits(space, &DeclarationLimits::DEFAULT)
    }

    /// [`block_layout`](Self::block_layout) with at most `limits.max_fields` leaves.
    ///
    /// # Errors
    /// As [`block_layout`](Self::block_layout).
    pub fn block_layout_with_limits(
        &self,
        space: AddressSpace,
        limits: &DeclarationLimits,
    ) -> Result<ShaderBlockLayout, LayoutError> {
        let (_, layout) = self.placements(space)?;
        let root = TypeDecl::Struct(self.clone());
        let count = leaf_count(&root)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= limits.max_fields)
            .ok_or(LayoutError::TooManyFields {
                max: limits.max_fields,
            })?;
        let mut fields = Vec::with_capacity(count);
        add(&mut fields, "", &root, 0, space)?;
        Ok(ShaderBlockLayout {
            layout: space,
            byte_length: layout.size,
            fields,
        })
    }
}
