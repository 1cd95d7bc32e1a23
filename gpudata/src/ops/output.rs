//! The data an operation writes: its output buffers described as packed columns or rows.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, GpuDataView};
use crate::device::Gpu;
use crate::ops::OpError;

/// `length` rows of `format` from byte 0 of `buffer` (one the planner sized for them on `gpu`),
/// as data that owns the buffer and knows its device. Struct rows include their padding (the kernels write it as zeros), so
/// they read back whole, one stride each.
///
/// # Errors
/// [`OpError::Gpu`] wrapping the data's own check (never, for a buffer the planner sized).
pub(crate) fn output_data(
    gpu: &Gpu,
    op: &'static str,
    buffer: &wgpu::Buffer,
    format: impl Into<GpuDataFormat>,
    length: u64,
) -> Result<GpuData, OpError> {
    let format = format.into();
    let descriptor = match &format {
        GpuDataFormat::Struct(rows) => {
            let stride = rows.byte_stride();
            GpuDataDescriptor::new(format, length).with_row_byte_length(stride)
        }
        _ => GpuDataDescriptor::new(format, length),
    };
    GpuData::new(BufferHandle::Owned(buffer.clone()), descriptor)
        .map(|data| data.on_device(gpu))
        .map_err(|e| OpError::data(op, e))
}

/// The view of `data` (packed data of one vertex format: an operation's output, or an input
/// that must be such), or [`OpError::WrongData`] naming `op` and what it `expected`.
pub(crate) fn view_of<'a>(
    op: &'static str,
    data: &'a GpuData,
    expected: &'static str,
) -> Result<GpuDataView<'a>, OpError> {
    data.as_view().ok_or_else(|| OpError::WrongData {
        op,
        expected,
        found: "another layout".to_owned(),
    })
}

/// `views` (consecutive row ranges of one column) cut into consecutive views of at most `most`
/// rows each, views of no rows dropped: the pieces of a column held in several buffers whose
/// outputs each fit one buffer.
pub(crate) fn cut_views<'a>(views: &[GpuDataView<'a>], most: u64) -> Vec<GpuDataView<'a>> {
    let most = most.max(1);
    let mut cut = Vec::new();
    for view in views {
        let mut first = 0u64;
        while first < view.length() {
            let rows = (view.length() - first).min(most);
            // In range: `first + rows` is at most the view's length.
            cut.extend(view.slice(first, rows));
            first += rows;
        }
    }
    cut
}
