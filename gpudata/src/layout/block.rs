//! [`ShaderBlockLayout`]: a struct's leaves flattened with luma.gl's names (`c.x`, `b[1]`), each
//! with its offset, size and shape, as luma.gl's `makeShaderBlockLayout` reports them (in bytes,
//! where luma.gl counts 32-bit words).

use super::decl::{StructDecl, TypeDecl, member_path};
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

impl StructDecl {
    /// The struct's leaves in `space`, luma.gl's `makeShaderBlockLayout(types, {layout})` shape.
    ///
    /// # Errors
    /// [`LayoutError::Type`] when the struct has no layout in `space`.
    pub fn block_layout(&self, space: AddressSpace) -> Result<ShaderBlockLayout, LayoutError> {
        let (_, layout) = self.placements(space)?;
        let mut fields = Vec::new();
        add(&mut fields, "", &TypeDecl::Struct(self.clone()), 0, space)?;
        Ok(ShaderBlockLayout {
            layout: space,
            byte_length: layout.size,
            fields,
        })
    }
}
