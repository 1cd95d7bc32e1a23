//! A `packed` struct (vertex rows) has no WGSL declaration, so its field names only follow the
//! field-path rule: WGSL keywords and reserved words, paths and a predeclared struct name are
//! kept, in its format and vertex attributes; only the runtime's fallible conversion of the flat
//! format to WGSL text (`FORMAT.wgsl_struct`) refuses them, with its typed error.
use gpudata::GpuStruct;
use gpudata::error::WgslError;

#[derive(Clone, Copy, GpuStruct)]
#[allow(non_camel_case_types)]
#[gpu(layout = "packed")]
struct vec4f {
    meta: f32,
    r#loop: u32,
    #[gpu(name = "lights[1].color")]
    color: [f32; 4],
}

fn main() {
    let names: Vec<&str> = vec4f::FORMAT.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["meta", "loop", "lights[1].color"]);
    assert_eq!(vec4f::vertex_buffer_layout().attributes.len(), 3);
    assert_eq!(
        vec4f::FORMAT.wgsl_struct("Row"),
        Err(WgslError::InvalidName {
            name: "meta".to_owned()
        })
    );
}
