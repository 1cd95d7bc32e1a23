//! The layout engines: flat rows ([`StructLayout`] rules, the `const fn` [`LayoutCursor`],
//! [`GpuDataStructFormat`], vertex [`BufferLayout`]s and their lowering to wgpu, the one way to a
//! [`VertexLayout`] from anything a vertex stage reads, [`VertexLayoutSource`]) and WGSL's
//! memory model over type trees (`const fn` rules for every host-shareable type, the `'static`
//! [`WgslType`] and the owned [`TypeDecl`], WGSL text for both address spaces).

mod block;
mod buffer_layout;
mod decl;
mod error;
mod field_name;
mod limits;
mod lower;
mod memory;
mod parse_type;
mod rules;
mod span;
mod struct_format;
mod vertex_layout;
mod wgsl;
mod wgsl_decl;
mod wgsl_type;

pub use block::{BlockField, ShaderBlockLayout};
pub use buffer_layout::{BufferAttribute, BufferLayout, StepMode, WgpuVertexLayout};
pub(crate) use buffer_layout::{FLOAT32_PLACEHOLDER, vertex_attribute};
#[cfg(feature = "serde")]
pub(crate) use decl::member_path;
pub use decl::{MemberDecl, StructDecl, TypeDecl};
pub use error::{LayoutError, WgslError};
pub use field_name::FieldNameProblem;
pub(crate) use field_name::check_field_name;
pub use limits::DeclarationLimits;
pub use memory::{
    AddressSpace, LeafType, MemberPlacement, RuntimeTail, TypeLayout, TypeRuleError, array_layout,
    leaf_layout,
};
pub use rules::{LayoutRuleError, StructLayout};
// The `const fn` engine's parts: the derive's expansion and the layout tests reach them; users
// reach layouts through `GpuDataStructFormat`, `StructDecl` and `GpuStruct::FORMAT`.
#[doc(hidden)]
pub use memory::MemberCursor;
#[doc(hidden)]
pub use rules::{ConstLayout, LayoutCursor, RowShape, layout_formats};
pub(crate) use span::{remove_stride, strided_byte_length};
pub use struct_format::{GpuDataStructField, GpuDataStructFormat};
pub use vertex_layout::{VertexLayout, VertexLayoutSource};
pub(crate) use wgsl::check_name as check_wgsl_name;
pub use wgsl_type::{WgslMember, WgslStruct, WgslType};
