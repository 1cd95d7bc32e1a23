//! The checks of [`impl_gpu_field!`](crate::impl_gpu_field) (and of the crate's own field impls):
//! a field type is plain data and as long as its format. Reached by the macro's expansion as
//! `$crate::__private::NAME`.

use super::tree::{Msg, fail};
use crate::format::VertexFormat;

/// A type `impl_gpu_field!` accepts: plain data in bytemuck's sense.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `bytemuck::Pod`, so `impl_gpu_field!` cannot make it a gpu field",
    label = "not plain data",
    note = "derive `bytemuck::Pod` and `bytemuck::Zeroable` on a `#[repr(C)]` or `#[repr(transparent)]` type, or write `unsafe impl gpudata::GpuField` and uphold its safety contract"
)]
pub trait PlainField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PlainField for T {}

/// `impl_gpu_field!`'s checks: `T` is plain data (a trait bound) and as long as `format`.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_plain_field<T: PlainField>(type_name: &str, format: VertexFormat) {
    check_field_size::<T>(type_name, format);
}

/// Checks that a field type is as long as its format.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_field_size<T>(type_name: &str, format: VertexFormat) {
    let size = size_of::<T>() as u64;
    if size != format.byte_length() {
        let msg = Msg::new()
            .str("`")
            .str(type_name)
            .str("` is ")
            .num(size)
            .str(" bytes, but format `")
            .str(format.as_str())
            .str("` is ")
            .num(format.byte_length())
            .str(" bytes; name a format as long as the type");
        fail(&msg);
    }
}
