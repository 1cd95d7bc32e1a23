//! The bytes of [`GpuField`] values: what `bytemuck` does for `Pod` types, for the field types
//! that cannot be `Pod` (mint's vectors), relying on [`GpuField`]'s plain-data contract.

use crate::record::GpuField;

/// The bytes of one field value: its GPU bytes.
///
/// ```
/// let bytes = gpudata::record::field_bytes(&gpudata::Unorm8x4([1, 2, 3, 4]));
/// assert_eq!(bytes, &[1, 2, 3, 4]);
/// ```
#[must_use]
pub fn field_bytes<V: GpuField>(value: &V) -> &[u8] {
    fields_as_bytes(core::slice::from_ref(value))
}

/// The bytes of a slice of field values, borrowed: the values packed at their format's stride.
///
/// ```
/// let bytes = gpudata::record::fields_as_bytes(&[[1u16, 2], [3, 4]]);
/// assert_eq!(bytes, &[1, 0, 2, 0, 3, 0, 4, 0]);
/// ```
#[must_use]
pub fn fields_as_bytes<V: GpuField>(values: &[V]) -> &[u8] {
    // SAFETY: `GpuField`'s contract makes every byte of a `V` initialized (plain data with no
    // padding). The pointer and length come from a live slice, `u8` has alignment 1, and the
    // returned slice borrows `values`, so it cannot outlive or alias a write to them.
    unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
}

/// Reads one field value from `size_of::<V>()` bytes at any alignment; `None` when `bytes` is
/// another length.
///
/// ```
/// let value: Option<[u16; 2]> = gpudata::record::read_field(&[1, 0, 2, 0]);
/// assert_eq!(value, Some([1, 2]));
/// assert_eq!(gpudata::record::read_field::<u32>(&[1, 2]), None);
/// ```
#[must_use]
pub fn read_field<V: GpuField>(bytes: &[u8]) -> Option<V> {
    if bytes.len() != size_of::<V>() {
        return None;
    }
    // SAFETY: `bytes` holds exactly `size_of::<V>()` readable bytes (checked above), read without
    // an alignment requirement; `GpuField`'s contract makes every bit pattern a valid `V`.
    Some(unsafe { bytes.as_ptr().cast::<V>().read_unaligned() })
}

/// Reads packed field values, one per `size_of::<V>()` bytes; trailing bytes that do not make a
/// whole value are ignored.
pub(crate) fn read_fields<V: GpuField>(bytes: &[u8]) -> Vec<V> {
    let size = size_of::<V>();
    if size == 0 {
        return Vec::new();
    }
    bytes
        .chunks_exact(size)
        .filter_map(read_field::<V>)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Unorm10_10_10_2;

    #[test]
    fn values_round_trip_through_their_bytes() {
        let values = [[1.5f32, -2.0, 3.25], [0.0, 1.0, f32::MAX]];
        let bytes = fields_as_bytes(&values);
        assert_eq!(bytes.len(), 24);
        assert_eq!(&bytes[..4], &1.5f32.to_le_bytes());
        assert_eq!(read_fields::<[f32; 3]>(bytes), values);
        let packed = Unorm10_10_10_2::from_bits([1023, 0, 512, 3]);
        assert_eq!(read_field(field_bytes(&packed)), Some(packed));
    }

    #[test]
    fn reads_need_the_exact_length_and_no_alignment() {
        let bytes = [0u8, 1, 0, 0, 0, 2, 0, 0, 0];
        assert_eq!(read_field::<u32>(&bytes[1..5]), Some(1));
        assert_eq!(read_field::<u32>(&bytes[1..]), None);
        assert_eq!(read_fields::<u32>(&bytes[1..]), vec![1, 2]);
        assert_eq!(read_fields::<u32>(&bytes[1..8]), vec![1]);
    }
}
