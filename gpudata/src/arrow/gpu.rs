//! Arrow columns to [`GpuData`] and back: one upload straight from the Arrow values buffer (no
//! intermediate host copy), the [`ArrowReadback`] kept as the data's readback metadata, and a
//! readback that rebuilds the original Arrow array.

use arrow_array::{Array, ArrayRef};
use arrow_schema::Field;

use super::ArrowInteropError;
use super::buffers::buffer_from_gpu;
use super::source::{ArrowColumnSource, ArrowReadback, ColumnOptions, SourceFormat};
use crate::data::{DEFAULT_USAGE, GpuData, GpuDataDescriptor, GpuDataFormat, GpuDataView};
use crate::device::Gpu;
use crate::layout::{BufferLayout, GpuDataStructFormat, StructLayout};
use crate::ops;

/// The struct format whose packed or wgsl-storage layout gives exactly `layout`'s offsets and
/// stride, if one does (so interleaved rows get typed children).
fn struct_format_of(layout: &BufferLayout) -> Option<GpuDataStructFormat> {
    let attributes = layout.resolved_attributes();
    [StructLayout::Packed, StructLayout::WgslStorage]
        .into_iter()
        .filter_map(|rule| {
            GpuDataStructFormat::new(
                rule,
                attributes.iter().map(|a| (a.attribute.clone(), a.format)),
            )
            .ok()
        })
        .find(|format| {
            Some(format.byte_stride()) == layout.byte_stride
                && format
                    .fields()
                    .iter()
                    .zip(&attributes)
                    .all(|(f, a)| f.byte_offset() == a.byte_offset)
        })
}

/// The GPU data descriptor of a source: its format, rows, values and strides, and its readback
/// metadata.
pub(crate) fn descriptor(source: &ArrowColumnSource) -> GpuDataDescriptor {
    let metadata = crate::data::ReadbackMetadata::with_rows(source.readback().clone());
    let format = match source.format() {
        SourceFormat::Vector(format) => Some(GpuDataFormat::Vector(*format)),
        SourceFormat::Interleaved(layout) => struct_format_of(layout).map(GpuDataFormat::Struct),
    };
    GpuDataDescriptor {
        format,
        length: source.length(),
        value_length: Some(source.value_length()),
        stride: None,
        byte_offset: 0,
        byte_stride: Some(source.byte_stride()),
        row_byte_length: Some(source.byte_stride()),
        readback_metadata: Some(metadata),
        metrics: crate::data::MetricsPolicy::Data,
    }
}

/// Refuses uploads larger than the device's `max_buffer_size`, naming the column (columns of
/// any size upload as chunked vectors: [`array_to_gpu_vector`](super::array_to_gpu_vector)).
fn check_device_limits(gpu: &Gpu, source: &ArrowColumnSource) -> Result<(), ArrowInteropError> {
    let bytes = if source.unpacks_bits() {
        source.length().saturating_mul(source.byte_stride())
    } else {
        source.bytes().len() as u64
    };
    let max = gpu.limits().max_buffer_size;
    if bytes.div_ceil(4).saturating_mul(4) > max {
        return Err(ArrowInteropError::DeviceLimit {
            column: source.readback().column().to_owned(),
            bytes,
            limit: "max_buffer_size",
            max,
        });
    }
    Ok(())
}

/// Uploads a column source: one buffer written straight from the Arrow bytes through wgpu's
/// staging memory ([`GpuData::from_bytes`]), described by the source's format, rows, values and
/// strides, with the [`ArrowReadback`] as readback metadata. Columns that asked for fround are
/// split on the GPU into `float32x2` / `float32x4` rows `[hi.., lo..]`; Boolean columns asked as
/// `uint8` / `uint32` upload their bitmap (an eighth or a thirty-second of the bytes) and are
/// unpacked on the GPU into 0/1 values.
///
/// `usage` gets `COPY_DST` added (and `STORAGE` for fround input); [`DEFAULT_USAGE`] (vertex,
/// storage, copies both ways) suits drawing, compute and readback.
///
/// # Errors
/// [`ArrowInteropError::DeviceLimit`] when the bytes exceed `max_buffer_size` (upload such a
/// column in chunks with [`array_to_gpu_vector`](super::array_to_gpu_vector));
/// [`ArrowInteropError::Gpu`] and [`ArrowInteropError::Op`] from the GPU layers.
pub fn upload_source(
    gpu: &Gpu,
    source: &ArrowColumnSource,
    usage: wgpu::BufferUsages,
) -> Result<GpuData, ArrowInteropError> {
    let column = source.readback().column();
    check_device_limits(gpu, source)?;
    if source.unpacks_bits() {
        return unpack_booleans(gpu, source, usage);
    }
    let fround = source.needs_fround();
    // fround reads the uploaded words as a storage binding.
    let usage = if fround {
        usage | wgpu::BufferUsages::STORAGE
    } else {
        usage
    };
    let words = GpuData::from_bytes(gpu, source.bytes(), descriptor(source), usage)
        .map_err(|e| ArrowInteropError::data(column, e))?;
    if !fround {
        return Ok(words);
    }
    let input_format = source
        .vector_format()
        .map(|f| f.element_format())
        .ok_or_else(|| ArrowInteropError::UnsupportedType {
            column: column.to_owned(),
            data_type: source.readback().data_type().clone(),
        })?;
    let input = GpuDataView::new(words.buffer(), input_format, source.length(), 0, None)
        .map_err(|e| ArrowInteropError::data(column, e))?
        .on_device(gpu);
    let mut split = ops::fround(gpu, input).map_err(|e| ArrowInteropError::op(column, e))?;
    words.destroy();
    let metadata =
        crate::data::ReadbackMetadata::with_rows(source.readback().clone().after_fround());
    split.set_readback_metadata(Some(metadata));
    Ok(split)
}

/// Whether `source` uploads through a batch's shared [`Stager`](crate::device::transfer::Stager)
/// ([`upload_sources`]): its bytes need no GPU pass (fround, Boolean unpacking), fit one
/// staging step, and are below the handle's host-DMA threshold, if any.
fn stages_with_batch(gpu: &Gpu, source: &ArrowColumnSource) -> bool {
    let len = source.bytes().len() as u64;
    !source.unpacks_bits()
        && !source.needs_fround()
        && len <= crate::device::STAGING_CHUNK_BYTES
        && gpu
            .transfer_config()
            .host_dma_threshold()
            .is_none_or(|threshold| len < threshold)
}

/// Uploads the columns of one batch as [`upload_source`] does each, except that the columns of
/// at most one staging step ([`STAGING_CHUNK_BYTES`](crate::device::STAGING_CHUNK_BYTES)) that
/// need no GPU pass share one stager: their bytes reach the queue in one submission for the
/// batch, not one per column. Returns once every column's bytes are handed to the queue.
///
/// # Errors
/// As [`upload_source`].
pub(crate) fn upload_sources(
    gpu: &Gpu,
    sources: &[ArrowColumnSource],
    usage: wgpu::BufferUsages,
) -> Result<Vec<GpuData>, ArrowInteropError> {
    use crate::device::transfer::{Stager, WaitMode};
    let mut stager: Option<Stager<'_>> = None;
    let mut uploaded = Vec::with_capacity(sources.len());
    for source in sources {
        if !stages_with_batch(gpu, source) {
            uploaded.push(upload_source(gpu, source, usage)?);
            continue;
        }
        let column = source.readback().column();
        check_device_limits(gpu, source)?;
        let stager = match &mut stager {
            Some(stager) => stager,
            None => stager.insert(
                Stager::new(gpu, WaitMode::Block)
                    .map_err(|e| ArrowInteropError::data(column, e.into()))?,
            ),
        };
        let data = pollster::block_on(GpuData::from_bytes_staged(
            gpu,
            source.bytes(),
            descriptor(source),
            usage,
            stager,
        ))
        .map_err(|e| ArrowInteropError::data(column, e))?;
        uploaded.push(data);
    }
    if let Some(stager) = stager {
        let column = sources
            .last()
            .map_or("(record batch)", |s| s.readback().column());
        pollster::block_on(stager.finish())
            .map_err(|e| ArrowInteropError::data(column, e.into()))?;
    }
    Ok(uploaded)
}

/// Uploads a Boolean column's bitmap and unpacks it on the GPU ([`ops::unpack_bits`]) into one
/// `uint8` / `uint32` 0 or 1 per row, in a buffer of `usage` (plus `STORAGE`).
fn unpack_booleans(
    gpu: &Gpu,
    source: &ArrowColumnSource,
    usage: wgpu::BufferUsages,
) -> Result<GpuData, ArrowInteropError> {
    let column = source.readback().column();
    let output = ops::unpack_bits(
        gpu,
        source.bytes(),
        source.length(),
        source.byte_stride(),
        usage,
    )
    .map_err(|e| ArrowInteropError::op(column, e))?;
    GpuData::new(crate::data::BufferHandle::Owned(output), descriptor(source))
        .map(|data| data.on_device(gpu))
        .map_err(|e| ArrowInteropError::data(column, e))
}

/// Uploads one Arrow column (`field` names it and, for interleaved rows, carries their layout).
///
/// ```
/// use arrow_array::Float32Array;
/// use arrow_schema::{DataType, Field};
/// use gpudata::arrow::{ColumnOptions, array_from_gpu, array_to_gpu};
///
/// let gpu = gpudata::Gpu::headless()?;
/// let values = Float32Array::from(vec![1.0, 2.0, 3.0]);
/// let field = Field::new("weights", DataType::Float32, false);
/// let data = array_to_gpu(&gpu, &field, &values, &ColumnOptions::default())?;
/// assert_eq!(data.length(), 3);
/// let back = array_from_gpu(&gpu, &data)?;
/// assert_eq!(back.as_ref(), &values as &dyn arrow_array::Array);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`ArrowColumnSource::new`] and [`upload_source`].
pub fn array_to_gpu(
    gpu: &Gpu,
    field: &Field,
    array: &dyn Array,
    options: &ColumnOptions,
) -> Result<GpuData, ArrowInteropError> {
    let source = ArrowColumnSource::new(field, array, options)?;
    upload_source(gpu, &source, DEFAULT_USAGE)
}

/// Reads GPU data uploaded by this adapter back as an Arrow array of its original type, with
/// offsets, validity and dictionary values restored (luma.gl's `readArrowGPUDataAsync`).
/// Strided rows are compacted.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] for data without Arrow readback metadata;
/// [`ArrowInteropError::Gpu`] when the readback fails; then as [`ArrowReadback::to_array`].
pub fn array_from_gpu(gpu: &Gpu, data: &GpuData) -> Result<ArrayRef, ArrowInteropError> {
    read_array(gpu, data).map(|(_, array)| array)
}

/// [`array_from_gpu`], with the data's [`ArrowReadback`] (its field, for record batches).
pub(crate) fn read_array<'d>(
    gpu: &Gpu,
    data: &'d GpuData,
) -> Result<(&'d ArrowReadback, ArrayRef), ArrowInteropError> {
    let readback = data
        .readback_metadata_as::<ArrowReadback>()
        .ok_or(ArrowInteropError::MissingMetadata)?;
    // Straight into an aligned Arrow buffer, which the array then holds without a copy.
    let bytes = buffer_from_gpu(gpu, data)?;
    Ok((readback, readback.to_array(bytes)?))
}

/// Rewrites the category ids of `batches` (each uploaded with a worker's own ids, with the
/// [`Remap`](super::convert::Remap)s of its category columns from
/// [`WorkerConverter::remaps`](super::convert::WorkerConverter)) to the stream's: every map in
/// one buffer written at its creation, the ids rewritten in place through their map (an id
/// outside it, a null row's, becomes 0), all in one submission; and the stream's labels set as
/// each column's dictionary for readback.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] when a batch has no such Arrow column;
/// [`ArrowInteropError::Gpu`] and [`ArrowInteropError::Op`] from the map's buffer and the
/// rewrites (the ids are then left as they were).
#[cfg(feature = "parquet")]
pub(crate) fn remap_category_ids(
    gpu: &Gpu,
    batches: &mut [(crate::table::GpuRecordBatch, Vec<super::convert::Remap>)],
) -> Result<(), ArrowInteropError> {
    // Each map starts at a multiple of 64 ids (256 bytes, the usual binding alignment); a
    // batch whose rows are all null has no labels and an empty map: one entry keeps every
    // map a range of the buffer, and its ids (`u32::MAX`) still fall outside it.
    const MAP_ALIGN: usize = 64;
    let mut maps: Vec<u32> = Vec::new();
    // Per column to rewrite: its batch, name and map range.
    let mut rewrites = Vec::new();
    for (b, (batch, remaps)) in batches.iter_mut().enumerate() {
        for remap in remaps.drain(..) {
            let data = batch
                .column_mut(&remap.column)
                .ok_or(ArrowInteropError::MissingMetadata)?;
            let readback = data
                .readback_metadata_as::<ArrowReadback>()
                .ok_or(ArrowInteropError::MissingMetadata)?;
            let metadata = crate::data::ReadbackMetadata::with_rows(ArrowReadback {
                dictionary: Some(remap.labels),
                ..readback.clone()
            });
            data.set_readback_metadata(Some(metadata));
            let Some(map) = remap.map else {
                continue;
            };
            let start = maps.len();
            maps.extend_from_slice(&map);
            if map.is_empty() {
                maps.push(0);
            }
            let len = maps.len() - start;
            maps.resize(maps.len().next_multiple_of(MAP_ALIGN), 0);
            rewrites.push((b, remap.column, start, len));
        }
    }
    let Some((_, first, ..)) = rewrites.first() else {
        return Ok(());
    };
    let bytes: &[u8] = bytemuck::cast_slice(&maps);
    let map = crate::device::buffers::create_filled_buffer(
        gpu,
        bytes.len() as u64,
        wgpu::BufferUsages::STORAGE,
        "category id maps",
        |view| {
            // The allocation is `bytes` rounded up to a word: never shorter.
            view.slice(..bytes.len()).copy_from_slice(bytes);
            Ok::<(), crate::device::GpuError>(())
        },
    )
    .map_err(|e| ArrowInteropError::gpu(first, e))?;
    let mut plans = Vec::with_capacity(rewrites.len());
    for (b, column, start, len) in &rewrites {
        let ids = batches
            .get(*b)
            .and_then(|(batch, _)| batch.column(column))
            .and_then(GpuData::as_view)
            .ok_or(ArrowInteropError::MissingMetadata)?;
        let range = GpuDataView::new(
            &map,
            crate::format::VertexFormat::Uint32,
            *len as u64,
            *start as u64 * 4,
            None,
        )
        .map_err(|e| ArrowInteropError::data(column, e))?
        .on_device(gpu);
        let plan = ops::plan_remap_in_place(gpu, ids, range)
            .map_err(|e| ArrowInteropError::op(column, e))?;
        plans.push(plan);
    }
    // The map is dropped, not destroyed: wgpu frees it once the rewrites are done, and
    // `destroy` would take the device's resource lock for writing, which waits for every
    // other thread's blocking poll (and stops their submissions meanwhile).
    ops::OpPlan::run_together(gpu, plans).map_err(|e| ArrowInteropError::op(first, e))?;
    Ok(())
}
