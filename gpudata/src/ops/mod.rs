//! Operations on GPU columns and rows, as WGSL compute generated from formats, with a CPU
//! reference ([`cpu`]) of the same semantics.
//!
//! | operation | reads | writes |
//! |---|---|---|
//! | [`GpuOps::add`], [`subtract`](GpuOps::subtract), [`multiply`](GpuOps::multiply), [`divide`](GpuOps::divide), [`arithmetic`](GpuOps::arithmetic) | columns of any format, constants | one packed column of the joined type |
//! | [`GpuOps::interleave`] | one column per field | rows of a [`GpuDataStructFormat`] (packed or wgsl-storage) |
//! | [`GpuOps::deinterleave`], [`deinterleave_views`](GpuOps::deinterleave_views) | rows (or any views) | one packed column per field |
//! | [`GpuOps::fround`], [`fround_f64`](GpuOps::fround_f64) | float64 values as `uint32x2`/`uint32x4` word pairs | `float32x2`/`float32x4` high and low parts |
//!
//! Inputs are [`OpInput`]s: packed columns, strided children of interleaved rows and segments of
//! a segmented table alike. Unlike luma.gl's WebGPU backend, 8- and 16-bit formats are read (as
//! 32-bit words, unpacked in WGSL) and written (whole words assembled from several rows), and
//! normalized, `float16` and `unorm10-10-10-2` values are decoded.
//!
//! # Semantics
//!
//! - **Arithmetic** follows luma.gl (spec §8.3–8.5): the output type joins the inputs' types
//!   (any float → `float32`; only unsigned → `uint` of the widest; signed with unsigned narrower
//!   than 32 bits → `sint` of `max(signed bits, 2 × unsigned bits)`; `uint32` with a signed
//!   type → `float32`; a normalized input makes an integer result `float32`), the output size
//!   is the largest input size, and lane `l` of an input is its lane `l`, its lane 0 when it
//!   has one lane, else 0. Float results are computed in `f32`; integer results in wrapping
//!   32-bit arithmetic (`i32` for signed, `u32` for unsigned) and stored modulo 2^bits; integer
//!   division by zero gives 0. A NaN result may carry another payload than the CPU's (GPUs
//!   need not propagate payloads). Normalized values decode as `f32(x) * (1 / max)` (the factor
//!   rounded to `f32`), snorm clamped to −1; `float16` decodes exactly; `unorm8x4-bgra` reads
//!   in memory order, as luma.gl does. All data inputs need the same length.
//! - **interleave / deinterleave** move bytes: a column and its field need the same component
//!   count and component size (so `uint8x4` may fill a `unorm8x4` field), and padding bytes of
//!   the rows are written as zeros. `deinterleave(interleave(columns))` returns the columns
//!   byte for byte.
//! - **fround** splits each float64 `x` into `hi = x` rounded to the nearest `f32` (ties to
//!   even) and `lo = x − hi` rounded to `f32`, computed with integer operations (no
//!   `shader-f64`), bit for bit equal to the CPU formula. NaN gives `(NaN, NaN)`, ±Inf gives
//!   `(±Inf, NaN)`, a finite value past the `f32` range gives `(±Inf, ∓Inf)`; NaNs are written
//!   as `0x7fc00000`.
//!
//! # Speed
//!
//! Each invocation handles `G` rows (1 to 16), chosen so that its output rows are whole 16-byte
//! chunks: packed `float32` add reads and writes `vec4<u32>`s, as the fastest copy kernel does;
//! 8-bit outputs are assembled sixteen rows at a time. Sources are read in the widest unit their
//! stride and offset allow. Outputs of rows wider than 16 bytes go through workgroup memory so
//! that a workgroup's stores are consecutive ([`OpsConfig::stage_outputs`]). Workgroups are 256
//! invocations wide, dispatched in two dimensions when one holds more than the device's
//! per-dimension limit. On an H200 every operation runs at 86–105% of the fastest WGSL copy
//! kernel (BENCHMARKS.md, "GPU operations (H200)").
//!
//! # Inputs larger than one binding
//!
//! When an input's rows or an output are larger than the device's
//! `max_storage_buffer_binding_size` (128 MiB by default; 2–4 GiB on large GPUs), the rows are
//! split into runs, one dispatch each, every dispatch binding only its own rows' bytes at offsets
//! the device accepts ([`OpPlan::dispatches`] counts them; all are recorded into one pass). When
//! everything fits, the plan stays one dispatch. Only what cannot be split is refused with
//! [`OpError::TooLarge`]: an output larger than `max_buffer_size`, or a single row whose values
//! (with the bytes that align its binding) exceed a binding.
//!
//! # Example
//!
//! ```no_run
//! use gpudata::VertexFormat;
//! use gpudata::ops::{GpuOps, OpInput};
//! # fn f(device: &wgpu::Device, queue: &wgpu::Queue, a: &wgpu::Buffer, b: &wgpu::Buffer)
//! # -> Result<(), gpudata::OpError> {
//! let ops = GpuOps::new(device, queue);
//! let sum = ops.add(
//!     OpInput::new(a, VertexFormat::Float32x2, 1000),
//!     OpInput::new(b, VertexFormat::Uint8x2, 1000),
//! )?;
//! assert_eq!(sum.format(), VertexFormat::Float32x2);
//! let bytes = sum.read_bytes(&ops)?;
//! assert_eq!(bytes.len(), 8000);
//! # Ok(()) }
//! ```

mod arithmetic;
pub mod cpu;
mod deinterleave;
mod error;
mod fround;
#[cfg(feature = "arrow")]
pub(crate) use fround::fround_output;
mod input;
mod interleave;
mod pipeline_cache;
mod plan;
mod wgsl_gen;

use std::sync::Arc;

pub use arithmetic::ArithmeticOp;
pub use error::OpError;
pub use input::{Constant, OpInput, Operand, RowsInput};
pub use plan::OpPlan;

use crate::data::DataError;
use crate::data::{BufferHandle, GpuData, GpuDataDescriptor};

use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::layout::GpuDataStructFormat;
use pipeline_cache::PipelineCache;

/// Tuning of the generated kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpsConfig {
    /// Invocations per workgroup (default 256; lowered to the device's limit).
    pub workgroup_size: u32,
    /// Rows per invocation to aim for (a power of two up to 16), or `None` to let each operation
    /// choose. Never fewer than alignment needs.
    pub rows_per_thread: Option<u32>,
    /// Whether invocations that write several `vec4<u32>`s of an output hand them to the
    /// workgroup, which stores them in consecutive elements (default `true`; limited by the
    /// device's workgroup storage). Without it such stores are strided and, measured on an H200,
    /// interleave into 32-byte rows ran at 64% of a copy instead of 93%.
    pub stage_outputs: bool,
    /// The same for sources: the workgroup loads their rows in consecutive elements first
    /// (default `false`: on an H200 the L1 cache already coalesces strided loads, and staging
    /// them was slower).
    pub stage_sources: bool,
}

impl Default for OpsConfig {
    fn default() -> Self {
        OpsConfig {
            workgroup_size: 256,
            rows_per_thread: None,
            stage_outputs: true,
            stage_sources: false,
        }
    }
}

/// Runs operations on one device and caches their pipelines.
///
/// Each distinct combination of formats, strides and offset phases compiles one pipeline, on
/// first use; later calls with any length or offset reuse it. Cloning shares the cache.
#[derive(Clone)]
pub struct GpuOps {
    inner: Arc<OpsInner>,
}

struct OpsInner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    cache: PipelineCache,
    config: OpsConfig,
    workgroup_size: u32,
}

impl GpuOps {
    /// Operations on `device`, submitted to `queue`, with the default [`OpsConfig`].
    #[must_use]
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> GpuOps {
        GpuOps::with_config(device, queue, OpsConfig::default())
    }

    /// Operations on a [`Gpu`]'s device and queue.
    #[must_use]
    pub fn from_gpu(gpu: &Gpu) -> GpuOps {
        GpuOps::new(gpu.device(), gpu.queue())
    }

    /// Operations with a given [`OpsConfig`].
    #[must_use]
    pub fn with_config(device: &wgpu::Device, queue: &wgpu::Queue, config: OpsConfig) -> GpuOps {
        let limits = device.limits();
        let workgroup_size = config
            .workgroup_size
            .min(limits.max_compute_invocations_per_workgroup)
            .min(limits.max_compute_workgroup_size_x)
            .max(1);
        GpuOps {
            inner: Arc::new(OpsInner {
                device: device.clone(),
                queue: queue.clone(),
                cache: PipelineCache::default(),
                config,
                workgroup_size,
            }),
        }
    }

    /// The device.
    #[must_use]
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The queue.
    #[must_use]
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// The tuning in use.
    #[must_use]
    pub fn config(&self) -> OpsConfig {
        self.inner.config
    }

    /// Invocations per workgroup actually used.
    #[must_use]
    pub fn workgroup_size(&self) -> u32 {
        self.inner.workgroup_size
    }

    /// How many pipelines have been compiled so far.
    #[must_use]
    pub fn cached_pipelines(&self) -> usize {
        self.inner.cache.len()
    }

    pub(crate) fn cache(&self) -> &PipelineCache {
        &self.inner.cache
    }

    /// Reads `size` bytes at `offset` of `buffer` (which needs `COPY_SRC`) back to the host,
    /// waiting for the GPU.
    ///
    /// # Errors
    /// [`OpError::OutOfBounds`] when the range, widened to whole 32-bit words, leaves the buffer;
    /// [`OpError::Device`] when the copy or the mapping fails.
    pub fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Vec<u8>, OpError> {
        const OP: &str = "read";
        let overflow = OpError::Overflow { op: OP, input: 0 };
        let start = offset / 4 * 4;
        let end = offset
            .checked_add(size)
            .and_then(|e| e.checked_next_multiple_of(4))
            .ok_or(overflow)?;
        if end > buffer.size() {
            return Err(OpError::OutOfBounds {
                op: OP,
                input: 0,
                needed: end,
                available: buffer.size(),
            });
        }
        if size == 0 {
            return Ok(Vec::new());
        }
        let device = self.device();
        let staging = pipeline_cache::device_scope(device, OP, || {
            let staging = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpudata readback"),
                size: end - start,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpudata readback"),
            });
            encoder.copy_buffer_to_buffer(buffer, start, &staging, 0, end - start);
            self.queue().submit([encoder.finish()]);
            staging
        })?;
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| OpError::Device {
                op: OP,
                message: e.to_string(),
            })?;
        match receiver.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(OpError::Device {
                    op: OP,
                    message: e.to_string(),
                });
            }
            Err(_) => {
                return Err(OpError::Device {
                    op: OP,
                    message: "the mapping callback never ran".to_owned(),
                });
            }
        }
        let bytes = {
            let view = staging.get_mapped_range(..).map_err(|e| OpError::Device {
                op: OP,
                message: e.to_string(),
            })?;
            let from = (offset - start) as usize;
            view[from..from + size as usize].to_vec()
        };
        staging.unmap();
        Ok(bytes)
    }
}

impl From<&Gpu> for GpuOps {
    fn from(gpu: &Gpu) -> Self {
        GpuOps::from_gpu(gpu)
    }
}

impl std::fmt::Debug for GpuOps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuOps")
            .field("config", &self.inner.config)
            .field("workgroup_size", &self.inner.workgroup_size)
            .field("cached_pipelines", &self.cached_pipelines())
            .finish_non_exhaustive()
    }
}

/// A packed column an operation wrote: `length` values of `format` from byte 0 of its own
/// buffer (which may be a little longer than the values).
#[derive(Clone, Debug)]
pub struct OpColumn {
    buffer: wgpu::Buffer,
    format: VertexFormat,
    length: u64,
}

impl OpColumn {
    pub(crate) fn new(buffer: wgpu::Buffer, format: VertexFormat, length: u64) -> OpColumn {
        OpColumn {
            buffer,
            format,
            length,
        }
    }

    /// The buffer (usages `STORAGE | VERTEX | COPY_SRC | COPY_DST`).
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Gives the buffer away.
    #[must_use]
    pub fn into_buffer(self) -> wgpu::Buffer {
        self.buffer
    }

    /// The format of each value.
    #[must_use]
    pub fn format(&self) -> VertexFormat {
        self.format
    }

    /// The number of values.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.length
    }

    /// Always 0.
    #[must_use]
    pub fn byte_offset(&self) -> u64 {
        0
    }

    /// The format's byte length: the column is packed.
    #[must_use]
    pub fn byte_stride(&self) -> u64 {
        self.format.byte_length()
    }

    /// Bytes of the values: `length × byte length`.
    #[must_use]
    pub fn byte_length(&self) -> u64 {
        self.length * self.format.byte_length()
    }

    /// The column as an input of another operation.
    #[must_use]
    pub fn as_input(&self) -> OpInput<'_> {
        OpInput::new(&self.buffer, self.format, self.length)
    }

    /// Reads the values back, packed (waits for the GPU).
    ///
    /// # Errors
    /// As [`GpuOps::read_buffer`].
    pub fn read_bytes(&self, ops: &GpuOps) -> Result<Vec<u8>, OpError> {
        ops.read_buffer(&self.buffer, 0, self.byte_length())
    }

    /// The column as [`GpuData`] that owns the buffer.
    ///
    /// # Errors
    /// As [`GpuData::new`] (never, for a column an operation wrote).
    pub fn into_gpu_data(self) -> Result<GpuData, DataError> {
        GpuData::new(
            BufferHandle::Owned(self.buffer),
            GpuDataDescriptor::new(self.format, self.length),
        )
    }
}

/// Rows an operation wrote: `length` rows of `format` from byte 0 of their own buffer, one
/// stride apart, padding zeroed. Binds as a vertex buffer with
/// [`GpuDataStructFormat::buffer_layout`] or as a storage array of the format's WGSL struct.
#[derive(Clone, Debug)]
pub struct OpRows {
    buffer: wgpu::Buffer,
    format: GpuDataStructFormat,
    length: u64,
}

impl OpRows {
    /// The buffer (usages `STORAGE | VERTEX | COPY_SRC | COPY_DST`).
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Gives the buffer away.
    #[must_use]
    pub fn into_buffer(self) -> wgpu::Buffer {
        self.buffer
    }

    /// The row format.
    #[must_use]
    pub fn format(&self) -> &GpuDataStructFormat {
        &self.format
    }

    /// The number of rows.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The format's byte stride.
    #[must_use]
    pub fn byte_stride(&self) -> u64 {
        self.format.byte_stride()
    }

    /// Bytes of the rows: `length × byte stride`.
    #[must_use]
    pub fn byte_length(&self) -> u64 {
        self.length * self.format.byte_stride()
    }

    /// The rows as an input of [`GpuOps::deinterleave`].
    #[must_use]
    pub fn as_rows(&self) -> RowsInput<'_> {
        RowsInput::new(&self.buffer, &self.format, self.length)
    }

    /// The strided view of the field called `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<OpInput<'_>> {
        self.as_rows().field(name)
    }

    /// Reads the rows back (waits for the GPU).
    ///
    /// # Errors
    /// As [`GpuOps::read_buffer`].
    pub fn read_bytes(&self, ops: &GpuOps) -> Result<Vec<u8>, OpError> {
        ops.read_buffer(&self.buffer, 0, self.byte_length())
    }

    /// The rows as struct-formatted [`GpuData`] that owns the buffer, with child views per field.
    ///
    /// # Errors
    /// As [`GpuData::new`] (never, for rows an operation wrote).
    pub fn into_gpu_data(self) -> Result<GpuData, DataError> {
        GpuData::new(
            BufferHandle::Owned(self.buffer),
            GpuDataDescriptor::new(self.format, self.length),
        )
    }
}
