//! Arbitrary Arrow arrays (several types, random validity, random slices) through the Arrow
//! ingestion layer: no panic, and every accepted column reads back from its own upload bytes as
//! an array equal to the input.
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, DictionaryArray, FixedSizeListArray, Float32Array, Int16Array, Int32Array,
    ListArray, StringArray, UInt8Array,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field};
use gpudata::arrow::{ArrowColumnSource, ColumnOptions};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    width: u8,
    values: Vec<i16>,
    valid: Vec<bool>,
    lengths: Vec<u8>,
    slice_start: u8,
    slice_len: u8,
}

fn nulls(valid: &[bool], len: usize) -> Option<NullBuffer> {
    (!valid.is_empty()).then(|| NullBuffer::from_iter((0..len).map(|i| valid[i % valid.len()])))
}

fn build(input: &Input) -> Option<ArrayRef> {
    let v = &input.values;
    let n = v.len();
    let array: ArrayRef = match input.kind % 7 {
        0 => Arc::new(Float32Array::new(
            v.iter().map(|x| f32::from(*x) * 0.5).collect(),
            nulls(&input.valid, n),
        )),
        1 => Arc::new(Int16Array::new(v.iter().copied().collect(), nulls(&input.valid, n))),
        2 => Arc::new(UInt8Array::new(
            v.iter().map(|x| *x as u8).collect(),
            nulls(&input.valid, n),
        )),
        3 => {
            let width = 1 + i32::from(input.width % 4);
            let rows = n / width as usize;
            let values = Float32Array::from_iter_values(
                v[..rows * width as usize].iter().map(|x| f32::from(*x)),
            );
            let field = Arc::new(Field::new("item", DataType::Float32, true));
            Arc::new(FixedSizeListArray::try_new(field, width, Arc::new(values), nulls(&input.valid, rows)).ok()?)
        }
        4 => {
            let mut offsets = vec![0i32];
            let mut total = 0usize;
            for len in &input.lengths {
                let len = usize::from(len % 5);
                if total + len > n {
                    break;
                }
                total += len;
                offsets.push(total as i32);
            }
            let values = Int32Array::from_iter_values(v[..total].iter().map(|x| i32::from(*x)));
            let field = Arc::new(Field::new("item", DataType::Int32, true));
            Arc::new(ListArray::try_new(field, OffsetBuffer::new(offsets.into()), Arc::new(values), None).ok()?)
        }
        5 => Arc::new(StringArray::from_iter(
            v.iter().enumerate().map(|(i, x)| {
                let keep = input.valid.is_empty() || input.valid[i % input.valid.len()];
                keep.then(|| format!("{x}"))
            }),
        )),
        _ => {
            let keys = Int32Array::from_iter_values(v.iter().map(|x| i32::from(x.rem_euclid(3))));
            let values = StringArray::from(vec!["a", "bb", "ccc"]);
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).ok()?)
        }
    };
    let len = array.len();
    let start = usize::from(input.slice_start).min(len);
    let slice_len = usize::from(input.slice_len).min(len - start);
    Some(array.slice(start, slice_len))
}

fuzz_target!(|input: Input| {
    let Some(array) = build(&input) else {
        return;
    };
    let Ok(source) = ArrowColumnSource::from_array("column", array.as_ref(), &ColumnOptions::default()) else {
        return;
    };
    let back = source
        .readback()
        .to_array(source.bytes().to_vec())
        .expect("an accepted column reads back from its own bytes");
    assert_eq!(back.len(), array.len());
    assert_eq!(back.as_ref(), array.as_ref(), "round trip differs");
});
