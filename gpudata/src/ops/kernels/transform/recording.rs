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
