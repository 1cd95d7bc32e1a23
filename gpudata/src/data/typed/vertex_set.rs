//! [`VertexBufferSet`]: a pipeline's vertex buffers declared once, as a tuple of derived row
//! types in slot order, `(Particle, Corner)`. The tuple gives the pipeline's vertex buffer
//! layouts ([`layouts`](VertexBufferSet::layouts)), sets typed data at the slots those layouts
//! describe ([`set`](VertexBufferSet::set)), and says how many vertices and instances the data
//! holds ([`DrawRows`]), so no slot number or draw count is typed by hand. With feature `naga`,
//! [`Shader::check_vertex_set`](crate::check::Shader::check_vertex_set) checks the same tuple
//! against vertex entry points.

use std::ops::Range;

use super::rows::TypedGpuData;
use crate::device::{Gpu, GpuError};
use crate::layout::{GpuDataStructFormat, StepMode};
use crate::record::GpuStruct;

/// The vertices and instances a draw of a [`VertexBufferSet`]'s data may read: what
/// [`VertexBufferSet::set`] returns, for `pass.draw(rows.vertices, rows.instances)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawRows {
    /// `0..` the fewest rows of the set's per-vertex buffers (empty when the set has none: give
    /// the vertex count yourself then).
    pub vertices: Range<u32>,
    /// `0..` the fewest rows of the set's per-instance buffers (`0..1`, one instance, when the
    /// set has none).
    pub instances: Range<u32>,
}

/// One buffer of a [`VertexBufferSet`], as the shader check reads it. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct VertexSetMember {
    /// The row type's name, without its module path.
    pub name: &'static str,
    /// Its row format.
    pub format: &'static GpuDataStructFormat,
    /// Its step mode.
    pub step_mode: StepMode,
    /// The location of its first field.
    pub first_location: u32,
}

/// The vertex buffers of one render pipeline, in slot order: a tuple of `#[derive(GpuStruct)]`
/// row types, `(Particle, Corner)` (slot 0 first; one to eight buffers). Each type's vertex
/// layout is its [`vertex_buffer_layout`](GpuStruct::vertex_buffer_layout): its formats,
/// offsets and stride from the derive, its locations from `#[gpu(location = N)]`, its step mode
/// from `#[gpu(step_mode = "...")]`.
///
/// ```
/// use gpudata::data::{DEFAULT_USAGE, VertexBufferSet};
/// use gpudata::{Gpu, GpuStruct, TypedGpuData};
///
/// /// One instance: where, and how fast.
/// #[derive(Clone, Copy, GpuStruct)]
/// #[gpu(step_mode = "instance")]
/// struct Particle {
///     position: [f32; 2],
///     velocity: [f32; 2],
/// }
///
/// /// One corner of the mesh every instance draws, fed at the location after `Particle`'s.
/// #[derive(Clone, Copy, GpuStruct)]
/// #[gpu(layout = "packed", location = 2)]
/// struct Corner {
///     offset: [f32; 2],
/// }
///
/// type DrawBuffers = (Particle, Corner);
///
/// let layouts = DrawBuffers::layouts();
/// assert_eq!(layouts.len(), 2);
/// assert_eq!(layouts[0].as_ref().map(|l| l.step_mode), Some(wgpu::VertexStepMode::Instance));
///
/// let gpu = Gpu::headless()?;
/// let particles = TypedGpuData::from_rows(&gpu, &[Particle { position: [0.0; 2], velocity: [0.0; 2] }; 5], DEFAULT_USAGE)?;
/// let mesh = TypedGpuData::from_rows(&gpu, &[Corner { offset: [0.0; 2] }; 3], DEFAULT_USAGE)?;
/// let rows = DrawBuffers::rows((&particles, &mesh));
/// assert_eq!((rows.vertices, rows.instances), (0..3, 0..5));
/// // In a render pass: `let rows = DrawBuffers::set(&gpu, &mut pass, (&particles, &mesh))?;
/// // pass.draw(rows.vertices, rows.instances);`
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait VertexBufferSet {
    /// The data bound at the slots: a tuple of `&TypedGpuData<T>`, one per type, in order.
    type Data<'a>;

    /// The pipeline's vertex buffer layouts, slot 0 first: what `wgpu::VertexState::buffers`
    /// takes.
    #[must_use]
    fn layouts() -> Vec<Option<wgpu::VertexBufferLayout<'static>>>;

    /// How many vertices and instances `data` holds ([`DrawRows`]); counts past `u32::MAX` are
    /// `u32::MAX`, the most one draw reads.
    #[must_use]
    fn rows(data: Self::Data<'_>) -> DrawRows;

    /// Sets each of `data`'s buffers at its slot of `pass` (the slot of its type in the tuple),
    /// and returns the rows a draw may read.
    ///
    /// # Errors
    /// As [`GpuData::vertex_buffer_slice`](crate::GpuData::vertex_buffer_slice), for the first
    /// buffer that cannot be bound ([`GpuError::MissingUsage`] without `VERTEX`,
    /// [`GpuError::EmptyBinding`] for data without rows, [`GpuError::OtherDevice`], ...);
    /// buffers before it are set already.
    fn set(
        gpu: &Gpu,
        pass: &mut wgpu::RenderPass<'_>,
        data: Self::Data<'_>,
    ) -> Result<DrawRows, GpuError>;

    /// The buffers as the shader check reads them, in slot order. Not API.
    #[doc(hidden)]
    fn members() -> Vec<VertexSetMember>;
}

/// `T`'s [`VertexSetMember`].
fn member<T: GpuStruct>() -> VertexSetMember {
    let path = std::any::type_name::<T>();
    let base = path.split('<').next().unwrap_or(path);
    let start = base.rfind("::").map_or(0, |i| i + 2);
    VertexSetMember {
        name: &path[start..],
        format: T::FORMAT,
        step_mode: T::STEP_MODE,
        first_location: T::ATTRIBUTES.first().map_or(0, |a| a.shader_location),
    }
}

/// The fewest rows so far of one step mode, with one more buffer of `T`'s.
fn fewest<T: GpuStruct>(rows: &mut [Option<u64>; 2], data: &TypedGpuData<T>) {
    let slot = &mut rows[usize::from(T::STEP_MODE == StepMode::Instance)];
    let length = data.as_data().length();
    *slot = Some(slot.map_or(length, |s| s.min(length)));
}

/// The draw ranges of the fewest rows per step mode.
fn draw_rows([vertices, instances]: [Option<u64>; 2]) -> DrawRows {
    let count = |rows: u64| u32::try_from(rows).unwrap_or(u32::MAX);
    DrawRows {
        vertices: 0..vertices.map_or(0, count),
        instances: 0..instances.map_or(1, count),
    }
}

macro_rules! vertex_buffer_sets {
    ($(($($t:ident $v:ident $slot:literal),+))*) => {$(
        impl<$($t: GpuStruct),+> VertexBufferSet for ($($t,)+) {
            type Data<'a> = ($(&'a TypedGpuData<$t>,)+);

            fn layouts() -> Vec<Option<wgpu::VertexBufferLayout<'static>>> {
                vec![$(Some($t::vertex_buffer_layout())),+]
            }

            fn rows(($($v,)+): Self::Data<'_>) -> DrawRows {
                let mut rows = [None, None];
                $(fewest::<$t>(&mut rows, $v);)+
                draw_rows(rows)
            }

            fn set(
                gpu: &Gpu,
                pass: &mut wgpu::RenderPass<'_>,
                data: Self::Data<'_>,
            ) -> Result<DrawRows, GpuError> {
                let ($($v,)+) = data;
                $(pass.set_vertex_buffer($slot, $v.as_data().vertex_buffer_slice(gpu)?);)+
                Ok(Self::rows(($($v,)+)))
            }

            fn members() -> Vec<VertexSetMember> {
                vec![$(member::<$t>()),+]
            }
        }
    )*};
}

vertex_buffer_sets! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
}
