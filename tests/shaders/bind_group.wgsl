// The derived bind groups of tests/data/bind_group.rs: group 0 holds one resource of each kind a
// compute pass reads (a uniform, a dynamic-offset uniform, rows in storage, a runtime-sized
// struct written back, a sampled texture and its sampler, a storage texture), group 1 the
// output rows.

struct Params {
    scale: f32,
    offset: vec3<f32>,
}

struct Entity {
    tint: vec4<f32>,
}

struct Light {
    proj: mat4x4<f32>,
    pos: vec4<f32>,
    color: vec4<f32>,
}

struct Particle {
    position: vec3<f32>,
    mass: f32,
}

struct Particles {
    count: u32,
    items: array<Particle>,
}

struct Out {
    value: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> entity: Entity;
@group(0) @binding(2) var<storage, read> lights: array<Light>;
@group(0) @binding(3) var<storage, read_write> particles: Particles;
@group(0) @binding(4) var image: texture_2d<f32>;
@group(0) @binding(5) var smp: sampler;
@group(0) @binding(6) var out_tex: texture_storage_2d<rgba8unorm, write>;

@group(1) @binding(0) var<storage, read_write> results: array<Out>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let light = lights[i];
    let texel = textureLoad(image, vec2<i32>(i32(i), 0), 0);
    let uv = vec2<f32>((f32(i) + 0.5) / 4.0, 0.5);
    let sampled = textureSampleLevel(image, smp, uv, 0.0);
    results[i].value = vec4<f32>(
        params.scale * f32(i) + params.offset.z,
        entity.tint.y,
        light.color.z + light.pos.w + light.proj[3][0],
        texel.x + sampled.y,
    );
    particles.items[i].mass = particles.items[i].mass * params.scale + f32(particles.count);
    textureStore(out_tex, vec2<i32>(i32(i), 0), vec4<f32>(f32(i) * 0.2, 0.2, 1.0, 1.0));
}
