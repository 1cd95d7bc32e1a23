//! The codec against the device, exhaustively: every bit pattern of every 8- and 16-bit
//! component of every format (all 256 or all 65,536, in every lane), and a sample of
//! `unorm10-10-10-2`'s 2^32 words, decoded three ways:
//!
//! 1. on the GPU by vertex fetch: a point list whose vertex shader receives the value and passes
//!    its bits (flat) to a fragment shader that stores them;
//! 2. on the GPU by the format's WGSL snippet ([`wgsl_codec`]) in a compute shader, which also
//!    encodes the decoded value back with the WGSL encode snippet;
//! 3. on the host by [`codec`].
//!
//! The WGSL snippets and the host agree bit for bit on every lane, and so does vertex fetch for
//! integer and float16 formats; for normalized formats lavapipe's vertex fetch is allowed one
//! ulp (see [`vertex_fetch_matches`]).

use crate::support;

use gpudata::format::codec::{self, ShaderScalar};
use gpudata::format::wgsl_codec;
use gpudata::{Gpu, VertexFormat};

/// Values of `format` in which every lane runs through every pattern of its component: value
/// `i` holds `(i + lane * step) mod n` in lane `lane` (an odd `step`, so each lane is a
/// permutation of all `n` patterns).
fn every_pattern(format: VertexFormat) -> (Vec<u8>, usize) {
    let unit = codec::unit_byte_length(format) as usize;
    let n = 1usize << (8 * unit);
    let step = n / 4 + 1;
    let mut bytes = Vec::with_capacity(n * format.byte_length() as usize);
    for i in 0..n {
        for lane in 0..format.components() as usize {
            let pattern = (i + lane * step) % n;
            bytes.extend_from_slice(&pattern.to_le_bytes()[..unit]);
        }
    }
    (bytes, n)
}

/// `unorm10-10-10-2` words: 4,096 that run every field through all its values (x = j mod 1024,
/// y = 7j + 3, z = 13j + 5 mod 1024, w = j mod 4), then 61,440 from a fixed random sequence.
fn packed_sample() -> (Vec<u8>, usize) {
    let mut rng = support::Rng::new(0x1010_1002);
    let words = (0u32..65_536).map(|j| {
        if j < 4096 {
            (j % 1024)
                | (((7 * j + 3) % 1024) << 10)
                | (((13 * j + 5) % 1024) << 20)
                | (j % 4) << 30
        } else {
            rng.next_u32()
        }
    });
    let bytes: Vec<u8> = words.flat_map(u32::to_le_bytes).collect();
    (bytes, 65_536)
}

/// The host decode of lane `lane` of value `i`, as bits.
fn host_bits(format: VertexFormat, bytes: &[u8], i: usize, lane: u32) -> u32 {
    let size = format.byte_length() as usize;
    codec::decode_lane(format, &bytes[i * size..(i + 1) * size], lane)
        .expect("lane inside the value")
        .to_bits()
}

/// Vertex fetch of `count` values of `format` (each padded to a 4-byte stride, as vertex
/// buffers need): per value, the four lanes' bits (zero past the format's components). Drawn with
/// [`support::draw_points`] in runs as wide as the device's widest render target.
fn fetch(gpu: &Gpu, format: VertexFormat, bytes: &[u8], count: usize) -> Vec<u32> {
    let size = format.byte_length() as usize;
    let stride = size.div_ceil(4) * 4;
    let mut strided = vec![0u8; count * stride];
    for i in 0..count {
        strided[i * stride..i * stride + size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
    }
    let vertices = support::buffer_with(gpu, &strided, wgpu::BufferUsages::VERTEX);
    let run = (gpu.limits().max_texture_dimension_2d as usize).min(count);
    let ty = format.vertex_input_type();
    let lanes: Vec<String> = (0..4)
        .map(|k| match (ty.components(), k) {
            (1, 0) => "bitcast<u32>(a)".to_owned(),
            (c, k) if k < c => format!("bitcast<u32>(a.{})", ["x", "y", "z", "w"][k as usize]),
            _ => "0u".to_owned(),
        })
        .collect();
    let wgsl = format!(
        "struct V {{ @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) i: u32, @location(1) @interpolate(flat) bits: vec4<u32> }}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@vertex fn vs(@builtin(vertex_index) vi: u32, @location(0) a: {ty}) -> V {{
    var o: V;
    o.pos = vec4<f32>((f32(vi) + 0.5) / {run}.0 * 2.0 - 1.0, 0.0, 0.0, 1.0);
    o.i = vi;
    o.bits = vec4<u32>({});
    return o;
}}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {{
    for (var k = 0u; k < 4u; k++) {{ out[v.i * 4u + k] = v.bits[k]; }}
    return vec4<f32>(1.0);
}}
",
        lanes.join(", ")
    );
    let module = support::shader(gpu, "vertex fetch of every pattern", &wgsl);
    let attributes = [wgpu::VertexAttribute {
        format: format.try_to_wgpu().expect("a fetchable format"),
        offset: 0,
        shader_location: 0,
    }];
    let layout = wgpu::VertexBufferLayout {
        array_stride: stride as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &attributes,
    };
    let out_size = (run * 16) as u64;
    let mut words = Vec::with_capacity(count * 4);
    for start in (0..count).step_by(run) {
        let out = support::buffer(
            gpu,
            out_size,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let slice = vertices.slice((start * stride) as u64..((start + run) * stride) as u64);
        let error =
            support::draw_points(gpu, &module, &[(slice, layout.clone())], &out, run as u32);
        assert_eq!(error, None, "{format}: the fetch pipeline");
        words.extend(support::u32s(&support::read_buffer(gpu, &out, 0, out_size)));
    }
    words
}

/// The WGSL snippets in a compute shader over `count` packed values of `format`: per value, four
/// lanes of decoded bits, then (after all values) four lanes of the decoded value encoded back.
fn snippets(gpu: &Gpu, format: VertexFormat, bytes: &[u8], count: usize) -> Vec<u32> {
    let size = format.byte_length();
    let unit = codec::unit_byte_length(format);
    let mut body = format!("    let base = i * {size}u;\n");
    for u in 0..size / unit {
        let at = format!("base + {}u", u * unit);
        let raw = match unit {
            4 => format!("words[({at}) / 4u]"),
            _ => format!(
                "extractBits(words[({at}) / 4u], (({at}) % 4u) * 8u, {}u)",
                unit * 8
            ),
        };
        body += &format!("    let r{u} = {raw};\n");
    }
    let from = codec::decoded_type(format);
    for lane in 0..format.components() {
        let stored = codec::fetch_order(format, lane);
        let unit_name = format!("r{}", codec::unit_of_lane(format, stored));
        let decoded = wgsl_codec::decode_unit(format, stored, &unit_name);
        let encoded = wgsl_codec::encode_unit(format, stored, &format!("d{lane}"), from);
        body += &format!(
            "    let d{lane} = {decoded};\n    out[i * 4u + {lane}u] = bitcast<u32>(d{lane});\n    out[{}u + i * 4u + {lane}u] = {encoded};\n",
            count * 4
        );
    }
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read> words: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= {count}u) {{ return; }}
{body}}}
"
    );
    let input = support::buffer_with(gpu, bytes, wgpu::BufferUsages::STORAGE);
    let read_only = wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let words = wgpu::BindGroupEntry {
        binding: 0,
        resource: input.as_entire_binding(),
    };
    support::compute_capture(
        gpu,
        &wgsl,
        vec![read_only],
        vec![words],
        1,
        (count * 8) as u64,
        count as u32,
    )
}

/// What one format's comparison found.
#[derive(Debug, Default)]
struct Tally {
    /// Lanes compared.
    lanes: usize,
    /// Vertex-fetch lanes that differ from the host in bits (each checked against the allowed
    /// difference).
    fetch_differs: usize,
}

/// Whether vertex fetch's `fetched` bits may stand for the host's `host` bits of a value of
/// `format`.
///
/// Integers and float16 (NaN payloads included) must match bit for bit, and they do on
/// lavapipe. Normalized formats may differ by **one ulp**, never at 0 or ±1: WebGPU defines the
/// conversion as `v / max` without fixing its rounding, and WGSL documents an `f32` division as
/// accurate to 2.5 ulp; lavapipe's vertex fetch (unlike its shader division, which the WGSL
/// snippet uses and which matches the host exactly) is one ulp off for 126 of unorm8's 256
/// values, 16 of snorm8's, 512 of unorm16's 65,536, 1,536 of snorm16's and about 1.7% of the
/// `unorm10-10-10-2` lanes. The check is the tighter one ulp, counted per format in
/// [`Tally::fetch_differs`].
fn vertex_fetch_matches(format: VertexFormat, fetched: u32, host: u32) -> bool {
    if fetched == host {
        return true;
    }
    let (f, h) = (f32::from_bits(fetched), f32::from_bits(host));
    let endpoint = h == 0.0 || h.abs() == 1.0;
    format.is_normalized()
        && !endpoint
        && f.is_finite()
        && (fetched >> 31) == (host >> 31)
        && fetched.abs_diff(host) == 1
}

/// Decodes `count` values of `format` three ways and checks them; returns the tally.
fn check(gpu: &Gpu, format: VertexFormat, bytes: &[u8], count: usize) -> Tally {
    let mut tally = Tally::default();
    let from_snippets = snippets(gpu, format, bytes, count);
    let fetched = format.to_wgpu().map(|_| fetch(gpu, format, bytes, count));
    let size = format.byte_length() as usize;
    for i in 0..count {
        let value = &bytes[i * size..(i + 1) * size];
        for lane in 0..format.components() {
            let k = i * 4 + lane as usize;
            let host = host_bits(format, bytes, i, lane);
            tally.lanes += 1;
            assert_eq!(
                from_snippets[k], host,
                "{format} value {i} ({value:02x?}) lane {lane}: the WGSL snippet decodes {:#010x}, the host codec {host:#010x}",
                from_snippets[k]
            );
            let stored = codec::fetch_order(format, lane);
            let decoded = codec::decode_lane(format, value, lane).expect("lane inside the value");
            let host_encoded = codec::encode_unit(format, stored, decoded);
            let finite = matches!(decoded, ShaderScalar::F32(v) if v.is_finite())
                || !matches!(decoded, ShaderScalar::F32(_));
            // WGSL's pack2x16float is indeterminate outside the finite binary16 range.
            if finite || format.data_type() != gpudata::format::DataType::Float16 {
                assert_eq!(
                    from_snippets[count * 4 + k],
                    host_encoded,
                    "{format} value {i} lane {lane}: the WGSL snippet encodes {decoded:?} as {:#x}, the host codec as {host_encoded:#x}",
                    from_snippets[count * 4 + k]
                );
            }
            if let Some(fetched) = &fetched {
                if fetched[k] != host {
                    tally.fetch_differs += 1;
                }
                assert!(
                    vertex_fetch_matches(format, fetched[k], host),
                    "{format} value {i} ({value:02x?}) lane {lane}: vertex fetch delivers {:#010x} ({}), the host codec {host:#010x} ({})",
                    fetched[k],
                    f32::from_bits(fetched[k]),
                    f32::from_bits(host)
                );
            }
        }
    }
    tally
}

#[test]
fn every_8_and_16_bit_pattern_decodes_alike_by_vertex_fetch_wgsl_and_host() {
    let gpu = support::gpu();
    let mut total = 0;
    let mut formats = 0;
    for format in VertexFormat::ALL {
        if codec::unit_byte_length(format) > 2 {
            continue;
        }
        let (bytes, count) = every_pattern(format);
        let tally = check(&gpu, format, &bytes, count);
        assert_eq!(
            tally.lanes,
            count * format.components() as usize,
            "{format}: every lane of every value"
        );
        eprintln!(
            "{format}: {count} patterns × {} lanes; vertex fetch {}",
            format.components(),
            if format.is_webgl_only() {
                "n/a (webgl-only)".to_owned()
            } else {
                format!("differs (by one ulp) in {} lanes", tally.fetch_differs)
            }
        );
        total += tally.lanes;
        formats += 1;
    }
    // 36 formats with 8- or 16-bit components (28 fetchable, 8 webgl-only).
    assert_eq!(formats, 36);
    eprintln!("{formats} formats, {total} lanes compared");
}

#[test]
fn unorm10_10_10_2_sample_decodes_alike_by_vertex_fetch_wgsl_and_host() {
    let gpu = support::gpu();
    let (bytes, count) = packed_sample();
    let tally = check(&gpu, VertexFormat::Unorm10_10_10_2, &bytes, count);
    assert_eq!(tally.lanes, count * 4);
    eprintln!(
        "unorm10-10-10-2: {count} words × 4 lanes; vertex fetch differs (by one ulp) in {} lanes",
        tally.fetch_differs
    );
}

#[test]
fn thirty_two_bit_formats_decode_alike_on_a_sample() {
    let gpu = support::gpu();
    let mut rng = support::Rng::new(0x3232);
    for format in [
        VertexFormat::Float32x4,
        VertexFormat::Uint32x4,
        VertexFormat::Sint32x4,
    ] {
        let count = 4096;
        let mut bytes: Vec<u8> = (0..count * 4)
            .flat_map(|_| rng.next_u32().to_le_bytes())
            .collect();
        // Exact float specials first: ±0, ±inf, a quiet NaN, the smallest subnormal.
        for (j, w) in [0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001, 1]
            .iter()
            .enumerate()
        {
            bytes[j * 4..j * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        let tally = check(&gpu, format, &bytes, count);
        assert_eq!(tally.lanes, count * 4);
    }
}

/// The operation kernels decode with the same snippets: `x * 1.0` over every pattern of every
/// 8/16-bit format gives, bit for bit, the CPU reference's result and the host codec's value
/// (multiplying by one is exact, so both equal the decoded value itself).
#[test]
fn operation_kernels_decode_every_pattern_as_the_cpu_reference_and_the_codec() {
    use gpudata::ops::cpu::{self, HostInput, HostOperand};
    use gpudata::ops::{self, ArithmeticOp};

    let gpu = support::gpu();
    for format in VertexFormat::ALL {
        if codec::unit_byte_length(format) > 2 {
            continue;
        }
        let (bytes, count) = every_pattern(format);
        let buffer = support::buffer_with(&gpu, &bytes, wgpu::BufferUsages::STORAGE);
        let view = gpudata::GpuDataView::new(&buffer, format, count as u64, 0, None)
            .expect("a packed view");
        let product = ops::multiply(&gpu, view, 1.0).expect("multiply on the gpu");
        let kernel = product
            .as_view()
            .expect("a fixed-format result")
            .read_values(&gpu)
            .expect("read back");
        let kernel = kernel.as_f32().expect("a float32 result");
        let reference = cpu::arithmetic(
            ArithmeticOp::Multiply,
            &[
                HostInput::new(&bytes, format, count as u64).into(),
                HostOperand::from(1.0),
            ],
        )
        .expect("the cpu reference");
        let reference = support::f32s(reference.bytes());
        let components = format.components() as usize;
        assert_eq!(kernel.len(), count * components, "{format}");
        for (k, (&gpu_value, &cpu_value)) in kernel.iter().zip(&reference).enumerate() {
            let (i, lane) = (k / components, (k % components) as u32);
            let size = format.byte_length() as usize;
            // The operations read lanes in storage order (`unorm8x4-bgra` as `unorm8x4`, as
            // luma.gl's evaluator does): undo vertex fetch's swizzle (its own inverse).
            let fetched_as = codec::fetch_order(format, lane);
            let host = codec::decode_lane(format, &bytes[i * size..(i + 1) * size], fetched_as)
                .expect("lane inside the value")
                .to_f32();
            assert_eq!(
                gpu_value.to_bits(),
                cpu_value.to_bits(),
                "{format} value {i} lane {lane}: kernel {gpu_value:e}, cpu reference {cpu_value:e}"
            );
            assert_eq!(
                cpu_value.to_bits(),
                host.to_bits(),
                "{format} value {i} lane {lane}: cpu reference {cpu_value:e}, codec {host:e}"
            );
        }
    }
}
