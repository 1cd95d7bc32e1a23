//! What the flights examples share: where `scripts/fetch-vega-datasets` caches
//! `flights-3m.parquet`, and the `[min, max]` of a GPU column by the `extent` operation.

use std::path::{Path, PathBuf};

use gpudata::Gpu;
use gpudata::data::HostValues;
use gpudata::table::GpuTable;

/// Where `scripts/fetch-vega-datasets` caches the file.
pub const DEFAULT_PATH: &str = "target/vega-datasets-3.2.1/flights-3m.parquet";

/// `path`, or [`DEFAULT_PATH`], checked to be a file.
///
/// # Errors
/// A sentence saying how to fetch the file when it is not there.
pub fn parquet_path(path: Option<PathBuf>) -> Result<PathBuf, String> {
    let path = path.unwrap_or_else(|| PathBuf::from(DEFAULT_PATH));
    if path.is_file() {
        Ok(path)
    } else {
        Err(not_found(&path))
    }
}

fn not_found(path: &Path) -> String {
    format!(
        "{} not found: run scripts/fetch-vega-datasets first (it caches npm's vega-datasets \
         3.2.1), or pass the path of flights-3m.parquet",
        path.display()
    )
}

/// The smallest and largest value of an `sint32` column of the GPU table: the `extent`
/// operation over every chunk of the column (one per GPU batch), read back as `[min, max]`.
///
/// # Errors
/// When the column is missing, not `sint32`, or the operation or readback fails.
pub fn extent(
    gpu: &Gpu,
    table: &GpuTable,
    column: &str,
) -> Result<(i32, i32), Box<dyn std::error::Error>> {
    let vector = table
        .vector(column)
        .ok_or_else(|| format!("no column `{column}`"))?;
    let range = vector.extent(gpu)?;
    let view = range.as_view().ok_or("extent returns rows of one format")?;
    match view.read_values(gpu)? {
        HostValues::I32(range) if range.len() == 2 => Ok((range[0], range[1])),
        other => {
            Err(format!("`{column}`: expected one sint32 [min, max] pair, found {other:?}").into())
        }
    }
}
