// Nested types for the shader-check tests (tests/format/shader_check.rs): a uniform scene with
// matrices and an array of lights, storage rows with atomics and a runtime-sized tail.

struct Light {
    position: vec3<f32>,
    intensity: f32,
    color: vec4<f32>,
}

struct Scene {
    view: mat4x4<f32>,
    normal: mat3x3<f32>,
    lights: array<Light, 4>,
    exposure: f32,
}

@group(0) @binding(0) var<uniform> scene: Scene;

struct Counter {
    hits: atomic<u32>,
    weights: array<vec4<f32>, 2>,
}

struct Counters {
    total: u32,
    items: array<Counter>,
}

@group(1) @binding(2) var<storage, read_write> counters: Counters;

@compute @workgroup_size(1)
fn main() {
    _ = &counters;
    _ = scene.exposure;
}
