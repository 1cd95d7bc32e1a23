// A view over a raw wgpu buffer borrows the buffer.
use gpudata::{Gpu, GpuDataView, VertexFormat};

fn main() {
    let gpu = Gpu::headless().unwrap();
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 64,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    let view = GpuDataView::new(&buffer, VertexFormat::Float32x4, 4, 0, None).unwrap();
    drop(buffer);
    let _ = view.byte_length();
}
