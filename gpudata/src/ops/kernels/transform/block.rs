//! Aligned blocks of bytes copied by a kernel: one `vec4<u32>` (blocks whose offsets and size
//! are multiples of 16) or one `u32` (multiples of 4) per invocation. Real GPUs run such a kernel
//! at their memory bandwidth where `copy_buffer_to_buffer` may not (0.85 TB/s against 3.98 on
//! the H200's Vulkan driver; DESIGN.md decision 9); the re-layouts copy whole blocks this way.
//! A block larger than one storage binding is copied in parts, one dispatch each.

use std::sync::Arc;

use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};
use crate::ops::kernels::select::rows::{WORKGROUP, binding_decl, header};
use crate::ops::kernels::split::max_binding_size;

/// The kernel copying `param(0)` elements of `element` from `src[param(1) + i]` to
/// `dst[param(2) + i]`.
fn wgsl(element: &str) -> String {
    format!(
        "{header}{src}{dst}\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let i = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (i >= param(0u)) {{ return; }}\n\
         \x20   dst[param(2u) + i] = src[param(1u) + i];\n\
         }}\n",
        header = header(3),
        src = binding_decl(1, "src", element, false),
        dst = binding_decl(2, "dst", element, true),
    )
}

/// The dispatches copying `size` bytes from `src_offset` of `src` to `dst_offset` of `dst`, or
/// `None` when a kernel cannot do it: a buffer without `STORAGE` usage, one buffer on both sides
/// (a binding may not be read and written at once), offsets or size off 4 bytes, or an empty
/// block.
///
/// # Errors
/// [`OpError::TooLarge`] when the device's storage binding limit cannot hold one element past
/// its offset alignment; the errors of [`Kernel::dispatch`].
pub(crate) fn block_copy(
    planner: &Planner<'_>,
    src: &wgpu::Buffer,
    src_offset: u64,
    dst: &wgpu::Buffer,
    dst_offset: u64,
    size: u64,
) -> Result<Option<Vec<Dispatch>>, OpError> {
    let storage = |b: &wgpu::Buffer| b.usage().contains(wgpu::BufferUsages::STORAGE);
    let all = |m: u64| {
        src_offset.is_multiple_of(m) && dst_offset.is_multiple_of(m) && size.is_multiple_of(m)
    };
    if size == 0 || !storage(src) || !storage(dst) || src == dst || !all(4) {
        return Ok(None);
    }
    let (element, unit) = if all(16) {
        ("vec4<u32>", 16)
    } else {
        ("u32", 4)
    };
    let limits = planner.device().limits();
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(unit);
    // Each part binds from its offsets rounded down to the alignment: at most `align - unit`
    // bytes before it.
    let most = max_binding_size(&limits).saturating_sub(align) / unit * unit;
    if most == 0 {
        return Err(OpError::TooLarge {
            op: "copy",
            what: "a storage binding",
            size: align + unit,
            limit: max_binding_size(&limits),
        });
    }
    let text: Arc<str> = wgsl(element).into();
    let mut dispatches = Vec::new();
    let mut done = 0;
    while done < size {
        let bytes = most.min(size - done);
        let (from, to) = (src_offset + done, dst_offset + done);
        let (src_start, dst_start) = (from - from % align, to - to % align);
        let elements = bytes / unit;
        let params = [
            u32::try_from(elements).map_err(|_| OpError::TooLarge {
                op: "copy",
                what: "a block copy's elements",
                size: elements,
                limit: u64::from(u32::MAX),
            })?,
            // Below `align / unit`: the offsets past the rounded-down starts.
            ((from - src_start) / unit) as u32,
            ((to - dst_start) / unit) as u32,
        ];
        let bindings = [
            Binding {
                buffer: src,
                start: src_start,
                size: from - src_start + bytes,
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
            elements.div_ceil(u64::from(WORKGROUP)),
        )?);
        done += bytes;
    }
    Ok(Some(dispatches))
}
