#![deny(warnings, missing_docs)]
//! Every struct and field attribute at once, under `#![deny(warnings)]`.

use gpudata::{GpuStruct, StepMode, Unorm8x4};
use gpudata::record::GpuFieldMarker;

/// An instance of a particle system.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 3,
    stride = 20,
    zero_copy
)]
#[gpu(fields = "particle_attrs", crate = "::gpudata")]
pub struct Particle {
    /// Where it is.
    #[gpu(name = "a_position", offset = 0)]
    pub position: [f32; 3],
    /// Its color.
    #[gpu(format = "unorm8x4", offset = 12)]
    pub color: [u8; 4],
    /// Its size.
    #[gpu(offset = 16)]
    pub size: Unorm8x4,
}

fn main() {
    assert_eq!(Particle::FORMAT.byte_stride(), 20);
    assert_eq!(Particle::STEP_MODE, StepMode::Instance);
    const { assert!(Particle::HOST_LAYOUT_MATCHES) };
    assert_eq!(Particle::ATTRIBUTES[0].shader_location, 3);
    assert_eq!(particle_attrs::Position::NAME, "a_position");
    assert_eq!(
        particle_attrs::Color::FORMAT,
        gpudata::VertexFormat::Unorm8x4
    );
}
