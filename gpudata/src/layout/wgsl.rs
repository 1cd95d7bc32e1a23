//! WGSL struct text whose storage layout equals a [`GpuDataStructFormat`], and the runtime's
//! errors for names WGSL cannot use (the rule itself is the `gpudata-names` crate's).

use std::fmt::Write as _;

use super::GpuDataStructFormat;
use crate::format::VertexFormat;
use crate::layout::WgslError;

/// The rule for a struct's name, a module-scope declaration: [`check_name`], and not a
/// predeclared name it would shadow ([`WgslError::PredeclaredName`]). Member names only follow
/// [`check_name`]: they live in their struct and shadow nothing (`length` is a fine member).
pub(crate) fn check_struct_name(name: &str) -> Result<(), WgslError> {
    check_name(name)?;
    if gpudata_names::is_predeclared(name) {
        return Err(WgslError::PredeclaredName {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The one WGSL identifier rule with its one error: `gpudata_names::wgsl_identifier_problem`
/// (ASCII letters, digits and `_`, not starting with a digit, not `_` alone, not starting with
/// `__`, not a keyword or reserved word), or [`WgslError::InvalidName`] naming `name`. Struct
/// and member names and the prefixes of the table's generated bindings and accessors all go
/// through it; the derive applies the same function to the fields of `wgsl-storage` and
/// `wgsl-uniform` structs at compile time.
pub(crate) fn check_name(name: &str) -> Result<(), WgslError> {
    if gpudata_names::wgsl_identifier_problem(name).is_none() {
        Ok(())
    } else {
        Err(WgslError::InvalidName {
            name: name.to_owned(),
        })
    }
}

/// The WGSL expression that decodes a carrier member into the value vertex fetch would deliver,
/// for formats whose carrier holds raw bits (`None` for 32-bit formats, which need no decoding).
const fn decode_hint(format: VertexFormat) -> Option<&'static str> {
    match format {
        VertexFormat::Unorm8x4 => Some("unpack4x8unorm({m})"),
        VertexFormat::Unorm8x4Bgra => Some("unpack4x8unorm({m}).zyxw"),
        VertexFormat::Snorm8x4 => Some("unpack4x8snorm({m})"),
        VertexFormat::Unorm16x2 => Some("unpack2x16unorm({m})"),
        VertexFormat::Snorm16x2 => Some("unpack2x16snorm({m})"),
        VertexFormat::Float16x2 => Some("unpack2x16float({m})"),
        VertexFormat::Float16x4 => Some("vec4(unpack2x16float({m}.x), unpack2x16float({m}.y))"),
        VertexFormat::Uint8x4 => Some("unpack4xU8({m})"),
        VertexFormat::Sint8x4 => Some("unpack4xI8({m})"),
        _ => None,
    }
}

impl GpuDataStructFormat {
    /// WGSL text declaring struct `name` whose storage-buffer layout is exactly this format: the
    /// same member offsets, and a size equal to [`byte_stride`](Self::byte_stride), so
    /// `array<name>` in a storage buffer steps row by row.
    ///
    /// Each field becomes a member of its WGSL carrier type
    /// ([`VertexFormat::wgsl_carrier`]): `f32`/`i32`/`u32`/`vecN` for 32-bit formats, one `u32`
    /// or a `vec2<u32>` of raw bits for every other format (a comment names the format and, where
    /// WGSL has one, the built-in that decodes it). Where a member must end later than its
    /// carrier (a gap before the next field, or trailing padding up to the stride) it gets an
    /// explicit `@size`. `@align` is never needed: WGSL can only raise alignment, which cannot
    /// move a member earlier or shrink the struct.
    ///
    /// A `wgsl-storage` format always has WGSL text. A `packed` format has one when its
    /// offsets happen to be WGSL's (e.g. `{tag: uint8, value: float32}`); otherwise the error
    /// names the first field WGSL cannot place.
    ///
    /// ```
    /// use gpudata::{GpuDataStructFormat, StructLayout};
    ///
    /// let format = GpuDataStructFormat::parse(
    ///     StructLayout::WgslStorage,
    ///     [("tag", "uint8"), ("position", "float32x3"), ("color", "unorm8x4")],
    /// )?;
    /// let wgsl = format.wgsl_struct("Row")?;
    /// assert!(wgsl.contains("position: vec3<f32>,"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WgslError::InvalidName`] for a struct or field name WGSL cannot use,
    /// [`WgslError::PredeclaredName`] for a struct name WGSL predeclares (`f32`, `array`);
    /// [`WgslError::Misaligned`] for a field off its carrier's alignment;
    /// [`WgslError::Unreachable`] for a field inside the previous member's carrier (or a first
    /// field not at 0); [`WgslError::Stride`] for a stride WGSL cannot give the struct.
    pub fn wgsl_struct(&self, name: &str) -> Result<String, WgslError> {
        check_struct_name(name)?;
        struct Member<'f> {
            name: &'f str,
            format: VertexFormat,
            offset: u64,
            carrier_size: u64,
            size: Option<u64>,
        }
        let mut members: Vec<Member<'_>> = Vec::with_capacity(self.fields().len());
        let mut end = 0u64;
        let mut max_align = 1u64;
        for field in self.fields() {
            check_name(field.name())?;
            let carrier = field.format().wgsl_carrier();
            let (align, size) = (carrier.byte_align(), carrier.byte_size());
            let offset = field.byte_offset();
            if offset % align != 0 {
                return Err(WgslError::Misaligned {
                    field: field.name().to_owned(),
                    byte_offset: offset,
                    carrier: carrier.to_string(),
                    alignment: align,
                });
            }
            // `end` and `offset` are at most the stride: no overflow.
            let natural = end.div_ceil(align) * align;
            if offset < natural || (members.is_empty() && offset > 0) {
                return Err(WgslError::Unreachable {
                    field: field.name().to_owned(),
                    byte_offset: offset,
                    wgsl_offset: natural,
                });
            }
            if offset > natural {
                // Stretch the previous member over the gap.
                if let Some(previous) = members.last_mut() {
                    previous.size = Some(offset - previous.offset);
                }
            }
            members.push(Member {
                name: field.name(),
                format: field.format(),
                offset,
                carrier_size: size,
                size: None,
            });
            end = offset + size;
            max_align = max_align.max(align);
        }
        let natural_size = end.div_ceil(max_align) * max_align;
        let stride = self.byte_stride();
        if stride < natural_size || !stride.is_multiple_of(max_align) {
            return Err(WgslError::Stride {
                byte_stride: stride,
                alignment: max_align,
                minimum: natural_size,
            });
        }
        if let Some(last) = members.last_mut().filter(|_| stride > natural_size) {
            last.size = Some(stride - last.offset);
        }

        let mut out = String::new();
        let _ = writeln!(
            out,
            "// {} layout: {} bytes per row, generated by gpudata",
            self.layout(),
            stride
        );
        let _ = writeln!(out, "struct {name} {{");
        for member in &members {
            let carrier = member.format.wgsl_carrier();
            let size = match member.size {
                Some(size) if size != member.carrier_size => format!("@size({size}) "),
                _ => String::new(),
            };
            let _ = write!(out, "    {size}{}: {carrier},", member.name);
            let native = matches!(
                member.format.data_type(),
                crate::format::DataType::Float32
                    | crate::format::DataType::Sint32
                    | crate::format::DataType::Uint32
            ) && !member.format.is_packed_bits();
            if !native {
                let _ = write!(out, " // {}", member.format);
                if let Some(hint) = decode_hint(member.format) {
                    let _ = write!(out, ": {}", hint.replace("{m}", member.name));
                }
            }
            out.push('\n');
        }
        out.push_str("}\n");
        Ok(out)
    }
}
