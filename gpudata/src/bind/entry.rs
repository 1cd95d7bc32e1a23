//! One field's layout entry, in `const`: the field's keys ([`BindingKeys`], written by the
//! derive from `#[binding(...)]`) over its resource's [`ResourceKind`] give the
//! `wgpu::BindGroupLayoutEntry` ([`layout_entry`]); keys that do not fit the resource are a
//! compile error at the field ([`keys_problem`]).

use std::num::NonZeroU64;

use super::resource::ResourceKind;
use crate::record::tree::Msg;

/// How a field is bound, as its `#[binding(...)]` keys say (written by the derive). Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct BindingKeys {
    /// `@binding(N)`.
    pub binding: u32,
    /// The stages that see it.
    pub visibility: wgpu::ShaderStages,
    /// `uniform`, `storage` or `read_write`; `None`: the resource's own.
    pub buffer: Option<wgpu::BufferBindingType>,
    /// `texture = "..."`, `sample = "..."`, `multisampled`.
    pub texture: Option<TextureKeys>,
    /// `storage_texture = "..."`, `format = "..."`, `access = "..."`.
    pub storage_texture: Option<StorageTextureKeys>,
    /// `sampler = "..."`.
    pub sampler: Option<wgpu::SamplerBindingType>,
    /// The shader's minimum binding size of the global, when a shader is named: the layout's
    /// `min_binding_size` then (the check makes sure the host value agrees).
    pub shader_size: Option<u64>,
}

/// A sampled texture's keys.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct TextureKeys {
    /// `texture = "2d-array"` (default `2d`).
    pub view_dimension: wgpu::TextureViewDimension,
    /// `sample = "depth"` (default `float`, filterable).
    pub sample_type: wgpu::TextureSampleType,
    /// `multisampled`.
    pub multisampled: bool,
}

/// A storage texture's keys.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct StorageTextureKeys {
    /// `storage_texture = "2d"`.
    pub view_dimension: wgpu::TextureViewDimension,
    /// `format = "rgba8unorm"`.
    pub format: wgpu::TextureFormat,
    /// The format as WGSL spells it.
    pub format_name: &'static str,
    /// `access = "write"` (default).
    pub access: wgpu::StorageTextureAccess,
}

/// The sampled texture of a `wgpu::TextureView` field without keys: `texture_2d<f32>`.
const DEFAULT_TEXTURE: TextureKeys = TextureKeys {
    view_dimension: wgpu::TextureViewDimension::D2,
    sample_type: wgpu::TextureSampleType::Float { filterable: true },
    multisampled: false,
};

/// The binding type of a buffer of `ty`.
const fn buffer(
    ty: wgpu::BufferBindingType,
    dynamic: bool,
    size: Option<u64>,
) -> wgpu::BindingType {
    let min_binding_size = match size {
        Some(size) => NonZeroU64::new(size),
        None => None,
    };
    wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: dynamic,
        min_binding_size,
    }
}

const STORAGE: wgpu::BufferBindingType = wgpu::BufferBindingType::Storage { read_only: true };

/// The layout entry of a field of `kind` with `keys`. Keys that do not fit the resource
/// ([`keys_problem`]) are ignored here.
#[must_use]
pub const fn layout_entry(kind: &ResourceKind, keys: &BindingKeys) -> wgpu::BindGroupLayoutEntry {
    let value_size = match kind.value() {
        Some(v) => Some(v.size),
        None => None,
    };
    let size = match keys.shader_size {
        Some(size) => Some(size),
        None => value_size,
    };
    let ty = match kind {
        ResourceKind::Uniform(_) => buffer(wgpu::BufferBindingType::Uniform, false, size),
        ResourceKind::DynamicUniform(_) => buffer(wgpu::BufferBindingType::Uniform, true, size),
        ResourceKind::RuntimeStorage(_) => match keys.buffer {
            Some(ty @ wgpu::BufferBindingType::Storage { .. }) => buffer(ty, false, size),
            _ => buffer(STORAGE, false, size),
        },
        ResourceKind::Rows(_) => match keys.buffer {
            // Rows in a uniform: `array<T, N>` needs N rows, which the host type does not say.
            Some(wgpu::BufferBindingType::Uniform) => {
                buffer(wgpu::BufferBindingType::Uniform, false, keys.shader_size)
            }
            Some(ty) => buffer(ty, false, size),
            None => buffer(STORAGE, false, size),
        },
        ResourceKind::Buffer => match keys.buffer {
            Some(ty) => buffer(ty, false, keys.shader_size),
            None => buffer(wgpu::BufferBindingType::Uniform, false, keys.shader_size),
        },
        ResourceKind::TextureView => match (keys.storage_texture, keys.texture) {
            (Some(s), _) => wgpu::BindingType::StorageTexture {
                access: s.access,
                format: s.format,
                view_dimension: s.view_dimension,
            },
            (None, Some(t)) => texture(t),
            (None, None) => texture(DEFAULT_TEXTURE),
        },
        ResourceKind::Sampler => match keys.sampler {
            Some(ty) => wgpu::BindingType::Sampler(ty),
            None => wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        },
    };
    wgpu::BindGroupLayoutEntry {
        binding: keys.binding,
        visibility: keys.visibility,
        ty,
        count: None,
    }
}

const fn texture(t: TextureKeys) -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: t.sample_type,
        view_dimension: t.view_dimension,
        multisampled: t.multisampled,
    }
}

const BUFFER_KEYS: &str = "a buffer's keys (`uniform`, `storage`, `read_write`)";
const TEXTURE_KEYS: &str =
    "a texture's keys (`texture`, `sample`, `multisampled`, `storage_texture`, `format`, `access`)";
const SAMPLER_KEYS: &str = "a sampler's key (`sampler`)";

/// Why `keys` do not fit a resource of `kind` (field `name`), or `None`.
#[must_use]
pub const fn keys_problem(name: &str, kind: &ResourceKind, keys: &BindingKeys) -> Option<Msg> {
    let texture_keys = keys.texture.is_some() || keys.storage_texture.is_some();
    let buffer_keys = keys.buffer.is_some();
    let sampler_keys = keys.sampler.is_some();
    let head = Msg::new()
        .str("field `")
        .str(name)
        .str("` borrows ")
        .str(kind.describe());
    let buffer_offending = if texture_keys {
        Some(TEXTURE_KEYS)
    } else if sampler_keys {
        Some(SAMPLER_KEYS)
    } else {
        None
    };
    let offending = match kind {
        ResourceKind::Uniform(_) | ResourceKind::DynamicUniform(_) => {
            if let Some(wgpu::BufferBindingType::Storage { .. }) = keys.buffer {
                return Some(head.str(
                    ", which binds as `var<uniform>`: remove `storage`/`read_write`, or bind a `GpuStorage` or `TypedGpuData` for `var<storage>`",
                ));
            }
            buffer_offending
        }
        ResourceKind::RuntimeStorage(_) => {
            if let Some(wgpu::BufferBindingType::Uniform) = keys.buffer {
                return Some(head.str(
                    ", which binds as `var<storage>` (a runtime-sized array cannot be a uniform): remove `uniform`, or bind a `GpuUniform`",
                ));
            }
            buffer_offending
        }
        ResourceKind::Rows(_) => buffer_offending,
        ResourceKind::Buffer => {
            if buffer_offending.is_none() && !buffer_keys {
                return Some(head.str(
                    ", whose type says nothing of how it is bound: add `uniform`, `storage` (read-only) or `read_write` to its #[binding(...)]",
                ));
            }
            buffer_offending
        }
        ResourceKind::TextureView => {
            if buffer_keys {
                Some(BUFFER_KEYS)
            } else if sampler_keys {
                Some(SAMPLER_KEYS)
            } else {
                None
            }
        }
        ResourceKind::Sampler => {
            if buffer_keys {
                Some(BUFFER_KEYS)
            } else if texture_keys {
                Some(TEXTURE_KEYS)
            } else {
                None
            }
        }
    };
    match offending {
        None => None,
        Some(keys) => Some(
            head.str(", but its #[binding(...)] gives it ")
                .str(keys)
                .str("; remove them, or borrow the resource they describe"),
        ),
    }
}
