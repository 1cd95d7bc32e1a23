//! [`GpuConstant`]: one typed value of one vertex format, the same for every row (luma.gl's
//! `GPUConstant`): a table's constant column, and an operand of the operations.

use std::fmt;

use crate::data::{DataError, HostValues, decode_values};
use crate::device::Gpu;
use crate::device::buffers::create_filled_buffer;
use crate::format::{DataType, VertexFormat};
use crate::layout::BufferLayout;
use crate::record::{GpuField, fields_as_bytes};

/// Bytes of the buffer a constant is uploaded into: the largest vertex format (16 bytes), so the
/// same buffer binds as a `vec4<u32>` uniform whatever the format.
pub const CONSTANT_BUFFER_BYTES: u64 = 16;

/// Usage of the buffer a constant is uploaded into.
pub const CONSTANT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::UNIFORM)
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// The Rust types that store components of `storage`, for error messages.
const fn expected_scalar(storage: DataType) -> &'static str {
    match storage {
        DataType::Uint8 | DataType::Unorm8 => "u8",
        DataType::Sint8 | DataType::Snorm8 => "i8",
        DataType::Uint16 | DataType::Unorm16 => "u16",
        DataType::Sint16 | DataType::Snorm16 => "i16",
        DataType::Uint32 => "u32",
        DataType::Sint32 => "i32",
        DataType::Float16 => "u16 or half::f16",
        DataType::Float32 => "f32",
    }
}

/// One immutable value of one vertex format, the same for every row (luma.gl's `GPUConstant`).
///
/// A plain value (`Copy`): the bytes are copied at construction. It is
///
/// - a table's constant column, bound for rendering as a vertex buffer of **stride 0** (its
///   [`vertex_layout`](crate::layout::VertexLayoutSource::vertex_layout)): WebGPU and wgpu 30
///   accept `arrayStride: 0`, and every vertex (or instance) then fetches the same value; and
///   for compute as a uniform `vec4<u32>` with a WGSL accessor that decodes it exactly as vertex
///   fetch would (`table::ConstantBinding`). Both bind a 16-byte [`upload`](Self::upload);
/// - an operand of the operations (`ops::add(&gpu, view, GpuConstant::from_value(0.5f32))`),
///   read as a column of its format whose every row is the value: decoded by the format's
///   codec, joining the types as the format does.
///
/// ```
/// use gpudata::{GpuConstant, Unorm8x4, VertexFormat};
///
/// let color = GpuConstant::new(VertexFormat::Unorm8x4, &[255u8, 0, 0, 255])?;
/// assert_eq!(color, GpuConstant::from_value(Unorm8x4([255, 0, 0, 255])));
/// assert_eq!(GpuConstant::from_value([1.0f32, 2.0]).format(), VertexFormat::Float32x2);
/// # Ok::<(), gpudata::DataError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GpuConstant {
    format: VertexFormat,
    /// The value's bytes, then zeros.
    bytes: [u8; CONSTANT_BUFFER_BYTES as usize],
}

impl GpuConstant {
    /// A constant of `format` from its components: values of a [`GpuField`] type that stores
    /// the format's components, e.g. `&[10u8, 20, 30, 40]` for `unorm8x4`, `&[1.0f32, 2.0]` or
    /// `&[[1.0f32, 2.0]]` for `float32x2`. `unorm10-10-10-2` takes one `u32`; float16 formats
    /// take `u16` bits or `half::f16`.
    ///
    /// # Errors
    /// [`DataError::ConstantScalarType`] when `S` does not store the format's components
    /// (luma.gl's "requires Uint8Array"); [`DataError::ConstantByteLength`] when the values are
    /// not exactly one value of the format.
    pub fn new<S: GpuField>(format: VertexFormat, values: &[S]) -> Result<GpuConstant, DataError> {
        let storage = format.signed_data_type();
        let given = S::FORMAT.signed_data_type();
        // A float16 value may be given as its bits (luma.gl's Uint16Array).
        if given != storage && !(given == DataType::Uint16 && storage == DataType::Float16) {
            return Err(DataError::ConstantScalarType {
                format,
                expected: expected_scalar(storage),
                found: core::any::type_name::<S>(),
            });
        }
        GpuConstant::from_bytes(format, fields_as_bytes(values))
    }

    /// A constant of `format` from its raw bytes.
    ///
    /// # Errors
    /// [`DataError::ConstantByteLength`] when `bytes` is not exactly one value of the format.
    pub fn from_bytes(format: VertexFormat, bytes: &[u8]) -> Result<GpuConstant, DataError> {
        let expected = format.byte_length();
        let found = bytes.len() as u64;
        if found != expected {
            return Err(DataError::ConstantByteLength {
                format,
                expected,
                found,
            });
        }
        let mut value = [0; CONSTANT_BUFFER_BYTES as usize];
        // Every vertex format fits: at most 16 bytes.
        value[..bytes.len()].copy_from_slice(bytes);
        Ok(GpuConstant {
            format,
            bytes: value,
        })
    }

    /// A constant holding `value`, its format taken from [`GpuField::FORMAT`]
    /// (`[1.0f32, 2.0]` → `float32x2`, [`Unorm8x4`](crate::Unorm8x4) → `unorm8x4`).
    #[must_use]
    pub fn from_value<V: GpuField>(value: V) -> GpuConstant {
        let mut bytes = [0; CONSTANT_BUFFER_BYTES as usize];
        let field = crate::record::field_bytes(&value);
        // A field is exactly one value of its format, at most 16 bytes.
        bytes[..field.len()].copy_from_slice(field);
        GpuConstant {
            format: V::FORMAT,
            bytes,
        }
    }

    /// The format.
    #[must_use]
    pub const fn format(&self) -> VertexFormat {
        self.format
    }

    /// The value's bytes (a copy of what was given).
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        // The format's byte length is at most 16 (checked at construction).
        &self.bytes[..self.format.byte_length() as usize]
    }

    /// Bytes of the value.
    #[must_use]
    pub const fn byte_length(&self) -> u64 {
        self.format.byte_length()
    }

    /// The value decoded as vertex fetch delivers it.
    #[must_use]
    pub fn values(&self) -> HostValues {
        let bytes = self.bytes();
        // The bytes are exactly one value of the format (checked at construction).
        decode_values(self.format, bytes, 1, bytes.len()).unwrap_or(HostValues::U32(Vec::new()))
    }

    /// The constant's vertex buffer layout in luma.gl's shape: `{name, format, byte_stride: 0}`.
    #[must_use]
    pub fn buffer_layout(&self, name: impl Into<String>) -> BufferLayout {
        BufferLayout {
            name: name.into(),
            format: Some(self.format),
            byte_stride: Some(0),
            step_mode: None,
            attributes: Vec::new(),
        }
    }

    /// The value uploaded into a new 16-byte buffer on `gpu` (zero-padded; usage
    /// [`CONSTANT_USAGE`]), made through the device layer (checked, inside an error scope) and
    /// filled before it is returned. A table keeps the upload of each of its constants per
    /// device.
    ///
    /// # Errors
    /// [`DataError::Gpu`]: [`GpuError::DeviceLost`](crate::GpuError::DeviceLost),
    /// [`GpuError::OutOfMemory`](crate::GpuError::OutOfMemory) and what wgpu reports.
    pub fn upload(&self, gpu: &Gpu) -> Result<wgpu::Buffer, DataError> {
        create_filled_buffer(
            gpu,
            CONSTANT_BUFFER_BYTES,
            CONSTANT_USAGE,
            "gpudata constant",
            |view| {
                view.copy_from_slice(&self.bytes);
                Ok::<(), DataError>(())
            },
        )
    }
}

impl fmt::Debug for GpuConstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuConstant")
            .field("format", &self.format)
            .field("bytes", &self.bytes())
            .finish()
    }
}
