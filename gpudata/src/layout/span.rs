//! The one strided byte-length formula: how many bytes `length` rows `byte_stride` apart span.

/// Bytes from the first of `length` rows `byte_stride` apart to the end of the last row's
/// `element` bytes: `(length - 1) * byte_stride + element`, 0 for no rows; `None` on overflow.
///
/// Every strided range in the crate (views, data, readback decoding, operation inputs, Arrow
/// compaction) is measured with this.
#[must_use]
pub(crate) const fn strided_byte_length(
    length: u64,
    byte_stride: u64,
    element: u64,
) -> Option<u64> {
    if length == 0 {
        return Some(0);
    }
    match (length - 1).checked_mul(byte_stride) {
        Some(v) => v.checked_add(element),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::strided_byte_length;

    #[test]
    fn rows_span_to_the_end_of_the_last_element() {
        assert_eq!(strided_byte_length(0, 16, 4), Some(0));
        assert_eq!(strided_byte_length(1, 16, 4), Some(4));
        assert_eq!(strided_byte_length(3, 16, 4), Some(36));
        assert_eq!(strided_byte_length(u64::MAX, 2, 1), None);
        assert_eq!(strided_byte_length(2, u64::MAX, 1), None);
    }
}
