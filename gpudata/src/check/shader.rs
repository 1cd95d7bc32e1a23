//! [`Shader`]: a parsed WGSL module with its source (for line and column) and naga's layouts,
//! and the facts every check reads from it: value types, WGSL type names, sizes, alignments and
//! positions.

use naga::common::wgsl::TypeContext as _;
use naga::{Handle, ScalarKind, Type, TypeInner};

use super::error::{ShaderCheckError, WgslLocation};
use crate::format::{PrimitiveType, ShaderType};
use crate::layout::LeafType;

/// A WGSL module to check host declarations against: naga's IR, naga's layout of every type,
/// and the source text, which turns naga's spans into line and column.
///
/// ```
/// use gpudata::check::Shader;
///
/// let shader = Shader::parse("struct Particle { position: vec3<f32>, mass: f32 }")?;
/// assert!(shader.module().types.iter().any(|(_, t)| t.name.as_deref() == Some("Particle")));
/// # Ok::<(), gpudata::check::ShaderCheckError>(())
/// ```
#[derive(Debug)]
pub struct Shader {
    module: naga::Module,
    layouter: naga::proc::Layouter,
    source: Option<String>,
}

impl Shader {
    /// Parses WGSL text. The text is first held to the bounds of
    /// [`WgslBound`](super::WgslBound) (naga's reader recurses once per level of an expression,
    /// and past them a deep enough expression would overflow the stack and abort the process),
    /// then naga parses it on a thread whose stack is sized for the text's depth (4 MiB plus
    /// 8 KiB a level and 1 KiB a declaration, at most 146 MiB reserved, of which a parse
    /// touches what it uses).
    ///
    /// # Errors
    /// [`ShaderCheckError::TooComplex`] naming the bound passed and where;
    /// [`ShaderCheckError::Parse`] with naga's message and the line and column it points at
    /// (or, at 0:0, a parse thread that could not start or a panic inside naga).
    pub fn parse(wgsl: &str) -> Result<Shader, ShaderCheckError> {
        let shape = gpudata_names::wgsl_source_shape(wgsl).map_err(|problem| {
            let (line, column) = gpudata_names::line_column(wgsl, problem.at);
            ShaderCheckError::TooComplex {
                bound: problem.bound,
                line: u32::try_from(line).unwrap_or(u32::MAX),
                column: u32::try_from(column).unwrap_or(u32::MAX),
            }
        })?;
        let module = shape
            .run_parse(|| naga::front::wgsl::parse_str(wgsl))
            .map_err(|e| ShaderCheckError::Parse {
                line: 0,
                column: 0,
                message: e.to_string(),
            })?
            .map_err(|e| {
                let at = e.location(wgsl);
                ShaderCheckError::Parse {
                    line: at.map_or(0, |l| l.line_number),
                    column: at.map_or(0, |l| l.line_position),
                    message: e.message().to_owned(),
                }
            })?;
        Shader::from_module(module, Some(wgsl))
    }

    /// A module parsed elsewhere (from WGSL, SPIR-V or GLSL); give its WGSL `source` for line
    /// and column in the mismatches.
    ///
    /// # Errors
    /// [`ShaderCheckError::Parse`] when naga cannot lay out the module's types (a type too
    /// large for WGSL's limits), at the type's position.
    pub fn from_module(
        module: naga::Module,
        source: Option<&str>,
    ) -> Result<Shader, ShaderCheckError> {
        let mut layouter = naga::proc::Layouter::default();
        if let Err(e) = layouter.update(module.to_ctx()) {
            let at = source.and_then(|s| {
                let span = module.types.get_span(e.ty);
                span.is_defined().then(|| span.location(s))
            });
            return Err(ShaderCheckError::Parse {
                line: at.map_or(0, |l| l.line_number),
                column: at.map_or(0, |l| l.line_position),
                message: e.to_string(),
            });
        }
        Ok(Shader {
            module,
            layouter,
            source: source.map(str::to_owned),
        })
    }

    /// naga's IR of the shader.
    #[must_use]
    pub fn module(&self) -> &naga::Module {
        &self.module
    }

    /// The struct type named `name`.
    pub(super) fn struct_named(&self, name: &str) -> Option<Handle<Type>> {
        self.module
            .types
            .iter()
            .find(|(_, t)| {
                t.name.as_deref() == Some(name) && matches!(t.inner, TypeInner::Struct { .. })
            })
            .map(|(h, _)| h)
    }

    /// The struct `name`, or [`ShaderCheckError::MissingStruct`].
    pub(super) fn required_struct(&self, name: &str) -> Result<Handle<Type>, ShaderCheckError> {
        self.struct_named(name)
            .ok_or_else(|| ShaderCheckError::MissingStruct {
                name: name.to_owned(),
            })
    }

    /// `ty` as WGSL writes it (`vec3<f32>`, `array<Particle>`, `Particle`).
    pub(super) fn type_text(&self, ty: Handle<Type>) -> String {
        self.module.to_ctx().type_to_string(ty)
    }

    /// `ty`'s WGSL size and alignment in bytes.
    pub(super) fn size_align(&self, ty: Handle<Type>) -> (u64, u64) {
        let layout = &self.layouter[ty];
        (
            u64::from(layout.size),
            u64::from(layout.alignment.round_up(1)),
        )
    }

    /// naga's type as a [`LeafType`], when it is a scalar, vector, matrix or atomic of a
    /// host-shareable scalar.
    pub(super) fn leaf(&self, ty: Handle<Type>) -> Option<LeafType> {
        let scalar = |s: naga::Scalar| match (s.kind, s.width) {
            (ScalarKind::Float, 4) => Some(PrimitiveType::F32),
            (ScalarKind::Float, 2) => Some(PrimitiveType::F16),
            (ScalarKind::Sint, 4) => Some(PrimitiveType::I32),
            (ScalarKind::Uint, 4) => Some(PrimitiveType::U32),
            _ => None,
        };
        Some(match self.module().types[ty].inner {
            TypeInner::Scalar(s) => LeafType::Scalar(scalar(s)?),
            TypeInner::Atomic(s) => LeafType::Atomic(scalar(s)?),
            TypeInner::Vector { size, scalar: s } => LeafType::Vector {
                components: size as u8,
                scalar: scalar(s)?,
            },
            TypeInner::Matrix {
                columns,
                rows,
                scalar: s,
            } => LeafType::Matrix {
                columns: columns as u8,
                rows: rows as u8,
                scalar: scalar(s)?,
            },
            _ => return None,
        })
    }

    /// `ty` as a scalar or vector of `f32`, `f16`, `i32` or `u32` (atomics as their scalar, only
    /// `atomic<i32>` and `atomic<u32>`: [`LeafType::value`]), or `None` for every other type.
    pub(super) fn value_type(&self, ty: Handle<Type>) -> Option<ShaderType> {
        self.leaf(ty).and_then(LeafType::value)
    }

    /// The line and column of byte `offset` of the source.
    fn location_of(&self, offset: usize) -> Option<WgslLocation> {
        let source = self.source.as_deref()?;
        source.get(..offset)?;
        let (line, column) = gpudata_names::line_column(source, offset);
        Some(WgslLocation {
            line: u32::try_from(line).ok()?,
            column: u32::try_from(column).ok()?,
        })
    }

    /// The line and column where `span` starts.
    pub(super) fn span_location(&self, span: naga::Span) -> Option<WgslLocation> {
        let range = span.to_range()?;
        self.location_of(range.start)
    }

    /// Where `name` is declared (`name` followed by `:`, as a whole identifier) inside `span`,
    /// else where `span` starts: naga keeps no span per struct member or argument.
    pub(super) fn declaration_in(&self, span: naga::Span, name: &str) -> Option<WgslLocation> {
        let range = span.to_range()?;
        let text = self.source.as_deref()?.get(range.clone())?;
        let found = find_declaration(text, name).map_or(range.start, |at| range.start + at);
        self.location_of(found)
    }

    /// Where `name` is declared as a parameter of the function `function`.
    pub(super) fn parameter_location(&self, function: &str, name: &str) -> Option<WgslLocation> {
        let source = self.source.as_deref()?;
        let mut from = 0;
        let start = loop {
            let at = find_word(source, "fn", from)?;
            let rest = source[at + 2..].trim_start();
            if rest.starts_with(function) && !rest[function.len()..].starts_with(is_ident_char) {
                break at;
            }
            from = at + 2;
        };
        let end = source[start..]
            .find('{')
            .map_or(source.len(), |e| start + e);
        let found = find_declaration(&source[start..end], name).map_or(start, |at| start + at);
        self.location_of(found)
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first whole-word occurrence of `word` in `text` at or after `from`.
fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = text.get(at..)?.find(word) {
        let start = at + found;
        let end = start + word.len();
        let before = text[..start].chars().next_back().is_some_and(is_ident_char);
        let after = text[end..].chars().next().is_some_and(is_ident_char);
        if !before && !after {
            return Some(start);
        }
        at = end;
    }
    None
}

/// The first `name :` in `text` (a member or parameter declaration).
fn find_declaration(text: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = find_word(text, name, from) {
        if text[at + name.len()..].trim_start().starts_with(':') {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}
