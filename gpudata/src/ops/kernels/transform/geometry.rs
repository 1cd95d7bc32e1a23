//! Where a row transform's rows lie and how they split: rows per invocation and load and store
//! widths, the outputs (fresh buffers or placed ranges), and [`RowGeometry`], which binds the
//! rows of one dispatch at storage-aligned offsets and splits rows into dispatches whose bindings
//! fit the device ([`split`](crate::ops::kernels::split)'s rules).

use super::grouping::SourceGroup;
use super::kernel_layout::{BindingDecl, SourceDecl};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::split::{binding_start, even_runs};

/// The greatest common divisor of `a` and `b`.
pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Rows per invocation: the fewest that make every output's rows whole 16-byte chunks and every
/// source's rows whole words, then more (up to `preferred`, while an invocation writes at most
/// 64 bytes) so that sources can be read in wider units.
fn rows_per_thread(
    source_strides: &[u64],
    output_strides: &[u64],
    requested: Option<u32>,
    staging: bool,
) -> u32 {
    let mut needed = 1u64;
    for &s in output_strides {
        needed = needed.max(16 / gcd(16, s));
    }
    for &s in source_strides {
        needed = needed.max(4 / gcd(4, s));
    }
    let mut g = needed;
    match requested {
        Some(r) => {
            while g < u64::from(r).min(16) {
                g *= 2;
            }
        }
        // Staging makes wide rows coalesced already; more rows per invocation only cost
        // registers and workgroup memory (measured on an H200: interleave into 32-byte rows ran
        // at 93% of a copy with one row per invocation, 56% with four).
        None if staging => {}
        None => {
            let preferred = source_strides
                .iter()
                .map(|&s| (16 / gcd(16, s)).min(4))
                .max()
                .unwrap_or(1);
            let row_bytes: u64 = output_strides.iter().sum();
            while g < preferred && g * row_bytes <= 64 {
                g *= 2;
            }
        }
    }
    // At most 16: `needed` is at most 16 and the loops stop at 16 or below.
    g as u32
}

/// The widest load or store unit (16, 8 or 4 bytes) that `bytes`, the bytes of one invocation's
/// rows, is a whole number of.
pub(super) fn widest_unit(bytes: u64) -> u64 {
    [16u64, 8, 4]
        .into_iter()
        .find(|&u| bytes.is_multiple_of(u))
        .unwrap_or(4)
}

/// Rows per invocation of a plan over `groups` writing `output_strides`.
pub(super) fn rows_per_thread_of(
    ops: &Planner<'_>,
    groups: &[SourceGroup<'_>],
    output_strides: &[u64],
) -> u32 {
    let source_strides: Vec<u64> = groups.iter().map(|g| g.stride).collect();
    rows_per_thread(
        &source_strides,
        output_strides,
        ops.config().rows_per_thread,
        ops.config().stage_outputs,
    )
}

/// Where a placed kernel writes one output: rows of `stride` bytes (the request's output
/// stride) in a region of an existing `buffer` that starts at byte `offset` (a multiple of 16),
/// request row 0 going to the region's row `first_row`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placement<'b> {
    pub buffer: &'b wgpu::Buffer,
    pub offset: u64,
    pub first_row: u64,
}

/// The outputs of a plan: fresh buffers (an operation's), or placements (a re-layout's).
#[derive(Clone, Copy)]
pub(super) enum Outputs<'o, 'b> {
    Fresh(&'o [wgpu::Buffer]),
    Placed(&'o [Placement<'b>]),
}

impl Outputs<'_, '_> {
    pub(super) fn placed(&self) -> bool {
        matches!(self, Outputs::Placed(_))
    }
}

/// One output binding of a dispatch: its range and the first invocation's store base in it.
pub(super) struct OutputTarget<'b> {
    pub buffer: &'b wgpu::Buffer,
    pub start: u64,
    pub size: u64,
    pub stride: u64,
    pub base: u64,
}

/// A storage range one dispatch binds: a source buffer's `[start, end)`, read in `decl.unit`s.
pub(super) struct BindingRange<'a> {
    pub decl: BindingDecl,
    pub buffer: &'a wgpu::Buffer,
    pub start: u64,
    pub end: u64,
}

impl BindingRange<'_> {
    pub(super) fn size(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// The source side of one dispatch: its bindings, its sources and each source's base (in load
/// units from the start of its binding).
pub(super) struct SourceBindings<'a> {
    pub bindings: Vec<BindingRange<'a>>,
    pub sources: Vec<SourceDecl>,
    /// Negative only for a placed dispatch whose first block begins before its source.
    pub bases: Vec<i128>,
}

/// What every dispatch of one operation shares: where the sources' rows lie, the outputs' row
/// sizes and the device's binding rules. Splits rows into dispatches whose bindings fit.
pub(super) struct RowGeometry<'g, 'a> {
    pub op: &'static str,
    pub groups: &'g [SourceGroup<'a>],
    pub output_strides: &'g [u64],
    /// Rows of the whole operation.
    pub length: u64,
    /// Rows per invocation.
    pub g64: u64,
    /// Storage offset alignment (at least 16).
    pub align: u64,
    /// Every dispatch but the last of a range covers a multiple of `step` rows, so that each
    /// output binding starts at an aligned offset and on an invocation's first row.
    pub step: u64,
    /// The largest storage binding.
    pub max_binding: u64,
    /// Whether the outputs are placements (a dispatch then starts at its first row's block).
    pub placed: bool,
}

impl<'a> RowGeometry<'_, 'a> {
    fn overflow(&self, input: usize) -> OpError {
        OpError::Overflow { op: self.op, input }
    }

    /// The source bindings of rows `first_row..first_row + rows`, each source read in
    /// `units[s]` bytes. Each binding runs from the storage-aligned start of its first unit to
    /// the end of the last unit its rows use (never past the buffer's last whole unit). Sources
    /// in one buffer read in the same unit share a binding while the union fits the binding
    /// limit.
    ///
    /// `lo` rows before the first (a placed dispatch's place in its first block) are read as
    /// well: the bases point at row `first_row - lo`, below the binding's start (wrapping) when
    /// those rows lie before the buffer.
    pub(super) fn source_bindings(
        &self,
        units: &[u64],
        first_row: u64,
        rows: u64,
        lo: u64,
    ) -> Result<SourceBindings<'a>, OpError> {
        // Rows of the operation after this dispatch's last.
        let after = self
            .length
            .checked_sub(first_row)
            .and_then(|r| r.checked_sub(rows))
            .ok_or_else(|| self.overflow(0))?;
        let mut bindings: Vec<BindingRange<'a>> = Vec::new();
        let mut sources = Vec::with_capacity(self.groups.len());
        let mut firsts = Vec::with_capacity(self.groups.len());
        for (s, (group, &unit)) in self.groups.iter().zip(units).enumerate() {
            let offset = first_row
                .checked_mul(group.stride)
                .and_then(|d| d.checked_add(group.offset))
                .ok_or_else(|| self.overflow(s))?;
            // The block's first row, as a signed byte position (`lo × stride` is below 16 rows).
            let virtual_row = i128::from(offset) - i128::from(lo) * i128::from(group.stride);
            let unit_i = i128::from(unit);
            let phase = virtual_row.rem_euclid(unit_i) as u64;
            let first = virtual_row - i128::from(phase);
            // `first` lies in [offset - 16 × stride, offset]: the u64 conversions hold.
            let start = binding_start(first.max(0) as u64, self.align);
            let end = after
                .checked_mul(group.stride)
                .and_then(|d| group.end.checked_sub(d))
                .and_then(|e| e.checked_next_multiple_of(unit))
                .ok_or_else(|| self.overflow(s))?
                .min(group.buffer.size() / unit * unit);
            let shared = bindings.iter().position(|b| {
                b.buffer == group.buffer
                    && u64::from(b.decl.unit) == unit
                    && b.end.max(end).saturating_sub(b.start.min(start)) <= self.max_binding
            });
            let binding = match shared {
                Some(b) => {
                    bindings[b].start = bindings[b].start.min(start);
                    bindings[b].end = bindings[b].end.max(end);
                    b
                }
                None => {
                    bindings.push(BindingRange {
                        decl: BindingDecl {
                            // 4, 8 or 16.
                            unit: unit as u32,
                            read_only: true,
                        },
                        buffer: group.buffer,
                        start,
                        end,
                    });
                    bindings.len() - 1
                }
            };
            sources.push(SourceDecl {
                binding,
                unit: unit as u32,
                stride: group.stride,
                phase,
            });
            firsts.push(first);
        }
        let bases = sources
            .iter()
            .zip(firsts)
            .map(|(source, first)| {
                (first - i128::from(bindings[source.binding].start)) / i128::from(source.unit)
            })
            .collect();
        Ok(SourceBindings {
            bindings,
            sources,
            bases,
        })
    }

    /// Bytes output `o`'s binding needs for `rows` rows: whole invocations of `G` rows, and
    /// for a placed output the most that its first block and its aligned start can add.
    fn output_size(&self, o: usize, rows: u64) -> Result<u64, OpError> {
        let slack = if self.placed {
            self.g64 * self.output_strides[o] + self.align
        } else {
            0
        };
        rows.div_ceil(self.g64)
            .checked_mul(self.g64)
            .and_then(|r| r.checked_mul(self.output_strides[o]))
            .and_then(|b| b.checked_add(slack))
            .ok_or_else(|| self.overflow(o))
    }

    /// The output bindings of rows `first_row..first_row + rows`, and the dispatch's `lo` (its
    /// first row's place in its first block; 0 for fresh outputs).
    pub(super) fn targets<'b>(
        &self,
        outputs: Outputs<'b, 'b>,
        first_row: u64,
        rows: u64,
    ) -> Result<(Vec<OutputTarget<'b>>, u64), OpError> {
        let mut targets = Vec::with_capacity(self.output_strides.len());
        match outputs {
            Outputs::Fresh(buffers) => {
                for (o, (buffer, &stride)) in buffers.iter().zip(self.output_strides).enumerate() {
                    targets.push(OutputTarget {
                        buffer,
                        start: first_row * stride,
                        size: self.output_size(o, rows)?,
                        stride,
                        base: 0,
                    });
                }
                Ok((targets, 0))
            }
            Outputs::Placed(places) => {
                let mut lo = 0;
                for (o, (place, &stride)) in places.iter().zip(self.output_strides).enumerate() {
                    let overflow = || self.overflow(o);
                    let first = place
                        .first_row
                        .checked_add(first_row)
                        .ok_or_else(overflow)?;
                    let block = first / self.g64 * self.g64;
                    lo = first - block;
                    let unit = widest_unit(self.g64 * stride);
                    let block_byte = block
                        .checked_mul(stride)
                        .and_then(|b| b.checked_add(place.offset))
                        .ok_or_else(overflow)?;
                    let end = first
                        .checked_add(rows)
                        .and_then(|r| r.checked_mul(stride))
                        .and_then(|b| b.checked_add(place.offset))
                        .and_then(|b| b.checked_next_multiple_of(unit))
                        .ok_or_else(overflow)?
                        .min(place.buffer.size() / unit * unit);
                    let start = binding_start(block_byte, self.align);
                    targets.push(OutputTarget {
                        buffer: place.buffer,
                        start,
                        size: end.saturating_sub(start),
                        stride,
                        base: (block_byte - start) / unit,
                    });
                }
                Ok((targets, lo))
            }
        }
    }

    /// Whether one dispatch over rows `first_row..first_row + rows` binds nothing larger than
    /// the limit.
    fn fits(&self, units: &[u64], first_row: u64, rows: u64) -> Result<bool, OpError> {
        let lo = if self.placed { self.g64 - 1 } else { 0 };
        let sources = self.source_bindings(units, first_row, rows, lo)?;
        if sources.bindings.iter().any(|b| b.size() > self.max_binding) {
            return Ok(false);
        }
        for o in 0..self.output_strides.len() {
            if self.output_size(o, rows)? > self.max_binding {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Rows per dispatch when rows must be split: the most, in whole `step`s, that keep every
    /// binding within the limit whatever the first row (a source binding may begin up to
    /// `align - unit` bytes before its first unit, start `unit - 1` bytes into it and end
    /// `unit - 1` bytes past its last row). At least one `step`: when even that does not fit,
    /// the dispatch reports [`OpError::TooLarge`].
    fn chunk_rows(&self, units: &[u64]) -> u64 {
        let mut rows = u64::MAX;
        for &stride in self.output_strides {
            let room = if self.placed {
                // The first block and the aligned start (see `output_size`).
                self.max_binding
                    .saturating_sub(self.g64 * stride * 2 + self.align)
            } else {
                self.max_binding
            };
            if let Some(fit) = room.checked_div(stride) {
                rows = rows.min(fit);
            }
        }
        for (group, &unit) in self.groups.iter().zip(units) {
            // Bytes the views use of the last row, from the group's offset in it.
            let extent = (self.length - 1)
                .checked_mul(group.stride)
                .and_then(|d| group.end.checked_sub(group.offset)?.checked_sub(d));
            // A placed dispatch also reads up to `G - 1` rows before its first.
            let before = if self.placed {
                (self.g64 - 1).saturating_mul(group.stride)
            } else {
                0
            };
            let room = extent
                .and_then(|e| {
                    e.checked_add(self.align)?
                        .checked_add(unit)?
                        .checked_add(before)
                })
                .and_then(|slack| self.max_binding.checked_sub(slack));
            rows = rows.min(match room {
                None => 0,
                Some(_) if group.stride == 0 => u64::MAX,
                Some(room) => room / group.stride + 1,
            });
        }
        (rows / self.step * self.step).max(self.step)
    }

    /// Rows `from..to` as `(first row, rows)` dispatches: one when its bindings fit (the usual
    /// case, unchanged by splitting), else as few consecutive runs as
    /// [`chunk_rows`](Self::chunk_rows) allows, of about equal size (whole `step`s each, the
    /// last one the rest) so no dispatch is a sliver. `from` is a multiple of `step`.
    pub(super) fn chunks(
        &self,
        units: &[u64],
        from: u64,
        to: u64,
    ) -> Result<Vec<(u64, u64)>, OpError> {
        if self.fits(units, from, to - from)? {
            return Ok(vec![(from, to - from)]);
        }
        Ok(even_runs(from, to, self.chunk_rows(units), self.step))
    }
}

#[cfg(test)]
mod tests {
    use super::rows_per_thread;

    #[test]
    fn rows_per_thread_makes_outputs_whole_chunks() {
        // float32 packed add: 4 rows of 4 bytes.
        assert_eq!(rows_per_thread(&[4, 4], &[4], None, true), 4);
        // uint8 output: 16 rows.
        assert_eq!(rows_per_thread(&[1, 1], &[1], None, true), 16);
        // fround: 8-byte rows.
        assert_eq!(rows_per_thread(&[8], &[8], None, true), 2);
        // Interleave into 32-byte rows from a 12-byte column: one row with staging; without,
        // widened to 4 rows so the column reads as whole 16-byte chunks.
        assert_eq!(rows_per_thread(&[12, 4, 8], &[32], None, true), 1);
        assert_eq!(rows_per_thread(&[12, 4, 8], &[32], None, false), 4);
        // A request never goes below what alignment needs.
        assert_eq!(rows_per_thread(&[1], &[4], Some(1), true), 4);
        assert_eq!(rows_per_thread(&[4], &[16], Some(8), true), 8);
    }
}
