//! Feature `serde`: formats and buffer layouts in luma.gl's JSON shape.
//!
//! Format enums serialize as their WebGPU / luma.gl strings. A [`GpuDataStructFormat`] serializes
//! as `{"type":"struct","layout":…,"fields":{name:{"format","byteOffset","byteLength"},…},
//! "components","byteStride","rowByteLength"}` with fields in declaration order; deserializing
//! re-runs the layout engine and refuses stated numbers that disagree with it.
//! [`BufferLayout`](crate::BufferLayout) derives serde with camelCase keys, omitting absent
//! parts.

use core::fmt;
use core::marker::PhantomData;
use core::str::FromStr;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::format::{GpuVectorFormat, ShaderType, VertexFormat};
use crate::layout::{DeclarationLimits, LayoutError};
use crate::layout::{GpuDataStructFormat, StepMode, StructLayout};

/// Serializes as `Display`, deserializes through `FromStr`.
macro_rules! string_serde {
    ($($ty:ty => $expecting:literal),* $(,)?) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str(FromStrVisitor::<$ty>::new($expecting))
            }
        }
    )*};
}

struct FromStrVisitor<T> {
    expecting: &'static str,
    marker: PhantomData<T>,
}

impl<T> FromStrVisitor<T> {
    fn new(expecting: &'static str) -> Self {
        FromStrVisitor {
            expecting,
            marker: PhantomData,
        }
    }
}

impl<T> Visitor<'_> for FromStrVisitor<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
}

string_serde! {
    VertexFormat => "a vertex format string such as \"float32x3\"",
    GpuVectorFormat => "a gpu vector format string such as \"vertex-list<float32x2>\"",
    ShaderType => "a shader type string such as \"vec3<f32>\"",
    StructLayout => "\"wgsl-storage\" or \"packed\"",
    StepMode => "\"vertex\" or \"instance\"",
}

struct FieldEntry<'a>(&'a crate::layout::GpuDataStructField);

impl Serialize for FieldEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("format", &self.0.format())?;
        map.serialize_entry("byteOffset", &self.0.byte_offset())?;
        map.serialize_entry("byteLength", &self.0.byte_length())?;
        map.end()
    }
}

struct FieldMap<'a>(&'a [crate::layout::GpuDataStructField]);

impl Serialize for FieldMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for field in self.0 {
            map.serialize_entry(field.name(), &FieldEntry(field))?;
        }
        map.end()
    }
}

impl Serialize for GpuDataStructFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("type", "struct")?;
        map.serialize_entry("layout", &self.layout())?;
        map.serialize_entry("fields", &FieldMap(self.fields()))?;
        map.serialize_entry("components", &self.components())?;
        map.serialize_entry("byteStride", &self.byte_stride())?;
        map.serialize_entry("rowByteLength", &self.row_byte_length())?;
        map.end()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FieldDe {
    format: VertexFormat,
    byte_offset: Option<u64>,
    byte_length: Option<u64>,
}

/// The `fields` object, kept in document order, refused as soon as it has more than `max`
/// entries (the rest of the document is not read).
struct OrderedFields(Vec<(String, FieldDe)>);

struct FieldsSeed {
    max: usize,
}

impl<'de> DeserializeSeed<'de> for FieldsSeed {
    type Value = OrderedFields;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<OrderedFields, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FieldsSeed {
    type Value = OrderedFields;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of fields in declaration order")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedFields, A::Error> {
        let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(0).min(self.max).min(4096));
        while let Some(name) = map.next_key::<String>()? {
            if fields.len() == self.max {
                return Err(de::Error::custom(LayoutError::TooManyFields {
                    max: self.max,
                }));
            }
            fields.push((name, map.next_value::<FieldDe>()?));
        }
        Ok(OrderedFields(fields))
    }
}

/// A struct format's JSON object, its keys in any order.
struct StructFormatDe {
    kind: Option<String>,
    layout: StructLayout,
    fields: OrderedFields,
    components: Option<u64>,
    byte_stride: Option<u64>,
    row_byte_length: Option<u64>,
}

const STRUCT_FORMAT_KEYS: &[&str] = &[
    "type",
    "layout",
    "fields",
    "components",
    "byteStride",
    "rowByteLength",
];

/// Reads a [`StructFormatDe`] within `limits`.
struct StructFormatSeed<'l> {
    limits: &'l DeclarationLimits,
}

impl<'de> DeserializeSeed<'de> for StructFormatSeed<'_> {
    type Value = StructFormatDe;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<StructFormatDe, D::Error> {
        deserializer.deserialize_struct("GpuDataStructFormat", STRUCT_FORMAT_KEYS, self)
    }
}

/// Stores `value` read from `map` in `slot`, refusing a key given twice.
fn once<'de, A: MapAccess<'de>, T>(
    slot: &mut Option<T>,
    key: &'static str,
    value: impl FnOnce(&mut A) -> Result<T, A::Error>,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(key));
    }
    *slot = Some(value(map)?);
    Ok(())
}

impl<'de> Visitor<'de> for StructFormatSeed<'_> {
    type Value = StructFormatDe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a struct format object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StructFormatDe, A::Error> {
        let (mut kind, mut layout, mut fields) = (None, None, None);
        let (mut components, mut byte_stride, mut row_byte_length) = (None, None, None);
        let max = self.limits.max_fields;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => once(
                    &mut kind,
                    "type",
                    |m| m.next_value::<Option<String>>(),
                    &mut map,
                )?,
                "layout" => once(&mut layout, "layout", |m| m.next_value(), &mut map)?,
                "fields" => once(
                    &mut fields,
                    "fields",
                    |m| m.next_value_seed(FieldsSeed { max }),
                    &mut map,
                )?,
                "components" => once(&mut components, "components", |m| m.next_value(), &mut map)?,
                "byteStride" => once(&mut byte_stride, "byteStride", |m| m.next_value(), &mut map)?,
                "rowByteLength" => once(
                    &mut row_byte_length,
                    "rowByteLength",
                    |m| m.next_value(),
                    &mut map,
                )?,
                other => return Err(de::Error::unknown_field(other, STRUCT_FORMAT_KEYS)),
            }
        }
        Ok(StructFormatDe {
            kind: kind.flatten(),
            layout: layout.unwrap_or_default(),
            fields: fields.ok_or_else(|| de::Error::missing_field("fields"))?,
            components: components.flatten(),
            byte_stride: byte_stride.flatten(),
            row_byte_length: row_byte_length.flatten(),
        })
    }
}

/// `Err` when a number stated for `what` differs from the one the fields give; `what` is
/// written only then.
fn check(
    what: impl FnOnce() -> String,
    expected: u64,
    found: Option<u64>,
) -> Result<(), LayoutError> {
    match found {
        Some(found) if found != expected => Err(LayoutError::Inconsistent {
            what: what(),
            expected,
            found,
        }),
        _ => Ok(()),
    }
}

impl StructFormatDe {
    fn build(self, limits: &DeclarationLimits) -> Result<GpuDataStructFormat, String> {
        if let Some(kind) = self.kind.as_ref().filter(|kind| *kind != "struct") {
            return Err(format!("expected \"type\": \"struct\", found \"{kind}\""));
        }
        let (declared, stated): (Vec<_>, Vec<_>) = self
            .fields
            .0
            .into_iter()
            .map(|(name, field)| ((name, field.format), (field.byte_offset, field.byte_length)))
            .unzip();
        let format = GpuDataStructFormat::with_limits(self.layout, declared, limits)
            .map_err(|e| e.to_string())?;
        let verify = || -> Result<(), LayoutError> {
            for ((byte_offset, byte_length), field) in stated.iter().zip(format.fields()) {
                let name = field.name();
                check(
                    || format!("byteOffset of field `{name}`"),
                    field.byte_offset(),
                    *byte_offset,
                )?;
                check(
                    || format!("byteLength of field `{name}`"),
                    field.byte_length(),
                    *byte_length,
                )?;
            }
            check(
                || "components".to_owned(),
                u64::from(format.components()),
                self.components,
            )?;
            check(
                || "byteStride".to_owned(),
                format.byte_stride(),
                self.byte_stride,
            )?;
            check(
                || "rowByteLength".to_owned(),
                format.row_byte_length(),
                self.row_byte_length,
            )
        };
        verify().map_err(|e| e.to_string())?;
        Ok(format)
    }
}

impl<'de> Deserialize<'de> for GpuDataStructFormat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        GpuDataStructFormat::deserialize_with_limits(deserializer, &DeclarationLimits::DEFAULT)
    }
}

impl GpuDataStructFormat {
    /// Reads a struct format (luma.gl's JSON shape, as `Deserialize` does) with at most
    /// `limits.max_fields` fields: the `fields` object is refused as soon as it has more, before
    /// the rest of the document is read. `Deserialize` uses
    /// [`DeclarationLimits::DEFAULT`].
    ///
    /// ```
    /// use gpudata::GpuDataStructFormat;
    /// use gpudata::layout::DeclarationLimits;
    ///
    /// let text = r#"{"layout": "packed", "fields": {"a": {"format": "float32"}, "b": {"format": "uint8x4"}}}"#;
    /// let small = DeclarationLimits { max_fields: 1, ..DeclarationLimits::DEFAULT };
    /// let refused = GpuDataStructFormat::deserialize_with_limits(
    ///     &mut serde_json::Deserializer::from_str(text),
    ///     &small,
    /// );
    /// assert!(refused.unwrap_err().to_string().contains("more than 1 fields"));
    /// let format: GpuDataStructFormat = serde_json::from_str(text)?;
    /// assert_eq!(format.byte_stride(), 8);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    ///
    /// # Errors
    /// The deserializer's error: input of another shape, unknown keys, a
    /// [`LayoutError`] of the fields (its message), stated numbers that disagree with the
    /// layout.
    pub fn deserialize_with_limits<'de, D: Deserializer<'de>>(
        deserializer: D,
        limits: &DeclarationLimits,
    ) -> Result<GpuDataStructFormat, D::Error> {
        StructFormatSeed { limits }
            .deserialize(deserializer)?
            .build(limits)
            .map_err(de::Error::custom)
    }
}
