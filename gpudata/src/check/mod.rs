//! Host and shader agree: checks of host structs, vertex buffers, table bindings and globals
//! against WGSL, at run time (this module, feature `naga`) and at compile time (the derive's
//! `#[gpu(shader = "...")]`, same feature).
//!
//! # A short guide
//!
//! **At compile time.** Name the WGSL file (relative to the crate's `Cargo.toml`; when no file
//! is there, relative to the source file naming it, as `include_str!`) and what a derived type
//! must match: a struct, a uniform or storage global (its `@group/@binding` too), or a vertex
//! entry point:
//!
//! ```text
//! #[derive(GpuStruct)]
//! #[gpu(shader = "shaders/particles.wgsl", shader_struct = "Particle")]
//! struct Particle {
//!     position: [f32; 3],
//!     mass: f32,
//!     velocity: [f32; 3],
//! }
//!
//! #[derive(GpuStruct)]
//! #[gpu(
//!     layout = "wgsl-uniform",
//!     shader = "shaders/scene.wgsl",
//!     shader_global = "scene",
//!     group = 0,
//!     binding = 0
//! )]
//! struct Scene {
//!     #[gpu(wgsl = "mat4x4<f32>")]
//!     view: [[f32; 4]; 4],
//!     lights: [Light; 4], // a derived struct, compared member by member
//! }
//!
//! #[derive(GpuStruct)]
//! #[gpu(layout = "packed", shader = "shaders/particles.wgsl", vertex_entry = "vs_main")]
//! struct Vertex {
//!     position: [f32; 3],
//!     color: gpudata::Unorm8x4,
//! }
//! ```
//!
//! The macro parses the file with naga. What names decide is its own error, at the field or the
//! attribute: a field the WGSL struct lacks, a member the struct lacks, a global at another
//! `@group/@binding`, a missing struct, global, entry point or file, a WGSL parse error (naga's message and position). What the derived layout
//! decides is a `const` assertion at the Rust field naming the WGSL `file:line:column`: a field
//! the shader places elsewhere or stores as another type, the stride (with the two layouts'
//! offsets side by side in the message), an attribute of another scalar kind than the input at
//! its `@location` reads. Nested
//! types (derived structs, arrays of them, matrices, fixed arrays, atomics, a global's
//! runtime-sized tail) are compared level by level: the message names the path below the field
//! (`lights[].color`), the member's WGSL position, and how many more disagreements the field
//! has. Both kinds of error come in one build, every field reporting its own; the build re-runs
//! when the file changes.
//!
//! A derive sees one struct, so `vertex_entry` (one entry point, or several: `vertex_entry =
//! "vs_bake, vs_main"`) checks what one struct can, by WebGPU's rule as wgpu applies it: each
//! field feeding a location an entry point reads delivers the input's scalar kind (float, unorm,
//! snorm and float16 formats for `f32` and `f16` inputs, sint for `i32`, uint for `u32`;
//! component counts may differ); a field no entry point reads is allowed, as in wgpu. Whether
//! every input is fed, and by one attribute only, is a question about all the buffers of a
//! pipeline: [`Shader::check_vertex_state`] answers it at run time, over all of them together,
//! with the device's limits.
//!
//! **At run time.** Parse once with [`Shader::parse`] (or wrap a `naga::Module` with
//! [`Shader::from_module`]) and check what the program binds:
//!
//! - [`Shader::check_struct`] / [`Shader::check_struct_format`]: a derived type (a struct that
//!   is not `packed` as its type tree, as the compile-time check compares it) or a run-time
//!   [`GpuDataStructFormat`](crate::GpuDataStructFormat) against a WGSL struct;
//! - [`Shader::check_struct_decl`]: a host type tree ([`StructDecl`](crate::layout::StructDecl):
//!   nested structs, matrices, atomics, arrays, `@align`/`@size`) against a WGSL struct, level by
//!   level, under the storage or uniform rules;
//! - [`Shader::check_vertex_state`] / [`Shader::check_vertex_inputs`]: a pipeline's vertex
//!   buffers ([`VertexBufferInput::of`] a derived type, [`VertexBufferInput::from_layout`] a
//!   [`BufferLayout`](crate::BufferLayout), [`VertexBufferInput::from_wgpu`] a wgpu layout)
//!   against one or more vertex entry points, by the rules wgpu's `create_render_pipeline`
//!   applies (tested against it on random vertex states); [`Shader::check_vertex_set`] the
//!   same for a [`VertexBufferSet`](crate::data::VertexBufferSet), a tuple of derived row types
//!   in slot order;
//! - [`Shader::check_global`] / [`Shader::check_global_format`]: host rows against a uniform or
//!   storage global, its `@group`/`@binding`, and an `array<S>` or runtime-sized tail of rows;
//! - [`Shader::check_render_bindings`] and [`Shader::check_storage_bindings`]: a
//!   [`GpuTable`](crate::GpuTable)'s bindings against the shader.
//!
//! [`Shader::workgroup_size`] reads a compute entry point's `@workgroup_size`, and
//! [`Shader::workgroups`] turns a count of invocations into the workgroups to dispatch, under
//! the device's limits.
//!
//! [`Shader::struct_report`] prints a host format and a WGSL struct side by side (the CLI's
//! `gpudata check shader.wgsl STRUCT NAME:FORMAT...`, also spelled `gpudata layout --check
//! shader.wgsl STRUCT NAME:FORMAT...`).
//!
//! Each returns every disagreement at once in [`ShaderCheckError::Mismatches`]: one
//! [`ShaderMismatch`] per problem, with the host field path, the WGSL line and column, and a
//! typed [`MismatchError`] stating both sides and a fix.
//!
//! ```
//! use gpudata::check::{MismatchError, Shader, ShaderCheckError};
//! use gpudata::{GpuDataStructFormat, StructLayout};
//!
//! let shader = Shader::parse(
//!     "struct Particle {\n    position: vec3<f32>,\n    velocity: vec3<f32>,\n}",
//! )?;
//! let host = GpuDataStructFormat::parse(
//!     StructLayout::Packed,
//!     [("position", "float32x3"), ("velocity", "float32x3")],
//! )?;
//! let err = shader.check_struct_format(&host, "Particle").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "struct Particle disagrees with the shader in 2 places:\n  \
//!      `velocity` (wgsl 3:5): host offset 12, shader offset 16 (vec3<f32> aligns to 16); \
//!      insert a #[gpu(padding)] field before it, or reorder the fields\n  \
//!      `Particle` (wgsl 1:1): host stride 24 bytes, shader stride 32 bytes; make the last \
//!      fields agree or set #[gpu(stride = 32)]"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bind_group;
mod bind_group_error;
mod compute;
mod decl;
mod error;
mod globals;
mod report;
mod shader;
mod structs;
mod table;
mod vertex;
mod vertex_state;

pub use bind_group_error::{BindGroupCheckError, BindingMismatch, BindingMismatchError};
pub use error::{MismatchError, ShaderCheckError, ShaderMismatch, WgslBound, WgslLocation};
pub use globals::HostBinding;
pub use report::WgslMember;
pub use shader::Shader;
pub use vertex::{VertexAttributeInput, VertexBufferInput};
