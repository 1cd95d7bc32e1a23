//! Arrow Flight (`gpudata::arrow::flight`): a `pyarrow.flight` server (pyarrow from PyPI, set up
//! by `scripts/setup-pyarrow`) serves a table built by pyarrow; its `do_get` stream becomes a GPU
//! table whose readback equals the IPC file the server wrote of the same table.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

use arrow_array::RecordBatch;
use gpudata::arrow::convert::Conversion;
use gpudata::arrow::flight::ingest_flight;
use gpudata::arrow::stream::{CancelToken, IngestError, IngestOptions, read_table};

use crate::support;

/// The server process; killed when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin asks it to stop; kill it if it does not.
        drop(self.0.stdin.take());
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

#[test]
fn a_pyarrow_flight_stream_becomes_a_gpu_table() {
    let python = support::pyarrow_python();
    let dir = std::env::temp_dir().join(format!("gpudata-flight-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let served = dir.join("served.arrow");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/arrow/flight_server.py");
    let mut child = Command::new(python)
        .arg(script)
        .arg(&served)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("port ")
        .unwrap_or_else(|| panic!("the flight server printed {line:?}"))
        .parse()
        .unwrap();
    let url = format!("grpc://127.0.0.1:{port}");

    let gpu = support::gpu();
    let ingested = ingest_flight(
        &gpu,
        &url,
        "flights",
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    let conversions: Vec<(&str, Conversion)> = ingested
        .report
        .iter()
        .map(|r| (r.column.as_str(), r.conversion))
        .collect();
    let offsets = Conversion::TimeOffset {
        origin: None,
        step: None,
    };
    assert_eq!(
        conversions,
        [
            ("date", offsets),
            ("delay", Conversion::Narrow),
            ("origin", Conversion::Categories),
            ("late", Conversion::Uint32),
            ("ratio", Conversion::Fround),
        ]
    );
    assert_eq!(ingested.report[1].mask.as_deref(), Some("delay_valid"));
    assert!(
        ingested.table.batches().len() > 1,
        "pyarrow sent several batches"
    );
    let expected: Vec<RecordBatch> =
        arrow_ipc::reader::FileReader::try_new(std::fs::File::open(&served).unwrap(), None)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let schema = expected[0].schema();
    let back = read_table(&gpu, &ingested.table).unwrap();
    let concat = |b: &[RecordBatch]| arrow_select::concat::concat_batches(&schema, b).unwrap();
    assert_eq!(concat(&back), concat(&expected));

    let e = ingest_flight(
        &gpu,
        &url,
        "nothing",
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Flight { .. }), "{e:?}");
    assert!(e.to_string().starts_with("arrow flight: "), "{e}");
    assert!(e.to_string().contains("unknown ticket"), "{e}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::io::stdout().flush();
}

#[test]
fn no_server_is_a_flight_error() {
    let gpu = support::gpu();
    // Port 1 on the loopback: nothing listens there.
    let e = ingest_flight(
        &gpu,
        "grpc://127.0.0.1:1",
        "flights",
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Flight { .. }), "{e:?}");
    assert!(e.to_string().starts_with("arrow flight: "), "{e}");
}
