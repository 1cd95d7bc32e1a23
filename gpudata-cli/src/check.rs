//! `gpudata check [--layout L] SHADER.wgsl STRUCT NAME:FORMAT...`: runtime rows checked against a
//! WGSL struct, the report side by side on stdout and exit status 1 (every mismatch on stderr)
//! when they disagree. The same check as `gpudata layout --check SHADER.wgsl STRUCT`, spelled as a
//! subcommand of its own: both run [`layout::check`].

use crate::layout::{self, Args};

/// The usage line.
pub const USAGE: &str = "usage: gpudata check [--layout packed|wgsl-storage|wgsl-uniform] SHADER.wgsl STRUCT NAME:FORMAT...";

/// Parses the arguments after `check`: options and `NAME:FORMAT` fields as `gpudata layout`
/// reads them, the first two other arguments the WGSL file and the struct.
///
/// # Errors
/// A one-line message for a missing file or struct, and what `gpudata layout` refuses.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                return Ok(Args {
                    layout: gpudata::StructLayout::default(),
                    json: false,
                    fields: Vec::new(),
                    check: None,
                    wgsl: None,
                    help: Some(USAGE),
                });
            }
            "--layout" => {
                rest.push(arg);
                rest.extend(args.next());
            }
            "--json" | "--check" | "--wgsl" => {
                return Err(format!("`{arg}` belongs to `gpudata layout`"));
            }
            _ if positional.len() < 2 && !arg.starts_with("--") => positional.push(arg),
            _ => rest.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let (Some(file), Some(name)) = (positional.next(), positional.next()) else {
        return Err("check needs a WGSL file and a struct name".to_owned());
    };
    let mut parsed = layout::parse_args(rest)?;
    parsed.check = Some((file, name));
    Ok(parsed)
}

/// The whole command: parses `args`, writes the side-by-side report to `stdout`, and returns the
/// exit status: 0 when the rows and the struct agree, 1 when they do not (every mismatch on
/// `stderr`) or for invalid input.
pub fn main_with(
    args: impl IntoIterator<Item = String>,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    match parse_args(args) {
        Ok(args) => layout::main_parsed(Ok(args), stdout, stderr),
        Err(message) => {
            let _ = writeln!(stderr, "error: {message} (see `gpudata check --help`)");
            1
        }
    }
}
