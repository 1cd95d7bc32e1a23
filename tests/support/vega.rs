//! What the real-data tests need, set up once per test binary: npm's `vega-datasets` 3.2.1
//! (`flights-200k.arrow`, `flights-3m.parquet`, ...) fetched and cached by
//! `scripts/fetch-vega-datasets`, and the Python with pyarrow that the Flight test runs its server
//! with (`scripts/setup-pyarrow`).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The path of `name` in the cached vega-datasets package. Tests that need the data never
/// skip: when it cannot be fetched this panics with the fetch script's message.
pub fn vega_file(name: &str) -> PathBuf {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/fetch-vega-datasets");
        let out = Command::new(script)
            .output()
            .map_err(|e| format!("cannot run {script}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{script} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    match dir {
        Ok(dir) => dir.join(name),
        Err(e) => panic!(
            "the test needs {name} from npm's vega-datasets 3.2.1 and it cannot be fetched: {e}"
        ),
    }
}

/// The Python with pyarrow that `scripts/setup-pyarrow` sets up (once) in `target/`. Tests that
/// need it never skip: when it cannot be set up this panics with the script's message.
pub fn pyarrow_python() -> PathBuf {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let python = PYTHON.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/setup-pyarrow");
        let out = Command::new(script)
            .output()
            .map_err(|e| format!("cannot run {script}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{script} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    match python {
        Ok(python) => python.clone(),
        Err(e) => panic!("the test needs python with pyarrow and it cannot be set up: {e}"),
    }
}
