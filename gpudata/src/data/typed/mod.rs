//! Typed buffers, one home: [`TypedGpuData`] and [`TypedGpuDataView`] (rows of a
//! `#[derive(GpuStruct)]` type, children chosen by field marker at compile time), [`GpuUniform`]
//! and [`GpuUniformArray`] (values of a `wgsl-uniform` struct, the array at the device's
//! dynamic-offset alignment) and [`GpuStorage`] (one value of a runtime-sized struct: a header
//! plus N elements). Each gives the `min_binding_size` and bind group layout entry of its
//! binding (`bindings.rs` for typed rows, bound as a storage or uniform array).
//! [`VertexBufferSet`] is a pipeline's vertex buffers as a tuple of row types, slot order.

mod bindings;
mod rows;
mod storage;
mod storage_error;
mod uniform;
mod uniform_error;
mod vertex_set;

pub use rows::{TypedGpuData, TypedGpuDataView};
pub use storage::{GpuStorage, Growth};
pub use storage_error::StorageError;
pub use uniform::{GpuUniform, GpuUniformArray};
pub use uniform_error::UniformError;
pub use vertex_set::{DrawRows, VertexBufferSet, VertexSetMember};
