//! Feature `half`: [`GpuField`](super::GpuField) for `half::f16` and arrays of 2 or 4 of them.

crate::impl_gpu_field! {
    half::f16 => Float16,
    [half::f16; 2] => Float16x2,
    [half::f16; 4] => Float16x4,
}
