//! Host and shader agree: derived structs checked against `tests/shaders/particles.wgsl` at
//! compile time (`#[gpu(shader = ...)]`: these items compile only because they agree) and at
//! run time (`gpudata::check`), and every run-time error with its whole message.

use gpudata::check::{
    HostBinding, MismatchError, Shader, ShaderCheckError, ShaderMismatch, VertexBufferInput,
    WgslLocation,
};
use gpudata::{BufferLayout, GpuDataStructFormat, GpuStruct, StructLayout, Unorm8x4, VertexFormat};

const PARTICLES: &str = include_str!("../shaders/particles.wgsl");

/// The storage struct, checked against WGSL `Particle` when it compiles.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "tests/shaders/particles.wgsl", shader_struct = "Particle")]
#[allow(dead_code)]
struct Particle {
    position: [f32; 3],
    mass: f32,
    velocity: [f32; 3],
    color: u32,
}

/// Per-vertex attributes at locations 0 and 1 of `vs_main`, checked when it compiles.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "tests/shaders/particles.wgsl",
    vertex_entry = "vs_main"
)]
#[allow(dead_code)]
struct Body {
    position: [f32; 3],
    color: Unorm8x4,
}

/// Per-instance attributes at locations 2 and 3.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 2,
    shader = "tests/shaders/particles.wgsl",
    vertex_entry = "vs_main"
)]
#[allow(dead_code)]
struct Instance {
    size: f32,
    id: [u32; 2],
}

fn shader() -> Shader {
    Shader::parse(PARTICLES).expect("the fixture parses")
}

fn mismatches(result: Result<(), ShaderCheckError>) -> Vec<ShaderMismatch> {
    match result {
        Err(ShaderCheckError::Mismatches { mismatches, .. }) => mismatches,
        other => panic!("expected mismatches, got {other:?}"),
    }
}

fn at(line: u32, column: u32) -> Option<WgslLocation> {
    Some(WgslLocation { line, column })
}

fn packed(fields: &[(&str, &str)]) -> GpuDataStructFormat {
    GpuDataStructFormat::parse(StructLayout::Packed, fields.iter().copied()).unwrap()
}

#[test]
fn derived_types_that_compile_against_the_shader_pass_at_run_time_too() {
    let shader = shader();
    assert_eq!(shader.check_struct::<Particle>("Particle"), Ok(()));
    let buffers = [
        VertexBufferInput::of::<Body>("body"),
        VertexBufferInput::of::<Instance>("instances"),
    ];
    assert_eq!(shader.check_vertex_inputs("vs_main", &buffers), Ok(()));
    let binding = HostBinding {
        group: 0,
        binding: 1,
    };
    assert_eq!(
        shader.check_global::<Particle>("particles", binding),
        Ok(())
    );
}

/// The one message of a check that found one mismatch.
fn only(result: Result<(), ShaderCheckError>) -> ShaderMismatch {
    let mut found = mismatches(result);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

#[test]
fn check_struct_reports_offsets_and_the_stride_together() {
    let shader = Shader::parse("struct P {\n    a: f32,\n    b: vec3<f32>,\n}\n").unwrap();
    let err = shader
        .check_struct_format(&packed(&[("a", "float32"), ("b", "float32x3")]), "P")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "struct P disagrees with the shader in 2 places:\n  \
         `b` (wgsl 3:5): host offset 4, shader offset 16 (vec3<f32> aligns to 16); insert a #[gpu(padding)] field before it, or reorder the fields\n  \
         `P` (wgsl 1:1): host stride 16 bytes, shader stride 32 bytes; make the last fields agree or set #[gpu(stride = 32)]"
    );
    let found = mismatches(Err(err));
    assert_eq!(
        found[0].error,
        MismatchError::Offset {
            host: 4,
            shader: 16,
            shader_type: "vec3<f32>".to_owned(),
            align: 16
        }
    );
    assert_eq!(
        found[1].error,
        MismatchError::Stride {
            host: 16,
            shader: 32
        }
    );
}

#[test]
fn check_struct_offset_the_shader_places_earlier() {
    let shader = Shader::parse("struct P { a: u32, b: u32 }").unwrap();
    let host = GpuDataStructFormat::new(
        StructLayout::WgslStorage,
        [("a", VertexFormat::Uint32x2), ("b", VertexFormat::Uint32)],
    )
    .unwrap();
    let found = mismatches(shader.check_struct_format(&host, "P"));
    assert_eq!(
        found[1].to_string(),
        "`b` (wgsl 1:20): host offset 8, shader offset 4 (u32 aligns to 4); the shader places it earlier: reorder the fields, or give the wgsl member an @align"
    );
}

#[test]
fn check_struct_type() {
    let shader = Shader::parse("struct P { color: vec4<f32> }").unwrap();
    // The type and the stride (4 bytes on the host, 16 in the shader) disagree.
    let m =
        mismatches(shader.check_struct_format(&packed(&[("color", "unorm8x4")]), "P")).remove(0);
    assert_eq!(
        m.error,
        MismatchError::Type {
            format: VertexFormat::Unorm8x4,
            carrier: "u32".to_owned(),
            shader_type: "vec4<f32>".to_owned()
        }
    );
    assert_eq!(
        m.to_string(),
        "`color` (wgsl 1:12): host format unorm8x4 is stored as u32, the shader declares vec4<f32>; declare the member as u32 or change the field's type"
    );
}

#[test]
fn check_struct_missing_members_on_either_side() {
    let shader = Shader::parse("struct P { a: f32, c: f32 }").unwrap();
    let found =
        mismatches(shader.check_struct_format(&packed(&[("a", "float32"), ("b", "float32")]), "P"));
    let messages: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "`b` (wgsl 1:1): the shader struct `P` has no member of this name; add it to the wgsl, rename the field with #[gpu(name = \"...\")], or make it #[gpu(padding)]",
            "`c` (wgsl 1:20): the shader member (f32 at offset 4) has no host field; add one, or rename a field with #[gpu(name = \"...\")]",
        ]
    );
    assert_eq!(
        found[0].error,
        MismatchError::MissingInShader {
            shader_struct: "P".to_owned()
        }
    );
    assert_eq!(
        found[1].error,
        MismatchError::MissingOnHost {
            shader_type: "f32".to_owned(),
            offset: 4
        }
    );
}

#[test]
fn check_struct_missing_struct_and_parse_errors() {
    let err = shader().check_struct::<Particle>("Particel").unwrap_err();
    assert_eq!(
        err,
        ShaderCheckError::MissingStruct {
            name: "Particel".to_owned()
        }
    );
    assert_eq!(err.to_string(), "the shader declares no struct `Particel`");
    let err = Shader::parse("struct P {\n    a: f32\n    b: f32,\n}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "wgsl does not parse at 3:5: expected `,`, found \"b\""
    );
    assert!(matches!(
        err,
        ShaderCheckError::Parse {
            line: 3,
            column: 5,
            ..
        }
    ));
}

const VERTEX: &str = "struct In {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
}
@vertex
fn vs(input: In, @location(2) id: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(input.position, f32(id));
}
";

#[test]
fn check_vertex_inputs_unfed_and_kind_and_an_unread_attribute_is_allowed() {
    let shader = Shader::parse(VERTEX).unwrap();
    let layout =
        packed(&[("position", "float32x3"), ("color", "uint8x4")]).buffer_layout("body", None);
    let found = mismatches(shader.check_vertex_inputs(
        "vs",
        &[
            VertexBufferInput::from_layout(&layout, 0),
            // Location 3 is read by no input: WebGPU allows it.
            VertexBufferInput::from_layout(&BufferLayout::single("id", VertexFormat::Uint32, 4), 3),
        ],
    ));
    let messages: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "`body.color` (wgsl 3:18): location 1: uint8x4 delivers vec4<u32>, `vs(color)` reads vec4<f32>; a vertex input reads the scalar kind its format delivers: feed it a format of its kind (float, unorm or snorm for f32 and f16; sint for i32; uint for u32) or declare it with u32 components",
            "`vs(id)` (wgsl 6:31): the shader reads u32 at location 2, which no host attribute feeds",
        ]
    );
    assert_eq!(
        found[0].error,
        MismatchError::InputKind {
            location: 1,
            format: VertexFormat::Uint8x4,
            delivers: "vec4<u32>".to_owned(),
            input: "vs(color)".to_owned(),
            shader_type: "vec4<f32>".to_owned()
        }
    );
    assert_eq!(
        found[1].error,
        MismatchError::UnfedInput {
            location: 2,
            shader_type: "u32".to_owned()
        }
    );
}

#[test]
fn check_vertex_inputs_duplicate_location_and_missing_entry_point() {
    let shader = Shader::parse(VERTEX).unwrap();
    let layout =
        packed(&[("position", "float32x3"), ("color", "unorm8x4")]).buffer_layout("body", None);
    let m = only(shader.check_vertex_inputs(
        "vs",
        &[
            VertexBufferInput::from_layout(&layout, 0),
            VertexBufferInput::from_layout(&BufferLayout::single("id", VertexFormat::Uint32, 4), 2),
            VertexBufferInput::from_layout(
                &BufferLayout::single("again", VertexFormat::Uint32, 4),
                2,
            ),
        ],
    ));
    assert_eq!(
        m.error,
        MismatchError::DuplicateLocation {
            location: 2,
            first: "id.id".to_owned()
        }
    );
    assert_eq!(
        m.to_string(),
        "`again.again`: location 2 is fed twice, first by `id.id`; give each attribute its own location"
    );
    let err = shader.check_vertex_inputs("fs", &[]).unwrap_err();
    assert_eq!(
        err,
        ShaderCheckError::MissingEntryPoint {
            name: "fs".to_owned()
        }
    );
    assert_eq!(err.to_string(), "the shader has no vertex entry point `fs`");
}

const GLOBALS: &str = "struct Row { value: f32 }
@group(0) @binding(2) var<storage, read> rows: array<Row>;
@group(1) @binding(0) var<uniform> count: u32;
var<private> scratch: Row;
";

#[test]
fn check_global_binding_space_and_type() {
    let shader = Shader::parse(GLOBALS).unwrap();
    let host = packed(&[("value", "float32")]);
    let at01 = HostBinding {
        group: 0,
        binding: 1,
    };
    assert_eq!(
        shader.check_global_format(
            &host,
            "rows",
            HostBinding {
                group: 0,
                binding: 2
            }
        ),
        Ok(())
    );
    let m = only(shader.check_global_format(&host, "rows", at01));
    assert_eq!(
        m.error,
        MismatchError::Binding {
            group: 0,
            binding: 1,
            shader_group: 0,
            shader_binding: 2
        }
    );
    assert_eq!(
        m.to_string(),
        "`rows` (wgsl 2:23): host binds @group(0) @binding(1), the shader declares @group(0) @binding(2)"
    );
    let m = only(shader.check_global_format(
        &host,
        "count",
        HostBinding {
            group: 1,
            binding: 0,
        },
    ));
    assert_eq!(
        m.error,
        MismatchError::GlobalType {
            shader_type: "u32".to_owned()
        }
    );
    assert_eq!(
        m.to_string(),
        "`count` (wgsl 3:23): the shader declares u32, which holds no rows of a struct; declare a struct, an array of one, or a struct ending in a runtime-sized array of one"
    );
    let found = mismatches(shader.check_global_format(&host, "scratch", at01));
    let messages: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "`scratch` (wgsl 4:1): the shader declares no buffer at @group(0) @binding(1)",
            "`scratch` (wgsl 4:1): the host binds a uniform or storage buffer, the shader declares var<private>",
        ]
    );
    assert_eq!(
        found[0].error,
        MismatchError::NoBinding {
            group: 0,
            binding: 1
        }
    );
    assert_eq!(
        found[1].error,
        MismatchError::AddressSpace {
            host: "uniform or storage".to_owned(),
            shader: "private".to_owned()
        }
    );
    let err = shader
        .check_global_format(&host, "missing", at01)
        .unwrap_err();
    assert_eq!(
        err,
        ShaderCheckError::MissingGlobal {
            name: "missing".to_owned()
        }
    );
    assert_eq!(err.to_string(), "the shader declares no global `missing`");
}

#[test]
fn check_global_rows_of_a_runtime_tail_name_their_path() {
    let shader = shader();
    let host = packed(&[
        ("position", "float32x3"),
        ("mass", "float32"),
        ("velocity", "float32x3"),
        ("color", "float32"),
    ]);
    let binding = HostBinding {
        group: 0,
        binding: 1,
    };
    let m = only(shader.check_global_format(&host, "particles", binding));
    assert_eq!(m.path, "particles.items[].color");
    assert_eq!(m.location, at(8, 5));
    assert!(matches!(m.error, MismatchError::Type { .. }), "{m}");
}

#[test]
fn check_struct_decl_compares_nested_structs_arrays_and_matrices_level_by_level() {
    use gpudata::layout::{AddressSpace, MemberDecl, StructDecl, TypeDecl};
    let light = StructDecl::parse("Light", "position: vec3<f32>, color: vec4<f32>").unwrap();
    let scene = StructDecl {
        name: "Scene".to_owned(),
        members: vec![
            MemberDecl {
                name: "view".to_owned(),
                ty: TypeDecl::parse("mat4x4<f32>").unwrap(),
                align: None,
                size: None,
            },
            MemberDecl {
                name: "lights".to_owned(),
                ty: TypeDecl::Array {
                    element: Box::new(TypeDecl::Struct(light)),
                    count: Some(4),
                },
                align: None,
                size: None,
            },
        ],
    };
    let agree = "struct Light { position: vec3<f32>, color: vec4<f32> }
struct Scene { view: mat4x4<f32>, lights: array<Light, 4> }";
    let shader = Shader::parse(agree).unwrap();
    assert_eq!(
        shader.check_struct_decl(&scene, AddressSpace::Storage, "Scene"),
        Ok(())
    );
    assert_eq!(
        shader.check_struct_decl(&scene, AddressSpace::Uniform, "Scene"),
        Ok(())
    );

    let disagree = "struct Light {
    position: vec3<f32>,
    color: vec3<f32>,
}
struct Scene { view: mat4x3<f32>, lights: array<Light, 3> }";
    let shader = Shader::parse(disagree).unwrap();
    let err = shader
        .check_struct_decl(&scene, AddressSpace::Storage, "Scene")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "struct Scene disagrees with the shader in 3 places:\n  \
         `view` (wgsl 5:16): host type mat4x4<f32>, the shader declares mat4x3<f32>; declare the same type on both sides\n  \
         `lights` (wgsl 5:35): host type array<Light, 4>, the shader declares array<Light, 3>; declare the same type on both sides\n  \
         `Scene` (wgsl 5:1): host stride 192 bytes, shader stride 160 bytes; make the last fields agree or set #[gpu(stride = 160)]"
    );
    let count_ok = disagree.replace("array<Light, 3>", "array<Light, 4>");
    let found = mismatches(Shader::parse(&count_ok).unwrap().check_struct_decl(
        &scene,
        AddressSpace::Storage,
        "Scene",
    ));
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert!(paths.contains(&"lights[].color"), "{found:?}");
    assert!(
        found.iter().any(|m| m.error
            == MismatchError::DeclType {
                host: "vec4<f32>".to_owned(),
                shader_type: "vec3<f32>".to_owned()
            }),
        "{found:?}"
    );
    let bad = StructDecl::parse("Bad", "a: vec5<f32>");
    assert!(bad.is_err(), "vec5 is no WGSL type");
}

/// A struct of seven `f32`s is 28 bytes in WGSL; the host's uniform layout measures it 32 (the
/// bytes a struct member takes in a uniform buffer). Binding 32 bytes for a 28-byte struct is
/// valid WebGPU, so the uniform check accepts it; a host smaller than the shader is refused, as
/// in the storage address space any other size is.
#[test]
fn a_uniform_struct_may_be_its_wgsl_size_rounded_to_16() {
    use gpudata::layout::{AddressSpace, StructDecl};
    let params = StructDecl::parse(
        "SimParams",
        "a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32",
    )
    .unwrap();
    let shader = Shader::parse(
        "struct SimParams { a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32 }",
    )
    .unwrap();
    let host = gpudata::layout::TypeDecl::Struct(params.clone());
    assert_eq!(host.layout(AddressSpace::Uniform).unwrap().size, 32);
    assert_eq!(
        shader.check_struct_decl(&params, AddressSpace::Uniform, "SimParams"),
        Ok(())
    );
    assert_eq!(
        shader.check_struct_decl(&params, AddressSpace::Storage, "SimParams"),
        Ok(())
    );
    // The same rows as a flat format against the global holding one value, and against an
    // array of them, whose stride must match.
    let fields: Vec<(String, &str)> = ["a", "b", "c", "d", "e", "f", "g"]
        .iter()
        .map(|n| ((*n).to_owned(), "float32"))
        .collect();
    let rows = GpuDataStructFormat::parse(
        StructLayout::WgslUniform,
        fields.iter().map(|(n, f)| (n.as_str(), *f)),
    )
    .unwrap();
    assert_eq!(rows.byte_stride(), 32);
    let globals = Shader::parse(
        "struct SimParams { a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32 }
@group(0) @binding(0) var<uniform> one: SimParams;
@group(0) @binding(1) var<storage> many: array<SimParams>;",
    )
    .unwrap();
    let at = |binding| HostBinding { group: 0, binding };
    assert_eq!(globals.check_global_format(&rows, "one", at(0)), Ok(()));
    let found = mismatches(globals.check_global_format(&rows, "many", at(1)));
    assert!(
        found.iter().any(|m| m.error
            == MismatchError::Stride {
                host: 32,
                shader: 28
            }),
        "{found:?}"
    );
    // A member that makes the host larger than the rounding: refused in both.
    let wider = Shader::parse(
        "struct SimParams { a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32, @size(8) h: f32 }",
    )
    .unwrap();
    let found = mismatches(wider.check_struct_decl(&params, AddressSpace::Uniform, "SimParams"));
    assert!(
        found.iter().any(|m| m.error
            == MismatchError::Stride {
                host: 32,
                shader: 36
            }),
        "{found:?}"
    );
}

#[test]
fn check_struct_decl_host_without_layout() {
    use gpudata::layout::{AddressSpace, StructDecl};
    // A runtime-sized array before the last member has no layout.
    let host = StructDecl::parse("R", "a: array<u32>, b: u32").unwrap();
    let shader = Shader::parse("struct R { b: u32 }").unwrap();
    let err = shader
        .check_struct_decl(&host, AddressSpace::Storage, "R")
        .unwrap_err();
    assert!(matches!(err, ShaderCheckError::HostLayout(_)), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the host declaration has no layout: "),
        "{err}"
    );
}

/// Issue 30: a name past `u16::MAX` bytes made `struct_report` panic (`format!`'s width limit);
/// its columns pad to 64 bytes at most and the long name runs over.
#[test]
fn struct_report_pads_columns_to_64_bytes_at_most() {
    let long = "m".repeat(70_000);
    let shader = Shader::parse(&format!("struct P {{ {long}: f32, b: u32 }}")).unwrap();
    let host = GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [(long.as_str(), "float32"), ("b", "uint32")],
    )
    .unwrap();
    let (report, verdict) = shader.struct_report(&host, "P").unwrap();
    assert!(verdict.is_ok(), "{verdict:?}");
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines[1].starts_with(&format!("{:<64}  format", "field")),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with(&format!("{long}  float32 ")),
        "{}",
        &lines[2][69_990..]
    );
    assert!(
        lines[3].starts_with(&format!("{:<64}  uint32 ", "b")),
        "{}",
        lines[3]
    );
}

/// A storage struct of three atomics, for the host rows of `atomic_f32_stores_no_float32`.
#[derive(GpuStruct, Clone, Copy)]
#[allow(dead_code)]
struct Atomics {
    total: f32,
    hits: u32,
    delta: i32,
}

/// Issue 30: WGSL's atomics are `atomic<i32>` and `atomic<u32>`. naga parses `atomic<f32>` (its
/// validator allows it behind a capability), and the checks took it for the `f32` it wraps: a
/// `float32` field matched it. Now no atomic of a float stores a value, in the flat check, the
/// type-tree check and the derive's (`tests/ui/shader/atomic_float.rs`); the integer ones still
/// store their scalar.
#[test]
fn atomic_f32_stores_no_float32() {
    let shader = Shader::parse(
        "struct Atomics { total: atomic<f32>, hits: atomic<u32>, delta: atomic<i32> }",
    )
    .unwrap();
    let host = GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [
            ("total", "float32"),
            ("hits", "uint32"),
            ("delta", "sint32"),
        ],
    )
    .unwrap();
    for mismatch in [
        only(shader.check_struct_format(&host, "Atomics")),
        only(shader.check_struct::<Atomics>("Atomics")),
    ] {
        assert_eq!(mismatch.path, "total");
        assert_eq!(
            mismatch.error,
            MismatchError::Type {
                format: VertexFormat::Float32,
                carrier: "f32".to_owned(),
                shader_type: "atomic<f32>".to_owned(),
            }
        );
    }
}

/// The `id` of `VERTEX`'s `vs`, at location 2 of a per-instance buffer.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(layout = "packed", step_mode = "instance", location = 2)]
#[allow(dead_code)]
struct Tinted {
    id: u32,
}

#[test]
fn check_vertex_set_names_buffers_by_type_and_fields() {
    let shader = Shader::parse(VERTEX).unwrap();
    let limits = wgpu::Limits::default();
    shader
        .check_vertex_set::<(Body, Tinted)>(&["vs"], &limits)
        .unwrap();
    // `Body` feeds `In` at locations 0 and 1. Two buffers feeding location 2: the second is named by its type and field.
    let m = only(shader.check_vertex_set::<(Body, Tinted, Tinted)>(&["vs"], &limits));
    assert_eq!(m.path, "Tinted.id");
    assert_eq!(
        m.error,
        MismatchError::DuplicateLocation {
            location: 2,
            first: "Tinted.id".to_owned()
        }
    );
    // No buffer feeds `id`.
    let m = only(shader.check_vertex_set::<(Body,)>(&["vs"], &limits));
    assert!(matches!(
        m.error,
        MismatchError::UnfedInput { location: 2, .. }
    ));
}

const COMPUTE: &str = "
@compute @workgroup_size(64, 2)
fn step() {}

override BLOCK: u32 = 32;
@compute @workgroup_size(BLOCK)
fn tuned() {}

@vertex
fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(); }
";

#[test]
fn workgroups_from_the_entry_points_size() {
    let shader = Shader::parse(COMPUTE).unwrap();
    let limits = wgpu::Limits::default();
    assert_eq!(shader.workgroup_size("step"), Ok([64, 2, 1]));
    assert_eq!(shader.workgroups("step", 0, &limits), Ok([0, 1, 1]));
    assert_eq!(shader.workgroups("step", 64, &limits), Ok([1, 1, 1]));
    assert_eq!(shader.workgroups("step", 65, &limits), Ok([2, 1, 1]));
    let most = 64 * limits.max_compute_workgroups_per_dimension;
    assert_eq!(
        shader.workgroups("step", most, &limits),
        Ok([limits.max_compute_workgroups_per_dimension, 1, 1])
    );
}

#[test]
fn workgroups_errors() {
    let shader = Shader::parse(COMPUTE).unwrap();
    let limits = wgpu::Limits::default();
    let err = shader.workgroups("vs", 1, &limits).unwrap_err();
    assert_eq!(
        err,
        ShaderCheckError::MissingComputeEntryPoint {
            name: "vs".to_owned()
        }
    );
    assert_eq!(
        err.to_string(),
        "the shader has no compute entry point `vs`"
    );
    let err = shader.workgroup_size("tuned").unwrap_err();
    assert_eq!(
        err.to_string(),
        "compute entry point `tuned` sizes its workgroup with override constants, which only the pipeline's constants settle: give @workgroup_size literal or const sizes"
    );
    let err = shader
        .workgroups("step", 64 * 65_535 + 1, &limits)
        .unwrap_err();
    assert_eq!(
        err,
        ShaderCheckError::TooManyWorkgroups {
            entry: "step".to_owned(),
            invocations: 64 * 65_535 + 1,
            workgroup_size: 64,
            workgroups: 65_536,
            limit: 65_535,
        }
    );
    assert_eq!(
        err.to_string(),
        "`step` runs 64 invocations a workgroup, so 4194241 invocations need 65536 workgroups, past the device's max_compute_workgroups_per_dimension (65535): dispatch in parts, or use larger workgroups"
    );
}
