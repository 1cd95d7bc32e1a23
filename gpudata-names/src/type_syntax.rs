//! The grammar of the WGSL types gpudata reads from text: a scalar (`f32`, `f16`, `i32`,
//! `u32`), `vecN<T>`, `matCxR<T>`, `atomic<T>`, a predeclared alias (`vec3f`, `mat4x4h`), and
//! `array<E, N>` or the runtime-sized `array<E>` of any of them, spaces allowed.
//!
//! [`type_syntax`] reads one level at a time and allocates nothing: an array's inside stays text
//! until [`ArraySyntax::parts`] scans it, so a reader bounding the nesting checks each level
//! before its text is scanned, and builds its own tree, in its own order (gpudata reads an
//! array's element before its count). Validity (`mat4x4<i32>`) is the
//! layout's to check; what is not spelled as above is no type.

/// A scalar type of WGSL that gpudata lays out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarSyntax {
    /// `f32`.
    F32,
    /// `f16`.
    F16,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
}

impl ScalarSyntax {
    /// The scalar named `name` exactly.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ScalarSyntax> {
        match name {
            "f32" => Some(ScalarSyntax::F32),
            "f16" => Some(ScalarSyntax::F16),
            "i32" => Some(ScalarSyntax::I32),
            "u32" => Some(ScalarSyntax::U32),
            _ => None,
        }
    }

    /// Whether it is a float (`f32` or `f16`), the scalars of matrices.
    #[must_use]
    pub const fn is_float(self) -> bool {
        matches!(self, ScalarSyntax::F32 | ScalarSyntax::F16)
    }
}

/// A WGSL type without arrays or structs, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeafSyntax {
    /// `f32`.
    Scalar(ScalarSyntax),
    /// `vec3<f32>`, `vec3f`.
    Vector {
        /// 2, 3 or 4.
        components: u8,
        /// The component type.
        scalar: ScalarSyntax,
    },
    /// `mat4x3<f32>`, `mat4x3f`.
    Matrix {
        /// 2, 3 or 4.
        columns: u8,
        /// 2, 3 or 4.
        rows: u8,
        /// The component type.
        scalar: ScalarSyntax,
    },
    /// `atomic<u32>`.
    Atomic(ScalarSyntax),
}

/// One level of a WGSL type read from text: a leaf, or an array whose inside is still text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSyntax<'t> {
    /// A scalar, vector, matrix or atomic.
    Leaf(LeafSyntax),
    /// `array<...>`.
    Array(ArraySyntax<'t>),
}

/// `array<...>`, its inside not yet scanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArraySyntax<'t> {
    inside: &'t str,
}

impl<'t> ArraySyntax<'t> {
    /// The element's text and the count.
    #[must_use]
    pub fn parts(self) -> (&'t str, CountSyntax) {
        let Some(comma) = last_top_level_comma(self.inside) else {
            return (self.inside, CountSyntax::RuntimeSized);
        };
        let count = self.inside[comma + 1..].trim();
        let count = count.strip_suffix(['u', 'i']).unwrap_or(count);
        let count = count
            .parse()
            .map_or(CountSyntax::Invalid, CountSyntax::Fixed);
        (&self.inside[..comma], count)
    }
}

/// The count of an [`ArraySyntax`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountSyntax {
    /// `array<E, N>`, `N` a `u32` literal (`2`, `2u` or `2i`).
    Fixed(u32),
    /// The runtime-sized `array<E>`.
    RuntimeSized,
    /// A count that is not such a literal (`array<E, x>`): no type.
    Invalid,
}

/// The outermost level of the WGSL type `text` spells (around spaces ignored), or `None` when
/// it spells none gpudata reads.
#[must_use]
pub fn type_syntax(text: &str) -> Option<TypeSyntax<'_>> {
    let text = text.trim();
    if let Some(inside) = generic(text, "array") {
        return Some(TypeSyntax::Array(ArraySyntax { inside }));
    }
    leaf(text).map(TypeSyntax::Leaf)
}

/// The type of WGSL's predeclared alias `name`: `vec3f`, `vec2h`, `vec4i`, `vec3u` (vectors of
/// each scalar), `mat4x4f`, `mat2x3h` (matrices of floats).
#[must_use]
pub fn alias_syntax(name: &str) -> Option<LeafSyntax> {
    let body = name.strip_suffix(['f', 'h', 'i', 'u'])?;
    let scalar = match &name[body.len()..] {
        "f" => ScalarSyntax::F32,
        "h" => ScalarSyntax::F16,
        "i" => ScalarSyntax::I32,
        _ => ScalarSyntax::U32,
    };
    if let Some(n) = body.strip_prefix("vec") {
        return Some(LeafSyntax::Vector {
            components: dimension(n)?,
            scalar,
        });
    }
    let (columns, rows) = body.strip_prefix("mat")?.split_once('x')?;
    scalar.is_float().then_some(LeafSyntax::Matrix {
        columns: dimension(columns)?,
        rows: dimension(rows)?,
        scalar,
    })
}

/// A vector's or matrix's dimension: 2, 3 or 4.
fn dimension(text: &str) -> Option<u8> {
    match text {
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    }
}

/// `name<inside>` → `inside`.
fn generic<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    text.strip_prefix(name)?
        .trim_start()
        .strip_prefix('<')?
        .strip_suffix('>')
}

/// The byte offset of the last `,` outside `<...>` in `text`.
fn last_top_level_comma(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => found = Some(i),
            _ => {}
        }
    }
    found
}

/// A scalar, an alias, `atomic<T>`, `vecN<T>` or `matCxR<T>`.
fn leaf(text: &str) -> Option<LeafSyntax> {
    if let Some(s) = ScalarSyntax::from_name(text) {
        return Some(LeafSyntax::Scalar(s));
    }
    if let Some(leaf) = alias_syntax(text) {
        return Some(leaf);
    }
    if let Some(inside) = generic(text, "atomic") {
        return ScalarSyntax::from_name(inside.trim()).map(LeafSyntax::Atomic);
    }
    let (head, inside) = text.split_once('<')?;
    let scalar = ScalarSyntax::from_name(inside.strip_suffix('>')?.trim())?;
    let head = head.trim();
    if let Some(n) = head.strip_prefix("vec") {
        return Some(LeafSyntax::Vector {
            components: dimension(n)?,
            scalar,
        });
    }
    let (columns, rows) = head.strip_prefix("mat")?.split_once('x')?;
    Some(LeafSyntax::Matrix {
        columns: dimension(columns)?,
        rows: dimension(rows)?,
        scalar,
    })
}

#[cfg(test)]
mod tests {
    use super::CountSyntax::{Fixed, Invalid, RuntimeSized};
    use super::{
        ArraySyntax, CountSyntax, LeafSyntax, ScalarSyntax, TypeSyntax, alias_syntax, type_syntax,
    };

    const VEC3F: LeafSyntax = LeafSyntax::Vector {
        components: 3,
        scalar: ScalarSyntax::F32,
    };

    fn leaf(text: &str) -> Option<LeafSyntax> {
        match type_syntax(text)? {
            TypeSyntax::Leaf(leaf) => Some(leaf),
            TypeSyntax::Array(_) => None,
        }
    }

    fn array(text: &str) -> Option<(&str, CountSyntax)> {
        match type_syntax(text)? {
            TypeSyntax::Array(array) => Some(array.parts()),
            TypeSyntax::Leaf(_) => None,
        }
    }

    #[test]
    fn leaves_read_as_wgsl_spells_them() {
        assert_eq!(leaf(" f16 "), Some(LeafSyntax::Scalar(ScalarSyntax::F16)));
        assert_eq!(leaf("vec3<f32>"), Some(VEC3F));
        assert_eq!(leaf("vec3 < f32 >"), Some(VEC3F));
        assert_eq!(leaf("vec3f"), Some(VEC3F));
        let mat = LeafSyntax::Matrix {
            columns: 4,
            rows: 3,
            scalar: ScalarSyntax::F16,
        };
        assert_eq!(leaf("mat4x3<f16>"), Some(mat));
        assert_eq!(leaf("mat4x3h"), Some(mat));
        assert_eq!(
            leaf("atomic< u32 >"),
            Some(LeafSyntax::Atomic(ScalarSyntax::U32))
        );
        // An integer matrix is spelled (the layout refuses it) but has no alias.
        assert!(leaf("mat2x2<i32>").is_some());
        for bad in [
            "vec5<f32>",
            "mat4<f32>",
            "Light",
            "bool",
            "vec3b",
            "mat2x2i",
            "mat3x3u",
            "atomic<vec2<u32>>",
            "é",
            "vecé",
            "f32é",
            "",
        ] {
            assert_eq!(type_syntax(bad), None, "{bad}");
        }
    }

    #[test]
    fn arrays_keep_their_inside_as_text() {
        assert_eq!(
            array(" array< array<vec2u, 3>, 2u > "),
            Some((" array<vec2u, 3>", Fixed(2)))
        );
        assert_eq!(array("array<vec2u, 3i>"), Some(("vec2u", Fixed(3))));
        assert_eq!(
            array("array<atomic<u32>>"),
            Some(("atomic<u32>", RuntimeSized))
        );
        assert_eq!(array("array<f32, x>"), Some(("f32", Invalid)));
        assert_eq!(array("array<f32, -1>"), Some(("f32", Invalid)));
        assert_eq!(
            type_syntax("array<f32, x>"),
            Some(TypeSyntax::Array(ArraySyntax { inside: "f32, x" }))
        );
    }

    #[test]
    fn aliases_are_wgsls() {
        assert_eq!(alias_syntax("vec3f"), Some(VEC3F));
        for name in ["vec2h", "vec4i", "vec3u", "mat2x3f", "mat4x4h"] {
            assert!(alias_syntax(name).is_some(), "{name}");
        }
        for name in [
            "mat4x4i", "mat4x4u", "vec5f", "vecf", "mat4f", "Vec3f", "vec3", "é",
        ] {
            assert_eq!(alias_syntax(name), None, "{name}");
        }
    }
}
