//! Property test: every wgsl-storage struct format agrees with naga's layouter on the equivalent
//! WGSL carrier struct (offsets, stride, alignment), and naga validates that WGSL.

use gpudata::{GpuDataStructFormat, StructLayout, VertexFormat};
use proptest::prelude::*;

fn carrier_struct_wgsl(formats: &[VertexFormat]) -> String {
    let mut wgsl = String::from("struct Row {\n");
    for (i, f) in formats.iter().enumerate() {
        wgsl.push_str(&format!("    f{i}: {},\n", f.wgsl_carrier()));
    }
    wgsl.push_str(
        "}\n@group(0) @binding(0) var<storage, read_write> rows: array<Row>;\n\
         @compute @workgroup_size(1) fn main() { rows[0] = rows[1]; }\n",
    );
    wgsl
}

/// (member offsets, struct size, struct alignment) as naga lays the struct out.
fn naga_layout(wgsl: &str) -> (Vec<u64>, u64, u64) {
    let module = naga::front::wgsl::parse_str(wgsl).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("naga rejects the carrier struct: {e:?}\n{wgsl}"));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("Row"))
        .unwrap();
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("Row is not a struct");
    };
    let offsets = members.iter().map(|m| u64::from(m.offset)).collect();
    let alignment = u64::from(layouter[handle].alignment.round_up(1));
    (offsets, u64::from(*span), alignment)
}

fn any_format() -> impl Strategy<Value = VertexFormat> {
    prop::sample::select(VertexFormat::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn wgsl_storage_layout_matches_naga(formats in prop::collection::vec(any_format(), 1..12)) {
        let format = GpuDataStructFormat::new(
            StructLayout::WgslStorage,
            formats.iter().enumerate().map(|(i, f)| (format!("f{i}"), *f)),
        ).unwrap();
        let (offsets, size, alignment) = naga_layout(&carrier_struct_wgsl(&formats));
        let ours: Vec<u64> = format.fields().iter().map(|f| f.byte_offset()).collect();
        prop_assert_eq!(ours, offsets);
        prop_assert_eq!(format.byte_stride(), size);
        prop_assert_eq!(format.alignment(), alignment);
        // The payload never runs past the stride and the row length is the last payload byte.
        let end = format.fields().iter().map(|f| f.byte_end()).max().unwrap();
        prop_assert_eq!(format.row_byte_length(), end);
        prop_assert!(format.row_byte_length() <= format.byte_stride());
    }
}

#[test]
fn spec_vector_28_matches_naga() {
    let formats = [
        VertexFormat::Uint8,
        VertexFormat::Float32x3,
        VertexFormat::Unorm8x4,
    ];
    assert_eq!(
        naga_layout(&carrier_struct_wgsl(&formats)),
        (vec![0, 16, 28], 32, 16)
    );
}
