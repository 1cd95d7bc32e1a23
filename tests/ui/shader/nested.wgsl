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

// For nested_members.rs: one disagreement of each kind inside nested types.
struct Wide {
    a: vec4<f32>,
    b: vec4<f32>,
}

struct Pair {
    a: f32,
    c: f32,
}

struct Extra {
    a: f32,
    b: f32,
}

struct Sized {
    @size(16) a: f32,
}

struct Members {
    wides: array<Wide, 2>,
    pair: Pair,
    extra: Extra,
    sized: Sized,
}

var<private> scratch: Particle;
