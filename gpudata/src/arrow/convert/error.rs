//! [`ConversionError`]: a column that a conversion cannot carry, or converted data that cannot
//! be restored.

use arrow_schema::DataType as ArrowType;

use super::Conversion;

/// A column conversion that does not apply, loses what it promised to keep, or cannot be
/// undone.
///
/// Every variant names the column; value errors name the row (counted from the start of the
/// stream or table) and the value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConversionError {
    /// A conversion asked for a column of a type it does not convert.
    #[error(
        "column `{column}` ({data_type}) cannot take conversion `{conversion}`: expected {expected}"
    )]
    NotApplicable {
        /// The column.
        column: String,
        /// Its Arrow type.
        data_type: ArrowType,
        /// The conversion asked for.
        conversion: Conversion,
        /// The types the conversion takes.
        expected: &'static str,
    },
    /// A conversion that promised exact values met one it cannot keep exactly: a 64-bit
    /// integer outside the 32-bit range it is narrowed to, or a temporal offset that the exact
    /// high/low split cannot carry.
    #[error(
        "column `{column}`: value {value} at row {row} does not fit {target}; choose {instead}"
    )]
    OutOfRange {
        /// The column.
        column: String,
        /// The row, counted from the first batch.
        row: u64,
        /// The value, as text (64-bit and 128-bit integers).
        value: String,
        /// What it had to fit (`"int32 (narrowing chosen from the first batch)"`).
        target: &'static str,
        /// What carries it instead.
        instead: &'static str,
    },
    /// A conversion name that is not one ([`Conversion::NAMES`]).
    #[error(
        "unknown conversion `{name}`: expected auto, as-is, time-offset, time-split, narrow, float32, words, uint8, uint32, categories, value-list, fround or skip"
    )]
    Unknown {
        /// The name given.
        name: String,
    },
    /// A policy naming a column the schema does not have.
    #[error("no column `{column}` to convert: found [{found}]")]
    MissingColumn {
        /// The name asked for.
        column: String,
        /// The schema's column names.
        found: String,
    },
    /// A validity-mask column whose name is already a column of the batch.
    #[error(
        "column `{column}`: its validity mask would be named `{mask}`, which is already a column; rename one or turn masks off for it"
    )]
    MaskNameTaken {
        /// The column whose mask it is.
        column: String,
        /// The mask column's name.
        mask: String,
    },
    /// A value-list column whose offsets column's name is already a column of the batch.
    #[error(
        "column `{column}`: its value offsets would be named `{offsets}`, which is already a column; rename one"
    )]
    OffsetsNameTaken {
        /// The value-list column.
        column: String,
        /// The offsets column's name.
        offsets: String,
    },
    /// A record batch whose schema differs from the first batch's.
    #[error("record batch {batch} has fields [{found}]: expected [{expected}], the first batch's")]
    SchemaChanged {
        /// The batch, counted from 0.
        batch: u64,
        /// The first batch's fields (`name: type`).
        expected: String,
        /// This batch's fields.
        found: String,
    },
    /// More distinct categories than 32-bit category ids can number, or than the original
    /// dictionary key type can index on restore.
    #[error("column `{column}`: {categories} categories do not fit {key_type} keys")]
    TooManyCategories {
        /// The column.
        column: String,
        /// Distinct values seen.
        categories: u64,
        /// The key type (`UInt32` ids, or the original dictionary's key type).
        key_type: ArrowType,
    },
    /// Converted data whose `gpudata.conversion` field metadata is missing a part or does not
    /// parse.
    #[error("column `{column}`: invalid conversion metadata: {reason}")]
    Metadata {
        /// The column.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// Arrow refused an array the conversion built.
    #[error("column `{column}`: arrow rejected the converted {data_type} array: {message}")]
    Arrow {
        /// The column.
        column: String,
        /// The type being built.
        data_type: ArrowType,
        /// Arrow's message.
        message: String,
    },
}
