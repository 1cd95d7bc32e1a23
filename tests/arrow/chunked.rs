//! Arrow columns larger than one buffer and readback into Arrow buffers (issue 17): on a device
//! whose `max_buffer_size` is 1 KiB, every supported column type uploads as a chunked
//! `GpuVector` (each buffer within the limit, where one buffer is refused) whose bytes equal the
//! Arrow source's, reads back as the same array, and a record batch too large for one buffer
//! becomes consecutive GPU batches that read back as the batch's slices. Readbacks land in
//! the memory of Arrow buffers that the rebuilt arrays hold without a copy.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Float32Array, Float64Array, RecordBatch, StringArray,
    UInt8Array, UInt32Array,
};
use arrow_buffer::MutableBuffer;
use arrow_schema::{DataType, Field, Schema};
use gpudata::VertexFormat;
use gpudata::arrow::{
    ArrowColumnSource, ArrowInteropError, ArrowReadback, ColumnOptions, FormatChoice,
    array_from_gpu, array_from_gpu_vector, array_to_gpu, array_to_gpu_vector,
    arrays_from_gpu_vector, buffer_from_gpu, buffer_from_gpu_into, buffer_from_gpu_vector,
    record_batches_from_gpu_table, record_batches_to_gpu_table,
};
use gpudata::table::{ChunkOptions, GpuVector, RowResolver, TableError};

use crate::gpu::{every_type_batch, options};
use crate::support::{self, small_gpu};

/// The most bytes one buffer may hold on [`small_gpu`].
const MAX_BUFFER: u64 = support::SMALL_BUFFER;

/// The column options `options()` gives column `name` of [`every_type_batch`].
fn column_options(name: &str) -> ColumnOptions {
    if name == "float64" {
        ColumnOptions::with_format("uint32x2".parse().unwrap())
    } else {
        ColumnOptions::default()
    }
}

/// Every chunk within the device's limit, the chunks' rows summing to the vector's.
fn check_buffers(vector: &GpuVector, rows: u64) {
    let mut total = 0;
    for chunk in vector.chunks() {
        assert!(
            chunk.buffer().size() <= MAX_BUFFER,
            "`{}`: a chunk of {} bytes",
            vector.name(),
            chunk.buffer().size()
        );
        total += chunk.length();
    }
    assert_eq!(total, rows, "`{}`", vector.name());
    assert_eq!(vector.length(), rows);
}

#[test]
fn a_float32_column_larger_than_one_buffer_uploads_in_chunks_of_whole_rows() {
    let gpu = small_gpu();
    let field = Field::new("heights", DataType::Float32, false);
    let mut rng = support::Rng::new(1717);
    // 256 float32 rows fill a 1 KiB chunk.
    for rows in [0usize, 1, 3, 255, 256, 257, 513, 700] {
        let values = Float32Array::from_iter_values((0..rows).map(|_| rng.next_u32() as f32));
        let vector = array_to_gpu_vector(
            &gpu,
            &field,
            &values,
            &ColumnOptions::default(),
            ChunkOptions::default(),
        )
        .unwrap();
        check_buffers(&vector, rows as u64);
        assert_eq!(
            vector.chunks().len(),
            rows.div_ceil(256).max(1),
            "{rows} rows"
        );
        // The bytes on the GPU are the Arrow values buffer's, byte for byte.
        let bytes = buffer_from_gpu_vector(&gpu, &vector).unwrap();
        assert_eq!(
            bytes.as_slice(),
            values.values().inner().as_slice(),
            "{rows} rows"
        );
        let back = array_from_gpu_vector(&gpu, &vector).unwrap();
        assert_eq!(back.as_ref(), &values as &dyn Array, "{rows} rows");
        if rows > 256 {
            // What the chunked upload is for: one buffer is refused.
            let refused = array_to_gpu(&gpu, &field, &values, &ColumnOptions::default());
            assert!(
                matches!(
                    refused,
                    Err(ArrowInteropError::DeviceLimit {
                        max: MAX_BUFFER,
                        ..
                    })
                ),
                "{refused:?}"
            );
        }
    }
}

#[test]
fn every_column_type_uploads_chunked_and_reads_back_equal() {
    let gpu = small_gpu();
    let batch = every_type_batch(700, 17);
    let schema = batch.schema();
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        let options = column_options(field.name());
        let vector = array_to_gpu_vector(
            &gpu,
            field,
            array.as_ref(),
            &options,
            ChunkOptions::default(),
        )
        .unwrap();
        check_buffers(&vector, 700);
        // Byte for byte the Arrow source's upload bytes (values, list elements, string bytes,
        // dictionary keys, interleaved rows).
        let source = ArrowColumnSource::new(field, array.as_ref(), &options).unwrap();
        let bytes = buffer_from_gpu_vector(&gpu, &vector).unwrap();
        assert_eq!(bytes.as_slice(), source.bytes(), "`{}`", field.name());
        // Chunked exactly when one buffer would not do.
        let needed = (source.bytes().len() as u64).div_ceil(4) * 4;
        assert_eq!(
            vector.chunks().len() > 1,
            needed > MAX_BUFFER,
            "`{}`",
            field.name()
        );
        let back = array_from_gpu_vector(&gpu, &vector).unwrap();
        assert_eq!(back.as_ref(), array.as_ref(), "`{}`", field.name());
        // Each chunk reads back alone as its slice of the column.
        let mut first = 0;
        for (chunk, piece) in vector
            .chunks()
            .iter()
            .zip(arrays_from_gpu_vector(&gpu, &vector).unwrap())
        {
            let rows = chunk.length() as usize;
            assert_eq!(
                piece.as_ref(),
                array.slice(first, rows).as_ref(),
                "`{}` at row {first}",
                field.name()
            );
            first += rows;
        }
    }
}

#[test]
fn converted_columns_convert_chunk_by_chunk() {
    let gpu = small_gpu();
    let mut rng = support::Rng::new(1718);
    let cut = ChunkOptions {
        rows_per_chunk: Some(77),
        ..ChunkOptions::default()
    };
    // fround: each chunk split on the GPU; the oracle is the one-buffer path on a full device.
    let floats = Float64Array::from_iter_values((0..500).map(|_| f64::from(rng.next_u32()) / 3.0));
    let field = Field::new("lat", DataType::Float64, false);
    let fround = ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    };
    let vector =
        array_to_gpu_vector(&gpu, &field, &floats, &fround, ChunkOptions::default()).unwrap();
    check_buffers(&vector, 500);
    assert_eq!(
        vector.chunks().len(),
        4,
        "8 bytes per row: 128 rows per chunk"
    );
    let full = support::gpu();
    let oracle = array_from_gpu(
        &full,
        &array_to_gpu(&full, &field, &floats, &fround).unwrap(),
    )
    .unwrap();
    assert_eq!(
        array_from_gpu_vector(&gpu, &vector).unwrap().as_ref(),
        oracle.as_ref()
    );
    // Booleans unpacked per chunk, chunks starting inside a bitmap byte (77 rows each).
    let bools = BooleanArray::from_iter(
        (0..500).map(|i| (i % 5 != 2).then_some(rng.next_u32().is_multiple_of(2))),
    );
    let field = Field::new("flag", DataType::Boolean, true);
    for (format, width) in [(VertexFormat::Uint8, 1u64), (VertexFormat::Uint32, 4)] {
        let options = ColumnOptions::with_format(gpudata::GpuVectorFormat::Fixed(format));
        let vector = array_to_gpu_vector(&gpu, &field, &bools, &options, cut).unwrap();
        check_buffers(&vector, 500);
        assert_eq!(vector.chunks().len(), 7);
        let back = array_from_gpu_vector(&gpu, &vector).unwrap();
        let expected: ArrayRef = if width == 1 {
            Arc::new(UInt8Array::from_iter(bools.iter().map(|b| b.map(u8::from))))
        } else {
            Arc::new(UInt32Array::from_iter(
                bools.iter().map(|b| b.map(u32::from)),
            ))
        };
        assert_eq!(back.as_ref(), expected.as_ref(), "{format}");
    }
}

#[test]
fn strings_are_cut_by_their_bytes_and_a_row_too_large_is_refused() {
    let gpu = small_gpu();
    let mut rng = support::Rng::new(1719);
    let names = StringArray::from_iter(
        (0..300).map(|i| (i % 7 != 3).then(|| "x".repeat(rng.next_u32() as usize % 200))),
    );
    let field = Field::new("names", DataType::Utf8, true);
    let vector = array_to_gpu_vector(
        &gpu,
        &field,
        &names,
        &ColumnOptions::default(),
        ChunkOptions::default(),
    )
    .unwrap();
    check_buffers(&vector, 300);
    let bytes: usize = names.iter().map(|n| n.map_or(0, str::len)).sum();
    assert!(vector.chunks().len() as u64 >= (bytes as u64).div_ceil(MAX_BUFFER));
    assert_eq!(
        array_from_gpu_vector(&gpu, &vector).unwrap().as_ref(),
        &names as &dyn Array
    );
    let long = StringArray::from(vec!["short", &"y".repeat(2000)]);
    let error = array_to_gpu_vector(
        &gpu,
        &field,
        &long,
        &ColumnOptions::default(),
        ChunkOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            &error,
            ArrowInteropError::Table {
                source: TableError::RowExceedsChunk {
                    byte_stride: 2000,
                    max_chunk_bytes: MAX_BUFFER,
                    ..
                }
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_batch_larger_than_one_buffer_becomes_consecutive_gpu_batches() {
    let gpu = small_gpu();
    let batches = [every_type_batch(700, 23), every_type_batch(40, 24)];
    let schema: Schema = batches[0].schema().as_ref().clone();
    let (table, skipped) =
        record_batches_to_gpu_table(&gpu, &schema, &batches, &options()).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    // The widest fixed column (positions, 12 bytes) allows 85 rows per batch; the small batch
    // fits whole.
    let gpu_batches = table.batches();
    assert!(
        gpu_batches.len() > 700 / 85,
        "{} batches",
        gpu_batches.len()
    );
    // Source rows count across the batches: batch 1 starts at row 700.
    let starts = [0u64, 700];
    let mut next = starts;
    for gpu_batch in gpu_batches {
        for (name, data) in gpu_batch.columns() {
            assert!(
                data.buffer().size() <= MAX_BUFFER,
                "`{name}` of {} bytes",
                data.buffer().size()
            );
        }
        let info = gpu_batch.source_info().unwrap();
        let source = info.source_batch_index as usize;
        assert_eq!(info.source_row_index_offset, next[source]);
        assert_eq!(info.source_row_count, gpu_batch.num_rows());
        next[source] += info.source_row_count;
    }
    assert_eq!(next, [700, 740]);
    let back = record_batches_from_gpu_table(&gpu, &table).unwrap();
    assert_eq!(back.len(), gpu_batches.len());
    for (read, gpu_batch) in back.iter().zip(gpu_batches) {
        let info = gpu_batch.source_info().unwrap();
        let source = info.source_batch_index as usize;
        let offset = (info.source_row_index_offset - starts[source]) as usize;
        let expected = batches[source].slice(offset, info.source_row_count as usize);
        assert_eq!(read, &expected, "rows {offset}.. of batch {source}");
    }
    // Cut where the options say, too.
    let mut by_rows = gpudata::arrow::BatchOptions::new();
    by_rows.chunks = ChunkOptions {
        rows_per_chunk: Some(10),
        ..ChunkOptions::default()
    };
    let small_batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("v", DataType::Float32, false)])),
        vec![Arc::new(Float32Array::from_iter_values(
            (0..25).map(|i| i as f32),
        ))],
    )
    .unwrap();
    let (table, _) = record_batches_to_gpu_table(
        &support::gpu(),
        &small_batch.schema(),
        std::slice::from_ref(&small_batch),
        &by_rows,
    )
    .unwrap();
    let rows: Vec<u64> = table.batches().iter().map(|b| b.num_rows()).collect();
    assert_eq!(rows, [10, 10, 5]);
}

/// Picking's row ids resolve to the Arrow rows they came from, across a source batch cut into
/// several GPU batches: the read-back batch and row, and the source batch and row, hold the
/// same values.
#[test]
fn picked_rows_resolve_to_their_arrow_source_rows_across_cut_batches() {
    let gpu = small_gpu();
    let batches = [every_type_batch(700, 23), every_type_batch(40, 24)];
    let schema: Schema = batches[0].schema().as_ref().clone();
    let (table, _) = record_batches_to_gpu_table(&gpu, &schema, &batches, &options()).unwrap();
    let resolver = RowResolver::new(&table).unwrap();
    assert_eq!(resolver.rows(), 740);
    let back = record_batches_from_gpu_table(&gpu, &table).unwrap();
    for global in [0u64, 84, 85, 86, 400, 699, 700, 701, 739] {
        let picked = resolver.resolve(global).unwrap();
        let source = picked.source.unwrap();
        let (batch, row) = if global < 700 {
            (0, global)
        } else {
            (1, global - 700)
        };
        assert_eq!(
            (source.batch, source.row, source.table_row),
            (batch, row, global)
        );
        let read = back[picked.batch].slice(picked.row as usize, 1);
        let expected = batches[batch as usize].slice(row as usize, 1);
        assert_eq!(read, expected, "row {global}");
    }
}

#[test]
fn readbacks_land_in_aligned_arrow_buffers_the_arrays_hold_without_a_copy() {
    let gpu = support::gpu();
    let values = Float32Array::from_iter_values((0..10_000).map(|i| i as f32 * 0.5));
    let field = Field::new("w", DataType::Float32, false);
    let data = array_to_gpu(&gpu, &field, &values, &ColumnOptions::default()).unwrap();
    let buffer = buffer_from_gpu(&gpu, &data).unwrap();
    // Aligned for every primitive type, so building the array does not realign (copy) it.
    assert_eq!(buffer.as_ptr() as usize % 16, 0);
    assert_eq!(buffer.as_slice(), values.values().inner().as_slice());
    let readback = data.readback_metadata_as::<ArrowReadback>().unwrap();
    let array = readback.to_array(buffer.clone()).unwrap();
    assert_eq!(array.as_ref(), &values as &dyn Array);
    // The array's values are the buffer read into, not a copy of it.
    assert_eq!(array.to_data().buffers()[0].as_ptr(), buffer.as_ptr());
    // Into a buffer the caller owns: its allocation is reused.
    let mut owned = MutableBuffer::from_len_zeroed(40_000);
    let before = owned.as_ptr();
    buffer_from_gpu_into(&gpu, &data, &mut owned).unwrap();
    assert_eq!(owned.as_ptr(), before);
    assert_eq!(owned.as_slice(), values.values().inner().as_slice());
    // An empty column reads back as an empty buffer.
    let empty = array_to_gpu(
        &gpu,
        &field,
        &Float32Array::from(Vec::<f32>::new()),
        &ColumnOptions::default(),
    )
    .unwrap();
    buffer_from_gpu_into(&gpu, &empty, &mut owned).unwrap();
    assert!(owned.is_empty());
    // A chunked column's readback is one aligned buffer too.
    let small = small_gpu();
    let vector = array_to_gpu_vector(
        &small,
        &field,
        &values,
        &ColumnOptions::default(),
        ChunkOptions::default(),
    )
    .unwrap();
    let array = array_from_gpu_vector(&small, &vector).unwrap();
    assert_eq!(array.as_ref(), &values as &dyn Array);
    let held = array.to_data().buffers()[0].as_ptr();
    assert_eq!(held as usize % 16, 0);
}
