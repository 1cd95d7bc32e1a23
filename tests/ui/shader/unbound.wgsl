// For global_unbound.rs: a storage global without @group/@binding.

struct P {
    a: f32,
}

var<storage> unbound: P;
