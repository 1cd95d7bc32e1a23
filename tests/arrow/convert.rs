//! Column conversions (`gpudata::arrow::convert`) through the GPU and back: every conversion's
//! GPU values against values computed here, its inverse against the original batch, the `auto`
//! choices and their reasons, validity masks, and random arrays with nulls, slices and empty
//! batches.

use std::sync::Arc;

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int8Type, UInt32Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Date64Array, Decimal128Array, DictionaryArray,
    DurationMillisecondArray, Int64Array, LargeStringArray, RecordBatch, StringArray,
    StringViewArray, Time32SecondArray, Time64NanosecondArray, TimestampMicrosecondArray,
    TimestampNanosecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use gpudata::Gpu;
use gpudata::arrow::convert::{
    CONVERSION_METADATA_KEY, Conversion, ConversionError, ConversionPlan, ConversionRecord,
    Conversions, MaskPolicy, TimeStep, restore_batch,
};
use gpudata::arrow::{record_batch_from_gpu, record_batch_to_gpu};
use proptest::prelude::*;

use crate::support;

/// One batch of one column.
fn one(name: &str, array: ArrayRef) -> RecordBatch {
    let field = Field::new(name, array.data_type().clone(), array.null_count() > 0);
    RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap()
}

/// Converts `batches` with `policy`, uploads each, reads each back; returns the plan, the
/// converted batches as read back, and the restored ones.
fn through_gpu(
    gpu: &Gpu,
    batches: &[RecordBatch],
    policy: Conversions,
) -> (ConversionPlan, Vec<RecordBatch>, Vec<RecordBatch>) {
    let mut plan = ConversionPlan::new(batches[0].schema(), policy).unwrap();
    let mut read = Vec::new();
    let mut restored = Vec::new();
    for batch in batches {
        let converted = plan.convert(batch).unwrap();
        let (gpu_batch, skipped) =
            record_batch_to_gpu(gpu, &converted, &plan.batch_options()).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        let back = record_batch_from_gpu(gpu, &gpu_batch).unwrap();
        // fround columns come back as hi + lo (about 48 bits); booleans as the 0/1 integers
        // the GPU unpacked them to (checked by `booleans_are_unpacked_on_the_gpu`); the rest
        // bit for bit.
        let on_gpu = plan.report().iter().any(|r| {
            matches!(
                r.conversion,
                Conversion::Fround | Conversion::Uint8 | Conversion::Uint32
            )
        });
        if !on_gpu {
            assert_eq!(back, converted, "the gpu keeps the converted bytes");
        }
        restored.push(restore_batch(&back).unwrap());
        read.push(back);
    }
    (plan, read, restored)
}

fn f32_column(batch: &RecordBatch, i: usize) -> Vec<f32> {
    batch
        .column(i)
        .as_any()
        .downcast_ref::<arrow_array::Float32Array>()
        .unwrap()
        .values()
        .to_vec()
}

#[test]
fn timestamps_become_exact_minute_offsets_from_the_first_batch_minimum() {
    let gpu = support::gpu();
    let minute = 60_000_000_i64;
    let base = 978_307_200_000_000_i64; // 2001-01-01 in µs
    let values: Vec<i64> = [3, 0, 525_599, 17, 44_000]
        .iter()
        .map(|m| base + m * minute)
        .collect();
    let first = one(
        "date",
        Arc::new(TimestampMicrosecondArray::from(values.clone())),
    );
    // A later batch below the origin: negative offsets, still whole minutes.
    let later = one(
        "date",
        Arc::new(TimestampMicrosecondArray::from(vec![base - 90 * minute])),
    );
    let (plan, read, restored) =
        through_gpu(&gpu, &[first.clone(), later.clone()], Conversions::auto());
    let report = &plan.report()[0];
    assert_eq!(
        report.conversion,
        Conversion::TimeOffset {
            origin: None,
            step: None
        }
    );
    assert_eq!(
        report.gpu_format.map(|f| f.to_string()).as_deref(),
        Some("float32")
    );
    assert_eq!((report.bytes_per_row, report.rounded), (Some(4), 0));
    assert!(
        report.reason.contains("origin 978307200000000"),
        "{}",
        report.reason
    );
    assert!(report.reason.contains("step minute"), "{}", report.reason);
    assert_eq!(
        f32_column(&read[0], 0),
        [3.0, 0.0, 525_599.0, 17.0, 44_000.0]
    );
    assert_eq!(f32_column(&read[1], 0), [-90.0]);
    let record = ConversionRecord::of(read[0].schema().field(0))
        .unwrap()
        .unwrap();
    assert_eq!(
        (record.origin, record.step, record.per_step),
        (Some(base), Some(TimeStep::Minute), Some(minute))
    );
    assert_eq!(restored, [first, later]);
}

#[test]
fn temporal_types_round_trip_under_auto() {
    let gpu = support::gpu();
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(Date32Array::from(vec![Some(11_000), None, Some(11_365)])),
        Arc::new(Date64Array::from(vec![86_400_000 * 3, 86_400_000 * 9])),
        Arc::new(Time32SecondArray::from(vec![0, 3_600, 86_399])),
        Arc::new(Time64NanosecondArray::from(vec![1, 86_399_999_999_999])),
        Arc::new(DurationMillisecondArray::from(vec![
            Some(-5),
            None,
            Some(250),
        ])),
        Arc::new(
            TimestampNanosecondArray::from(vec![
                1_700_000_000_123_456_789,
                1_700_000_000_000_000_000,
            ])
            .with_timezone("+01:00"),
        ),
    ];
    for array in arrays {
        let batch = one("t", array.clone());
        let (plan, _, restored) =
            through_gpu(&gpu, std::slice::from_ref(&batch), Conversions::auto());
        let report = &plan.report()[0];
        // Offsets beyond 2^24 steps round (the report counts them); the rest come back exactly.
        let exact = !matches!(
            array.data_type(),
            DataType::Time64(_) | DataType::Timestamp(..)
        );
        assert_eq!(
            report.rounded == 0,
            exact,
            "{}: {report:?}",
            array.data_type()
        );
        assert_eq!(restored[0].schema(), batch.schema());
        if exact {
            assert_eq!(restored[0], batch, "{}", array.data_type());
        }
    }
}

#[test]
fn time_split_is_exact_to_48_bits_and_refuses_beyond() {
    let gpu = support::gpu();
    let values = vec![0_i64, (1 << 47) + 12_345, -((1 << 40) + 7), 999];
    let batch = one(
        "t",
        Arc::new(TimestampNanosecondArray::from(values.clone())),
    );
    let policy = Conversions::auto().column("t", Conversion::TimeSplit { origin: Some(0) });
    let (plan, read, restored) = through_gpu(&gpu, std::slice::from_ref(&batch), policy.clone());
    assert_eq!(
        plan.report()[0]
            .gpu_format
            .map(|f| f.to_string())
            .as_deref(),
        Some("float32x2")
    );
    let pairs = read[0]
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::FixedSizeListArray>()
        .unwrap();
    let words = pairs
        .values()
        .as_any()
        .downcast_ref::<arrow_array::Float32Array>()
        .unwrap();
    for (i, v) in values.iter().enumerate() {
        let (hi, lo) = (words.value(2 * i), words.value(2 * i + 1));
        assert_eq!(hi as i64 + lo as i64, *v, "row {i}");
        assert_eq!(hi, *v as f32, "row {i}: hi is the value rounded to f32");
    }
    assert_eq!(restored[0], batch);

    // 2^50 + 2^25 + 1: hi = 2^50 leaves a 26-bit remainder, which no f32 holds.
    let far = one(
        "t",
        Arc::new(TimestampNanosecondArray::from(vec![
            1,
            (1 << 50) + (1 << 25) + 1,
        ])),
    );
    let mut plan = ConversionPlan::new(far.schema(), policy).unwrap();
    let e = plan.convert(&far).unwrap_err();
    assert!(
        matches!(e, ConversionError::OutOfRange { row: 1, .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "column `t`: value 1125899940397057 at row 1 does not fit an exact float32 hi/lo offset (whole steps below 2^48 from the origin); choose time-offset (rounded float32) or an origin and step that fit"
    );
}

#[test]
fn int64_narrows_when_it_fits_and_auto_says_why_when_it_does_not() {
    let gpu = support::gpu();
    let small = one(
        "n",
        Arc::new(Int64Array::from(vec![
            Some(-5),
            None,
            Some(i64::from(i32::MAX)),
        ])),
    );
    let (plan, read, restored) =
        through_gpu(&gpu, std::slice::from_ref(&small), Conversions::auto());
    assert_eq!(plan.report()[0].conversion, Conversion::Narrow);
    assert_eq!(read[0].column(0).data_type(), &DataType::Int32);
    assert_eq!(restored[0], small);

    let big = one(
        "n",
        Arc::new(UInt64Array::from(vec![1, 1 << 40, (1 << 24) + 1])),
    );
    let (plan, read, restored) = through_gpu(&gpu, std::slice::from_ref(&big), Conversions::auto());
    let report = &plan.report()[0];
    assert_eq!(
        (report.conversion, report.rounded),
        (Conversion::Float32, 1)
    );
    assert!(
        report
            .reason
            .starts_with("values beyond 32 bits in the first batch"),
        "{}",
        report.reason
    );
    assert_eq!(
        f32_column(&read[0], 0),
        [1.0, (1_u64 << 40) as f32, 16_777_216.0]
    );
    let back = restored[0]
        .column(0)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .unwrap();
    assert_eq!(
        back.values().as_ref(),
        [1, 1 << 40, 1 << 24],
        "float32 restores the rounded value"
    );

    let words = Conversions::auto().column("n", Conversion::Words);
    let (plan, _, restored) = through_gpu(&gpu, std::slice::from_ref(&big), words);
    assert_eq!(
        plan.report()[0]
            .gpu_format
            .map(|f| f.to_string())
            .as_deref(),
        Some("uint32x2")
    );
    assert_eq!(restored[0], big);

    // Narrowing asked for explicitly, or chosen by the first batch, refuses a later value.
    let mut plan = ConversionPlan::new(small.schema(), Conversions::auto()).unwrap();
    plan.convert(&small).unwrap();
    let later = one(
        "n",
        Arc::new(Int64Array::from(vec![Some(1), None, Some(-(1 << 33))])),
    );
    let e = plan.convert(&later).unwrap_err();
    assert_eq!(
        e.to_string(),
        "column `n`: value -8589934592 at row 5 does not fit 32 bits (narrowing); choose float32 (rounded beyond 2^24) or words (exact, two 32-bit words)"
    );
}

#[test]
fn booleans_become_zero_one_integers() {
    let gpu = support::gpu();
    let bools = one(
        "b",
        Arc::new(BooleanArray::from(vec![
            Some(true),
            None,
            Some(false),
            Some(true),
        ])),
    );
    for (conversion, data_type) in [
        (Conversion::Uint8, DataType::UInt8),
        (Conversion::Uint32, DataType::UInt32),
    ] {
        let policy = Conversions::auto()
            .masks(MaskPolicy::Never)
            .column("b", conversion);
        let (_, read, restored) = through_gpu(&gpu, std::slice::from_ref(&bools), policy);
        assert_eq!(read[0].column(0).data_type(), &data_type);
        let ints = arrow_cast_u32(read[0].column(0));
        assert_eq!([ints[0], ints[2], ints[3]], [1, 0, 1]);
        assert_eq!(restored[0], bools);
    }
}

/// Booleans go to the GPU as their bitmap and a kernel unpacks them: every row's bit (under
/// nulls too) as a 0/1 `uint8` / `uint32`, for slices at any bit offset, across several kernel
/// runs on a device whose storage bindings hold a few hundred rows, and on empty batches.
#[test]
fn booleans_are_unpacked_on_the_gpu() {
    let small = support::limited_gpu("boolean runs", |limits| {
        limits.max_storage_buffer_binding_size = 4096;
    });
    let mut rng = support::Rng::new(18);
    let n = 5000;
    let all = BooleanArray::from_iter((0..n).map(|i| (i % 7 != 3).then(|| rng.below(3) == 0)));
    for gpu in [support::gpu(), small] {
        for (offset, length) in [(0, n), (3, 4093), (128, 1000), (4999, 1), (17, 0), (5, 131)] {
            let sliced = all.slice(offset, length);
            let bools = one("b", Arc::new(sliced.clone()));
            let expected: Vec<u32> = (0..length)
                .map(|i| u32::from(sliced.values().value(i)))
                .collect();
            for (conversion, data_type, width) in [
                (Conversion::Uint8, DataType::UInt8, 1),
                (Conversion::Uint32, DataType::UInt32, 4),
            ] {
                let policy = Conversions::auto()
                    .masks(MaskPolicy::Never)
                    .column("b", conversion);
                let (plan, read, restored) =
                    through_gpu(&gpu, std::slice::from_ref(&bools), policy);
                let report = &plan.report()[0];
                assert_eq!(report.bytes_per_row, Some(width));
                assert_eq!(read[0].column(0).data_type(), &data_type);
                assert_eq!(
                    arrow_cast_u32(read[0].column(0)),
                    expected,
                    "{conversion} of rows {offset}..+{length}"
                );
                let nulls = |a: &dyn Array| a.nulls().filter(|n| n.null_count() > 0).cloned();
                assert_eq!(nulls(read[0].column(0).as_ref()), nulls(&sliced));
                assert_eq!(restored[0], bools);
            }
        }
    }
}

fn arrow_cast_u32(array: &ArrayRef) -> Vec<u32> {
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::UInt8Array>() {
        return a.values().iter().map(|v| u32::from(*v)).collect();
    }
    array
        .as_any()
        .downcast_ref::<arrow_array::UInt32Array>()
        .unwrap()
        .values()
        .to_vec()
}

#[test]
fn strings_and_dictionaries_share_one_category_dictionary_across_batches() {
    let gpu = support::gpu();
    let arrays: Vec<(ArrayRef, ArrayRef)> = vec![
        (
            Arc::new(StringArray::from(vec![
                Some("SEA"),
                Some("LAX"),
                None,
                Some("SEA"),
            ])),
            Arc::new(StringArray::from(vec![Some("JFK"), Some("LAX")])),
        ),
        (
            Arc::new(LargeStringArray::from(vec!["SEA", "LAX", "ORD", "SEA"])),
            Arc::new(LargeStringArray::from(vec!["JFK", "LAX"])),
        ),
        (
            Arc::new(StringViewArray::from(vec![
                "SEA",
                "LAX",
                "a string longer than twelve bytes",
                "SEA",
            ])),
            Arc::new(StringViewArray::from(vec!["JFK", "LAX"])),
        ),
        {
            let mut a = StringDictionaryBuilder::<Int8Type>::new();
            a.append_value("SEA");
            a.append_value("LAX");
            a.append_null();
            a.append_value("SEA");
            // The second batch's dictionary orders them differently.
            let mut b = StringDictionaryBuilder::<Int8Type>::new();
            b.append_value("JFK");
            b.append_value("LAX");
            (Arc::new(a.finish()), Arc::new(b.finish()))
        },
    ];
    for (first, second) in arrays {
        let batches = [one("origin", first.clone()), one("origin", second.clone())];
        let policy = Conversions::auto().masks(MaskPolicy::Never);
        let (mut plan, read, restored) = through_gpu(&gpu, &batches, policy);
        assert_eq!(
            plan.report()[0].conversion,
            Conversion::Categories,
            "{}",
            first.data_type()
        );
        let ids = |b: &RecordBatch| {
            let d = b
                .column(0)
                .as_any()
                .downcast_ref::<DictionaryArray<UInt32Type>>()
                .unwrap();
            d.keys().iter().collect::<Vec<_>>()
        };
        let third = (first.null_count() == 0).then_some(2);
        assert_eq!(ids(&read[0]), [Some(0), Some(1), third, Some(0)]);
        let labels = plan.categories("origin").unwrap();
        let labels = labels.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(labels.value(0), "SEA");
        assert_eq!(labels.value(1), "LAX");
        let jfk = ids(&read[1])[0].unwrap() as usize;
        assert_eq!((labels.value(jfk), ids(&read[1])[1]), ("JFK", Some(1)));
        assert_eq!(restored[0].column(0).data_type(), first.data_type());
        assert_eq!(&restored[0].column(0).to_data().len(), &first.len());
        assert_eq!(strings(restored[0].column(0)), strings(&first));
        assert_eq!(strings(restored[1].column(0)), strings(&second));
    }
}

/// A string or string-dictionary column's values as options.
fn strings(array: &ArrayRef) -> Vec<Option<String>> {
    use arrow_array::cast::AsArray;
    (0..array.len())
        .map(|i| {
            array.is_valid(i).then(|| match array.data_type() {
                DataType::Utf8 => array.as_string::<i32>().value(i).to_owned(),
                DataType::LargeUtf8 => array.as_string::<i64>().value(i).to_owned(),
                DataType::Utf8View => array.as_string_view().value(i).to_owned(),
                _ => {
                    let d = array.as_dictionary::<Int8Type>();
                    let key = d.keys().value(i) as usize;
                    d.values().as_string::<i32>().value(key).to_owned()
                }
            })
        })
        .collect()
}

#[test]
fn decimals_travel_as_fround_pairs() {
    let gpu = support::gpu();
    let decimals = Decimal128Array::from(vec![Some(12_345_i128), None, Some(-99_999)])
        .with_precision_and_scale(10, 2)
        .unwrap();
    let batch = one("price", Arc::new(decimals));
    let (plan, read, restored) = through_gpu(
        &gpu,
        std::slice::from_ref(&batch),
        Conversions::auto().masks(MaskPolicy::Never),
    );
    let report = &plan.report()[0];
    assert_eq!((report.conversion, report.rounded), (Conversion::Fround, 0));
    assert_eq!(
        report.gpu_format.map(|f| f.to_string()).as_deref(),
        Some("float32x2")
    );
    assert_eq!(read[0].column(0).data_type(), &DataType::Float64);
    assert_eq!(restored[0], batch);
}

#[test]
fn validity_masks_show_nulls_to_shaders() {
    let gpu = support::gpu();
    let batch = one(
        "delay",
        Arc::new(Int64Array::from(vec![Some(1), None, Some(3), None])),
    );
    let (plan, read, restored) =
        through_gpu(&gpu, std::slice::from_ref(&batch), Conversions::auto());
    assert_eq!(plan.report()[0].mask.as_deref(), Some("delay_valid"));
    let schema = read[0].schema();
    assert_eq!(schema.field(1).name(), "delay_valid");
    assert_eq!(arrow_cast_u32(read[0].column(1)), [1, 0, 1, 0]);
    assert!(
        schema
            .field(1)
            .metadata()
            .contains_key(CONVERSION_METADATA_KEY)
    );
    assert_eq!(restored[0], batch, "restore drops the mask");
    // A column without nulls in the first batch gets no mask under the default policy.
    let full = one("delay", Arc::new(Int64Array::from(vec![1, 2])));
    let (plan, _, _) = through_gpu(&gpu, std::slice::from_ref(&full), Conversions::auto());
    assert_eq!(plan.report()[0].mask, None);
}

#[test]
fn policy_errors_name_the_column() {
    let batch = RecordBatch::try_from_iter([
        (
            "a",
            Arc::new(Int64Array::from(vec![Some(1), None])) as ArrayRef,
        ),
        (
            "a_valid",
            Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
        ),
    ])
    .unwrap();
    let e = ConversionPlan::new(
        batch.schema(),
        Conversions::auto().column("b", Conversion::Narrow),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no column `b` to convert: found [a, a_valid]"
    );
    let e = ConversionPlan::new(
        batch.schema(),
        Conversions::auto().column("a", Conversion::Categories),
    )
    .unwrap_err();
    assert!(matches!(e, ConversionError::NotApplicable { .. }));
    assert_eq!(
        e.to_string(),
        "column `a` (Int64) cannot take conversion `categories`: expected Utf8, LargeUtf8, Utf8View or Dictionary<_, Utf8>"
    );
    let mut plan = ConversionPlan::new(batch.schema(), Conversions::auto()).unwrap();
    let e = plan.convert(&batch).unwrap_err();
    assert_eq!(
        e.to_string(),
        "column `a`: its validity mask would be named `a_valid`, which is already a column; rename one or turn masks off for it"
    );
    let mut plan =
        ConversionPlan::new(batch.schema(), Conversions::auto().masks(MaskPolicy::Never)).unwrap();
    plan.convert(&batch).unwrap();
    let other = one("a", Arc::new(StringArray::from(vec!["x"])));
    let e = plan.convert(&other).unwrap_err();
    assert_eq!(
        e.to_string(),
        "record batch 1 has fields [a: Utf8]: expected [a: Int64, a_valid: Int64], the first batch's"
    );
    let e = "fast".parse::<Conversion>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown conversion `fast`: expected auto, as-is, time-offset, time-split, narrow, float32, words, uint8, uint32, categories, value-list, fround or skip"
    );
    for name in Conversion::NAMES {
        assert_eq!(name.parse::<Conversion>().unwrap().name(), name);
    }
}

#[test]
fn restore_refuses_metadata_it_cannot_use() {
    let field = Field::new("t", DataType::Float32, false).with_metadata(
        [(
            CONVERSION_METADATA_KEY.to_owned(),
            "{\"conversion\":1}".to_owned(),
        )]
        .into_iter()
        .collect::<std::collections::HashMap<_, _>>(),
    );
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![field])),
        vec![Arc::new(arrow_array::Float32Array::from(vec![1.0]))],
    )
    .unwrap();
    let e = restore_batch(&batch).unwrap_err();
    assert!(matches!(e, ConversionError::Metadata { .. }), "{e:?}");
    assert!(
        e.to_string().starts_with("column `t`: invalid conversion metadata: `gpudata.conversion` is not a conversion record: "),
        "{e}"
    );
    // Category ids beyond the original Int8 keys.
    let labels: Vec<String> = (0..200).map(|i| format!("label {i}")).collect();
    let mut dictionary = StringDictionaryBuilder::<arrow_array::types::Int16Type>::new();
    labels.iter().for_each(|l| dictionary.append_value(l));
    let wide = one("c", Arc::new(dictionary.finish()));
    let mut plan = ConversionPlan::new(wide.schema(), Conversions::auto()).unwrap();
    let converted = plan.convert(&wide).unwrap();
    let mut narrowed: Vec<Arc<Field>> = converted.schema().fields().iter().cloned().collect();
    let record = ConversionRecord {
        arrow_type: "Dictionary(Int8, Utf8)".to_owned(),
        ..ConversionRecord::of(&narrowed[0]).unwrap().unwrap()
    };
    let mut metadata = narrowed[0].metadata().clone();
    metadata.insert(
        CONVERSION_METADATA_KEY,
        serde_json::to_string(&record).unwrap(),
    );
    narrowed[0] = Arc::new(narrowed[0].as_ref().clone().with_metadata(metadata));
    let tampered = RecordBatch::try_new(
        Arc::new(Schema::new(narrowed)),
        converted.columns().to_vec(),
    )
    .unwrap();
    let e = restore_batch(&tampered).unwrap_err();
    assert_eq!(
        e.to_string(),
        "column `c`: 200 categories do not fit Int8 keys"
    );
}

#[test]
fn the_arrow_variant_pins_its_message() {
    let e = ConversionError::Arrow {
        column: "x".to_owned(),
        data_type: DataType::Float32,
        message: "boom".to_owned(),
    };
    assert_eq!(
        e.to_string(),
        "column `x`: arrow rejected the converted Float32 array: boom"
    );
}

fn arb_column() -> impl Strategy<Value = (ArrayRef, usize, usize)> {
    let len = 0_usize..40;
    (len, any::<u64>(), 0_u8..5).prop_map(|(n, seed, kind)| {
        let mut rng = support::Rng::new(seed);
        let mut valid = || rng.below(5) != 0;
        let valid: Vec<bool> = (0..n).map(|_| valid()).collect();
        let mut rng = support::Rng::new(seed ^ 0x5eed);
        let array: ArrayRef = match kind {
            0 => {
                Arc::new(Int64Array::from_iter((0..n).map(|i| {
                    valid[i].then(|| rng.below(1 << 20) as i64 - (1 << 19))
                })))
            }
            1 => Arc::new(TimestampMicrosecondArray::from_iter((0..n).map(|i| {
                valid[i].then(|| 978_307_200_000_000 + rng.below(1 << 23) as i64 * 1_000_000)
            }))),
            2 => Arc::new(BooleanArray::from_iter(
                (0..n).map(|i| valid[i].then(|| rng.below(2) == 1)),
            )),
            3 => Arc::new(StringArray::from_iter(
                (0..n).map(|i| valid[i].then(|| format!("s{}", rng.below(7)))),
            )),
            _ => Arc::new(Date32Array::from_iter(
                (0..n).map(|i| valid[i].then(|| rng.below(20_000) as i32)),
            )),
        };
        let offset = if n == 0 { 0 } else { (seed as usize) % n };
        let length = (n - offset) / 2 + ((seed >> 8) as usize % 2).min(n - offset);
        (array, offset, length)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random columns of every exact conversion, with nulls, sliced, with an empty batch after
    /// them, come back from the GPU equal.
    #[test]
    fn random_columns_round_trip((array, offset, length) in arb_column()) {
        let gpu = support::gpu();
        let sliced = array.slice(offset, length);
        let field = Field::new("c", sliced.data_type().clone(), true);
        let schema = Arc::new(Schema::new(vec![field]));
        let batch = RecordBatch::try_new(schema.clone(), vec![sliced.clone()]).unwrap();
        let empty = RecordBatch::new_empty(schema);
        let policy = Conversions::auto().masks(MaskPolicy::Nullable);
        let (plan, read, restored) = through_gpu(&gpu, &[batch.clone(), empty.clone()], policy);
        prop_assert_eq!(&restored[0], &batch);
        prop_assert_eq!(&restored[1], &empty);
        prop_assert_eq!(plan.report()[0].rounded, 0);
        let mask = arrow_cast_u32(read[0].column(1));
        let expected: Vec<u32> = (0..sliced.len()).map(|i| u32::from(sliced.is_valid(i))).collect();
        prop_assert_eq!(mask, expected);
    }
}

/// The adapter itself takes Boolean columns asked as `uint8` / `uint32` (unpacked on the GPU,
/// read back as those integers); without a format they stay unsupported, and a segmented
/// table, whose segments are written from the host bytes, refuses them naming the column.
#[test]
fn the_adapter_unpacks_booleans_asked_as_integers_and_segmented_tables_refuse_them() {
    use gpudata::arrow::{
        ArrowColumnSource, ArrowInteropError, BatchOptions, ColumnOptions, array_from_gpu,
        array_to_gpu, record_batch_to_segmented,
    };
    use gpudata::{GpuVectorFormat, VertexFormat};
    let gpu = support::gpu();
    let bools = BooleanArray::from(vec![true, false, false, true, true]);
    let options = ColumnOptions::with_format(GpuVectorFormat::Fixed(VertexFormat::Uint32));
    let field = Field::new("b", DataType::Boolean, false);
    let source = ArrowColumnSource::new(&field, &bools, &options).unwrap();
    assert!(source.unpacks_bits());
    assert_eq!(source.bytes(), [0b11001]);
    let data = array_to_gpu(&gpu, &field, &bools, &options).unwrap();
    assert_eq!(data.byte_length(), 20);
    let back = array_from_gpu(&gpu, &data).unwrap();
    assert_eq!(arrow_cast_u32(&back), [1, 0, 0, 1, 1]);
    assert!(
        array_to_gpu(&gpu, &field, &bools, &ColumnOptions::default()).is_err(),
        "booleans have no default format"
    );
    let batch = one("b", Arc::new(bools));
    let e = record_batch_to_segmented(&gpu, &batch, &BatchOptions::new().column("b", options))
        .unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::NotSegmentable { .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "column `b` (Boolean) cannot be a segment of a segmented table: booleans are unpacked on the gpu into a buffer of their own; upload the column with record_batch_to_gpu"
    );
}

/// Strings as value lists: each GPU batch holds the rows' UTF-8 bytes (`value-list<uint8>`) and
/// a `<name>_offsets` `uint32x2` column of each row's `[start, end)` in them from 0, computed in
/// the test from the strings themselves; Utf8, LargeUtf8 and Utf8View (gathered into Utf8 on
/// the way, restored as Utf8View), nulls, empty strings, slices and an empty batch.
#[test]
fn strings_become_value_lists_of_bytes_and_offsets() {
    let gpu = support::gpu();
    let words = [
        Some("SEA"),
        None,
        Some(""),
        Some("Zürich ✈"),
        Some("LAX"),
        Some("ORD"),
    ];
    let arrays: [ArrayRef; 3] = [
        Arc::new(StringArray::from(words.to_vec())),
        Arc::new(LargeStringArray::from(words.to_vec())),
        Arc::new(StringViewArray::from(words.to_vec())),
    ];
    for array in arrays {
        let field = Field::new("s", array.data_type().clone(), true);
        let schema = Arc::new(Schema::new(vec![field]));
        let batch = |offset, length| {
            RecordBatch::try_new(schema.clone(), vec![array.slice(offset, length)]).unwrap()
        };
        let batches = [batch(1, 4), batch(0, 0), batch(3, 3)];
        let policy = Conversions::auto()
            .masks(MaskPolicy::Never)
            .column("s", Conversion::ValueList);
        let (plan, read, restored) = through_gpu(&gpu, &batches, policy);
        let report = &plan.report()[0];
        assert_eq!(report.conversion, Conversion::ValueList);
        assert_eq!(report.offsets.as_deref(), Some("s_offsets"));
        assert_eq!(
            report.gpu_format.map(|f| f.to_string()).as_deref(),
            Some("value-list<uint8>")
        );
        for (batch, back) in batches.iter().zip(&read) {
            let strings: Vec<Option<String>> = (0..batch.num_rows())
                .map(|i| {
                    let c = batch.column(0);
                    c.is_valid(i).then(|| match c.data_type() {
                        DataType::Utf8 => c.as_string::<i32>().value(i).to_owned(),
                        DataType::LargeUtf8 => c.as_string::<i64>().value(i).to_owned(),
                        _ => c.as_string_view().value(i).to_owned(),
                    })
                })
                .collect();
            let mut expected = Vec::new();
            let mut at = 0_u32;
            for s in &strings {
                let len = s.as_deref().map_or(0, str::len) as u32;
                expected.extend([at, at + len]);
                at += len;
            }
            assert_eq!(back.schema().field(1).name(), "s_offsets");
            let pairs = back.column(1).as_fixed_size_list();
            assert_eq!(arrow_cast_u32(pairs.values()), expected);
            let bytes: String = strings.iter().flatten().cloned().collect();
            let text = back.column(0);
            let gpu_bytes: &[u8] = match text.data_type() {
                DataType::LargeUtf8 => text.as_string::<i64>().value_data(),
                _ => text.as_string::<i32>().value_data(),
            };
            let first = match text.data_type() {
                DataType::LargeUtf8 => text.as_string::<i64>().value_offsets()[0] as usize,
                _ => text.as_string::<i32>().value_offsets()[0] as usize,
            };
            assert_eq!(&gpu_bytes[first..first + bytes.len()], bytes.as_bytes());
        }
        assert_eq!(restored, batches);
    }
}

#[test]
fn a_value_list_offsets_name_that_is_taken_is_an_error() {
    let batch = RecordBatch::try_from_iter([
        ("s", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
        ("s_offsets", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
    ])
    .unwrap();
    let policy = Conversions::auto().column("s", Conversion::ValueList);
    let mut plan = ConversionPlan::new(batch.schema(), policy).unwrap();
    let e = plan.convert(&batch).unwrap_err();
    assert!(
        matches!(e, ConversionError::OffsetsNameTaken { .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "column `s`: its value offsets would be named `s_offsets`, which is already a column; rename one"
    );
    let e = ConversionPlan::new(
        batch.schema(),
        Conversions::auto().column("s_offsets", Conversion::ValueList),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "column `s_offsets` (Int64) cannot take conversion `value-list`: expected Utf8, LargeUtf8 or Utf8View"
    );
}
