//! [`Count`]: a number with its noun, singular for one (`1 row`) and plural otherwise (`0 rows`,
//! `2 batches`), for error messages that count things.

use std::fmt;

/// A count and the singular noun of what it counts, displayed as `{count} {noun}` with the noun
/// made plural unless the count is 1: `1 byte`, `0 bytes`, `4 bytes`, `1 batch`, `2 batches`.
///
/// The plural adds `es` to nouns ending in `s`, `x`, `ch` or `sh` and `s` to every other noun,
/// which covers the nouns error messages count (row, byte, value, component, batch, ...); pass
/// only nouns that follow that rule.
///
/// Error variants use it through thiserror's named format arguments, so that the template names
/// what the placeholder prints:
///
/// ```text
/// #[error("source holds {found_bytes}", found_bytes = Count(*.found, "byte"))]
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count<N>(pub(crate) N, pub(crate) &'static str);

impl<N: fmt::Display + PartialEq + From<u8>> fmt::Display for Count<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self(count, noun) = self;
        write!(f, "{count} {noun}")?;
        if *count == N::from(1) {
            Ok(())
        } else if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
            f.write_str("es")
        } else {
            f.write_str("s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(Count(1_u64, "row").to_string(), "1 row");
        assert_eq!(Count(0_u64, "row").to_string(), "0 rows");
        assert_eq!(Count(2_u64, "row").to_string(), "2 rows");
        assert_eq!(Count(1_usize, "byte").to_string(), "1 byte");
        assert_eq!(Count(4_u32, "byte").to_string(), "4 bytes");
        assert_eq!(
            Count(u64::MAX, "value").to_string(),
            format!("{} values", u64::MAX)
        );
        assert_eq!(Count(11_u64, "component").to_string(), "11 components");
    }

    #[test]
    fn nouns_ending_in_a_sibilant_take_es() {
        assert_eq!(Count(1_usize, "batch").to_string(), "1 batch");
        assert_eq!(Count(0_usize, "batch").to_string(), "0 batches");
        assert_eq!(Count(3_usize, "batch").to_string(), "3 batches");
        assert_eq!(Count(2_u64, "box").to_string(), "2 boxes");
        assert_eq!(Count(2_u64, "bus").to_string(), "2 buses");
        assert_eq!(Count(2_u64, "mesh").to_string(), "2 meshes");
    }

    #[test]
    fn it_reads_inside_a_thiserror_template() {
        #[derive(Debug, thiserror::Error)]
        #[error("holds {found_bytes} of {rows}", found_bytes = Count(*.found, "byte"), rows = Count(*.rows, "row"))]
        struct Example {
            found: u64,
            rows: usize,
        }
        let one = Example { found: 1, rows: 1 };
        assert_eq!(one.to_string(), "holds 1 byte of 1 row");
        let many = Example { found: 8, rows: 2 };
        assert_eq!(many.to_string(), "holds 8 bytes of 2 rows");
    }
}
