//! `interleave`: packed columns (or any views) into rows of a [`GpuDataStructFormat`]; its
//! byte-moving row code ([`CopyBody`]) lives with the kernels, shared with `deinterleave` and
//! the table re-layouts.

use super::output::output_data;
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::layout::GpuDataStructFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::shape::unit_size;
pub(crate) use crate::ops::kernels::transform::moves::{CopyBody, Move};
use crate::ops::kernels::transform::plan::{self, KernelRequest};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Whether values of `input` can be moved byte for byte into a field of `field`: the same
/// component count and component (unit) size, and both or neither bit-packed.
pub(crate) fn bytes_compatible(input: VertexFormat, field: VertexFormat) -> bool {
    input.components() == field.components()
        && unit_size(input) == unit_size(field)
        && input.is_packed_bits() == field.is_packed_bits()
}

/// Plans [`interleave`] on `gpu` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::FieldCountMismatch`], [`OpError::FieldFormatMismatch`],
/// [`OpError::LengthMismatch`], the input checks, the device limits (every distinct input buffer
/// is one storage binding, so inputs that share a buffer, such as the segments of a segmented
/// table, count once) and [`OpError::Gpu`].
pub fn plan_interleave(
    gpu: &Gpu,
    config: &OpsConfig,
    inputs: &[GpuDataView<'_>],
    format: &GpuDataStructFormat,
) -> Result<OpPlan<GpuData>, OpError> {
    const OP: &str = "interleave";
    check_interleave(OP, inputs.iter().map(GpuDataView::format), format)?;
    let length = inputs[0].length();
    let request = KernelRequest {
        op: OP,
        views: inputs.to_vec(),
        length,
        output_strides: vec![format.byte_stride()],
        constants: Vec::new(),
    };
    let built = plan::build(&Planner::new(gpu, config), request, |refs| CopyBody {
        moves: refs
            .iter()
            .zip(format.fields())
            .map(|(r, field)| Move {
                from: *r,
                output: 0,
                byte: field.byte_offset(),
                format: field.format(),
            })
            .collect(),
    })?;
    let data = output_data(gpu, OP, &built.outputs[0], format.clone(), length)?;
    Ok(OpPlan::new(OP, built, data))
}

/// Writes one row of `format` per input row: field `i` holds input `i`'s value (bytes moved as
/// they are), padding is zero. The output is struct-formatted data with a child view per field;
/// it binds as a vertex buffer ([`GpuDataStructFormat::buffer_layout`]) or, for a wgsl-storage
/// format, as a storage array of its WGSL struct.
///
/// # Errors
/// As [`plan_interleave`].
pub fn interleave(
    gpu: &Gpu,
    inputs: &[GpuDataView<'_>],
    format: &GpuDataStructFormat,
) -> Result<GpuData, OpError> {
    plan_interleave(gpu, &OpsConfig::default(), inputs, format)?.run(gpu)
}

/// The shared checks of `interleave` (GPU and CPU): inputs present, one per field, formats whose
/// bytes fit the fields.
pub(crate) fn check_interleave(
    op: &'static str,
    inputs: impl ExactSizeIterator<Item = VertexFormat>,
    format: &GpuDataStructFormat,
) -> Result<(), OpError> {
    if inputs.len() == 0 {
        return Err(OpError::NoInputs { op });
    }
    if inputs.len() != format.fields().len() {
        return Err(OpError::FieldCountMismatch {
            op,
            expected: format.fields().len(),
            found: inputs.len(),
        });
    }
    for (i, (found, field)) in inputs.zip(format.fields()).enumerate() {
        if !bytes_compatible(found, field.format()) {
            return Err(OpError::FieldFormatMismatch {
                op,
                field: field.name().to_owned(),
                input: i,
                expected: field.format(),
                found,
            });
        }
    }
    Ok(())
}
