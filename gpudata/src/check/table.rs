//! A table's render and storage bindings against the entry points that use them.

use naga::{AddressSpace, StorageAccess};

use super::error::{MismatchError, ShaderCheckError, ShaderMismatch};
use super::globals::{HostBinding, space_text};
use super::shader::Shader;
use super::structs::finish;
use super::vertex::VertexBufferInput;
use super::vertex_state::buffer_problems;
use crate::table::{BatchStorage, TableRenderBindings};

impl Shader {
    /// Checks a table's render bindings ([`GpuTable::render_bindings`](crate::GpuTable::render_bindings))
    /// against the vertex entry point `entry`: as
    /// [`check_vertex_inputs`](Self::check_vertex_inputs) over the table's vertex buffers (the
    /// device's limits aside), and
    /// each column's name equals the name of the input at its location
    /// ([`MismatchError::InputName`]), since a table assigns locations by column name.
    ///
    /// # Errors
    /// As [`check_vertex_inputs`](Self::check_vertex_inputs), plus [`MismatchError::InputName`].
    pub fn check_render_bindings(
        &self,
        entry: &str,
        bindings: &TableRenderBindings,
    ) -> Result<(), ShaderCheckError> {
        let buffers = VertexBufferInput::from_vertex_layout(bindings.vertex_layout());
        let mut mismatches = Vec::new();
        buffer_problems(&buffers, None, &mut mismatches);
        self.compare_vertex_inputs(entry, &buffers, true, &mut mismatches)?;
        finish(format!("table render bindings for {entry}"), mismatches)
    }

    /// Checks one batch's storage bindings ([`BatchStorage::bind_group_entries`](crate::table::BatchStorage::bind_group_entries) from
    /// `first_binding` in `group`) against the shader's globals: a read-only storage buffer at
    /// each column's binding, a uniform buffer at each constant's, each needing no more bytes
    /// than the binding holds ([`MismatchError::BindingSize`]).
    ///
    /// # Errors
    /// [`ShaderCheckError::Mismatches`] listing [`MismatchError::NoBinding`],
    /// [`MismatchError::AddressSpace`] and [`MismatchError::BindingSize`].
    pub fn check_storage_bindings(
        &self,
        batch: &BatchStorage,
        group: u32,
        first_binding: u32,
    ) -> Result<(), ShaderCheckError> {
        let columns = batch.columns().iter().map(|c| (c.name(), c.size(), true));
        let constants = batch
            .constants()
            .iter()
            .map(|c| (c.name(), c.buffer().size(), false));
        let mut mismatches = Vec::new();
        for ((name, bound, storage), binding) in columns.chain(constants).zip(first_binding..) {
            let at = HostBinding { group, binding };
            let Some((handle, global)) = self.global_at(at) else {
                mismatches.push(ShaderMismatch {
                    path: name.to_owned(),
                    location: None,
                    error: MismatchError::NoBinding { group, binding },
                });
                continue;
            };
            let location = self.span_location(self.module().global_variables.get_span(handle));
            let space_ok = match global.space {
                AddressSpace::Storage { access } => {
                    storage && !access.contains(StorageAccess::STORE)
                }
                AddressSpace::Uniform => !storage,
                _ => false,
            };
            if !space_ok {
                mismatches.push(ShaderMismatch {
                    path: name.to_owned(),
                    location,
                    error: MismatchError::AddressSpace {
                        host: if storage { "storage, read" } else { "uniform" }.to_owned(),
                        shader: space_text(global.space),
                    },
                });
            }
            let required = self.minimum_binding_size(global.ty);
            if required > bound {
                mismatches.push(ShaderMismatch {
                    path: name.to_owned(),
                    location,
                    error: MismatchError::BindingSize {
                        bound,
                        required,
                        shader_type: self.type_text(global.ty),
                    },
                });
            }
        }
        finish("table storage bindings".to_owned(), mismatches)
    }
}
