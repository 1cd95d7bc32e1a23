// A view borrows its data: it cannot outlive it.
use gpudata::{GpuData, Gpu, VertexFormat};

fn main() {
    let gpu = Gpu::headless().unwrap();
    let view;
    {
        let data = GpuData::zeroed(&gpu, VertexFormat::Float32, 4, gpudata::data::DEFAULT_USAGE)
            .unwrap();
        view = data.as_view().unwrap();
    }
    let _ = view.length();
}
