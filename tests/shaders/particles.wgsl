// Shaders of the shader-check tests (tests/format/shader_check.rs): a storage struct, the
// buffer holding it, and a vertex entry point fed by two buffers.

struct Particle {
    position: vec3<f32>,
    mass: f32,
    velocity: vec3<f32>,
    color: u32,
}

struct Particles {
    count: u32,
    items: array<Particle>,
}

@group(0) @binding(1) var<storage, read_write> particles: Particles;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
    @location(2) size: f32,
    @location(3) id: vec2<u32>,
}

@vertex
fn vs_main(input: VertexIn, @builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    let p = particles.items[vertex];
    return vec4<f32>(input.position * input.size + p.position, input.color.a + f32(input.id.x));
}
