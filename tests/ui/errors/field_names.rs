//! Field names the derive refuses: an empty gpu name, names that are not field paths (the
//! runtime's one rule: a space, a trailing `.`, an index without digits), a name without an UpperCamelCase form for
//! its marker, two names with one marker, `name` and `offset` on a padding field.
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct EmptyName {
    #[gpu(name = "")]
    value: f32,
}

// `packed`, so that names need only be field paths (a `wgsl-storage` struct's must also be WGSL
// identifiers: `wgsl_names.rs`) and the last one is accepted.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct NotPaths {
    #[gpu(name = "a b")]
    spaced: f32,
    #[gpu(name = "light.")]
    dotted: f32,
    #[gpu(name = "bones[]")]
    unindexed: f32,
    #[gpu(name = "lights[1].color")]
    path: f32,
}

// `packed`: `__` is no WGSL name either (`wgsl_names.rs`), and only the marker is pinned here.
#[derive(Clone, Copy, GpuStruct)]
#[allow(non_snake_case)]
#[gpu(layout = "packed")]
struct NoMarker {
    __: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct SameMarker {
    a_b: f32,
    a__b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct PaddingAttributes {
    value: f32,
    #[gpu(padding, name = "pad", offset = 4)]
    _pad: [u8; 4],
}

fn main() {}
