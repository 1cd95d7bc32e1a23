//! The `gpudata` tool: each subcommand through its library function and through the binary
//! (`assert_cmd`), one module per subcommand.

mod inspect;
mod layout;
mod layout_check;
mod load;

/// The `gpudata` binary Cargo built for these tests.
pub fn gpudata() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("gpudata")
        .expect("cargo builds the gpudata binary for its tests")
}

/// Runs `cmd`, asserts that it exits with status 0 (showing its stderr otherwise) and returns
/// its stdout.
pub fn succeeds(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `cmd`, asserts that it exits with status 1 (the tool's status for an error) and returns
/// its stderr.
pub fn fails(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// The path of `name` in npm's vega-datasets 3.2.1, fetched and cached by
/// `scripts/fetch-vega-datasets`; panics with the script's message when it cannot be fetched
/// (tests never skip).
pub fn vega_file(name: &str) -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<Result<std::path::PathBuf, String>> =
        std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/fetch-vega-datasets"
        );
        let out = std::process::Command::new(script)
            .output()
            .map_err(|e| format!("cannot run {script}: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        Ok(std::path::PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim(),
        ))
    });
    match dir {
        Ok(dir) => dir.join(name),
        Err(e) => panic!(
            "the test needs {name} from npm's vega-datasets 3.2.1 and it cannot be fetched: {e}"
        ),
    }
}
