//! What an operation's row code is written against: its [`Body`], which writes each row's code
//! through a [`RowCtx`] (the raw units of the values it reads, fresh names, constants, the output
//! units it emits); [`wgsl_gen`](super::wgsl_gen) assembles the rows into the kernel.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::kernel_layout::KernelLayout;

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
pub(super) struct OutUnit {
    pub output: usize,
    pub byte: u64,
    pub size: u32,
    pub expr: String,
}

/// What an operation's row code is written against.
pub(crate) struct RowCtx<'k> {
    pub(super) layout: &'k KernelLayout,
    pub(super) g: u32,
    pub(super) stmts: String,
    pub(super) chunks: &'k mut BTreeSet<(usize, u64)>,
    pub(super) out: Vec<OutUnit>,
    pub(super) names: usize,
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

    /// Whether byte `byte` of the value at `value` starts a 32-bit word of its source in this
    /// row (known when the text is generated: strides and phases are fixed).
    pub(crate) fn word_aligned(&self, value: ValueRef, byte: u64) -> bool {
        let source = &self.layout.sources[value.source];
        (source.phase + u64::from(self.g) * source.stride + value.rel + byte).is_multiple_of(4)
    }

    /// Whether byte `byte` of output `output`'s row starts a 32-bit word of the output in this
    /// row.
    pub(crate) fn output_word_aligned(&self, output: usize, byte: u64) -> bool {
        (u64::from(self.g) * self.layout.outputs[output].row_stride + byte).is_multiple_of(4)
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
