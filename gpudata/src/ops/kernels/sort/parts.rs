//! Columns of a sort bound in parts: every column a pass reads or writes (the input views, the
//! sort's own packed words, the outputs) is split into runs of elements whose bindings fit the
//! device's largest storage binding ([`rows::runs`], the rule every selection kernel splits
//! by), each run bound on its own; a column's parts are its own (a wide-strided input takes
//! more than the packed words). The kernels pick the part of an element by its index
//! (`if (e < split1) {…} else …`, element indices 32-bit), so that the scatter, which writes
//! anywhere, still runs as one dispatch per pass. One part (a column in one binding) is the
//! common case: no comparison at all.
//!
//! The uniform of both kernels of a pass: rows, tiles per block, shift, blocks, the four key
//! masks, the rows stored (`limit`), then for every bound column (*slot*), in binding order,
//! the first element of each of its parts after the first and the byte base of each part.

use crate::ops::OpError;
use crate::ops::kernels::select::rows::{self, Bound, Span};

/// The first parameter after the head and the limit: the slots' splits and bases.
pub(crate) const SLOTS: usize = 9;

/// Where one bound column's parts are in the uniform: `parts` parts, the first element of each
/// part after the first from parameter `first`, then each part's byte base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub parts: usize,
    pub first: usize,
}

impl Slot {
    /// The slots of columns in `parts` parts each, laid out from [`SLOTS`] in order, and the
    /// parameter count of the kernel that binds them.
    pub(crate) fn layout(parts: &[usize]) -> (Vec<Slot>, usize) {
        let mut first = SLOTS;
        let slots = parts
            .iter()
            .map(|&parts| {
                let slot = Slot { parts, first };
                first += slot.params();
                slot
            })
            .collect();
        (slots, first)
    }

    /// The parameters of the slot.
    fn params(&self) -> usize {
        2 * self.parts - 1
    }

    /// The parameter holding the first element of part `p` (at least 1).
    fn split(&self, p: usize) -> usize {
        self.first + p - 1
    }

    /// The parameter holding the byte base of part `p`.
    pub(crate) fn base(&self, p: usize) -> usize {
        self.first + self.parts - 1 + p
    }

    /// WGSL statements running `body(p, local)` for the part `p` that holds element `index`
    /// (a `u32` name), `local` the element's index within the part. Every body but the last
    /// must return.
    pub(crate) fn by_part(&self, index: &str, body: impl Fn(usize, &str) -> String) -> String {
        let mut out = String::new();
        for p in 0..self.parts {
            let local = if p == 0 {
                index.to_owned()
            } else {
                format!("({index} - param({}u))", self.split(p))
            };
            let statement = body(p, &local);
            if p + 1 < self.parts {
                out += &format!(
                    "    if ({index} < param({}u)) {{ {statement} }}\n",
                    self.split(p + 1)
                );
            } else {
                out += &format!("    {statement}\n");
            }
        }
        out
    }

    /// `fn store{i}(g: u32, v: u32)`: writes packed word `g` of the output of word `i`
    /// (bindings `dst{i}_{p}`).
    pub(crate) fn store_fn(&self, i: usize) -> String {
        let body = self.by_part("g", |p, local| {
            format!(
                "dst{i}_{p}[(param({}u) >> 2u) + {local}] = v; return;",
                self.base(p)
            )
        });
        format!("fn store{i}(g: u32, v: u32) {{\n{body}}}\n")
    }
}

/// The element runs `(first, rows)` every column of one sort is bound in.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    runs: Vec<(u64, u64)>,
}

impl Parts {
    /// The parts of `rows` elements of the columns `spans` (one part when they all fit one
    /// binding): runs of whole storage-alignment steps, so that parts of packed words start on
    /// a bindable byte.
    ///
    /// # Errors
    /// [`OpError::TooLarge`] when not even one step fits a binding.
    pub(crate) fn of(
        op: &'static str,
        limits: &wgpu::Limits,
        rows: u64,
        spans: &[Span<'_>],
    ) -> Result<Parts, OpError> {
        let step = rows::alignment(limits) / 4;
        let runs = rows::runs(op, limits, rows, step, spans, &[])?;
        Ok(Parts { runs })
    }

    /// The number of parts.
    pub(crate) fn count(&self) -> usize {
        self.runs.len()
    }

    /// The first element of each part after the first, for the uniform.
    fn splits(&self, op: &'static str) -> Result<Vec<u32>, OpError> {
        self.runs
            .iter()
            .skip(1)
            .map(|&(first, _)| rows::base32(op, first))
            .collect()
    }

    /// The slot's parameters for `bound` (this parts' bindings of one column): the splits,
    /// then the byte bases.
    pub(crate) fn params(
        &self,
        op: &'static str,
        bound: &[Bound<'_>],
    ) -> Result<Vec<u32>, OpError> {
        let mut params = self.splits(op)?;
        for b in bound {
            params.push(rows::base32(op, b.base)?);
        }
        Ok(params)
    }

    /// Each part's rows of `span` below row `limit`, bound (a part past `limit` binds a few
    /// bytes at the end, which the kernels never touch: they store only below `limit`).
    pub(crate) fn bind<'a>(
        &self,
        op: &'static str,
        span: Span<'a>,
        limit: u64,
        align: u64,
    ) -> Result<Vec<Bound<'a>>, OpError> {
        self.runs
            .iter()
            .map(|&(first, rows)| {
                let from = first.min(limit);
                let to = first.saturating_add(rows).min(limit);
                span.bind(op, from, to - from, align)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Slot;

    #[test]
    fn one_part_has_no_comparison() {
        let (slots, params) = Slot::layout(&[1, 1, 1]);
        let body = slots[2].by_part("e", |p, l| format!("return x{p}[{l}];"));
        assert_eq!(body, "    return x0[e];\n");
        assert_eq!(params, 12);
        assert_eq!(slots[2].base(0), 11);
    }

    #[test]
    fn parts_pick_by_index() {
        let (slots, params) = Slot::layout(&[1, 3]);
        let body = slots[1].by_part("e", |p, l| format!("return x{p}[{l}];"));
        assert_eq!(
            body,
            "    if (e < param(10u)) { return x0[e]; }\n\
             \x20   if (e < param(11u)) { return x1[(e - param(10u))]; }\n\
             \x20   return x2[(e - param(11u))];\n"
        );
        assert_eq!(params, 15);
        assert_eq!(slots[1].base(2), 14);
    }
}
