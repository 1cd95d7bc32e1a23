//! The rule for names in WGSL text: what can name a struct or a member, and which names a
//! struct would shadow.

use core::fmt;

use crate::type_syntax::alias_syntax;
use crate::words::{PREDECLARED, RESERVED};

/// Why a name cannot be a WGSL struct or member name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WgslNameProblem {
    /// The name is empty.
    Empty,
    /// The name starts with a digit.
    LeadingDigit,
    /// A character other than an ASCII letter, digit or `_`, at this byte offset.
    Character {
        /// The character.
        found: char,
        /// Its byte offset in the name.
        at: usize,
    },
    /// The name is `_` alone (WGSL's phony assignment).
    Underscore,
    /// The name starts with `__` (WGSL reserves such names).
    DoubleUnderscore,
    /// The name is a WGSL keyword or reserved word (`loop`, `struct`, `meta`, `filter`).
    Reserved,
}

impl fmt::Display for WgslNameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WgslNameProblem::Empty => f.write_str("an empty name"),
            WgslNameProblem::LeadingDigit => f.write_str("a digit first"),
            WgslNameProblem::Character { found, at } => write!(f, "{found:?} at byte {at}"),
            WgslNameProblem::Underscore => f.write_str("`_` alone, which WGSL reserves"),
            WgslNameProblem::DoubleUnderscore => f.write_str("a leading `__`, which WGSL reserves"),
            WgslNameProblem::Reserved => f.write_str("a WGSL keyword or reserved word"),
        }
    }
}

/// What keeps `name` from naming a WGSL struct or member, or `None` when it can: ASCII
/// letters, digits and `_`, not starting with a digit, not `_` alone, not starting with `__`,
/// not a keyword or reserved word (WGSL §15.1, §15.2). A struct name must also not be
/// [predeclared](is_predeclared); a member name may be (`length` is a fine member).
#[must_use]
pub fn wgsl_identifier_problem(name: &str) -> Option<WgslNameProblem> {
    let Some(first) = name.bytes().next() else {
        return Some(WgslNameProblem::Empty);
    };
    if first.is_ascii_digit() {
        return Some(WgslNameProblem::LeadingDigit);
    }
    if let Some((at, found)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
    {
        return Some(WgslNameProblem::Character { found, at });
    }
    if name == "_" {
        Some(WgslNameProblem::Underscore)
    } else if name.starts_with("__") {
        Some(WgslNameProblem::DoubleUnderscore)
    } else if RESERVED.contains(&name) {
        Some(WgslNameProblem::Reserved)
    } else {
        None
    }
}

/// Whether `name` is one of WGSL's predeclared names, which a struct declared at module scope
/// would shadow in the whole module: a type or type generator (`f32`, `array`, `vec3`,
/// `atomic`, `sampler`), a vector or matrix alias (`vec3f`, `vec2h`, `vec4i`, `vec3u`,
/// `mat4x4f`, `mat2x3h`), an address space or access mode (`storage`, `read`), or a built-in
/// function (`dot`, `unpack4x8unorm`). WGSL allows the shadowing, but then `struct f32` takes
/// `f32`'s meaning from the module (naga refuses some such texts and silently takes others), so
/// gpudata refuses them all as struct names.
#[must_use]
pub fn is_predeclared(name: &str) -> bool {
    PREDECLARED.contains(&name) || alias_syntax(name).is_some()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;

    use super::{WgslNameProblem, is_predeclared, wgsl_identifier_problem};

    #[test]
    fn identifiers_pass() {
        for name in [
            "a", "_a", "a_", "a__b", "position", "A1", "meta_", "length", "f32", "vec3f", "x9",
        ] {
            assert_eq!(wgsl_identifier_problem(name), None, "{name}");
        }
    }

    #[test]
    fn everything_else_is_refused_saying_why() {
        use WgslNameProblem::{
            Character, DoubleUnderscore, Empty, LeadingDigit, Reserved, Underscore,
        };
        let cases = [
            ("", Empty),
            ("1a", LeadingDigit),
            ("9", LeadingDigit),
            ("a b", Character { found: ' ', at: 1 }),
            ("a-position", Character { found: '-', at: 1 }),
            ("light.color", Character { found: '.', at: 5 }),
            ("bones[2]", Character { found: '[', at: 5 }),
            ("größe", Character { found: 'ö', at: 2 }),
            ("é", Character { found: 'é', at: 0 }),
            ("_", Underscore),
            ("__x", DoubleUnderscore),
            ("__", DoubleUnderscore),
            ("loop", Reserved),
            ("struct", Reserved),
            ("meta", Reserved),
            ("filter", Reserved),
            ("Self", Reserved),
            ("NULL", Reserved),
            ("yield", Reserved),
        ];
        for (name, problem) in cases {
            assert_eq!(wgsl_identifier_problem(name), Some(problem), "{name:?}");
        }
    }

    #[test]
    fn every_listed_word_is_an_identifier_shape_and_refused() {
        for word in crate::words::RESERVED {
            assert_eq!(
                wgsl_identifier_problem(word),
                Some(WgslNameProblem::Reserved),
                "{word}"
            );
        }
        // The predeclared names are identifiers (members may use them), never reserved words.
        for word in crate::words::PREDECLARED {
            assert_eq!(wgsl_identifier_problem(word), None, "{word}");
            assert!(is_predeclared(word), "{word}");
        }
    }

    #[test]
    fn predeclared_names_and_aliases() {
        for name in [
            "f32",
            "array",
            "vec3",
            "atomic",
            "sampler",
            "storage",
            "read",
            "dot",
            "vec3f",
            "vec2h",
            "vec4i",
            "vec3u",
            "mat4x4f",
            "mat2x3h",
            "unpack4x8unorm",
        ] {
            assert!(is_predeclared(name), "{name}");
        }
        for name in [
            "Row", "vec5f", "vec3x", "mat4x4i", "mat4x4u", "mat5x4f", "vecf", "mat4f", "Vec3f",
            "length_",
        ] {
            assert!(!is_predeclared(name), "{name}");
        }
    }

    #[test]
    fn problems_read_as_the_messages_say() {
        let said = [
            (WgslNameProblem::Empty, "an empty name"),
            (WgslNameProblem::LeadingDigit, "a digit first"),
            (
                WgslNameProblem::Character { found: '.', at: 5 },
                "'.' at byte 5",
            ),
            (
                WgslNameProblem::Underscore,
                "`_` alone, which WGSL reserves",
            ),
            (
                WgslNameProblem::DoubleUnderscore,
                "a leading `__`, which WGSL reserves",
            ),
            (WgslNameProblem::Reserved, "a WGSL keyword or reserved word"),
        ];
        for (problem, text) in said {
            assert_eq!(problem.to_string(), text);
        }
    }
}
