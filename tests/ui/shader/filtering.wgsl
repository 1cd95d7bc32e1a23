// The filtering case (bind_filtering.rs): three textures, each sampled through its own sampler.

@group(0) @binding(0) var heights: texture_2d<f32>;
@group(0) @binding(1) var height_sampler: sampler;
@group(0) @binding(2) var ids: texture_2d<u32>;
@group(0) @binding(3) var id_sampler: sampler;
@group(0) @binding(4) var depth: texture_depth_2d;
@group(0) @binding(5) var depth_sampler: sampler;

@fragment
fn fs_main(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let h = textureSample(heights, height_sampler, at.xy);
    let i = textureGather(0, ids, id_sampler, at.xy);
    let d = textureSample(depth, depth_sampler, at.xy);
    return h + vec4<f32>(i) + vec4<f32>(d);
}
