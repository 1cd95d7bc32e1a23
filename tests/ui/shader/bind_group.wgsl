// The bind group cases (bind_*.rs): one group of a shadow-mapped scene, read by a vertex and a
// fragment entry point.

struct Camera {
    view: mat4x4<f32>,
    eye: vec4<f32>,
}

struct Light {
    proj: mat4x4<f32>,
    pos: vec4<f32>,
    color: vec4<f32>,
}

struct Hits {
    total: u32,
    items: array<u32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(0) @binding(2) var<storage, read_write> hits: Hits;
@group(0) @binding(3) var shadow: texture_depth_2d_array;
@group(0) @binding(4) var shadow_sampler: sampler_comparison;
@group(0) @binding(5) var color: texture_2d<f32>;
@group(0) @binding(6) var color_sampler: sampler;

@vertex
fn vs_main(@location(0) position: vec4<f32>) -> @builtin(position) vec4<f32> {
    return camera.view * position;
}

@fragment
fn fs_main(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let light = lights[0];
    let lit = textureSampleCompare(shadow, shadow_sampler, at.xy, 0, at.z);
    let base = textureSample(color, color_sampler, at.xy);
    hits.items[0] = hits.total;
    return base * lit * light.color + camera.eye;
}
