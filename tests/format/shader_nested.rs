//! The shader check over nested types: derived structs with nested structs, matrices, fixed
//! arrays, atomics and a runtime-sized tail, checked against `tests/shaders/scene.wgsl` at
//! compile time (`shader_struct`, `shader_global`: these items compile only because they agree)
//! and at run time (`check_struct::<T>` and `check_global::<T>` compare the type trees), and
//! perturbations of the WGSL named by their path below the field (`lights[].color`).

use gpudata::GpuStruct;
use gpudata::VertexFormat;
use gpudata::check::{HostBinding, MismatchError, Shader, ShaderCheckError, ShaderMismatch};

const SCENE: &str = include_str!("../shaders/scene.wgsl");

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "tests/shaders/scene.wgsl", shader_struct = "Light")]
#[allow(dead_code)]
struct Light {
    position: [f32; 3],
    intensity: f32,
    color: [f32; 4],
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "wgsl-uniform",
    shader = "tests/shaders/scene.wgsl",
    shader_global = "scene",
    group = 0,
    binding = 0
)]
#[allow(dead_code)]
struct Scene {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    lights: [Light; 4],
    exposure: f32,
}

/// The element of `counters`' runtime-sized tail: a `u32` field stored in an `atomic<u32>`.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    shader = "tests/shaders/scene.wgsl",
    shader_global = "counters",
    group = 1,
    binding = 2
)]
#[allow(dead_code)]
struct Counter {
    hits: u32,
    weights: [[f32; 4]; 2],
}

fn mismatches(result: Result<(), ShaderCheckError>) -> Vec<ShaderMismatch> {
    match result {
        Err(ShaderCheckError::Mismatches { mismatches, .. }) => mismatches,
        other => panic!("expected mismatches, got {other:?}"),
    }
}

/// `SCENE` with `from` replaced by `to` (which must occur once).
fn edited(from: &str, to: &str) -> Shader {
    assert_eq!(SCENE.matches(from).count(), 1, "{from}");
    Shader::parse(&SCENE.replacen(from, to, 1)).expect("the edited scene parses")
}

#[test]
fn nested_derived_types_that_compile_against_the_shader_pass_at_run_time_too() {
    let shader = Shader::parse(SCENE).unwrap();
    assert_eq!(shader.check_struct::<Light>("Light"), Ok(()));
    assert_eq!(shader.check_struct::<Scene>("Scene"), Ok(()));
    let scene = HostBinding {
        group: 0,
        binding: 0,
    };
    assert_eq!(shader.check_global::<Scene>("scene", scene), Ok(()));
    let counters = HostBinding {
        group: 1,
        binding: 2,
    };
    assert_eq!(shader.check_global::<Counter>("counters", counters), Ok(()));
}

#[test]
fn a_member_deep_in_an_array_of_structs_is_named_by_its_path() {
    let shader = edited("    color: vec4<f32>,\n}", "    color: vec3<f32>,\n}");
    let found = mismatches(shader.check_struct::<Scene>("Scene"));
    // vec3<f32> + f32 + vec3<f32> is as long as the host's Light: only the type differs.
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "lights[].color");
    assert_eq!(
        found[0].error,
        MismatchError::Type {
            format: VertexFormat::Float32x4,
            carrier: "vec4<f32>".to_owned(),
            shader_type: "vec3<f32>".to_owned()
        }
    );
    assert_eq!(found[0].location.map(|l| (l.line, l.column)), Some((7, 5)));
}

#[test]
fn every_kind_of_nested_disagreement_is_found() {
    let scene = HostBinding {
        group: 0,
        binding: 0,
    };
    // A matrix of another shape.
    let found = mismatches(
        edited("normal: mat3x3<f32>", "normal: mat3x4<f32>").check_struct::<Scene>("Scene"),
    );
    assert!(
        found.iter().any(|m| m.path == "normal"
            && matches!(&m.error, MismatchError::DeclType { host, shader_type }
                if host == "mat3x3<f32>" && shader_type == "mat3x4<f32>")),
        "{found:?}"
    );
    // An array of another count.
    let found = mismatches(
        edited("array<Light, 4>", "array<Light, 3>").check_global::<Scene>("scene", scene),
    );
    assert!(
        found.iter().any(|m| m.path == "scene.lights"
            && matches!(&m.error, MismatchError::DeclType { host, shader_type }
                if host == "array<Light, 4>" && shader_type == "array<Light, 3>")),
        "{found:?}"
    );
    // Nested members swapped: both offsets named below the array.
    let found = mismatches(
        edited(
            "    position: vec3<f32>,\n    intensity: f32,",
            "    intensity: f32,\n    position: vec3<f32>,",
        )
        .check_struct::<Scene>("Scene"),
    );
    for path in ["lights[].position", "lights[].intensity"] {
        assert!(
            found
                .iter()
                .any(|m| m.path == path && matches!(m.error, MismatchError::Offset { .. })),
            "{path}: {found:?}"
        );
    }
    // A nested member missing on either side.
    let found = mismatches(
        edited(
            "    intensity: f32,\n    color",
            "    brightness: f32,\n    color",
        )
        .check_struct::<Scene>("Scene"),
    );
    assert!(found.iter().any(|m| m.path == "lights[].intensity"
        && matches!(m.error, MismatchError::MissingInShader { .. })));
    assert!(found.iter().any(|m| m.path == "lights[].brightness"
        && matches!(m.error, MismatchError::MissingOnHost { .. })));
    // An atomic of another scalar, in the runtime-sized tail.
    let counters = HostBinding {
        group: 1,
        binding: 2,
    };
    let found = mismatches(
        edited("hits: atomic<u32>", "hits: atomic<i32>")
            .check_global::<Counter>("counters", counters),
    );
    assert!(
        found.iter().any(|m| m.path == "counters.items[].hits"
            && matches!(
                m.error,
                MismatchError::Type {
                    format: VertexFormat::Uint32,
                    ..
                }
            )),
        "{found:?}"
    );
    // An @align inside a nested array element.
    let found = mismatches(
        edited(
            "    weights: array<vec4<f32>, 2>,",
            "    @align(64) weights: array<vec4<f32>, 2>,",
        )
        .check_global::<Counter>("counters", counters),
    );
    assert!(
        found.iter().any(|m| m.path == "counters.items[].weights"
            && matches!(
                m.error,
                MismatchError::Offset {
                    host: 16,
                    shader: 64,
                    ..
                }
            )),
        "{found:?}"
    );
}
