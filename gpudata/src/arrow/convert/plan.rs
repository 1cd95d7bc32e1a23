//! [`ConversionPlan`]: a policy resolved against a schema and its first batch, converting every
//! batch of a stream the same way and reporting what each column became and why.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Schema, SchemaRef};

use super::categories::Categories;
use super::metadata::ConversionRecord;
use super::policy::{Conversion, Conversions, MaskPolicy};
use super::temporal;
use super::{ConversionError, values};
use crate::arrow::batch::{describe_schema, names};
use crate::arrow::{BatchOptions, ColumnOptions, FormatChoice, resolve_format};
use crate::format::{GpuVectorFormat, VertexFormat};

/// What one column became, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnReport {
    /// The column.
    pub column: String,
    /// Its Arrow type.
    pub arrow_type: ArrowType,
    /// The conversion it got (never [`Conversion::Auto`]; [`Conversion::Skip`] for columns left
    /// out).
    pub conversion: Conversion,
    /// The GPU format of its values (after fround for fround columns); `None` when skipped.
    pub gpu_format: Option<GpuVectorFormat>,
    /// GPU bytes per row; `None` for variable-length rows (`value-list`) and skipped columns.
    pub bytes_per_row: Option<u64>,
    /// The `uint32` validity mask column beside it, if any (4 more bytes per row).
    pub mask: Option<String>,
    /// The `uint32x2` `[start, end)` byte-range column beside a value-list column (8 more
    /// bytes per row).
    pub offsets: Option<String>,
    /// Values that did not come through exactly so far (rounded to `float32`).
    pub rounded: u64,
    /// Why this conversion (for `auto`), or why the column cannot be carried.
    pub reason: String,
}

#[derive(Clone, Debug)]
pub(super) enum Kind {
    AsIs,
    Time {
        origin: i64,
        per_step: i64,
        split: bool,
    },
    Narrow,
    Float32,
    Bool,
    Categories(Categories),
    ValueList,
    Decimal {
        scale: i8,
    },
    Skip,
}

#[derive(Clone, Debug)]
pub(super) struct ColumnPlan {
    index: usize,
    pub(super) kind: Kind,
    field: FieldRef,
    offsets: Option<FieldRef>,
    pub(super) mask: Option<FieldRef>,
    pub(super) report: ColumnReport,
}

impl ColumnPlan {
    /// Output columns this input column gives (0 when skipped; the values, then its offsets
    /// and its mask where it has them).
    pub(super) fn outputs(&self) -> usize {
        if matches!(self.kind, Kind::Skip) {
            0
        } else {
            1 + usize::from(self.offsets.is_some()) + usize::from(self.mask.is_some())
        }
    }
}

/// A plan resolved against a stream's first batch: each column's conversion, the output schema
/// and the upload options.
#[derive(Clone, Debug)]
pub(super) struct Resolved {
    pub(super) columns: Vec<ColumnPlan>,
    output: SchemaRef,
    pub(super) options: BatchOptions,
}

impl Resolved {
    /// Converts `batch`, whose first row is row `first_row` of the stream (for errors), adding
    /// what it rounded to the columns' reports.
    pub(super) fn convert(
        &mut self,
        batch: &RecordBatch,
        first_row: u64,
    ) -> Result<RecordBatch, ConversionError> {
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for plan in &mut self.columns {
            let input = batch.column(plan.index);
            let name = plan.report.column.as_str();
            let mut offsets = None;
            let converted: ArrayRef = match &mut plan.kind {
                Kind::Skip => continue,
                Kind::ValueList => {
                    let (bytes, pairs) = values::value_list(name, first_row, input)?;
                    offsets = Some(pairs);
                    bytes
                }
                Kind::AsIs | Kind::Bool => input.clone(),
                Kind::Narrow => {
                    values::narrow(name, first_row, input.as_ref(), "32 bits (narrowing)")?
                }
                Kind::Float32 => {
                    let (array, rounded) = values::to_float32(input.as_ref());
                    plan.report.rounded += rounded;
                    array
                }
                Kind::Categories(categories) => categories.convert(name, input.as_ref())?,
                Kind::Decimal { scale } => {
                    let (array, rounded) = values::decimal_to_f64(input.as_ref(), *scale);
                    plan.report.rounded += rounded;
                    array
                }
                Kind::Time {
                    origin,
                    per_step,
                    split,
                } => {
                    let raw = temporal::values(input.as_ref());
                    let nulls = input.nulls();
                    if *split {
                        Arc::new(temporal::to_split(
                            name, first_row, &raw, nulls, *origin, *per_step,
                        )?)
                    } else {
                        let (array, rounded) =
                            temporal::to_offsets(&raw, nulls, *origin, *per_step);
                        plan.report.rounded += rounded;
                        Arc::new(array)
                    }
                }
            };
            arrays.push(converted);
            arrays.extend(offsets);
            if plan.mask.is_some() {
                arrays.push(values::validity_mask(input.as_ref()));
            }
        }
        self.batch(arrays, batch.num_rows())
    }

    /// The output record batch of `arrays` (`rows` rows).
    pub(super) fn batch(
        &self,
        arrays: Vec<ArrayRef>,
        rows: usize,
    ) -> Result<RecordBatch, ConversionError> {
        RecordBatch::try_new_with_options(
            self.output.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| arrow_error("(record batch)", &ArrowType::Null, e))
    }
}

/// A [`Conversions`] policy applied to a stream of record batches of one schema: resolved at
/// the first batch (origins, steps and `auto` choices come from it), then the same for every
/// batch, so the GPU batches share one schema and category ids stay the same.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// use gpudata::arrow::convert::{Conversion, ConversionPlan, Conversions, restore_batch};
///
/// let batch = RecordBatch::try_from_iter([
///     ("delay", Arc::new(Int64Array::from(vec![-5, 12, 40])) as ArrayRef),
///     ("origin", Arc::new(StringArray::from(vec!["SEA", "LAX", "SEA"])) as ArrayRef),
/// ])?;
/// let mut plan = ConversionPlan::new(batch.schema(), Conversions::auto())?;
/// let converted = plan.convert(&batch)?;
/// let report = plan.report();
/// assert_eq!((report[0].conversion, report[1].conversion), (Conversion::Narrow, Conversion::Categories));
/// assert_eq!(plan.categories("origin").map(|c| c.len()), Some(2));
/// assert_eq!(restore_batch(&converted)?, batch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConversionPlan {
    schema: SchemaRef,
    policy: Conversions,
    /// The whole stream's value ranges of 64-bit integer columns, where known.
    ranges: Vec<(String, i128, i128)>,
    resolved: Option<Resolved>,
    rows: u64,
    batches: u64,
    /// A second schema batches may come in (see [`read_text_as_dictionaries`]): the stream's,
    /// with string columns that become category ids read as dictionaries.
    ///
    /// [`read_text_as_dictionaries`]: Self::read_text_as_dictionaries
    read_schema: Option<SchemaRef>,
}

fn arrow_error(column: &str, data_type: &ArrowType, e: impl ToString) -> ConversionError {
    ConversionError::Arrow {
        column: column.to_owned(),
        data_type: data_type.clone(),
        message: e.to_string(),
    }
}

/// The GPU format and bytes per row of an output field under `choice`.
fn gpu_format(field: &Field, choice: FormatChoice) -> (Option<GpuVectorFormat>, Option<u64>) {
    let Ok(resolved) = resolve_format(field.name(), field.data_type(), choice, false) else {
        return (None, None);
    };
    let format = if resolved.fround {
        let words = resolved.format.element_format();
        GpuVectorFormat::Fixed(if words == VertexFormat::Uint32x2 {
            VertexFormat::Float32x2
        } else {
            VertexFormat::Float32x4
        })
    } else {
        resolved.format
    };
    let bytes = match format {
        GpuVectorFormat::Fixed(f) => Some(f.byte_length()),
        _ => None,
    };
    (Some(format), bytes)
}

impl ConversionPlan {
    /// A plan for batches of `schema`.
    ///
    /// # Errors
    /// [`ConversionError::MissingColumn`] for a policy naming no column of the schema;
    /// [`ConversionError::NotApplicable`] for an explicit conversion the column's type does not
    /// take.
    pub fn new(schema: SchemaRef, policy: Conversions) -> Result<ConversionPlan, ConversionError> {
        for (name, conversion) in policy.named() {
            let field =
                schema
                    .field_with_name(name)
                    .map_err(|_| ConversionError::MissingColumn {
                        column: name.to_owned(),
                        found: names(&schema),
                    })?;
            conversion.check(field.data_type()).map_err(|expected| {
                ConversionError::NotApplicable {
                    column: name.to_owned(),
                    data_type: field.data_type().clone(),
                    conversion,
                    expected,
                }
            })?;
        }
        Ok(ConversionPlan {
            schema,
            policy,
            ranges: Vec::new(),
            resolved: None,
            rows: 0,
            batches: 0,
            read_schema: None,
        })
    }

    /// The `Utf8` / `LargeUtf8` columns this plan turns into category ids: those a reader that
    /// keeps dictionary encoding (Parquet's) may deliver as `Dictionary<Int32, _>` instead, for
    /// [`read_text_as_dictionaries`](Self::read_text_as_dictionaries).
    pub(crate) fn category_text_columns(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .filter(|f| matches!(f.data_type(), ArrowType::Utf8 | ArrowType::LargeUtf8))
            .filter(|f| {
                let conversion = match self.policy.for_column(f.name()) {
                    Conversion::Auto => Conversion::auto_for(f.data_type()).map(|(c, _)| c),
                    asked => Some(asked),
                };
                conversion == Some(Conversion::Categories)
            })
            .map(|f| f.name().clone())
            .collect()
    }

    /// Takes batches of `schema` too: the stream's schema with some of
    /// [`category_text_columns`](Self::category_text_columns) as `Dictionary<_, _>` of their
    /// string type. Their category ids are those of the strings (ids follow the rows' first
    /// occurrences either way) and readback restores the stream's own type; the reader skips
    /// building every row's string and the conversion hashes each distinct label of a batch
    /// once instead of every row.
    pub(crate) fn read_text_as_dictionaries(&mut self, schema: SchemaRef) {
        self.read_schema = Some(schema);
    }

    /// States the smallest and largest value the whole stream holds in the Int64 / UInt64
    /// column `column` (a Parquet file's statistics know them before any batch is read): `auto`
    /// then narrows that column to 32 bits exactly when the whole range fits, and chooses
    /// `float32` otherwise, instead of deciding by the first batch. Without a range, a later
    /// batch whose value does not fit the narrowing the first batch chose is
    /// [`ConversionError::OutOfRange`] naming the column, row and value (never a wrong value).
    /// Call it before the first batch; a range that the data then leaves is that error too.
    pub fn set_value_range(&mut self, column: &str, min: i128, max: i128) {
        self.ranges.retain(|(c, ..)| c != column);
        self.ranges.push((column.to_owned(), min, max));
    }

    /// The input schema.
    #[must_use]
    pub fn input_schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Resolves the plan without data (an empty stream, or an inspection of a schema alone):
    /// origins 0, steps the types' own units, 64-bit integers narrowed. A no-op once resolved.
    ///
    /// # Errors
    /// As [`convert`](Self::convert).
    pub fn resolve_without_data(&mut self) -> Result<(), ConversionError> {
        if self.resolved.is_none() {
            self.resolved = Some(self.resolve(None)?);
        }
        Ok(())
    }

    fn resolve(&self, first: Option<&RecordBatch>) -> Result<Resolved, ConversionError> {
        let mut columns = Vec::new();
        let mut options = BatchOptions::new();
        let names: Vec<&str> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        for (index, field) in self.schema.fields().iter().enumerate() {
            let array = first.map(|b| b.column(index).as_ref());
            let (plan, choice) = self.resolve_column(index, field, array)?;
            if let Some(choice) = choice {
                options = options.column(
                    field.name(),
                    ColumnOptions {
                        format: choice,
                        ..ColumnOptions::default()
                    },
                );
            }
            if let Some(mask) = &plan.mask
                && names.contains(&mask.name().as_str())
            {
                return Err(ConversionError::MaskNameTaken {
                    column: field.name().clone(),
                    mask: mask.name().clone(),
                });
            }
            if let Some(offsets) = &plan.offsets
                && names.contains(&offsets.name().as_str())
            {
                return Err(ConversionError::OffsetsNameTaken {
                    column: field.name().clone(),
                    offsets: offsets.name().clone(),
                });
            }
            columns.push(plan);
        }
        let mut fields: Vec<FieldRef> = Vec::new();
        for plan in &columns {
            if !matches!(plan.kind, Kind::Skip) {
                fields.push(plan.field.clone());
                fields.extend(plan.offsets.clone());
                fields.extend(plan.mask.clone());
            }
        }
        let output = Arc::new(Schema::new(fields).with_metadata(self.schema.metadata().clone()));
        Ok(Resolved {
            columns,
            output,
            options,
        })
    }

    /// One column's plan and its format choice (for `words` and `fround`).
    fn resolve_column(
        &self,
        index: usize,
        field: &FieldRef,
        array: Option<&dyn Array>,
    ) -> Result<(ColumnPlan, Option<FormatChoice>), ConversionError> {
        let name = field.name().as_str();
        let data_type = field.data_type();
        let asked = self.policy.for_column(name);
        let (conversion, mut reason) = match asked {
            Conversion::Auto => match Conversion::auto_for(data_type) {
                Some((c, why)) => (c, why.to_owned()),
                None if self.policy.skip_unsupported => {
                    let why = crate::arrow::default_format(name, data_type)
                        .err()
                        .map_or_else(|| "no conversion carries it".to_owned(), |e| e.to_string());
                    (Conversion::Skip, why)
                }
                None => {
                    return Err(ConversionError::NotApplicable {
                        column: name.to_owned(),
                        data_type: data_type.clone(),
                        conversion: Conversion::Auto,
                        expected: "a type some conversion carries (see Conversion::auto_for)",
                    });
                }
            },
            Conversion::AsIs if Conversion::AsIs.check(data_type).is_err() => {
                if self.policy.skip_unsupported {
                    let why = crate::arrow::default_format(name, data_type)
                        .err()
                        .map_or_else(String::new, |e| e.to_string());
                    (Conversion::Skip, why)
                } else {
                    return Err(ConversionError::NotApplicable {
                        column: name.to_owned(),
                        data_type: data_type.clone(),
                        conversion: Conversion::AsIs,
                        expected: "a type the adapter's default format carries",
                    });
                }
            }
            explicit => (explicit, "asked for".to_owned()),
        };
        let mut conversion = conversion;
        let mut choice = None;
        let mut record = ConversionRecord::new(conversion.name(), data_type);
        let nullable = field.is_nullable();
        let (kind, out_type) = match conversion {
            Conversion::Skip => (Kind::Skip, data_type.clone()),
            Conversion::AsIs => (Kind::AsIs, data_type.clone()),
            Conversion::Words => {
                choice = Some(FormatChoice::Format(GpuVectorFormat::Fixed(
                    if data_type == &ArrowType::Int64 {
                        VertexFormat::Sint32x2
                    } else {
                        VertexFormat::Uint32x2
                    },
                )));
                (Kind::AsIs, data_type.clone())
            }
            Conversion::Fround => {
                choice = Some(FormatChoice::Fround);
                match data_type {
                    ArrowType::Decimal128(_, scale) => {
                        (Kind::Decimal { scale: *scale }, ArrowType::Float64)
                    }
                    _ => (Kind::AsIs, data_type.clone()),
                }
            }
            Conversion::Narrow | Conversion::Float32 => {
                let range = self
                    .ranges
                    .iter()
                    .find(|(c, ..)| c == name)
                    .map(|(_, min, max)| (*min, *max));
                let fits = match range {
                    Some((min, max)) => values::range_fits_32(data_type, min, max),
                    None => array.is_none_or(values::fits_32),
                };
                let narrow =
                    conversion == Conversion::Narrow && (asked != Conversion::Auto || fits);
                if asked == Conversion::Auto
                    && let Some((min, max)) = range
                {
                    reason = format!(
                        "the whole stream's values lie in {min}..={max} (the file's statistics): {}",
                        if fits {
                            "narrowed to 32 bits exactly"
                        } else {
                            "beyond 32 bits, so float32, rounded beyond 2^24 (words keeps them exactly)"
                        }
                    );
                }
                if !narrow {
                    conversion = Conversion::Float32;
                    record = ConversionRecord::new(conversion.name(), data_type);
                    if asked == Conversion::Auto && range.is_none() {
                        reason = "values beyond 32 bits in the first batch: float32, rounded beyond 2^24 (words keeps them exactly)".to_owned();
                    }
                }
                let out = match (narrow, data_type) {
                    (false, _) => ArrowType::Float32,
                    (true, ArrowType::Int64) => ArrowType::Int32,
                    (true, _) => ArrowType::UInt32,
                };
                (if narrow { Kind::Narrow } else { Kind::Float32 }, out)
            }
            Conversion::Uint8 | Conversion::Uint32 => {
                // The bitmap goes to the GPU as it is and is unpacked there; the converted
                // batch keeps the Boolean column, its upload format says into what.
                choice = Some(FormatChoice::Format(GpuVectorFormat::Fixed(
                    if conversion == Conversion::Uint32 {
                        VertexFormat::Uint32
                    } else {
                        VertexFormat::Uint8
                    },
                )));
                (Kind::Bool, ArrowType::Boolean)
            }
            Conversion::ValueList => (
                Kind::ValueList,
                if data_type == &ArrowType::Utf8View {
                    ArrowType::Utf8
                } else {
                    data_type.clone()
                },
            ),
            Conversion::Categories => (
                Kind::Categories(Categories::default()),
                ArrowType::Dictionary(Box::new(ArrowType::UInt32), Box::new(ArrowType::Utf8)),
            ),
            Conversion::TimeOffset { .. } | Conversion::TimeSplit { .. } => {
                let (asked_origin, asked_step, split) = match conversion {
                    Conversion::TimeOffset { origin, step } => (origin, step, false),
                    Conversion::TimeSplit { origin } => (origin, None, true),
                    _ => (None, None, false),
                };
                let raw = array.map(temporal::values).unwrap_or_default();
                let nulls = array.and_then(|a| a.nulls());
                let origin = asked_origin.unwrap_or_else(|| {
                    if temporal::zero_origin(data_type) {
                        0
                    } else {
                        temporal::min_valid(&raw, nulls).unwrap_or(0)
                    }
                });
                let step = asked_step
                    .unwrap_or_else(|| temporal::coarsest_step(data_type, &raw, nulls, origin));
                let per_step = temporal::per_step(data_type, step).ok_or_else(|| {
                    ConversionError::NotApplicable {
                        column: name.to_owned(),
                        data_type: data_type.clone(),
                        conversion,
                        expected: "a step no finer than the column's unit, and a whole number of its units",
                    }
                })?;
                record.origin = Some(origin);
                record.step = Some(step);
                record.per_step = Some(per_step);
                if asked == Conversion::Auto {
                    reason = format!(
                        "{reason}: origin {origin} (the first batch's smallest value), step {} (the coarsest unit dividing every offset)",
                        step.name()
                    );
                }
                let out = if split {
                    ArrowType::FixedSizeList(
                        Arc::new(Field::new_list_field(ArrowType::Float32, false)),
                        2,
                    )
                } else {
                    ArrowType::Float32
                };
                (
                    Kind::Time {
                        origin,
                        per_step,
                        split,
                    },
                    out,
                )
            }
            Conversion::Auto => (Kind::Skip, data_type.clone()),
        };
        let out_field: FieldRef = match kind {
            Kind::AsIs | Kind::Skip => field.clone(),
            _ => Arc::new(record.apply(field, out_type, nullable)),
        };
        let wants_mask = match self.policy.masks {
            MaskPolicy::Never => false,
            MaskPolicy::Nullable => nullable,
            MaskPolicy::IfNulls => nullable && array.is_some_and(|a| a.logical_null_count() > 0),
        } && !matches!(kind, Kind::Skip);
        let mask = wants_mask.then(|| {
            let mut mask_record = ConversionRecord::new("validity-mask", data_type);
            mask_record.mask_of = Some(name.to_owned());
            let mask_field = Field::new(format!("{name}_valid"), ArrowType::UInt32, false);
            Arc::new(mask_record.apply(&mask_field, ArrowType::UInt32, false))
        });
        let offsets = matches!(kind, Kind::ValueList).then(|| {
            let mut offsets_record = ConversionRecord::new("value-offsets", data_type);
            offsets_record.offsets_of = Some(name.to_owned());
            let offsets_field = Field::new(
                format!("{name}_offsets"),
                values::offset_pairs_type(),
                false,
            );
            Arc::new(offsets_record.apply(&offsets_field, values::offset_pairs_type(), false))
        });
        let (format, bytes) = if matches!(kind, Kind::Skip) {
            (None, None)
        } else {
            gpu_format(&out_field, choice.unwrap_or_default())
        };
        let report = ColumnReport {
            column: name.to_owned(),
            arrow_type: data_type.clone(),
            conversion,
            gpu_format: format,
            bytes_per_row: bytes,
            mask: mask.as_ref().map(|m| m.name().clone()),
            offsets: offsets.as_ref().map(|o| o.name().clone()),
            rounded: 0,
            reason,
        };
        Ok((
            ColumnPlan {
                index,
                kind,
                field: out_field,
                offsets,
                mask,
                report,
            },
            choice,
        ))
    }

    /// Converts one batch (the first one resolves the plan).
    ///
    /// # Errors
    /// [`ConversionError::SchemaChanged`] for a batch of another schema; the value errors of the
    /// columns' conversions ([`ConversionError::OutOfRange`], [`ConversionError::TooManyCategories`]).
    pub fn convert(&mut self, batch: &RecordBatch) -> Result<RecordBatch, ConversionError> {
        self.check_schema(batch, self.batches)?;
        let resolved = match self.resolved.take() {
            Some(resolved) => resolved,
            None => self.resolve(Some(batch))?,
        };
        let output = self.resolved.insert(resolved).convert(batch, self.rows)?;
        self.rows += batch.num_rows() as u64;
        self.batches += 1;
        Ok(output)
    }

    /// The plan resolved against `first`, the stream's first batch, as
    /// [`convert`](Self::convert) would resolve it (the plan itself is left as it is).
    pub(super) fn resolve_from(&self, first: &RecordBatch) -> Result<Resolved, ConversionError> {
        self.check_schema(first, 0)?;
        match &self.resolved {
            Some(resolved) => Ok(resolved.clone()),
            None => self.resolve(Some(first)),
        }
    }

    /// Adopts `resolution` (a worker's, from the stream's first batch) unless resolved already.
    pub(super) fn adopt(&mut self, resolution: Resolved) {
        if self.resolved.is_none() {
            self.resolved = Some(resolution);
        }
    }

    /// The resolved plan, to merge a worker's batch into, and the stream's counters.
    pub(super) fn resolved_mut(&mut self) -> Option<(&mut Resolved, &mut u64, &mut u64)> {
        self.resolved
            .as_mut()
            .map(|r| (r, &mut self.rows, &mut self.batches))
    }

    /// [`ConversionError::SchemaChanged`] (naming record batch `index`) unless `batch` has the
    /// plan's field names and types.
    pub(crate) fn check_schema(
        &self,
        batch: &RecordBatch,
        index: u64,
    ) -> Result<(), ConversionError> {
        let schema = batch.schema();
        let same = |expected: &SchemaRef| {
            schema.fields().len() == expected.fields().len()
                && schema
                    .fields()
                    .iter()
                    .zip(expected.fields())
                    .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type())
        };
        if same(&self.schema) || self.read_schema.as_ref().is_some_and(same) {
            Ok(())
        } else {
            Err(ConversionError::SchemaChanged {
                batch: index,
                expected: describe_schema(&self.schema),
                found: describe_schema(&schema),
            })
        }
    }

    /// What each input column became (in input order), once resolved; empty before.
    #[must_use]
    pub fn report(&self) -> Vec<ColumnReport> {
        self.resolved
            .as_ref()
            .map(|r| r.columns.iter().map(|c| c.report.clone()).collect())
            .unwrap_or_default()
    }

    /// The converted batches' schema, once resolved.
    #[must_use]
    pub fn output_schema(&self) -> Option<SchemaRef> {
        self.resolved.as_ref().map(|r| r.output.clone())
    }

    /// The upload options the converted batches need (`words` and `fround` formats).
    #[must_use]
    pub fn batch_options(&self) -> BatchOptions {
        self.resolved
            .as_ref()
            .map(|r| r.options.clone())
            .unwrap_or_default()
    }

    /// A category column's labels so far, in id order (the host dictionary).
    #[must_use]
    pub fn categories(&mut self, column: &str) -> Option<ArrayRef> {
        self.resolved
            .as_mut()?
            .columns
            .iter_mut()
            .find_map(|c| match &mut c.kind {
                Kind::Categories(categories) if c.report.column == column => {
                    Some(categories.labels())
                }
                _ => None,
            })
    }

    /// Rows converted so far.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.rows
    }
}
