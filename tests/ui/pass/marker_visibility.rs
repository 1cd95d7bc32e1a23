#![deny(warnings)]

mod scene {
    use gpudata::GpuStruct;

    #[derive(Clone, Copy, GpuStruct)]
    pub struct Vertex {
        pub position: [f32; 2],
    }

    #[derive(Clone, Copy, GpuStruct)]
    pub(crate) struct Sprite {
        pub uv: [f32; 2],
    }

    #[derive(Clone, Copy, GpuStruct)]
    struct Private {
        value: f32,
    }

    pub(crate) fn private_value_index() -> usize {
        <private_fields::Value as gpudata::record::GpuFieldMarker>::INDEX
    }

    pub mod nested {
        use gpudata::GpuStruct;

        #[derive(Clone, Copy, GpuStruct)]
        pub(super) struct Inner {
            pub(super) depth: f32,
        }

        #[derive(Clone, Copy, GpuStruct)]
        pub(in crate::scene) struct Deep {
            pub(in crate::scene) depth: f32,
        }
    }

    pub(crate) fn inner_name() -> (&'static str, &'static str) {
        (
            <nested::inner_fields::Depth as gpudata::record::GpuFieldMarker>::NAME,
            <nested::deep_fields::Depth as gpudata::record::GpuFieldMarker>::NAME,
        )
    }
}

use gpudata::record::GpuFieldMarker;

fn main() {
    assert_eq!(scene::vertex_fields::Position::NAME, "position");
    assert_eq!(scene::sprite_fields::Uv::INDEX, 0);
    assert_eq!(scene::private_value_index(), 0);
    assert_eq!(scene::inner_name(), ("depth", "depth"));
}
