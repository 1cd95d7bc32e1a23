// `destroy` consumes the data, so it cannot run while a child view borrows it.
use gpudata::{GpuData, GpuDataStructFormat, Gpu, StructLayout};

fn main() {
    let gpu = Gpu::headless().unwrap();
    let format =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "sint32"), ("b", "float32")])
            .unwrap();
    let data = GpuData::zeroed(&gpu, format, 4, gpudata::data::DEFAULT_USAGE).unwrap();
    let b = data.get_child("b").unwrap();
    data.destroy();
    let _ = b.byte_offset();
}
