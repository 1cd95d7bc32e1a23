//! Lowering a type tree to a flat row format ([`StructDecl::row_format`]): its leaves (scalars,
//! vectors, one leaf per matrix column) with luma.gl's names (`light.color`, `bones[2]`,
//! `transform[3]`), placed by WGSL's memory model under `wgsl-storage`/`wgsl-uniform`, or one
//! after another by the vertex rules of the flat engine under `packed` (a `mat4x4<f32>` is four
//! `float32x4` fields). `#[derive(GpuStruct)]` lowers derived types by the same rules in `const`.

use super::block::BlockField;
use super::decl::{StructDecl, TypeDecl};
use super::memory::{AddressSpace, LeafType};
use super::rules::{RowShape, StructLayout};
use super::struct_format::{GpuDataStructField, GpuDataStructFormat};
use crate::format::{PrimitiveType, VertexFormat};
use crate::layout::LayoutError;

impl LeafType {
    /// The vertex format of a scalar, vector or atomic leaf whose bytes it is (`vec3<f32>` is
    /// `float32x3`); `None` for matrices (lowered column by column) and for `vec3<f16>`, which
    /// no vertex format holds.
    #[must_use]
    pub const fn vertex_format(self) -> Option<VertexFormat> {
        let (scalar, n) = match self {
            LeafType::Scalar(s) | LeafType::Atomic(s) => (s, 1),
            LeafType::Vector { components, scalar } => (scalar, components),
            LeafType::Matrix { .. } => return None,
        };
        Some(match (scalar, n) {
            (PrimitiveType::F32, 1) => VertexFormat::Float32,
            (PrimitiveType::F32, 2) => VertexFormat::Float32x2,
            (PrimitiveType::F32, 3) => VertexFormat::Float32x3,
            (PrimitiveType::F32, 4) => VertexFormat::Float32x4,
            (PrimitiveType::I32, 1) => VertexFormat::Sint32,
            (PrimitiveType::I32, 2) => VertexFormat::Sint32x2,
            (PrimitiveType::I32, 3) => VertexFormat::Sint32x3,
            (PrimitiveType::I32, 4) => VertexFormat::Sint32x4,
            (PrimitiveType::U32, 1) => VertexFormat::Uint32,
            (PrimitiveType::U32, 2) => VertexFormat::Uint32x2,
            (PrimitiveType::U32, 3) => VertexFormat::Uint32x3,
            (PrimitiveType::U32, 4) => VertexFormat::Uint32x4,
            (PrimitiveType::F16, 1) => VertexFormat::Float16,
            (PrimitiveType::F16, 2) => VertexFormat::Float16x2,
            (PrimitiveType::F16, 4) => VertexFormat::Float16x4,
            _ => return None,
        })
    }

    /// The leaf a matrix column is (`vecR<T>`); the leaf itself for everything else.
    #[must_use]
    pub const fn column(self) -> LeafType {
        match self {
            LeafType::Matrix { rows, scalar, .. } => LeafType::Vector {
                components: rows,
                scalar,
            },
            other => other,
        }
    }
}

fn has_runtime_array(ty: &TypeDecl) -> Option<&str> {
    match ty {
        TypeDecl::Leaf(_) => None,
        TypeDecl::Array { count: None, .. } => Some(""),
        TypeDecl::Array { element, .. } => has_runtime_array(element),
        TypeDecl::Struct(s) => s
            .members
            .iter()
            .find_map(|m| has_runtime_array(&m.ty).map(|_| m.name.as_str())),
    }
}

/// The row-format fields of one block leaf: itself, or one per matrix column (`view[3]`).
fn leaf_fields(
    path: &str,
    field: &BlockField,
    out: &mut Vec<(String, VertexFormat, u64)>,
) -> Result<(), LayoutError> {
    let column = field.shader_type.column();
    let format = column
        .vertex_format()
        .ok_or_else(|| LayoutError::NoVertexFormat {
            field: path.to_owned(),
            leaf: field.shader_type,
        })?;
    if let LeafType::Matrix { columns, .. } = field.shader_type {
        for c in 0..u64::from(columns) {
            out.push((
                format!("{path}[{c}]"),
                format,
                field.offset + c * field.column_stride,
            ));
        }
    } else {
        out.push((path.to_owned(), format, field.offset));
    }
    Ok(())
}

impl StructDecl {
    /// The struct's row format (a [`GpuDataStructFormat`]) under `layout`: one field per leaf
    /// (scalar, vector, atomic; one per matrix column) with luma.gl's names (`light.color`,
    /// `bones[2]`, `transform[3]`). Under `wgsl-storage` and `wgsl-uniform` every leaf sits where
    /// WGSL's memory model puts it in that address space and the stride is the struct's size;
    /// under `packed` the leaves follow one another by WebGPU's vertex rules (offsets aligned
    /// to `min(4, size)`, stride a multiple of 4), so a `mat4x4<f32>` becomes four `float32x4`
    /// fields at consecutive vertex locations. `#[derive(GpuStruct)]` computes the same format
    /// in `const` for derived types.
    ///
    /// ```
    /// use gpudata::layout::StructDecl;
    /// use gpudata::{StructLayout, VertexFormat};
    ///
    /// let decl = StructDecl::parse("Instance", "transform: mat4x4<f32>, tint: vec3<f32>, id: u32")?;
    /// let packed = decl.row_format(StructLayout::Packed)?;
    /// let names: Vec<&str> = packed.fields().iter().map(|f| f.name()).collect();
    /// assert_eq!(names, ["transform[0]", "transform[1]", "transform[2]", "transform[3]", "tint", "id"]);
    /// assert_eq!(packed.fields()[3].format(), VertexFormat::Float32x4);
    /// assert_eq!((packed.fields()[5].byte_offset(), packed.byte_stride()), (76, 80));
    /// let storage = decl.row_format(StructLayout::WgslStorage)?;
    /// assert_eq!((storage.fields()[5].byte_offset(), storage.byte_stride()), (76, 80));
    /// # Ok::<(), gpudata::LayoutError>(())
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::RuntimeArrayInRow`] for a runtime-sized array anywhere in the struct (a
    /// row has a fixed size), [`LayoutError::NoVertexFormat`] for a `vec3<f16>` leaf (or a
    /// `matCx3<f16>` column), [`LayoutError::Type`] when WGSL's rules give the struct no layout
    /// in the address space, [`LayoutError::DuplicateField`] for two leaves of one name, and
    /// under `packed` [`GpuDataStructFormat::new`]'s errors.
    pub fn row_format(&self, layout: StructLayout) -> Result<GpuDataStructFormat, LayoutError> {
        if let Some(member) = self
            .members
            .iter()
            .find(|m| has_runtime_array(&m.ty).is_some())
        {
            return Err(LayoutError::RuntimeArrayInRow {
                field: member.name.clone(),
            });
        }
        let space = match layout {
            StructLayout::WgslUniform => AddressSpace::Uniform,
            StructLayout::WgslStorage | StructLayout::Packed => AddressSpace::Storage,
        };
        let block = self.block_layout(space)?;
        let mut leaves = Vec::with_capacity(block.fields.len());
        for (path, field) in &block.fields {
            leaf_fields(path, field, &mut leaves)?;
        }
        if layout == StructLayout::Packed {
            return GpuDataStructFormat::new(
                layout,
                leaves.into_iter().map(|(name, format, _)| (name, format)),
            );
        }
        let (_, whole) = self.placements(space)?;
        let row_end = leaves
            .iter()
            .map(|(_, format, offset)| offset + format.byte_length())
            .max()
            .unwrap_or(0);
        let components = leaves.iter().map(|(_, f, _)| f.components()).sum();
        let fields = leaves
            .into_iter()
            .map(|(name, format, offset)| GpuDataStructField::new_placed(name, format, offset))
            .collect();
        GpuDataStructFormat::from_placed(
            layout,
            fields,
            RowShape {
                components,
                row_byte_length: row_end,
                byte_stride: whole.size,
                alignment: whole.alignment,
            },
        )
    }
}
