//! `gpudata layout`'s contract: table, JSON, and errors for invalid input.

use gpudata_cli::layout::{main_with, parse_args, run};

use crate::{fails, gpudata, succeeds};

fn cli(args: &[&str]) -> Result<String, String> {
    parse_args(args.iter().map(|s| (*s).to_owned())).and_then(run)
}

#[test]
fn table_shows_offsets_lengths_padding_and_stride() {
    let out = cli(&["--layout", "packed", "tag:uint8", "value:float32"]).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "layout packed: 2 fields, 2 components, row byte length 8, byte stride 8"
    );
    let cells = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cells(lines[1]),
        ["field", "format", "offset", "length", "padding"]
    );
    assert_eq!(cells(lines[2]), ["tag", "uint8", "0", "1", "3"]);
    assert_eq!(cells(lines[3]), ["value", "float32", "4", "4", "0"]);
}

#[test]
fn default_layout_is_wgsl_storage_and_json_is_lumas_shape() {
    let out = cli(&["--json", "a:float32", "b:float32x3"]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["layout"], "wgsl-storage");
    assert_eq!(v["fields"]["b"]["byteOffset"], 16);
    assert_eq!(v["byteStride"], 32);
    assert_eq!(v["rowByteLength"], 28);
    let out = cli(&["--layout=packed", "--json", "a:float32", "b:float32x3"]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["fields"]["b"]["byteOffset"], 4);
}

#[test]
fn invalid_input_is_an_error_message() {
    assert_eq!(
        cli(&["a:float32x5"]).unwrap_err(),
        "field `a` has unsupported vertex format `float32x5`"
    );
    assert!(cli(&[]).unwrap_err().starts_with("no fields given"));
    assert!(
        cli(&["a"])
            .unwrap_err()
            .starts_with("expected NAME:FORMAT, found `a`")
    );
    assert!(
        cli(&["--layout"])
            .unwrap_err()
            .contains("--layout needs a value")
    );
    assert!(
        cli(&["--layout", "std140", "a:uint8"])
            .unwrap_err()
            .contains("unknown struct layout `std140`")
    );
    assert!(
        cli(&["--frobnicate", "a:uint8"])
            .unwrap_err()
            .starts_with("unknown option `--frobnicate`")
    );
    assert!(
        cli(&["--layout", "packed", "x:uint8x3-webgl"])
            .unwrap_err()
            .contains("WebGL-only")
    );
    assert!(
        cli(&["a:uint8", "a:uint8"])
            .unwrap_err()
            .contains("duplicate field `a`")
    );
    // Names follow the one field-name rule (`position`, `lights[1].color`).
    assert_eq!(
        cli(&["a b:uint8"]).unwrap_err(),
        "field name \"a b\" is not a field path: expected identifiers joined by `.`, each with optional `[N]` indices (`position`, `lights[1].color`), found ' ' at byte 1"
    );
    assert!(
        cli(&[":uint8"])
            .unwrap_err()
            .ends_with("found an empty name")
    );
    assert!(cli(&["lights[1].color:float32x4"]).is_ok());
}

/// A writer that fails every write with `kind`.
struct Failing(std::io::ErrorKind);

impl std::io::Write for Failing {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(self.0.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Err(self.0.into())
    }
}

#[test]
fn closed_pipes_end_quietly_and_full_disks_are_errors() {
    let args = || ["a:float32".to_owned()];
    let mut out = Vec::new();
    let mut err = Vec::new();
    assert_eq!(main_with(args(), &mut out, &mut err), 0);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .starts_with("layout wgsl-storage")
    );
    assert!(err.is_empty());
    // `layout ... | head -c0`: the reader is gone; nothing to report.
    let mut err = Vec::new();
    let code = main_with(
        args(),
        &mut Failing(std::io::ErrorKind::BrokenPipe),
        &mut err,
    );
    assert_eq!((code, err.as_slice()), (0, &b""[..]));
    // `layout ... > /dev/full`.
    let mut err = Vec::new();
    let code = main_with(
        args(),
        &mut Failing(std::io::ErrorKind::StorageFull),
        &mut err,
    );
    assert_eq!(code, 1);
    let message = String::from_utf8(err).unwrap();
    assert!(
        message.starts_with("error: cannot write the layout: "),
        "{message}"
    );
    // Invalid input, with stderr gone as well: still status 1, no panic.
    let code = main_with(
        ["a:float32x5".to_owned()],
        &mut Vec::new(),
        &mut Failing(std::io::ErrorKind::BrokenPipe),
    );
    assert_eq!(code, 1);
}

#[test]
fn the_binary_prints_the_table_and_fails_with_one_line() {
    let stdout = succeeds(gpudata().args([
        "layout",
        "--layout",
        "packed",
        "tag:uint8",
        "color:unorm8x4",
    ]));
    assert!(
        stdout.starts_with(
            "layout packed: 2 fields, 5 components, row byte length 8, byte stride 8\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\ncolor  unorm8x4  "), "{stdout}");

    let out = gpudata().args(["layout", "a:float32x5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: field `a` has unsupported vertex format `float32x5`\n"
    );
}

/// Issue 30: `gpudata layout` without fields printed the usage block after the error line.
#[test]
fn usage_errors_are_one_line_and_help_prints_the_usage() {
    for (args, message) in [
        (&["layout"][..], "no fields given"),
        (
            &["layout", "--frobnicate"][..],
            "unknown option `--frobnicate`",
        ),
        (&["layout", "a"][..], "expected NAME:FORMAT, found `a`"),
        (
            &["layout", "--wgsl", "a: f32", "b:float32"][..],
            "--wgsl declares the members; drop the NAME:FORMAT fields",
        ),
    ] {
        assert_eq!(
            fails(gpudata().args(args)),
            format!("error: {message} (see `gpudata layout --help`)\n"),
            "{args:?}"
        );
    }
    assert_eq!(
        succeeds(gpudata().args(["layout", "--help"])),
        format!("{}\n", gpudata_cli::layout::USAGE)
    );
}

/// Issue 30: a field name over 65,535 bytes exited 101 (`format!` panicked on the name
/// column's width); the column pads to 64 bytes at most and a longer name runs over it.
#[test]
fn a_long_field_name_runs_over_its_column() {
    let long = "n".repeat(70_000);
    let stdout = succeeds(gpudata().args([
        "layout",
        "--layout",
        "packed",
        &format!("{long}:float32"),
        "b:uint8",
    ]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[1],
        format!("{:<64}  format            offset  length  padding", "field")
    );
    assert_eq!(
        lines[2],
        format!("{long}  float32                0       4        0")
    );
    assert!(
        lines[3].starts_with(&format!("{:<64}  uint8 ", "b")),
        "{}",
        lines[3]
    );
    let stdout = succeeds(gpudata().args(["layout", "--wgsl", &format!("{long}: f32")]));
    assert!(
        stdout.contains(&format!("\n{long}  f32                    0       4\n")),
        "{}",
        &stdout[..200]
    );
}

#[test]
fn the_binary_rejects_unknown_subcommands_in_one_line() {
    let stderr = fails(gpudata().arg("frobnicate"));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("frobnicate"), "{stderr}");
    assert_eq!(
        fails(&mut gpudata()),
        "error: no subcommand given (see `gpudata --help`)\n"
    );
    assert!(succeeds(gpudata().arg("--help")).contains("layout"));
}

#[test]
fn wgsl_declarations_lay_out_by_the_memory_model() {
    let out = cli(&[
        "--layout",
        "wgsl-uniform",
        "--wgsl",
        "a: vec3<f32>, b: array<mat4x4<f32>, 2>, c: f32",
    ])
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "layout wgsl-uniform: 4 leaves, byte length 160");
    let cells: Vec<&str> = lines[4].split_whitespace().collect();
    assert_eq!(cells, ["b[1]", "mat4x4<f32>", "80", "64"]);
    assert!(out.contains("struct Block {"), "{out}");
    let json = cli(&["--json", "--wgsl", "a: f32, b: vec2<f32>"]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["layout"], "wgsl-storage");
    assert_eq!(v["fields"]["b"]["offset"], 8);
    assert_eq!(v["byteLength"], 16);
    assert!(
        cli(&["--layout", "packed", "--wgsl", "a: f32"])
            .unwrap_err()
            .contains("memory model")
    );
    assert!(cli(&["--wgsl", "a: f32", "b:float32"]).is_err());
    assert!(
        cli(&["--wgsl", "a: vec3<bool>"])
            .unwrap_err()
            .contains("vec3<bool>")
    );
}
