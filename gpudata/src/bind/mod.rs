//! Bind groups declared once, as Rust structs: `#[derive(GpuBindGroup)]` on a struct whose
//! fields borrow one group's resources yields its layout entries (binding, visibility, type,
//! `min_binding_size` from the Rust type, `has_dynamic_offset`), makes the layout once per
//! [`Gpu`](crate::Gpu), makes bind groups from the borrowed resources with errors returned, and,
//! given a WGSL file, checks the whole group against it at compile time.
//!
//! ```
//! use gpudata::bind::pipeline_layout;
//! use gpudata::data::{GpuStorage, GpuUniform};
//! use gpudata::record::RuntimeArray;
//! use gpudata::{GpuBindGroup, GpuStruct};
//!
//! #[derive(Clone, Copy, GpuStruct)]
//! #[gpu(layout = "wgsl-uniform")]
//! struct Params {
//!     scale: f32,
//! }
//!
//! #[derive(Clone, Copy, GpuStruct)]
//! struct Values {
//!     count: u32,
//!     items: RuntimeArray<f32>,
//! }
//!
//! #[derive(GpuBindGroup)]
//! #[bind_group(group = 0, visibility = "compute")]
//! struct Scale<'a> {
//!     #[binding(0)]
//!     params: &'a GpuUniform<Params>,
//!     #[binding(1, read_write)]
//!     values: &'a GpuStorage<Values>,
//! }
//!
//! let gpu = gpudata::Gpu::headless()?;
//! let params = GpuUniform::new(&gpu, &Params { scale: 2.0 })?;
//! let values = GpuStorage::new(&gpu, &Values { count: 3, items: RuntimeArray::new() }, &[1.0, 2.0, 3.0])?;
//! let entries = Scale::layout_entries();
//! assert_eq!(entries[0].ty, wgpu::BindingType::Buffer {
//!     ty: wgpu::BufferBindingType::Uniform,
//!     has_dynamic_offset: false,
//!     min_binding_size: std::num::NonZeroU64::new(16),
//! });
//! let group = Scale { params: &params, values: &values }.bind_group(&gpu)?;
//! let layout = pipeline_layout::<(Scale,)>(&gpu, "scale")?;
//! # let _ = (group, layout);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Fields
//!
//! Each field borrows one resource (`&'a R`, `R` a [`BindResource`]); its type says what the
//! binding is, its `#[binding(...)]` keys say the rest:
//!
//! | field type | binds as | keys |
//! |---|---|---|
//! | `&GpuUniform<T>` | `var<uniform> v: T` | |
//! | `&GpuUniformArray<T>` | `var<uniform> v: T`, `has_dynamic_offset` | |
//! | `&GpuStorage<T>` | `var<storage, read> v: T` (`T` ends in `array<E>`) | `read_write` |
//! | `&TypedGpuData<T>` | `var<storage, read> rows: array<T>` | `read_write`; `uniform` for `var<uniform> rows: array<T, N>` |
//! | `&wgpu::Buffer` | a buffer of no known type | `uniform`, `storage` or `read_write` (required) |
//! | `&wgpu::TextureView` | `texture_2d<f32>` | `texture = "2d-array"` (`1d`, `2d`, `2d-array`, `cube`, `cube-array`, `3d`), `sample = "depth"` (`float`, `unfilterable-float`, `sint`, `uint`, `depth`), `multisampled`; or `storage_texture = "2d"`, `format = "rgba8unorm"`, `access = "write"` (`read`, `write`, `read_write`) |
//! | `&wgpu::Sampler` | `sampler` | `sampler = "comparison"` (`filtering`, `non-filtering`, `comparison`) |
//!
//! and, on any field, `#[binding(N)]` (its `@binding`), `global = "name"` (the WGSL global it
//! binds, when not the field's name) and `visibility = "vertex | fragment"` (the stages that
//! see it, when no shader says).
//!
//! On the struct, `#[bind_group(...)]` takes `group = N` (its `@group`, default 0),
//! `visibility = "compute"` (the stages of every field without a shader), `label = "..."`,
//! `crate = "path"`, and, with feature `naga`, `shader = "file.wgsl"` (relative to the crate's
//! `Cargo.toml`, or to the source file) with any number of `entry = "vs_main"`.
//!
//! # Checked against WGSL
//!
//! With `shader`, the derive reads the file with naga at compile time and takes each field's
//! binding number from the WGSL global of its name (a `#[binding(N)]` that differs is an error)
//! and its visibility from the entry points that use the global (`entry = "..."` names them;
//! without any, every entry point counts). It refuses, each error at the field or attribute and
//! naming the WGSL line:
//!
//! - a field whose global is missing or in another `@group`, two fields of one binding;
//! - a global the entry points use that no field binds;
//! - a field of another resource kind, address space or access mode (`var<storage, read>`
//!   against `read_write`), texture dimension, sample type or multisampling, storage texel
//!   format or access, a filtering sampler against `sampler_comparison` (and the reverse);
//! - a buffer whose value type differs from the global's, compared level by level as the struct
//!   check compares members (nested structs, arrays and their strides, matrices, atomics, a
//!   runtime-sized tail; rows against `array<T>`);
//! - a filtering sampler that an entry point samples an `unfilterable-float`, `sint` or `uint`
//!   texture with (at the sampler's field): wgpu refuses that pair at pipeline creation. A depth
//!   texture takes any sampler, as in wgpu. Both fields must be in the group; a pair across two
//!   groups is left to wgpu's pipeline creation.
//!
//! The layout's `min_binding_size` is then the global's own minimum size. The same checks run at
//! run time, for shaders loaded then, with
//! [`Shader::check_bind_group`](crate::check::Shader::check_bind_group) (feature `naga`).

mod compile_check;
mod entry;
mod error;
mod group;
mod resource;
mod rules;

#[cfg(feature = "derive")]
pub use gpudata_derive::GpuBindGroup;

pub use error::BindError;
pub use group::{BindGroupSet, BindingField, GpuBindGroup, pipeline_layout};
pub use resource::{BindResource, BufferValue, ResourceKind};

// Engine parts: what the derive's expansion and the run-time check name.
#[doc(hidden)]
pub use compile_check::{
    PairField, ShaderGlobal, binding_finding_text, sampling_problem, shader_problem,
};
#[doc(hidden)]
pub use entry::{BindingKeys, StorageTextureKeys, TextureKeys, keys_problem, layout_entry};
#[doc(hidden)]
pub use group::binding_field;
#[doc(hidden)]
pub use rules::{
    BindingFinding, WgslResource, WgslSample, access_text, binding_kind_text, dimension_text,
    resource_finding, resource_text, texel_format_text, unfilterable_sample,
};
