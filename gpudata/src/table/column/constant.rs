//! [`GpuConstant`]: one fixed-width value shared by every row of a table.

use std::fmt;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::data::{HostValues, decode_values};
use crate::device::Gpu;
use crate::device::buffers::create_filled_buffer;
use crate::format::{DataType, VertexFormat};
use crate::layout::{BufferLayout, StepMode, WgpuVertexLayout};
use crate::record::GpuField;
use crate::table::TableError;

use crate::table::bind::wgsl::{accessor_fn, check_wgsl_name};

/// Bytes of the buffer a constant is uploaded into: the largest vertex format (16 bytes), so the
/// same buffer binds as a `vec4<u32>` uniform whatever the format.
pub const CONSTANT_BUFFER_BYTES: u64 = 16;

/// Usage of the buffer a constant is uploaded into.
pub const CONSTANT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::UNIFORM)
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

mod sealed {
    pub trait Sealed {}
}

/// A Rust scalar type that holds the components of a constant: `u8`, `i8`, `u16`, `i16`,
/// `u32`, `i32`, `f32` and, with feature `half`, `half::f16` (luma.gl's typed-array
/// constructors). Sealed.
pub trait ConstantScalar: bytemuck::Pod + sealed::Sealed {
    /// The Rust type's name, for error messages.
    const NAME: &'static str;

    /// Whether this type stores components of `storage` (a format's
    /// [`signed_data_type`](VertexFormat::signed_data_type)).
    fn stores(storage: DataType) -> bool;
}

macro_rules! constant_scalar {
    ($($ty:ty => $name:literal: $($storage:ident)|+;)*) => {$(
        impl sealed::Sealed for $ty {}
        impl ConstantScalar for $ty {
            const NAME: &'static str = $name;
            fn stores(storage: DataType) -> bool {
                matches!(storage, $(DataType::$storage)|+)
            }
        }
    )*};
}

constant_scalar! {
    u8 => "u8": Uint8;
    i8 => "i8": Sint8;
    u16 => "u16": Uint16 | Float16;
    i16 => "i16": Sint16;
    u32 => "u32": Uint32;
    i32 => "i32": Sint32;
    f32 => "f32": Float32;
}

#[cfg(feature = "half")]
constant_scalar! {
    half::f16 => "half::f16": Float16;
}

/// The Rust scalar types that store components of `storage`, for error messages.
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

/// One immutable fixed-width value shared by every logical row (luma.gl's `GPUConstant`).
///
/// The value is copied at construction. A table binds it two ways:
///
/// - for rendering, as a vertex buffer of **stride 0** ([`buffer_layout`](Self::buffer_layout)):
///   WebGPU and wgpu 30 accept `arrayStride: 0`, and every vertex (or instance) then fetches the
///   same value. wgpu-core validates that the attribute fits `max_vertex_buffer_array_stride`
///   and skips the vertex-count limit for the slot.
/// - for compute, as a uniform `vec4<u32>` with a WGSL accessor ([`wgsl`](Self::wgsl)) that
///   decodes it exactly as vertex fetch would.
///
/// Both bind [`buffer`](Self::buffer), a 16-byte upload made once per device.
#[derive(Clone)]
pub struct GpuConstant {
    format: VertexFormat,
    bytes: Vec<u8>,
    upload: OnceLock<(Gpu, wgpu::Buffer)>,
}

impl GpuConstant {
    /// A constant of `format` from its components, e.g. `&[10u8, 20, 30, 40]` for `unorm8x4` or
    /// `&[1.0f32, 2.0]` for `float32x2`. `unorm10-10-10-2` takes one `u32`; float16 formats take
    /// `u16` bits or `half::f16`.
    ///
    /// # Errors
    /// [`TableError::ConstantScalarType`] when `S` does not store the format's components
    /// (luma.gl's "requires Uint8Array"); [`TableError::ConstantByteLength`] when the values are
    /// not exactly one value of the format.
    pub fn new<S: ConstantScalar>(
        format: VertexFormat,
        values: &[S],
    ) -> Result<GpuConstant, TableError> {
        let storage = format.signed_data_type();
        if !S::stores(storage) {
            return Err(TableError::ConstantScalarType {
                format,
                expected: expected_scalar(storage),
                found: S::NAME,
            });
        }
        GpuConstant::from_bytes(format, bytemuck::cast_slice(values))
    }

    /// A constant of `format` from its raw bytes.
    ///
    /// # Errors
    /// [`TableError::ConstantByteLength`] when `bytes` is not exactly one value of the format.
    pub fn from_bytes(format: VertexFormat, bytes: &[u8]) -> Result<GpuConstant, TableError> {
        let expected = format.byte_length();
        let found = bytes.len() as u64;
        if found != expected {
            return Err(TableError::ConstantByteLength {
                format,
                expected,
                found,
            });
        }
        Ok(GpuConstant {
            format,
            bytes: bytes.to_vec(),
            upload: OnceLock::new(),
        })
    }

    /// A constant holding `value`, its format taken from [`GpuField::FORMAT`]
    /// (`[1.0f32, 2.0]` → `float32x2`, [`Unorm8x4`](crate::Unorm8x4) → `unorm8x4`).
    #[must_use]
    pub fn from_value<V: GpuField>(value: V) -> GpuConstant {
        GpuConstant {
            format: V::FORMAT,
            bytes: crate::record::field_bytes(&value).to_vec(),
            upload: OnceLock::new(),
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
        &self.bytes
    }

    /// Bytes of the value.
    #[must_use]
    pub fn byte_length(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The value decoded as vertex fetch delivers it.
    #[must_use]
    pub fn values(&self) -> HostValues {
        // The bytes are exactly one value of the format (checked at construction).
        decode_values(self.format, &self.bytes, 1, self.bytes.len())
            .unwrap_or(HostValues::U32(Vec::new()))
    }

    /// The constant's vertex buffer layout: `{name, format, byte_stride: 0}`.
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

    /// The wgpu layout of the constant's zero-stride vertex buffer, its one attribute at
    /// `shader_location`.
    ///
    /// # Errors
    /// [`TableError::Layout`] for `-webgl` formats, which wgpu cannot fetch.
    pub fn wgpu_vertex_layout(
        &self,
        shader_location: u32,
        step_mode: StepMode,
    ) -> Result<WgpuVertexLayout, TableError> {
        let mut layout = self.buffer_layout("constant");
        layout.step_mode = Some(step_mode);
        Ok(layout.to_wgpu(shader_location)?)
    }

    /// The value uploaded into a 16-byte buffer on `gpu` (zero-padded; usage
    /// [`CONSTANT_USAGE`]). The first call uploads and keeps the buffer for that `Gpu`; later
    /// calls with the same device ([`Gpu::same_device`], exact across instances) return it, and
    /// calls with another device upload anew. The buffer is made through the device layer
    /// (checked, inside an error scope), filled before it is returned.
    ///
    /// # Errors
    /// [`TableError::Gpu`]: [`GpuError::DeviceLost`](crate::GpuError::DeviceLost),
    /// [`GpuError::OutOfMemory`](crate::GpuError::OutOfMemory) and what wgpu reports.
    pub fn buffer(&self, gpu: &Gpu) -> Result<wgpu::Buffer, TableError> {
        if let Some((owner, buffer)) = self.upload.get()
            && owner.same_device(gpu)
        {
            return Ok(buffer.clone());
        }
        let buffer = self.create_buffer(gpu)?;
        // A first upload is kept; a racing one or another device's is simply returned.
        let _ = self.upload.set((gpu.clone(), buffer.clone()));
        Ok(buffer)
    }

    fn create_buffer(&self, gpu: &Gpu) -> Result<wgpu::Buffer, TableError> {
        create_filled_buffer(
            gpu,
            CONSTANT_BUFFER_BYTES,
            CONSTANT_USAGE,
            "gpudata constant",
            |view| {
                // The rest of the 16 bytes stays zero (new buffers are zero-initialized).
                view.slice(..self.bytes.len()).copy_from_slice(&self.bytes);
                Ok::<(), TableError>(())
            },
        )
    }

    /// WGSL that reads the constant in a compute (or any) shader: a uniform
    /// `var<uniform> {name}_words: vec4<u32>` at `@group(group) @binding(binding)`, and
    /// `fn {name}_at(row: u32) -> T`, which returns the value for every row, decoded as vertex
    /// fetch would (`T` is [`VertexFormat::vertex_input_type`]: `vec4<f32>` for `unorm8x4`).
    /// Bind [`buffer`](Self::buffer) there.
    ///
    /// # Errors
    /// [`TableError::Wgsl`] when `name` cannot prefix WGSL identifiers.
    pub fn wgsl(&self, name: &str, group: u32, binding: u32) -> Result<String, TableError> {
        check_wgsl_name(name)?;
        let words = format!("{name}_words");
        let mut out = String::new();
        let _ = writeln!(
            out,
            "@group({group}) @binding({binding}) var<uniform> {words}: vec4<u32>;"
        );
        out.push_str(&accessor_fn(
            &format!("{name}_at"),
            &words,
            self.format,
            0,
            0,
        ));
        Ok(out)
    }
}

impl PartialEq for GpuConstant {
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format && self.bytes == other.bytes
    }
}

impl Eq for GpuConstant {}

impl fmt::Debug for GpuConstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuConstant")
            .field("format", &self.format)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}
