//! Kernels that compute or follow row indices: `gather` (rows of a source at the indices of
//! another column, zero rows for invalid indices), `sequence` (`start + i × step`) and
//! `segmented_map` (each vertex's segment and its index in it, by binary search over the
//! segment starts). One invocation per output row (per output word for a gather of sub-word
//! rows, [`subword`]); runs of rows when the indices or the output
//! exceed one binding; a gather's source in parts, one dispatch each (the segment starts are
//! bound whole).

use super::rows::{self, RowCopy, Span, WORKGROUP};
use super::{packed, subword};
use crate::data::GpuDataView;
use crate::format::codec::unit_byte_length;
use crate::format::{DataType, VertexFormat, wgsl_codec};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::split::max_binding_size;

fn entry(body: &str) -> String {
    format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let row = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (row >= param(0u)) {{ return; }}\n\
         {body}\
         }}\n"
    )
}

/// WGSL statements setting `idx` (`u32`) and `ok` (`bool`) from the index in `u` (the raw unit
/// of an index of `format`), valid when it is an integer in `0..param(4u)`.
fn index_of(format: VertexFormat) -> String {
    let float = |value: String| {
        format!(
            "    let f = {value};\n\
             \x20   var ok = f >= 0.0 && f < 4294967296.0 && f == trunc(f);\n\
             \x20   var idx = 0u;\n\
             \x20   if (ok) {{ idx = u32(f); ok = idx < param(4u); }}\n"
        )
    };
    match format.data_type() {
        DataType::Float32 | DataType::Float16 => float(wgsl_codec::decode_unit(format, 0, "u")),
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => format!(
            "    let i = {};\n    let idx = bitcast<u32>(i);\n    let ok = i >= 0i && idx < param(4u);\n",
            wgsl_codec::decode_unit(format, 0, "u")
        ),
        _ => "    let idx = u;\n    let ok = idx < param(4u);\n".to_owned(),
    }
}

/// `gather`: rows of a source at the indices in `ids` into `output` (packed rows of the
/// source's format, zeroed). The source is `sources`: consecutive row ranges of one format, in
/// order (one view for one buffer; the chunks of a column larger than one buffer), index `i`
/// addressing row `i` of them all. Parameters: rows of the run, the ids' byte base, the
/// source part's byte base, the output's byte base, the source's length, the part's first row
/// (among all the sources' rows) and its rows.
///
/// A source larger than one storage binding is bound in parts (runs of rows, by the same rule
/// as every other split), and so is each range of `sources`: each part is one dispatch over
/// the run of indices that writes the rows whose index falls in that part, so every output row
/// is written once, by the part that holds its source row (the indices are read once per
/// part).
pub(crate) fn gather(
    planner: &Planner<'_>,
    op: &'static str,
    ids: &GpuDataView<'_>,
    sources: &[GpuDataView<'_>],
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let Some(head) = sources.first() else {
        return Ok(Vec::new());
    };
    let row_bytes = head.format().byte_length();
    let length = sources
        .iter()
        .try_fold(0u64, |sum, s| sum.checked_add(s.length()))
        .ok_or(OpError::Overflow { op, input: 1 })?;
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    // Per range of the source: its kernel (how a row is copied depends on its offset and
    // stride), its rows and its parts, each part's first row counted among all the rows.
    let mut ranges = Vec::with_capacity(sources.len());
    for source in sources {
        let span = Span::of(source);
        ranges.push((
            source,
            rows::runs(op, &limits, source.length(), 1, &[span], &[])?,
        ));
    }
    // Sub-word rows are written a whole output word at a time: where the source is bound in
    // several parts, each part's dispatch merges its rows into the words the others wrote.
    let merge = ranges.iter().map(|(_, runs)| runs.len()).sum::<usize>() > 1;
    let per_word = subword::words_per_invocation(&planner.config(), 1);
    let vectors = subword::words_per_invocation(&planner.config(), 2);
    let mut parts = Vec::new();
    let mut first_row = 0u64;
    for (source, runs) in ranges {
        let copy = RowCopy::choose(row_bytes, source.byte_offset(), source.byte_stride());
        let sub = matches!(copy, RowCopy::Bytes(_));
        let wgsl = if sub {
            let unit = subword::unit(&[row_bytes, source.byte_offset(), source.byte_stride()]);
            subword::gather_kernel(ids, source, unit, &index_of(ids.format()), merge, per_word)
        } else {
            gather_kernel(ids, source, copy)
        };
        let fast = (sub && packed::gather_fits(ids, source))
            .then(|| packed::gather_kernel(source, &index_of(ids.format()), merge, vectors));
        let span = Span::of(source);
        for (part, part_rows) in runs {
            parts.push((
                wgsl.clone(),
                fast.clone(),
                sub,
                span,
                part,
                first_row + part,
                part_rows,
            ));
        }
        first_row += source.length();
    }
    let id_span = Span::of(ids);
    let out_span = Span::packed(output, row_bytes);
    let mut dispatches = Vec::new();
    for (first, n) in rows::runs(
        op,
        &limits,
        ids.length(),
        u64::from(WORKGROUP),
        &[id_span, out_span],
        &[],
    )? {
        let a = id_span.bind(op, first, n, align)?;
        // The packed kernel reads the indices as `vec4<u32>`s: bound to a 16-byte end (inside
        // their buffer, whose size is a multiple of 16), where that still fits one binding.
        let a16 = {
            let from = a.binding.start + a.base;
            let to = n
                .checked_mul(4)
                .and_then(|b| b.checked_add(from)?.checked_next_multiple_of(16))
                .ok_or(OpError::Overflow { op, input: 0 })?;
            Some(rows::bind(ids.buffer(), from, to, align))
                .filter(|b| b.binding.size <= max_binding_size(&limits))
        };
        let c = out_span.bind(op, first, n, align)?;
        for (general, fast, sub, span, part, part_first, part_rows) in &parts {
            let src = span.bind(op, *part, *part_rows, align)?;
            let (wgsl, a, fast) = match (fast, a16) {
                (Some(fast), Some(a16)) => (fast, a16, true),
                _ => (general, a, false),
            };
            let params = [
                rows::base32(op, n)?,
                rows::base32(op, a.base)?,
                rows::base32(op, src.base)?,
                rows::base32(op, c.base)?,
                rows::base32(op, length)?,
                rows::base32(op, *part_first)?,
                rows::base32(op, *part_rows)?,
            ];
            let workgroups = if *sub {
                // Runs of indices start at multiples of WORKGROUP rows: at whole words.
                if !c.base.is_multiple_of(4) {
                    return Err(OpError::Overflow { op, input: 0 });
                }
                if fast {
                    packed::gather_workgroups(n, vectors)
                } else {
                    subword::gather_workgroups(n, row_bytes, per_word)
                }
            } else {
                n.div_ceil(u64::from(WORKGROUP))
            };
            dispatches.push(rows::dispatch(
                planner,
                op,
                wgsl,
                &params,
                &[a, src, c],
                workgroups,
            )?);
        }
    }
    Ok(dispatches)
}

/// The `gather` kernel for indices like `ids` and a source range like `source`, whose rows
/// move by `copy`.
fn gather_kernel(ids: &GpuDataView<'_>, source: &GpuDataView<'_>, copy: RowCopy) -> String {
    let row_bytes = source.format().byte_length();
    let mut wgsl = rows::header(7);
    wgsl += &rows::binding_decl(1, "ids", "u32", false);
    wgsl += &rows::binding_decl(2, "src", copy.source_element(), false);
    wgsl += &rows::binding_decl(3, "out", copy.output_element(), true);
    wgsl += &rows::load_fn("ld", "ids", unit_byte_length(ids.format()));
    let mut body = format!(
        "    let u = ld(param(1u) + row * {}u);\n",
        ids.byte_stride()
    );
    body += &index_of(ids.format());
    body += &format!(
        "    if (ok && idx >= param(5u) && idx - param(5u) < param(6u)) {{\n        let sa = param(2u) + (idx - param(5u)) * {}u;\n        let da = param(3u) + row * {row_bytes}u;\n        {}    }}\n",
        source.byte_stride(),
        copy.wgsl("src", "sa", "out", "da")
    );
    wgsl + &entry(&body)
}

/// Packed `uint32` ids rewritten in place through a packed `uint32` map: `ids[i] =
/// map[ids[i]]`, an id outside the map 0 (a Parquet ingest's worker category ids made the
/// stream's). One read-write binding of the ids (in runs where they exceed one binding), the
/// map bound whole. Parameters: rows of the run, the ids' word base, the map's word base, the
/// map's length.
///
/// # Errors
/// [`OpError::TooLarge`] for a map larger than one binding; as [`rows::dispatch`].
#[cfg(feature = "parquet")]
pub(crate) fn remap_in_place(
    planner: &Planner<'_>,
    op: &'static str,
    ids: &GpuDataView<'_>,
    map: &GpuDataView<'_>,
) -> Result<Vec<Dispatch>, OpError> {
    let mut wgsl = rows::header(4);
    wgsl += &rows::binding_decl(1, "ids", "u32", true);
    wgsl += &rows::binding_decl(2, "map", "u32", false);
    wgsl += &entry(
        "    let at = param(1u) + row;\n\
         \x20   let id = ids[at];\n\
         \x20   var stream = 0u;\n\
         \x20   if (id < param(3u)) { stream = map[param(2u) + id]; }\n\
         \x20   ids[at] = stream;\n",
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let (span, map_span) = (Span::of(ids), Span::of(map));
    let mut dispatches = Vec::new();
    for (first, n) in rows::runs(
        op,
        &limits,
        ids.length(),
        u64::from(WORKGROUP),
        &[span],
        &[],
    )? {
        let a = span.bind(op, first, n, align)?;
        let m = map_span.bind(op, 0, map.length(), align)?;
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, a.base / 4)?,
            rows::base32(op, m.base / 4)?,
            rows::base32(op, map.length())?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[a, m],
            n.div_ceil(u64::from(WORKGROUP)),
        )?);
    }
    Ok(dispatches)
}

/// `sequence`: `start + i × step` in wrapping 32-bit arithmetic, `length` rows into `output`.
/// Parameters: rows of the run, the output's word base, the run's first value, the step.
pub(crate) fn sequence(
    planner: &Planner<'_>,
    op: &'static str,
    length: u64,
    start: i32,
    step: i32,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let mut wgsl = rows::header(4);
    wgsl += &rows::binding_decl(1, "out", "u32", true);
    wgsl += &entry("    out[param(1u) + row] = param(2u) + row * param(3u);\n");
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let span = Span::packed(output, 4);
    let mut dispatches = Vec::new();
    for (first, n) in rows::runs(op, &limits, length, u64::from(WORKGROUP), &[span], &[])? {
        let b = span.bind(op, first, n, align)?;
        // Wrapping, as the kernel's `u32` arithmetic: `first` is below 2^32.
        let value = (start as u32).wrapping_add((first as u32).wrapping_mul(step as u32));
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, b.base / 4)?,
            value,
            step as u32,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[b],
            n.div_ceil(u64::from(WORKGROUP)),
        )?);
    }
    Ok(dispatches)
}

/// `segmented_map`: for vertex `v` of `0..vertex_count`, the last segment whose start is at most
/// `v` and `v` minus that start, as `uint32x2` rows into `output`. `segments` holds validated
/// starts (the first 0, never decreasing). Parameters: rows of the run, the segments' byte
/// base, the output's word base, the run's first vertex, the segment count.
pub(crate) fn segmented_map(
    planner: &Planner<'_>,
    op: &'static str,
    segments: &GpuDataView<'_>,
    vertex_count: u64,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let format = segments.format();
    let mut wgsl = rows::header(5);
    wgsl += &rows::binding_decl(1, "seg", "u32", false);
    wgsl += &rows::binding_decl(2, "out", "u32", true);
    wgsl += &rows::load_fn("ld", "seg", unit_byte_length(format));
    // Validated starts are not negative: signed ones read as their unsigned bits.
    wgsl += &format!(
        "fn start(s: u32) -> u32 {{ let u = ld(param(1u) + s * {}u); return bitcast<u32>({}); }}\n",
        segments.byte_stride(),
        wgsl_codec::decode_unit_as(
            format,
            0,
            "u",
            crate::format::PrimitiveType::I32,
            wgsl_codec::NanBits::Quiet,
        )
    );
    wgsl += &entry(
        "    let v = param(3u) + row;\n\
         \x20   var lo = 0u;\n\
         \x20   var hi = param(4u);\n\
         \x20   while (lo < hi) {\n\
         \x20       let mid = lo + (hi - lo) / 2u;\n\
         \x20       if (start(mid) <= v) { lo = mid + 1u; } else { hi = mid; }\n\
         \x20   }\n\
         \x20   let s = max(lo, 1u) - 1u;\n\
         \x20   out[param(2u) + 2u * row] = s;\n\
         \x20   out[param(2u) + 2u * row + 1u] = v - start(s);\n",
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let seg = Span::of(segments).bind(op, 0, segments.length(), align)?;
    let span = Span::packed(output, 8);
    let mut dispatches = Vec::new();
    for (first, n) in rows::runs(
        op,
        &limits,
        vertex_count,
        u64::from(WORKGROUP),
        &[span],
        &[],
    )? {
        let b = span.bind(op, first, n, align)?;
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, seg.base)?,
            rows::base32(op, b.base / 4)?,
            rows::base32(op, first)?,
            rows::base32(op, segments.length())?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[seg, b],
            n.div_ceil(u64::from(WORKGROUP)),
        )?);
    }
    Ok(dispatches)
}
