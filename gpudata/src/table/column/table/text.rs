//! The table's messages: buffer layouts, vectors and chunks described for errors.

use crate::data::GpuData;
use crate::layout::BufferLayout;
use crate::table::column::vector::{GpuVector, format_text};

/// `layouts` for a message, each as its name and what it holds:
/// ``[`positions` (float32x2, stride 8), `points` (position: float32x3 at 0, color: unorm8x4 at
/// 12, stride 16, step mode instance)]``.
pub(super) fn layouts_text(layouts: &[BufferLayout]) -> String {
    let described: Vec<String> = layouts.iter().map(layout_text).collect();
    format!("[{}]", described.join(", "))
}

/// One layout for a message: `` `name` (what it holds, stride, step mode) ``, leaving out what
/// the layout does not state.
fn layout_text(layout: &BufferLayout) -> String {
    let mut parts: Vec<String> = if layout.attributes.is_empty() {
        vec![match layout.format {
            Some(format) => format.to_string(),
            None => "no format".to_owned(),
        }]
    } else {
        layout
            .attributes
            .iter()
            .map(|a| format!("{}: {} at {}", a.attribute, a.format, a.byte_offset))
            .collect()
    };
    if let Some(stride) = layout.byte_stride {
        parts.push(format!("stride {stride}"));
    }
    if let Some(step_mode) = layout.step_mode {
        parts.push(format!("step mode {step_mode}"));
    }
    format!("`{}` ({})", layout.name, parts.join(", "))
}

pub(super) fn describe_vector(v: &GpuVector) -> String {
    format!(
        "format {}, stride {}, byte stride {}, row byte length {}",
        format_text(v.format()),
        v.stride(),
        v.byte_stride(),
        v.row_byte_length()
    )
}

pub(super) fn describe_chunk(c: &GpuData) -> String {
    format!(
        "format {}, stride {}, byte stride {}, row byte length {}",
        format_text(c.format()),
        c.stride(),
        c.byte_stride(),
        c.row_byte_length()
    )
}
