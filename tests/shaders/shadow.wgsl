// The vertex entry points of the vertex-state tests (tests/format/vertex_state.rs), in the shape
// of wgpu's shadow example: a depth-only pass reading positions, a shaded pass reading positions,
// normals and a per-instance tint, from the same vertex buffer.

struct Globals {
    view_proj: mat4x4<f32>,
    num_lights: vec4<u32>,
}

@group(0) @binding(0) var<uniform> globals: Globals;

@vertex
fn vs_bake(@location(0) position: vec4<i32>) -> @builtin(position) vec4<f32> {
    return globals.view_proj * vec4<f32>(position);
}

struct VertexOutput {
    @builtin(position) proj_position: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) tint: vec4<f32>,
}

@vertex
fn vs_main(
    @location(0) position: vec4<i32>,
    @location(1) normal: vec4<i32>,
    @location(2) tint: vec4<f32>,
) -> VertexOutput {
    var out: VertexOutput;
    out.proj_position = globals.view_proj * vec4<f32>(position);
    out.normal = vec3<f32>(normal.xyz);
    out.tint = tint;
    return out;
}

@fragment
fn fs_main(input: VertexOutput) -> @location(0) vec4<f32> {
    return vec4<f32>(input.normal, 1.0) * input.tint;
}
