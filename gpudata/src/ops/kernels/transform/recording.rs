//! The commands a table re-layout records ([`Recording`]): the clears of fresh outputs' bytes
//! that other copies merge into, then the steps in order (`copy_buffer_to_buffer` copies and
//! compute passes of kernels, the block kernels last), then the copies of regions written
//! through a buffer of their own into place. A fresh pack records one compute pass and
//! nothing else.

use crate::ops::kernels::dispatch::{Dispatch, record_pass};

/// A recorded step, in order.
pub(crate) enum Step {
    Block {
        src: wgpu::Buffer,
        src_offset: u64,
        dst: wgpu::Buffer,
        dst_offset: u64,
        size: u64,
    },
    Kernels(Vec<Dispatch>),
}

/// A re-layout's commands: clears, then its steps (copies and passes of kernels), then the
/// detours' copies into place.
pub(crate) struct Recording {
    pub clears: Vec<(wgpu::Buffer, u64, u64)>,
    pub steps: Vec<Step>,
    /// (own buffer, destination, offset, bytes).
    pub detours: Vec<(wgpu::Buffer, wgpu::Buffer, u64, u64)>,
}

/// The commands a re-layout records: clears, copies, compute passes, and dispatches in them.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Commands {
    pub clears: usize,
    pub copies: usize,
    pub passes: usize,
    pub dispatches: usize,
}

impl Recording {
    /// Records the commands into `encoder`.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, label: &str) {
        for (buffer, start, size) in &self.clears {
            encoder.clear_buffer(buffer, *start, Some(*size));
        }
        for step in &self.steps {
            match step {
                Step::Block {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                } => encoder.copy_buffer_to_buffer(src, *src_offset, dst, *dst_offset, *size),
                Step::Kernels(dispatches) => record_pass(encoder, label, dispatches),
            }
        }
        for (own, dst, offset, bytes) in &self.detours {
            encoder.copy_buffer_to_buffer(own, 0, dst, *offset, *bytes);
        }
    }

    /// How many commands of each kind [`Recording::record`] records.
    #[cfg(test)]
    pub(crate) fn commands(&self) -> Commands {
        let mut commands = Commands {
            clears: self.clears.len(),
            copies: self.detours.len(),
            ..Commands::default()
        };
        for step in &self.steps {
            match step {
                Step::Block { .. } => commands.copies += 1,
                Step::Kernels(dispatches) => {
                    commands.passes += 1;
                    commands.dispatches += dispatches.len();
                }
            }
        }
        commands
    }
}

#[cfg(test)]
thread_local! {
    /// The commands of the last re-layout this thread submitted (tests count them).
    pub(crate) static LAST: std::cell::Cell<Option<Commands>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
mod tests {
    use super::{Commands, LAST};
    use crate::data::{BufferHandle, DEFAULT_USAGE, GpuConstant, GpuData, GpuDataDescriptor};
    use crate::device::Gpu;
    use crate::format::VertexFormat;
    use crate::layout::StructLayout;
    use crate::table::{GpuRecordBatch, GpuTable, PackOptions, SegmentOptions, SegmentedTable};

    /// The columns of gpubench's re-layout cases (32-byte vertex-like rows).
    const COLUMNS: [(&str, VertexFormat); 5] = [
        ("position", VertexFormat::Float32x3),
        ("color", VertexFormat::Unorm8x4),
        ("uv", VertexFormat::Float32x2),
        ("id", VertexFormat::Uint32),
        ("weight", VertexFormat::Float32),
    ];

    /// gpubench's table scaled down: four batches of `q - 3, q + 5, q - 1, q - 1` rows (batch
    /// edges inside words and vectors at the same phases as the benchmark's), each column in a
    /// buffer of its bytes rounded up to `round`; and each column's bytes.
    fn bench_table(gpu: &Gpu, q: u64, round: u64) -> (GpuTable, Vec<Vec<u8>>) {
        let mut host = vec![Vec::new(); COLUMNS.len()];
        let mut batches = Vec::new();
        for (b, rows) in [q - 3, q + 5, q - 1, q - 1].into_iter().enumerate() {
            let mut columns = Vec::new();
            for (c, (name, format)) in COLUMNS.into_iter().enumerate() {
                let len = rows * format.byte_length();
                let bytes: Vec<u8> = (0..len)
                    .map(|i| (i * 7 + (b * 5 + c) as u64 * 31) as u8)
                    .collect();
                let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                    label: Some("commands test"),
                    size: len.next_multiple_of(round),
                    usage: DEFAULT_USAGE,
                    mapped_at_creation: false,
                });
                gpu.queue().write_buffer(&buffer, 0, &bytes);
                host[c].extend_from_slice(&bytes);
                let data = GpuData::new(
                    BufferHandle::Shared(buffer),
                    GpuDataDescriptor::new(format, rows),
                )
                .unwrap();
                columns.push((name, data));
            }
            batches.push(GpuRecordBatch::new(columns).unwrap());
        }
        let table = GpuTable::from_batches(batches, Vec::<(String, GpuConstant)>::new()).unwrap();
        (table, host)
    }

    fn last() -> Commands {
        LAST.with(std::cell::Cell::take).unwrap()
    }

    /// gpubench's `relayout_pack`: a fresh pack records one compute pass of two dispatches
    /// (edge vectors, bodies) and nothing else (before edge vectors: 28 edge copies after the
    /// pass), sources rounded to 16 bytes as the benchmark's or to 4 as uploads' (word
    /// bindings for their last words);
    /// interleave and segment keep their commands. Every byte is checked.
    #[test]
    fn a_fresh_pack_is_one_pass() {
        let gpu = Gpu::headless().unwrap();
        // The edge kernel's dispatch (one workgroup of edge vectors), then the bodies'.
        let one_pass = Commands {
            clears: 0,
            copies: 0,
            passes: 1,
            dispatches: 2,
        };
        for round in [16, 4] {
            let (mut table, host) = bench_table(&gpu, 1024, round);
            table.pack_batches(&gpu, PackOptions::default()).unwrap();
            let pack = last();
            println!("pack, sources rounded to {round}: {pack:?}");
            if round == 16 {
                assert_eq!(pack, one_pass);
            } else {
                // Word bindings for the sources' last words: more edge dispatches where the
                // device binds fewer storage buffers (lavapipe), in the same pass.
                assert_eq!((pack.clears, pack.copies, pack.passes), (0, 0, 1));
            }
            for ((name, _), bytes) in COLUMNS.iter().zip(&host) {
                let data = table.batches()[0].column(name).unwrap();
                let found = data.read_bytes(&gpu).unwrap();
                assert!(found == *bytes, "pack, sources rounded to {round}: {name}");
            }
        }
        let (table, _) = bench_table(&gpu, 1024, 16);
        let rows = table
            .to_interleaved(&gpu, "rows", StructLayout::Packed, None)
            .unwrap();
        let interleave = last();
        let segmented = SegmentedTable::from_table(&gpu, &rows, SegmentOptions::default()).unwrap();
        let segment = last();
        drop(segmented);
        println!("interleave {interleave:?}\nsegment {segment:?}");
        assert_eq!(interleave.copies + interleave.clears, 0);
        assert_eq!(segment.copies + segment.clears, 0);
    }
}
