//! The derive's output is clean under strict lints: every rustc warning, the pedantic clippy
//! group and lints against `allow` attributes, unused lifetimes and needless qualification.

#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    missing_copy_implementations,
    unreachable_pub,
    unused_qualifications,
    unused_lifetimes,
    single_use_lifetimes,
    unused_results,
    trivial_casts,
    trivial_numeric_casts,
    unsafe_code,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::allow_attributes,
    clippy::allow_attributes_without_reason
)]

/// A public vertex with every attribute kind.
pub mod vertices {
    use gpudata::{GpuStruct, Unorm8x4};

    /// A packed, instanced, zero-copy vertex.
    #[derive(Clone, Copy, Debug, GpuStruct)]
    #[repr(C)]
    #[gpu(
        layout = "packed",
        step_mode = "instance",
        location = 2,
        stride = 20,
        zero_copy
    )]
    pub struct Instance {
        /// Position.
        #[gpu(offset = 0)]
        pub position: [f32; 3],
        /// Color.
        #[gpu(name = "tint")]
        pub color: Unorm8x4,
        /// Packed flags.
        #[gpu(format = "unorm10-10-10-2")]
        pub flags: u32,
    }

    /// A wgsl-storage row with a host-only padding field.
    #[derive(Clone, Copy, Debug, GpuStruct)]
    #[repr(C)]
    pub(crate) struct Light {
        /// Intensity.
        pub(crate) intensity: f32,
        /// Padding to the next vec4.
        #[gpu(padding)]
        pub(crate) pad: [u8; 12],
        /// Direction.
        pub(crate) direction: [f32; 4],
    }

    /// A uniform struct with a matrix, a nested struct, an array of it and WGSL attributes.
    #[derive(Clone, Copy, Debug, GpuStruct)]
    #[repr(C)]
    #[gpu(layout = "wgsl-uniform", location = 1)]
    pub(crate) struct Scene {
        /// View matrix.
        #[gpu(wgsl = "mat4x4<f32>")]
        pub(crate) view: [[f32; 4]; 4],
        /// Lights.
        pub(crate) lights: [Light; 2],
        /// Exposure.
        #[gpu(align = 16, size = 16)]
        pub(crate) exposure: f32,
    }

    /// A storage struct ending in a runtime-sized array of lights.
    #[derive(Clone, Copy, Debug, GpuStruct)]
    pub(crate) struct Lights {
        /// How many lights.
        pub(crate) count: u32,
        /// The lights.
        pub(crate) items: gpudata::record::RuntimeArray<Light>,
    }

    /// A private struct.
    #[derive(Clone, Copy, Debug, GpuStruct)]
    struct Private {
        value: u16,
    }

    /// Uses the private struct's markers.
    pub(crate) const fn private_index() -> usize {
        <private_fields::Value as gpudata::record::GpuFieldMarker>::INDEX
    }
}

#[test]
fn derived_code_passes_strict_lints() {
    use gpudata::GpuStruct;
    const { assert!(vertices::Instance::HOST_LAYOUT_MATCHES) };
    assert_eq!(vertices::Light::FORMAT.byte_stride(), 32);
    assert_eq!(vertices::private_index(), 0);
    assert_eq!(vertices::Scene::FORMAT.byte_stride(), 144);
    assert_eq!(vertices::Scene::vertex_buffer_layout().attributes.len(), 9);
    assert_eq!(
        <vertices::Lights as gpudata::record::GpuRuntimeStruct>::min_binding_size().get(),
        48
    );
}
