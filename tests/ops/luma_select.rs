//! The CPU reference of `extent`, `gather`, `sequence` and `segmented_map` against luma.gl
//! 9.4.2's own CPU backend: the inputs and luma.gl's outputs (or its refusals) are fixtures made
//! by `tests/ops/luma/select.mjs` and committed, so this runs offline. Where gpudata differs on
//! purpose the test says so:
//! - normalized inputs: luma.gl's CPU backend decodes them (`v / 255`) and stores the decoded
//!   values into its integer output, truncated (so its extent of `unorm8` values is 0 or 1 and
//!   its gather of `unorm8x2` rows zeroes them); gpudata keeps the stored integers and the
//!   normalized format. The test checks luma.gl's bytes are the truncation of gpudata's decoded
//!   values.
//! - `extent` puts `-0` below `+0` (luma.gl keeps whichever comes first; the fixtures never mix
//!   the two in one lane).

use gpudata::VertexFormat;
use gpudata::format::codec;
use gpudata::ops::OpError;
use gpudata::ops::cpu::{self, HostColumn, HostInput};
use serde_json::Value;

const FIXTURES: &str = include_str!("luma/select.json");

fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// A fixture column: its format and bytes.
fn column(json: &Value) -> (VertexFormat, Vec<u8>) {
    let format: VertexFormat = json["format"].as_str().unwrap().parse().unwrap();
    (format, bytes(json["bytes"].as_str().unwrap()))
}

/// Checks ours against luma.gl's output: an error where luma.gl refused, else the same bytes
/// and the same format up to the normalized flag.
fn check(case: &Value, ours: Result<HostColumn, OpError>) {
    let output = &case["output"];
    if let Some(error) = output.get("error") {
        assert!(
            ours.is_err(),
            "luma.gl refused ({error}), gpudata gave {ours:?} for {case}"
        );
        return;
    }
    let ours = ours.unwrap_or_else(|e| panic!("gpudata refused ({e}) what luma.gl took: {case}"));
    let (format, expected) = column(output);
    assert_eq!(ours.format().data_type().storage_type(), format.data_type());
    assert_eq!(ours.format().components(), format.components());
    if ours.format().is_normalized() {
        assert_eq!(truncated(&ours), expected, "{case}");
    } else {
        assert_eq!(ours.bytes(), expected, "{case}");
    }
}

/// What luma.gl's CPU backend stores for normalized values: each decoded value truncated into
/// the stored integer type.
fn truncated(column: &HostColumn) -> Vec<u8> {
    let format = column.format();
    let lanes = format.components();
    let size = (format.byte_length() / u64::from(lanes)) as usize;
    let mut out = Vec::new();
    for row in column.bytes().chunks(format.byte_length() as usize) {
        for lane in 0..lanes {
            let value = codec::decode_lane(format, row, lane).unwrap().to_f32();
            out.extend_from_slice(&(value.trunc() as i64).to_le_bytes()[..size]);
        }
    }
    out
}

#[test]
fn cpu_reference_matches_luma_gl() {
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let cases = fixtures["cases"].as_array().unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for case in cases {
        let op = case["op"].as_str().unwrap();
        *seen.entry(op).or_insert(0) += 1;
        match op {
            "extent" => {
                let (format, data) = column(&case["input"]);
                let n = data.len() as u64 / format.byte_length();
                check(case, cpu::extent(HostInput::new(&data, format, n)));
            }
            "gather" => {
                let (id_format, ids) = column(&case["ids"]);
                let (format, source) = column(&case["source"]);
                check(
                    case,
                    cpu::gather(
                        HostInput::new(&ids, id_format, ids.len() as u64 / id_format.byte_length()),
                        HostInput::new(&source, format, source.len() as u64 / format.byte_length()),
                    ),
                );
            }
            "sequence" => {
                // luma.gl takes any JS number; gpudata's signature takes integers, so a fraction
                // cannot be passed at all (luma.gl refuses it).
                let (count, start, step) = (&case["count"], &case["start"], &case["step"]);
                match (count.as_u64(), start.as_i64(), step.as_i64()) {
                    (Some(c), Some(a), Some(s)) => {
                        check(case, cpu::sequence(c as u32, a as i32, s as i32))
                    }
                    _ => assert!(case["output"].get("error").is_some(), "{case}"),
                }
            }
            "segmentedMap" => {
                let (format, starts) = column(&case["segments"]);
                let vertex_count = case["vertexCount"].as_u64().unwrap();
                check(
                    case,
                    cpu::segmented_map(
                        HostInput::new(&starts, format, starts.len() as u64 / format.byte_length()),
                        vertex_count,
                    ),
                );
            }
            other => panic!("unknown fixture op {other}"),
        }
    }
    // Every operation both sides have is covered.
    for op in ["extent", "gather", "sequence", "segmentedMap"] {
        assert!(seen.get(op).copied().unwrap_or(0) >= 9, "{op}: {seen:?}");
    }
}

/// The one rule where the fixtures avoid a case: luma.gl keeps the first of `-0` and `+0`,
/// gpudata puts `-0` below `+0` whatever the order.
#[test]
fn extent_orders_signed_zeros() {
    for values in [[0.0f32, -0.0], [-0.0, 0.0]] {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let out = cpu::extent(HostInput::new(&data, VertexFormat::Float32, 2)).unwrap();
        let got: Vec<u32> = out
            .bytes()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [(-0.0f32).to_bits(), 0.0f32.to_bits()]);
    }
}
