//! Views, children and bindings allocate nothing: a counting global allocator watches this
//! thread while they are made.

use crate::support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gpudata::data::TypedGpuDataView;
use gpudata::{
    BufferLayout, GpuData, GpuDataStructFormat, GpuDataView, GpuStruct, StepMode, StructLayout,
    TypedGpuData, Unorm8x4, VertexFormat,
};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is a
// const-initialized thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations this thread makes while running `f`.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Instance {
    position: [f32; 3],
    color: Unorm8x4,
}

#[test]
fn views_children_and_bindings_allocate_nothing() {
    let gpu = support::gpu();
    let rows = [Instance {
        position: [1.0, 2.0, 3.0],
        color: Unorm8x4([1, 2, 3, 4]),
    }; 16];
    let typed = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let format = GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [("id", "uint32"), ("weight", "float32")],
    )
    .unwrap();
    let runtime = GpuData::zeroed(&gpu, format, 8, gpudata::data::DEFAULT_USAGE).unwrap();
    let layout = Instance::FORMAT.buffer_layout("instances", None);
    let buffer = typed.as_data().buffer();

    let (lengths, count) = allocations(|| {
        let a = typed.get_child::<instance_fields::Position>();
        let b = typed.get_child::<instance_fields::Color>();
        let c = typed.get_child_at(1).unwrap();
        let d = runtime.get_child("weight").unwrap();
        let e = runtime.get_child_at(0).unwrap();
        let f = GpuDataView::new(buffer, VertexFormat::Float32x3, 16, 0, Some(16)).unwrap();
        let g = GpuDataView::from_attribute(buffer, &layout, "color", 16, 0).unwrap();
        let h = f.slice(2, 3).unwrap();
        let i = TypedGpuDataView::<[f32; 3]>::new(f).unwrap();
        let binding = b.vertex_binding(&gpu, 1, StepMode::Instance).unwrap();
        let slice = typed.as_data().vertex_buffer_slice(&gpu).unwrap();
        let storage = runtime.storage_binding(&gpu).unwrap();
        let missing = runtime.get_child("missing");
        [
            a.length(),
            b.length(),
            c.length(),
            d.length(),
            e.length(),
            f.length(),
            g.length(),
            h.length(),
            i.length(),
            binding.size(),
            slice.size(),
            storage.offset,
            u64::from(missing.is_none()),
            binding.layout().attributes.len() as u64,
        ]
    });
    assert_eq!(count, 0, "making views, children and bindings allocated");
    assert_eq!(lengths[..9], [16, 16, 16, 8, 8, 16, 16, 3, 16]);
    let _: &BufferLayout = &layout;
}
