//! What arithmetic reads: [`Operand`]s, each a [`GpuDataView`] or a [`Constant`].

use crate::data::{GpuData, GpuDataView, TypedGpuDataView};
use crate::kernels::OpError;
use crate::record::GpuField;

/// A constant operand of arithmetic: one to four `f32` lanes, the same for every row
/// (luma.gl's `fromConstant`, type `float32`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant {
    lanes: [f32; 4],
    len: usize,
}

impl Constant {
    /// A scalar, broadcast to every lane.
    #[must_use]
    pub const fn scalar(value: f32) -> Constant {
        Constant {
            lanes: [value, 0.0, 0.0, 0.0],
            len: 1,
        }
    }

    /// A vector of one to four lanes; lanes past its length read as 0.
    ///
    /// # Errors
    /// [`OpError::ConstantLanes`] for no lanes or more than four.
    pub fn vector(values: &[f32]) -> Result<Constant, OpError> {
        if values.is_empty() || values.len() > 4 {
            return Err(OpError::ConstantLanes {
                op: "constant",
                input: 0,
                lanes: values.len(),
            });
        }
        let mut lanes = [0.0; 4];
        lanes[..values.len()].copy_from_slice(values);
        Ok(Constant {
            lanes,
            len: values.len(),
        })
    }

    /// The lanes.
    #[must_use]
    pub fn lanes(&self) -> &[f32] {
        &self.lanes[..self.len]
    }

    /// The lanes as `f32` bit patterns, padded with zeros to four.
    pub(crate) fn bits(&self) -> [u32; 4] {
        self.lanes.map(f32::to_bits)
    }
}

/// One argument of an arithmetic operation: a GPU column or a constant.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// Values read from the GPU, one per row.
    Data(GpuDataView<'a>),
    /// The same value for every row.
    Constant(Constant),
}

impl<'a> From<GpuDataView<'a>> for Operand<'a> {
    fn from(view: GpuDataView<'a>) -> Self {
        Operand::Data(view)
    }
}

impl<'a> From<&GpuDataView<'a>> for Operand<'a> {
    fn from(view: &GpuDataView<'a>) -> Self {
        Operand::Data(*view)
    }
}

impl From<Constant> for Operand<'_> {
    fn from(constant: Constant) -> Self {
        Operand::Constant(constant)
    }
}

impl From<f32> for Operand<'_> {
    fn from(value: f32) -> Self {
        Operand::Constant(Constant::scalar(value))
    }
}

impl<'a> TryFrom<&'a GpuData> for Operand<'a> {
    type Error = OpError;

    /// The rows of data of one fixed vertex format, as a column operand.
    ///
    /// # Errors
    /// As [`column`].
    fn try_from(data: &'a GpuData) -> Result<Self, Self::Error> {
        column("input", data).map(Operand::Data)
    }
}

/// The view of `data` as one column: its rows of one fixed vertex format.
///
/// # Errors
/// [`OpError::WrongData`] for struct, list or format-less data (take a child view of struct
/// data with `get_child` instead).
pub(crate) fn column<'a>(op: &'static str, data: &'a GpuData) -> Result<GpuDataView<'a>, OpError> {
    data.as_view().ok_or_else(|| OpError::WrongData {
        op,
        expected: "gpu data of one fixed vertex format",
        found: describe(data),
    })
}

/// How `data`'s format reads in an error.
pub(crate) fn describe(data: &GpuData) -> String {
    data.format()
        .map_or_else(|| "no format".to_owned(), |f| format!("format `{f}`"))
}

/// What the two-operand arithmetic functions ([`add`](super::add), ...) take: a
/// [`GpuDataView`] or [`TypedGpuDataView`], [`GpuData`] of one fixed vertex format, a
/// [`Constant`], an `f32` scalar or an [`Operand`].
pub trait IntoOperand<'a> {
    /// The operand.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for data that is not one column (struct, list or format-less data).
    fn into_operand(self) -> Result<Operand<'a>, OpError>;
}

impl<'a> IntoOperand<'a> for Operand<'a> {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(self)
    }
}

impl<'a> IntoOperand<'a> for GpuDataView<'a> {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Data(self))
    }
}

impl<'a> IntoOperand<'a> for &GpuDataView<'a> {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Data(*self))
    }
}

impl<'a, V: GpuField> IntoOperand<'a> for TypedGpuDataView<'a, V> {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Data(self.view()))
    }
}

impl<'a, V: GpuField> IntoOperand<'a> for &TypedGpuDataView<'a, V> {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Data(self.view()))
    }
}

impl<'a> IntoOperand<'a> for &'a GpuData {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Operand::try_from(self)
    }
}

impl<'a> IntoOperand<'a> for Constant {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Constant(self))
    }
}

impl<'a> IntoOperand<'a> for f32 {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Constant(Constant::scalar(self)))
    }
}
