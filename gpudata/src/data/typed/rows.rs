//! Typed forms: [`TypedGpuData<T>`] for rows of a `#[derive(GpuStruct)]` type, with children
//! chosen by field marker at compile time, and [`TypedGpuDataView`] reading Rust field values.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use crate::data::DataError;
use crate::data::upload::{upload_rows, write_rows_into};
use crate::data::{GpuData, GpuDataFormat, GpuDataView};
use crate::device::Gpu;
use crate::device::GpuError;
use crate::device::transfer::{WaitMode, advise_huge_pages, read_into, read_range};
use crate::record::{
    GpuField, GpuFieldOf, GpuStruct, decode_rows_strided, rows_as_bytes_mut, zeroed_rows,
};

/// [`GpuData`] whose rows are `T`s: its format is `T::FORMAT`, rows upload from and read back
/// to `&[T]` / `Vec<T>`, and [`get_child`](Self::get_child) takes one of the field markers the
/// derive generates, so asking for a field of another struct does not compile.
///
/// Children by name and by index, for names known only at run time, are
/// [`get_child_by_name`](Self::get_child_by_name) and [`get_child_at`](Self::get_child_at)
/// (both `Option`). Everything else [`GpuData`] does (the buffer, offsets, strides, bindings,
/// raw readback) is reached through [`as_data`](Self::as_data) or [`into_data`](Self::into_data):
/// typed data does not deref to untyped data, so no untyped method hides behind a typed one of
/// the same name.
///
/// ```
/// use gpudata::{Gpu, GpuStruct, TypedGpuData, data::DEFAULT_USAGE};
///
/// #[derive(Clone, Copy, GpuStruct)]
/// struct Row {
///     weight: f32,
///     id: u32,
/// }
///
/// let gpu = Gpu::headless()?;
/// let data = TypedGpuData::from_rows(&gpu, &[Row { weight: 0.5, id: 7 }], DEFAULT_USAGE)?;
/// let ids = data.get_child::<row_fields::Id>(); // typed, checked at compile time
/// assert_eq!(ids.read(&gpu)?, [7]);
/// let by_name = data.get_child_by_name("id").expect("a field called id");
/// assert_eq!(by_name.byte_offset(), data.get_child_at(1).expect("two fields").byte_offset());
/// assert_eq!(data.as_data().byte_stride(), 8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TypedGpuData<T: GpuStruct> {
    data: GpuData,
    rows: PhantomData<fn() -> T>,
}

impl<T: GpuStruct> TypedGpuData<T> {
    /// A new owned buffer holding `rows` at `T`'s stride. Rows whose host layout equals their GPU
    /// layout are copied straight from the slice; others are encoded on the way into wgpu's
    /// staging memory. `usage` gets `COPY_DST` added. The copies run before the next
    /// submission; the call blocks only while more than two staging chunks are in flight.
    ///
    /// # Errors
    /// [`DataError::Gpu`] with [`GpuError::BufferTooLarge`], [`GpuError::DeviceLost`] or what
    /// wgpu refused; [`DataError::RangeOverflow`] when the size overflows.
    pub fn from_rows(
        gpu: &Gpu,
        rows: &[T],
        usage: wgpu::BufferUsages,
    ) -> Result<TypedGpuData<T>, DataError> {
        pollster::block_on(upload_rows(gpu, rows, usage, WaitMode::Block)).map(Self::wrap)
    }

    /// The asynchronous form of [`from_rows`](Self::from_rows).
    ///
    /// # Errors
    /// As [`from_rows`](Self::from_rows).
    pub async fn from_rows_async(
        gpu: &Gpu,
        rows: &[T],
        usage: wgpu::BufferUsages,
    ) -> Result<TypedGpuData<T>, DataError> {
        upload_rows(gpu, rows, usage, WaitMode::Async)
            .await
            .map(Self::wrap)
    }

    /// A new owned buffer of `rows` zeroed rows (WebGPU zeroes new buffers): spare rows to
    /// fill with [`write_rows`](Self::write_rows), or a kernel's output. `usage` gets `COPY_DST`
    /// added.
    ///
    /// # Errors
    /// As [`GpuData::zeroed`]: [`DataError::RangeOverflow`] when the size overflows,
    /// [`DataError::Gpu`] for what the device refused.
    pub fn zeroed(
        gpu: &Gpu,
        rows: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<TypedGpuData<T>, DataError> {
        GpuData::zeroed(gpu, T::FORMAT, rows, usage).map(Self::wrap)
    }

    /// A new owned buffer of `capacity` rows (at least `rows.len()`) whose first rows are
    /// `rows` and the others zeroed: room for rows [`write_rows`](Self::write_rows) adds later.
    /// The data's length is the capacity (the spare rows are rows, read back as zeros and bound
    /// with the others). `usage` gets `COPY_DST` added.
    ///
    /// # Errors
    /// As [`zeroed`](Self::zeroed) and [`write_rows`](Self::write_rows).
    pub fn with_capacity(
        gpu: &Gpu,
        rows: &[T],
        capacity: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<TypedGpuData<T>, DataError> {
        let data = Self::zeroed(gpu, capacity.max(rows.len() as u64), usage)?;
        data.write_rows(gpu, 0, rows)?;
        Ok(data)
    }

    fn wrap(data: GpuData) -> TypedGpuData<T> {
        TypedGpuData {
            data,
            rows: PhantomData,
        }
    }

    /// Types runtime data whose format is `T::FORMAT`.
    ///
    /// # Errors
    /// [`DataError::FormatMismatch`] naming both formats; the data is dropped (its buffer is not
    /// destroyed).
    pub fn try_from_data(data: GpuData) -> Result<TypedGpuData<T>, DataError> {
        match data.struct_format() {
            Some(format) if format == T::FORMAT => Ok(Self::wrap(data)),
            _ => Err(DataError::FormatMismatch {
                expected: format!(
                    "{} ({})",
                    std::any::type_name::<T>(),
                    GpuDataFormat::Struct(T::FORMAT.clone())
                ),
                found: data
                    .format()
                    .map_or_else(|| "no format".to_owned(), ToString::to_string),
            }),
        }
    }

    /// The runtime form.
    #[must_use]
    pub fn into_data(self) -> GpuData {
        self.data
    }

    /// The runtime form, borrowed.
    #[must_use]
    pub fn as_data(&self) -> &GpuData {
        &self.data
    }

    /// Frees the GPU memory now if this data owns its buffer (see [`GpuData::destroy`]).
    pub fn destroy(self) {
        self.data.destroy();
    }

    /// Another typed handle over the same rows, sharing the buffer (see [`GpuData::share`]).
    #[must_use]
    pub fn share(&self) -> TypedGpuData<T> {
        Self::wrap(self.data.share())
    }

    /// The typed view of the field `M` names: its format, the data's length and byte stride, at
    /// the data's byte offset plus the field's. The field comes from the marker's constants (no
    /// lookup by name), and a marker of another struct does not compile. Allocates nothing.
    ///
    /// # Panics
    /// Only when a hand-written [`GpuFieldMarker`](crate::record::GpuFieldMarker) contradicts `T::FORMAT` (its index, name,
    /// format, offset or value size); markers generated by `#[derive(GpuStruct)]` always agree.
    #[must_use]
    pub fn get_child<M: GpuFieldOf<T>>(&self) -> TypedGpuDataView<'_, M::Value>
    where
        M::Value: GpuField,
    {
        match self.try_child::<M>() {
            Ok(view) => view,
            Err(e) => panic!("{e}"),
        }
    }

    /// The untyped view of the field called `name` (see [`GpuData::get_child`]); `None` for an
    /// unknown name.
    #[must_use]
    pub fn get_child_by_name(&self, name: &str) -> Option<GpuDataView<'_>> {
        self.data.get_child(name)
    }

    /// The untyped view of field `index` in declaration order (see [`GpuData::get_child_at`]);
    /// `None` when out of range.
    #[must_use]
    pub fn get_child_at(&self, index: usize) -> Option<GpuDataView<'_>> {
        self.data.get_child_at(index)
    }

    fn try_child<M: GpuFieldOf<T>>(&self) -> Result<TypedGpuDataView<'_, M::Value>, DataError>
    where
        M::Value: GpuField,
    {
        let fields = self.data.struct_format().map_or(&[][..], |f| f.fields());
        let agrees = fields.get(M::INDEX).is_some_and(|field| {
            field.name() == M::NAME
                && field.format() == M::FORMAT
                && field.byte_offset() == M::BYTE_OFFSET
                && M::FORMAT.byte_length() == size_of::<M::Value>() as u64
        });
        if !agrees {
            return Err(DataError::MarkerMismatch {
                name: M::NAME,
                marker: std::any::type_name::<M>(),
                index: M::INDEX,
                found: fields.get(M::INDEX).map_or_else(
                    || format!("missing ({} fields)", fields.len()),
                    |f| {
                        format!(
                            "`{}` of format {} at byte {}",
                            f.name(),
                            f.format(),
                            f.byte_offset()
                        )
                    },
                ),
            });
        }
        Ok(TypedGpuDataView {
            view: self.data.child_view(M::FORMAT, M::BYTE_OFFSET),
            values: PhantomData,
        })
    }

    /// Writes `rows` from row `row_offset` on, through wgpu's staging memory (no host copy of
    /// rows whose host layout matches).
    ///
    /// # Errors
    /// [`DataError::RowsOutOfRange`]; [`DataError::Gpu`] with [`GpuError::MissingUsage`]
    /// without `COPY_DST`, [`GpuError::UnalignedWrite`] when the rows do not start on a 4-byte
    /// boundary, [`GpuError::DeviceLost`], [`GpuError::Poll`].
    pub fn write_rows(&self, gpu: &Gpu, row_offset: u64, rows: &[T]) -> Result<(), DataError> {
        pollster::block_on(write_rows_into(
            gpu,
            &self.data,
            row_offset,
            rows,
            WaitMode::Block,
        ))
    }

    /// The asynchronous form of [`write_rows`](Self::write_rows).
    ///
    /// # Errors
    /// As [`write_rows`](Self::write_rows).
    pub async fn write_rows_async(
        &self,
        gpu: &Gpu,
        row_offset: u64,
        rows: &[T],
    ) -> Result<(), DataError> {
        write_rows_into(gpu, &self.data, row_offset, rows, WaitMode::Async).await
    }

    /// Every row, read back and decoded with `T::decode_row`. Blocks until the copy is done.
    ///
    /// # Errors
    /// As [`GpuData::read_bytes`].
    pub fn read_rows(&self, gpu: &Gpu) -> Result<Vec<T>, GpuError> {
        pollster::block_on(self.read_rows_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_rows`](Self::read_rows).
    ///
    /// # Errors
    /// As [`GpuData::read_bytes`].
    pub async fn read_rows_async(&self, gpu: &Gpu) -> Result<Vec<T>, GpuError> {
        self.read_rows_inner(gpu, WaitMode::Async).await
    }

    async fn read_rows_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<T>, GpuError> {
        // Rows whose host layout is their GPU layout, packed: copied straight into the `Vec`.
        let stride = self.data.byte_stride();
        let count = usize::try_from(self.data.length()).ok();
        if T::HOST_LAYOUT_MATCHES
            && stride == T::FORMAT.byte_stride()
            && let Some(mut rows) = count.and_then(zeroed_rows::<T>)
            && let Some(bytes) = rows_as_bytes_mut(&mut rows)
        {
            advise_huge_pages(bytes);
            // The last row's bytes past its payload stay zero (padding, not read back).
            let len = usize::try_from(self.data.byte_length()).unwrap_or(usize::MAX);
            if let Some(dst) = bytes.get_mut(..len) {
                read_into(
                    gpu,
                    self.data.buffer_on(gpu, "read back rows")?,
                    self.data.byte_offset(),
                    dst,
                    "read back rows",
                    mode,
                )
                .await?;
                return Ok(rows);
            }
        }
        let bytes = read_range(
            gpu,
            self.data.buffer_on(gpu, "read back rows")?,
            self.data.byte_offset(),
            self.data.byte_length(),
            "read back rows",
            mode,
        )
        .await?;
        let stride = self.data.byte_stride() as usize;
        let threads = match mode {
            WaitMode::Block => gpu.transfer_config().threads_for(gpu.adapter_kind()),
            WaitMode::Async => 1,
        };
        // Shares of at least 64 Ki rows.
        Ok(decode_rows_strided(
            &bytes,
            stride,
            self.data.length() as usize,
            threads,
            64 << 10,
        ))
    }
}

impl<T: GpuStruct> From<TypedGpuData<T>> for GpuData {
    fn from(data: TypedGpuData<T>) -> GpuData {
        data.data
    }
}

impl<T: GpuStruct> fmt::Debug for TypedGpuData<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypedGpuData")
            .field(&std::any::type_name::<T>())
            .field(&self.data)
            .finish()
    }
}

/// A [`GpuDataView`] whose values are `V`s: [`read`](Self::read) returns them as Rust values
/// (their bytes are the GPU bytes), while [`GpuDataView::read_values`] still decodes them as
/// vertex fetch would. Derefs to the untyped view.
pub struct TypedGpuDataView<'a, V: GpuField> {
    view: GpuDataView<'a>,
    values: PhantomData<fn() -> V>,
}

impl<'a, V: GpuField> TypedGpuDataView<'a, V> {
    /// Types a view whose values are `size_of::<V>()` bytes.
    ///
    /// # Errors
    /// [`DataError::FormatMismatch`] when the view's values have another size.
    pub fn new(view: GpuDataView<'a>) -> Result<TypedGpuDataView<'a, V>, DataError> {
        if view.element_byte_length() != size_of::<V>() as u64 {
            return Err(DataError::FormatMismatch {
                expected: format!(
                    "values of {} bytes ({})",
                    size_of::<V>(),
                    std::any::type_name::<V>()
                ),
                found: format!("{} ({} bytes)", view.format(), view.element_byte_length()),
            });
        }
        Ok(TypedGpuDataView {
            view,
            values: PhantomData,
        })
    }

    /// The untyped view.
    #[must_use]
    pub const fn view(&self) -> GpuDataView<'a> {
        self.view
    }

    /// The values, read back as `V`s. Blocks until the copy is done.
    ///
    /// # Errors
    /// As [`GpuDataView::read_packed_bytes`].
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<V>, GpuError> {
        pollster::block_on(self.read_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read`](Self::read).
    ///
    /// # Errors
    /// As [`GpuDataView::read_packed_bytes`].
    pub async fn read_async(&self, gpu: &Gpu) -> Result<Vec<V>, GpuError> {
        self.read_inner(gpu, WaitMode::Async).await
    }

    async fn read_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<V>, GpuError> {
        let packed = self.view.read_packed_bytes_inner(gpu, mode).await?;
        Ok(crate::record::read_fields(&packed))
    }
}

impl<'a, V: GpuField> Deref for TypedGpuDataView<'a, V> {
    type Target = GpuDataView<'a>;

    fn deref(&self) -> &GpuDataView<'a> {
        &self.view
    }
}

impl<V: GpuField> Clone for TypedGpuDataView<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V: GpuField> Copy for TypedGpuDataView<'_, V> {}

impl<V: GpuField> fmt::Debug for TypedGpuDataView<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypedGpuDataView")
            .field(&std::any::type_name::<V>())
            .field(&self.view)
            .finish()
    }
}
