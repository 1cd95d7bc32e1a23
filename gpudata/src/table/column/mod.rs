//! The column model: vectors, the schema, record batches and the table (whose constants are
//! [`GpuConstant`](crate::GpuConstant)s).

pub(crate) mod append;
pub(crate) mod batch;
pub(crate) mod chunk_options;
pub(crate) mod chunked;
pub(crate) mod chunked_ops;
pub(crate) mod schema;
pub(crate) mod table;
pub(crate) mod uploads;
pub(crate) mod vector;
