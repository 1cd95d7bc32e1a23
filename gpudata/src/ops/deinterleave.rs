//! `deinterleave`: rows (or any strided views) into one packed column per field, the inverse of
//! `interleave`, moving bytes as they are.

use super::input::{OpInput, RowsInput};
use super::interleave::{CopyBody, Move};
use super::plan::{self, KernelRequest};
use super::{GpuOps, OpColumn, OpPlan};
use crate::layout::GpuDataStructFormat;
use crate::ops::OpError;

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

impl GpuOps {
    /// Plans [`deinterleave_views`](Self::deinterleave_views) without running it.
    ///
    /// # Errors
    /// [`OpError::NoInputs`], [`OpError::LengthMismatch`], the input checks, the device limits
    /// (one storage binding per output, plus one per distinct input buffer) and
    /// [`OpError::Device`].
    pub fn plan_deinterleave_views(
        &self,
        views: &[OpInput<'_>],
    ) -> Result<OpPlan<Vec<OpColumn>>, OpError> {
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
        let built = plan::build(self, request, |refs| CopyBody {
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
            .map(|(b, v)| OpColumn::new(b.clone(), v.format(), length))
            .collect();
        Ok(OpPlan::new(OP, built, columns))
    }

    /// Copies each view (a strided child, a segment, any column) into a packed column of its
    /// own, all in one dispatch. Views that share a buffer and a stride are read together, row by
    /// row.
    ///
    /// # Errors
    /// As [`plan_deinterleave_views`](Self::plan_deinterleave_views).
    pub fn deinterleave_views(&self, views: &[OpInput<'_>]) -> Result<Vec<OpColumn>, OpError> {
        Ok(self.plan_deinterleave_views(views)?.run(self))
    }

    /// Plans [`deinterleave`](Self::deinterleave) without running it.
    ///
    /// # Errors
    /// [`OpError::UnknownField`], [`OpError::NoInputs`] (an empty selection), then as
    /// [`plan_deinterleave_views`](Self::plan_deinterleave_views).
    pub fn plan_deinterleave(
        &self,
        rows: &RowsInput<'_>,
        fields: Option<&[&str]>,
    ) -> Result<OpPlan<Vec<OpColumn>>, OpError> {
        let selected = select_fields("deinterleave", rows.format(), fields)?;
        let views = selected
            .iter()
            .map(|&i| {
                rows.field_at(i).ok_or(OpError::Overflow {
                    op: "deinterleave",
                    input: i,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.plan_deinterleave_views(&views)
    }

    /// One packed column per field of `rows` (or per field named in `fields`, in that order),
    /// each a byte-exact copy of the field's values; the inverse of
    /// [`interleave`](Self::interleave).
    ///
    /// # Errors
    /// As [`plan_deinterleave`](Self::plan_deinterleave).
    pub fn deinterleave(
        &self,
        rows: &RowsInput<'_>,
        fields: Option<&[&str]>,
    ) -> Result<Vec<OpColumn>, OpError> {
        Ok(self.plan_deinterleave(rows, fields)?.run(self))
    }
}
