//! The agreement rules between a bind group layout entry and the WGSL global it binds, as
//! `const fn`s: the derive's compile-time check (`#[bind_group(shader = "...")]`) and the
//! run-time check (`gpudata::check::Shader::check_bind_group`, feature `naga`) both call
//! [`resource_finding`], so the two cannot disagree. They are wgpu's own rules for a pipeline's
//! layout (what `create_render_pipeline` and `create_compute_pipeline` accept): the address
//! space and access mode of a buffer; a texture's view dimension, sample type and
//! multisampling; a storage texture's dimension, texel format and access (a write-only global
//! accepts a read-write binding); a sampler's comparison. Whether a sampler may filter a texture
//! is a question about the pair an entry point samples together, not about either global:
//! [`unfilterable_sample`], wgpu's rule for it.

/// What a WGSL global is, as a binding: read from the shader by the derive (at compile time) or
/// by the run-time check. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum WgslResource {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>` (`read_only`) or `var<storage, read_write>`.
    Storage {
        /// Whether the global is `read`.
        read_only: bool,
    },
    /// A sampled or depth texture.
    Texture {
        /// Its view dimension (`texture_2d_array` is `D2Array`).
        view_dimension: wgpu::TextureViewDimension,
        /// What it samples.
        sample: WgslSample,
        /// `texture_multisampled_2d`, `texture_depth_multisampled_2d`.
        multisampled: bool,
    },
    /// `texture_storage_*<format, access>`.
    StorageTexture {
        /// Its view dimension.
        view_dimension: wgpu::TextureViewDimension,
        /// The texel format as WGSL spells it.
        format: &'static str,
        /// The access mode.
        access: wgpu::StorageTextureAccess,
    },
    /// `sampler` or `sampler_comparison`.
    Sampler {
        /// Whether it is `sampler_comparison`.
        comparison: bool,
    },
    /// A global no bind group entry binds (`var<private>`, `var<workgroup>`, an external
    /// texture, ...).
    Other,
}

/// The sample type of a WGSL texture.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WgslSample {
    /// `texture_*<f32>`.
    Float,
    /// `texture_*<i32>`.
    Sint,
    /// `texture_*<u32>`.
    Uint,
    /// `texture_depth_*`.
    Depth,
}

/// One disagreement between a layout entry and its global: both sides in WGSL's or wgpu's
/// words. Not API: the run-time check turns it into a
/// [`BindingMismatchError`](crate::check::BindingMismatchError) (feature `naga`), the derive
/// into a compile error.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingFinding {
    /// Another kind of resource (a buffer where the shader has a texture, ...).
    Resource {
        /// What the layout binds.
        host: &'static str,
        /// What the shader declares.
        shader: &'static str,
    },
    /// A buffer of another address space or access mode.
    AddressSpace {
        /// `uniform`, `storage, read` or `storage, read_write`.
        host: &'static str,
        /// The same words for the global.
        shader: &'static str,
    },
    /// A texture of another view dimension.
    Dimension {
        /// wgpu's name (`2d-array`).
        host: &'static str,
        /// The same words for the global.
        shader: &'static str,
    },
    /// A texture of another sample type.
    SampleType {
        /// `float`, `sint`, `uint` or `depth`.
        host: &'static str,
        /// The same words for the global.
        shader: &'static str,
    },
    /// Multisampled on one side only.
    Multisampled {
        /// Whether the layout's texture is multisampled.
        host: bool,
    },
    /// A filtering or non-filtering sampler where the shader compares, or the reverse.
    Sampler {
        /// `filtering`, `non-filtering` or `comparison`.
        host: &'static str,
        /// `sampler` or `sampler_comparison`.
        shader: &'static str,
    },
    /// A storage texture of another texel format.
    StorageFormat {
        /// The format as WGSL spells it.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// A storage texture of another access mode.
    StorageAccess {
        /// `read`, `write`, `read_write` or `atomic`.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
}

/// What a layout entry binds, in words.
#[must_use]
pub const fn binding_kind_text(ty: &wgpu::BindingType) -> &'static str {
    match ty {
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            ..
        } => "a uniform buffer",
        wgpu::BindingType::Buffer { .. } => "a storage buffer",
        wgpu::BindingType::Texture { .. } => "a sampled texture",
        wgpu::BindingType::StorageTexture { .. } => "a storage texture",
        wgpu::BindingType::Sampler(_) => "a sampler",
        _ => "another resource",
    }
}

/// What a global is, in words.
#[must_use]
pub const fn resource_text(resource: &WgslResource) -> &'static str {
    match resource {
        WgslResource::Uniform => "a uniform buffer",
        WgslResource::Storage { .. } => "a storage buffer",
        WgslResource::Texture { .. } => "a sampled texture",
        WgslResource::StorageTexture { .. } => "a storage texture",
        WgslResource::Sampler { .. } => "a sampler",
        WgslResource::Other => "no bindable resource",
    }
}

const fn space_text(ty: wgpu::BufferBindingType) -> &'static str {
    match ty {
        wgpu::BufferBindingType::Uniform => "uniform",
        wgpu::BufferBindingType::Storage { read_only: true } => "storage, read",
        wgpu::BufferBindingType::Storage { read_only: false } => "storage, read_write",
    }
}

/// wgpu's name of a view dimension.
#[must_use]
pub const fn dimension_text(d: wgpu::TextureViewDimension) -> &'static str {
    match d {
        wgpu::TextureViewDimension::D1 => "1d",
        wgpu::TextureViewDimension::D2 => "2d",
        wgpu::TextureViewDimension::D2Array => "2d-array",
        wgpu::TextureViewDimension::Cube => "cube",
        wgpu::TextureViewDimension::CubeArray => "cube-array",
        wgpu::TextureViewDimension::D3 => "3d",
    }
}

const fn sample_text(s: wgpu::TextureSampleType) -> &'static str {
    match s {
        wgpu::TextureSampleType::Float { filterable: true } => "float",
        wgpu::TextureSampleType::Float { filterable: false } => "unfilterable-float",
        wgpu::TextureSampleType::Sint => "sint",
        wgpu::TextureSampleType::Uint => "uint",
        wgpu::TextureSampleType::Depth => "depth",
    }
}

const fn wgsl_sample_text(s: WgslSample) -> &'static str {
    match s {
        WgslSample::Float => "float",
        WgslSample::Sint => "sint",
        WgslSample::Uint => "uint",
        WgslSample::Depth => "depth",
    }
}

const fn sampler_text(s: wgpu::SamplerBindingType) -> &'static str {
    match s {
        wgpu::SamplerBindingType::Filtering => "filtering",
        wgpu::SamplerBindingType::NonFiltering => "non-filtering",
        wgpu::SamplerBindingType::Comparison => "comparison",
    }
}

/// WGSL's name of a storage texture access mode.
#[must_use]
pub const fn access_text(a: wgpu::StorageTextureAccess) -> &'static str {
    match a {
        wgpu::StorageTextureAccess::ReadOnly => "read",
        wgpu::StorageTextureAccess::WriteOnly => "write",
        wgpu::StorageTextureAccess::ReadWrite => "read_write",
        wgpu::StorageTextureAccess::Atomic => "atomic",
    }
}

const fn same_dimension(a: wgpu::TextureViewDimension, b: wgpu::TextureViewDimension) -> bool {
    crate::format::const_str_eq(dimension_text(a), dimension_text(b))
}

const fn same_sample(host: wgpu::TextureSampleType, shader: WgslSample) -> bool {
    matches!(
        (host, shader),
        (wgpu::TextureSampleType::Float { .. }, WgslSample::Float)
            | (wgpu::TextureSampleType::Sint, WgslSample::Sint)
            | (wgpu::TextureSampleType::Uint, WgslSample::Uint)
            | (wgpu::TextureSampleType::Depth, WgslSample::Depth)
    )
}

/// WGSL's spelling of the storage texel formats wgpu maps to naga (the others are never a
/// storage texture's).
#[must_use]
pub const fn texel_format_text(format: wgpu::TextureFormat) -> &'static str {
    use wgpu::TextureFormat as F;
    match format {
        F::R8Unorm => "r8unorm",
        F::R8Snorm => "r8snorm",
        F::R8Uint => "r8uint",
        F::R8Sint => "r8sint",
        F::R16Uint => "r16uint",
        F::R16Sint => "r16sint",
        F::R16Float => "r16float",
        F::R16Unorm => "r16unorm",
        F::R16Snorm => "r16snorm",
        F::Rg8Unorm => "rg8unorm",
        F::Rg8Snorm => "rg8snorm",
        F::Rg8Uint => "rg8uint",
        F::Rg8Sint => "rg8sint",
        F::R32Uint => "r32uint",
        F::R32Sint => "r32sint",
        F::R32Float => "r32float",
        F::Rg16Uint => "rg16uint",
        F::Rg16Sint => "rg16sint",
        F::Rg16Float => "rg16float",
        F::Rg16Unorm => "rg16unorm",
        F::Rg16Snorm => "rg16snorm",
        F::Rgba8Unorm => "rgba8unorm",
        F::Rgba8Snorm => "rgba8snorm",
        F::Rgba8Uint => "rgba8uint",
        F::Rgba8Sint => "rgba8sint",
        F::Bgra8Unorm => "bgra8unorm",
        F::Rgb10a2Uint => "rgb10a2uint",
        F::Rgb10a2Unorm => "rgb10a2unorm",
        F::Rg11b10Ufloat => "rg11b10ufloat",
        F::R64Uint => "r64uint",
        F::Rg32Uint => "rg32uint",
        F::Rg32Sint => "rg32sint",
        F::Rg32Float => "rg32float",
        F::Rgba16Uint => "rgba16uint",
        F::Rgba16Sint => "rgba16sint",
        F::Rgba16Float => "rgba16float",
        F::Rgba16Unorm => "rgba16unorm",
        F::Rgba16Snorm => "rgba16snorm",
        F::Rgba32Uint => "rgba32uint",
        F::Rgba32Sint => "rgba32sint",
        F::Rgba32Float => "rgba32float",
        _ => "a format no storage texture has",
    }
}

/// Whether a storage texture bound with `host` access serves a global of `shader` access:
/// equal, or a read-write binding of a write-only global (wgpu's rule).
const fn access_serves(
    host: wgpu::StorageTextureAccess,
    shader: wgpu::StorageTextureAccess,
) -> bool {
    matches!(
        (host, shader),
        (
            wgpu::StorageTextureAccess::ReadOnly,
            wgpu::StorageTextureAccess::ReadOnly
        ) | (
            wgpu::StorageTextureAccess::WriteOnly,
            wgpu::StorageTextureAccess::WriteOnly
        ) | (
            wgpu::StorageTextureAccess::ReadWrite,
            wgpu::StorageTextureAccess::ReadWrite | wgpu::StorageTextureAccess::WriteOnly
        ) | (
            wgpu::StorageTextureAccess::Atomic,
            wgpu::StorageTextureAccess::Atomic
        )
    )
}

/// The first way the layout entry type `host` fails to bind the global `shader`, or `None`.
#[must_use]
pub const fn resource_finding(
    host: &wgpu::BindingType,
    shader: &WgslResource,
) -> Option<BindingFinding> {
    let resource = BindingFinding::Resource {
        host: binding_kind_text(host),
        shader: resource_text(shader),
    };
    match (host, shader) {
        (wgpu::BindingType::Buffer { ty, .. }, WgslResource::Uniform) => match ty {
            wgpu::BufferBindingType::Uniform => None,
            _ => Some(BindingFinding::AddressSpace {
                host: space_text(*ty),
                shader: "uniform",
            }),
        },
        (wgpu::BindingType::Buffer { ty, .. }, WgslResource::Storage { read_only }) => {
            let shader_ty = wgpu::BufferBindingType::Storage {
                read_only: *read_only,
            };
            match ty {
                wgpu::BufferBindingType::Storage { read_only: host_ro }
                    if *host_ro == *read_only =>
                {
                    None
                }
                _ => Some(BindingFinding::AddressSpace {
                    host: space_text(*ty),
                    shader: space_text(shader_ty),
                }),
            }
        }
        (
            wgpu::BindingType::Texture {
                sample_type,
                view_dimension,
                multisampled,
            },
            WgslResource::Texture {
                view_dimension: shader_dimension,
                sample,
                multisampled: shader_multisampled,
            },
        ) => {
            if !same_dimension(*view_dimension, *shader_dimension) {
                Some(BindingFinding::Dimension {
                    host: dimension_text(*view_dimension),
                    shader: dimension_text(*shader_dimension),
                })
            } else if !same_sample(*sample_type, *sample) {
                Some(BindingFinding::SampleType {
                    host: sample_text(*sample_type),
                    shader: wgsl_sample_text(*sample),
                })
            } else if *multisampled != *shader_multisampled {
                Some(BindingFinding::Multisampled {
                    host: *multisampled,
                })
            } else {
                None
            }
        }
        (
            wgpu::BindingType::StorageTexture {
                access,
                format,
                view_dimension,
            },
            WgslResource::StorageTexture {
                view_dimension: shader_dimension,
                format: shader_format,
                access: shader_access,
            },
        ) => {
            let host_format = texel_format_text(*format);
            if !same_dimension(*view_dimension, *shader_dimension) {
                Some(BindingFinding::Dimension {
                    host: dimension_text(*view_dimension),
                    shader: dimension_text(*shader_dimension),
                })
            } else if !crate::format::const_str_eq(host_format, shader_format) {
                Some(BindingFinding::StorageFormat {
                    host: host_format,
                    shader: shader_format,
                })
            } else if !access_serves(*access, *shader_access) {
                Some(BindingFinding::StorageAccess {
                    host: access_text(*access),
                    shader: access_text(*shader_access),
                })
            } else {
                None
            }
        }
        (wgpu::BindingType::Sampler(ty), WgslResource::Sampler { comparison }) => {
            let host_compares = matches!(ty, wgpu::SamplerBindingType::Comparison);
            if host_compares == *comparison {
                None
            } else {
                Some(BindingFinding::Sampler {
                    host: sampler_text(*ty),
                    shader: if *comparison {
                        "sampler_comparison"
                    } else {
                        "sampler"
                    },
                })
            }
        }
        _ => Some(resource),
    }
}

/// The sample type of the texture bound as `texture` when a sampler bound as `sampler` cannot
/// filter it, or `None`: wgpu's rule for a texture and a sampler an entry point samples
/// together (wgpu-core 30, `check_stage`, `FilteringError`). A filtering sampler refuses an
/// `unfilterable-float`, `sint` or `uint` texture; a depth texture takes any sampler (wgpu
/// accepts a filtering sampler with it), and a non-filtering or comparison sampler any texture.
/// Entries that are not a sampled texture and a sampler give `None`.
#[must_use]
pub const fn unfilterable_sample(
    texture: &wgpu::BindingType,
    sampler: &wgpu::BindingType,
) -> Option<&'static str> {
    match (texture, sampler) {
        (
            wgpu::BindingType::Texture { sample_type, .. },
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        ) => match sample_type {
            wgpu::TextureSampleType::Float { filterable: false }
            | wgpu::TextureSampleType::Sint
            | wgpu::TextureSampleType::Uint => Some(sample_text(*sample_type)),
            wgpu::TextureSampleType::Float { filterable: true }
            | wgpu::TextureSampleType::Depth => None,
        },
        _ => None,
    }
}
