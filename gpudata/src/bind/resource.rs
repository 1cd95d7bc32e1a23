//! What a bind group field holds: [`BindResource`], implemented by every resource a
//! `#[derive(GpuBindGroup)]` field may borrow (the typed buffers of `gpudata::data`, a raw
//! `wgpu::Buffer`, `wgpu::TextureView`, `wgpu::Sampler`), with its [`ResourceKind`] (what the
//! layout entry is built from, and what the shader check compares) and the binding it makes.

use std::num::NonZeroU64;

use crate::data::{GpuData, GpuStorage, GpuUniform, GpuUniformArray, TypedGpuData};
use crate::device::buffers::require_usage;
use crate::device::{Gpu, GpuError};
use crate::layout::{AddressSpace, StructLayout, WgslType};
use crate::record::{GpuRuntimeStruct, GpuStruct, GpuType, HostShape};

/// A resource a bind group field borrows: what it is to the layout ([`KIND`](Self::KIND)) and
/// the binding it makes ([`resource`](Self::resource)).
///
/// gpudata implements it for [`GpuUniform`], [`GpuUniformArray`], [`GpuStorage`],
/// [`TypedGpuData`], `wgpu::Buffer`, `wgpu::TextureView` and `wgpu::Sampler`; implement it for a
/// wrapper of your own to bind that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be bound in a bind group",
    label = "not a bind group resource",
    note = "a `#[derive(GpuBindGroup)]` field borrows a `GpuUniform<T>`, `GpuUniformArray<T>`, `GpuStorage<T>`, `TypedGpuData<T>`, `wgpu::Buffer`, `wgpu::TextureView` or `wgpu::Sampler`: `field: &'a GpuUniform<Camera>`"
)]
pub trait BindResource {
    /// What the resource is, to a bind group layout and to the shader check.
    const KIND: ResourceKind;

    /// The resource bound at an entry of layout type `ty` (the derived layout's, built from
    /// [`KIND`](Self::KIND) and the field's keys).
    ///
    /// # Errors
    /// A [`GpuError`] when the resource cannot be bound so (rows without `STORAGE` usage, at an
    /// offset the device cannot bind, ...).
    fn resource<'r>(
        &'r self,
        gpu: &Gpu,
        ty: &wgpu::BindingType,
    ) -> Result<wgpu::BindingResource<'r>, GpuError>;
}

/// What a [`BindResource`] is: a typed buffer (with the WGSL type of its value), an untyped
/// buffer, a texture view or a sampler.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ResourceKind {
    /// One value in a uniform buffer ([`GpuUniform`]): `var<uniform> v: T;`.
    Uniform(BufferValue),
    /// Values at dynamic offsets of one uniform buffer ([`GpuUniformArray`]): `var<uniform> v:
    /// T;` bound with `has_dynamic_offset`.
    DynamicUniform(BufferValue),
    /// A runtime-sized struct in a storage buffer ([`GpuStorage`]): `var<storage> v: T;`, `T`
    /// ending in `array<E>`.
    RuntimeStorage(BufferValue),
    /// Rows ([`TypedGpuData`]): `var<storage> rows: array<T>;` (or, under the `uniform` key,
    /// `var<uniform> rows: array<T, N>;` or one `T`). The value is one row.
    Rows(BufferValue),
    /// A buffer of no known type (`wgpu::Buffer`): the field's keys say how it is bound.
    Buffer,
    /// A texture view (`wgpu::TextureView`): sampled, or a storage texture, by the field's keys.
    TextureView,
    /// A sampler (`wgpu::Sampler`).
    Sampler,
}

/// The value a typed buffer holds: its WGSL type, where its GPU bytes lie in host values, the
/// rules it is laid out by, and the smallest binding that holds one.
#[derive(Clone, Copy, Debug)]
pub struct BufferValue {
    /// The value's WGSL type (a row's, for [`ResourceKind::Rows`]).
    pub wgsl: &'static WgslType,
    /// Where its GPU bytes lie in its host bytes.
    pub host: &'static HostShape,
    /// The WGSL address space whose rules laid it out.
    pub space: AddressSpace,
    /// Bytes of one value (a runtime-sized struct's header and one element): the layout's
    /// `min_binding_size`.
    pub size: u64,
}

impl ResourceKind {
    /// The typed value, for buffers that have one.
    #[must_use]
    pub const fn value(&self) -> Option<&BufferValue> {
        match self {
            ResourceKind::Uniform(v)
            | ResourceKind::DynamicUniform(v)
            | ResourceKind::RuntimeStorage(v)
            | ResourceKind::Rows(v) => Some(v),
            ResourceKind::Buffer | ResourceKind::TextureView | ResourceKind::Sampler => None,
        }
    }

    /// What it is, in words (`a uniform buffer`, `a texture view`), for messages.
    #[must_use]
    pub const fn describe(&self) -> &'static str {
        match self {
            ResourceKind::Uniform(_) => "a uniform buffer (GpuUniform)",
            ResourceKind::DynamicUniform(_) => "a dynamic-offset uniform buffer (GpuUniformArray)",
            ResourceKind::RuntimeStorage(_) => "a runtime-sized storage buffer (GpuStorage)",
            ResourceKind::Rows(_) => "rows (TypedGpuData)",
            ResourceKind::Buffer => "a buffer (wgpu::Buffer)",
            ResourceKind::TextureView => "a texture view (wgpu::TextureView)",
            ResourceKind::Sampler => "a sampler (wgpu::Sampler)",
        }
    }
}

/// `&'static` references to a type's description, made on first use.
struct Described<T>(core::marker::PhantomData<T>);

impl<T: GpuType> Described<T> {
    const WGSL: &'static WgslType = &T::WGSL;
    const HOST: &'static HostShape = &T::HOST;
}

/// The address space whose rules laid out a derived struct's rows.
const fn rules_of(layout: StructLayout) -> AddressSpace {
    match layout {
        StructLayout::WgslUniform => AddressSpace::Uniform,
        _ => AddressSpace::Storage,
    }
}

/// The value of a row type `T`: one row of `T::FORMAT`'s stride.
const fn row_value<T: GpuStruct + GpuType>() -> BufferValue {
    BufferValue {
        wgsl: Described::<T>::WGSL,
        host: Described::<T>::HOST,
        space: rules_of(T::FORMAT.layout()),
        size: T::FORMAT.byte_stride(),
    }
}

/// A whole-buffer binding of `buffer` from `offset`, `size` bytes.
fn buffer_resource(
    buffer: &wgpu::Buffer,
    offset: u64,
    size: Option<NonZeroU64>,
) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset,
        size,
    })
}

/// Rows bound as a uniform buffer: `length × byte_stride` bytes from the data's offset (what
/// the device refuses beyond the usage, an offset or a size, is wgpu's validation error, caught
/// when the bind group is made).
fn uniform_rows<'r>(gpu: &Gpu, data: &'r GpuData) -> Result<wgpu::BindingResource<'r>, GpuError> {
    let operation = "bind rows as a uniform buffer";
    let buffer = data.buffer_on(gpu, operation)?;
    require_usage(buffer, wgpu::BufferUsages::UNIFORM, operation)?;
    let size = data.length().checked_mul(data.byte_stride());
    let Some(size) = size.and_then(NonZeroU64::new) else {
        return Err(GpuError::EmptyBinding {
            binding: "uniform buffer",
        });
    };
    Ok(buffer_resource(buffer, data.byte_offset(), Some(size)))
}

/// `BindResource` for typed buffers whose own `binding()` is the whole binding, and for wgpu's
/// resources, bound as they are.
macro_rules! bind_as {
    ($($($seg:ident)::+ $(<$t:ident: $($bound:ident),+>)? => $kind:expr,
        |$this:ident| $resource:expr;)*) => {$(
        impl$(<$t: $($bound +)+>)? BindResource for $($seg)::+ $(<$t>)? {
            const KIND: ResourceKind = $kind;

            fn resource<'r>(
                &'r self,
                _gpu: &Gpu,
                _ty: &wgpu::BindingType,
            ) -> Result<wgpu::BindingResource<'r>, GpuError> {
                let $this = self;
                Ok($resource)
            }
        }
    )*};
}

bind_as! {
    GpuUniform<T: GpuStruct, GpuType> => ResourceKind::Uniform(row_value::<T>()),
        |this| wgpu::BindingResource::Buffer(this.binding());
    GpuUniformArray<T: GpuStruct, GpuType> => ResourceKind::DynamicUniform(row_value::<T>()),
        |this| wgpu::BindingResource::Buffer(this.binding());
    GpuStorage<T: GpuRuntimeStruct, GpuType> => ResourceKind::RuntimeStorage(BufferValue {
            wgsl: Described::<T>::WGSL,
            host: Described::<T>::HOST,
            space: AddressSpace::Storage,
            size: T::LAYOUT.size,
        }),
        |this| wgpu::BindingResource::Buffer(this.binding());
    wgpu::Buffer => ResourceKind::Buffer, |this| buffer_resource(this, 0, None);
    wgpu::TextureView => ResourceKind::TextureView,
        |this| wgpu::BindingResource::TextureView(this);
    wgpu::Sampler => ResourceKind::Sampler, |this| wgpu::BindingResource::Sampler(this);
}

impl<T: GpuStruct + GpuType> BindResource for TypedGpuData<T> {
    const KIND: ResourceKind = ResourceKind::Rows(row_value::<T>());

    fn resource<'r>(
        &'r self,
        gpu: &Gpu,
        ty: &wgpu::BindingType,
    ) -> Result<wgpu::BindingResource<'r>, GpuError> {
        let data = self.as_data();
        match ty {
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                ..
            } => uniform_rows(gpu, data),
            _ => data.storage_binding(gpu).map(wgpu::BindingResource::Buffer),
        }
    }
}
