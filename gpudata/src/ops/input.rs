//! What operations read: [`Operand`]s, each a [`GpuDataView`], a [`GpuConstant`] or a
//! [`Literal`].

use crate::data::{GpuConstant, GpuData, GpuDataView, TypedGpuDataView};
use crate::format::codec;
use crate::ops::OpError;
use crate::record::GpuField;

/// An untyped literal operand of the arithmetic family (luma.gl's plain `number` or
/// `number[]` argument): it takes no part in the type join, so the result keeps the data's type
/// (`sint32 + 0.5` stays `sint32`).
///
/// A scalar broadcasts to every lane; a vector's missing lanes are 0 (luma.gl's rule: `[5]` is
/// `5` in lane 0 only). With float data the value is rounded to `f32`; with integer data the
/// arithmetic stays in exact, wrapping 32-bit integers whatever the value (a fraction, a value
/// past the type's range, NaN): the [`ops`](crate::ops) module's semantics say how. Outside
/// the arithmetic family (`dot`, `select`, ...), luma.gl makes a number a float32 constant, and
/// so does gpudata. A typed constant is a [`GpuConstant`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Literal {
    lanes: [f64; 4],
    len: usize,
    scalar: bool,
}

impl Literal {
    /// A number, broadcast to every lane.
    #[must_use]
    pub const fn scalar(value: f64) -> Literal {
        Literal {
            lanes: [value, 0.0, 0.0, 0.0],
            len: 1,
            scalar: true,
        }
    }

    /// One to four numbers, lane by lane; missing lanes are 0.
    ///
    /// # Errors
    /// [`OpError::ConstantLanes`] for no lanes or more than four.
    pub fn vector(values: &[f64]) -> Result<Literal, OpError> {
        if values.is_empty() || values.len() > 4 {
            return Err(OpError::ConstantLanes {
                op: "literal",
                input: 0,
                lanes: values.len(),
            });
        }
        let mut lanes = [0.0; 4];
        lanes[..values.len()].copy_from_slice(values);
        Ok(Literal {
            lanes,
            len: values.len(),
            scalar: false,
        })
    }

    /// The numbers given.
    #[must_use]
    pub fn lanes(&self) -> &[f64] {
        &self.lanes[..self.len]
    }

    /// Whether it is a scalar (broadcast to every lane).
    #[must_use]
    pub const fn is_scalar(&self) -> bool {
        self.scalar
    }

    /// The value of output lane `lane` (0..4).
    pub(crate) fn lane(&self, lane: u32) -> f64 {
        if self.scalar {
            self.lanes[0]
        } else {
            self.lanes[lane as usize]
        }
    }

    /// The float32 constant luma.gl makes of the number outside the arithmetic family: one
    /// `float32` lane per number given.
    pub(crate) fn to_constant(self) -> GpuConstant {
        // Rounded to f32, as a Float32Array stores it.
        let [x, y, z, w] = self.lanes.map(|v| v as f32);
        match self.len {
            1 => GpuConstant::from_value(x),
            2 => GpuConstant::from_value([x, y]),
            3 => GpuConstant::from_value([x, y, z]),
            _ => GpuConstant::from_value([x, y, z, w]),
        }
    }
}

/// The lanes of `constant` as the operations read a column of its format (each stored
/// component decoded by the format's codec, in stored order), as the 32-bit patterns of their
/// type (`f32`, `i32` or `u32`), padded with zeros to four: what the kernels' uniform and the
/// CPU reference read.
pub(crate) fn constant_bits(constant: &GpuConstant) -> [u32; 4] {
    let format = constant.format();
    let size = codec::unit_byte_length(format) as usize;
    let mut bits = [0; 4];
    for (lane, out) in (0..format.components()).zip(&mut bits) {
        let at = codec::unit_of_lane(format, lane) as usize * size;
        let mut unit = [0u8; 4];
        // The unit lies inside the value (its bytes are exactly one value of the format).
        if let Some(stored) = constant.bytes().get(at..at + size) {
            unit[..size].copy_from_slice(stored);
        }
        *out = codec::decode_unit(format, lane, u32::from_le_bytes(unit)).to_bits();
    }
    bits
}

/// One argument of an operation: a column `D` (values one per row), a typed constant or a
/// literal.
/// One family for every kind of column: [`Operand`] (a view on the GPU), the CPU reference's
/// [`HostOperand`](super::cpu::HostOperand) and chunked columns' `OperandOf<&C>`
/// ([`piecewise`](super::piecewise); [`ChunkOperand`](crate::table::ChunkOperand) for a
/// [`GpuVector`](crate::GpuVector)).
#[derive(Clone, Copy, Debug)]
pub enum OperandOf<D> {
    /// Values one per row: a view's, a host column's or a chunked column's.
    Data(D),
    /// The same value of one format for every row: read as a column of that format whose
    /// every row is the value (a `float32` constant is luma.gl's `fromConstant`).
    Constant(GpuConstant),
    /// An untyped number that keeps the data's type ([`Literal`]).
    Literal(Literal),
}

impl<D> OperandOf<D> {
    /// The column of a column operand; `None` for a constant or a literal.
    pub fn data(&self) -> Option<&D> {
        match self {
            OperandOf::Data(data) => Some(data),
            _ => None,
        }
    }

    /// The same operand over another kind of column: `f` maps a column, a constant or a
    /// literal stays as it is. So one operand list runs on the GPU and on the CPU reference
    /// (each column mapped to its view and to its host column), and the piecewise driver
    /// hands each piece's operands to the kernels.
    pub fn map_data<E>(&self, f: impl FnOnce(&D) -> E) -> OperandOf<E> {
        let Ok(operand) = self.try_map_data(|d| Ok::<E, std::convert::Infallible>(f(d)));
        operand
    }

    /// [`map_data`](Self::map_data) with a mapping that can fail.
    ///
    /// # Errors
    /// `f`'s error.
    pub fn try_map_data<E, X>(
        &self,
        f: impl FnOnce(&D) -> Result<E, X>,
    ) -> Result<OperandOf<E>, X> {
        Ok(match self {
            OperandOf::Data(data) => OperandOf::Data(f(data)?),
            OperandOf::Constant(constant) => OperandOf::Constant(*constant),
            OperandOf::Literal(literal) => OperandOf::Literal(*literal),
        })
    }
}

/// One argument of an operation on the GPU: a [`GpuDataView`]'s values, a constant or a
/// literal.
pub type Operand<'a> = OperandOf<GpuDataView<'a>>;

impl<D> From<GpuConstant> for OperandOf<D> {
    fn from(constant: GpuConstant) -> Self {
        OperandOf::Constant(constant)
    }
}

impl<D> From<Literal> for OperandOf<D> {
    fn from(literal: Literal) -> Self {
        OperandOf::Literal(literal)
    }
}

impl<D> From<f32> for OperandOf<D> {
    fn from(value: f32) -> Self {
        OperandOf::Constant(GpuConstant::from_value(value))
    }
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

/// What the operation functions ([`add`](super::add), [`sqrt`](super::sqrt), ...) take: a
/// [`GpuDataView`] or [`TypedGpuDataView`], [`GpuData`] of one fixed vertex format, a
/// [`GpuConstant`] or an `f32` scalar (a float32 constant; an unsuffixed `1.5` is one), a
/// [`Literal`] (an untyped number: there is deliberately no `f64` conversion, so that `1.5`
/// keeps meaning a float32 constant), or an [`Operand`].
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

impl<'a> IntoOperand<'a> for GpuConstant {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Constant(self))
    }
}

impl<'a> IntoOperand<'a> for f32 {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Constant(GpuConstant::from_value(self)))
    }
}

impl<'a> IntoOperand<'a> for Literal {
    fn into_operand(self) -> Result<Operand<'a>, OpError> {
        Ok(Operand::Literal(self))
    }
}
