//! Every error type of the crate, re-exported from the area it belongs to (each area keeps its
//! enum beside its code: `format/error.rs`, `layout/error.rs`, `data/error.rs`, ...). Messages
//! are lowercase, state what was expected and what was found, and name the field, format or
//! value involved.

#[cfg(feature = "arrow")]
pub use crate::arrow::ArrowInteropError;
#[cfg(feature = "arrow")]
pub use crate::arrow::convert::ConversionError;
#[cfg(feature = "arrow")]
pub use crate::arrow::stream::IngestError;
pub use crate::bind::BindError;
#[cfg(feature = "naga")]
pub use crate::check::{
    BindGroupCheckError, BindingMismatchError, MismatchError, ShaderCheckError,
};
pub use crate::data::DataError;
pub use crate::data::StorageError;
pub use crate::data::UniformError;
pub use crate::device::{GpuError, HostDmaError, WgpuError};
pub use crate::format::FormatError;
pub use crate::layout::{LayoutError, LayoutRuleError, TypeRuleError, WgslError};
pub use crate::ops::OpError;
pub use crate::record::RowBytesError;
pub use crate::table::{ChunkMapError, PickError, TableError};
