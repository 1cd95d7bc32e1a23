//! Strided rows, each rule once: how many bytes `length` rows `byte_stride` apart span, and the
//! removal of the stride (the rows' first bytes packed one after another).

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

/// The first `row_len` bytes of each of `rows` rows spaced `stride` apart in `bytes`, packed one
/// after another. The caller has checked that `bytes` holds the rows
/// ([`strided_byte_length`]`(rows, stride, row_len)` bytes) and that `row_len <= stride`.
///
/// Every stride removal in the crate (data and view readbacks, Arrow compaction) is this.
#[must_use]
pub(crate) fn remove_stride(bytes: &[u8], rows: usize, stride: usize, row_len: usize) -> Vec<u8> {
    if row_len == 0 {
        // Rows of no bytes pack to nothing, whatever their count (and a loop over them would run
        // for ever on a huge `rows`).
        return Vec::new();
    }
    if stride == row_len {
        return bytes[..rows * row_len].to_vec();
    }
    let mut packed = Vec::with_capacity(rows * row_len);
    for row in bytes.chunks(stride).take(rows) {
        packed.extend_from_slice(&row[..row_len]);
    }
    packed
}

#[cfg(test)]
mod tests {
    use super::{remove_stride, strided_byte_length};

    #[test]
    fn stride_removal_keeps_each_rows_first_bytes() {
        let bytes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(remove_stride(&bytes, 3, 4, 2), vec![1, 2, 5, 6, 9, 10]);
        assert_eq!(remove_stride(&bytes, 2, 3, 3), vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(remove_stride(&[], usize::MAX, 0, 0), Vec::<u8>::new());
    }

    #[test]
    fn rows_span_to_the_end_of_the_last_element() {
        assert_eq!(strided_byte_length(0, 16, 4), Some(0));
        assert_eq!(strided_byte_length(1, 16, 4), Some(4));
        assert_eq!(strided_byte_length(3, 16, 4), Some(36));
        assert_eq!(strided_byte_length(u64::MAX, 2, 1), None);
        assert_eq!(strided_byte_length(2, u64::MAX, 1), None);
    }
}
