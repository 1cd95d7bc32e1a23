//! `gpudata layout --check SHADER.wgsl STRUCT`: the host rows beside the WGSL struct, and the
//! exit status saying whether they agree.

use crate::gpudata;

fn shader_file(name: &str, wgsl: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpudata-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, wgsl).unwrap();
    path
}

#[test]
fn agreeing_rows_print_the_side_by_side_table_and_succeed() {
    let path = shader_file(
        "agree.wgsl",
        "struct P {\n    a: f32,\n    b: vec3<f32>,\n}\n",
    );
    let out = gpudata()
        .args(["layout", "--check"])
        .arg(&path)
        .args(["P", "a:float32", "b:float32x3"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out,
        "host wgsl-storage rows (byte stride 32) against wgsl struct P (size 32)\n\
         field  format     offset  length    wgsl type  offset  size  align\n\
         a      float32         0       4    f32             0     4      4\n\
         b      float32x3      16      12    vec3<f32>      16    12     16\n"
    );
}

#[test]
fn disagreeing_rows_are_marked_and_fail_with_every_mismatch() {
    let path = shader_file(
        "disagree.wgsl",
        "struct P {\n    a: f32,\n    b: vec3<f32>,\n}\n",
    );
    let assert = gpudata()
        .args(["layout", "--layout", "packed", "--check"])
        .arg(&path)
        .args(["P", "a:float32", "b:float32x3", "c:uint32"])
        .assert()
        .code(1);
    let output = assert.get_output();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    let b = stdout.lines().find(|l| l.starts_with("b ")).unwrap();
    assert!(b.contains("!="), "{stdout}");
    let c = stdout.lines().find(|l| l.starts_with("c ")).unwrap();
    assert!(c.contains("!=") && c.ends_with('-'), "{stdout}");
    assert!(
        stdout
            .starts_with("host packed rows (byte stride 20) against wgsl struct P (size 32) !=\n"),
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "error: struct P disagrees with the shader in 3 places:\n  \
         `b` (wgsl 3:5): host offset 4, shader offset 16 (vec3<f32> aligns to 16); insert a #[gpu(padding)] field before it, or reorder the fields\n  \
         `c` (wgsl 1:1): the shader struct `P` has no member of this name; add it to the wgsl, rename the field with #[gpu(name = \"...\")], or make it #[gpu(padding)]\n  \
         `P` (wgsl 1:1): host stride 20 bytes, shader stride 32 bytes; make the last fields agree or set #[gpu(stride = 32)]\n"
    );
}

#[test]
fn a_missing_file_or_struct_is_one_error_line() {
    let missing = gpudata()
        .args(["layout", "--check", "/nonexistent/x.wgsl", "P", "a:float32"])
        .assert()
        .code(1);
    let stderr = String::from_utf8(missing.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("error: cannot read `/nonexistent/x.wgsl`: "),
        "{stderr}"
    );
    let path = shader_file("other.wgsl", "struct Q { a: f32 }");
    let no_struct = gpudata()
        .args(["layout", "--check"])
        .arg(&path)
        .args(["P", "a:float32"])
        .assert()
        .code(1);
    let stderr = String::from_utf8(no_struct.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.ends_with(": the shader declares no struct `P`\n"),
        "{stderr}"
    );
}

#[test]
fn the_check_subcommand_is_the_same_check() {
    let path = shader_file(
        "subcommand.wgsl",
        "struct P {\n    a: f32,\n    b: vec3<f32>,\n}\n",
    );
    let run = |subcommand: &[&str], fields: &[&str]| {
        let mut cmd = gpudata();
        cmd.args(subcommand);
        if subcommand[0] == "layout" {
            cmd.arg("--check").arg(&path).arg("P");
        } else {
            cmd.arg(&path).arg("P");
        }
        let output = cmd.args(fields).output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    // Agreeing rows: status 0 and the same report either way.
    let fields = ["a:float32", "b:float32x3"];
    let checked = run(&["check"], &fields);
    assert_eq!(checked.0, Some(0), "{checked:?}");
    assert_eq!(checked, run(&["layout"], &fields));
    // Packed rows disagree: status 1, the same report and mismatches either way.
    let checked = run(&["check", "--layout", "packed"], &fields);
    assert_eq!(checked.0, Some(1), "{checked:?}");
    assert!(
        checked
            .2
            .starts_with("error: struct P disagrees with the shader in 2 places:"),
        "{checked:?}"
    );
    assert_eq!(checked, run(&["layout", "--layout", "packed"], &fields));
}

/// Each refusal is one line (issue 30: these printed the usage block after it), pointing at
/// `--help`, which prints the usage and succeeds.
#[test]
fn the_check_subcommand_needs_a_file_a_struct_and_fields() {
    for (args, message) in [
        (
            &["check"][..],
            "error: check needs a WGSL file and a struct name",
        ),
        (
            &["check", "x.wgsl"][..],
            "error: check needs a WGSL file and a struct name",
        ),
        (&["check", "x.wgsl", "P"][..], "error: no fields given"),
        (
            &["check", "--json", "x.wgsl", "P", "a:float32"][..],
            "error: `--json` belongs to `gpudata layout`",
        ),
    ] {
        let output = gpudata().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(
            stderr,
            format!("{message} (see `gpudata check --help`)\n"),
            "{args:?}"
        );
    }
    let help = gpudata().args(["check", "--help"]).output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(help.stdout).unwrap(),
        format!("{}\n", gpudata_cli::check::USAGE)
    );
}

/// A field name or WGSL member of 70,000 bytes (issue 30: `format!` panicked on a column
/// width past `u16::MAX`, exit 101): the report pads columns to 64 bytes at most, and the
/// long name runs over its column.
#[test]
fn the_report_of_a_long_name_runs_over_its_column() {
    let long = "m".repeat(70_000);
    let path = shader_file(
        "long_name.wgsl",
        &format!("struct P {{\n    {long}: f32,\n    b: u32,\n}}\n"),
    );
    let out = gpudata()
        .arg("check")
        .arg(&path)
        .args(["P", &format!("{long}:float32"), "b:uint32"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[1],
        format!(
            "{:<64}  format   offset  length    wgsl type  offset  size  align",
            "field"
        )
    );
    assert_eq!(
        lines[2],
        format!("{long}  float32       0       4    f32             0     4      4")
    );
    assert!(
        lines[3].starts_with(&format!("{:<64}  uint32 ", "b")),
        "{}",
        lines[3]
    );
}

/// `check` and `layout --check` over WGSL deep enough to overflow naga's stack (issue 30: a
/// 5,000-term sum aborted `gpudata check` with status 134): one error line naming the bound,
/// or the check, never an abort.
#[test]
fn deep_shaders_are_one_line_errors_or_checked_never_an_abort() {
    // A struct `Particle` and a function summing 10,000 terms, generated by the format tests.
    let deep_sum =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/shaders/deep_sum.wgsl");
    let particle = "struct Particle {\n    position: vec3<f32>,\n    mass: f32,\n}\n";
    let parens = shader_file(
        "deep_parens.wgsl",
        &format!(
            "{particle}const c = {}1.0{};\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
    );
    // Nested constructors 190 deep (naga's parser stops at 200): 4 MB of stack unoptimized.
    let constructors = shader_file(
        "deep_constructors.wgsl",
        &format!(
            "{particle}fn f(a: f32) -> f32 {{ return {}a{}; }}\n",
            "vec2<f32>(".repeat(190),
            ", a).x".repeat(190)
        ),
    );
    let fields = ["Particle", "position:float32x3", "mass:float32"];
    for command in [&["check"][..], &["layout", "--check"][..]] {
        let run = |file: &std::path::Path| {
            let out = gpudata()
                .args(command)
                .arg(file)
                .args(fields)
                .output()
                .unwrap();
            (out.status.code(), String::from_utf8(out.stderr).unwrap())
        };
        let (code, stderr) = run(&deep_sum);
        assert_eq!(code, Some(1), "{command:?}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: {}: wgsl at 9:5 is past gpudata's bound on what naga reads: an expression \
                 or statement is more than 10000 levels deep (operators, indices, brackets, `if` \
                 and `else` counted along its deepest path); split it with `let`\n",
                deep_sum.display()
            )
        );
        let (code, stderr) = run(&parens);
        assert_eq!(code, Some(1), "{command:?}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: {}: wgsl at 5:266 is past gpudata's bound on what naga reads: brackets \
                 nest more than 255 deep\n",
                parens.display()
            )
        );
        let (code, stderr) = run(&constructors);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{command:?}");
    }
}
