//! `#[gpu(wgsl = "...")]`: the WGSL type string of an attribute, read at macro time into a
//! [`WgslTy`] in `gpudata_names`' grammar, which gpudata's `TypeDecl::parse` reads too (the
//! expansion writes it as a `gpudata::layout::WgslType` constant; the layout itself stays
//! gpudata's `const fn`s' job).

use gpudata_names::{CountSyntax, TypeSyntax, type_syntax};
pub(crate) use gpudata_names::{LeafSyntax, ScalarSyntax};

/// A parsed WGSL type without structs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WgslTy {
    /// `f32`, `vec3<f32>`, `mat4x4<f32>`, `atomic<u32>`.
    Leaf(LeafSyntax),
    /// `array<E, N>`.
    Array(Box<WgslTy>, u32),
}

/// Reads `text` (spaces allowed): a scalar, `vecN<T>`, `matCxR<T>`, `atomic<T>`, a shorthand
/// alias, or `array<E, N>` of them (not the runtime-sized `array<E>`). Validity
/// (`mat4x4<i32>`) is the layout engine's to report.
pub(crate) fn parse(text: &str) -> Option<WgslTy> {
    match type_syntax(text) {
        Some(TypeSyntax::Leaf(leaf)) => Some(WgslTy::Leaf(leaf)),
        Some(TypeSyntax::Array(array)) => {
            let (element, CountSyntax::Fixed(count)) = array.parts() else {
                return None;
            };
            Some(WgslTy::Array(Box::new(parse(element)?), count))
        }
        None => integer_matrix_alias(text.trim()).map(WgslTy::Leaf),
    }
}

/// `mat4x4i`, `mat2x3u`: matrix shorthands WGSL does not predeclare, which the derive has read
/// as integer matrices (the layout engine then refuses them), where the grammar refuses them.
fn integer_matrix_alias(text: &str) -> Option<LeafSyntax> {
    let (body, scalar) = match text.strip_suffix('i') {
        Some(body) => (body, ScalarSyntax::I32),
        None => (text.strip_suffix('u')?, ScalarSyntax::U32),
    };
    let float = gpudata_names::alias_syntax(&[body, "f"].concat())?;
    match float {
        LeafSyntax::Matrix { columns, rows, .. } => Some(LeafSyntax::Matrix {
            columns,
            rows,
            scalar,
        }),
        _ => None,
    }
}
