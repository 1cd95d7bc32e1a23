// Ownership cannot change hands while a view of the target is alive.
use gpudata::{BufferHandle, GpuData, GpuDataDescriptor, Gpu, VertexFormat};

fn main() {
    let gpu = Gpu::headless().unwrap();
    let mut owner = GpuData::zeroed(&gpu, VertexFormat::Float32, 4, gpudata::data::DEFAULT_USAGE)
        .unwrap();
    let mut borrower = GpuData::new(
        BufferHandle::Shared(owner.buffer().clone()),
        GpuDataDescriptor::new(VertexFormat::Float32, 4),
    )
    .unwrap();
    let view = borrower.as_view().unwrap();
    owner.transfer_ownership_to(&mut borrower).unwrap();
    let _ = view.length();
}
