// The shader of tests/ui/shader/atomic_float.rs: naga parses `atomic<f32>` (its validator allows
// it behind a capability), but WGSL's atomics are `atomic<i32>` and `atomic<u32>`.

struct Counters {
    hits: atomic<u32>,
    total: atomic<f32>,
}
