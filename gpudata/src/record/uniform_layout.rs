//! [`UniformLayout`]: the derived structs laid out by WGSL's uniform address-space rules, the
//! only ones a uniform buffer holds.

use super::GpuStruct;

/// A [`GpuStruct`] laid out by the uniform rules (`#[gpu(layout = "wgsl-uniform")]`), so its
/// row bytes are what `var<uniform> u: T;` reads: what
/// [`GpuUniform`](crate::data::GpuUniform) and
/// [`GpuUniformArray`](crate::data::GpuUniformArray) hold.
///
/// `#[derive(GpuStruct)]` implements it for every `wgsl-uniform` struct; a struct of another
/// layout passed to a uniform buffer is a compile error at the call (E0277), in `cargo check`
/// too. Do not implement it by hand: the uniform buffers also assert the layout (a
/// post-monomorphization error for an impl on a struct of another layout).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not laid out by the uniform rules, so a uniform buffer cannot hold it",
    label = "not a `#[gpu(layout = \"wgsl-uniform\")]` struct",
    note = "derive it with `#[gpu(layout = \"wgsl-uniform\")]` (WGSL's uniform address space: structs and array strides aligned to 16), or hold it in a storage buffer (`GpuData`, bound as `var<storage>`)"
)]
pub trait UniformLayout: GpuStruct {}
