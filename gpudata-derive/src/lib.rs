//! `#[derive(GpuStruct)]` for [gpudata](https://docs.rs/gpudata): compile-time GPU row layouts,
//! wgpu vertex layouts, typed field markers and checked uploads.
//!
//! Use the derive through `gpudata` (`use gpudata::GpuStruct;`), which documents its attributes
//! and rules. The macro works in three phases: `internals` parses `#[gpu(...)]` into a typed
//! model and checks rules across fields, recording every error with the span of the offending
//! token; `expand` emits `const` items that call gpudata's `const fn` layout engine (the macro
//! never computes an offset); `markers` emits the field marker types, which `fallback` emits too,
//! so that one mistake does not cascade.

mod expand;
mod fallback;
mod internals;
mod lazy;
mod markers;
mod shader;
mod spans;
mod uniform;

/// Derives `gpudata::GpuStruct`; see its documentation in the `gpudata` crate.
#[proc_macro_derive(GpuStruct, attributes(gpu))]
pub fn derive_gpu_struct(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
