//! [`GpuSchema`] and [`GpuSchemaField`]: the named, formatted columns of a table.

use std::collections::BTreeMap;
use std::fmt;

use crate::data::GpuDataFormat;

/// The reserved name of a table's index column: a `vertex-list<uint32>` (or `uint16`) column
/// bound as the index buffer of indexed draws. It never appears in synthesized buffer layouts,
/// cannot be a constant and blocks [`GpuTable::pack_batches`](crate::table::GpuTable::pack_batches).
/// Exact and case-sensitive.
pub const RESERVED_INDEX_COLUMN: &str = "indices";

/// Key/value metadata of a schema or field (kept sorted by key).
pub type Metadata = BTreeMap<String, String>;

/// One column of a [`GpuSchema`] (luma.gl's `GPUField`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuSchemaField {
    /// The column name.
    pub name: String,
    /// Its format; `None` for interleaved columns described only by a buffer layout.
    pub format: Option<GpuDataFormat>,
    /// Whether rows may be null (always `false` for synthesized fields).
    pub nullable: bool,
    /// Field metadata.
    pub metadata: Metadata,
}

impl GpuSchemaField {
    /// A non-nullable field without metadata.
    #[must_use]
    pub fn new(name: impl Into<String>, format: Option<GpuDataFormat>) -> GpuSchemaField {
        GpuSchemaField {
            name: name.into(),
            format,
            nullable: false,
            metadata: Metadata::new(),
        }
    }

    /// Whether two fields agree on what compatibility checks compare: the name and the format.
    #[must_use]
    pub fn matches(&self, other: &GpuSchemaField) -> bool {
        self.name == other.name && self.format == other.format
    }
}

impl fmt::Display for GpuSchemaField {
    /// `name: format` (or `name` alone without a format).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.format {
            Some(format) => write!(f, "{}: {format}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// The columns of a table or record batch, in order, with metadata (luma.gl's `GPUSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuSchema {
    /// The fields, in column order.
    pub fields: Vec<GpuSchemaField>,
    /// Schema metadata.
    pub metadata: Metadata,
}

impl GpuSchema {
    /// A schema of `fields` without metadata.
    #[must_use]
    pub fn new(fields: Vec<GpuSchemaField>) -> GpuSchema {
        GpuSchema {
            fields,
            metadata: Metadata::new(),
        }
    }

    /// The field called `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&GpuSchemaField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The position of the field called `name`.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Field names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|f| f.name.as_str())
    }

    /// Whether `other` has the same number of fields with the same name and format at every
    /// position (luma.gl's compatibility check; nullability and metadata are not compared).
    #[must_use]
    pub fn matches(&self, other: &GpuSchema) -> bool {
        self.fields.len() == other.fields.len()
            && self
                .fields
                .iter()
                .zip(&other.fields)
                .all(|(a, b)| a.matches(b))
    }
}

impl fmt::Display for GpuSchema {
    /// `[name: format, name: format]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{field}")?;
        }
        f.write_str("]")
    }
}
