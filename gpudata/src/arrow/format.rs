//! Which [`GpuVectorFormat`] an Arrow column gets: the default one (luma.gl's
//! `getGPUVectorFormatForArrowType`), an explicit one checked against the Arrow values, or one
//! chosen from a shader input type or vertex layout (luma.gl's `getArrowVertexFormat`).

use arrow_schema::DataType as ArrowType;

use super::ArrowInteropError;
use crate::format::{DataType, GpuVectorFormat, PrimitiveType, ShaderType, VertexFormat};

/// The scalar value types of Arrow columns that have bytes the GPU can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrowScalar {
    /// `Int8`.
    Int8,
    /// `Int16`.
    Int16,
    /// `Int32`.
    Int32,
    /// `Int64` (only as two 32-bit words).
    Int64,
    /// `UInt8`.
    UInt8,
    /// `UInt16`.
    UInt16,
    /// `UInt32`.
    UInt32,
    /// `UInt64` (only as two 32-bit words).
    UInt64,
    /// `Float16`.
    Float16,
    /// `Float32`.
    Float32,
    /// `Float64` (as two 32-bit words, or split by fround into two `f32`).
    Float64,
}

/// Whether a scalar is an unsigned integer, a signed integer or a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unsigned,
    Signed,
    Float,
}

impl ArrowScalar {
    /// The scalar of an Arrow primitive type, or `None` for every other type.
    #[must_use]
    pub fn of(data_type: &ArrowType) -> Option<ArrowScalar> {
        Some(match data_type {
            ArrowType::Int8 => ArrowScalar::Int8,
            ArrowType::Int16 => ArrowScalar::Int16,
            ArrowType::Int32 => ArrowScalar::Int32,
            ArrowType::Int64 => ArrowScalar::Int64,
            ArrowType::UInt8 => ArrowScalar::UInt8,
            ArrowType::UInt16 => ArrowScalar::UInt16,
            ArrowType::UInt32 => ArrowScalar::UInt32,
            ArrowType::UInt64 => ArrowScalar::UInt64,
            ArrowType::Float16 => ArrowScalar::Float16,
            ArrowType::Float32 => ArrowScalar::Float32,
            ArrowType::Float64 => ArrowScalar::Float64,
            _ => return None,
        })
    }

    /// Bytes of one value.
    #[must_use]
    pub const fn byte_width(self) -> u64 {
        match self {
            ArrowScalar::Int8 | ArrowScalar::UInt8 => 1,
            ArrowScalar::Int16 | ArrowScalar::UInt16 | ArrowScalar::Float16 => 2,
            ArrowScalar::Int32 | ArrowScalar::UInt32 | ArrowScalar::Float32 => 4,
            ArrowScalar::Int64 | ArrowScalar::UInt64 | ArrowScalar::Float64 => 8,
        }
    }

    /// The GPU data type holding the same values, or `None` for the 64-bit types.
    #[must_use]
    pub const fn gpu_type(self) -> Option<DataType> {
        match self {
            ArrowScalar::Int8 => Some(DataType::Sint8),
            ArrowScalar::Int16 => Some(DataType::Sint16),
            ArrowScalar::Int32 => Some(DataType::Sint32),
            ArrowScalar::UInt8 => Some(DataType::Uint8),
            ArrowScalar::UInt16 => Some(DataType::Uint16),
            ArrowScalar::UInt32 => Some(DataType::Uint32),
            ArrowScalar::Float16 => Some(DataType::Float16),
            ArrowScalar::Float32 => Some(DataType::Float32),
            ArrowScalar::Int64 | ArrowScalar::UInt64 | ArrowScalar::Float64 => None,
        }
    }

    /// The Arrow type.
    #[must_use]
    pub fn arrow_type(self) -> ArrowType {
        match self {
            ArrowScalar::Int8 => ArrowType::Int8,
            ArrowScalar::Int16 => ArrowType::Int16,
            ArrowScalar::Int32 => ArrowType::Int32,
            ArrowScalar::Int64 => ArrowType::Int64,
            ArrowScalar::UInt8 => ArrowType::UInt8,
            ArrowScalar::UInt16 => ArrowType::UInt16,
            ArrowScalar::UInt32 => ArrowType::UInt32,
            ArrowScalar::UInt64 => ArrowType::UInt64,
            ArrowScalar::Float16 => ArrowType::Float16,
            ArrowScalar::Float32 => ArrowType::Float32,
            ArrowScalar::Float64 => ArrowType::Float64,
        }
    }

    const fn kind(self) -> Kind {
        match self {
            ArrowScalar::UInt8
            | ArrowScalar::UInt16
            | ArrowScalar::UInt32
            | ArrowScalar::UInt64 => Kind::Unsigned,
            ArrowScalar::Int8 | ArrowScalar::Int16 | ArrowScalar::Int32 | ArrowScalar::Int64 => {
                Kind::Signed
            }
            ArrowScalar::Float16 | ArrowScalar::Float32 | ArrowScalar::Float64 => Kind::Float,
        }
    }
}

/// How the bytes of one stored component look: kind, width and count per row or element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Storage {
    kind: Kind,
    width: u64,
    count: u64,
}

impl Storage {
    fn of_format(format: VertexFormat) -> Storage {
        let stored = format.signed_data_type();
        let kind = match stored {
            DataType::Float16 | DataType::Float32 => Kind::Float,
            other if other.is_signed() => Kind::Signed,
            _ => Kind::Unsigned,
        };
        let width = stored.byte_length();
        Storage {
            kind,
            width,
            count: format.byte_length() / width,
        }
    }

    /// Whether a format storing `self` carries the Arrow values `arrow` bit for bit: the same
    /// kind, width and count, or 64-bit Arrow values as pairs of 32-bit integer words.
    fn carries(self, arrow: Storage) -> bool {
        self == arrow
            || (arrow.width == 8
                && self.width == 4
                && self.kind != Kind::Float
                && Some(self.count) == arrow.count.checked_mul(2))
    }
}

/// Which variable-width Arrow type a `value-list<uint8>` column came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BytesType {
    /// `Utf8` (32-bit offsets).
    Utf8,
    /// `LargeUtf8` (64-bit offsets).
    LargeUtf8,
    /// `Binary` (32-bit offsets).
    Binary,
    /// `LargeBinary` (64-bit offsets).
    LargeBinary,
}

/// What shape an Arrow type has on its way to the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrowShape {
    /// A primitive or `FixedSizeList<primitive, n>`: one fixed-width row per Arrow row.
    Fixed {
        /// The value type.
        scalar: ArrowScalar,
        /// Values per row (1 for a primitive).
        components: u32,
    },
    /// `List` / `LargeList` of a primitive or of `FixedSizeList<primitive, n>`: variable-length
    /// rows of fixed-width elements.
    List {
        /// Whether offsets are 64-bit (`LargeList`).
        large: bool,
        /// The value type.
        scalar: ArrowScalar,
        /// Values per element.
        components: u32,
        /// Whether elements are `FixedSizeList`s (else primitives).
        fixed_size_elements: bool,
    },
    /// `Utf8`, `LargeUtf8`, `Binary`, `LargeBinary`: variable-length rows of bytes.
    Bytes(BytesType),
    /// `Dictionary<K, V>`: the integer keys go to the GPU, the values stay on the host.
    Dictionary {
        /// The key type.
        key: ArrowScalar,
    },
    /// `FixedSizeBinary(width)`: interleaved rows described by buffer-layout field metadata.
    Rows {
        /// Bytes per row.
        width: u64,
    },
}

fn unsupported(column: &str, data_type: &ArrowType) -> ArrowInteropError {
    ArrowInteropError::UnsupportedType {
        column: column.to_owned(),
        data_type: data_type.clone(),
    }
}

/// The primitive and component count of a list element (or a fixed row).
fn element(
    column: &str,
    outer: &ArrowType,
    element: &ArrowType,
) -> Result<(ArrowScalar, u32, bool), ArrowInteropError> {
    if let Some(scalar) = ArrowScalar::of(element) {
        return Ok((scalar, 1, false));
    }
    if let ArrowType::FixedSizeList(child, size) = element {
        let scalar =
            ArrowScalar::of(child.data_type()).ok_or_else(|| unsupported(column, outer))?;
        let components = u32::try_from(*size)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| ArrowInteropError::ComponentCount {
                column: column.to_owned(),
                data_type: outer.clone(),
                components: i64::from(*size),
            })?;
        return Ok((scalar, components, true));
    }
    Err(unsupported(column, outer))
}

impl ArrowShape {
    /// The shape of `data_type`, for the column called `column`.
    ///
    /// # Errors
    /// [`ArrowInteropError::UnsupportedType`] for types with no GPU shape (structs, unions, maps,
    /// nested lists, booleans, temporal types, views);
    /// [`ArrowInteropError::ComponentCount`] for fixed-size lists of size 0 or less.
    pub fn of(column: &str, data_type: &ArrowType) -> Result<ArrowShape, ArrowInteropError> {
        match data_type {
            ArrowType::Utf8 => Ok(ArrowShape::Bytes(BytesType::Utf8)),
            ArrowType::LargeUtf8 => Ok(ArrowShape::Bytes(BytesType::LargeUtf8)),
            ArrowType::Binary => Ok(ArrowShape::Bytes(BytesType::Binary)),
            ArrowType::LargeBinary => Ok(ArrowShape::Bytes(BytesType::LargeBinary)),
            ArrowType::Dictionary(key, _) => ArrowScalar::of(key)
                .filter(|k| k.kind() != Kind::Float)
                .map(|key| ArrowShape::Dictionary { key })
                .ok_or_else(|| unsupported(column, data_type)),
            ArrowType::FixedSizeBinary(width) => u64::try_from(*width)
                .ok()
                .filter(|w| *w > 0)
                .map(|width| ArrowShape::Rows { width })
                .ok_or_else(|| unsupported(column, data_type)),
            ArrowType::List(child) | ArrowType::LargeList(child) => {
                let (scalar, components, fixed_size_elements) =
                    element(column, data_type, child.data_type())?;
                Ok(ArrowShape::List {
                    large: matches!(data_type, ArrowType::LargeList(_)),
                    scalar,
                    components,
                    fixed_size_elements,
                })
            }
            other => {
                let (scalar, components, _) = element(column, data_type, other)?;
                Ok(ArrowShape::Fixed { scalar, components })
            }
        }
    }

    /// The value scalar and components per row or element of fixed and list shapes; the key
    /// scalar and 1 for dictionaries.
    #[must_use]
    pub fn values(self) -> Option<(ArrowScalar, u32)> {
        match self {
            ArrowShape::Fixed { scalar, components }
            | ArrowShape::List {
                scalar, components, ..
            } => Some((scalar, components)),
            ArrowShape::Dictionary { key } => Some((key, 1)),
            ArrowShape::Bytes(_) => Some((ArrowScalar::UInt8, 1)),
            ArrowShape::Rows { .. } => None,
        }
    }
}

/// The one vertex format storing `components` values of `data_type` (the `-webgl` format for
/// three 8/16-bit components), ignoring `unorm8x4-bgra` and `unorm10-10-10-2`.
fn vertex_format(data_type: DataType, components: u32) -> Option<VertexFormat> {
    VertexFormat::ALL.iter().copied().find(|f| {
        f.data_type() == data_type
            && f.components() == components
            && !f.is_bgra()
            && !f.is_packed_bits()
    })
}

/// The fixed format luma.gl gives `components` values of `scalar` (never normalized).
fn default_vertex_format(
    column: &str,
    data_type: &ArrowType,
    scalar: ArrowScalar,
    components: u32,
) -> Result<VertexFormat, ArrowInteropError> {
    let gpu = scalar
        .gpu_type()
        .ok_or_else(|| ArrowInteropError::UnsupportedLogicalType {
            column: column.to_owned(),
            data_type: scalar.arrow_type(),
        })?;
    if !(1..=4).contains(&components) {
        return Err(ArrowInteropError::ComponentCount {
            column: column.to_owned(),
            data_type: data_type.clone(),
            components: i64::from(components),
        });
    }
    vertex_format(gpu, components).ok_or_else(|| ArrowInteropError::Float16x3 {
        column: column.to_owned(),
        data_type: data_type.clone(),
    })
}

/// The default GPU vector format of an Arrow type (luma.gl's `getGPUVectorFormatForArrowType`):
///
/// - `Utf8` (and `LargeUtf8`, `Binary`, `LargeBinary`) → `value-list<uint8>`;
/// - `Dictionary<_, Int8/16/32 | UInt8/16/32>` → the key's format (`Int32` keys → `sint32`);
/// - a primitive → its 1-component format; `FixedSizeList<T, n>` → `T` with `n` components,
///   three 8/16-bit components as the `-webgl` format; never normalized
///   (`FixedSizeList<UInt8, 4>` → `uint8x4`; ask for `unorm8x4` explicitly or through a shader
///   type);
/// - `List<E>` (and `LargeList<E>`) → `vertex-list<format of E>`.
///
/// # Errors
/// [`ArrowInteropError::UnsupportedLogicalType`] for 64-bit values (Float64, Int64, UInt64);
/// [`ArrowInteropError::ComponentCount`] for fixed-size lists outside 1..=4;
/// [`ArrowInteropError::Float16x3`] for three float16 components;
/// [`ArrowInteropError::UnsupportedType`] for every other type, and for `FixedSizeBinary`
/// (interleaved rows have a buffer layout, not a vector format).
///
/// ```
/// use arrow_schema::{DataType, Field};
/// use gpudata::arrow::default_format;
///
/// let colors = DataType::FixedSizeList(Field::new_list_field(DataType::UInt8, false).into(), 4);
/// assert_eq!(default_format("colors", &colors)?.to_string(), "uint8x4");
/// assert_eq!(default_format("names", &DataType::Utf8)?.to_string(), "value-list<uint8>");
/// assert!(default_format("x", &DataType::Float64).is_err());
/// # Ok::<(), gpudata::arrow::ArrowInteropError>(())
/// ```
pub fn default_format(
    column: &str,
    data_type: &ArrowType,
) -> Result<GpuVectorFormat, ArrowInteropError> {
    match ArrowShape::of(column, data_type)? {
        ArrowShape::Bytes(_) => Ok(GpuVectorFormat::ValueList(VertexFormat::Uint8)),
        ArrowShape::Dictionary { key } => {
            default_vertex_format(column, data_type, key, 1).map(GpuVectorFormat::Fixed)
        }
        ArrowShape::Fixed { scalar, components } => {
            default_vertex_format(column, data_type, scalar, components).map(GpuVectorFormat::Fixed)
        }
        ArrowShape::List {
            scalar, components, ..
        } => default_vertex_format(column, data_type, scalar, components)
            .map(GpuVectorFormat::VertexList),
        ArrowShape::Rows { .. } => Err(unsupported(column, data_type)),
    }
}

/// Every format that stores exactly `storage` bytes.
fn formats_carrying(storage: Storage) -> Vec<VertexFormat> {
    VertexFormat::ALL
        .iter()
        .copied()
        .filter(|f| Storage::of_format(*f).carries(storage))
        .collect()
}

/// Checks that `format` carries the values of `data_type` bit for bit, so the Arrow bytes can be
/// uploaded as they are.
///
/// The format's stored integer or float type and count must equal the Arrow values' (so
/// `FixedSizeList<UInt8, 4>` takes `uint8x4`, `unorm8x4` or `unorm8x4-bgra`, and `UInt32` takes
/// `uint32` or `unorm10-10-10-2`); 64-bit values may travel as pairs of 32-bit integer words
/// (`Float64` as `uint32x2`, `FixedSizeList<Float64, 2>` as `uint32x4`). Fixed Arrow types take
/// fixed formats, lists take `vertex-list<F>`, byte columns take `value-list<F>` of one byte,
/// dictionaries take their key's fixed formats.
///
/// # Errors
/// [`ArrowInteropError::FormatMismatch`] naming the formats that would fit; the errors of
/// [`ArrowShape::of`].
pub fn check_format(
    column: &str,
    data_type: &ArrowType,
    format: GpuVectorFormat,
) -> Result<(), ArrowInteropError> {
    let shape = ArrowShape::of(column, data_type)?;
    let mismatch = |expected: String| ArrowInteropError::FormatMismatch {
        column: column.to_owned(),
        data_type: data_type.clone(),
        format,
        expected,
    };
    let (wrap, wrap_name): (fn(VertexFormat) -> GpuVectorFormat, &str) = match shape {
        ArrowShape::Fixed { .. } | ArrowShape::Dictionary { .. } => {
            (GpuVectorFormat::Fixed, "a fixed format")
        }
        ArrowShape::List { .. } => (GpuVectorFormat::VertexList, "vertex-list<F>"),
        ArrowShape::Bytes(_) => (GpuVectorFormat::ValueList, "value-list<F>"),
        ArrowShape::Rows { .. } => {
            return Err(mismatch(
                "no vector format: FixedSizeBinary rows are interleaved and described by their buffer layout"
                    .to_owned(),
            ));
        }
    };
    let (scalar, components) = shape.values().unwrap_or((ArrowScalar::UInt8, 1));
    let storage = Storage {
        kind: scalar.kind(),
        width: scalar.byte_width(),
        count: u64::from(components),
    };
    let fits = formats_carrying(storage);
    let right_kind = wrap(format.element_format()) == format;
    if right_kind && fits.contains(&format.element_format()) {
        return Ok(());
    }
    let names: Vec<String> = fits.iter().map(|f| wrap(*f).to_string()).collect();
    Err(mismatch(if names.is_empty() {
        format!(
            "{wrap_name} storing {components} x {}-byte values, and none exists",
            scalar.byte_width()
        )
    } else {
        format!("{wrap_name} storing the same bytes: {}", names.join(", "))
    }))
}

/// The vertex format a shader input of `shader_type` reads a column of `components` values of
/// `data_type` with (luma.gl's `getArrowVertexFormat`):
///
/// - component counts must agree;
/// - `f32` inputs read float32 and float16 as they are, 8/16-bit integers normalized
///   (`uint8` × 4 → `unorm8x4`), and refuse 32-bit integers (no normalized 32-bit format);
/// - `f16` inputs read float16 and normalized 8/16-bit integers, and refuse float32;
/// - `i32` / `u32` inputs read integers of the same signedness, unnormalized, and refuse floats;
/// - three 8/16-bit or float16 components are refused unless `allow_webgl_only`, which allows the
///   8/16-bit `-webgl` formats (float16x3 does not exist).
///
/// # Errors
/// [`ArrowInteropError::ShaderComponents`], [`ArrowInteropError::NoNormalized32`],
/// [`ArrowInteropError::ShaderTypeMismatch`], [`ArrowInteropError::Signedness`],
/// [`ArrowInteropError::NotPortable`].
///
/// ```
/// use gpudata::arrow::vertex_format_for_shader;
/// use gpudata::ShaderType;
/// use gpudata::format::DataType;
///
/// let vec4f: ShaderType = "vec4<f32>".parse()?;
/// let format = vertex_format_for_shader("colors", DataType::Uint8, 4, vec4f, false)?;
/// assert_eq!(format.as_str(), "unorm8x4");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn vertex_format_for_shader(
    column: &str,
    data_type: DataType,
    components: u32,
    shader_type: ShaderType,
    allow_webgl_only: bool,
) -> Result<VertexFormat, ArrowInteropError> {
    let column_owned = || column.to_owned();
    if components != shader_type.components() {
        return Err(ArrowInteropError::ShaderComponents {
            column: column_owned(),
            components,
            shader_type,
            expected: shader_type.components(),
        });
    }
    let data_type = data_type.storage_type();
    let is_float = matches!(data_type, DataType::Float16 | DataType::Float32);
    let is_32_int = matches!(data_type, DataType::Uint32 | DataType::Sint32);
    let chosen = match shader_type.primitive() {
        PrimitiveType::F32 | PrimitiveType::F16 => {
            if is_32_int {
                return Err(ArrowInteropError::NoNormalized32 {
                    column: column_owned(),
                    data_type,
                    shader_type,
                });
            }
            if shader_type.primitive() == PrimitiveType::F16 && data_type == DataType::Float32 {
                return Err(ArrowInteropError::ShaderTypeMismatch {
                    column: column_owned(),
                    data_type,
                    shader_type,
                });
            }
            data_type.normalized_type().unwrap_or(data_type)
        }
        PrimitiveType::I32 | PrimitiveType::U32 => {
            if is_float {
                return Err(ArrowInteropError::ShaderTypeMismatch {
                    column: column_owned(),
                    data_type,
                    shader_type,
                });
            }
            let want_signed = shader_type.primitive() == PrimitiveType::I32;
            if data_type.is_signed() != want_signed {
                return Err(ArrowInteropError::Signedness {
                    column: column_owned(),
                    data_type,
                    shader_type,
                    expected: if want_signed { "signed" } else { "unsigned" },
                });
            }
            data_type
        }
    };
    let not_portable = || ArrowInteropError::NotPortable {
        column: column_owned(),
        data_type,
        shader_type,
    };
    match vertex_format(chosen, components) {
        Some(format) if format.is_webgl_only() && !allow_webgl_only => Err(not_portable()),
        Some(format) => Ok(format),
        None => Err(not_portable()),
    }
}

/// How one column's GPU format is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FormatChoice {
    /// [`default_format`].
    #[default]
    Default,
    /// An explicit format, checked by [`check_format`] (e.g. `unorm8x4` for
    /// `FixedSizeList<UInt8, 4>`).
    Format(GpuVectorFormat),
    /// The format a shader input of this type reads the column with
    /// ([`vertex_format_for_shader`]); lists get `vertex-list<F>`.
    Shader(ShaderType),
    /// A vertex format for the values, as a vertex layout states it: `Fixed(F)` for fixed
    /// columns and dictionaries, `vertex-list<F>` for lists; checked by [`check_format`].
    Vertex(VertexFormat),
    /// `Float64` (or `FixedSizeList<Float64, 1 | 2>`) split into an `f32` high part and an
    /// `f32` low part per value by the fround operation: uploaded as `uint32x2` / `uint32x4`
    /// words, converted on the GPU to `float32x2` / `float32x4` rows `[hi.., lo..]`.
    Fround,
}

/// The format a column goes to the GPU with, and whether fround converts it after upload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedFormat {
    /// The format of the uploaded bytes.
    pub format: GpuVectorFormat,
    /// Whether the uploaded words are float64 values to split with fround.
    pub fround: bool,
}

/// Resolves `choice` for a column of `data_type`.
///
/// # Errors
/// As [`default_format`], [`check_format`] and [`vertex_format_for_shader`];
/// [`ArrowInteropError::FormatMismatch`] for fround on a column that is not Float64 with 1 or 2
/// components.
pub fn resolve_format(
    column: &str,
    data_type: &ArrowType,
    choice: FormatChoice,
    allow_webgl_only: bool,
) -> Result<ResolvedFormat, ArrowInteropError> {
    let plain = |format| ResolvedFormat {
        format,
        fround: false,
    };
    if data_type == &ArrowType::Boolean
        && let Some(format) = boolean_format(choice)
    {
        return Ok(plain(GpuVectorFormat::Fixed(format)));
    }
    match choice {
        FormatChoice::Default => default_format(column, data_type).map(plain),
        FormatChoice::Format(format) => {
            check_format(column, data_type, format)?;
            Ok(plain(format))
        }
        FormatChoice::Vertex(vertex) => {
            let format = match ArrowShape::of(column, data_type)? {
                ArrowShape::List { .. } => GpuVectorFormat::VertexList(vertex),
                _ => GpuVectorFormat::Fixed(vertex),
            };
            check_format(column, data_type, format)?;
            Ok(plain(format))
        }
        FormatChoice::Shader(shader_type) => {
            let shape = ArrowShape::of(column, data_type)?;
            let (scalar, components) = match shape {
                ArrowShape::Fixed { scalar, components }
                | ArrowShape::List {
                    scalar, components, ..
                } => (scalar, components),
                ArrowShape::Dictionary { key } => (key, 1),
                ArrowShape::Bytes(_) | ArrowShape::Rows { .. } => {
                    return Err(unsupported(column, data_type));
                }
            };
            let gpu =
                scalar
                    .gpu_type()
                    .ok_or_else(|| ArrowInteropError::UnsupportedLogicalType {
                        column: column.to_owned(),
                        data_type: scalar.arrow_type(),
                    })?;
            let format =
                vertex_format_for_shader(column, gpu, components, shader_type, allow_webgl_only)?;
            Ok(plain(match shape {
                ArrowShape::List { .. } => GpuVectorFormat::VertexList(format),
                _ => GpuVectorFormat::Fixed(format),
            }))
        }
        FormatChoice::Fround => match ArrowShape::of(column, data_type)? {
            ArrowShape::Fixed {
                scalar: ArrowScalar::Float64,
                components: components @ (1 | 2),
            } => Ok(ResolvedFormat {
                format: GpuVectorFormat::Fixed(if components == 1 {
                    VertexFormat::Uint32x2
                } else {
                    VertexFormat::Uint32x4
                }),
                fround: true,
            }),
            _ => Err(ArrowInteropError::FormatMismatch {
                column: column.to_owned(),
                data_type: data_type.clone(),
                format: GpuVectorFormat::Fixed(VertexFormat::Float32x2),
                expected: "Float64 or FixedSizeList<Float64, 2> values for fround".to_owned(),
            }),
        },
    }
}

/// The integer format a Boolean column is unpacked to on the GPU under `choice`: `uint8` or
/// `uint32` asked explicitly (as a fixed or a vertex format); `None` otherwise (Booleans have
/// no default format).
pub(crate) fn boolean_format(choice: FormatChoice) -> Option<VertexFormat> {
    match choice {
        FormatChoice::Format(GpuVectorFormat::Fixed(f)) | FormatChoice::Vertex(f)
            if matches!(f, VertexFormat::Uint8 | VertexFormat::Uint32) =>
        {
            Some(f)
        }
        _ => None,
    }
}
