//! The one kernel shape every operation is generated in: a *row transform*.
//!
//! Each invocation handles `G` consecutive rows (`rows_per_thread`). It loads the bytes of its
//! rows from each *source* (a buffer range read with a fixed row stride) in the widest aligned
//! unit the layout allows (`vec4<u32>`, `vec2<u32>` or `u32`), lets the operation's [`Body`]
//! turn the units of each row into output units, assembles those into whole 32-bit words and
//! writes the `G` rows of every *output* with the widest aligned stores. `G` is chosen so that
//! every output's `G` rows are a whole number of 16-byte chunks and every source's `G` rows a
//! whole number of words, so no two invocations ever write the same word and 8- and 16-bit
//! values need no atomics.
//!
//! Strides and the phase of each source's offset inside its load unit are fixed when the text is
//! generated (they are part of the cache key); row counts and offsets arrive at run time in a
//! uniform array `P`, so one pipeline serves every length and every offset with the same phase.
//!
//! `P[0].x` is the row count, `P[0].y` the invocation count; source `i`'s base (in load units)
//! is `P[1 + i / 4][i % 4]`; constant `j` is the `vec4<u32>` `P[constant_base + j]`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Declared type of a storage binding's elements, by unit size in bytes.
fn element_type(unit: u32) -> &'static str {
    match unit {
        16 => "vec4<u32>",
        8 => "vec2<u32>",
        _ => "u32",
    }
}

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
}

impl KernelLayout {
    /// `vec4<u32>` entries of `P` before the constants.
    pub(crate) fn constant_base(&self) -> usize {
        1 + self.sources.len().div_ceil(4)
    }

    /// `vec4<u32>` entries of `P`.
    pub(crate) fn param_len(&self) -> usize {
        self.constant_base() + self.constants
    }
}

/// Where a value sits: a source, and the value's byte offset from the start of that source's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueRef {
    /// Index into [`KernelLayout::sources`].
    pub source: usize,
    /// Byte offset of the value inside the source's row.
    pub rel: u64,
}

/// A piece of an output row: `size` bytes (1, 2 or 4) at `byte` of output `output`'s row; `expr`
/// is a `u32` WGSL expression whose bits above `8 * size` are zero.
struct OutUnit {
    output: usize,
    byte: u64,
    size: u32,
    expr: String,
}

/// What an operation's row code is written against.
pub(crate) struct RowCtx<'k> {
    layout: &'k KernelLayout,
    g: u32,
    stmts: String,
    chunks: &'k mut BTreeSet<(usize, u64)>,
    out: Vec<OutUnit>,
    names: usize,
}

impl RowCtx<'_> {
    /// The raw bits of the `size`-byte unit `byte` bytes into the value at `value`, as a `u32`
    /// expression (zero-extended).
    pub(crate) fn unit(&mut self, value: ValueRef, byte: u64, size: u32) -> String {
        let source = &self.layout.sources[value.source];
        let rel = source.phase + u64::from(self.g) * source.stride + value.rel + byte;
        let unit = u64::from(source.unit);
        let chunk = rel / unit;
        self.chunks.insert((value.source, chunk));
        let chunk_name = format!("s{}c{}", value.source, chunk);
        let word = match source.unit {
            16 => format!(
                "{chunk_name}.{}",
                ["x", "y", "z", "w"][((rel % 16) / 4) as usize]
            ),
            8 => format!("{chunk_name}.{}", ["x", "y"][((rel % 8) / 4) as usize]),
            _ => chunk_name,
        };
        let shift = (rel % 4) * 8;
        match size {
            4 => word,
            _ => {
                let mask = if size == 1 { "0xffu" } else { "0xffffu" };
                if shift == 0 {
                    format!("({word} & {mask})")
                } else {
                    format!("(({word} >> {shift}u) & {mask})")
                }
            }
        }
    }

    /// Binds `expr` to a fresh name for this row and returns the name.
    pub(crate) fn bind(&mut self, expr: &str) -> String {
        let name = format!("v{}_{}", self.names, self.g);
        self.names += 1;
        let _ = writeln!(self.stmts, "    let {name} = {expr};");
        name
    }

    /// Lane `lane` (0..4) of constant `index`, as raw `u32` bits.
    pub(crate) fn constant(&self, index: usize, lane: u32) -> String {
        let entry = self.layout.constant_base() + index;
        format!("P[{entry}].{}", ["x", "y", "z", "w"][lane as usize])
    }

    /// Writes `size` bytes (1, 2 or 4) of `expr` (a `u32` whose higher bits are zero) at `byte`
    /// of output `output`'s row.
    pub(crate) fn emit(&mut self, output: usize, byte: u64, size: u32, expr: String) {
        self.out.push(OutUnit {
            output,
            byte,
            size,
            expr,
        });
    }
}

/// An operation's per-row code.
pub(crate) trait Body {
    /// Writes the code of one row through `ctx`.
    fn row(&self, ctx: &mut RowCtx<'_>);

    /// WGSL functions the row code calls.
    fn helpers(&self) -> String {
        String::new()
    }
}

/// The WGSL text of the kernel.
pub(crate) fn generate(layout: &KernelLayout, body: &dyn Body) -> String {
    let g_rows = layout.rows_per_thread;
    let mut chunks = BTreeSet::new();
    let mut rows = Vec::with_capacity(g_rows as usize);
    let mut names = 0;
    for g in 0..g_rows {
        let mut ctx = RowCtx {
            layout,
            g,
            stmts: String::new(),
            chunks: &mut chunks,
            out: Vec::new(),
            names,
        };
        body.row(&mut ctx);
        names = ctx.names;
        rows.push((ctx.stmts, ctx.out));
    }

    let mut s = String::new();
    let _ = writeln!(s, "// gpudata row transform: {g_rows} rows per invocation");
    let _ = writeln!(
        s,
        "@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {}>;",
        layout.param_len()
    );
    for (i, binding) in layout.bindings.iter().enumerate() {
        let access = if binding.read_only {
            "read"
        } else {
            "read_write"
        };
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, {access}> b{}: array<{}>;",
            i + 1,
            i + 1,
            element_type(binding.unit)
        );
    }
    s.push_str(&body.helpers());
    let _ = writeln!(s, "@compute @workgroup_size({})", layout.workgroup_size);
    let _ = writeln!(
        s,
        "fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{"
    );
    let _ = writeln!(
        s,
        "    let t = (wid.y * nwg.x + wid.x) * {}u + lid;",
        layout.workgroup_size
    );
    s.push_str("    if (t >= P[0].y) { return; }\n");
    if g_rows > 1 {
        let _ = writeln!(s, "    let r0 = t * {g_rows}u;");
        s.push_str("    let n = P[0].x;\n");
    }
    for (i, source) in layout.sources.iter().enumerate() {
        let step = u64::from(g_rows) * source.stride / u64::from(source.unit);
        let _ = writeln!(
            s,
            "    let base{i} = P[{}].{} + t * {step}u;",
            1 + i / 4,
            ["x", "y", "z", "w"][i % 4]
        );
    }
    for (source, chunk) in &chunks {
        let binding = layout.sources[*source].binding + 1;
        let _ = writeln!(
            s,
            "    let s{source}c{chunk} = b{binding}[base{source} + {chunk}u];"
        );
    }

    // Output words: (output, word) -> pieces.
    let mut words: Vec<Vec<Vec<String>>> = layout
        .outputs
        .iter()
        .map(|o| vec![Vec::new(); (u64::from(g_rows) * o.row_stride / 4) as usize])
        .collect();
    for (g, (stmts, out)) in rows.iter().enumerate() {
        s.push_str(stmts);
        let valid = if g_rows > 1 && g > 0 {
            let name = format!("ok{g}");
            let _ = writeln!(s, "    let {name} = r0 + {g}u < n;");
            Some(name)
        } else {
            None
        };
        for unit in out {
            let output = &layout.outputs[unit.output];
            let byte = g as u64 * output.row_stride + unit.byte;
            let shift = (byte % 4) * 8;
            let mut piece = if shift == 0 {
                unit.expr.clone()
            } else {
                format!("({} << {shift}u)", unit.expr)
            };
            if let Some(valid) = &valid {
                piece = format!("select(0u, {piece}, {valid})");
            }
            debug_assert!(shift + u64::from(unit.size) * 8 <= 32);
            words[unit.output][(byte / 4) as usize].push(piece);
        }
    }
    for (o, output) in layout.outputs.iter().enumerate() {
        let binding = output.binding + 1;
        let per_unit = (output.unit / 4) as usize;
        let step = u64::from(g_rows) * output.row_stride / u64::from(output.unit);
        let word = |w: usize| -> String {
            let pieces = &words[o][w];
            if pieces.is_empty() {
                "0u".to_owned()
            } else {
                pieces.join(" | ")
            }
        };
        for (k, start) in (0..words[o].len()).step_by(per_unit).enumerate() {
            let value = match per_unit {
                4 => format!(
                    "vec4<u32>({}, {}, {}, {})",
                    word(start),
                    word(start + 1),
                    word(start + 2),
                    word(start + 3)
                ),
                2 => format!("vec2<u32>({}, {})", word(start), word(start + 1)),
                _ => word(start),
            };
            let _ = writeln!(s, "    b{binding}[t * {step}u + {k}u] = {value};");
        }
    }
    s.push_str("}\n");
    s
}
