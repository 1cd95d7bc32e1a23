//! The vertex layouts of vectors, record batches and tables ([`VertexLayoutSource`]): a table's
//! is what [`GpuTable::render_bindings`] binds.

use crate::data::rows_layout;
use crate::layout::{LayoutError, StepMode, VertexLayout, VertexLayoutSource};
use crate::table::column::batch::GpuRecordBatch;
use crate::table::column::table::GpuTable;
use crate::table::column::vector::GpuVector;

/// The vector's rows: its interleaved layout ([`GpuVector::buffer_layout`]), else one attribute
/// of its format named after the vector, at its byte stride.
impl VertexLayoutSource for GpuVector {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        match self.buffer_layout() {
            Some(layout) => layout.vertex_layout(base_location, step_mode),
            None => rows_layout(self.name(), self.format(), self.byte_stride())?
                .vertex_layout(base_location, step_mode),
        }
    }
}

/// The batch's buffer layouts, in order.
impl VertexLayoutSource for GpuRecordBatch {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        VertexLayout::of_buffers(self.buffer_layouts(), base_location, step_mode)
    }
}

/// The table's buffer layouts in order, then one zero-stride buffer per constant, named after
/// its column: what [`GpuTable::render_bindings`] binds, slot by slot.
impl VertexLayoutSource for GpuTable {
    fn vertex_layout(
        &self,
        base_location: u32,
        step_mode: StepMode,
    ) -> Result<VertexLayout, LayoutError> {
        let constants: Vec<_> = self
            .constants()
            .map(|(name, constant)| constant.buffer_layout(name))
            .collect();
        VertexLayout::of_buffers(
            self.buffer_layouts().iter().chain(&constants),
            base_location,
            step_mode,
        )
    }
}
