// Nested types of the tests/ui/shader cases: `Light` orders its members differently from the
// host's, and `Scene` declares a matrix of another shape.

struct Light {
    position: vec3<f32>,
    color: vec3<f32>,
    intensity: f32,
}

struct Scene {
    view: mat4x4<f32>,
    lights: array<Light, 2>,
    normal: mat3x4<f32>,
}

@group(0) @binding(1) var<uniform> scene: Scene;

struct Particle {
    position: vec3<f32>,
    mass: f32,
}

@group(0) @binding(2) var<storage, read> particles: array<Particle>;

@group(0) @binding(3) var<storage, read> heights: array<f32>;
