//! Arbitrary runtime struct declarations through the layout engine: no panic, and every layout
//! it accepts keeps its invariants (aligned, non-overlapping fields inside the stride; packed
//! layouts lower to a wgpu vertex layout).
#![no_main]

use arbitrary::Arbitrary;
use gpudata::{GpuDataStructFormat, StepMode, StructLayout, VertexFormat};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Decl {
    packed: bool,
    fields: Vec<(u8, u8)>,
}

fuzz_target!(|decl: Decl| {
    let layout = if decl.packed {
        StructLayout::Packed
    } else {
        StructLayout::WgslStorage
    };
    // Small name space so duplicates happen; format indices may be out of range (skipped).
    let fields: Vec<(String, VertexFormat)> = decl
        .fields
        .iter()
        .filter_map(|(name, f)| {
            VertexFormat::ALL
                .get(usize::from(*f))
                .map(|f| (format!("f{}", name % 24), *f))
        })
        .collect();
    let Ok(format) = GpuDataStructFormat::new(layout, fields.clone()) else {
        return;
    };
    assert_eq!(format.fields().len(), fields.len());
    let mut end = 0;
    for field in format.fields() {
        let (align, _) = layout.placement(field.format());
        assert_eq!(field.byte_offset() % align, 0);
        assert!(field.byte_offset() >= end, "fields overlap");
        end = field.byte_end();
        assert!(field.byte_end() <= format.byte_stride());
    }
    assert_eq!(format.row_byte_length(), end);
    assert_eq!(format.byte_stride() % format.alignment(), 0);
    if layout == StructLayout::Packed {
        let lowered = format.buffer_layout("", Some(StepMode::Vertex)).to_wgpu(0);
        assert!(lowered.is_ok(), "{lowered:?}");
    }
    // The JSON form round-trips.
    let text = serde_json::to_string(&format).expect("formats serialize");
    let back: GpuDataStructFormat = serde_json::from_str(&text).expect("own JSON parses");
    assert_eq!(back, format);
});
