//! `gpudata layout`: a runtime struct declaration laid out, as a table or luma.gl's JSON, or
//! (`--check shader.wgsl STRUCT`) side by side with a WGSL struct.

use gpudata::check::Shader;
use gpudata::{GpuDataStructFormat, StructLayout};

/// The usage line.
pub const USAGE: &str = "usage: gpudata layout [--layout packed|wgsl-storage|wgsl-uniform] [--json] [--check SHADER.wgsl STRUCT] NAME:FORMAT...\n       gpudata layout [--layout wgsl-storage|wgsl-uniform] [--json] --wgsl \"a: vec3<f32>, b: array<mat4x4<f32>, 2>\"";

/// Parsed command line.
#[derive(Debug)]
pub struct Args {
    /// The layout rules.
    pub layout: StructLayout,
    /// Whether to print JSON.
    pub json: bool,
    /// `NAME:FORMAT` pairs, in order.
    pub fields: Vec<(String, String)>,
    /// `--check SHADER.wgsl STRUCT`: the WGSL file and struct to compare the rows with.
    pub check: Option<(String, String)>,
    /// `--wgsl DECLARATION`: WGSL member declarations to lay out by WGSL's memory model.
    pub wgsl: Option<String>,
    /// `-h`/`--help`: the usage to print (on stdout, status 0) instead of doing anything else.
    pub help: Option<&'static str>,
}

/// Parses the arguments after the program name.
///
/// # Errors
/// A one-line message for unknown options, malformed fields or a missing field list.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        layout: StructLayout::default(),
        json: false,
        fields: Vec::new(),
        check: None,
        wgsl: None,
        help: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => parsed.json = true,
            "--layout" => {
                let value = args.next().ok_or("--layout needs a value")?;
                parsed.layout = value.parse().map_err(|e| format!("{e}"))?;
            }
            "--check" => {
                let file = args
                    .next()
                    .ok_or("--check needs a WGSL file and a struct name")?;
                let name = args
                    .next()
                    .ok_or("--check needs a struct name after the file")?;
                parsed.check = Some((file, name));
            }
            "--wgsl" => {
                parsed.wgsl = Some(args.next().ok_or("--wgsl needs member declarations")?);
            }
            "-h" | "--help" => {
                parsed.help = Some(USAGE);
                return Ok(parsed);
            }
            _ => {
                if let Some(value) = arg.strip_prefix("--layout=") {
                    parsed.layout = value.parse().map_err(|e| format!("{e}"))?;
                } else if arg.starts_with("--") {
                    return Err(format!("unknown option `{arg}`"));
                } else {
                    let (name, format) = arg
                        .split_once(':')
                        .ok_or_else(|| format!("expected NAME:FORMAT, found `{arg}`"))?;
                    parsed.fields.push((name.to_owned(), format.to_owned()));
                }
            }
        }
    }
    if parsed.wgsl.is_some() && !parsed.fields.is_empty() {
        return Err("--wgsl declares the members; drop the NAME:FORMAT fields".to_owned());
    }
    if parsed.fields.is_empty() && parsed.wgsl.is_none() {
        return Err("no fields given".to_owned());
    }
    Ok(parsed)
}

/// The widest the name column of a table pads to, in bytes: names come from the command line,
/// unbounded, and `format!` panics on a width past `u16::MAX`. A longer name runs over.
const WIDEST_NAME: usize = 64;

/// The name column's width for `names`: the longest, at least `field`, at most [`WIDEST_NAME`].
fn name_width(names: impl Iterator<Item = usize>) -> usize {
    names.max().unwrap_or(0).clamp("field".len(), WIDEST_NAME)
}

/// The human-readable table of a format.
#[must_use]
pub fn table(format: &GpuDataStructFormat) -> String {
    let fields = format.fields();
    let name_width = name_width(fields.iter().map(|f| f.name().len()));
    let mut out = format!(
        "layout {}: {} fields, {} components, row byte length {}, byte stride {}\n",
        format.layout(),
        fields.len(),
        format.components(),
        format.row_byte_length(),
        format.byte_stride()
    );
    out.push_str(&format!(
        "{:<name_width$}  {:<16}  {:>6}  {:>6}  {:>7}\n",
        "field", "format", "offset", "length", "padding"
    ));
    for (i, field) in fields.iter().enumerate() {
        // Bytes between this payload's end and the next field (or the row's end).
        let next = fields
            .get(i + 1)
            .map_or(format.byte_stride(), |f| f.byte_offset());
        let padding = next.saturating_sub(field.byte_end());
        out.push_str(&format!(
            "{:<name_width$}  {:<16}  {:>6}  {:>6}  {:>7}\n",
            field.name(),
            field.format().as_str(),
            field.byte_offset(),
            field.byte_length(),
            padding
        ));
    }
    out
}

/// Lays out the declaration and puts it beside the WGSL struct of `args.check`: the report, and
/// the check's error when the two disagree.
///
/// # Errors
/// The layout engine's message for invalid declarations; an unreadable or invalid WGSL file; a
/// missing struct.
pub fn check(args: &Args, file: &str, name: &str) -> Result<(String, Option<String>), String> {
    let fields = args.fields.iter().map(|(n, f)| (n.as_str(), f.as_str()));
    let format = GpuDataStructFormat::parse(args.layout, fields).map_err(|e| e.to_string())?;
    let wgsl = std::fs::read_to_string(file).map_err(|e| format!("cannot read `{file}`: {e}"))?;
    let shader = Shader::parse(&wgsl).map_err(|e| format!("{file}: {e}"))?;
    let (report, verdict) = shader
        .struct_report(&format, name)
        .map_err(|e| format!("{file}: {e}"))?;
    Ok((report, verdict.err().map(|e| e.to_string())))
}

/// Lays out the declaration and renders the table or JSON.
///
/// # Errors
/// The layout engine's message for invalid declarations.
pub fn run(args: Args) -> Result<String, String> {
    if let Some(declaration) = &args.wgsl {
        return run_wgsl(args.layout, args.json, declaration);
    }
    let fields = args.fields.iter().map(|(n, f)| (n.as_str(), f.as_str()));
    let format = GpuDataStructFormat::parse(args.layout, fields).map_err(|e| e.to_string())?;
    if args.json {
        serde_json::to_string_pretty(&format).map_err(|e| e.to_string())
    } else {
        Ok(table(&format))
    }
}

/// `--wgsl`: the declarations laid out by WGSL's memory model in the address space of `layout`,
/// as a table of leaves plus the WGSL text, or luma.gl's `ShaderBlockLayout` JSON (in bytes).
///
/// # Errors
/// A `packed` layout, unreadable declarations, a type without a layout in the address space.
pub fn run_wgsl(layout: StructLayout, json: bool, declaration: &str) -> Result<String, String> {
    use gpudata::layout::{AddressSpace, StructDecl};
    let space = match layout {
        StructLayout::WgslStorage => AddressSpace::Storage,
        StructLayout::WgslUniform => AddressSpace::Uniform,
        StructLayout::Packed => {
            return Err("--wgsl lays members out by WGSL's memory model: use --layout wgsl-storage or wgsl-uniform".to_owned());
        }
    };
    let decl = StructDecl::parse("Block", declaration).map_err(|e| e.to_string())?;
    let block = decl.block_layout(space).map_err(|e| e.to_string())?;
    if json {
        return serde_json::to_string_pretty(&block).map_err(|e| e.to_string());
    }
    let width = name_width(block.fields.iter().map(|(path, _)| path.len()));
    let mut out = format!(
        "layout {space}: {} leaves, byte length {}\n{:<width$}  {:<16}  {:>6}  {:>6}\n",
        block.fields.len(),
        block.byte_length,
        "field",
        "type",
        "offset",
        "size"
    );
    for (path, field) in &block.fields {
        out.push_str(&format!(
            "{path:<width$}  {:<16}  {:>6}  {:>6}\n",
            field.shader_type.to_string(),
            field.offset,
            field.size
        ));
    }
    out.push('\n');
    out.push_str(&decl.wgsl(space).map_err(|e| e.to_string())?);
    Ok(out)
}

/// The whole command: parses `args`, writes the table or JSON to `stdout` and errors to
/// `stderr`, and returns the process's exit status: 0 on success, and also when `stdout` is a
/// closed pipe (`layout ... | head -c0`: the reader wanted no more, as with other command-line
/// tools), 1 for invalid input or output that cannot be written (a full disk).
pub fn main_with(
    args: impl IntoIterator<Item = String>,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    let parsed = parse_args(args).map_err(|e| format!("{e} (see `gpudata layout --help`)"));
    main_parsed(parsed, stdout, stderr)
}

/// [`main_with`] after parsing (shared with `gpudata check`, [`crate::check`]).
pub(crate) fn main_parsed(
    parsed: Result<Args, String>,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    if let Ok(Args {
        help: Some(usage), ..
    }) = &parsed
    {
        return crate::output::finish(Ok(format!("{usage}\n")), stdout, stderr);
    }
    if let Ok(
        args @ Args {
            check: Some((file, name)),
            ..
        },
    ) = &parsed
    {
        return check_with(args, file, name, stdout, stderr);
    }
    let text = match parsed.and_then(run) {
        Ok(text) => text,
        Err(message) => {
            // Nothing more can be done when stderr is gone too.
            let _ = writeln!(stderr, "error: {message}");
            return 1;
        }
    };
    match writeln!(stdout, "{}", text.trim_end()).and_then(|()| stdout.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(stderr, "error: cannot write the layout: {e}");
            1
        }
    }
}

/// `--check`: the report on `stdout`; status 1 (and the mismatches on `stderr`) when the host rows
/// and the WGSL struct disagree, or for invalid input.
fn check_with(
    args: &Args,
    file: &str,
    name: &str,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    let (report, verdict) = match check(args, file, name) {
        Ok(done) => done,
        Err(message) => {
            let _ = writeln!(stderr, "error: {message}");
            return 1;
        }
    };
    if let Err(e) = write!(stdout, "{report}").and_then(|()| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(stderr, "error: cannot write the report: {e}");
        return 1;
    }
    match verdict {
        Some(error) => {
            let _ = writeln!(stderr, "error: {error}");
            1
        }
        None => 0,
    }
}
