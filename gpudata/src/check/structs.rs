//! Host struct formats against WGSL structs: member names, types, offsets and the stride.

use naga::{Handle, Type, TypeInner};

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch};
use super::shader::Shader;
use crate::layout::{AddressSpace, GpuDataStructFormat, StructDecl, StructLayout};
use crate::record::HostShape;
use crate::record::shader_rules::{one_value_size_agrees, storage_accepts};

/// How the rows a struct check compares step on the shader's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowStep {
    /// The one value of a struct global, of this many bytes: host rows may be that size or,
    /// as a host `wgsl-uniform` struct measures it, that size rounded up to 16
    /// ([`one_value_size_agrees`]).
    One(u64),
    /// Elements of an array (or rows of a buffer), this many bytes apart: the host's stride
    /// must be the same.
    Array(u64),
}

impl RowStep {
    /// The shader's bytes per row.
    pub(super) const fn bytes(self) -> u64 {
        match self {
            RowStep::One(bytes) | RowStep::Array(bytes) => bytes,
        }
    }

    /// Whether host rows of `host` bytes step as the shader's do.
    pub(super) const fn agrees(self, host: u64) -> bool {
        match self {
            RowStep::One(bytes) => one_value_size_agrees(host, bytes),
            RowStep::Array(bytes) => host == bytes,
        }
    }
}

impl Shader {
    /// Checks `host` (a derived `T::FORMAT` or a run-time struct format) against the WGSL struct
    /// `shader_struct`: every host field has a member of its name (`#[gpu(name = "...")]` maps
    /// a field to another name) whose type stores the field's format
    /// ([`VertexFormat::wgsl_carrier`](crate::VertexFormat::wgsl_carrier)) at the same offset,
    /// every member has a host field, and the host stride equals the struct's size.
    ///
    /// ```
    /// use gpudata::check::{MismatchError, Shader, ShaderCheckError};
    /// use gpudata::{GpuDataStructFormat, StructLayout};
    ///
    /// let shader = Shader::parse("struct Particle { mass: f32, velocity: vec3<f32> }")?;
    /// let host = GpuDataStructFormat::parse(
    ///     StructLayout::Packed,
    ///     [("mass", "float32"), ("velocity", "float32x3")],
    /// )?;
    /// let Err(ShaderCheckError::Mismatches { mismatches, .. }) =
    ///     shader.check_struct_format(&host, "Particle")
    /// else {
    ///     panic!("packed rows are not WGSL's")
    /// };
    /// assert_eq!(mismatches[0].path, "velocity");
    /// assert!(matches!(mismatches[0].error, MismatchError::Offset { host: 4, shader: 16, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingStruct`]; [`ShaderCheckError::Mismatches`] listing every
    /// [`MismatchError::Offset`], [`MismatchError::Type`], [`MismatchError::MissingInShader`],
    /// [`MismatchError::MissingOnHost`] and [`MismatchError::Stride`].
    pub fn check_struct_format(
        &self,
        host: &GpuDataStructFormat,
        shader_struct: &str,
    ) -> Result<(), ShaderCheckError> {
        let ty = self.required_struct(shader_struct)?;
        let mut mismatches = Vec::new();
        let (size, _) = self.size_align(ty);
        self.compare_rows(host, ty, "", RowStep::Array(size), &mut mismatches);
        finish(format!("struct {shader_struct}"), mismatches)
    }

    /// Checks a derived type against the WGSL struct `shader_struct`. A struct that is not
    /// `packed` is compared as its type tree, level by level, as
    /// [`check_struct_decl`](Self::check_struct_decl) compares one (nested structs, matrices,
    /// fixed arrays, atomics, a runtime-sized tail; paths such as `lights[].color`), each
    /// vertex-format field by the type that stores its format; a `packed` struct's flat rows
    /// as [`check_struct_format`](Self::check_struct_format) with `T::FORMAT`.
    ///
    /// # Errors
    /// As [`check_struct_format`](Self::check_struct_format).
    pub fn check_struct<T: crate::GpuStruct>(
        &self,
        shader_struct: &str,
    ) -> Result<(), ShaderCheckError> {
        let Some(tree) = HostTree::of::<T>() else {
            return self.check_struct_format(T::FORMAT, shader_struct);
        };
        self.check_tree(&tree.decl, Some(tree.shape), tree.space, shader_struct)
    }

    /// Compares `host` rows with the struct `ty`, whose rows step as `step` says (the one value
    /// of a struct global, or an array's elements), naming fields `{prefix}{name}`.
    pub(super) fn compare_rows(
        &self,
        host: &GpuDataStructFormat,
        ty: Handle<Type>,
        prefix: &str,
        step: RowStep,
        out: &mut Vec<ShaderMismatch>,
    ) {
        let TypeInner::Struct { members, .. } = &self.module().types[ty].inner else {
            return;
        };
        let span = self.module().types.get_span(ty);
        let struct_name = self.type_text(ty);
        for field in host.fields() {
            let path = format!("{prefix}{}", field.name());
            let Some(member) = members
                .iter()
                .find(|m| m.name.as_deref() == Some(field.name()))
            else {
                out.push(ShaderMismatch {
                    path,
                    location: self.span_location(span),
                    error: MismatchError::MissingInShader {
                        shader_struct: struct_name.clone(),
                    },
                });
                continue;
            };
            let location = self.declaration_in(span, field.name());
            let accepted = self
                .value_type(member.ty)
                .is_some_and(|t| storage_accepts(field.format(), t));
            if !accepted {
                out.push(ShaderMismatch {
                    path,
                    location,
                    error: MismatchError::Type {
                        format: field.format(),
                        carrier: field.format().wgsl_carrier().to_string(),
                        shader_type: self.type_text(member.ty),
                    },
                });
                continue;
            }
            let shader = u64::from(member.offset);
            if shader != field.byte_offset() {
                let (_, align) = self.size_align(member.ty);
                out.push(ShaderMismatch {
                    path,
                    location,
                    error: MismatchError::Offset {
                        host: field.byte_offset(),
                        shader,
                        shader_type: self.type_text(member.ty),
                        align,
                    },
                });
            }
        }
        for member in members {
            let name = member.name.as_deref().unwrap_or("");
            if host.field(name).is_none() {
                out.push(ShaderMismatch {
                    path: format!("{prefix}{name}"),
                    location: self.declaration_in(span, name),
                    error: MismatchError::MissingOnHost {
                        shader_type: self.type_text(member.ty),
                        offset: u64::from(member.offset),
                    },
                });
            }
        }
        if !step.agrees(host.byte_stride()) {
            out.push(ShaderMismatch {
                path: format!("{prefix}{struct_name}"),
                location: self.span_location(span),
                error: MismatchError::Stride {
                    host: host.byte_stride(),
                    shader: step.bytes(),
                },
            });
        }
    }
}

/// A derived type's tree: its declaration, where its GPU bytes lie, and its rules.
pub(super) struct HostTree {
    pub(super) decl: StructDecl,
    pub(super) shape: &'static HostShape,
    pub(super) space: AddressSpace,
}

impl HostTree {
    /// `T`'s tree, when it has one ([`GpuStruct::TREE`](crate::GpuStruct)).
    pub(super) fn of<T: crate::GpuStruct>() -> Option<HostTree> {
        let (decl, shape) = T::TREE?;
        let space = match T::FORMAT.layout() {
            StructLayout::WgslUniform => AddressSpace::Uniform,
            _ => AddressSpace::Storage,
        };
        Some(HostTree {
            decl: StructDecl::from(decl),
            shape,
            space,
        })
    }
}

/// `Ok` for no mismatches, else all of them about `subject`.
pub(super) fn finish(
    subject: String,
    mismatches: Vec<ShaderMismatch>,
) -> Result<(), ShaderCheckError> {
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(ShaderCheckError::Mismatches {
            subject,
            mismatches,
        })
    }
}
