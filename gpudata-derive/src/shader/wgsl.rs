//! What the compile-time check reads from a WGSL file with naga: a struct's members (their type
//! trees: nested structs, arrays, matrices, atomics; offsets, alignments, positions) and size, a
//! uniform or storage global's binding and rows, and a vertex entry point's `@location` inputs.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use naga::common::wgsl::TypeContext as _;
use naga::{
    AddressSpace, ArraySize, Binding, Handle, Scalar, ScalarKind, ShaderStage, Type, TypeInner,
};

/// A scalar type of a shader value, named as `gpudata::__private::PrimitiveType`'s variants.
#[derive(Clone, Copy)]
pub(crate) enum Primitive {
    F32,
    F16,
    I32,
    U32,
}

/// A scalar or vector of `f32`, `f16`, `i32` or `u32`.
pub(crate) type ValueType = Option<(Primitive, u32)>;

/// A scalar, vector, matrix or atomic of [`Primitive`]s.
#[derive(Clone, Copy)]
pub(crate) enum Leaf {
    Scalar(Primitive),
    Vector(u8, Primitive),
    Matrix(u8, u8, Primitive),
    Atomic(Primitive),
}

/// A member's type as a tree.
pub(crate) enum Tree {
    /// A leaf (`None`: a type no host type matches), with its WGSL spelling.
    Leaf(Option<Leaf>, String),
    /// `array<E, N>` or `array<E>`: element, count, stride, WGSL spelling.
    Array(Box<Tree>, Option<u32>, u32, String),
    /// A struct.
    Struct(Struct),
}

/// A struct member.
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) tree: Tree,
    pub(crate) type_name: String,
    pub(crate) offset: u32,
    pub(crate) align: u32,
    /// Its WGSL size in bytes.
    pub(crate) size: u32,
    pub(crate) at: String,
}

/// A struct: members, size and position.
pub(crate) struct Struct {
    pub(crate) name: String,
    pub(crate) members: Vec<Member>,
    pub(crate) size: u32,
    pub(crate) at: String,
}

/// A uniform or storage global: its position, `@group/@binding`, address space, and the rows
/// its type holds (a struct, the element of `array<S>`, or of the runtime-sized array ending a
/// struct) with their stride and the path suffix naming them (`.`, `[].`, `.items[].`).
pub(crate) struct Global {
    pub(crate) at: String,
    pub(crate) binding: Option<(u32, u32)>,
    /// `uniform`, `storage, read` or `storage, read_write`; `None` for other address spaces.
    pub(crate) space: Option<String>,
    pub(crate) type_name: String,
    pub(crate) rows: Option<(Struct, u32, String)>,
}

/// A vertex input.
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) location: u32,
    pub(crate) ty: ValueType,
    pub(crate) type_name: String,
    pub(crate) at: String,
}

thread_local! {
    /// The files parsed in this compiler session, one entry per path (its latest text): the
    /// derives of one crate run in one process, so twenty structs checked against one file parse
    /// it once.
    static PARSED: RefCell<Vec<Rc<Wgsl>>> = const { RefCell::new(Vec::new()) };
}

/// A parsed WGSL file.
pub(crate) struct Wgsl {
    path: PathBuf,
    file: String,
    source: String,
    module: naga::Module,
    layouter: naga::proc::Layouter,
}

impl Wgsl {
    /// Reads `file` (as written in the attribute) at `path` and parses it, or returns the parse
    /// of the same text made earlier in this session.
    ///
    /// # Errors
    /// The message of a compile error: the file cannot be read, does not parse, or has types
    /// naga cannot lay out.
    pub(crate) fn load(file: &str, path: &Path) -> Result<Rc<Wgsl>, String> {
        let source = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the shader `{file}` (a path relative to the crate's Cargo.toml, or to the source file naming it): {e}"
            )
        })?;
        let cached = PARSED.with_borrow(|parsed| {
            parsed
                .iter()
                .find(|w| w.path == path && w.source == source && w.file == file)
                .cloned()
        });
        if let Some(hit) = cached {
            return Ok(hit);
        }
        let module = parse(&source, file)?;
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .map_err(|e| format!("the shader `{file}` has a type naga cannot lay out: {e}"))?;
        let parsed = Rc::new(Wgsl {
            path: path.to_owned(),
            file: file.to_owned(),
            source,
            module,
            layouter,
        });
        PARSED.with_borrow_mut(|all| {
            all.retain(|w| w.path != path);
            all.push(Rc::clone(&parsed));
        });
        Ok(parsed)
    }

    /// The file as the attribute names it.
    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// naga's IR of the file.
    pub(super) fn module(&self) -> &naga::Module {
        &self.module
    }

    /// `file:line:column` of byte `offset`.
    pub(super) fn at(&self, offset: usize) -> String {
        at(&self.file, &self.source, offset)
    }

    /// Where `name :` is declared inside `span`, else where `span` starts.
    fn declaration(&self, span: naga::Span, name: &str) -> String {
        let Some(range) = span.to_range() else {
            return self.file.clone();
        };
        let text = self.source.get(range.clone()).unwrap_or("");
        let mut from = 0;
        while let Some(found) = text.get(from..).and_then(|t| t.find(name)) {
            let start = from + found;
            let end = start + name.len();
            let ident = |c: char| c.is_alphanumeric() || c == '_';
            let whole = !text[..start].chars().next_back().is_some_and(ident)
                && !text[end..].chars().next().is_some_and(ident);
            if whole && text[end..].trim_start().starts_with(':') {
                return self.at(range.start + start);
            }
            from = end;
        }
        self.at(range.start)
    }

    fn leaf(&self, ty: Handle<Type>) -> Option<Leaf> {
        let primitive = |s: Scalar| match (s.kind, s.width) {
            (ScalarKind::Float, 4) => Some(Primitive::F32),
            (ScalarKind::Float, 2) => Some(Primitive::F16),
            (ScalarKind::Sint, 4) => Some(Primitive::I32),
            (ScalarKind::Uint, 4) => Some(Primitive::U32),
            _ => None,
        };
        Some(match self.module.types[ty].inner {
            TypeInner::Scalar(s) => Leaf::Scalar(primitive(s)?),
            TypeInner::Atomic(s) => Leaf::Atomic(primitive(s)?),
            TypeInner::Vector { size, scalar } => Leaf::Vector(size as u8, primitive(scalar)?),
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => Leaf::Matrix(columns as u8, rows as u8, primitive(scalar)?),
            _ => return None,
        })
    }

    /// The value `ty` holds, as `gpudata::layout::LeafType::value` says (the rule the trees'
    /// `const` comparison calls): atomics their scalar, `atomic<i32>` and `atomic<u32>` only.
    fn value_type(&self, ty: Handle<Type>) -> ValueType {
        match self.leaf(ty)? {
            Leaf::Scalar(p) | Leaf::Atomic(p @ (Primitive::I32 | Primitive::U32)) => Some((p, 1)),
            Leaf::Vector(n, p) => Some((p, u32::from(n))),
            Leaf::Atomic(_) | Leaf::Matrix(..) => None,
        }
    }

    pub(super) fn type_name(&self, ty: Handle<Type>) -> String {
        self.module.to_ctx().type_to_string(ty)
    }

    /// `ty` as a tree.
    pub(super) fn tree(&self, ty: Handle<Type>) -> Tree {
        match &self.module.types[ty].inner {
            TypeInner::Array { base, size, stride } => Tree::Array(
                Box::new(self.tree(*base)),
                match size {
                    ArraySize::Constant(n) => Some(n.get()),
                    _ => None,
                },
                *stride,
                self.type_name(ty),
            ),
            TypeInner::Struct { .. } => match self.struct_at(ty) {
                Some(s) => Tree::Struct(s),
                None => Tree::Leaf(None, self.type_name(ty)),
            },
            _ => Tree::Leaf(self.leaf(ty), self.type_name(ty)),
        }
    }

    /// The names of the file's structs, for messages.
    pub(crate) fn struct_names(&self) -> Vec<String> {
        self.module
            .types
            .iter()
            .filter(|(_, t)| matches!(t.inner, TypeInner::Struct { .. }))
            .filter_map(|(_, t)| t.name.clone())
            .collect()
    }

    /// The struct `name`.
    pub(crate) fn struct_named(&self, name: &str) -> Option<Struct> {
        let (handle, _) = self.module.types.iter().find(|(_, t)| {
            t.name.as_deref() == Some(name) && matches!(t.inner, TypeInner::Struct { .. })
        })?;
        self.struct_at(handle)
    }

    /// The struct type `handle`.
    fn struct_at(&self, handle: Handle<Type>) -> Option<Struct> {
        let ty = &self.module.types[handle];
        let TypeInner::Struct { members, span } = &ty.inner else {
            return None;
        };
        let decl = self.module.types.get_span(handle);
        let members = members
            .iter()
            .map(|m| {
                let name = m.name.clone().unwrap_or_default();
                Member {
                    at: self.declaration(decl, &name),
                    tree: self.tree(m.ty),
                    type_name: self.type_name(m.ty),
                    offset: m.offset,
                    align: self.layouter[m.ty].alignment.round_up(1),
                    size: self.layouter[m.ty].size,
                    name,
                }
            })
            .collect();
        Some(Struct {
            name: ty.name.clone().unwrap_or_default(),
            members,
            size: *span,
            at: decl
                .to_range()
                .map_or_else(|| self.file.clone(), |r| self.at(r.start)),
        })
    }

    /// The names of the file's uniform and storage globals, for messages.
    pub(crate) fn global_names(&self) -> Vec<String> {
        self.module
            .global_variables
            .iter()
            .filter(|(_, g)| {
                matches!(
                    g.space,
                    AddressSpace::Uniform | AddressSpace::Storage { .. }
                )
            })
            .filter_map(|(_, g)| g.name.clone())
            .collect()
    }

    /// The global `name`.
    pub(crate) fn global_named(&self, name: &str) -> Option<Global> {
        let (handle, global) = self
            .module
            .global_variables
            .iter()
            .find(|(_, g)| g.name.as_deref() == Some(name))?;
        let span = self.module.global_variables.get_span(handle);
        let space = match global.space {
            AddressSpace::Uniform | AddressSpace::Storage { .. } => {
                match naga::common::wgsl::address_space_str(global.space) {
                    (Some(space), Some(access)) => Some(format!("{space}, {access}")),
                    (Some(space), None) => Some(space.to_owned()),
                    (None, _) => None,
                }
            }
            _ => None,
        };
        Some(Global {
            at: span
                .to_range()
                .map_or_else(|| self.file.clone(), |r| self.at(r.start)),
            binding: global.binding.as_ref().map(|b| (b.group, b.binding)),
            space,
            type_name: self.type_name(global.ty),
            rows: self.rows_of(global.ty),
        })
    }

    /// The struct rows `ty` holds, their stride and the path suffix naming them.
    fn rows_of(&self, ty: Handle<Type>) -> Option<(Struct, u32, String)> {
        let types = &self.module.types;
        match &types[ty].inner {
            TypeInner::Array { base, stride, .. } => {
                Some((self.struct_at(*base)?, *stride, "[].".to_owned()))
            }
            TypeInner::Struct { members, span } => {
                let tail = members.last().and_then(|last| match &types[last.ty].inner {
                    TypeInner::Array {
                        base,
                        stride,
                        size: ArraySize::Dynamic,
                    } => Some((
                        self.struct_at(*base)?,
                        *stride,
                        format!(".{}[].", last.name.as_deref().unwrap_or("")),
                    )),
                    _ => None,
                });
                tail.or_else(|| Some((self.struct_at(ty)?, *span, ".".to_owned())))
            }
            _ => None,
        }
    }

    /// The `@location` inputs of the vertex entry point `entry`.
    pub(crate) fn vertex_inputs(&self, entry: &str) -> Option<Vec<Input>> {
        let ep = self
            .module
            .entry_points
            .iter()
            .find(|ep| ep.name == entry && ep.stage == ShaderStage::Vertex)?;
        // naga keeps no span per argument: search the entry point's parameter list.
        let header = self.source.find(&format!("fn {entry}")).map(|start| {
            let end = self.source[start..]
                .find('{')
                .map_or(self.source.len(), |e| start + e);
            naga::Span::new(start as u32, end as u32)
        });
        let mut inputs = Vec::new();
        for argument in &ep.function.arguments {
            let name = argument.name.clone().unwrap_or_default();
            match (&argument.binding, &self.module.types[argument.ty].inner) {
                (Some(Binding::Location { location, .. }), _) => inputs.push(Input {
                    at: header.map_or_else(|| self.file.clone(), |h| self.declaration(h, &name)),
                    ty: self.value_type(argument.ty),
                    type_name: self.type_name(argument.ty),
                    location: *location,
                    name,
                }),
                (None, TypeInner::Struct { members, .. }) => {
                    let decl = self.module.types.get_span(argument.ty);
                    for member in members {
                        if let Some(Binding::Location { location, .. }) = member.binding {
                            let name = member.name.clone().unwrap_or_default();
                            inputs.push(Input {
                                at: self.declaration(decl, &name),
                                ty: self.value_type(member.ty),
                                type_name: self.type_name(member.ty),
                                location,
                                name,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        Some(inputs)
    }
}

/// `file:line:column` of byte `offset` of `source`.
fn at(file: &str, source: &str, offset: usize) -> String {
    let (line, column) = gpudata_names::line_column(source, offset);
    format!("{file}:{line}:{column}")
}

/// naga's parse of `source` (the shader `file`), held first to the bounds of
/// `gpudata_names::wgsl_source_shape` and run on a thread of the stack they ask for: a proc
/// macro that overflows its stack aborts rustc.
///
/// # Errors
/// The message of a compile error: a bound passed, naga's report, or a parse thread that could
/// not start or panicked.
fn parse(source: &str, file: &str) -> Result<naga::Module, String> {
    let shape = gpudata_names::wgsl_source_shape(source).map_err(|problem| {
        format!(
            "the shader `{file}` is past gpudata's bound on what naga reads, at {}: {}",
            at(file, source, problem.at),
            problem.bound
        )
    })?;
    shape
        .run_parse(|| naga::front::wgsl::parse_str(source))
        .map_err(|e| format!("the shader `{file}`: {e}"))?
        .map_err(|e| {
            // naga's own report: its message, `file:line:column` and the line marked.
            format!(
                "the shader `{file}` does not parse:\n{}",
                e.emit_to_string_with_path(source, file).trim_end()
            )
        })
}
