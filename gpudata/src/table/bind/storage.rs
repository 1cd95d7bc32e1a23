//! Storage bindings: a storage range per column or segment, a uniform per constant, and the
//! WGSL that declares them with accessors.

use super::wgsl::{accessor_fn, check_wgsl_name};
use crate::data::GpuConstant;
use crate::data::{GpuData, GpuDataFormat};
use crate::device::Gpu;
use crate::device::GpuError;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::table::TableError;
use crate::table::column::table::GpuTable;
use std::fmt::Write as _;

/// One column's (or segment's) storage range and how its rows lie in it.
#[derive(Clone, Debug)]
pub struct StorageColumn {
    name: String,
    buffer: wgpu::Buffer,
    offset: u64,
    size: u64,
    base: u64,
    byte_stride: u64,
    values: u64,
    accessors: Vec<(String, VertexFormat, u64)>,
}

impl StorageColumn {
    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The binding's first byte (a multiple of the device's storage offset alignment).
    #[must_use]
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The binding's bytes (a multiple of 4).
    #[must_use]
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// The byte of the first row inside the binding (0 for aligned data such as segments).
    #[must_use]
    pub const fn base(&self) -> u64 {
        self.base
    }

    /// Bytes between rows (or list elements).
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Values bound (rows, or list elements).
    #[must_use]
    pub const fn values(&self) -> u64 {
        self.values
    }

    /// The binding.
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: wgpu::BufferSize::new(self.size),
        }
    }

    /// The values this column's WGSL accessors read: `(accessor base name, format, byte offset
    /// in the row)`.
    #[must_use]
    pub fn accessors(&self) -> &[(String, VertexFormat, u64)] {
        &self.accessors
    }
}

/// A constant's uniform binding: its 16-byte upload, bound as a `vec4<u32>` uniform, and the
/// WGSL accessor that decodes it as vertex fetch would.
#[derive(Clone, Debug)]
pub struct ConstantBinding {
    name: String,
    buffer: wgpu::Buffer,
    constant: GpuConstant,
}

impl ConstantBinding {
    /// The binding of `constant` as the column `name`, uploaded on `gpu` (a table's storage
    /// bindings make one per constant, reusing the table's upload).
    ///
    /// # Errors
    /// [`TableError::Gpu`] when the upload fails.
    pub fn new(
        gpu: &Gpu,
        name: impl Into<String>,
        constant: GpuConstant,
    ) -> Result<Self, TableError> {
        Ok(ConstantBinding {
            name: name.into(),
            buffer: constant.upload(gpu)?,
            constant,
        })
    }

    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The constant.
    #[must_use]
    pub const fn constant(&self) -> GpuConstant {
        self.constant
    }

    /// The 16-byte uniform buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// WGSL that reads the constant in a compute (or any) shader: a uniform
    /// `var<uniform> {name}_words: vec4<u32>` at `@group(group) @binding(binding)`, and
    /// `fn {name}_at(row: u32) -> T`, which returns the value for every row, decoded as vertex
    /// fetch would (`T` is [`VertexFormat::vertex_input_type`]: `vec4<f32>` for `unorm8x4`).
    /// Bind [`buffer`](Self::buffer) there.
    ///
    /// # Errors
    /// [`TableError::Wgsl`] when the name cannot prefix WGSL identifiers.
    pub fn wgsl(&self, group: u32, binding: u32) -> Result<String, TableError> {
        let name = &self.name;
        check_wgsl_name(name)?;
        let words = format!("{name}_words");
        let mut out = String::new();
        let _ = writeln!(
            out,
            "@group({group}) @binding({binding}) var<uniform> {words}: vec4<u32>;"
        );
        out.push_str(&accessor_fn(
            &format!("{name}_at"),
            &words,
            self.constant.format(),
            0,
            0,
        ));
        Ok(out)
    }
}

/// What one batch binds for a compute pass: a read-only storage range per column, then a uniform
/// per constant, at consecutive bindings.
#[derive(Clone, Debug)]
pub struct BatchStorage {
    columns: Vec<StorageColumn>,
    constants: Vec<ConstantBinding>,
    rows: u64,
}

impl BatchStorage {
    /// The storage columns, binding by binding.
    #[must_use]
    pub fn columns(&self) -> &[StorageColumn] {
        &self.columns
    }

    /// The column called `name`.
    #[must_use]
    pub fn column(&self, name: &str) -> Option<&StorageColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The constants, after the columns.
    #[must_use]
    pub fn constants(&self) -> &[ConstantBinding] {
        &self.constants
    }

    /// The batch's rows.
    #[must_use]
    pub const fn rows(&self) -> u64 {
        self.rows
    }

    /// Bind group entries: column `i` at `first_binding + i`, then the constants.
    #[must_use]
    pub fn bind_group_entries(&self, first_binding: u32) -> Vec<wgpu::BindGroupEntry<'_>> {
        let columns = self
            .columns
            .iter()
            .map(|c| wgpu::BindingResource::Buffer(c.binding()));
        let constants = self.constants.iter().map(|c| c.buffer.as_entire_binding());
        (first_binding..)
            .zip(columns.chain(constants))
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect()
    }

    /// Bind group layout entries matching [`bind_group_entries`](Self::bind_group_entries),
    /// visible to `visibility`.
    #[must_use]
    pub fn bind_group_layout_entries(
        &self,
        first_binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> Vec<wgpu::BindGroupLayoutEntry> {
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = self
            .columns
            .iter()
            .map(|_| wgpu::BufferBindingType::Storage { read_only: true });
        let uniform = self
            .constants
            .iter()
            .map(|_| wgpu::BufferBindingType::Uniform);
        (first_binding..)
            .zip(storage.chain(uniform))
            .map(|(binding, ty)| entry(binding, ty))
            .collect()
    }

    /// WGSL declaring every binding of [`bind_group_entries`](Self::bind_group_entries) in
    /// `@group(group)` and an accessor per value: `fn {name}_at(row: u32) -> T` for a column of
    /// one format (for list columns, `row` counts elements), one per field or attribute of
    /// interleaved rows, one per constant, each decoding as vertex fetch would. Storage columns
    /// are `var<storage, read> {column}_words: array<u32>`.
    ///
    /// # Errors
    /// [`TableError::Wgsl`] for names that cannot prefix WGSL identifiers.
    pub fn wgsl(&self, group: u32, first_binding: u32) -> Result<String, TableError> {
        let mut out = String::new();
        let mut binding = first_binding;
        for column in &self.columns {
            check_wgsl_name(&column.name)?;
            let words = format!("{}_words", column.name);
            let _ = writeln!(
                out,
                "@group({group}) @binding({binding}) var<storage, read> {words}: array<u32>;"
            );
            for (name, format, offset) in &column.accessors {
                check_wgsl_name(name)?;
                out.push_str(&accessor_fn(
                    &format!("{name}_at"),
                    &words,
                    *format,
                    column.base + offset,
                    column.byte_stride,
                ));
            }
            binding += 1;
        }
        for constant in &self.constants {
            out.push_str(&constant.wgsl(group, binding)?);
            binding += 1;
        }
        Ok(out)
    }
}

/// Per batch, what a compute pass binds (see [`GpuTable::storage_bindings`]).
#[derive(Clone, Debug)]
pub struct TableStorageBindings {
    batches: Vec<BatchStorage>,
}

impl TableStorageBindings {
    /// One entry per batch.
    #[must_use]
    pub fn batches(&self) -> &[BatchStorage] {
        &self.batches
    }

    /// The WGSL of the first batch, when every batch's columns lie at the same place inside
    /// their bindings (always for packed, uploaded and segmented data), so one pipeline serves
    /// all batches.
    ///
    /// # Errors
    /// [`TableError::StorageBasesDiffer`] when a batch needs other text; as
    /// [`BatchStorage::wgsl`].
    pub fn wgsl(&self, group: u32, first_binding: u32) -> Result<String, TableError> {
        let Some(first) = self.batches.first() else {
            return Ok(String::new());
        };
        let text = first.wgsl(group, first_binding)?;
        for (i, batch) in self.batches.iter().enumerate().skip(1) {
            if batch.wgsl(group, first_binding)? != text {
                return Err(TableError::StorageBasesDiffer { batch: i });
            }
        }
        Ok(text)
    }
}

/// The values WGSL accessors read from a column's rows.
fn column_accessors(
    name: &str,
    data: &GpuData,
    layout: Option<&crate::layout::BufferLayout>,
) -> Vec<(String, VertexFormat, u64)> {
    if let Some(layout) = layout.filter(|l| !l.attributes.is_empty()) {
        return layout
            .attributes
            .iter()
            .map(|a| (a.attribute.clone(), a.format, a.byte_offset))
            .collect();
    }
    match data.format() {
        Some(GpuDataFormat::Struct(s)) => s
            .fields()
            .iter()
            .map(|f| (f.name().to_owned(), f.format(), f.byte_offset()))
            .collect(),
        Some(GpuDataFormat::Vector(
            GpuVectorFormat::Fixed(f)
            | GpuVectorFormat::VertexList(f)
            | GpuVectorFormat::ValueList(f),
        )) => vec![(name.to_owned(), *f, 0)],
        None => Vec::new(),
    }
}

fn storage_column(
    gpu: &Gpu,
    name: &str,
    data: &GpuData,
    layout: Option<&crate::layout::BufferLayout>,
) -> Result<StorageColumn, TableError> {
    let buffer = data.buffer_on(gpu, "bind a storage buffer")?;
    if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
        return Err(GpuError::MissingUsage {
            operation: "bind a storage buffer",
            required: wgpu::BufferUsages::STORAGE,
            found: buffer.usage(),
        }
        .into());
    }
    let alignment = crate::table::SegmentedLayout::device_alignment(gpu);
    let offset = data.byte_offset() - data.byte_offset() % alignment;
    let base = data.byte_offset() - offset;
    let accessors = column_accessors(name, data, layout);
    for (field, format, field_offset) in &accessors {
        let component = format.signed_data_type().byte_length();
        let first = base + field_offset;
        if !first.is_multiple_of(component) || !data.byte_stride().is_multiple_of(component) {
            return Err(TableError::StorageMisaligned {
                column: name.to_owned(),
                field: field.clone(),
                byte_offset: data.byte_offset() + field_offset,
                byte_stride: data.byte_stride(),
                alignment: component,
            });
        }
    }
    let end = data
        .byte_offset()
        .checked_add(data.byte_length())
        .and_then(|e| e.checked_next_multiple_of(4))
        .map(|e| e.max(offset + 4));
    let size = end.map(|e| e - offset);
    let max = gpu.limits().max_storage_buffer_binding_size;
    match (end, size) {
        (Some(end), Some(size)) if end <= buffer.size() && size <= max => Ok(StorageColumn {
            name: name.to_owned(),
            buffer: buffer.clone(),
            offset,
            size,
            base,
            byte_stride: data.byte_stride(),
            values: data.value_length(),
            accessors,
        }),
        (Some(end), Some(size)) if end <= buffer.size() => {
            Err(GpuError::StorageBindingSize { size, max }.into())
        }
        _ => Err(GpuError::StorageOutOfBuffer {
            rows: data.value_length(),
            byte_stride: data.byte_stride(),
            byte_offset: data.byte_offset(),
            needed: end.unwrap_or(u64::MAX),
            buffer_size: buffer.size(),
        }
        .into()),
    }
}

/// The body of [`GpuTable::storage_bindings`].
pub(crate) fn storage_bindings(
    table: &GpuTable,
    gpu: &Gpu,
) -> Result<TableStorageBindings, TableError> {
    let constants: Vec<ConstantBinding> = table
        .constants()
        .map(|(name, constant)| {
            Ok(ConstantBinding {
                name: name.to_owned(),
                buffer: table.uploads.buffer(gpu, constant)?,
                constant: *constant,
            })
        })
        .collect::<Result<_, TableError>>()?;
    let names: Vec<&str> = table
        .batches()
        .first()
        .map(|b| b.column_names().collect())
        .unwrap_or_default();
    let mut batches = Vec::with_capacity(table.batches().len());
    for (i, batch) in table.batches().iter().enumerate() {
        let mut columns = Vec::with_capacity(names.len());
        for name in &names {
            let data = batch
                .column(name)
                .ok_or_else(|| TableError::MissingBatchData {
                    column: (*name).to_owned(),
                    batch: i,
                })?;
            let layout = table.buffer_layouts().iter().find(|l| l.name == *name);
            columns.push(storage_column(gpu, name, data, layout)?);
        }
        batches.push(BatchStorage {
            columns,
            constants: constants.clone(),
            rows: batch.num_rows(),
        });
    }
    Ok(TableStorageBindings { batches })
}
