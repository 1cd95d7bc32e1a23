//! Bits unpacked into values: one `uint8` / `uint32` 0 or 1 per row of a bitmap (Arrow's
//! Boolean columns, uploaded as their bitmap and unpacked on the GPU).

use crate::data::{GpuData, GpuDataDescriptor};
use crate::device::Gpu;
use crate::device::buffers::{align4, create_buffer};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::bits;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// The `rows` bits of `bitmap` (one bit per row from bit 0 of byte 0, Arrow's order) unpacked
/// on the GPU into one `width`-byte integer per row (`width` 1: `uint8`, 4: `uint32`), 1 for a
/// set bit and 0 otherwise: a new buffer of `usage` (plus `STORAGE`, which the kernel writes
/// through) holding at least `rows × width` bytes rounded up to a word, at least 16; the bytes
/// past the last row are zeros. The bitmap is uploaded padded to whole words and at least one
/// 16-byte chunk (a kernel binding's least), and freed once the kernel is submitted.
///
/// # Errors
/// [`OpError::Overflow`] when `rows × width` does not fit `u64`; [`OpError::Gpu`] and
/// [`OpError::Data`] when the device refuses a buffer or the kernel.
pub(crate) fn unpack_bits(
    gpu: &Gpu,
    bitmap: &[u8],
    rows: u64,
    width: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, OpError> {
    const OP: &str = "unpack booleans";
    let mut words = bitmap.to_vec();
    words.resize(words.len().next_multiple_of(4).max(16), 0);
    let descriptor = GpuDataDescriptor::new(
        GpuVectorFormat::Fixed(VertexFormat::Uint32),
        words.len() as u64 / 4,
    );
    let words = GpuData::from_bytes(gpu, &words, descriptor, wgpu::BufferUsages::STORAGE)
        .map_err(|e| OpError::data(OP, e))?;
    let size = rows
        .checked_mul(width)
        .and_then(align4)
        .ok_or(OpError::Overflow { op: OP, input: 0 })?
        .max(16);
    let output = match create_buffer(
        gpu,
        size,
        usage | wgpu::BufferUsages::STORAGE,
        "gpudata booleans",
    ) {
        Ok(output) => output,
        Err(source) => {
            words.destroy();
            return Err(OpError::Gpu { op: OP, source });
        }
    };
    let planner = Planner::new(gpu, &OpsConfig::default());
    let unpacked = bits::unpack(&planner, OP, words.buffer(), rows, width, &output)
        .and_then(|dispatches| OpPlan::from_dispatches(gpu, OP, dispatches, size, ()).run(gpu));
    words.destroy();
    match unpacked {
        Ok(()) => Ok(output),
        Err(e) => {
            output.destroy();
            Err(e)
        }
    }
}
