// A failed derive still provides `GpuStruct` and the marker module, so code using them reports
// nothing beyond the one real mistake.
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "std140")]
struct Uniforms {
    exposure: f32,
}

fn stride<T: GpuStruct>() -> u64 {
    T::FORMAT.byte_stride()
}

fn main() {
    let _ = stride::<Uniforms>();
    let _ = core::marker::PhantomData::<uniforms_fields::Exposure>;
}
