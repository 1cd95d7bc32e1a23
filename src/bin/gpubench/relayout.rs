//! The table re-layout cases: `pack_batches`, `to_interleaved` and `SegmentedTable::from_table`
//! of a table of `size` bytes (the vertex-like 32-byte rows of the interleave case, as packed
//! columns in four batches of odd row counts, so batch edges fall inside words and chunks).
//!
//! Two diagnostics beside them: `fresh_clear`, the zero-initialization wgpu records before the
//! first use of a fresh storage buffer of `size` bytes (a buffer created and bound read-write by
//! a kernel that writes one word: the clear is what the call costs); and `relayout_pack_warm`,
//! the block copies of `pack_batches` into outputs made (and initialized) once, through the
//! hidden `gpudata::table::__copy_blocks` (what `relayout_pack` costs without a fresh output;
//! with `--variants`, at 2, 4 and 8 vectors per invocation too). And two probes of what a fresh
//! output costs: `relayout_pack_fresh`, the same copies into five outputs made fresh by each
//! call as `pack_batches` makes them (`__copy_blocks_into_fresh`), and `relayout_pack_one`, into
//! one fresh buffer holding the five. `relayout_pack_aligned` is `relayout_pack_warm` over
//! batches of multiples of 16 rows (every block at phase 0, no edge words). The words around
//! the blocks' bodies are composed by an edge kernel dispatched before the bodies' in the same
//! compute pass (edge vectors), so every pack case records one compute pass and no other
//! command (before, `relayout_pack` recorded 28 `copy_buffer_to_buffer` edge copies after the
//! pass): `relayout_pack_warm` and `relayout_pack_aligned` now differ by that one-workgroup
//! dispatch only.
//!
//! Each is a whole public call (buffers created, copies recorded and submitted), timed on the
//! GPU between timestamps around the call (see `Work::Call`); the wall column is the call and
//! the wait for the device. The check compares every byte of the result with the host
//! re-layout of the source bytes read back.

use gpudata::data::{BufferHandle, GpuDataDescriptor};
use gpudata::ops::OpsConfig;
use gpudata::table::{
    __copy_blocks, __copy_blocks_into_fresh, BlockCopySpec, FreshCopySpec, GpuRecordBatch,
    GpuTable, PackOptions, SegmentOptions, SegmentedTable,
};
use gpudata::{Gpu, GpuData, StructLayout, VertexFormat};

use crate::cases::{Case, alloc, vertex_format};
use crate::kernels::Fill;
use crate::timing::Work;

/// Case groups of this module.
pub const NAMES: [&str; 10] = [
    "fresh_clear",
    "relayout_block_warm",
    "relayout_block_fresh",
    "relayout_pack",
    "relayout_pack_warm",
    "relayout_pack_aligned",
    "relayout_pack_fresh",
    "relayout_pack_one",
    "relayout_interleave",
    "relayout_segment",
];

/// One column of one batch: its buffer, format and rows.
#[derive(Clone)]
struct Part {
    name: String,
    buffer: wgpu::Buffer,
    format: VertexFormat,
    rows: u64,
}

/// The batches of the packed table: per batch, its columns.
#[derive(Clone)]
struct Source {
    batches: Vec<Vec<Part>>,
}

impl Source {
    fn table(&self) -> Result<GpuTable, String> {
        let batches = self
            .batches
            .iter()
            .map(|parts| {
                let columns = parts
                    .iter()
                    .map(|p| {
                        GpuData::new(
                            BufferHandle::Shared(p.buffer.clone()),
                            GpuDataDescriptor::new(p.format, p.rows),
                        )
                        .map(|d| (p.name.clone(), d))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| e.to_string())?;
                GpuRecordBatch::new(columns).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        GpuTable::from_batches(batches, Vec::<(String, gpudata::GpuConstant)>::new())
            .map_err(|e| e.to_string())
    }

    /// Each column's bytes over all batches, read back.
    fn host_columns(&self, gpu: &Gpu) -> Result<Vec<(String, usize, Vec<u8>)>, String> {
        let mut out: Vec<(String, usize, Vec<u8>)> = Vec::new();
        for parts in &self.batches {
            for (i, p) in parts.iter().enumerate() {
                let len = p.rows * p.format.byte_length();
                let bytes = crate::cases::read_range(gpu, &p.buffer, 0, len)?;
                match out.get_mut(i) {
                    Some(column) => column.2.extend_from_slice(&bytes),
                    None => out.push((p.name.clone(), p.format.byte_length() as usize, bytes)),
                }
            }
        }
        Ok(out)
    }
}

/// The host interleave of `columns` into packed rows.
fn host_rows(columns: &[(String, usize, Vec<u8>)]) -> Vec<u8> {
    let stride: usize = columns.iter().map(|c| c.1).sum();
    let rows = columns.first().map_or(0, |c| c.2.len() / c.1);
    let mut out = Vec::with_capacity(rows * stride);
    for r in 0..rows {
        for (_, width, bytes) in columns {
            out.extend_from_slice(&bytes[r * width..(r + 1) * width]);
        }
    }
    out
}

fn compare(what: &str, found: &[u8], expected: &[u8]) -> Result<(), String> {
    if found.len() != expected.len() {
        return Err(format!(
            "{what}: {} bytes, expected {}",
            found.len(),
            expected.len()
        ));
    }
    match found.iter().zip(expected).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(at) => Err(format!("{what}: first difference at byte {at}")),
    }
}

fn wait(gpu: &Gpu) -> Result<(), String> {
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| format!("poll: {e}"))
}

/// The `fresh_clear` case: a fresh storage buffer of `size` bytes bound read-write by a kernel
/// that writes its first word, so that wgpu zero-fills it before the pass (bound in windows of
/// the largest storage binding).
fn fresh_clear(gpu: &Gpu, size: u64) -> Result<Case, String> {
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("gpubench fresh_clear"),
        source: wgpu::ShaderSource::Wgsl(
            "@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n\
             @compute @workgroup_size(1) fn main() { b[0] = 1u; }\n"
                .into(),
        ),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("gpubench fresh_clear"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let limits = device.limits();
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(4);
    let window = (limits.max_storage_buffer_binding_size.min(1 << 31) / align * align).max(align);
    let size = size.next_multiple_of(16);
    let gpu = gpu.clone();
    let call = move || -> Result<(), String> {
        let device = gpu.device();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpubench fresh"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = pipeline.get_bind_group_layout(0);
        let mut groups = Vec::new();
        let mut offset = 0;
        while offset < size {
            let bytes = window.min(size - offset);
            groups.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpubench fresh"),
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &buffer,
                        offset,
                        size: wgpu::BufferSize::new(bytes),
                    }),
                }],
            }));
            offset += bytes;
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            for group in &groups {
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        gpu.queue().submit([encoder.finish()]);
        Ok(())
    };
    Ok(Case::new(
        "fresh_clear".to_owned(),
        size,
        Work::Call(Box::new(call)),
        "[wgpu's zero-fill of a fresh storage buffer]".to_owned(),
        None,
    ))
}

/// The block copies `pack_batches` makes of `source` (each batch's column after the previous
/// batches' rows of that column), into `outputs` (one per column).
fn pack_copies<'a>(source: &'a Source, outputs: &'a [wgpu::Buffer]) -> Vec<BlockCopySpec<'a>> {
    let mut specs = Vec::new();
    let mut offsets = vec![0u64; outputs.len()];
    for parts in &source.batches {
        for (c, p) in parts.iter().enumerate() {
            let bytes = p.rows * p.format.byte_length();
            specs.push(BlockCopySpec {
                src: &p.buffer,
                src_offset: 0,
                dst: &outputs[c],
                dst_offset: offsets[c],
                size: bytes,
            });
            offsets[c] += bytes;
        }
    }
    specs
}

/// The copies of [`pack_copies`] into outputs by index, and the outputs' sizes.
fn fresh_copies(source: &Source) -> (Vec<u64>, Vec<FreshCopySpec<'_>>) {
    let mut specs = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    for parts in &source.batches {
        for (c, p) in parts.iter().enumerate() {
            let bytes = p.rows * p.format.byte_length();
            if sizes.len() <= c {
                sizes.push(0);
            }
            specs.push(FreshCopySpec {
                src: &p.buffer,
                src_offset: 0,
                dst: c,
                dst_offset: sizes[c],
                size: bytes,
            });
            sizes[c] += bytes;
        }
    }
    (sizes, specs)
}

/// The block kernel's configurations a case runs under: the default, and with `all` 2, 4 and 8
/// vectors an invocation, each with its name's suffix (`""`, `" v2"`...).
fn vector_variants(all: bool) -> Vec<(String, OpsConfig)> {
    let per: &[u32] = if all { &[0, 2, 4, 8] } else { &[0] };
    per.iter()
        .map(|&per| {
            let config = OpsConfig {
                rows_per_thread: (per > 0).then_some(per),
                ..OpsConfig::default()
            };
            let suffix = if per > 0 {
                format!(" v{per}")
            } else {
                String::new()
            };
            (suffix, config)
        })
        .collect()
}

/// One block copy of `size` bytes from one buffer, into an output made and initialized once
/// (`relayout_block_warm`) or into a fresh output each call as `pack_batches` makes its
/// columns (`relayout_block_fresh`): what a fresh output costs the block kernel, apart from
/// pack's twenty blocks. With `all`, also at 2, 4 and 8 vectors an invocation (`v2`...).
fn one_block(gpu: &Gpu, size: u64, fresh: bool, all: bool) -> Result<Vec<Case>, String> {
    let src = alloc(gpu, size, 59, Some(Fill::Bits))?;
    let out = if fresh {
        None
    } else {
        Some(alloc(gpu, size, 0, None)?)
    };
    let mut cases = Vec::new();
    for (suffix, config) in vector_variants(all) {
        let (src, out, g) = (src.clone(), out.clone(), gpu.clone());
        let call = move || -> Result<(), String> {
            match &out {
                Some(out) => {
                    let spec = BlockCopySpec {
                        src: &src,
                        src_offset: 0,
                        dst: out,
                        dst_offset: 0,
                        size,
                    };
                    __copy_blocks(&g, &[spec], config).map_err(|e| e.to_string())
                }
                None => {
                    let spec = FreshCopySpec {
                        src: &src,
                        src_offset: 0,
                        dst: 0,
                        dst_offset: 0,
                        size,
                    };
                    __copy_blocks_into_fresh(&g, &[size], &[spec], true, config)
                        .map(drop)
                        .map_err(|e| e.to_string())
                }
            }
        };
        if !fresh {
            // The output initialized by a first run.
            call()?;
            wait(gpu)?;
        }
        let (name, what) = if fresh {
            (
                "relayout_block_fresh",
                "[one block copy into a fresh buffer]",
            )
        } else {
            (
                "relayout_block_warm",
                "[one block copy into an initialized buffer]",
            )
        };
        cases.push(Case::new(
            format!("{name}{suffix}"),
            2 * size,
            Work::Call(Box::new(call)),
            what.to_owned(),
            None,
        ));
    }
    Ok(cases)
}

/// Builds the cases of group `name` over a table of about `size` bytes (`all`: with tuning
/// variants).
pub fn build(gpu: &Gpu, name: &str, size: u64, all: bool) -> Result<Vec<Case>, String> {
    if name == "fresh_clear" {
        return Ok(vec![fresh_clear(gpu, size)?]);
    }
    if let Some(fresh) = name.strip_prefix("relayout_block_") {
        return one_block(gpu, size, fresh == "fresh", all);
    }
    let format = vertex_format();
    let n = size / format.byte_stride();
    // Four batches of odd row counts: edges inside words, chunks and invocations.
    let quarter = n / 4;
    let counts = if name == "relayout_pack_aligned" {
        // Every batch a multiple of 16 rows: every block at phase 0, no edge words.
        let q = quarter / 16 * 16;
        [q, q, q, (n - 3 * q) / 16 * 16]
    } else {
        [quarter - 3, quarter + 5, quarter - 1, n - 3 * quarter - 1]
    };
    let mut batches = Vec::new();
    for (b, &rows) in counts.iter().enumerate() {
        let mut parts = Vec::new();
        for (i, f) in format.fields().iter().enumerate() {
            let bytes = rows * f.byte_length();
            let buffer = alloc(gpu, bytes, 60 + (b * 8 + i) as u32, Some(Fill::Bits))?;
            parts.push(Part {
                name: f.name().to_owned(),
                buffer,
                format: f.format(),
                rows,
            });
        }
        batches.push(parts);
    }
    let source = Source { batches };
    let bytes = n * format.byte_stride();
    let table_gpu = gpu.clone();
    let case = match name {
        "relayout_pack" => {
            let src = source.clone();
            let call = move || -> Result<(), String> {
                let mut table = src.table()?;
                table
                    .pack_batches(&table_gpu, PackOptions::default())
                    .map_err(|e| e.to_string())
            };
            let src = source.clone();
            let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                let mut table = src.table()?;
                table
                    .pack_batches(gpu, PackOptions::default())
                    .map_err(|e| e.to_string())?;
                for (column, _, expected) in src.host_columns(gpu)? {
                    let found = table
                        .vector(&column)
                        .ok_or(format!("no column {column}"))?
                        .read_bytes(gpu)
                        .map_err(|e| e.to_string())?;
                    compare(&column, &found, &expected)?;
                }
                Ok(())
            });
            Case::new(
                name.to_owned(),
                2 * bytes,
                Work::Call(Box::new(call)),
                "[4 batches of packed columns into one]".to_owned(),
                Some(verify),
            )
        }
        "relayout_pack_warm" | "relayout_pack_aligned" => {
            // The packed columns, made once and initialized by a first run of the copies.
            let outputs = format
                .fields()
                .iter()
                .map(|f| alloc(gpu, n * f.byte_length(), 0, None))
                .collect::<Result<Vec<_>, _>>()?;
            __copy_blocks(gpu, &pack_copies(&source, &outputs), OpsConfig::default())
                .map_err(|e| e.to_string())?;
            wait(gpu)?;
            let outputs = std::sync::Arc::new(outputs);
            let mut cases = Vec::new();
            for (suffix, config) in vector_variants(all) {
                let (src, out, gpu_c) = (source.clone(), outputs.clone(), table_gpu.clone());
                let call = move || -> Result<(), String> {
                    __copy_blocks(&gpu_c, &pack_copies(&src, &out), config)
                        .map_err(|e| e.to_string())
                };
                let (src, out) = (source.clone(), outputs.clone());
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    // Cleared first: the check sees this variant's copies.
                    let mut encoder = gpu.device().create_command_encoder(&Default::default());
                    for o in out.iter() {
                        encoder.clear_buffer(o, 0, None);
                    }
                    gpu.queue().submit([encoder.finish()]);
                    __copy_blocks(gpu, &pack_copies(&src, &out), config)
                        .map_err(|e| e.to_string())?;
                    for (c, (column, _, expected)) in src.host_columns(gpu)?.into_iter().enumerate()
                    {
                        let found =
                            crate::cases::read_range(gpu, &out[c], 0, expected.len() as u64)?;
                        compare(&column, &found, &expected)?;
                    }
                    Ok(())
                });
                let label = format!("{name}{suffix}");
                cases.push(Case::new(
                    label,
                    2 * bytes,
                    Work::Call(Box::new(call)),
                    "[pack's 20 block copies into initialized outputs]".to_owned(),
                    Some(verify),
                ));
            }
            return Ok(cases);
        }
        "relayout_pack_fresh" | "relayout_pack_one" => {
            let one = name == "relayout_pack_one";
            let src = source.clone();
            let call = move || -> Result<(), String> {
                let (sizes, specs) = fresh_copies(&src);
                __copy_blocks_into_fresh(&table_gpu, &sizes, &specs, one, OpsConfig::default())
                    .map(drop)
                    .map_err(|e| e.to_string())
            };
            let src = source.clone();
            let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                let (sizes, specs) = fresh_copies(&src);
                let buffers =
                    __copy_blocks_into_fresh(gpu, &sizes, &specs, one, OpsConfig::default())
                        .map_err(|e| e.to_string())?;
                let mut at = 0u64;
                for (c, (column, _, expected)) in src.host_columns(gpu)?.into_iter().enumerate() {
                    let (buffer, offset) = if one {
                        (&buffers[0], at)
                    } else {
                        (&buffers[c], 0)
                    };
                    let len = expected.len() as u64;
                    let found = crate::cases::read_range(gpu, buffer, offset, len)?;
                    compare(&column, &found, &expected)?;
                    at = (at + len).next_multiple_of(256);
                }
                Ok(())
            });
            let what = if one {
                "[pack's 20 block copies into one fresh buffer]"
            } else {
                "[pack's 20 block copies into five fresh buffers]"
            };
            Case::new(
                name.to_owned(),
                2 * bytes,
                Work::Call(Box::new(call)),
                what.to_owned(),
                Some(verify),
            )
        }
        "relayout_interleave" => {
            let src = source.clone();
            let call = move || -> Result<(), String> {
                let table = src.table()?;
                table
                    .to_interleaved(&table_gpu, "rows", StructLayout::Packed, None)
                    .map(drop)
                    .map_err(|e| e.to_string())
            };
            let src = source.clone();
            let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                let table = src.table()?;
                let rows = table
                    .to_interleaved(gpu, "rows", StructLayout::Packed, None)
                    .map_err(|e| e.to_string())?;
                let found = rows
                    .vector("rows")
                    .ok_or("no column rows")?
                    .read_bytes(gpu)
                    .map_err(|e| e.to_string())?;
                compare("rows", &found, &host_rows(&src.host_columns(gpu)?))
            });
            Case::new(
                name.to_owned(),
                2 * bytes,
                Work::Call(Box::new(call)),
                "[4 batches of 5 packed columns into 32-byte rows]".to_owned(),
                Some(verify),
            )
        }
        "relayout_segment" => {
            // The source: the interleaved rows (one batch of 32-byte rows), split into segments.
            let rows = source
                .table()?
                .to_interleaved(gpu, "rows", StructLayout::Packed, None)
                .map_err(|e| e.to_string())?;
            wait(gpu)?;
            let rows = std::sync::Arc::new(rows);
            let table = rows.clone();
            let call = move || -> Result<(), String> {
                SegmentedTable::from_table(&table_gpu, &table, SegmentOptions::default())
                    .map(drop)
                    .map_err(|e| e.to_string())
            };
            let src = source.clone();
            let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                let segmented = SegmentedTable::from_table(gpu, &rows, SegmentOptions::default())
                    .map_err(|e| e.to_string())?;
                for (column, _, expected) in src.host_columns(gpu)? {
                    let found = segmented
                        .table()
                        .vector(&column)
                        .ok_or(format!("no segment {column}"))?
                        .read_bytes(gpu)
                        .map_err(|e| e.to_string())?;
                    compare(&column, &found, &expected)?;
                }
                Ok(())
            });
            Case::new(
                name.to_owned(),
                2 * bytes,
                Work::Call(Box::new(call)),
                "[32-byte rows into 5 segments of one buffer]".to_owned(),
                Some(verify),
            )
        }
        other => return Err(format!("unknown case {other}")),
    };
    Ok(vec![case])
}
