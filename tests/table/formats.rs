//! Every vertex format read three ways must agree: the host decoder, vertex fetch of a table
//! column (and of a zero-stride constant), and the WGSL accessors the table's storage bindings
//! generate (for columns and for constants bound as uniforms). `-webgl` formats, which wgpu
//! cannot fetch, are checked through storage alone.

use crate::fixtures::{bytes, compute_capture, gpu, render_capture};
use crate::support::Rng;
use gpudata::GpuConstant;
use gpudata::data::HostValues;
use gpudata::format::PrimitiveType;
use gpudata::table::{
    ConstantBinding, GpuColumn, GpuTable, GpuVector, RecordBatchOptions, RenderOptions,
};
use gpudata::{GpuDataDescriptor, VertexFormat};

const ROWS: usize = 16;

/// Packed values of `format`: random bits for integer formats, finite values for floats.
fn values(format: VertexFormat, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let components = format.components() as usize;
    for _ in 0..ROWS {
        match format.data_type() {
            gpudata::format::DataType::Float32 => {
                for _ in 0..components {
                    let v = (rng.next_u64() % 20_001) as f32 / 100.0 - 100.0;
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            gpudata::format::DataType::Float16 => {
                for _ in 0..components {
                    let v = (rng.next_u64() % 2001) as f32 / 10.0 - 100.0;
                    out.extend_from_slice(&half::f16::from_f32(v).to_le_bytes());
                }
            }
            _ => {
                for _ in 0..format.byte_length() {
                    out.push(rng.next_u64() as u8);
                }
            }
        }
    }
    out
}

/// The host's values of every row as 4 words (components as bits, then zeros).
fn host_words(format: VertexFormat, packed: &[u8]) -> Vec<[u32; 4]> {
    let stride = format.byte_length() as usize;
    let decoded = gpudata::data::decode_values(format, packed, ROWS, stride).unwrap();
    let scalars: Vec<u32> = match decoded {
        HostValues::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        HostValues::I32(v) => v.iter().map(|x| *x as u32).collect(),
        HostValues::U32(v) => v,
    };
    let n = format.components() as usize;
    scalars
        .chunks_exact(n)
        .map(|c| {
            let mut w = [0u32; 4];
            w[..n].copy_from_slice(c);
            w
        })
        .collect()
}

fn assert_words(path: &str, format: VertexFormat, row: usize, got: [u32; 4], expected: [u32; 4]) {
    let n = format.components() as usize;
    let float = format.vertex_input_type().primitive() == PrimitiveType::F32;
    for k in 0..n {
        if float && (format.is_normalized() || format.is_packed_bits()) {
            let (g, e) = (f32::from_bits(got[k]), f32::from_bits(expected[k]));
            assert!(
                (g - e).abs() <= 2e-6,
                "{path} {format} row {row} component {k}: {g} vs {e}"
            );
        } else {
            assert_eq!(
                got[k], expected[k],
                "{path} {format} row {row} component {k}: {:#x} vs {:#x}",
                got[k], expected[k]
            );
        }
    }
}

/// WGSL turning a value of `format`'s vertex input type in `v` into `vec4<u32>`.
fn to_words(format: VertexFormat, v: &str) -> String {
    let ty = format.vertex_input_type();
    let bits = |e: String| match ty.primitive() {
        PrimitiveType::F32 | PrimitiveType::F16 | PrimitiveType::I32 => {
            format!("bitcast<u32>({e})")
        }
        PrimitiveType::U32 => e,
    };
    let parts: Vec<String> = (0..4)
        .map(|k| {
            if k >= ty.components() {
                "0u".to_owned()
            } else if ty.components() == 1 {
                bits(v.to_owned())
            } else {
                bits(format!("{v}[{k}]"))
            }
        })
        .collect();
    format!("vec4<u32>({})", parts.join(", "))
}

fn vertex_fetch(gpu: &gpudata::Gpu, format: VertexFormat, packed: &[u8]) -> Vec<[u32; 4]> {
    // Vertex strides are multiples of 4: spread the values.
    let element = format.byte_length() as usize;
    let stride = element.next_multiple_of(4);
    let mut spread = vec![0u8; ROWS * stride];
    for (i, v) in packed.chunks_exact(element).enumerate() {
        spread[i * stride..i * stride + element].copy_from_slice(v);
    }
    let data = bytes(
        gpu,
        &spread,
        GpuDataDescriptor::new(format, ROWS as u64).with_byte_stride(stride as u64),
    );
    let constant = GpuConstant::from_bytes(format, &packed[..element]).unwrap();
    let table = GpuTable::from_columns(
        [
            (
                "v",
                GpuColumn::from(GpuVector::from_data("v", vec![data]).unwrap()),
            ),
            ("c", constant.into()),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    let bindings = table
        .render_bindings(gpu, RenderOptions::default())
        .unwrap();
    let ty = format.vertex_input_type();
    let shader = format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) a: vec4<u32>,
    @location(1) @interpolate(flat) b: vec4<u32>,
}}
@vertex fn vs_main(@builtin(vertex_index) index: u32, @location(0) v: {ty}, @location(1) c: {ty}) -> Out {{
    var out: Out;
    out.position = vec4<f32>((f32(index) + 0.5) / {ROWS}.0 * 2.0 - 1.0, 0.0, 0.0, 1.0);
    out.a = {a};
    out.b = {b};
    return out;
}}
struct Targets {{
    @location(0) a: vec4<u32>,
    @location(1) b: vec4<u32>,
}}
@fragment fn fs_main(v: Out) -> Targets {{
    return Targets(v.a, v.b);
}}
",
        a = to_words(format, "v"),
        b = to_words(format, "c"),
    );
    let targets = render_capture(
        gpu,
        &shader,
        &bindings.vertex_layouts(),
        2,
        ROWS as u32,
        |pass| {
            bindings.batches()[0].draw_rows(pass, 0..1).unwrap();
        },
    );
    // Every row's constant must be row 0's value.
    for (i, c) in targets[1].iter().enumerate() {
        assert_eq!(
            *c, targets[0][0],
            "{format}: zero-stride constant at row {i}"
        );
    }
    targets[0].clone()
}

fn storage(gpu: &gpudata::Gpu, format: VertexFormat, packed: &[u8]) -> (Vec<[u32; 4]>, [u32; 4]) {
    let element = format.byte_length() as usize;
    let data = bytes(gpu, packed, GpuDataDescriptor::new(format, ROWS as u64));
    let constant = GpuConstant::from_bytes(format, &packed[..element]).unwrap();
    let table = GpuTable::from_columns(
        [
            (
                "v",
                GpuColumn::from(GpuVector::from_data("v", vec![data]).unwrap()),
            ),
            ("c", constant.into()),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    let storage = table.storage_bindings(gpu).unwrap();
    let batch = &storage.batches()[0];
    let wgsl = storage.wgsl(0, 0).unwrap();
    naga_validate(format, &wgsl);
    let shader = format!(
        r"{wgsl}
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let row = g.x;
    if (row < {ROWS}u) {{
        let v = v_at(row);
        out[row] = {a};
    }}
    if (row == {ROWS}u) {{
        let c = c_at(row);
        out[row] = {c};
    }}
}}
",
        a = to_words(format, "v"),
        c = to_words(format, "c"),
    );
    let words = compute_capture(
        gpu,
        &shader,
        batch.bind_group_layout_entries(0, wgpu::ShaderStages::COMPUTE),
        batch.bind_group_entries(0),
        2,
        (ROWS as u64 + 1) * 4,
        ROWS as u32 + 1,
    );
    let rows: Vec<[u32; 4]> = words
        .chunks_exact(4)
        .map(|w| [w[0], w[1], w[2], w[3]])
        .collect();
    (rows[..ROWS].to_vec(), rows[ROWS])
}

#[test]
fn every_format_agrees_through_host_vertex_fetch_and_storage() {
    let gpu = gpu();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for format in VertexFormat::ALL {
        let packed = values(format, &mut rng);
        let expected = host_words(format, &packed);
        let (stored, constant) = storage(&gpu, format, &packed);
        for (i, (g, e)) in stored.iter().zip(&expected).enumerate() {
            assert_words("storage accessor", format, i, *g, *e);
        }
        assert_words("uniform constant", format, 0, constant, expected[0]);
        if format.is_webgl_only() {
            continue;
        }
        let fetched = vertex_fetch(&gpu, format, &packed);
        for (i, e) in expected.iter().enumerate() {
            assert_words("vertex fetch", format, i, fetched[i], *e);
        }
    }
}

/// The accessors are portable WGSL: naga validates them without any optional capability.
fn naga_validate(format: VertexFormat, wgsl: &str) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{format}: {}\n{wgsl}", e.emit_to_string(wgsl)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{format}: {e:?}\n{wgsl}"));
}

#[test]
fn constant_wgsl_validates_with_naga_for_every_format() {
    let gpu = gpu();
    let binding = |name: &str, constant| ConstantBinding::new(&gpu, name, constant).unwrap();
    for format in VertexFormat::ALL {
        let constant =
            GpuConstant::from_bytes(format, &vec![0u8; format.byte_length() as usize]).unwrap();
        naga_validate(format, &binding("value", constant).wgsl(0, 3).unwrap());
    }
    let error = binding("2d", GpuConstant::from_value(1.0f32))
        .wgsl(0, 0)
        .unwrap_err();
    assert_eq!(
        error,
        gpudata::TableError::Wgsl(gpudata::error::WgslError::InvalidName { name: "2d".into() })
    );
}
