//! `#[derive(GpuStruct)]` for [gpudata](https://docs.rs/gpudata): compile-time GPU row layouts,
//! wgpu vertex layouts, typed field markers and checked uploads.
//!
//! Use the derive through `gpudata` (`use gpudata::GpuStruct;`), which documents its attributes
//! and rules. The macro is built in serde_derive's shape, in layers that import only downwards:
//! - `internals` parses `#[gpu(...)]` into a typed model, checks rules across fields (recording
//!   every error, with the span of the offending token, in one collector) and classifies once
//!   how a struct is expanded (`internals::classify`);
//! - `shader` reads a WGSL file named by the attributes (feature `naga`) and writes the
//!   assertions matching it;
//! - `expand` emits, one module per output, `const` items that call gpudata's `const fn` layout
//!   engine (the macro never computes an offset), the checks spanned at the user's tokens, the
//!   trait impls and the field marker types, which its `fallback` emits too, so that one mistake
//!   does not cascade.

mod bind;
mod expand;
mod internals;
mod shader;
mod spans;

/// Derives `gpudata::GpuStruct`; see its documentation in the `gpudata` crate.
#[proc_macro_derive(GpuStruct, attributes(gpu))]
pub fn derive_gpu_struct(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}

/// Derives `gpudata::bind::GpuBindGroup`; see the `gpudata::bind` module for the attributes.
#[proc_macro_derive(GpuBindGroup, attributes(bind_group, binding))]
pub fn derive_gpu_bind_group(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    bind::derive(&input).into()
}
