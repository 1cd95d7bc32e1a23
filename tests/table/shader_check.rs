//! A table's render and storage bindings checked against shaders (`gpudata::check`): the
//! vertex shader and the storage WGSL the render tests run (`render.rs`, which draws and reads
//! them on the device) pass; a renamed input, a wrong kind, a read-write or oversized storage
//! global are named with their whole messages.

use gpudata::check::{MismatchError, Shader, ShaderCheckError, ShaderMismatch, WgslLocation};
use gpudata::table::RenderOptions;

use crate::fixtures::gpu;
use crate::render::{mixed_table, vertex_shader};

fn mismatches(result: Result<(), ShaderCheckError>) -> Vec<ShaderMismatch> {
    match result {
        Err(ShaderCheckError::Mismatches { mismatches, .. }) => mismatches,
        other => panic!("expected mismatches, got {other:?}"),
    }
}

#[test]
fn render_bindings_agree_with_the_drawn_shader_and_name_inputs() {
    let gpu = gpu();
    let table = mixed_table(&gpu, 4);
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    let wgsl = vertex_shader(&bindings);
    let shader = Shader::parse(&wgsl).unwrap();
    assert_eq!(shader.check_render_bindings("vs_main", &bindings), Ok(()));

    let renamed = wgsl
        .replace("scale: f32", "size: f32")
        .replace("v.scale", "v.size");
    let found = mismatches(
        Shader::parse(&renamed)
            .unwrap()
            .check_render_bindings("vs_main", &bindings),
    );
    let scale = bindings.location("scale").unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].error,
        MismatchError::InputName {
            location: scale,
            input: "size".to_owned()
        }
    );
    assert_eq!(
        found[0].location,
        Some(WgslLocation {
            line: 6,
            column: 18
        })
    );
    assert!(
        found[0].to_string().ends_with(&format!(
            ": the shader input at location {scale} is named `size`; name the column or the input alike"
        )),
        "{}",
        found[0]
    );

    let wrong_kind = wgsl
        .replace("id: u32", "id: i32")
        .replace("v.id", "bitcast<u32>(v.id)");
    let found = mismatches(
        Shader::parse(&wrong_kind)
            .unwrap()
            .check_render_bindings("vs_main", &bindings),
    );
    assert!(
        matches!(
            found[..],
            [ShaderMismatch {
                error: MismatchError::InputKind { .. },
                ..
            }]
        ),
        "{found:?}"
    );
}

#[test]
fn storage_bindings_agree_with_the_generated_wgsl_and_name_sizes_and_spaces() {
    let gpu = gpu();
    let table = mixed_table(&gpu, 4);
    let storage = table.storage_bindings(&gpu).unwrap();
    let batch = &storage.batches()[0];
    let wgsl = batch.wgsl(0, 0).unwrap();
    assert_eq!(
        Shader::parse(&wgsl)
            .unwrap()
            .check_storage_bindings(batch, 0, 0),
        Ok(())
    );

    let offset = batch.column("offset").unwrap();
    let huge = wgsl.replace(
        "var<storage, read> offset_words: array<u32>",
        "var<storage, read_write> offset_words: array<u32, 100000>",
    );
    assert_ne!(huge, wgsl, "the generated wgsl names `offset_words`");
    let found = mismatches(
        Shader::parse(&huge)
            .unwrap()
            .check_storage_bindings(batch, 0, 0),
    );
    let messages: Vec<String> = found.iter().map(|m| m.error.to_string()).collect();
    assert_eq!(
        messages,
        [
            "the host binds a storage, read buffer, the shader declares var<storage, read_write>"
                .to_owned(),
            format!(
                "the host binds {} bytes, the shader's array<u32, 100000> needs at least 400000 bytes",
                offset.size()
            ),
        ]
    );
    assert_eq!(
        found[1].error,
        MismatchError::BindingSize {
            bound: offset.size(),
            required: 400_000,
            shader_type: "array<u32, 100000>".to_owned()
        }
    );
    assert!(found.iter().all(|m| m.path == "offset"));

    let shifted = Shader::parse(&wgsl).unwrap();
    let found = mismatches(shifted.check_storage_bindings(batch, 0, 1));
    assert!(
        found.iter().any(|m| m.error
            == MismatchError::NoBinding {
                group: 0,
                binding: 1 + (batch.columns().len() + batch.constants().len()) as u32 - 1
            }),
        "{found:?}"
    );
}
