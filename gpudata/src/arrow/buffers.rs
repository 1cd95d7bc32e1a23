//! Readback straight into Arrow buffers: the transfer engine's workers copy the GPU bytes into
//! the memory the Arrow [`Buffer`] then owns (no intermediate copy, and no realignment copy when
//! the array is built over it), chunked vectors chunk by chunk into their places, or into a
//! [`MutableBuffer`] the caller owns.
//!
//! New buffers start as zeroed host allocations (`calloc`: fresh pages the readback's workers
//! fault in while they copy, in parallel, aligned for every Arrow primitive type) moved into the
//! [`Buffer`] without a copy. Not [`MutableBuffer::from_len_zeroed`]: its 64-byte-aligned
//! allocation is zeroed by one thread first (1.8 GB/s for a 1 GiB readback on the H200, against
//! 17 through `calloc`; BENCHMARKS.md).

use arrow_buffer::{Buffer, MutableBuffer};

use super::ArrowInteropError;
use super::readback::compact_rows;
use super::source::ArrowReadback;
use crate::data::GpuData;
use crate::device::Gpu;
use crate::device::transfer::zeroed_bytes;
use crate::table::GpuVector;

/// The column name errors of `data` carry: its Arrow column's, else `fallback`.
fn column_of<'a>(data: &'a GpuData, fallback: &'a str) -> &'a str {
    data.readback_metadata_as::<ArrowReadback>()
        .map_or(fallback, ArrowReadback::column)
}

/// The values of `data`, packed one after another (`value_length × row_byte_length` bytes),
/// read back into a new Arrow [`Buffer`]: straight into its memory when the rows are packed,
/// compacted from the strided bytes otherwise. [`ArrowReadback::to_array`] builds an array over
/// it without a copy.
///
/// # Errors
/// [`ArrowInteropError::Gpu`] / [`ArrowInteropError::Data`] when the readback fails (naming the
/// data's Arrow column, or `(gpu data)`); [`ArrowInteropError::Overflow`] for a length beyond
/// the host's address space.
pub fn buffer_from_gpu(gpu: &Gpu, data: &GpuData) -> Result<Buffer, ArrowInteropError> {
    let column = column_of(data, "(gpu data)");
    let len = compact_length(data, column)?;
    if len == 0 {
        return Ok(Buffer::from_vec(Vec::<u8>::new()));
    }
    if data.byte_stride() != data.row_byte_length() {
        let rows = data
            .read_packed_rows(gpu, 0, data.value_length())
            .map_err(|e| ArrowInteropError::data(column, e))?;
        return Ok(Buffer::from_vec(rows));
    }
    let mut out = zeroed_bytes(len);
    data.read_bytes_into(gpu, &mut out)
        .map_err(|e| ArrowInteropError::gpu(column, e))?;
    Ok(Buffer::from_vec(out))
}

/// The packed byte length of `data`'s values, as a host length.
fn compact_length(data: &GpuData, column: &str) -> Result<usize, ArrowInteropError> {
    data.value_length()
        .checked_mul(data.row_byte_length())
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| ArrowInteropError::Overflow {
            column: column.to_owned(),
            what: "the readback byte length",
        })
}

/// [`buffer_from_gpu`] into a buffer the caller owns: `out` is resized to the values' length
/// (reusing its allocation when it is large enough; growing it zeroes the new bytes first, on
/// one thread) and filled.
///
/// # Errors
/// As [`buffer_from_gpu`].
pub fn buffer_from_gpu_into(
    gpu: &Gpu,
    data: &GpuData,
    out: &mut MutableBuffer,
) -> Result<(), ArrowInteropError> {
    let column = column_of(data, "(gpu data)");
    let values = data.value_length();
    let len = compact_length(data, column)?;
    if len == 0 {
        out.truncate(0);
        return Ok(());
    }
    if data.byte_stride() != data.row_byte_length() {
        let rows = data
            .read_packed_rows(gpu, 0, values)
            .map_err(|e| ArrowInteropError::data(column, e))?;
        out.truncate(0);
        out.extend_from_slice(&rows);
        return Ok(());
    }
    out.resize(len, 0);
    data.read_bytes_into(gpu, out.as_slice_mut())
        .map_err(|e| ArrowInteropError::gpu(column, e))
}

/// The values of every chunk of `vector`, one after another as one buffer would hold them,
/// read back into one new Arrow [`Buffer`]: each chunk straight into its place (strided vectors
/// compacted afterwards).
///
/// # Errors
/// [`ArrowInteropError::Table`] with the errors of [`GpuVector::read_bytes_into`];
/// [`ArrowInteropError::Overflow`].
pub fn buffer_from_gpu_vector(gpu: &Gpu, vector: &GpuVector) -> Result<Buffer, ArrowInteropError> {
    let table_error = |source| ArrowInteropError::Table { source };
    let values = vector.value_length();
    let (stride, row) = (vector.byte_stride(), vector.row_byte_length());
    if values == 0 || row == 0 {
        return Ok(Buffer::from(MutableBuffer::new(0)));
    }
    if stride != row {
        let bytes = vector.read_bytes(gpu).map_err(table_error)?;
        let rows = compact_rows(vector.name(), &bytes, values, stride, row)?;
        return Ok(Buffer::from_vec(rows));
    }
    let len = values
        .checked_mul(row)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| ArrowInteropError::Overflow {
            column: vector.name().to_owned(),
            what: "the readback byte length",
        })?;
    let mut out = zeroed_bytes(len);
    vector.read_bytes_into(gpu, &mut out).map_err(table_error)?;
    Ok(Buffer::from_vec(out))
}
