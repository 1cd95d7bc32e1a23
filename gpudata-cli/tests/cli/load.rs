//! `gpudata load FILE`: the file on the GPU, with rows, GPU bytes and throughput printed.

use crate::{fails, gpudata, succeeds, vega_file};

fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": ")))
        .unwrap_or_else(|| panic!("no `{key}:` line in {text}"))
}

#[test]
fn load_puts_flights_3m_on_the_gpu() {
    let path = vega_file("flights-3m.parquet");
    let text = succeeds(
        gpudata()
            .arg("load")
            .arg(&path)
            .env("XDG_RUNTIME_DIR", "/tmp"),
    );
    assert_eq!(
        field(&text, "file"),
        format!("{} (parquet)", path.display())
    );
    assert_eq!(field(&text, "rows"), "3000000");
    assert_eq!(field(&text, "columns"), "5 carried, 0 left out");
    assert_eq!(field(&text, "gpu bytes"), "60000000 (60.0 MB)");
    assert!(field(&text, "throughput").ends_with(" M rows/s"), "{text}");
    assert!(!field(&text, "adapter").is_empty());
}

#[test]
fn load_errors_are_one_line_with_status_1() {
    let path = vega_file("flights-3m.parquet");
    assert_eq!(
        fails(
            gpudata()
                .args(["load", "--convert", "date=narrow"])
                .arg(&path)
        ),
        format!(
            "error: `{}`: column `date` (Timestamp(µs)) cannot take conversion `narrow`: expected Int64 or UInt64\n",
            path.display()
        )
    );
    assert_eq!(
        fails(gpudata().args(["load", "--in-flight", "0"]).arg(&path)),
        format!(
            "error: `{}`: invalid ingest options: in_flight is 0, expected at least 1\n",
            path.display()
        )
    );
}

/// `--convert origin=value-list`: the airport codes' bytes (3 per row) and a `uint32x2` byte
/// range per row go to the GPU instead of category ids.
#[test]
fn load_carries_strings_as_value_lists() {
    let path = vega_file("flights-3m.parquet");
    let text = succeeds(
        gpudata()
            .args([
                "load",
                "--columns",
                "delay,origin",
                "--convert",
                "origin=value-list",
            ])
            .arg(&path)
            .env("XDG_RUNTIME_DIR", "/tmp"),
    );
    assert_eq!(field(&text, "columns"), "2 carried, 0 left out");
    // delay 4 + origin_offsets 8 per row, and the 3-letter codes.
    assert_eq!(field(&text, "gpu bytes"), "45000000 (45.0 MB)");
}
