//! [`restore_batch`]: a converted batch (as read back from the GPU) to its original types, by
//! the `gpudata.conversion` field metadata.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Schema};

use super::metadata::{CONVERSION_METADATA_KEY, ConversionRecord};
use super::{ConversionError, categories, temporal, values};

fn metadata_error(column: &str, reason: impl Into<String>) -> ConversionError {
    ConversionError::Metadata {
        column: column.to_owned(),
        reason: reason.into(),
    }
}

/// One converted column back to its original type.
fn restore_column(
    field: &Field,
    record: &ConversionRecord,
    array: &ArrayRef,
) -> Result<(FieldRef, ArrayRef), ConversionError> {
    let column = field.name().as_str();
    let original = record.original_type(column)?;
    let wrong_type = || {
        metadata_error(
            column,
            format!(
                "conversion `{}` does not read back as {}",
                record.conversion,
                array.data_type()
            ),
        )
    };
    let restored: ArrayRef = match record.conversion.as_str() {
        "time-offset" | "time-split" => {
            let origin = record
                .origin
                .ok_or_else(|| metadata_error(column, "no origin"))?;
            let per_step = record
                .per_step
                .filter(|p| *p > 0)
                .ok_or_else(|| metadata_error(column, "no positive per_step"))?;
            let nulls = array.nulls().cloned();
            let offsets: Vec<f64> = match array.data_type() {
                ArrowType::Float32 => array
                    .as_primitive::<Float32Type>()
                    .values()
                    .iter()
                    .map(|v| f64::from(*v))
                    .collect(),
                ArrowType::FixedSizeList(_, 2) => {
                    let pairs = array.as_fixed_size_list();
                    let words = pairs
                        .values()
                        .as_primitive_opt::<Float32Type>()
                        .ok_or_else(wrong_type)?;
                    let start = pairs.offset() * 2;
                    words.values()[start..start + 2 * pairs.len()]
                        .chunks_exact(2)
                        .map(|hl| f64::from(hl[0]) + f64::from(hl[1]))
                        .collect()
                }
                _ => return Err(wrong_type()),
            };
            temporal::restore(
                column,
                &original,
                offsets.into_iter(),
                nulls,
                origin,
                per_step,
                array.len(),
            )?
        }
        "narrow" | "float32" => {
            if !matches!(
                array.data_type(),
                ArrowType::Int32 | ArrowType::UInt32 | ArrowType::Float32
            ) {
                return Err(wrong_type());
            }
            values::widen(&original, array.as_ref())
        }
        "uint8" | "uint32" => match array.data_type() {
            // Converted but not yet uploaded: the bits are still the booleans.
            ArrowType::Boolean => array.clone(),
            ArrowType::UInt8 | ArrowType::UInt32 => values::int_to_bool(array.as_ref()),
            _ => return Err(wrong_type()),
        },
        "categories" => categories::restore(column, &original, array.as_ref())?,
        "value-list" => match (&original, array.data_type()) {
            (ArrowType::Utf8View, ArrowType::Utf8) => Arc::new(
                array
                    .as_string::<i32>()
                    .iter()
                    .collect::<arrow_array::StringViewArray>(),
            ),
            (original, found) if original == found => array.clone(),
            _ => return Err(wrong_type()),
        },
        "fround" => {
            let ArrowType::Decimal128(precision, scale) = original else {
                return Err(metadata_error(column, "fround records are for Decimal128"));
            };
            if array.data_type() != &ArrowType::Float64 {
                return Err(wrong_type());
            }
            values::f64_to_decimal(column, array.as_ref(), precision, scale)?
        }
        other => {
            return Err(metadata_error(
                column,
                format!("unknown conversion `{other}`"),
            ));
        }
    };
    let mut metadata = field.metadata().clone();
    metadata.remove(CONVERSION_METADATA_KEY);
    let restored_field = Field::new(column, original, field.is_nullable()).with_metadata(metadata);
    Ok((Arc::new(restored_field), restored))
}

/// A batch converted by a [`ConversionPlan`](super::ConversionPlan) (and read back from the GPU)
/// with its original types: temporal offsets back to timestamps, narrowed integers widened,
/// 0/1 back to booleans, category ids back to strings or dictionaries, value lists back to
/// their string type, fround Float64 back to Decimal128; validity-mask and value-offsets
/// columns dropped (the validity travels with each column's readback metadata, the offsets
/// with the strings'). Columns without a `gpudata.conversion` record are passed on unchanged.
///
/// Exact conversions restore the original values exactly; `float32` conversions restore the
/// rounded values (the report's `rounded` counts them).
///
/// # Errors
/// [`ConversionError::Metadata`] for a record that does not parse or does not match the
/// array; [`ConversionError::OutOfRange`] for a value that leaves the original type;
/// [`ConversionError::TooManyCategories`] for categories beyond the original key type;
/// [`ConversionError::Arrow`].
pub fn restore_batch(batch: &RecordBatch) -> Result<RecordBatch, ConversionError> {
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut arrays = Vec::with_capacity(schema.fields().len());
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        match ConversionRecord::of(field)? {
            None => {
                fields.push(field.clone());
                arrays.push(array.clone());
            }
            Some(record)
                if record.conversion == "validity-mask" || record.conversion == "value-offsets" => {
            }
            Some(record) => {
                let (f, a) = restore_column(field, &record, array)?;
                fields.push(f);
                arrays.push(a);
            }
        }
    }
    let schema = Arc::new(Schema::new(fields).with_metadata(schema.metadata().clone()));
    RecordBatch::try_new_with_options(
        schema,
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )
    .map_err(|e| ConversionError::Arrow {
        column: "(record batch)".to_owned(),
        data_type: ArrowType::Null,
        message: e.to_string(),
    })
}
