//! The command-line options `inspect` and `load` share: which columns, and the conversion
//! policy.

use std::path::PathBuf;

use gpudata::arrow::convert::{Conversion, Conversions, MaskPolicy};

/// A file and how its columns are converted.
#[derive(Clone, Debug, clap::Args)]
pub struct FileArgs {
    /// A Parquet file, an Arrow IPC file or an Arrow IPC stream.
    pub file: PathBuf,
    /// Only these columns (comma-separated, in file order).
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// A column's conversion, `COLUMN=CONVERSION` (repeatable): auto, as-is, time-offset,
    /// time-split, narrow, float32, words, uint8, uint32, categories, fround, skip.
    #[arg(long = "convert", value_name = "COLUMN=CONVERSION", value_parser = parse_convert)]
    pub convert: Vec<(String, Conversion)>,
    /// Which columns get a `uint32` validity mask column: never, if-nulls (nullable columns
    /// whose first batch has nulls), nullable.
    #[arg(long, default_value = "if-nulls", value_parser = parse_masks)]
    pub masks: MaskPolicy,
    /// Fail on a column that no conversion carries instead of leaving it out.
    #[arg(long)]
    pub strict: bool,
}

fn parse_convert(text: &str) -> Result<(String, Conversion), String> {
    let (column, conversion) = text
        .split_once('=')
        .ok_or_else(|| format!("expected COLUMN=CONVERSION, found `{text}`"))?;
    let conversion: Conversion = conversion.parse().map_err(|e| format!("{e}"))?;
    Ok((column.to_owned(), conversion))
}

fn parse_masks(text: &str) -> Result<MaskPolicy, String> {
    Ok(match text {
        "never" => MaskPolicy::Never,
        "if-nulls" => MaskPolicy::IfNulls,
        "nullable" => MaskPolicy::Nullable,
        _ => {
            return Err(format!(
                "unknown mask policy `{text}`: expected never, if-nulls or nullable"
            ));
        }
    })
}

impl FileArgs {
    /// The conversion policy these options ask for.
    #[must_use]
    pub fn conversions(&self) -> Conversions {
        let mut policy = Conversions::auto().masks(self.masks);
        policy.skip_unsupported = !self.strict;
        for (column, conversion) in &self.convert {
            policy = policy.column(column.clone(), *conversion);
        }
        policy
    }
}
