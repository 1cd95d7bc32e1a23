// The shadow example's shader (examples/shadow/): a depth-only pass from each light (`vs_bake`)
// into one layer of a depth texture array, then a shaded pass (`vs_main`, `fs_main`) that looks
// each fragment up in every light's layer through a comparison sampler. Every global here is
// bound by a `#[derive(GpuBindGroup)]` struct in scene.rs, checked against this file at compile
// time; the vertex inputs by `#[derive(GpuStruct)]`'s `vertex_entry`.

struct Globals {
    view_proj: mat4x4<f32>,
    num_lights: vec4<u32>,
}

struct Entity {
    world: mat4x4<f32>,
    color: vec4<f32>,
}

struct Light {
    proj: mat4x4<f32>,
    pos: vec4<f32>,
    color: vec4<f32>,
}

// The camera in the shaded pass; one light's view-projection per draw in the depth pass.
@group(0) @binding(0) var<uniform> globals: Globals;
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(0) @binding(2) var shadow_maps: texture_depth_2d_array;
@group(0) @binding(3) var shadow_sampler: sampler_comparison;

// One entity per draw, at a dynamic offset.
@group(1) @binding(0) var<uniform> entity: Entity;

@vertex
fn vs_bake(@location(0) position: vec4<i32>) -> @builtin(position) vec4<f32> {
    return globals.view_proj * entity.world * vec4<f32>(position);
}

struct Shaded {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) world: vec4<f32>,
}

@vertex
fn vs_main(@location(0) position: vec4<i32>, @location(1) normal: vec4<i32>) -> Shaded {
    let m = entity.world;
    var out: Shaded;
    out.world = m * vec4<f32>(position);
    out.normal = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * vec3<f32>(normal.xyz);
    out.clip = globals.view_proj * out.world;
    return out;
}

// 1 where light `layer` reaches `world`, 0 in its shadow (filtered at the edges); 1 behind it.
fn lit_by(layer: u32, light_clip: vec4<f32>) -> f32 {
    if light_clip.w <= 0.0 {
        return 1.0;
    }
    let ndc = light_clip.xyz / light_clip.w;
    let uv = ndc.xy * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5, 0.5);
    return textureSampleCompareLevel(shadow_maps, shadow_sampler, uv, i32(layer), ndc.z);
}

const AMBIENT: vec3<f32> = vec3<f32>(0.06, 0.06, 0.08);

@fragment
fn fs_main(in: Shaded) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    var light = AMBIENT;
    let count = min(globals.num_lights.x, arrayLength(&lights));
    for (var i = 0u; i < count; i += 1u) {
        let l = lights[i];
        let towards = normalize(l.pos.xyz - in.world.xyz);
        let diffuse = max(dot(n, towards), 0.0);
        light += lit_by(i, l.proj * in.world) * diffuse * l.color.rgb;
    }
    return vec4<f32>(light * entity.color.rgb, 1.0);
}
