// One step of `particles_compute`'s flock: every particle reads all the others from
// `particles_in` and writes its next state to `particles_out`. The Rust side binds the two
// particle buffers one way, then the other (ping-pong), one dispatch per step.
//
// Every weight is smooth (1 / (1 + d² / r²), no cut-off radius), so the CPU re-implementation
// in `tests/data/particles.rs` follows the GPU within float rounding.

struct Particle {
    position: vec2<f32>,
    velocity: vec2<f32>,
}

struct SimParams {
    dt: f32,
    // The squared distance at which a neighbour's weight halves.
    radius2: f32,
    // Steer towards the neighbours' weighted centre.
    cohesion: f32,
    // Steer towards the neighbours' weighted heading.
    alignment: f32,
    // Steer away from close neighbours.
    separation: f32,
    // A spring towards the origin, keeping the flock in view.
    centering: f32,
    // A push around the origin, counter-clockwise.
    swirl: f32,
    // Velocity kept per step.
    damping: f32,
}

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read> particles_in: array<Particle>;
@group(0) @binding(2) var<storage, read_write> particles_out: array<Particle>;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {
    let count = arrayLength(&particles_in);
    let i = id.x;
    if i >= count {
        return;
    }
    let me = particles_in[i];
    var center = vec2<f32>(0.0, 0.0);
    var heading = vec2<f32>(0.0, 0.0);
    var push = vec2<f32>(0.0, 0.0);
    var weight = 0.0;
    for (var j = 0u; j < count; j++) {
        if j == i {
            continue;
        }
        let other = particles_in[j];
        let d = other.position - me.position;
        let w = 1.0 / (1.0 + dot(d, d) / params.radius2);
        center += other.position * w;
        heading += other.velocity * w;
        push -= d * (w * w);
        weight += w;
    }
    var velocity = me.velocity;
    if weight > 0.0 {
        velocity += (center / weight - me.position) * (params.cohesion * params.dt);
        velocity += (heading / weight - me.velocity) * (params.alignment * params.dt);
        velocity += push / weight * (params.separation * params.dt);
    }
    velocity -= me.position * (params.centering * params.dt);
    velocity += vec2<f32>(-me.position.y, me.position.x) * (params.swirl * params.dt);
    velocity *= params.damping;
    particles_out[i] = Particle(me.position + velocity * params.dt, velocity);
}
