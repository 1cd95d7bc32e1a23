//! How a checked struct is expanded, decided once from its syntax: which of the runtime's layout
//! engines lays it out ([`Engine`]), when its problems are looked for ([`Check`]), and what the
//! syntax of each field type says of its vertex format ([`PlainType`]). The expansion reads the
//! [`Strategy`]; it never classifies a type itself.

use syn::Type;

use super::ast::{Field, Input, is_scalar, runtime_element};
use super::attr::LayoutKind;
use super::wgsl_type::{LeafSyntax, ScalarSyntax, WgslTy};

/// How the derive expands a struct that passed its checks.
pub(crate) struct Strategy<'a> {
    /// The layout engine.
    pub(crate) engine: Engine,
    /// When the struct's problems are looked for.
    pub(crate) check: Check<'a>,
    /// Whether `Facts::named` writes the facts: the common case (not `packed`, no `zero_copy`,
    /// no `stride`, no format string, no declared offset), in one call.
    pub(crate) named_facts: bool,
    /// Each gpu field's [`PlainType`], in order.
    pub(crate) plain: Vec<PlainType>,
}

/// The runtime's layout engine a struct is expanded for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    /// The flat engine: every field a plain scalar or array of scalars (no `wgsl`, `align` or
    /// `size`, no runtime-sized tail, not `wgsl-uniform`). It gives the general engine's offsets
    /// for those and costs less to compile; the struct is a tree of depth 1 (each field its own
    /// leaf), read through the same leaf table and constants as a nested one.
    Flat,
    /// The general engine: nested types flattened into leaves, laid out by WGSL's memory model
    /// (or, in a `packed` struct, each leaf by the vertex rules).
    Tree,
}

/// When a struct's problems are looked for.
pub(crate) enum Check<'a> {
    /// Never eagerly (the flat engine only): every field is a plain scalar or array of scalars
    /// with nothing asserted, so no problem can arise (a shadowed scalar name aside, which the
    /// analysis reports where it is first used).
    Never,
    /// By one `const` that reads the analysis for every struct and reports its first problem at
    /// the user's token.
    Eager,
    /// By the macro itself (the general engine only): a `wgsl-storage` struct with nothing
    /// asserted whose fields are plain scalars and vectors, arrays of them, `wgsl = "..."` types
    /// whose bytes the macro counts, and nested types. No problem of its own can arise there (a
    /// shadowed scalar name aside), so its analysis runs on first use only
    /// (`__private::lazy_analysis`, its facts in `Analyzed::FACTS`), and the one eager check
    /// reads the nested types' `GpuType::NESTS`: cheap constants instead of the layout engine
    /// run in rustc's interpreter for every struct.
    Lazy(Leaves<'a>),
}

/// The leaves of a struct the macro checks itself ([`Check::Lazy`]): a count it knows plus the
/// nested types' `GpuType::LEAVES`.
pub(crate) struct Leaves<'a> {
    /// The leaves the macro counts.
    pub(crate) literal: usize,
    /// The nested types' terms, in field order.
    pub(crate) nested: Vec<Nested<'a>>,
    /// Each gpu field's first leaf (its marker's `INDEX`): the counted leaves and the number of
    /// [`nested`](Self::nested) terms before it.
    pub(crate) firsts: Vec<(usize, usize)>,
}

/// One nested type's term of a [`Leaves`] count: `counts` (the lengths of the arrays holding
/// it, outermost first) times `<ty as GpuType>::LEAVES`.
pub(crate) struct Nested<'a> {
    /// The gpu field holding it.
    pub(crate) field: usize,
    /// The lengths of the arrays around it, outermost first.
    pub(crate) counts: Vec<usize>,
    /// The nested type.
    pub(crate) ty: &'a Type,
}

/// What the syntax of a field type says of its vertex format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlainType {
    /// A scalar (`f32`, `u32`, `i32`, `u16`, `i16`, `u8`, `i8`) or an array of 2 to 4 of them
    /// whose format is a WebGPU one: a `GpuField` whose format is known without evaluating
    /// anything.
    WebGpu,
    /// Three 8- or 16-bit scalars: a `GpuField` of a `-webgl` format.
    WebGl,
    /// Anything else (whether it is a `GpuField` is the compiler's to find).
    Other,
}

impl PlainType {
    /// Whether the type is a plain scalar or array of scalars (a `GpuField`).
    pub(crate) fn is_field(self) -> bool {
        self != PlainType::Other
    }
}

/// The scalars whose arrays of 2 to 4 are vertex formats, by their names.
const SCALARS: [&str; 7] = ["f32", "u32", "i32", "u16", "i16", "u8", "i8"];

/// The scalars three of which make a `-webgl` format.
const WEBGL_TRIPLES: [&str; 4] = ["u8", "i8", "u16", "i16"];

/// What `ty`'s syntax says of its vertex format: a bare scalar name, or an array of one with a
/// literal length.
pub(crate) fn plain_type(ty: &Type) -> PlainType {
    fn scalar(ty: &Type) -> Option<&'static str> {
        let Type::Path(path) = ty else { return None };
        if path.qself.is_some() || path.path.leading_colon.is_some() {
            return None;
        }
        let ident = path.path.get_ident()?;
        SCALARS.into_iter().find(|name| ident == name)
    }
    match ty {
        Type::Array(array) => {
            let Some(elem) = scalar(&array.elem) else {
                return PlainType::Other;
            };
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(len),
                ..
            }) = &array.len
            else {
                return PlainType::Other;
            };
            match len.base10_parse::<usize>() {
                Ok(2 | 4) => PlainType::WebGpu,
                Ok(3) if WEBGL_TRIPLES.contains(&elem) => PlainType::WebGl,
                Ok(3) => PlainType::WebGpu,
                _ => PlainType::Other,
            }
        }
        other if scalar(other).is_some() => PlainType::WebGpu,
        _ => PlainType::Other,
    }
}

impl<'a> Strategy<'a> {
    /// The strategy of `input`, which passed the macro's checks.
    pub(crate) fn of(input: &Input<'a>) -> Strategy<'a> {
        let plain: Vec<PlainType> = input.gpu_fields().map(|f| plain_type(f.ty)).collect();
        let packed = input.attrs.layout == LayoutKind::Packed;
        let (engine, check) = if needs_tree(input, &plain) {
            let check = lazy_leaves(input).map_or(Check::Eager, Check::Lazy);
            (Engine::Tree, check)
        } else if needs_eager_check(input, &plain, packed) {
            (Engine::Flat, Check::Eager)
        } else {
            (Engine::Flat, Check::Never)
        };
        let named_facts = !packed
            && input.attrs.zero_copy.is_none()
            && input.attrs.stride.is_none()
            && input
                .gpu_fields()
                .all(|f| f.attrs.format.is_none() && f.attrs.offset.is_none());
        Strategy {
            engine,
            check,
            named_facts,
            plain,
        }
    }
}

/// Whether the struct needs the general engine: a `wgsl-uniform` layout, a runtime-sized tail, a
/// field that is not a plain scalar or array of scalars (possibly a nested type), or a `wgsl`,
/// `align` or `size` attribute.
fn needs_tree(input: &Input<'_>, plain: &[PlainType]) -> bool {
    input.attrs.layout == LayoutKind::WgslUniform
        || input.tail().is_some()
        || input.gpu_fields().zip(plain).any(|(f, plain)| {
            f.attrs.wgsl.is_some()
                || f.attrs.align.is_some()
                || f.attrs.size.is_some()
                || !plain.is_field()
        })
}

/// Whether a flat struct's problems must be looked for eagerly: anything asserted, any format
/// string, or (in the packed layout, which refuses them) a `-webgl` type.
fn needs_eager_check(input: &Input<'_>, plain: &[PlainType], packed: bool) -> bool {
    input.attrs.zero_copy.is_some()
        || input.attrs.stride.is_some()
        || input.gpu_fields().zip(plain).any(|(f, plain)| {
            f.attrs.format.is_some()
                || f.attrs.offset.is_some()
                || *plain == PlainType::Other
                || (packed && *plain == PlainType::WebGl)
        })
}

/// The struct's [`Leaves`] when the macro can check it itself ([`Check::Lazy`]), else `None`.
fn lazy_leaves<'a>(input: &Input<'a>) -> Option<Leaves<'a>> {
    if input.attrs.layout != LayoutKind::WgslStorage
        || input.attrs.zero_copy.is_some()
        || input.attrs.stride.is_some()
        || input.tail().is_some()
    {
        return None;
    }
    let mut leaves = Leaves {
        literal: 0,
        nested: Vec::new(),
        firsts: Vec::new(),
    };
    for (k, f) in input.gpu_fields().enumerate() {
        leaves.firsts.push((leaves.literal, leaves.nested.len()));
        let (literal, nested) = field_leaves(f)?;
        leaves.literal = leaves.literal.checked_add(literal)?;
        leaves
            .nested
            .extend(nested.into_iter().map(|(counts, ty)| Nested {
                field: k,
                counts,
                ty,
            }));
    }
    Some(leaves)
}

/// A nested type's term: the array lengths around it (outermost first) and the type.
type Term<'a> = (Vec<usize>, &'a Type);

/// One field's leaves: a count the macro knows, and the nested types' terms.
fn field_leaves<'a>(f: &Field<'a>) -> Option<(usize, Vec<Term<'a>>)> {
    let attrs = &f.attrs;
    if attrs.format.is_some()
        || attrs.offset.is_some()
        || attrs.align.is_some()
        || attrs.size.is_some()
    {
        return None;
    }
    match &attrs.wgsl {
        Some((_, wgsl)) => {
            let bytes = wgsl_bytes(wgsl)?;
            (host_bytes(f.ty)? == bytes).then_some((wgsl_leaves(wgsl)?, Vec::new()))
        }
        None => type_leaves(f.ty),
    }
}

/// The leaves of a field of type `ty` without attributes.
fn type_leaves(ty: &Type) -> Option<(usize, Vec<Term<'_>>)> {
    if runtime_element(ty).is_some() {
        return None;
    }
    if plain_type(ty).is_field() {
        return Some((1, Vec::new()));
    }
    match ty {
        Type::Array(array) if !is_scalar(&array.elem) => {
            let n = literal_len(&array.len)?;
            let (literal, nested) = type_leaves(&array.elem)?;
            let nested = nested
                .into_iter()
                .map(|(mut counts, ty)| {
                    counts.insert(0, n);
                    (counts, ty)
                })
                .collect();
            Some((literal.checked_mul(n)?, nested))
        }
        Type::Path(path) if path.qself.is_none() && !is_scalar(ty) => {
            Some((0, vec![(Vec::new(), ty)]))
        }
        _ => None,
    }
}

/// An array length written as a literal of at least 1.
fn literal_len(len: &syn::Expr) -> Option<usize> {
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(len),
        ..
    }) = len
    else {
        return None;
    };
    len.base10_parse::<usize>().ok().filter(|n| *n >= 1)
}

/// Bytes of a host type of 32-bit scalars the macro reads from its syntax: `f32`, `[u32; N]`,
/// `[[f32; R]; C]`.
fn host_bytes(ty: &Type) -> Option<usize> {
    fn word(ty: &Type) -> bool {
        let Type::Path(path) = ty else { return false };
        path.qself.is_none()
            && path
                .path
                .get_ident()
                .is_some_and(|i| i == "f32" || i == "u32" || i == "i32")
    }
    if word(ty) {
        return Some(4);
    }
    let Type::Array(array) = ty else { return None };
    let n = literal_len(&array.len)?;
    n.checked_mul(host_bytes(&array.elem)?)
}

/// Bytes of the scalars of a WGSL type of 32-bit scalars (no `f16`, no atomics, `f32`
/// matrices, arrays of at least one element), else `None`.
fn wgsl_bytes(ty: &WgslTy) -> Option<usize> {
    match ty {
        WgslTy::Leaf(leaf) => match *leaf {
            LeafSyntax::Atomic(_)
            | LeafSyntax::Scalar(ScalarSyntax::F16)
            | LeafSyntax::Vector {
                scalar: ScalarSyntax::F16,
                ..
            } => None,
            LeafSyntax::Matrix { scalar, .. } if scalar != ScalarSyntax::F32 => None,
            LeafSyntax::Matrix { columns, rows, .. } => {
                Some(usize::from(columns) * usize::from(rows) * 4)
            }
            LeafSyntax::Vector { components, .. } => Some(usize::from(components) * 4),
            LeafSyntax::Scalar(_) => Some(4),
        },
        WgslTy::Array(element, count) => {
            let count = usize::try_from(*count).ok().filter(|n| *n >= 1)?;
            count.checked_mul(wgsl_bytes(element)?)
        }
    }
}

/// Leaves of a WGSL type: one per scalar or vector, one per matrix column.
fn wgsl_leaves(ty: &WgslTy) -> Option<usize> {
    match ty {
        WgslTy::Leaf(LeafSyntax::Matrix { columns, .. }) => Some(usize::from(*columns)),
        WgslTy::Leaf(_) => Some(1),
        WgslTy::Array(element, count) => usize::try_from(*count)
            .ok()?
            .checked_mul(wgsl_leaves(element)?),
    }
}

#[cfg(test)]
mod tests {
    //! The syntax-level predictions against what they predict: gpudata's `GpuField` impls
    //! (gpudata is a dev-dependency of the derive), found for each candidate type by autoref
    //! specialization, so a type without an impl is a `None` rather than a compile error.

    use std::marker::PhantomData;

    use gpudata::{GpuField, VertexFormat};
    use syn::Type;

    use super::{PlainType, SCALARS, host_bytes, plain_type};

    struct Probe<T>(PhantomData<T>);

    trait IsField {
        fn format(&self) -> Option<VertexFormat>;
    }

    impl<T: GpuField> IsField for Probe<T> {
        fn format(&self) -> Option<VertexFormat> {
            Some(T::FORMAT)
        }
    }

    trait NotField {
        fn format(&self) -> Option<VertexFormat>;
    }

    impl<T> NotField for &Probe<T> {
        fn format(&self) -> Option<VertexFormat> {
            None
        }
    }

    /// `(type as written, its GpuField format)` for each type.
    macro_rules! probe {
        ($($ty:ty),* $(,)?) => {
            vec![$((stringify!($ty), (&Probe::<$ty>(PhantomData)).format())),*]
        };
    }

    /// Each scalar and its arrays of 1 to 5, with the scalars' names.
    macro_rules! scalars {
        ($($s:ident),*) => {
            (
                vec![$(stringify!($s)),*],
                [$(probe!($s, [$s; 1], [$s; 2], [$s; 3], [$s; 4], [$s; 5])),*].concat(),
            )
        };
    }

    fn parse(text: &str) -> Type {
        syn::parse_str(text).unwrap_or_else(|err| panic!("`{text}`: {err}"))
    }

    #[test]
    fn plain_type_is_exactly_the_scalar_field_impls() {
        let (names, candidates) = scalars!(f32, u32, i32, u16, i16, u8, i8);
        assert_eq!(names, SCALARS, "the probed scalars are the classified ones");
        for (text, format) in candidates {
            let plain = plain_type(&parse(text));
            assert_eq!(plain.is_field(), format.is_some(), "`{text}`: {plain:?}");
            let webgl = format.is_some_and(VertexFormat::is_webgl_only);
            assert_eq!(plain == PlainType::WebGl, webgl, "`{text}`: {plain:?}");
        }
    }

    #[test]
    fn other_types_are_not_plain() {
        let others = probe!(f64, bool, u64, usize, [f64; 2], [bool; 3], [[f32; 2]; 2]);
        let paths = [
            "core::primitive::f32",
            "::f32",
            "<T as X>::f32",
            "half::f16",
            "[f32; N]",
        ];
        let texts = others.iter().map(|(text, _)| *text).chain(paths);
        for text in texts {
            assert_eq!(plain_type(&parse(text)), PlainType::Other, "`{text}`");
        }
    }

    #[test]
    fn host_bytes_are_the_sizes() {
        let cases = [
            ("f32", size_of::<f32>()),
            ("u32", size_of::<u32>()),
            ("i32", size_of::<i32>()),
            ("[u32; 3]", size_of::<[u32; 3]>()),
            ("[[f32; 4]; 4]", size_of::<[[f32; 4]; 4]>()),
        ];
        for (text, size) in cases {
            assert_eq!(host_bytes(&parse(text)), Some(size), "`{text}`");
        }
        assert_eq!(host_bytes(&parse("u16")), None);
    }
}
