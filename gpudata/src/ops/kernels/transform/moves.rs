//! The row code that moves values byte for byte ([`CopyBody`]): what `interleave`,
//! `deinterleave` and every table re-layout run in the row-transform generator.

use super::body::{Body, RowCtx, ValueRef};
use crate::format::VertexFormat;
use crate::ops::kernels::shape::unit_size;

/// One value moved into an output row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    /// Where the value is read.
    pub from: ValueRef,
    /// Which output it goes to.
    pub output: usize,
    /// Its byte offset in the output row.
    pub byte: u64,
    /// The format moved.
    pub format: VertexFormat,
}

/// Row code that copies values unit by unit.
pub(crate) struct CopyBody {
    pub moves: Vec<Move>,
}

impl Body for CopyBody {
    fn row(&self, ctx: &mut RowCtx<'_>) {
        for m in &self.moves {
            let size = unit_size(m.format);
            let length = m.format.byte_length();
            let mut byte = 0;
            while byte < length {
                // Whole words where both sides are word-aligned: 8- and 16-bit components move
                // four or two at a time.
                let step = if byte + 4 <= length
                    && ctx.word_aligned(m.from, byte)
                    && ctx.output_word_aligned(m.output, m.byte + byte)
                {
                    4
                } else {
                    size
                };
                let unit = ctx.unit(m.from, byte, step as u32);
                ctx.emit(m.output, m.byte + byte, step as u32, unit);
                byte += step;
            }
        }
    }
}
