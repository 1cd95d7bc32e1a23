//! What the `#[derive(GpuStruct)]` expansion names, through `::gpudata::__private`. Not a public
//! API: nothing here is covered by semver.
//!
//! The expansion describes a struct (names, type sizes, formats, declared assertions) in a
//! [`Facts`] constant; everything computed from it (offsets through the layout engine, checks
//! and their messages) is a `const fn` here, so the macro never computes a layout and every
//! compile-time message is written in one place.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

pub use ::bytemuck;
pub use ::core;
pub use ::wgpu;

pub use super::{GpuField, GpuFieldMarker, GpuFieldOf, GpuStruct};
pub use crate::format::VertexFormat;
pub use crate::layout::{
    ConstLayout, GpuDataStructField, GpuDataStructFormat, LayoutRuleError, RowShape, StepMode,
    StructLayout, layout_formats,
};

/// A compile-time message: a fixed buffer that `const fn`s append text and numbers to.
#[derive(Clone, Copy)]
pub struct Msg {
    buf: [u8; Msg::CAPACITY],
    len: usize,
}

impl Msg {
    const CAPACITY: usize = 640;

    /// An empty message.
    #[must_use]
    pub const fn new() -> Msg {
        Msg {
            buf: [0; Msg::CAPACITY],
            len: 0,
        }
    }

    /// Appends `s` whole, or nothing when it does not fit (so the text stays UTF-8).
    #[must_use]
    pub const fn str(mut self, s: &str) -> Msg {
        let bytes = s.as_bytes();
        if self.len + bytes.len() > Msg::CAPACITY {
            return self;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
        self
    }

    /// Appends `n` in decimal.
    #[must_use]
    pub const fn num(self, n: u64) -> Msg {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = n;
        loop {
            start -= 1;
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let (_, used) = digits.split_at(start);
        match core::str::from_utf8(used) {
            Ok(s) => self.str(s),
            Err(_) => self,
        }
    }

    /// The text.
    #[must_use]
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(_) => "",
        }
    }
}

impl Default for Msg {
    fn default() -> Msg {
        Msg::new()
    }
}

/// Which token of a field a problem is reported at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The `format = "..."` string (or the type when there is none).
    Format,
    /// The field's type.
    Type,
    /// The `offset = N` literal.
    Offset,
}

/// What the expansion states about a struct's GPU fields, in declaration order.
#[derive(Clone, Copy)]
pub struct Facts<const N: usize> {
    /// The layout rules.
    pub layout: StructLayout,
    /// Field names in the struct format.
    pub names: [&'static str; N],
    /// Field types as written.
    pub types: [&'static str; N],
    /// `size_of` each field type.
    pub sizes: [usize; N],
    /// The `format = "..."` strings.
    pub requested: [Option<&'static str>; N],
    /// Each field's format (the requested one when it exists, else the type's).
    pub formats: [VertexFormat; N],
    /// The `offset = N` assertions.
    pub declared_offsets: [Option<u64>; N],
    /// The `stride = N` assertion.
    pub declared_stride: Option<u64>,
}

const EMPTY_SHAPE: RowShape = RowShape {
    components: 0,
    row_byte_length: 0,
    byte_stride: 0,
    alignment: 1,
};

/// `Some(format)`'s format, else `fallback` (an unknown `format = "..."` string is reported by
/// [`Facts::field_problem`]; the layout goes on with the type's format so nothing cascades).
#[must_use]
pub const fn format_or(found: Option<VertexFormat>, fallback: VertexFormat) -> VertexFormat {
    match found {
        Some(format) => format,
        None => fallback,
    }
}

impl<const N: usize> Facts<N> {
    /// The layout engine's answer.
    ///
    /// # Errors
    /// As [`layout_formats`].
    pub const fn result(&self) -> Result<ConstLayout<N>, LayoutRuleError> {
        layout_formats(self.layout, &self.formats)
    }

    /// The layout, or zeros when the engine refused the fields (reported per field).
    #[must_use]
    pub const fn layout_or_zero(&self) -> ConstLayout<N> {
        match self.result() {
            Ok(layout) => layout,
            Err(_) => ConstLayout {
                offsets: [0; N],
                shape: EMPTY_SHAPE,
            },
        }
    }

    /// Whether every field is well formed and the engine laid them out: later checks (declared
    /// offsets and stride, zero-copy) run only then, so one mistake gives one error.
    #[must_use]
    pub const fn valid(&self) -> bool {
        let mut k = 0;
        while k < N {
            if self.format_problem(k).is_some() || self.size_problem(k).is_some() {
                return false;
            }
            k += 1;
        }
        self.result().is_ok()
    }

    const fn format_problem(&self, k: usize) -> Option<Msg> {
        let Some(requested) = self.requested[k] else {
            return None;
        };
        if VertexFormat::from_name(requested).is_some() {
            return None;
        }
        let msg = Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("`: unsupported vertex format `")
            .str(requested)
            .str("`; expected a WebGPU vertex format such as `float32x3`, `unorm8x4`, `snorm16x2`, `float16x4`, `unorm10-10-10-2` or `uint16x3-webgl`");
        Some(msg)
    }

    const fn size_problem(&self, k: usize) -> Option<Msg> {
        let format = self.formats[k];
        let size = self.sizes[k] as u64;
        if size == format.byte_length() {
            return None;
        }
        let msg = Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("` is `")
            .str(self.types[k])
            .str("` (")
            .num(size)
            .str(" bytes), but format `")
            .str(format.as_str())
            .str("` is ")
            .num(format.byte_length())
            .str(" bytes; ");
        let msg = if self.requested[k].is_some() {
            msg.str("use a format of ")
                .num(size)
                .str(" bytes or a field type of ")
                .num(format.byte_length())
                .str(" bytes")
        } else {
            msg.str("the `GpuField` impl of `")
                .str(self.types[k])
                .str("` must name a format as long as the type")
        };
        Some(msg)
    }

    const fn layout_problem(&self, k: usize) -> Option<Msg> {
        match self.result() {
            Err(LayoutRuleError::WebglOnlyInPacked { index, format }) if index == k => Some(
                Msg::new()
                    .str("field `")
                    .str(self.names[k])
                    .str("` uses WebGL-only format `")
                    .str(format.as_str())
                    .str("`, which the packed layout (WebGPU vertex rules) cannot hold; use a 2- or 4-component type or format, or `#[gpu(layout = \"wgsl-storage\")]`"),
            ),
            Err(LayoutRuleError::Overflow { index }) if index == k => Some(
                Msg::new()
                    .str("field `")
                    .str(self.names[k])
                    .str("`: struct offsets overflow u64"),
            ),
            _ => None,
        }
    }

    const fn offset_problem(&self, k: usize) -> Option<Msg> {
        let Some(declared) = self.declared_offsets[k] else {
            return None;
        };
        let actual = self.layout_or_zero().offsets[k];
        if !self.valid() || declared == actual {
            return None;
        }
        Some(
            Msg::new()
                .str("field `")
                .str(self.names[k])
                .str("` is declared at `offset = ")
                .num(declared)
                .str("`, but the ")
                .str(self.layout.as_str())
                .str(" layout places it at byte ")
                .num(actual)
                .str("; fix the assertion or the fields before it"),
        )
    }

    /// The first problem of field `k` and the token to report it at.
    #[must_use]
    pub const fn field_problem(&self, k: usize) -> Option<(Problem, Msg)> {
        if let Some(msg) = self.format_problem(k) {
            return Some((Problem::Format, msg));
        }
        if let Some(msg) = self.size_problem(k) {
            let at = if self.requested[k].is_some() {
                Problem::Format
            } else {
                Problem::Type
            };
            return Some((at, msg));
        }
        if let Some(msg) = self.layout_problem(k) {
            let at = if self.requested[k].is_some() {
                Problem::Format
            } else {
                Problem::Type
            };
            return Some((at, msg));
        }
        if let Some(msg) = self.offset_problem(k) {
            return Some((Problem::Offset, msg));
        }
        None
    }

    /// A `stride = N` assertion that the layout contradicts.
    #[must_use]
    pub const fn stride_problem(&self) -> Option<Msg> {
        let Some(declared) = self.declared_stride else {
            return None;
        };
        let actual = self.layout_or_zero().shape.byte_stride;
        if !self.valid() || declared == actual {
            return None;
        }
        Some(
            Msg::new()
                .str("the struct is declared with `stride = ")
                .num(declared)
                .str("`, but the ")
                .str(self.layout.as_str())
                .str(" layout gives a byte stride of ")
                .num(actual)
                .str("; fix the assertion or the fields"),
        )
    }

    /// The vertex attributes, locations counted from `base_location`; empty when a field has no
    /// wgpu vertex format (a `-webgl` format in a wgsl-storage struct).
    #[must_use]
    pub const fn vertex_attributes(
        &self,
        base_location: u32,
    ) -> ([wgpu::VertexAttribute; N], usize) {
        let layout = self.layout_or_zero();
        let mut out = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32,
            offset: 0,
            shader_location: 0,
        }; N];
        let mut k = 0;
        while k < N {
            let Some(format) = self.formats[k].to_wgpu() else {
                return (out, 0);
            };
            out[k] = wgpu::VertexAttribute {
                format,
                offset: layout.offsets[k],
                shader_location: base_location.saturating_add(k as u32),
            };
            k += 1;
        }
        (out, N)
    }
}

/// A `u64` offset or length of one row as `usize`.
#[must_use]
pub const fn to_usize(value: u64) -> usize {
    value as usize
}

/// Every offset as `usize`.
#[must_use]
pub const fn offsets_usize<const N: usize>(offsets: &[u64; N]) -> [usize; N] {
    let mut out = [0usize; N];
    let mut k = 0;
    while k < N {
        out[k] = offsets[k] as usize;
        k += 1;
    }
    out
}

/// The first `len` attributes, as a `'static` slice.
#[must_use]
pub const fn attributes_prefix<const N: usize>(
    attributes: &'static [wgpu::VertexAttribute; N],
    len: usize,
) -> &'static [wgpu::VertexAttribute] {
    attributes.split_at(len).0
}

/// One host field of a `#[repr(C)]` struct, GPU or padding, in declaration order.
#[derive(Clone, Copy)]
pub struct HostField {
    /// The Rust field name.
    pub name: &'static str,
    /// `offset_of!` the field.
    pub offset: usize,
    /// `size_of` its type.
    pub size: usize,
    /// Its GPU offset; `None` for `#[gpu(padding)]` fields.
    pub gpu_offset: Option<u64>,
}

/// Why a `#[repr(C)]` struct's bytes are not its GPU rows: the index of the host field to report
/// at (`fields.len()` for the struct's end) and the message; `None` when they are.
#[must_use]
pub const fn zero_copy_problem(
    fields: &[HostField],
    host_size: usize,
    byte_stride: u64,
) -> Option<(usize, Msg)> {
    const HEAD: &str = "`#[gpu(zero_copy)]`: ";
    let mut at = 0usize;
    let mut j = 0;
    while j < fields.len() {
        let field = fields[j];
        if let Some(gpu) = field.gpu_offset {
            let gpu = gpu as usize;
            if field.offset < gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; add `#[gpu(padding)] _pad: [u8; ")
                    .num((gpu - at) as u64)
                    .str("]` before `")
                    .str(field.name)
                    .str("`");
                return Some((j, msg));
            }
            if field.offset > gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; the host places it later, so remove host-only fields before it or use a field type with a smaller alignment (such as an array)");
                return Some((j, msg));
            }
        }
        if field.offset > at {
            let msg = Msg::new()
                .str(HEAD)
                .str("the host struct has ")
                .num((field.offset - at) as u64)
                .str(" bytes of implicit padding before field `")
                .str(field.name)
                .str("`; make them explicit with `#[gpu(padding)] _pad: [u8; ")
                .num((field.offset - at) as u64)
                .str("]` before `")
                .str(field.name)
                .str("`");
            return Some((j, msg));
        }
        at = field.offset + field.size;
        j += 1;
    }
    let stride = byte_stride as usize;
    if host_size > stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the host struct is ")
            .num(host_size as u64)
            .str(" bytes but the gpu byte stride is ")
            .num(byte_stride)
            .str("; remove host-only fields or `#[repr(align)]` so the struct is ")
            .num(byte_stride)
            .str(" bytes");
        return Some((fields.len(), msg));
    }
    if at < stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the gpu byte stride is ")
            .num(byte_stride)
            .str(" but the host fields end at byte ")
            .num(at as u64)
            .str("; add `#[gpu(padding)] _pad: [u8; ")
            .num((stride - at) as u64)
            .str("]` after the last field");
        return Some((fields.len(), msg));
    }
    None
}

/// The problem of `zero_copy_problem` if it is at host field `j`.
#[must_use]
pub const fn zero_copy_problem_at(problem: &Option<(usize, Msg)>, j: usize) -> Option<&Msg> {
    match problem {
        Some((at, msg)) if *at == j => Some(msg),
        _ => None,
    }
}

/// The struct format of a derive that failed (the compile error is already reported).
pub const FALLBACK_FORMAT: GpuDataStructFormat =
    GpuDataStructFormat::from_static(StructLayout::WgslStorage, &[], EMPTY_SHAPE);

/// A type a host-only `#[gpu(padding)]` field may have: plain data, so the struct's bytes stay
/// initialized and the field can decode as zeros.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[gpu(padding)]` field",
    label = "not plain data",
    note = "padding fields must be `bytemuck::Pod` (every byte initialized, any bit pattern valid), such as `[u8; N]` or `u32`"
)]
pub trait PaddingField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PaddingField for T {}

/// `dst` as one row of `N` bytes.
///
/// # Panics
/// When `dst.len() != N`.
#[inline]
#[must_use]
#[track_caller]
pub fn row_mut<const N: usize>(dst: &mut [u8]) -> &mut [u8; N] {
    let len = dst.len();
    match dst.try_into() {
        Ok(row) => row,
        Err(_) => wrong_length("encode_row", "exactly", N, len),
    }
}

/// The first `N` bytes of `src`.
///
/// # Panics
/// When `src.len() < N`.
#[inline]
#[must_use]
#[track_caller]
pub fn row_ref<const N: usize>(src: &[u8]) -> &[u8; N] {
    match src.first_chunk::<N>() {
        Some(row) => row,
        None => wrong_length("decode_row", "at least", N, src.len()),
    }
}

#[cold]
#[track_caller]
fn wrong_length(what: &str, how: &str, expected: usize, found: usize) -> ! {
    panic!("{what} needs {how} {expected} bytes (one gpu row), got {found}")
}

/// Writes `value`'s bytes at `offset`.
#[inline(always)]
pub fn write_field<const N: usize, T: GpuField>(dst: &mut [u8; N], offset: usize, value: &T) {
    dst[offset..offset + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(value));
}

/// Reads a `T` from the bytes at `offset`.
#[inline(always)]
#[must_use]
pub fn read_field<const N: usize, T: GpuField>(src: &[u8; N], offset: usize) -> T {
    bytemuck::pod_read_unaligned(&src[offset..offset + size_of::<T>()])
}

/// An all-zero value for a host-only `#[gpu(padding)]` field.
#[inline(always)]
#[must_use]
pub fn zeroed<T: PaddingField>() -> T {
    bytemuck::Zeroable::zeroed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_format_numbers_and_text() {
        let m = Msg::new()
            .str("a ")
            .num(0)
            .str(" b ")
            .num(1234)
            .str(" ")
            .num(u64::MAX);
        assert_eq!(m.as_str(), "a 0 b 1234 18446744073709551615");
    }

    #[test]
    fn zero_copy_problem_names_the_field_and_the_padding() {
        let fields = [
            HostField {
                name: "a",
                offset: 0,
                size: 4,
                gpu_offset: Some(0),
            },
            HostField {
                name: "b",
                offset: 4,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fields, 16, 32).unwrap();
        assert_eq!(at, 1);
        assert!(
            msg.as_str()
                .contains("add `#[gpu(padding)] _pad: [u8; 12]` before `b`")
        );
        let fixed = [
            fields[0],
            HostField {
                name: "_pad",
                offset: 4,
                size: 12,
                gpu_offset: None,
            },
            HostField {
                name: "b",
                offset: 16,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fixed, 28, 32).unwrap();
        assert_eq!(at, 3);
        assert!(
            msg.as_str().contains("[u8; 4]` after the last field"),
            "{}",
            msg.as_str()
        );
        assert!(zero_copy_problem(&fixed, 28, 28).is_none());
    }
}
