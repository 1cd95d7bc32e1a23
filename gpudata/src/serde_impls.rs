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

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::format::{GpuVectorFormat, ShaderType, VertexFormat};
use crate::layout::LayoutError;
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

/// The `fields` object, kept in document order.
struct OrderedFields(Vec<(String, FieldDe)>);

impl<'de> Deserialize<'de> for OrderedFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedFields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of fields in declaration order")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedFields, A::Error> {
                let mut fields = Vec::new();
                while let Some((name, field)) = map.next_entry::<String, FieldDe>()? {
                    fields.push((name, field));
                }
                Ok(OrderedFields(fields))
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StructFormatDe {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    layout: StructLayout,
    fields: OrderedFields,
    components: Option<u64>,
    byte_stride: Option<u64>,
    row_byte_length: Option<u64>,
}

fn check(what: impl Into<String>, expected: u64, found: Option<u64>) -> Result<(), LayoutError> {
    match found {
        Some(found) if found != expected => Err(LayoutError::Inconsistent {
            what: what.into(),
            expected,
            found,
        }),
        _ => Ok(()),
    }
}

impl StructFormatDe {
    fn build(self) -> Result<GpuDataStructFormat, String> {
        if let Some(kind) = self.kind.as_ref().filter(|kind| *kind != "struct") {
            return Err(format!("expected \"type\": \"struct\", found \"{kind}\""));
        }
        let declared: Vec<(String, VertexFormat)> = self
            .fields
            .0
            .iter()
            .map(|(name, field)| (name.clone(), field.format))
            .collect();
        let format = GpuDataStructFormat::new(self.layout, declared).map_err(|e| e.to_string())?;
        let verify = || -> Result<(), LayoutError> {
            for ((name, stated), field) in self.fields.0.iter().zip(format.fields()) {
                check(
                    format!("byteOffset of field `{name}`"),
                    field.byte_offset(),
                    stated.byte_offset,
                )?;
                check(
                    format!("byteLength of field `{name}`"),
                    field.byte_length(),
                    stated.byte_length,
                )?;
            }
            check(
                "components",
                u64::from(format.components()),
                self.components,
            )?;
            check("byteStride", format.byte_stride(), self.byte_stride)?;
            check(
                "rowByteLength",
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
        StructFormatDe::deserialize(deserializer)?
            .build()
            .map_err(de::Error::custom)
    }
}
