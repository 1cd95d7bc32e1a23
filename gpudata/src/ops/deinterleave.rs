//! `deinterleave`: rows (or any strided views) into one packed column per field, the inverse of
//! `interleave`, moving bytes as they are.

use super::input::describe;
use super::interleave::{CopyBody, Move};
use super::output::output_data;
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::layout::GpuDataStructFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::transform::plan::{self, KernelRequest};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// The field indices `fields` names (every field for `None`).
pub(crate) fn select_fields(
    op: &'static str,
    format: &GpuDataStructFormat,
    fields: Option<&[&str]>,
) -> Result<Vec<usize>, OpError> {
    match fields {
        None => Ok((0..format.fields().len()).collect()),
        Some(names) => names
            .iter()
            .map(|name| {
                format
                    .field(name)
                    .map(|(i, _)| i)
                    .ok_or_else(|| OpError::UnknownField {
                        op,
                        field: (*name).to_owned(),
                    })
            })
            .collect(),
    }
}

/// Plans [`deinterleave_views`] on `gpu` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::LengthMismatch`], the input checks, the device limits (one
/// storage binding per output, plus one per distinct input buffer) and [`OpError::Gpu`].
pub fn plan_deinterleave_views(
    gpu: &Gpu,
    config: &OpsConfig,
    views: &[GpuDataView<'_>],
) -> Result<OpPlan<Vec<GpuData>>, OpError> {
    const OP: &str = "deinterleave";
    if views.is_empty() {
        return Err(OpError::NoInputs { op: OP });
    }
    let length = views[0].length();
    let request = KernelRequest {
        op: OP,
        views: views.to_vec(),
        length,
        output_strides: views.iter().map(|v| v.format().byte_length()).collect(),
        constants: Vec::new(),
    };
    let built = plan::build(&Planner::new(gpu, config), request, |refs| CopyBody {
        moves: refs
            .iter()
            .zip(views)
            .enumerate()
            .map(|(o, (r, v))| Move {
                from: *r,
                output: o,
                byte: 0,
                format: v.format(),
            })
            .collect(),
    })?;
    let columns = built
        .outputs
        .iter()
        .zip(views)
        .map(|(b, v)| output_data(gpu, OP, b, v.format(), length))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OpPlan::new(OP, built, columns))
}

/// Copies each view (a strided child, a segment, any column) into a packed column of its own,
/// all in one dispatch. Views that share a buffer and a stride are read together, row by row.
///
/// # Errors
/// As [`plan_deinterleave_views`].
pub fn deinterleave_views(gpu: &Gpu, views: &[GpuDataView<'_>]) -> Result<Vec<GpuData>, OpError> {
    plan_deinterleave_views(gpu, &OpsConfig::default(), views)?.run(gpu)
}

/// Plans [`deinterleave`] on `gpu` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::WrongData`] for data without a struct format, [`OpError::UnknownField`],
/// [`OpError::NoInputs`] (an empty selection), then as [`plan_deinterleave_views`].
pub fn plan_deinterleave(
    gpu: &Gpu,
    config: &OpsConfig,
    rows: &GpuData,
    fields: Option<&[&str]>,
) -> Result<OpPlan<Vec<GpuData>>, OpError> {
    const OP: &str = "deinterleave";
    let format = rows.struct_format().ok_or_else(|| OpError::WrongData {
        op: OP,
        expected: "gpu data of a struct format",
        found: describe(rows),
    })?;
    let selected = select_fields(OP, format, fields)?;
    let views = selected
        .iter()
        .map(|&i| {
            rows.get_child_at(i)
                .ok_or(OpError::Overflow { op: OP, input: i })
        })
        .collect::<Result<Vec<_>, _>>()?;
    plan_deinterleave_views(gpu, config, &views)
}

/// One packed column per field of `rows` (struct-formatted data; or per field named in
/// `fields`, in that order), each a byte-exact copy of the field's values; the inverse of
/// [`interleave`](super::interleave()).
///
/// # Errors
/// As [`plan_deinterleave`].
pub fn deinterleave(
    gpu: &Gpu,
    rows: &GpuData,
    fields: Option<&[&str]>,
) -> Result<Vec<GpuData>, OpError> {
    plan_deinterleave(gpu, &OpsConfig::default(), rows, fields)?.run(gpu)
}
