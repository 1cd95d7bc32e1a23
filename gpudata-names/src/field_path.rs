//! The rule for the names of a struct format's fields: luma.gl's field paths.
//!
//! A field name is what `get_child`, vertex attributes, tables and the CLI's `NAME:FORMAT`
//! arguments use. luma.gl names flattened fields by their path (`position`, `material.color`,
//! `lights[1].color`), so a name is one or more *segments* joined by `.`, each segment an
//! identifier (ASCII letters, digits and `_`, not starting with a digit: WGSL's identifier
//! shape) followed by any number of `[N]` indices. Empty names, whitespace, control characters
//! and other punctuation are refused: such a name could not be told apart from its neighbours
//! in a `NAME:FORMAT` list, a path, or a shader. Keywords are fine here (`meta` is a field
//! path); WGSL's stricter rule ([`wgsl_identifier_problem`](crate::wgsl_identifier_problem))
//! applies wherever a name becomes WGSL text.

use core::fmt;

/// Why a field name is not a field path: what was found, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldNameProblem {
    /// The name is empty.
    Empty,
    /// A character that cannot be in a field name (whitespace, a control character,
    /// punctuation other than `.`, `[`, `]`, `_`), at this byte offset.
    Character {
        /// The character.
        found: char,
        /// Its byte offset in the name.
        at: usize,
    },
    /// A segment between two `.`s (or at an end) is empty or starts with a digit or `[`, at
    /// this byte offset.
    Segment {
        /// The segment's byte offset in the name.
        at: usize,
    },
    /// An index is not `[` decimal digits `]`, at this byte offset.
    Index {
        /// The index's byte offset in the name.
        at: usize,
    },
}

impl fmt::Display for FieldNameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldNameProblem::Empty => f.write_str("an empty name"),
            FieldNameProblem::Character { found, at } => {
                write!(f, "{found:?} at byte {at}")
            }
            FieldNameProblem::Segment { at } => {
                write!(
                    f,
                    "a segment at byte {at} that does not start with a letter or `_`"
                )
            }
            FieldNameProblem::Index { at } => {
                write!(f, "an index at byte {at} that is not `[` digits `]`")
            }
        }
    }
}

/// What keeps `name` from being a field path (see the module docs), or `None` when it is one.
#[must_use]
pub fn field_path_problem(name: &str) -> Option<FieldNameProblem> {
    if name.is_empty() {
        return Some(FieldNameProblem::Empty);
    }
    if let Some((at, found)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')))
    {
        return Some(FieldNameProblem::Character { found, at });
    }
    let bytes = name.as_bytes();
    let mut at = 0;
    loop {
        // A segment: an identifier, then `[digits]` indices.
        let starts_well = bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
        if !starts_well {
            return Some(FieldNameProblem::Segment { at });
        }
        while bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            at += 1;
        }
        while bytes.get(at) == Some(&b'[') {
            let start = at;
            at += 1;
            let digits = bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            at += digits;
            if digits == 0 || bytes.get(at) != Some(&b']') {
                return Some(FieldNameProblem::Index { at: start });
            }
            at += 1;
        }
        match bytes.get(at) {
            None => return None,
            Some(b'.') => at += 1,
            Some(_) => return Some(FieldNameProblem::Segment { at }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FieldNameProblem, field_path_problem};

    #[test]
    fn luma_paths_pass() {
        for name in [
            "position",
            "_a",
            "a1",
            "meta",
            "material.color",
            "lights[1].color",
            "bones[2]",
            "m[0][3]",
            "instance_matrix[3]",
        ] {
            assert_eq!(field_path_problem(name), None, "{name}");
        }
    }

    #[test]
    fn everything_else_is_refused_with_its_place() {
        use FieldNameProblem::{Character, Empty, Index, Segment};
        let cases = [
            ("", Empty),
            (" a", Character { found: ' ', at: 0 }),
            ("a b", Character { found: ' ', at: 1 }),
            ("a\tb", Character { found: '\t', at: 1 }),
            (
                "a\u{0}",
                Character {
                    found: '\u{0}',
                    at: 1,
                },
            ),
            ("a:b", Character { found: ':', at: 1 }),
            ("a-b", Character { found: '-', at: 1 }),
            ("größe", Character { found: 'ö', at: 2 }),
            ("1a", Segment { at: 0 }),
            (".a", Segment { at: 0 }),
            ("a.", Segment { at: 2 }),
            ("a..b", Segment { at: 2 }),
            ("a.1", Segment { at: 2 }),
            ("[1]", Segment { at: 0 }),
            ("a]", Segment { at: 1 }),
            ("a[]", Index { at: 1 }),
            ("a[x]", Index { at: 1 }),
            ("a[1", Index { at: 1 }),
            ("a[1]b", Segment { at: 4 }),
        ];
        for (name, problem) in cases {
            assert_eq!(field_path_problem(name), Some(problem), "{name:?}");
        }
    }

    #[test]
    fn problems_read_as_the_messages_say() {
        extern crate std;
        use std::string::ToString;
        let said = [
            (FieldNameProblem::Empty, "an empty name"),
            (
                FieldNameProblem::Character { found: ' ', at: 1 },
                "' ' at byte 1",
            ),
            (
                FieldNameProblem::Segment { at: 6 },
                "a segment at byte 6 that does not start with a letter or `_`",
            ),
            (
                FieldNameProblem::Index { at: 5 },
                "an index at byte 5 that is not `[` digits `]`",
            ),
        ];
        for (problem, text) in said {
            assert_eq!(problem.to_string(), text);
        }
    }
}
