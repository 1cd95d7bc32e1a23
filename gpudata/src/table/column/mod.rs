//! The column model: vectors, constants, the schema, record batches and the table.

pub(crate) mod append;
pub(crate) mod batch;
pub(crate) mod chunk_options;
pub(crate) mod chunked;
pub(crate) mod chunked_ops;
pub(crate) mod constant;
pub(crate) mod schema;
pub(crate) mod table;
pub(crate) mod vector;
