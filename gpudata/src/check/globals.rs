//! Host types against WGSL uniform and storage globals: the `@group`/`@binding`, the address
//! space, and the rows the global's type holds.

use naga::{AddressSpace, ArraySize, GlobalVariable, Handle, Type, TypeInner};

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch};
use super::shader::Shader;
use super::structs::{HostTree, RowStep, finish};
use crate::layout::GpuDataStructFormat;

/// Where the host binds a buffer: `@group(group) @binding(binding)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostBinding {
    /// The bind group index.
    pub group: u32,
    /// The binding inside the group.
    pub binding: u32,
}

/// WGSL's spelling of an address space with its access mode (`storage, read_write`).
pub(super) fn space_text(space: AddressSpace) -> String {
    match naga::common::wgsl::address_space_str(space) {
        (Some(space), Some(access)) => format!("{space}, {access}"),
        (Some(space), None) => space.to_owned(),
        (None, _) => "handle".to_owned(),
    }
}

impl Shader {
    /// The global named `name`.
    pub(super) fn global_named(
        &self,
        name: &str,
    ) -> Option<(Handle<GlobalVariable>, &GlobalVariable)> {
        self.module()
            .global_variables
            .iter()
            .find(|(_, g)| g.name.as_deref() == Some(name))
    }

    /// The global bound at `binding`.
    pub(super) fn global_at(
        &self,
        binding: HostBinding,
    ) -> Option<(Handle<GlobalVariable>, &GlobalVariable)> {
        self.module().global_variables.iter().find(|(_, g)| {
            g.binding
                .as_ref()
                .is_some_and(|b| b.group == binding.group && b.binding == binding.binding)
        })
    }

    /// The rows `ty` holds: a struct itself (stepping by its size), an array of structs (by
    /// the array stride), or the runtime-sized array of structs ending a struct (the tail);
    /// with the path suffix naming them.
    fn rows_of(&self, ty: Handle<Type>) -> Option<(Handle<Type>, RowStep, String)> {
        let types = &self.module().types;
        match &types[ty].inner {
            TypeInner::Array { base, stride, .. } => {
                matches!(types[*base].inner, TypeInner::Struct { .. })
                    .then(|| (*base, RowStep::Array(u64::from(*stride)), "[].".to_owned()))
            }
            TypeInner::Struct { members, .. } => {
                let tail = members.last().and_then(|last| match &types[last.ty].inner {
                    TypeInner::Array {
                        base,
                        stride,
                        size: ArraySize::Dynamic,
                    } if matches!(types[*base].inner, TypeInner::Struct { .. }) => Some((
                        *base,
                        RowStep::Array(u64::from(*stride)),
                        format!(".{}[].", last.name.as_deref().unwrap_or("")),
                    )),
                    _ => None,
                });
                tail.or_else(|| Some((ty, RowStep::One(self.size_align(ty).0), ".".to_owned())))
            }
            _ => None,
        }
    }

    /// Checks the host rows `host`, bound at `binding`, against the uniform or storage global
    /// `name`: the global's `@group`/`@binding`, its address space, and the struct rows its
    /// type holds (the global's struct, the element of an `array<S>`, or the element of the
    /// runtime-sized array ending its struct, stepping by the array stride), compared as
    /// [`check_struct_format`](Self::check_struct_format) does. A header before a runtime tail
    /// is not compared.
    ///
    /// ```
    /// use gpudata::check::{HostBinding, Shader};
    /// use gpudata::{GpuDataStructFormat, StructLayout};
    ///
    /// let shader = Shader::parse(
    ///     "struct Particle { position: vec3<f32>, mass: f32 }
    ///      struct Particles { count: u32, items: array<Particle> }
    ///      @group(0) @binding(1) var<storage, read_write> particles: Particles;",
    /// )?;
    /// let host = GpuDataStructFormat::parse(
    ///     StructLayout::WgslStorage,
    ///     [("position", "float32x3"), ("mass", "float32")],
    /// )?;
    /// shader.check_global_format(&host, "particles", HostBinding { group: 0, binding: 1 })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingGlobal`]; [`ShaderCheckError::Mismatches`] listing
    /// [`MismatchError::Binding`], [`MismatchError::AddressSpace`],
    /// [`MismatchError::GlobalType`] and the struct check's mismatches.
    pub fn check_global_format(
        &self,
        host: &GpuDataStructFormat,
        name: &str,
        binding: HostBinding,
    ) -> Result<(), ShaderCheckError> {
        self.check_global_rows(name, binding, |shader, row, stride, prefix, out| {
            shader.compare_rows(host, row, prefix, stride, out);
            Ok(())
        })
    }

    /// The global checks of [`check_global_format`](Self::check_global_format), with `rows`
    /// comparing the host rows to the struct the global holds (its handle, stride and path).
    fn check_global_rows(
        &self,
        name: &str,
        binding: HostBinding,
        rows: impl FnOnce(
            &Shader,
            Handle<Type>,
            RowStep,
            &str,
            &mut Vec<ShaderMismatch>,
        ) -> Result<(), ShaderCheckError>,
    ) -> Result<(), ShaderCheckError> {
        let (handle, global) =
            self.global_named(name)
                .ok_or_else(|| ShaderCheckError::MissingGlobal {
                    name: name.to_owned(),
                })?;
        let location = self.span_location(self.module().global_variables.get_span(handle));
        let mut mismatches = Vec::new();
        let mismatch = |error| ShaderMismatch {
            path: name.to_owned(),
            location,
            error,
        };
        match &global.binding {
            Some(b) if b.group == binding.group && b.binding == binding.binding => {}
            Some(b) => mismatches.push(mismatch(MismatchError::Binding {
                group: binding.group,
                binding: binding.binding,
                shader_group: b.group,
                shader_binding: b.binding,
            })),
            None => mismatches.push(mismatch(MismatchError::NoBinding {
                group: binding.group,
                binding: binding.binding,
            })),
        }
        if !matches!(
            global.space,
            AddressSpace::Uniform | AddressSpace::Storage { .. }
        ) {
            mismatches.push(mismatch(MismatchError::AddressSpace {
                host: "uniform or storage".to_owned(),
                shader: space_text(global.space),
            }));
        }
        match self.rows_of(global.ty) {
            Some((row, stride, suffix)) => {
                rows(
                    self,
                    row,
                    stride,
                    &format!("{name}{suffix}"),
                    &mut mismatches,
                )?;
            }
            None => mismatches.push(mismatch(MismatchError::GlobalType {
                shader_type: self.type_text(global.ty),
            })),
        }
        finish(format!("global {name}"), mismatches)
    }

    /// Checks a derived type against the global `name`, as
    /// [`check_global_format`](Self::check_global_format) does, its rows compared as
    /// [`check_struct`](Self::check_struct) compares them (a struct that is not `packed` as its
    /// type tree).
    ///
    /// # Errors
    /// As [`check_global_format`](Self::check_global_format).
    pub fn check_global<T: crate::GpuStruct>(
        &self,
        name: &str,
        binding: HostBinding,
    ) -> Result<(), ShaderCheckError> {
        let Some(tree) = HostTree::of::<T>() else {
            return self.check_global_format(T::FORMAT, name, binding);
        };
        self.check_global_rows(name, binding, |shader, row, _, prefix, out| {
            shader.compare_decl(&tree.decl, Some(tree.shape), row, tree.space, prefix, out)
        })
    }

    /// The fewest bytes a binding of the global's type needs: its size, or for a type ending in
    /// a runtime-sized array, everything before the array plus one element.
    pub(super) fn minimum_binding_size(&self, ty: Handle<Type>) -> u64 {
        let types = &self.module().types;
        match &types[ty].inner {
            TypeInner::Array {
                size: ArraySize::Dynamic,
                stride,
                ..
            } => u64::from(*stride),
            TypeInner::Struct { members, .. } => match members.last() {
                Some(last)
                    if matches!(
                        types[last.ty].inner,
                        TypeInner::Array {
                            size: ArraySize::Dynamic,
                            ..
                        }
                    ) =>
                {
                    u64::from(last.offset) + self.minimum_binding_size(last.ty)
                }
                _ => self.size_align(ty).0,
            },
            _ => self.size_align(ty).0,
        }
    }
}
