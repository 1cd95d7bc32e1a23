//! Word-aligned blocks of bytes copied by a kernel: one `vec4<u32>` store per invocation into
//! the destination's 16-byte aligned body, from one aligned source vector, or from two
//! neighbouring ones where the source lies at another phase of 16 bytes; the few words around
//! the body copied as they are. Real GPUs run such a kernel
//! at their memory bandwidth where `copy_buffer_to_buffer` may not (0.85 TB/s against 3.98 on
//! the H200's Vulkan driver; DESIGN.md decision 9); the re-layouts copy whole blocks this way.
//! A block larger than one storage binding is copied in parts, one dispatch each.

use std::sync::Arc;

use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};
use crate::ops::kernels::select::rows::{WORKGROUP, binding_decl, header};
use crate::ops::kernels::split::max_binding_size;

/// The kernel copying `param(0)` `vec4<u32>`s from the source's vectors from `src[param(1)]` to
/// `dst[param(2) + i]`. With `phase` 0 the source vectors are the words to copy; with phase
/// `p` (1 to 3: the source is `4p` bytes past a 16-byte boundary) vector `i` is the last `4 - p`
/// words of source vector `i` and the first `p` of vector `i + 1`: every load and store is a
/// whole aligned vector (a neighbour's load comes from the cache).
fn wgsl(phase: u64) -> String {
    let load = match phase {
        0 => "dst[param(2u) + i] = src[param(1u) + i];",
        1 => {
            "let a = src[param(1u) + i];\n\
              \x20   let b = src[param(1u) + i + 1u];\n\
              \x20   dst[param(2u) + i] = vec4<u32>(a.y, a.z, a.w, b.x);"
        }
        2 => {
            "let a = src[param(1u) + i];\n\
              \x20   let b = src[param(1u) + i + 1u];\n\
              \x20   dst[param(2u) + i] = vec4<u32>(a.z, a.w, b.x, b.y);"
        }
        _ => {
            "let a = src[param(1u) + i];\n\
              \x20   let b = src[param(1u) + i + 1u];\n\
              \x20   dst[param(2u) + i] = vec4<u32>(a.w, b.x, b.y, b.z);"
        }
    };
    format!(
        "{header}{src}{dst}\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let i = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (i >= param(0u)) {{ return; }}\n\
         \x20   {load}\n\
         }}\n",
        header = header(3),
        src = binding_decl(1, "src", "vec4<u32>", false),
        dst = binding_decl(2, "dst", "vec4<u32>", true),
    )
}

/// A block copy: kernels for its 16-byte aligned body, and the few words before and after it
/// (at most 12 bytes each) as `(src_offset, dst_offset, size)` copies.
pub(crate) struct BlockCopy {
    pub dispatches: Vec<Dispatch>,
    pub edges: Vec<(u64, u64, u64)>,
}

/// The copy of `size` bytes from `src_offset` of `src` to `dst_offset` of `dst`, or `None` when
/// a kernel cannot do it: a buffer without `STORAGE` usage, one buffer on both sides (a binding
/// may not be read and written at once), offsets or size off 4 bytes, or no 16-byte aligned
/// vector of the destination inside the block.
///
/// # Errors
/// [`OpError::TooLarge`] when the device's storage binding limit cannot hold one vector past
/// its offset alignment; the errors of [`Kernel::dispatch`].
pub(crate) fn block_copy(
    planner: &Planner<'_>,
    src: &wgpu::Buffer,
    src_offset: u64,
    dst: &wgpu::Buffer,
    dst_offset: u64,
    size: u64,
) -> Result<Option<BlockCopy>, OpError> {
    let storage = |b: &wgpu::Buffer| b.usage().contains(wgpu::BufferUsages::STORAGE);
    let words =
        src_offset.is_multiple_of(4) && dst_offset.is_multiple_of(4) && size.is_multiple_of(4);
    if !storage(src) || !storage(dst) || src == dst || !words {
        return Ok(None);
    }
    // The destination's words before its first 16-byte boundary, and after its last.
    let head = (16 - dst_offset % 16) % 16;
    let Some(body) = size
        .checked_sub(head)
        .map(|rest| rest / 16 * 16)
        .filter(|b| *b > 0)
    else {
        return Ok(None);
    };
    let tail = size - head - body;
    let mut edges = Vec::new();
    if head > 0 {
        edges.push((src_offset, dst_offset, head));
    }
    if tail > 0 {
        edges.push((src_offset + head + body, dst_offset + head + body, tail));
    }
    let (src_offset, dst_offset) = (src_offset + head, dst_offset + head);
    // The source's words past its 16-byte boundary: phase p reads one vector more, which must
    // lie inside the source buffer; where it does not, the last vector goes with the edges.
    let phase = src_offset % 16 / 4;
    let src_base = src_offset - phase * 4;
    let mut body = body;
    if phase > 0 && src_base + body + 16 > src.size() {
        body -= 16;
        edges.push((src_offset + body, dst_offset + body, 16));
        if body == 0 {
            return Ok(Some(BlockCopy {
                dispatches: Vec::new(),
                edges,
            }));
        }
    }
    let extra = if phase > 0 { 16 } else { 0 };
    let limits = planner.device().limits();
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
    // Each part binds from its offsets rounded down to the alignment: at most `align - 16`
    // bytes before it, and one vector more after it at a phase.
    let most = max_binding_size(&limits).saturating_sub(align + extra) / 16 * 16;
    if most == 0 {
        return Err(OpError::TooLarge {
            op: "copy",
            what: "a storage binding",
            size: align + extra + 16,
            limit: max_binding_size(&limits),
        });
    }
    let text: Arc<str> = wgsl(phase).into();
    let mut dispatches = Vec::new();
    let mut done = 0;
    while done < body {
        let bytes = most.min(body - done);
        let (from, to) = (src_base + done, dst_offset + done);
        let (src_start, dst_start) = (from - from % align, to - to % align);
        let vectors = bytes / 16;
        let too_large = || OpError::TooLarge {
            op: "copy",
            what: "a block copy's vectors",
            size: vectors,
            limit: u64::from(u32::MAX),
        };
        let params = [
            u32::try_from(vectors).map_err(|_| too_large())?,
            // Below `align / 16`: the offsets past the rounded-down starts.
            u32::try_from((from - src_start) / 16).map_err(|_| too_large())?,
            u32::try_from((to - dst_start) / 16).map_err(|_| too_large())?,
        ];
        let bindings = [
            Binding {
                buffer: src,
                start: src_start,
                size: from - src_start + bytes + extra,
            },
            Binding {
                buffer: dst,
                start: dst_start,
                size: to - dst_start + bytes,
            },
        ];
        let kernel = Kernel {
            op: "copy",
            wgsl: text.clone(),
            workgroup_size: WORKGROUP,
            rows_per_thread: 1,
        };
        dispatches.push(kernel.dispatch(
            planner,
            &params,
            &bindings,
            vectors.div_ceil(u64::from(WORKGROUP)),
        )?);
        done += bytes;
    }
    Ok(Some(BlockCopy { dispatches, edges }))
}
