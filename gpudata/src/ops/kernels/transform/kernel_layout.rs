//! What a row-transform kernel is made of, apart from what its rows compute: its bindings,
//! sources and outputs, what goes through workgroup memory, and where its uniform's entries lie
//! ([`KernelLayout`]). The planner fills it in; [`wgsl_gen`](super::wgsl_gen) writes its text.

/// One storage binding: a read-only source range or an output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BindingDecl {
    /// Element size in bytes: 4, 8 or 16.
    pub unit: u32,
    /// Whether the binding is read-only.
    pub read_only: bool,
}

/// One source: rows read from a binding with a fixed stride.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SourceDecl {
    /// Index into [`KernelLayout::bindings`].
    pub binding: usize,
    /// Load unit in bytes (the binding's element size).
    pub unit: u32,
    /// Bytes between rows.
    pub stride: u64,
    /// Byte position of the source's first row inside its first load unit.
    pub phase: u64,
}

/// One output: `G` rows of `row_stride` bytes per invocation, stored in units of `unit` bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OutputDecl {
    /// Index into [`KernelLayout::bindings`].
    pub binding: usize,
    /// Store unit in bytes.
    pub unit: u32,
    /// Bytes per output row.
    pub row_stride: u64,
}

/// Everything about a kernel except what its rows compute.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KernelLayout {
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// Rows per invocation (`G`).
    pub rows_per_thread: u32,
    /// Storage bindings, numbered from 1 (binding 0 is the uniform `P`).
    pub bindings: Vec<BindingDecl>,
    /// Sources.
    pub sources: Vec<SourceDecl>,
    /// Outputs.
    pub outputs: Vec<OutputDecl>,
    /// Constant operands (each one `vec4<u32>` of `P`).
    pub constants: usize,
    /// Per source: read through workgroup memory (see [`StagedSource`]), or directly.
    pub staged_sources: Vec<Option<StagedSource>>,
    /// Per output: written through workgroup memory (see [`StagedOutput`]), or directly.
    pub staged_outputs: Vec<Option<StagedOutput>>,
    /// `vec4<u32>` elements of the workgroup array (0: no staging).
    pub stage_len: u64,
    /// Whether the outputs are ranges of existing buffers (see the module documentation).
    pub placed: bool,
}

/// A source whose rows the workgroup loads together, in consecutive `vec4<u32>`s (fully
/// coalesced), before each invocation takes its own `chunks` of them from workgroup memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StagedSource {
    /// First element in the workgroup array.
    pub offset: u64,
    /// `vec4<u32>`s from one invocation's rows to the next's (`G × stride / 16`).
    pub chunks: u64,
    /// Elements the workgroup loads.
    pub len: u64,
}

/// Elements between two invocations' chunks in the workgroup array: `chunks`, plus one when it
/// is a multiple of 4, so that the eight invocations a `vec4` access serves at once do not all
/// hit the same group of banks (an 8-way conflict at 8 chunks). Two-way conflicts are left:
/// padding them away measured slower on an H200.
pub(crate) const fn pitch(chunks: u64) -> u64 {
    if chunks.is_multiple_of(4) {
        chunks + 1
    } else {
        chunks
    }
}

/// An output whose invocations put their `chunks` `vec4<u32>`s in workgroup memory, from where
/// the workgroup stores them in consecutive elements (fully coalesced).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StagedOutput {
    /// First element in the workgroup array.
    pub offset: u64,
    /// `vec4<u32>`s per invocation (`G × row stride / 16`).
    pub chunks: u64,
}

impl KernelLayout {
    /// The `vec4<u32>` entry of `P` where a placed kernel's output bases begin.
    pub(crate) fn output_base(&self) -> usize {
        1 + self.sources.len().div_ceil(4)
    }

    /// `vec4<u32>` entries of `P` before the constants.
    pub(crate) fn constant_base(&self) -> usize {
        let outputs = if self.placed {
            self.outputs.len().div_ceil(4)
        } else {
            0
        };
        self.output_base() + outputs
    }

    /// `vec4<u32>` entries of `P`.
    pub(crate) fn param_len(&self) -> usize {
        self.constant_base() + self.constants
    }
}
