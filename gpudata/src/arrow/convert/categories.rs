//! Strings and string dictionaries to `uint32` category ids with one dictionary for a whole
//! stream (ids stay the same from batch to batch), and back.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{GenericStringBuilder, StringViewBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, DictionaryArray, PrimitiveArray, StringArray};
use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};
use arrow_schema::DataType as ArrowType;

use super::ConversionError;

/// The categories seen so far: label → id, and the labels in id order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Categories {
    /// foldhash rather than SipHash: one lookup per row of every text column, and the labels
    /// are data, not an attacker's keys to a long-lived server map.
    ids: HashMap<Box<str>, u32, foldhash::fast::RandomState>,
    labels: Vec<String>,
    /// The labels as an Arrow array, rebuilt only when a batch adds some.
    snapshot: Option<ArrayRef>,
    /// The id of null rows: 0 for the stream's
    /// dictionaries; `u32::MAX` for a worker's, whose ids are rewritten to the stream's on the
    /// GPU by a gather that turns an id outside the map into 0 ([`Categories::worker`]).
    null_id: u32,
}

/// The string at row `i` of a Utf8 / LargeUtf8 / Utf8View array.
fn text_at(array: &dyn Array, i: usize) -> &str {
    match array.data_type() {
        ArrowType::Utf8 => array.as_string::<i32>().value(i),
        ArrowType::LargeUtf8 => array.as_string::<i64>().value(i),
        _ => array.as_string_view().value(i),
    }
}

impl Categories {
    /// A worker's dictionaries: null rows get `u32::MAX`, which no label has, so that the
    /// rewrite of its ids to the stream's stores 0 for them, as a one-thread conversion does.
    pub(crate) fn worker() -> Categories {
        Categories {
            null_id: u32::MAX,
            ..Categories::default()
        }
    }

    fn id(&mut self, column: &str, label: &str) -> Result<u32, ConversionError> {
        if let Some(id) = self.ids.get(label) {
            return Ok(*id);
        }
        let id =
            u32::try_from(self.labels.len()).map_err(|_| ConversionError::TooManyCategories {
                column: column.to_owned(),
                categories: self.labels.len() as u64 + 1,
                key_type: ArrowType::UInt32,
            })?;
        self.ids.insert(label.into(), id);
        self.labels.push(label.to_owned());
        self.snapshot = None;
        Ok(id)
    }

    /// The ids of `labels` (nulls the null id) pushed onto `ids`.
    fn ids_of<'a>(
        &mut self,
        column: &str,
        labels: impl Iterator<Item = Option<&'a str>>,
        ids: &mut Vec<u32>,
    ) -> Result<(), ConversionError> {
        for label in labels {
            ids.push(match label {
                Some(label) => self.id(column, label)?,
                None => self.null_id,
            });
        }
        Ok(())
    }

    /// The labels in id order.
    pub(crate) fn labels(&mut self) -> ArrayRef {
        self.snapshot
            .get_or_insert_with(|| Arc::new(StringArray::from_iter_values(&self.labels)))
            .clone()
    }

    /// `array` (strings or a string dictionary) as `Dictionary<UInt32, Utf8>` whose keys are the
    /// stream's category ids and whose values are every label so far.
    pub(crate) fn convert(
        &mut self,
        column: &str,
        array: &dyn Array,
    ) -> Result<ArrayRef, ConversionError> {
        let nulls = array.logical_nulls();
        let mut ids = Vec::with_capacity(array.len());
        if let ArrowType::Dictionary(key, _) = array.data_type() {
            // Each dictionary value gets its id when a row first uses it, so ids follow the
            // rows' first occurrences as they do for strings (and values no row uses get
            // none): a column's ids are the same whether it came as strings or a dictionary.
            // One lookup per distinct value, not per row.
            match key.as_ref() {
                // Parquet's readers deliver Int32 keys: no widened copy of them.
                ArrowType::Int32 => {
                    let dictionary = array.as_dictionary::<Int32Type>();
                    let keys = dictionary.keys().values();
                    self.remapped(
                        column,
                        dictionary.values(),
                        keys,
                        |k| k.as_usize(),
                        &nulls,
                        &mut ids,
                    )
                }
                _ => {
                    let dictionary = array.as_any_dictionary();
                    let keys = dictionary.normalized_keys();
                    self.remapped(column, dictionary.values(), &keys, |k| k, &nulls, &mut ids)
                }
            }?;
        } else {
            match array.data_type() {
                ArrowType::Utf8 => self.ids_of(column, array.as_string::<i32>().iter(), &mut ids),
                ArrowType::LargeUtf8 => {
                    self.ids_of(column, array.as_string::<i64>().iter(), &mut ids)
                }
                _ => self.ids_of(column, array.as_string_view().iter(), &mut ids),
            }?;
        }
        let keys = PrimitiveArray::<UInt32Type>::new(ScalarBuffer::from(ids), nulls);
        let labels = self.labels();
        // SAFETY: every id of a valid row came from `id`, which hands out ids below the number
        // of labels and never removes one, and `labels` holds every label so far: each valid
        // row's key indexes `labels`. (Null rows' keys, the null id, need not: Arrow's rule.)
        let dictionary = unsafe { DictionaryArray::new_unchecked(keys, labels) };
        Ok(Arc::new(dictionary))
    }

    /// The ids of rows whose labels are `values[slot(keys[i])]` pushed onto `ids` (null rows
    /// the null id, slots outside `values` 0): each value looked up once, when a valid row
    /// first uses it.
    fn remapped<T: Copy>(
        &mut self,
        column: &str,
        values: &ArrayRef,
        keys: &[T],
        slot: impl Fn(T) -> usize,
        nulls: &Option<NullBuffer>,
        ids: &mut Vec<u32>,
    ) -> Result<(), ConversionError> {
        const UNSEEN: u32 = u32::MAX;
        let mut remap = vec![UNSEEN; values.len()];
        let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        // Ids in the order valid rows first use each value: one pass that only looks for
        // values not seen yet (a compare per row), then one that maps every row.
        for (i, &key) in keys.iter().enumerate() {
            let at = slot(key);
            if remap.get(at) == Some(&UNSEEN) && valid(i) {
                remap[at] = self.id(column, text_at(values.as_ref(), at))?;
            }
        }
        // Null rows the null id, slots outside `values` 0 (every value a valid row uses has
        // its id by now).
        let null_id = self.null_id;
        ids.extend(keys.iter().enumerate().map(|(i, &key)| match valid(i) {
            true => remap.get(slot(key)).copied().unwrap_or(0),
            false => null_id,
        }));
        Ok(())
    }
}

impl Categories {
    /// Extends `map`, a worker's local → stream id map for this column, to `labels` (the
    /// worker's labels in its id order, as a batch it converted held them): its labels new
    /// since the worker's last batch get stream ids here, in the worker's order (the order they
    /// first occur in the batch), so a stream whose batches are extended in file order gets the
    /// ids a one-thread conversion gives.
    pub(crate) fn extend_map(
        &mut self,
        column: &str,
        labels: &StringArray,
        map: &mut Vec<u32>,
    ) -> Result<(), ConversionError> {
        for i in map.len()..labels.len() {
            map.push(self.id(column, labels.value(i))?);
        }
        Ok(())
    }
}

/// A category column as its ids (a `uint32` dictionary) and its labels;
/// [`ConversionError::Metadata`] with `not_ids` or `not_utf8` when it is not such a column.
fn ids_and_labels<'a>(
    column: &str,
    array: &'a dyn Array,
    not_ids: &str,
    not_utf8: &str,
) -> Result<(&'a DictionaryArray<UInt32Type>, &'a StringArray), ConversionError> {
    let metadata = |reason: &str| ConversionError::Metadata {
        column: column.to_owned(),
        reason: reason.to_owned(),
    };
    let dictionary = array
        .as_dictionary_opt::<UInt32Type>()
        .ok_or_else(|| metadata(not_ids))?;
    let labels = dictionary
        .values()
        .as_string_opt::<i32>()
        .ok_or_else(|| metadata(not_utf8))?;
    Ok((dictionary, labels))
}

/// A worker's category column: its ids as a `uint32` dictionary and its labels.
pub(crate) fn local_labels<'a>(
    column: &str,
    local: &'a dyn Array,
) -> Result<(&'a DictionaryArray<UInt32Type>, &'a StringArray), ConversionError> {
    ids_and_labels(
        column,
        local,
        "a worker's category ids are not a uint32 dictionary",
        "a worker's category labels are not utf8",
    )
}

fn rekey<K: ArrowDictionaryKeyType>(
    column: &str,
    ids: &PrimitiveArray<UInt32Type>,
    values: ArrayRef,
    key_type: &ArrowType,
) -> Result<ArrayRef, ConversionError> {
    let categories = values.len() as u64;
    let too_many = || ConversionError::TooManyCategories {
        column: column.to_owned(),
        categories,
        key_type: key_type.clone(),
    };
    let mut keys = Vec::with_capacity(ids.len());
    for id in ids.values() {
        keys.push(K::Native::from_usize(*id as usize).ok_or_else(too_many)?);
    }
    let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), ids.nulls().cloned());
    DictionaryArray::<K>::try_new(keys, values)
        .map(|d| Arc::new(d) as ArrayRef)
        .map_err(|_| too_many())
}

/// Category ids (`Dictionary<UInt32, Utf8>` as read back) → the original string or dictionary
/// type.
pub(crate) fn restore(
    column: &str,
    original: &ArrowType,
    array: &dyn Array,
) -> Result<ArrayRef, ConversionError> {
    let metadata = |reason: &str| ConversionError::Metadata {
        column: column.to_owned(),
        reason: reason.to_owned(),
    };
    let ArrowType::Dictionary(_, _) = array.data_type() else {
        return Err(metadata("category ids read back as a non-dictionary array"));
    };
    let (dictionary, labels) = ids_and_labels(
        column,
        array,
        "category ids read back with keys other than UInt32",
        "category labels read back as something other than Utf8",
    )?;
    let ids = dictionary.keys();
    let label = |i: usize| ids.is_valid(i).then(|| labels.value(ids.value(i) as usize));
    Ok(match original {
        ArrowType::Utf8 => {
            let mut b = GenericStringBuilder::<i32>::new();
            (0..ids.len()).for_each(|i| b.append_option(label(i)));
            Arc::new(b.finish())
        }
        ArrowType::LargeUtf8 => {
            let mut b = GenericStringBuilder::<i64>::new();
            (0..ids.len()).for_each(|i| b.append_option(label(i)));
            Arc::new(b.finish())
        }
        ArrowType::Utf8View => {
            let mut b = StringViewBuilder::new();
            (0..ids.len()).for_each(|i| b.append_option(label(i)));
            Arc::new(b.finish())
        }
        ArrowType::Dictionary(key, value) => {
            let values: ArrayRef = match value.as_ref() {
                ArrowType::Utf8 => Arc::new(labels.clone()),
                other => restore(
                    column,
                    other,
                    &DictionaryArray::<UInt32Type>::new(
                        PrimitiveArray::from_iter_values(0..labels.len() as u32),
                        Arc::new(labels.clone()),
                    ),
                )?,
            };
            match key.as_ref() {
                ArrowType::Int8 => rekey::<Int8Type>(column, ids, values, key)?,
                ArrowType::Int16 => rekey::<Int16Type>(column, ids, values, key)?,
                ArrowType::Int32 => rekey::<Int32Type>(column, ids, values, key)?,
                ArrowType::Int64 => rekey::<Int64Type>(column, ids, values, key)?,
                ArrowType::UInt8 => rekey::<UInt8Type>(column, ids, values, key)?,
                ArrowType::UInt16 => rekey::<UInt16Type>(column, ids, values, key)?,
                ArrowType::UInt32 => rekey::<UInt32Type>(column, ids, values, key)?,
                ArrowType::UInt64 => rekey::<UInt64Type>(column, ids, values, key)?,
                _ => {
                    return Err(metadata(
                        "the original dictionary key type is not an integer",
                    ));
                }
            }
        }
        _ => {
            return Err(metadata(
                "the original type of category ids is not a string type",
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Categories;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int16Type, Int32Type, UInt32Type};
    use arrow_array::{Array, DictionaryArray, Int16Array, Int32Array, StringArray};
    use std::sync::Arc;

    /// The keys and labels of a converted column.
    fn ids(converted: &dyn Array) -> (Vec<Option<u32>>, Vec<String>) {
        let d = converted.as_dictionary::<UInt32Type>();
        let keys = d.keys().iter().collect();
        let labels = d.values().as_string::<i32>();
        (
            keys,
            labels.iter().map(|l| l.unwrap_or("").to_owned()).collect(),
        )
    }

    /// Dictionaries of Int32 keys (Parquet's) and of another key type get ids in the rows'
    /// first-occurrence order, shared with plain strings of the same stream; a null row reads
    /// 0 even where its key points at a label a valid row uses, and a label only a null row
    /// points at gets no id.
    #[test]
    fn dictionary_rows_take_first_occurrence_ids_and_null_rows_zero() {
        let mut categories = Categories::default();
        let values = Arc::new(StringArray::from(vec!["x", "y", "z", "w"]));
        let keys = Int32Array::from(vec![Some(2), None, Some(0), Some(2), Some(0)]);
        let mut keys_data = keys.into_data().into_builder();
        // A null row whose key slot holds 3 ("w"), a label no valid row uses.
        keys_data = keys_data.buffers(vec![arrow_buffer::Buffer::from_slice_ref([
            2i32, 3, 0, 2, 0,
        ])]);
        let keys = Int32Array::from(keys_data.build().unwrap());
        let first = DictionaryArray::<Int32Type>::try_new(keys, values.clone()).unwrap();
        let converted = categories.convert("c", &first).unwrap();
        assert_eq!(
            ids(converted.as_ref()),
            (
                vec![Some(0), None, Some(1), Some(0), Some(1)],
                vec!["z".to_owned(), "x".to_owned()]
            )
        );
        assert_eq!(
            converted.as_dictionary::<UInt32Type>().keys().values()[1],
            0
        );

        let keys = Int16Array::from(vec![Some(1), Some(3), None, Some(2)]);
        let second = DictionaryArray::<Int16Type>::try_new(keys, values).unwrap();
        let converted = categories.convert("c", &second).unwrap();
        assert_eq!(
            ids(converted.as_ref()),
            (
                vec![Some(2), Some(3), None, Some(0)],
                ["z", "x", "y", "w"].map(str::to_owned).to_vec()
            )
        );

        let plain = StringArray::from(vec![Some("w"), Some("v"), None]);
        let converted = categories.convert("c", &plain).unwrap();
        assert_eq!(ids(converted.as_ref()).0, vec![Some(3), Some(4), None]);
    }
}
