//! The vertex-state rules against wgpu itself: random vertex states (several buffers of random
//! formats, offsets, strides, step modes and locations) and random vertex entry points (inputs of
//! every scalar kind, `f16` included, 1 to 4 components, as arguments or struct members, some
//! fed, some not) each go through `Shader::check_vertex_state` and through a real
//! `create_render_pipeline` under a validation error scope; the verdicts agree on every case. On
//! the cases whose only question is the inputs' scalar kinds, the derive's compile-time rule
//! (`__private::feed_problem`, the `const fn` a `vertex_entry` assertion calls) agrees too.

use std::fmt::Write as _;

use gpudata::__private::{ShaderInput, feed_problem};
use gpudata::check::{
    MismatchError, Shader, ShaderCheckError, VertexAttributeInput, VertexBufferInput,
};
use gpudata::format::{PrimitiveType, ShaderType};
use gpudata::{Gpu, GpuStruct as _, StepMode, VertexFormat};
use gpudata_suite::render;

use crate::support::{Rng, featured_gpu, validation_error};

/// The vertex-state cases (one vertex state against one entry point: one pipeline) to run.
const CASES: usize = 1500;

/// One attribute: format, byte offset, location.
#[derive(Clone, Debug)]
struct Attribute {
    format: VertexFormat,
    offset: u64,
    location: u32,
}

/// One vertex buffer.
#[derive(Clone, Debug)]
struct Buffer {
    stride: u64,
    instance: bool,
    attributes: Vec<Attribute>,
}

/// One entry point's inputs: location and type; `members` puts them in an input struct.
#[derive(Clone, Debug)]
struct Entry {
    inputs: Vec<(u32, ShaderType)>,
    members: bool,
}

fn fetchable() -> Vec<VertexFormat> {
    VertexFormat::ALL
        .into_iter()
        .filter(|f| !f.is_webgl_only())
        .collect()
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// `true` with probability `percent` / 100.
fn chance(rng: &mut Rng, percent: u64) -> bool {
    rng.below(100) < percent
}

/// A random vertex state: 1 to 3 buffers (rarely past the buffer limit), 0 to 4 attributes each
/// at aligned offsets and locations from a pool of 10 (rarely misaligned, past the stride, fed
/// twice, or at the location limit), strides the rows' ends rounded to 4 (rarely 0, unaligned
/// or past the stride limit).
fn random_buffers(rng: &mut Rng, limits: &wgpu::Limits) -> Vec<Buffer> {
    let formats = fetchable();
    let count = if chance(rng, 2) {
        limits.max_vertex_buffers as usize + 1
    } else {
        1 + rng.below(3) as usize
    };
    let mut pool: Vec<u32> = (0..10).collect();
    let mut used: Vec<u32> = Vec::new();
    let mut buffers = Vec::with_capacity(count);
    for _ in 0..count {
        let n = if count > 3 {
            rng.below(2)
        } else {
            rng.below(5)
        };
        let mut attributes = Vec::new();
        let mut end = 0u64;
        for _ in 0..n {
            let format = pick(rng, &formats);
            let align = format.byte_length().min(4);
            let mut offset = end.next_multiple_of(align);
            if chance(rng, 3) {
                offset += 1 + rng.below(2);
            }
            end = offset + format.byte_length();
            let location = if chance(rng, 2) {
                limits.max_vertex_attributes + rng.below(2) as u32
            } else if pool.is_empty() || (!used.is_empty() && chance(rng, 4)) {
                pick(rng, &used)
            } else {
                pool.swap_remove(rng.below(pool.len() as u64) as usize)
            };
            used.push(location);
            attributes.push(Attribute {
                format,
                offset,
                location,
            });
        }
        let stride = match rng.below(100) {
            0..=3 => 0,
            4..=6 => end.next_multiple_of(4) + 2,
            7 => u64::from(limits.max_vertex_buffer_array_stride) + 4,
            8..=9 => end.saturating_sub(4).next_multiple_of(4),
            _ => end.next_multiple_of(4).max(4),
        };
        buffers.push(Buffer {
            stride,
            instance: chance(rng, 40),
            attributes,
        });
    }
    buffers
}

/// The kind a format delivers to a shader.
fn kind_of(format: VertexFormat) -> PrimitiveType {
    format.vertex_input_type().primitive()
}

/// A random entry point over the fed locations: each read with probability 70%, mostly of the
/// attribute's kind (`f16` for a float one, sometimes), any component count; sometimes a
/// location nothing feeds.
fn random_entry(rng: &mut Rng, buffers: &[Buffer], f16: bool) -> Entry {
    let mut inputs: Vec<(u32, ShaderType)> = Vec::new();
    let kinds = [
        PrimitiveType::F32,
        PrimitiveType::I32,
        PrimitiveType::U32,
        PrimitiveType::F16,
    ];
    let kinds = if f16 { &kinds[..] } else { &kinds[..3] };
    for attribute in buffers.iter().flat_map(|b| &b.attributes) {
        let location = attribute.location;
        if location >= 10 || inputs.iter().any(|(l, _)| *l == location) || !chance(rng, 70) {
            continue;
        }
        let mut kind = if chance(rng, 80) {
            kind_of(attribute.format)
        } else {
            pick(rng, kinds)
        };
        if kind == PrimitiveType::F32 && f16 && chance(rng, 25) {
            kind = PrimitiveType::F16;
        }
        inputs.push((location, ShaderType::new(kind, 1 + rng.below(4) as u32)));
    }
    if chance(rng, 15) {
        let location = 10 + rng.below(4) as u32;
        inputs.push((
            location,
            ShaderType::new(pick(rng, kinds), 1 + rng.below(4) as u32),
        ));
    }
    Entry {
        inputs,
        members: chance(rng, 30),
    }
}

/// The WGSL of vertex entry points named `names` (`vs0`, `vs1`, ...: gpudata's check reads them
/// all at once; `vs`: the one a pipeline of `gpudata_suite::render` uses) and a fragment entry
/// point `fs`.
fn wgsl(names: &[&str], entries: &[Entry]) -> String {
    let mut out = String::new();
    if entries
        .iter()
        .flat_map(|e| &e.inputs)
        .any(|(_, t)| t.primitive() == PrimitiveType::F16)
    {
        out.push_str("enable f16;\n");
    }
    for ((e, entry), name) in entries.iter().enumerate().zip(names) {
        let declared: Vec<String> = entry
            .inputs
            .iter()
            .map(|(location, ty)| format!("@location({location}) in{location}: {ty}"))
            .collect();
        let params = if entry.members && !declared.is_empty() {
            writeln!(out, "struct In{e} {{ {} }}", declared.join(", ")).unwrap();
            format!("input: In{e}")
        } else {
            declared.join(", ")
        };
        writeln!(
            out,
            "@vertex fn {name}({params}) -> @builtin(position) vec4<f32> {{ return vec4<f32>(0.0, 0.0, 0.0, 1.0); }}"
        )
        .unwrap();
    }
    out.push_str("@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n");
    out
}

fn inputs_of(buffers: &[Buffer]) -> Vec<VertexBufferInput> {
    buffers
        .iter()
        .enumerate()
        .map(|(b, buffer)| VertexBufferInput {
            name: format!("b{b}"),
            array_stride: buffer.stride,
            step_mode: if buffer.instance {
                StepMode::Instance
            } else {
                StepMode::Vertex
            },
            attributes: buffer
                .attributes
                .iter()
                .enumerate()
                .map(|(a, attribute)| VertexAttributeInput {
                    name: format!("a{a}"),
                    format: attribute.format,
                    offset: attribute.offset,
                    location: attribute.location,
                })
                .collect(),
        })
        .collect()
}

/// wgpu's verdict: the validation error of a render pipeline with these buffers and the vertex
/// entry point `vs` of `wgsl`, if any.
fn wgpu_error(gpu: &Gpu, wgsl: &str, buffers: &[Buffer]) -> Option<String> {
    let attributes: Vec<Vec<wgpu::VertexAttribute>> = buffers
        .iter()
        .map(|b| {
            b.attributes
                .iter()
                .map(|a| wgpu::VertexAttribute {
                    format: a.format.to_wgpu().expect("fetchable"),
                    offset: a.offset,
                    shader_location: a.location,
                })
                .collect()
        })
        .collect();
    let layouts: Vec<Option<wgpu::VertexBufferLayout<'_>>> = buffers
        .iter()
        .zip(&attributes)
        .map(|(b, attributes)| {
            Some(wgpu::VertexBufferLayout {
                array_stride: b.stride,
                step_mode: if b.instance {
                    wgpu::VertexStepMode::Instance
                } else {
                    wgpu::VertexStepMode::Vertex
                },
                attributes,
            })
        })
        .collect();
    let topology = wgpu::PrimitiveTopology::TriangleList;
    validation_error(gpu, || render::pipeline(gpu, wgsl, &layouts, topology)).1
}

/// The derive's verdict on the inputs' kinds: `feed_problem` for every input read from the
/// attribute feeding its location first.
fn derive_accepts(buffers: &[Buffer], entry: &Entry) -> bool {
    entry.inputs.iter().all(|(location, ty)| {
        let feeding = buffers
            .iter()
            .flat_map(|b| &b.attributes)
            .find(|a| a.location == *location);
        feeding.is_none_or(|a| {
            let input = ShaderInput {
                path: "vs(input)",
                at: "case.wgsl:1:1",
                location: *location,
                ty: Some(*ty),
                type_name: "input",
            };
            feed_problem("field", a.format, &input).is_none()
        })
    })
}

fn describe(buffers: &[Buffer], source: &str) -> String {
    format!("{buffers:#?}\n{source}")
}

#[test]
fn vertex_states_agree_with_wgpu_on_random_cases() {
    // At most 8 buffers (WebGPU's default): past 16, wgpu 30's front end panics instead of
    // returning a validation error (the check holds every device to 16; tested beside this).
    let gpu = featured_gpu("vertex states", wgpu::Features::SHADER_F16, |limits| {
        limits.max_vertex_buffers = limits.max_vertex_buffers.min(8);
    });
    let f16 = gpu.device().features().contains(wgpu::Features::SHADER_F16);
    let limits = gpu.limits().clone();
    eprintln!(
        "vertex limits: {} buffers, {} attributes, stride {}",
        limits.max_vertex_buffers,
        limits.max_vertex_attributes,
        limits.max_vertex_buffer_array_stride
    );
    let mut rng = Rng::new(0x7e47_57a7e);
    let (mut cases, mut accepted, mut kind_cases) = (0, 0, 0);
    let mut f16_cases = 0;
    while cases < CASES {
        let buffers = random_buffers(&mut rng, &limits);
        let entries: Vec<Entry> = (0..1 + rng.below(2))
            .map(|_| random_entry(&mut rng, &buffers, f16))
            .collect();
        let names: Vec<String> = (0..entries.len()).map(|e| format!("vs{e}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let source = wgsl(&names, &entries);
        let shader = Shader::parse(&source).expect("the case's wgsl parses");
        let (_, error) = validation_error(&gpu, || {
            gpu.device()
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: None,
                    source: wgpu::ShaderSource::Wgsl(source.as_str().into()),
                })
        });
        assert_eq!(error, None, "the case's shader is valid:\n{source}");
        let inputs = inputs_of(&buffers);
        let mut all = true;
        for (name, entry) in names.iter().zip(&entries) {
            let alone = wgsl(&["vs"], std::slice::from_ref(entry));
            let wgpu = wgpu_error(&gpu, &alone, &buffers);
            let ours = shader.check_vertex_state(&[name], &inputs, &limits);
            assert_eq!(
                ours.is_ok(),
                wgpu.is_none(),
                "case {cases} (`{name}`): gpudata says {ours:?}, wgpu says {wgpu:?}\n{}",
                describe(&buffers, &source)
            );
            // Where only the kinds decide, the derive's rule decides alike.
            let kinds_only = match &ours {
                Ok(()) => true,
                Err(ShaderCheckError::Mismatches { mismatches, .. }) => mismatches
                    .iter()
                    .all(|m| matches!(m.error, MismatchError::InputKind { .. })),
                Err(_) => false,
            };
            if kinds_only {
                kind_cases += 1;
                assert_eq!(
                    derive_accepts(&buffers, entry),
                    wgpu.is_none(),
                    "case {cases} (`{name}`): the derive's rule disagrees with wgpu ({wgpu:?})\n{}",
                    describe(&buffers, &source)
                );
            }
            if entry
                .inputs
                .iter()
                .any(|(_, t)| t.primitive() == PrimitiveType::F16)
            {
                f16_cases += 1;
            }
            all &= wgpu.is_none();
            accepted += usize::from(wgpu.is_none());
            cases += 1;
        }
        assert_eq!(
            shader.check_vertex_state(&names, &inputs, &limits).is_ok(),
            all,
            "the entry points {names:?} together\n{}",
            describe(&buffers, &source)
        );
    }
    // Both verdicts are common, and the kind rule is tested on hundreds of cases.
    assert!(
        accepted > CASES / 5 && accepted < CASES * 4 / 5,
        "{accepted} of {cases} accepted"
    );
    assert!(kind_cases > CASES / 2, "{kind_cases} kind-only cases");
    assert!(!f16 || f16_cases > 50, "{f16_cases} cases with f16 inputs");
    println!(
        "{cases} vertex states: {accepted} accepted by both, {kind_cases} decided by kinds alone, {f16_cases} with f16 inputs (shader-f16: {f16})"
    );
}

/// The vertex buffer of both passes: `vs_bake` reads only `position` (an attribute no input
/// reads is allowed), and `normal`'s `sint8x2` feeds `vs_main`'s `vec4<i32>` (component counts
/// may differ): both refused before WebGPU's rules were the check's.
#[derive(gpudata::GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "tests/shaders/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
#[allow(dead_code)]
struct ShadowVertex {
    position: [i8; 4],
    normal: [i8; 2],
}

/// The per-instance tint at location 2.
#[derive(gpudata::GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 2,
    shader = "tests/shaders/shadow.wgsl",
    vertex_entry = "vs_main"
)]
#[allow(dead_code)]
struct Tint {
    tint: gpudata::Unorm8x4,
}

fn mismatches(result: Result<(), ShaderCheckError>) -> Vec<String> {
    match result {
        Err(ShaderCheckError::Mismatches { mismatches, .. }) => {
            mismatches.iter().map(ToString::to_string).collect()
        }
        other => panic!("expected mismatches, got {other:?}"),
    }
}

#[test]
fn one_buffer_set_serves_a_depth_pass_and_a_shaded_pass() {
    let shader = Shader::parse(include_str!("../shaders/shadow.wgsl")).unwrap();
    let limits = wgpu::Limits::default();
    let vertices = VertexBufferInput::of::<ShadowVertex>("vertices");
    let both = [vertices.clone(), VertexBufferInput::of::<Tint>("tints")];
    assert_eq!(
        shader.check_vertex_state(&["vs_bake", "vs_main"], &both, &limits),
        Ok(())
    );
    assert_eq!(
        shader.check_vertex_inputs("vs_bake", std::slice::from_ref(&vertices)),
        Ok(())
    );
    // A wgpu layout reads as the derived type's buffer, its attributes named by location.
    let from_wgpu =
        VertexBufferInput::from_wgpu("vertices", &ShadowVertex::vertex_buffer_layout()).unwrap();
    assert_eq!(from_wgpu.array_stride, vertices.array_stride);
    assert_eq!(from_wgpu.attributes[1].name, "@location(1)");
    assert_eq!(
        (
            from_wgpu.attributes[1].format,
            from_wgpu.attributes[1].offset
        ),
        (VertexFormat::Sint8x2, 4)
    );
    // The shaded pass needs the tints too; each entry point's problems name it.
    let err = shader
        .check_vertex_state(&["vs_bake", "vs_main"], &[vertices], &limits)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "vertex state for entries vs_bake, vs_main disagrees with the shader in 1 place:\n  \
         `vs_main(tint)` (wgsl 27:18): the shader reads vec4<f32> at location 2, which no host attribute feeds"
    );
    // A uint format at location 2 delivers the wrong kind, named with the input it feeds.
    let uint = VertexBufferInput::from_layout(
        &gpudata::BufferLayout::single("tint", VertexFormat::Uint8x4, 4),
        2,
    );
    let found = mismatches(shader.check_vertex_state(
        &["vs_bake", "vs_main"],
        &[VertexBufferInput::of::<ShadowVertex>("vertices"), uint],
        &limits,
    ));
    assert_eq!(
        found,
        [
            "`tint.tint` (wgsl 27:18): location 2: uint8x4 delivers vec4<u32>, `vs_main(tint)` reads vec4<f32>; a vertex input reads the scalar kind its format delivers: feed it a format of its kind (float, unorm or snorm for f32 and f16; sint for i32; uint for u32) or declare it with u32 components"
        ]
    );
}

/// An attribute at `offset` feeding `location`.
fn attribute(name: &str, format: VertexFormat, offset: u64, location: u32) -> VertexAttributeInput {
    VertexAttributeInput {
        name: name.to_owned(),
        format,
        offset,
        location,
    }
}

/// A per-vertex buffer.
fn buffer(
    name: &str,
    array_stride: u64,
    attributes: Vec<VertexAttributeInput>,
) -> VertexBufferInput {
    VertexBufferInput {
        name: name.to_owned(),
        array_stride,
        step_mode: StepMode::Vertex,
        attributes,
    }
}

#[test]
fn vertex_state_layouts_and_limits_are_named() {
    let shader = Shader::parse(
        "@vertex fn vs(@location(0) a: f32) -> @builtin(position) vec4<f32> { return vec4<f32>(a); }",
    )
    .unwrap();
    let limits = wgpu::Limits::default();
    let check = |buffers: &[VertexBufferInput]| {
        mismatches(shader.check_vertex_state(&["vs"], buffers, &limits))
    };
    assert_eq!(
        check(&[
            buffer("rows", 6, vec![attribute("a", VertexFormat::Float32, 0, 0)]),
            buffer("odd", 8, vec![attribute("b", VertexFormat::Float32, 2, 1)]),
            buffer(
                "short",
                4,
                vec![attribute("c", VertexFormat::Float32x2, 0, 2)]
            ),
            buffer(
                "still",
                0,
                vec![attribute("d", VertexFormat::Float32x4, 2040, 3)]
            ),
            buffer(
                "webgl",
                8,
                vec![attribute("e", VertexFormat::Uint8x3Webgl, 0, 4)]
            ),
            buffer(
                "wide",
                4096,
                vec![attribute("f", VertexFormat::Float32, 0, 16)]
            ),
            buffer(
                "again",
                4,
                vec![attribute("g", VertexFormat::Float32, 0, 0)]
            ),
        ]),
        [
            "`rows`: buffer layout `rows` has byte stride 6: wgpu vertex strides must be a multiple of 4",
            "`odd.b`: attribute `b` at byte offset 2: vertex attributes must be aligned to 4 bytes",
            "`short.c`: attribute `c` spans bytes 0..0+8, past the byte stride 4",
            "`still.d`: attribute `d` ends at byte 2056 (offset 2040 plus 16 bytes), past 2048 bytes, the most a layout with byte stride 0 may read",
            "`webgl.e`: attribute `e` uses WebGL-only format `uint8x3-webgl`, which wgpu cannot fetch as a vertex attribute",
            "`wide`: byte stride 4096 is past the device's limit of 2048 (max_vertex_buffer_array_stride)",
            "`wide.f`: location 16 is past the device's 16 vertex attributes (max_vertex_attributes); use locations below 16",
            "`again.g`: location 0 is fed twice, first by `rows.a`; give each attribute its own location",
        ]
    );
    let many: Vec<VertexAttributeInput> = (0..17)
        .map(|i| attribute("a", VertexFormat::Float32, 4 * u64::from(i), i))
        .collect();
    let found = check(&[buffer("many", 68, many)]);
    assert_eq!(
        found[0],
        "`vertex state`: 17 attributes in all, past the device's limit of 16 (max_vertex_attributes)"
    );
    // wgpu 30 takes at most 16 buffers, whatever the device says (lavapipe says 32).
    let buffers: Vec<VertexBufferInput> = (0..17)
        .map(|i| buffer(&format!("b{i}"), 4, vec![]))
        .collect();
    let roomy = wgpu::Limits {
        max_vertex_buffers: 32,
        ..wgpu::Limits::default()
    };
    let found = mismatches(shader.check_vertex_state(&["vs"], &buffers, &roomy));
    assert_eq!(
        found[0],
        "`vertex state`: 17 vertex buffers, past the limit of 16 (the device's max_vertex_buffers, and at most 16 in wgpu)"
    );
    assert!(matches!(
        shader.check_vertex_state(&["vs"], &buffers[..9], &limits),
        Err(ShaderCheckError::Mismatches { ref mismatches, .. })
            if mismatches[0].error == MismatchError::TooManyVertexBuffers { count: 9, limit: 8 }
    ));
}
