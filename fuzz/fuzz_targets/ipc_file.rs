//! Arbitrary bytes as an Arrow IPC file through `gpudata::arrow::read_ipc_file` and the Arrow
//! upload path: no panic escapes (arrow-ipc's own panics on corrupted files come back as
//! `ArrowInteropError::IpcPanic`), and every column of a file that reads and that the ingestion
//! layer accepts reads back from its own upload bytes as an array equal to the file's, and
//! uploads to a device (wgpu's noop backend) as a table.
//!
//! Seed corpus: the corrupted files of `tests/arrow/faults.rs` (`./fuzz/run.sh` writes them to
//! `fuzz/corpus/ipc_file/`).
#![no_main]

use std::io::Cursor;
use std::sync::{Once, OnceLock};

use gpudata::Gpu;
use gpudata::arrow::{
    ArrowColumnSource, ArrowInteropError, BatchOptions, ColumnOptions, read_ipc_file,
    record_batches_to_gpu_table,
};
use libfuzzer_sys::fuzz_target;

/// A device of wgpu's noop backend: uploads run without a GPU.
fn noop_gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
        Gpu::from_device_queue(device, queue)
    })
}

static HOOK: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    // libFuzzer's panic hook aborts on every panic, also one gpudata catches (arrow-ipc's, on
    // corrupted files, and arrow-data's validation on some): replace it by the default hook, silent for those. A panic that escapes
    // still aborts the run, as libfuzzer-sys catches it around this closure.
    HOOK.call_once(|| {
        let _ = std::panic::take_hook();
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let contained = info
                .location()
                .is_some_and(|l| ["arrow-buffer", "arrow-data", "arrow-ipc"].iter().any(|c| l.file().contains(c)));
            if !contained {
                default(info);
            }
        }));
    });
    let file = match read_ipc_file(Cursor::new(data)) {
        Ok(file) => file,
        Err(ArrowInteropError::Ipc { .. } | ArrowInteropError::IpcPanic { .. }) => return,
        Err(other) => panic!("read_ipc_file returned a non-IPC error: {other:?}"),
    };
    for batch in &file.batches {
        for (index, field) in file.schema.fields().iter().enumerate() {
            let column = batch.column(index);
            let Ok(source) = ArrowColumnSource::new(field, column.as_ref(), &ColumnOptions::default())
            else {
                continue;
            };
            let back = source
                .readback()
                .to_array(source.bytes().to_vec())
                .unwrap_or_else(|e| panic!("column `{}` does not read back: {e}", field.name()));
            assert_eq!(back.as_ref(), column.as_ref(), "column `{}`", field.name());
        }
    }
    let options = BatchOptions::new().skip_unsupported();
    if let Ok((table, _)) = record_batches_to_gpu_table(noop_gpu(), &file.schema, &file.batches, &options) {
        table.destroy();
    }
});
