use gpudata::GpuStruct;

// `zero_copy` structs whose nested struct's host bytes are not its gpu bytes: the message names
// the member inside it and the padding to add there (or what else to change).

// A `vec4<f32>` aligns to 16 on the gpu; the host puts `v` at 4.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Early {
    a: u32,
    v: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsEarly {
    early: Early,
    #[gpu(padding)]
    _pad: [u8; 12],
}

// A 16-byte aligned host type whose gpu alignment is 8.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C, align(16))]
struct Wide {
    v: [f32; 2],
}

// `wide` lies at 16 on the host but 8 on the gpu (`size = 32` keeps the outer sizes equal).
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Late {
    a: [f32; 2],
    wide: Wide,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsLate {
    #[gpu(size = 32)]
    late: Late,
}

// `Wide` is 16 bytes on the host, 8 on the gpu (`size = 32` keeps the outer sizes equal).
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsWide {
    #[gpu(size = 32)]
    wides: [Wide; 2],
}

// A 16-byte aligned host type laid out as the gpu lays it out.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C, align(16))]
struct Quad {
    v: [f32; 4],
}

// The host pads 12 bytes before `quad` itself.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct GapBefore {
    a: u32,
    quad: Quad,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsGapBefore {
    inner: GapBefore,
}

// The host pads 12 bytes after `s` (the struct is 16-aligned).
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct GapAfter {
    quad: Quad,
    s: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsGapAfter {
    inner: GapAfter,
}

// 8 bytes of implicit padding beside a host-only field: where is not known.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Hidden {
    a: u32,
    #[gpu(padding)]
    _p: [u8; 4],
    quad: Quad,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsHidden {
    inner: Hidden,
}

// A `vec3<f32>` is 12 bytes but the struct is 16 on the gpu.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Short {
    v: [f32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct HoldsShort {
    shorts: [Short; 2],
    #[gpu(padding)]
    _pad: [u8; 8],
}

fn main() {}
