//! Binding a table to a pipeline: render bindings (vertex and index buffers), storage bindings
//! and the WGSL accessors that decode every format as vertex fetch would.

pub(crate) mod binding;
pub(crate) mod wgsl;
