//! GPU data over real wgpu buffers: [`GpuData`] (a buffer plus typed row metadata, owning or
//! sharing its buffer), [`GpuDataView`] (a borrowed, strided view of one fixed-width format),
//! their typed forms [`TypedGpuData`] and [`TypedGpuDataView`] for `#[derive(GpuStruct)]` rows,
//! [`GpuConstant`] (one value of one format for every row), uploads, readbacks, host decoding
//! and binding helpers.
//!
//! Corresponds to luma.gl's `GPUData` and `GPUDataView`; the derivation and validation rules are
//! luma.gl's, plus the checks a Rust caller expects (the described bytes lie inside the buffer;
//! no arithmetic overflows).

mod binding;
mod constant;
mod decode;
mod error;
mod gpu_data;
mod metadata;
mod ownership;
mod readback;
mod typed;
mod upload;
mod view;

pub use binding::VertexBinding;
pub(crate) use binding::rows_layout;
pub use constant::{CONSTANT_BUFFER_BYTES, CONSTANT_USAGE, GpuConstant};
pub use decode::{HostValues, decode_values};
pub use error::DataError;
pub use gpu_data::{GpuData, GpuDataDescriptor, GpuDataFormat, MetricsPolicy, RowMetrics};
pub use metadata::{ReadbackMetadata, RowMetadata};
pub use ownership::BufferHandle;
#[doc(hidden)]
pub use typed::VertexSetMember;
pub use typed::{
    DrawRows, GpuStorage, GpuUniform, GpuUniformArray, Growth, StorageError, TypedGpuData,
    TypedGpuDataView, UniformError, VertexBufferSet,
};
pub use upload::DEFAULT_USAGE;
pub use view::GpuDataView;
