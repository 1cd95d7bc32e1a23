//! The `gpudata.conversion` field metadata: what a converted column was, so that readback can
//! restore it, and so that tools reading the GPU table's schema see the origin and step.

use arrow_schema::{DataType as ArrowType, Field};

use super::ConversionError;
use super::temporal::TimeStep;

/// The field metadata key holding a converted column's [`ConversionRecord`] as JSON.
pub const CONVERSION_METADATA_KEY: &str = "gpudata.conversion";

/// What a converted column was and how to undo the conversion: stored as JSON under
/// [`CONVERSION_METADATA_KEY`] in the converted field's metadata.
///
/// ```json
/// {"conversion":"time-offset","arrow_type":"Timestamp(µs)","origin":978307200000000,"step":"minute","per_step":60000000}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConversionRecord {
    /// The conversion's name ([`Conversion::name`](super::Conversion::name)), or
    /// `"validity-mask"` for a mask column, `"value-offsets"` for a value-list's offsets.
    pub conversion: String,
    /// The original Arrow type, as arrow-rs prints it (and parses it back).
    pub arrow_type: String,
    /// Temporal conversions: the origin, in the original type's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<i64>,
    /// Temporal conversions: the step unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<TimeStep>,
    /// Temporal conversions: original units per step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_step: Option<i64>,
    /// Validity masks: the column whose validity this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_of: Option<String>,
    /// Value offsets (`"value-offsets"`): the value-list column whose row byte ranges these
    /// are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets_of: Option<String>,
}

impl ConversionRecord {
    pub(crate) fn new(conversion: &str, original: &ArrowType) -> ConversionRecord {
        ConversionRecord {
            conversion: conversion.to_owned(),
            arrow_type: original.to_string(),
            origin: None,
            step: None,
            per_step: None,
            mask_of: None,
            offsets_of: None,
        }
    }

    /// The record of a converted field, `None` when the field was not converted.
    ///
    /// # Errors
    /// [`ConversionError::Metadata`] when the JSON does not parse.
    pub fn of(field: &Field) -> Result<Option<ConversionRecord>, ConversionError> {
        let Some(json) = field.metadata().get(CONVERSION_METADATA_KEY) else {
            return Ok(None);
        };
        serde_json::from_str(json)
            .map(Some)
            .map_err(|e| ConversionError::Metadata {
                column: field.name().clone(),
                reason: format!("`{CONVERSION_METADATA_KEY}` is not a conversion record: {e}"),
            })
    }

    /// The original Arrow type.
    ///
    /// # Errors
    /// [`ConversionError::Metadata`] when the type does not parse.
    pub fn original_type(&self, column: &str) -> Result<ArrowType, ConversionError> {
        self.arrow_type
            .parse()
            .map_err(|e| ConversionError::Metadata {
                column: column.to_owned(),
                reason: format!("arrow type `{}` does not parse: {e}", self.arrow_type),
            })
    }

    /// `field` renamed to nothing new, with `data_type` and this record added to its metadata.
    pub(crate) fn apply(&self, field: &Field, data_type: ArrowType, nullable: bool) -> Field {
        let mut metadata = field.metadata().clone();
        // A record is plain strings and integers: it always serializes.
        let json = serde_json::to_string(self).unwrap_or_default();
        metadata.insert(CONVERSION_METADATA_KEY, json);
        Field::new(field.name(), data_type, nullable).with_metadata(metadata)
    }
}
