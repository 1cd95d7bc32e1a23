//! Property test: every packed struct format lowers to a vertex layout that wgpu accepts in a
//! real render pipeline whose vertex shader declares the matching `@location` inputs (lavapipe
//! on machines without a GPU).

use crate::support;

use crate::support::{attribute_probe_shader, validation_error};
use gpudata::{Gpu, GpuDataStructFormat, StepMode, StructLayout, VertexFormat};
use gpudata_suite::render;
use proptest::prelude::*;

/// Creates a render pipeline reading `buffer`; returns wgpu's validation error, if any.
fn pipeline_error(gpu: &Gpu, wgsl: &str, buffer: wgpu::VertexBufferLayout<'_>) -> Option<String> {
    let topology = wgpu::PrimitiveTopology::TriangleList;
    validation_error(gpu, || {
        render::pipeline(gpu, wgsl, &[Some(buffer)], topology)
    })
    .1
}

/// Creates a pipeline with the format's generated vertex layout.
fn validate_pipeline(gpu: &Gpu, format: &GpuDataStructFormat) -> Option<String> {
    let layout = format
        .buffer_layout("", Some(StepMode::Instance))
        .to_wgpu(0)
        .expect("packed formats lower to wgpu");
    pipeline_error(gpu, &attribute_probe_shader(format), layout.as_wgpu())
}

fn fetchable_format() -> impl Strategy<Value = VertexFormat> {
    let formats: Vec<VertexFormat> = VertexFormat::ALL
        .into_iter()
        .filter(|f| !f.is_webgl_only())
        .collect();
    prop::sample::select(formats)
}

#[test]
fn packed_layouts_are_valid_wgpu_pipelines() {
    let gpu = support::gpu();
    // Up to 16 attributes: the WebGPU default limit on vertex attributes.
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(48));
    runner
        .run(
            &prop::collection::vec(fetchable_format(), 1..=16),
            |formats| {
                let format = GpuDataStructFormat::new(
                    StructLayout::Packed,
                    formats
                        .iter()
                        .enumerate()
                        .map(|(i, f)| (format!("a{i}"), *f)),
                )
                .unwrap();
                prop_assert_eq!(validate_pipeline(&gpu, &format), None, "{:?}", format);
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn the_validator_catches_a_wrong_layout() {
    // The oracle can fail: a stride that is not a multiple of 4 is rejected by wgpu itself.
    let gpu = support::gpu();
    let format = GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32")]).unwrap();
    let attributes = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: 0,
        shader_location: 0,
    }];
    let wrong = wgpu::VertexBufferLayout {
        array_stride: 6,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &attributes,
    };
    assert!(pipeline_error(&gpu, &attribute_probe_shader(&format), wrong).is_some());
}
