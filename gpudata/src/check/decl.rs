//! Host type trees ([`StructDecl`]: nested structs, matrices, atomics, fixed and runtime-sized
//! arrays, `@align`/`@size`) against WGSL structs, member by member and level by level.

use naga::{ArraySize, Handle, Type, TypeInner};

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch};
use super::shader::Shader;
use super::structs::finish;
use crate::layout::{AddressSpace, StructDecl, TypeDecl, array_layout};
use crate::record::HostShape;
use crate::record::shader_rules::{storage_accepts, struct_size_agrees};

/// `ty` as WGSL writes it, for messages.
fn decl_text(ty: &TypeDecl) -> String {
    match ty {
        TypeDecl::Leaf(leaf) => leaf.to_string(),
        TypeDecl::Array {
            element,
            count: Some(n),
        } => format!("array<{}, {n}>", decl_text(element)),
        TypeDecl::Array {
            element,
            count: None,
        } => format!("array<{}>", decl_text(element)),
        TypeDecl::Struct(s) => s.name.clone(),
    }
}

impl Shader {
    /// Checks a host type tree against the WGSL struct `shader_struct`: at every level, members
    /// by name, their offsets (the host's under `space`'s rules, `@align`/`@size` included),
    /// types (leaves equal; arrays of equal count and stride, element by element; nested structs
    /// recursively), members on one side only, and each struct's size. Paths name the level
    /// (`lights[].color`).
    ///
    /// ```
    /// use gpudata::check::Shader;
    /// use gpudata::layout::{AddressSpace, StructDecl};
    ///
    /// let host = StructDecl::parse("Light", "position: vec3<f32>, color: vec4<f32>, view: mat4x4<f32>")?;
    /// let shader = Shader::parse(
    ///     "struct Light { position: vec3<f32>, color: vec4<f32>, view: mat4x4<f32> }",
    /// )?;
    /// shader.check_struct_decl(&host, AddressSpace::Storage, "Light")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingStruct`]; [`ShaderCheckError::HostLayout`] when the host tree
    /// has no layout under `space`; [`ShaderCheckError::Mismatches`] listing
    /// [`MismatchError::Offset`], [`MismatchError::DeclType`], [`MismatchError::MissingInShader`],
    /// [`MismatchError::MissingOnHost`] and [`MismatchError::Stride`] (a struct's size or an
    /// array's stride).
    pub fn check_struct_decl(
        &self,
        host: &StructDecl,
        space: AddressSpace,
        shader_struct: &str,
    ) -> Result<(), ShaderCheckError> {
        self.check_tree(host, None, space, shader_struct)
    }

    /// [`check_struct_decl`](Self::check_struct_decl), with a derived type's host shape when
    /// `shape` is given (see [`compare_decl`](Self::compare_decl)).
    pub(super) fn check_tree(
        &self,
        host: &StructDecl,
        shape: Option<&HostShape>,
        space: AddressSpace,
        shader_struct: &str,
    ) -> Result<(), ShaderCheckError> {
        let ty = self.required_struct(shader_struct)?;
        let mut mismatches = Vec::new();
        self.compare_decl(host, shape, ty, space, "", &mut mismatches)?;
        finish(format!("struct {shader_struct}"), mismatches)
    }

    /// Compares the host struct `host` with the struct `ty`, naming members `{prefix}{name}`.
    /// With `shape` (a derived type's, [`GpuStruct::TREE`](crate::GpuStruct)), a vertex-format
    /// field is compared as [`check_struct_format`](Self::check_struct_format) compares it:
    /// any type that stores its format.
    pub(super) fn compare_decl(
        &self,
        host: &StructDecl,
        shape: Option<&HostShape>,
        ty: Handle<Type>,
        space: AddressSpace,
        prefix: &str,
        out: &mut Vec<ShaderMismatch>,
    ) -> Result<(), ShaderCheckError> {
        let TypeInner::Struct {
            members,
            span: size,
        } = &self.module().types[ty].inner
        else {
            return Ok(());
        };
        let (placements, layout) = host.placements(space)?;
        let span = self.module().types.get_span(ty);
        let struct_name = self.type_text(ty);
        let shapes = match shape {
            Some(HostShape::Struct { members, .. }) => *members,
            _ => &[],
        };
        for (i, (member, placement)) in host.members.iter().zip(&placements).enumerate() {
            let path = format!("{prefix}{}", member.name);
            let Some(shader) = members
                .iter()
                .find(|m| m.name.as_deref() == Some(&member.name))
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
            let location = self.declaration_in(span, &member.name);
            let offset = u64::from(shader.offset);
            if offset != placement.offset {
                let (_, align) = self.size_align(shader.ty);
                out.push(ShaderMismatch {
                    path: path.clone(),
                    location,
                    error: MismatchError::Offset {
                        host: placement.offset,
                        shader: offset,
                        shader_type: self.type_text(shader.ty),
                        align,
                    },
                });
            }
            let shape = shapes.get(i).map(|m| &m.shape);
            self.compare_type(&member.ty, shape, shader.ty, space, &path, location, out)?;
        }
        for member in members {
            let name = member.name.as_deref().unwrap_or("");
            if !host.members.iter().any(|m| m.name == name) {
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
        if !struct_size_agrees(space, layout.size, u64::from(*size)) {
            out.push(ShaderMismatch {
                path: format!("{prefix}{struct_name}"),
                location: self.span_location(span),
                error: MismatchError::Stride {
                    host: layout.size,
                    shader: u64::from(*size),
                },
            });
        }
        Ok(())
    }

    /// Compares one member's type (its GPU bytes located by `shape`, when known); `path` names
    /// it, `location` is its declaration.
    #[allow(
        clippy::too_many_arguments,
        reason = "one level of the walk: both sides, the rules, and where to report"
    )]
    pub(super) fn compare_type(
        &self,
        host: &TypeDecl,
        shape: Option<&HostShape>,
        shader: Handle<Type>,
        space: AddressSpace,
        path: &str,
        location: Option<super::WgslLocation>,
        out: &mut Vec<ShaderMismatch>,
    ) -> Result<(), ShaderCheckError> {
        let differs = |out: &mut Vec<ShaderMismatch>| {
            out.push(ShaderMismatch {
                path: path.to_owned(),
                location,
                error: MismatchError::DeclType {
                    host: decl_text(host),
                    shader_type: self.type_text(shader),
                },
            });
        };
        match (host, &self.module().types[shader].inner) {
            (TypeDecl::Leaf(leaf), _) => match shape {
                Some(HostShape::Field(format)) => {
                    let stores = self
                        .value_type(shader)
                        .is_some_and(|t| storage_accepts(*format, t));
                    if self.leaf(shader) != Some(*leaf) && !stores {
                        out.push(ShaderMismatch {
                            path: path.to_owned(),
                            location,
                            error: MismatchError::Type {
                                format: *format,
                                carrier: format.wgsl_carrier().to_string(),
                                shader_type: self.type_text(shader),
                            },
                        });
                    }
                }
                _ => {
                    if self.leaf(shader) != Some(*leaf) {
                        differs(out);
                    }
                }
            },
            (TypeDecl::Array { element, count }, TypeInner::Array { base, size, stride }) => {
                let same_count = match (count, size) {
                    (Some(n), ArraySize::Constant(m)) => *n == m.get(),
                    (None, ArraySize::Dynamic) => true,
                    _ => false,
                };
                if !same_count {
                    differs(out);
                    return Ok(());
                }
                let inner = element.layout(space)?;
                let host_stride =
                    array_layout(inner, Some(1), space).map_or(inner.stride(), |l| l.size);
                let element_path = format!("{path}[]");
                if host_stride != u64::from(*stride) {
                    out.push(ShaderMismatch {
                        path: element_path.clone(),
                        location,
                        error: MismatchError::Stride {
                            host: host_stride,
                            shader: u64::from(*stride),
                        },
                    });
                }
                let element_shape = match shape {
                    Some(HostShape::Array { element, .. }) => Some(*element),
                    _ => None,
                };
                self.compare_type(
                    element,
                    element_shape,
                    *base,
                    space,
                    &element_path,
                    location,
                    out,
                )?;
            }
            (TypeDecl::Struct(s), TypeInner::Struct { .. }) => {
                self.compare_decl(s, shape, shader, space, &format!("{path}."), out)?;
            }
            _ => differs(out),
        }
        Ok(())
    }
}
