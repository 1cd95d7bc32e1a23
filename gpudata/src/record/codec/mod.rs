//! The host row codec: [`GpuStruct`](crate::GpuStruct) rows, [`GpuField`](crate::GpuField)
//! values and runtime-sized structs to and from their GPU bytes.
//!
//! - `rows.rs`: slices of rows (one `memcpy` when the host layout is the GPU layout, the
//!   per-field encoder otherwise, threaded for large outputs) and one row by its copy table;
//! - `plan.rs`: the copy plans (merged runs, 16-byte chunks built in registers) worked out once
//!   per type in `const` items;
//! - `split.rs`: the one rule that splits rows over threads (the threaded encode, `decode_rows`
//!   and the readback decode);
//! - `copy.rs`: the one copy routine every table-driven encode and decode goes through;
//! - `tail.rs`: a runtime-sized struct's header plus elements;
//! - `bytes.rs`: the bytes of field values.
//!
//! Everything public here is public as `gpudata::record::NAME`.

mod bytes;
mod copy;
mod plan;
mod rows;
mod split;
mod tail;

pub(crate) use bytes::read_fields;
pub use bytes::{field_bytes, fields_as_bytes, read_field};
pub use rows::{
    RowBytesError, THREADED_ENCODE_BYTES, decode_rows, decode_rows_on, encode_rows, encode_rows_on,
    encode_rows_to_vec, rows_as_bytes,
};
pub(crate) use rows::{
    decode_row_by_table, decode_rows_strided, encode_row_by_table, host_field_bytes,
    rows_as_bytes_mut, zeroed_rows,
};
pub(crate) use tail::{decode_elements, encode_elements};
pub use tail::{decode_runtime, encode_runtime};
