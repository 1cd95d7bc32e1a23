// Seven f32s: 28 bytes in WGSL; a host `wgsl-uniform` struct measures 32.
struct SimParams {
    dt: f32,
    rule1_distance: f32,
    rule2_distance: f32,
    rule3_distance: f32,
    rule1_scale: f32,
    rule2_scale: f32,
    rule3_scale: f32,
}

@group(0) @binding(0) var<uniform> params: SimParams;

@compute @workgroup_size(1)
fn main() {
    _ = params.dt;
}
