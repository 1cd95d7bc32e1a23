//! Structs shared by the derive tests: the same field lists under both layouts, covering all 49
//! vertex formats (the `-webgl` ones only under wgsl-storage, which alone accepts them).

#![allow(dead_code, reason = "each test crate uses a different subset")]

use gpudata::{
    GpuStruct, Snorm8, Snorm8x2, Snorm8x4, Snorm16, Snorm16x2, Snorm16x4, Unorm8, Unorm8x2,
    Unorm8x4, Unorm8x4Bgra, Unorm10_10_10_2, Unorm16, Unorm16x2, Unorm16x4,
};
use half::f16;

/// Declares the same `#[repr(C)]` field list twice: once `packed`, once `wgsl-storage`.
macro_rules! both_layouts {
    ($packed:ident, $storage:ident { $($(#[$attr:meta])* $field:ident: $ty:ty,)* }) => {
        #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
        #[repr(C)]
        #[gpu(layout = "packed")]
        pub struct $packed {
            $($(#[$attr])* pub $field: $ty,)*
        }

        #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
        #[repr(C)]
        #[gpu(layout = "wgsl-storage")]
        pub struct $storage {
            $($(#[$attr])* pub $field: $ty,)*
        }
    };
}

both_layouts!(
    Bytes8Packed,
    Bytes8Storage {
        a: u8,
        b: [u8; 2],
        c: [u8; 4],
        d: i8,
        e: [i8; 2],
        f: [i8; 4],
        g: Unorm8,
        h: Unorm8x2,
        i: Unorm8x4,
        j: Unorm8x4Bgra,
        k: Unorm10_10_10_2,
        l: Snorm8,
        m: Snorm8x2,
        n: Snorm8x4,
    }
);

both_layouts!(
    Bytes16Packed,
    Bytes16Storage {
        a: u16,
        b: [u16; 2],
        c: [u16; 4],
        d: i16,
        e: [i16; 2],
        f: [i16; 4],
        g: Unorm16,
        h: Unorm16x2,
        i: Unorm16x4,
        j: Snorm16,
        k: Snorm16x2,
        l: Snorm16x4,
        m: f16,
        n: [f16; 2],
        o: [f16; 4],
    }
);

both_layouts!(
    Bytes32Packed,
    Bytes32Storage {
        a: u32,
        b: [u32; 2],
        c: [u32; 3],
        d: [u32; 4],
        e: i32,
        f: [i32; 2],
        g: [i32; 3],
        h: [i32; 4],
        i: f32,
        j: [f32; 2],
        k: [f32; 3],
        l: [f32; 4],
    }
);

// Format overrides on plain arrays, interleaved with 32-bit fields so alignment matters.
both_layouts!(
    OverridesPacked,
    OverridesStorage {
        #[gpu(format = "unorm8x4")]
        color: [u8; 4],
        x: f32,
        #[gpu(format = "snorm16x2")]
        normal: [i16; 2],
        #[gpu(format = "unorm10-10-10-2")]
        packed: u32,
        #[gpu(format = "unorm8x4-bgra")]
        bgra: [u8; 4],
        y: u8,
        #[gpu(format = "float16x2")]
        half_pair: [u16; 2],
        z: [f32; 3],
    }
);

/// The WebGL-only formats exist only under wgsl-storage (packed refuses them at compile time).
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
pub struct WebglOnly {
    pub a: [u8; 3],
    pub b: [i8; 3],
    #[gpu(format = "unorm8x3-webgl")]
    pub c: [u8; 3],
    #[gpu(format = "snorm8x3-webgl")]
    pub d: [i8; 3],
    pub e: [u16; 3],
    pub f: [i16; 3],
    #[gpu(format = "unorm16x3-webgl")]
    pub g: [u16; 3],
    #[gpu(format = "snorm16x3-webgl")]
    pub h: [i16; 3],
    pub tail: f32,
}

/// A packed vertex whose host layout is its GPU layout.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
pub struct ZeroCopyPacked {
    pub position: [f32; 3],
    pub color: Unorm8x4,
    pub normal: Snorm16x2,
    pub uv: Unorm16x2,
    pub id: u32,
    pub size: [f16; 2],
    pub tag: [u8; 2],
    pub pair: [i8; 2],
}

/// A wgsl-storage row whose host layout is its GPU layout thanks to explicit padding.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
pub struct ZeroCopyStorage {
    pub position: [f32; 3],
    pub intensity: f32,
    pub color: Unorm8x4,
    #[gpu(padding)]
    pub _pad: [u8; 12],
    pub direction: [f32; 4],
}
