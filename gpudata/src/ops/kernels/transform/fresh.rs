//! What a re-layout's block kernels write beside their bodies, and the bytes its copies leave
//! unwritten in an output made without wgpu's zero-fill
//! ([`uninitialized_buffer`](crate::device::uninitialized::uninitialized_buffer)).
//!
//! The words around block copies' bodies are gathered into destination vectors that the block
//! kernel composes word by word ([`EdgeVector`]), in the same compute pass as the bodies: no
//! `copy_buffer_to_buffer` after the pass. In an output written by block copies alone, the
//! bytes no copy writes are zeros of the same pass too (zero parts and zero words), so
//! that a fresh pack is one compute pass and nothing else. What stays a command: words in a
//! destination vector that reaches past its buffer's end (a buffer whose size is not a
//! multiple of 16, never a re-layout's own output) or whose sources need more storage
//! bindings than one dispatch has (a device with fewer than five) are copied after the pass,
//! and the bytes of fresh outputs that other copies also write (row kernels, which merge the
//! words at their edges, and `copy_buffer_to_buffer` steps) are cleared first.

use std::collections::HashMap;

use super::block::{EdgeVector, EdgeWord, Piece, Word, storage_bindings, zero_pieces};
use crate::ops::OpError;

/// The ranges of `[0, size)` that `written` (byte ranges, in any order, possibly overlapping)
/// leaves out, each widened to whole 4-byte words.
pub(crate) fn gaps(size: u64, mut written: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    written.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end) in written {
        if start > at {
            out.push((at, start.min(size)));
        }
        at = at.max(end);
        if at >= size {
            break;
        }
    }
    if at < size {
        out.push((at, size));
    }
    out.into_iter()
        .map(|(s, e)| {
            (
                s / 4 * 4,
                e.next_multiple_of(4).min(size.next_multiple_of(4)),
            )
        })
        .filter(|(s, e)| s < e)
        .collect()
}

/// A fresh output: its buffer, the bytes the re-layout's copies write in it, and whether only
/// block copies write it.
pub(crate) struct FreshOutput {
    pub buffer: wgpu::Buffer,
    pub written: Vec<(u64, u64)>,
    pub blocks_only: bool,
}

/// A `copy_buffer_to_buffer`: (source, offset, destination, offset, bytes).
pub(crate) type CopyStep = (wgpu::Buffer, u64, wgpu::Buffer, u64, u64);

/// What the block kernels do beside the bodies, and the commands that stay.
#[derive(Default)]
pub(crate) struct Edges {
    /// The destination vectors the block kernels compose.
    pub vectors: Vec<EdgeVector>,
    /// Zero parts: whole vectors of fresh outputs no copy writes.
    pub zeros: Vec<Piece>,
    /// Words copied after the pass, merged into runs.
    pub copies: Vec<CopyStep>,
    /// Bytes of fresh outputs cleared first: (buffer, start, size).
    pub clears: Vec<(wgpu::Buffer, u64, u64)>,
}

/// The destination vectors of `words`, in the order their first words come.
struct Vectors {
    list: Vec<Option<EdgeVector>>,
    index: HashMap<(wgpu::Buffer, u64), usize>,
}

impl Vectors {
    /// The vector at the 16-aligned byte `at` of `dst` (every word kept until set).
    fn entry(&mut self, dst: &wgpu::Buffer, at: u64) -> &mut Option<EdgeVector> {
        let list = &mut self.list;
        let i = *self.index.entry((dst.clone(), at)).or_insert_with(|| {
            list.push(Some(EdgeVector {
                dst: dst.clone(),
                at,
                words: [Word::Keep, Word::Keep, Word::Keep, Word::Keep],
            }));
            list.len() - 1
        });
        &mut list[i]
    }

    /// Whether the vector at `at` of `dst` was given up (its words copied).
    fn given_up(&self, dst: &wgpu::Buffer, at: u64) -> bool {
        self.index
            .get(&(dst.clone(), at))
            .is_some_and(|&i| self.list[i].is_none())
    }
}

/// Whether the kernel can store the whole vector at `at` of `dst`.
fn inside(dst: &wgpu::Buffer, at: u64) -> bool {
    at.checked_add(16).is_some_and(|end| end <= dst.size())
}

/// Appends the copy of the word `(src, src_offset) -> (dst, dst_offset)` to `copies`, merged
/// into the last run where it continues it.
fn push_copy(copies: &mut Vec<CopyStep>, word: &EdgeWord) {
    if let Some((src, so, dst, dof, size)) = copies.last_mut()
        && *src == word.src
        && *dst == word.dst
        && *so + *size == word.src_offset
        && *dof + *size == word.dst_offset
    {
        *size += 4;
        return;
    }
    copies.push((
        word.src.clone(),
        word.src_offset,
        word.dst.clone(),
        word.dst_offset,
        4,
    ));
}

/// Appends the clear of the word at `at` of `buffer`, merged into the last range it continues.
fn push_clear(clears: &mut Vec<(wgpu::Buffer, u64, u64)>, buffer: &wgpu::Buffer, at: u64) {
    if let Some((b, start, size)) = clears.last_mut()
        && b == buffer
        && *start + *size == at
    {
        *size += 4;
        return;
    }
    clears.push((buffer.clone(), at, 4));
}

/// The block kernels' work beside the bodies: the edge `words` of every block copy (each
/// destination word written by one of them at most) composed into destination vectors, and
/// the bytes of `fresh` outputs no copy writes as zeros (parts and words) where only blocks
/// write the output, else cleared first; what the kernels cannot do as commands (see the
/// module's documentation).
///
/// # Errors
/// As [`zero_pieces`]'.
pub(crate) fn edges(
    limits: &wgpu::Limits,
    words: &[EdgeWord],
    fresh: &[FreshOutput],
) -> Result<Edges, OpError> {
    let mut out = Edges::default();
    let mut vectors = Vectors {
        list: Vec::new(),
        index: HashMap::new(),
    };
    for word in words {
        let at = word.dst_offset - word.dst_offset % 16;
        if !inside(&word.dst, at) {
            continue;
        }
        if let Some(vector) = vectors.entry(&word.dst, at) {
            vector.words[(word.dst_offset % 16 / 4) as usize] =
                Word::From(word.src.clone(), word.src_offset);
        }
    }
    // Vectors whose sources need more bindings than a dispatch has: copied.
    let storage = storage_bindings(limits);
    for slot in &mut vectors.list {
        if slot.as_ref().is_some_and(|v| v.bindings() as u64 > storage) {
            *slot = None;
        }
    }
    for word in words {
        let at = word.dst_offset - word.dst_offset % 16;
        if !inside(&word.dst, at) || vectors.given_up(&word.dst, at) {
            push_copy(&mut out.copies, word);
        }
    }
    for output in fresh {
        let buffer = &output.buffer;
        for (start, end) in gaps(buffer.size(), output.written.clone()) {
            if !output.blocks_only {
                out.clears.push((buffer.clone(), start, end - start));
                continue;
            }
            // Whole vectors as zero parts; the words around them as zero words of their
            // vectors, or cleared where the kernel cannot store their vector.
            let (first, last) = (start.next_multiple_of(16), end / 16 * 16);
            let words: Vec<u64> = if first < last {
                out.zeros.extend(zero_pieces(limits, buffer, first, last)?);
                (start..first)
                    .step_by(4)
                    .chain((last..end).step_by(4))
                    .collect()
            } else {
                (start..end).step_by(4).collect()
            };
            for at in words {
                let vector = at - at % 16;
                if !inside(buffer, vector) || vectors.given_up(buffer, vector) {
                    push_clear(&mut out.clears, buffer, at);
                } else if let Some(v) = vectors.entry(buffer, vector) {
                    v.words[(at % 16 / 4) as usize] = Word::Zero;
                }
            }
        }
    }
    out.vectors = vectors.list.into_iter().flatten().collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::gaps;

    #[test]
    fn gaps_are_what_no_copy_writes() {
        assert_eq!(gaps(64, vec![]), [(0, 64)]);
        assert_eq!(gaps(64, vec![(16, 32), (0, 8)]), [(8, 16), (32, 64)]);
        assert_eq!(gaps(64, vec![(0, 40), (8, 64)]), []);
        assert_eq!(
            gaps(64, vec![(4, 10), (12, 60)]),
            [(0, 4), (8, 12), (60, 64)]
        );
    }
}
