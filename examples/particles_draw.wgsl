// `particles_compute`'s draw: one small triangle per particle (per-instance position and
// velocity, read from the storage buffer the compute step wrote, bound as a vertex buffer),
// pointing along the particle's velocity and coloured by its heading.

struct View {
    // Simulation units to clip space, in x and y.
    scale: vec2<f32>,
    // The triangle's width and length in clip space.
    size: vec2<f32>,
}

@group(0) @binding(0) var<uniform> view: View;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_main(
    @location(0) position: vec2<f32>,
    @location(1) velocity: vec2<f32>,
    @location(2) corner: vec2<f32>,
) -> VertexOut {
    let speed = length(velocity);
    var forward = vec2<f32>(0.0, 1.0);
    if speed > 1e-6 {
        forward = velocity / speed;
    }
    let side = vec2<f32>(forward.y, -forward.x);
    let local = corner.x * view.size.x * side + corner.y * view.size.y * forward;
    var out: VertexOut;
    out.position = vec4<f32>(position * view.scale + local, 0.0, 1.0);
    out.color = vec4<f32>(0.55 + 0.45 * forward.x, 0.55 + 0.45 * forward.y, 0.95, 1.0);
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return in.color;
}
