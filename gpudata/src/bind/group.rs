//! [`GpuBindGroup`], the trait `#[derive(GpuBindGroup)]` implements: a struct's bindings, its
//! layout (made once per [`Gpu`]) and its bind group (made from the borrowed resources inside
//! an error scope); [`BindGroupSet`] and [`pipeline_layout`], the pipeline layout of several
//! groups in `@group` order.

use super::entry::{BindingKeys, layout_entry};
use super::error::BindError;
use super::resource::ResourceKind;
use crate::device::scope::error_scope;
use crate::device::{Gpu, GpuError};

/// One binding of a derived bind group: the field, what it borrows, and its layout entry.
#[derive(Clone, Copy, Debug)]
pub struct BindingField {
    /// The field's name.
    pub name: &'static str,
    /// The name of the WGSL global it binds (the field's, or its `global = "..."`).
    pub global: &'static str,
    /// What the field borrows.
    pub kind: ResourceKind,
    /// Its layout entry: binding, visibility, type, `min_binding_size`, `has_dynamic_offset`.
    pub entry: wgpu::BindGroupLayoutEntry,
}

/// A field's [`BindingField`], built by the derive. Not API.
#[doc(hidden)]
#[must_use]
pub const fn binding_field(
    name: &'static str,
    global: &'static str,
    kind: ResourceKind,
    keys: &BindingKeys,
) -> BindingField {
    BindingField {
        name,
        global,
        entry: layout_entry(&kind, keys),
        kind,
    }
}

/// The resources of one bind group, as a struct of borrowed fields: implemented by
/// `#[derive(GpuBindGroup)]` (see [the module](super) for the attributes).
///
/// The layout comes from the field types and keys ([`layout_entries`](Self::layout_entries)),
/// is made once per device ([`layout`](Self::layout)), and [`bind_group`](Self::bind_group)
/// makes the bind group from the fields, errors returned, never wgpu's panic.
pub trait GpuBindGroup {
    /// The struct's name: the layout's and the bind groups' label.
    const LABEL: &'static str;
    /// The `@group(N)` its bindings belong to (`group = N`; 0 by default).
    const GROUP: u32;
    /// The entry points the struct was checked for (`entry = "..."`); empty: every one.
    const ENTRY_POINTS: &'static [&'static str];
    /// Its bindings, in field order.
    const BINDINGS: &'static [BindingField];

    /// The bind group entries of the borrowed resources, in [`BINDINGS`](Self::BINDINGS)
    /// order.
    ///
    /// # Errors
    /// A [`GpuError`] from a resource that cannot be bound as its entry says.
    fn entries<'s>(&'s self, gpu: &Gpu) -> Result<Vec<wgpu::BindGroupEntry<'s>>, GpuError>;

    /// The layout entries, in field order.
    #[must_use]
    fn layout_entries() -> Vec<wgpu::BindGroupLayoutEntry> {
        Self::BINDINGS.iter().map(|b| b.entry).collect()
    }

    /// The bind group layout, made on the first call for this device and shared by every later
    /// one (and by every group of equal entries).
    ///
    /// # Errors
    /// [`BindError::Gpu`] when wgpu refuses the layout.
    fn layout(gpu: &Gpu) -> Result<wgpu::BindGroupLayout, BindError> {
        Ok(gpu
            .layouts()
            .layout(gpu, Self::LABEL, &Self::layout_entries())?)
    }

    /// A bind group of the borrowed resources, with [`layout`](Self::layout).
    ///
    /// # Errors
    /// [`BindError::Gpu`]: a resource that cannot be bound as its entry says, or what wgpu
    /// refused (a buffer smaller than the entry's `min_binding_size`, a texture view of another
    /// dimension or format, a resource of another device).
    fn bind_group(&self, gpu: &Gpu) -> Result<wgpu::BindGroup, BindError> {
        let layout = Self::layout(gpu)?;
        let entries = self.entries(gpu)?;
        Ok(error_scope(gpu, "create a bind group", || {
            gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(Self::LABEL),
                layout: &layout,
                entries: &entries,
            })
        })?)
    }
}

/// Bind groups of one pipeline, in `@group` order: a tuple of [`GpuBindGroup`] types
/// `(Globals<'_>, Locals<'_>)`, the first at `@group(0)`.
pub trait BindGroupSet {
    /// Each group's layout, in order.
    ///
    /// # Errors
    /// [`BindError::GroupOrder`] when a group's `GROUP` is not its position;
    /// [`BindError::Gpu`] when wgpu refuses a layout.
    fn layouts(gpu: &Gpu) -> Result<Vec<wgpu::BindGroupLayout>, BindError>;
}

/// `G`'s layout, after checking that `G` declares `@group(position)`.
fn layout_at<G: GpuBindGroup>(
    gpu: &Gpu,
    position: u32,
) -> Result<wgpu::BindGroupLayout, BindError> {
    if G::GROUP != position {
        return Err(BindError::GroupOrder {
            bind_group: G::LABEL,
            group: G::GROUP,
            position,
        });
    }
    G::layout(gpu)
}

macro_rules! bind_group_sets {
    ($(($($g:ident $i:literal),+))*) => {$(
        impl<$($g: GpuBindGroup),+> BindGroupSet for ($($g,)+) {
            fn layouts(gpu: &Gpu) -> Result<Vec<wgpu::BindGroupLayout>, BindError> {
                Ok(vec![$(layout_at::<$g>(gpu, $i)?),+])
            }
        }
    )*};
}

bind_group_sets! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

/// The pipeline layout of the bind groups `S` (a tuple, `@group(0)` first), each group's layout
/// from its cache.
///
/// ```no_run
/// # use gpudata::bind::{GpuBindGroup, pipeline_layout};
/// # fn demo<A: GpuBindGroup, B: GpuBindGroup>(gpu: &gpudata::Gpu) -> Result<(), gpudata::bind::BindError> {
/// let layout = pipeline_layout::<(A, B)>(gpu, "scene")?;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`BindError::GroupOrder`] when a group's `@group` is not its position in `S`;
/// [`BindError::Gpu`] when wgpu refuses a layout.
pub fn pipeline_layout<S: BindGroupSet>(
    gpu: &Gpu,
    label: &str,
) -> Result<wgpu::PipelineLayout, BindError> {
    let layouts = S::layouts(gpu)?;
    let refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
    Ok(error_scope(gpu, "create a pipeline layout", || {
        gpu.device()
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &refs,
                immediate_size: 0,
            })
    })?)
}
