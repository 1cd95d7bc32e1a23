//! The row types the upload benches move: one whose host layout is its GPU layout (uploads copy
//! the caller's slice) and one the derive's encoder lays out, with generators of `bytes` bytes.

use gpudata::{GpuStruct, Unorm8x4};

/// Host layout = GPU layout: one memcpy per staging chunk.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
pub struct Packed {
    pub position: [f32; 3],
    pub color: Unorm8x4,
    pub uv: [f32; 2],
    pub id: u32,
    pub weight: f32,
}

/// wgsl-storage rules move `position` to byte 16 and pad rows to 32 bytes: the encoder runs.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
pub struct Storage {
    pub id: u32,
    pub position: [f32; 3],
    pub color: Unorm8x4,
    pub weight: f32,
}

/// `bytes / 36` packed rows.
pub fn packed_rows(bytes: usize) -> Vec<Packed> {
    (0..bytes / Packed::FORMAT.byte_stride() as usize)
        .map(|i| Packed {
            position: [i as f32, 1.0, 2.0],
            color: Unorm8x4([i as u8, 2, 3, 4]),
            uv: [0.5, 0.25],
            id: i as u32,
            weight: 1.0,
        })
        .collect()
}

/// `bytes / 32` storage rows.
pub fn storage_rows(bytes: usize) -> Vec<Storage> {
    (0..bytes / Storage::FORMAT.byte_stride() as usize)
        .map(|i| Storage {
            id: i as u32,
            position: [i as f32, 1.0, 2.0],
            color: Unorm8x4([i as u8, 2, 3, 4]),
            weight: 1.0,
        })
        .collect()
}
