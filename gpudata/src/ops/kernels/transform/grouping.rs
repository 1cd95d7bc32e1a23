//! Sources of a row transform: the views an operation reads, checked and grouped into the
//! buffers' row windows a kernel binds and loads (views of one interleaved buffer share a
//! source).

use super::body::ValueRef;
use crate::data::GpuDataView;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::shape::ViewShape;

/// A source before it gets a load unit: rows of one buffer read with one stride, and the views
/// inside each row.
pub(super) struct SourceGroup<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub stride: u64,
    pub offset: u64,
    pub end: u64,
    /// Bytes of each row the views read.
    pub used: u64,
}

/// Checks `views`, the values `op` reads (their lengths against `length`, their shapes, their
/// device), and groups those that share a buffer, a stride and a row window into sources;
/// returns the sources and each view's place in them.
pub(super) fn group_sources<'a>(
    ops: &Planner<'_>,
    op: &'static str,
    views: &[GpuDataView<'a>],
    length: u64,
) -> Result<(Vec<SourceGroup<'a>>, Vec<ValueRef>), OpError> {
    for (i, view) in views.iter().enumerate() {
        OpError::check_length(op, i, length, view.length())?;
        let buffer = view
            .buffer_on(ops.gpu(), "plan an operation")
            .map_err(|source| OpError::Gpu { op, source })?;
        ViewShape::of(view).check(op, i, buffer.size(), true)?;
    }
    ops.gpu()
        .check_lost("plan an operation")
        .map_err(|source| OpError::Gpu { op, source })?;
    if length > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op,
            length,
            max: u64::from(u32::MAX),
        });
    }

    // Group views that share a buffer and a stride and lie in one row window.
    let mut order: Vec<usize> = (0..views.len()).collect();
    order.sort_by_key(|&i| {
        let v = &views[i];
        (v.byte_stride(), v.byte_offset())
    });
    let mut groups: Vec<SourceGroup<'a>> = Vec::new();
    let mut refs = vec![ValueRef { source: 0, rel: 0 }; views.len()];
    for &i in &order {
        let view = views[i];
        let end = ViewShape::of(&view).end(op, i)?;
        let found = groups.iter().position(|g| {
            g.buffer == view.buffer()
                && g.stride == view.byte_stride()
                && view.byte_offset() - g.offset < g.stride.max(1)
        });
        let source = match found {
            Some(s) => {
                groups[s].end = groups[s].end.max(end);
                groups[s].used += view.format().byte_length();
                s
            }
            None => {
                groups.push(SourceGroup {
                    buffer: view.buffer(),
                    stride: view.byte_stride(),
                    offset: view.byte_offset(),
                    end,
                    used: view.format().byte_length(),
                });
                groups.len() - 1
            }
        };
        refs[i] = ValueRef {
            source,
            rel: view.byte_offset() - groups[source].offset,
        };
    }
    Ok((groups, refs))
}
