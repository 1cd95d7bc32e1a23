// The shader of the tests/ui/shader cases. Their paths name it beside them: no such file is in
// the crate trybuild generates, so the macro finds it relative to the case's source file.

struct Particle {
    position: vec3<f32>,
    velocity: vec3<f32>,
    color: u32,
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
}

@vertex
fn vs_main(input: VertexIn) -> @builtin(position) vec4<f32> {
    return vec4<f32>(input.position, input.color.a);
}
