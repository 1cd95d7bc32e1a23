//! Feature `half`: [`GpuField`] for `half::f16` and arrays of 2 or 4 of them.

use super::GpuField;
use crate::format::VertexFormat;

impl GpuField for half::f16 {
    const FORMAT: VertexFormat = VertexFormat::Float16;
}

impl GpuField for [half::f16; 2] {
    const FORMAT: VertexFormat = VertexFormat::Float16x2;
}

impl GpuField for [half::f16; 4] {
    const FORMAT: VertexFormat = VertexFormat::Float16x4;
}
