use gpudata::{GpuStruct, Unorm8x4};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Packed23 {
    tag: u8,
    pair: [u8; 2],
    color: Unorm8x4,
    position: [f32; 3],
}

#[test]
fn smoke() {
    let f = Packed23::FORMAT;
    let offsets: Vec<u64> = f.fields().iter().map(|f| f.byte_offset()).collect();
    assert_eq!(offsets, [0, 2, 4, 8]);
}
