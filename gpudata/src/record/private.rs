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

pub use super::shader::{ShaderInput, ShaderMember, input_problem, member_problem, stride_problem};
pub use super::{FieldCopy, GpuField, GpuFieldMarker, GpuFieldOf, GpuStruct};
pub use crate::format::{PrimitiveType, ShaderType, VertexFormat};
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

/// Where a compile-time problem is reported: the token of a field or attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    /// The `format = "..."` string of gpu field `k`.
    Format(usize),
    /// The type of gpu field `k`.
    Type(usize),
    /// The `offset = N` literal of gpu field `k`.
    Offset(usize),
    /// The `stride = N` literal.
    Stride,
    /// Host field `j` (gpu or padding, in declaration order), for `zero_copy`.
    ZeroCopyField(usize),
    /// The `zero_copy` key, for problems at the struct's end.
    ZeroCopyEnd,
}

/// The host side of a `#[repr(C)]` struct: its fields in declaration order and its size.
#[derive(Clone, Copy)]
pub struct HostFacts<const M: usize> {
    /// Every field, gpu and padding.
    pub fields: [HostField; M],
    /// `size_of` the struct.
    pub size: usize,
}

/// What the expansion states about a struct: `N` gpu fields in declaration order and, for
/// `#[repr(C)]` structs, `M` host fields.
#[derive(Clone, Copy)]
pub struct Facts<const N: usize, const M: usize> {
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
    /// The host layout, given for `#[gpu(zero_copy)]` structs, whose check runs eagerly.
    pub host: Option<HostFacts<M>>,
    /// Whether `#[gpu(zero_copy)]` makes a differing host layout an error.
    pub zero_copy: bool,
    /// Whether the expansion reports problems itself, from a `const` evaluated for every struct
    /// (spanned at the user's tokens). When `false` (fields of plain scalar types with nothing
    /// asserted, where no problem is expected) the analysis is evaluated only when a `GpuStruct`
    /// const is used, and fails there on any problem, so nothing unchecked is ever used.
    pub reported_by_caller: bool,
}

/// Holds a struct's [`Analysis`] as an associated const, so it is evaluated on first use only
/// (a free `const` is evaluated for every struct, used or not).
pub trait Analyzed<const N: usize> {
    /// The analysis.
    const ANALYSIS: Analysis<N>;
}

/// What the checks need, computed once per struct from its [`Facts`]. Only this and the check
/// reading it are evaluated for every derived struct; the vertex attributes and the host-layout
/// verdict are computed where the `GpuStruct` consts that use them are, on first use.
#[derive(Clone, Copy)]
pub struct Analysis<const N: usize> {
    /// Offsets and totals (zeros when there is a problem, which fails the build).
    pub layout: ConstLayout<N>,
    /// Each field's format.
    pub formats: [VertexFormat; N],
    /// Each field's name in the struct format.
    pub names: [&'static str; N],
    /// Whether the fields are well formed and laid out (assertions aside).
    pub valid: bool,
    /// For `zero_copy` structs: whether the host bytes are the gpu rows.
    pub host_matches: bool,
    /// The first problem, where to report it, and the message.
    pub problem: Option<(Spot, Msg)>,
}

const EMPTY_SHAPE: RowShape = RowShape {
    components: 0,
    row_byte_length: 0,
    byte_stride: 0,
    alignment: 1,
};

/// `Some(format)`'s format, else `fallback` (an unknown `format = "..."` string is reported by
/// [`analyze`]; the layout goes on with the type's format so nothing cascades).
#[must_use]
pub const fn format_or(found: Option<VertexFormat>, fallback: VertexFormat) -> VertexFormat {
    match found {
        Some(format) => format,
        None => fallback,
    }
}

/// Fails compilation with `msg`, reported at the caller (the expansion spans the call at the
/// user's token).
#[track_caller]
pub const fn fail(msg: &Msg) -> ! {
    panic!("{}", msg.as_str())
}

impl<const N: usize, const M: usize> Facts<N, M> {
    const fn unknown_format(&self, k: usize, requested: &str) -> Msg {
        Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("`: unsupported vertex format `")
            .str(requested)
            .str("`; expected a WebGPU vertex format such as `float32x3`, `unorm8x4`, `snorm16x2`, `float16x4`, `unorm10-10-10-2` or `uint16x3-webgl`")
    }

    const fn size_mismatch(&self, k: usize, format_len: u64) -> Msg {
        let size = self.sizes[k] as u64;
        let msg = Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("` is `")
            .str(self.types[k])
            .str("` (")
            .num(size)
            .str(" bytes), but format `")
            .str(self.formats[k].as_str())
            .str("` is ")
            .num(format_len)
            .str(" bytes; ");
        if self.requested[k].is_some() {
            msg.str("use a format of ")
                .num(size)
                .str(" bytes or a field type of ")
                .num(format_len)
                .str(" bytes")
        } else {
            msg.str("the `GpuField` impl of `")
                .str(self.types[k])
                .str("` must name a format as long as the type")
        }
    }

    const fn layout_problem(&self, error: LayoutRuleError) -> (usize, Msg) {
        match error {
            LayoutRuleError::WebglOnlyInPacked { index, format } => (
                index,
                Msg::new()
                    .str("field `")
                    .str(self.names[index])
                    .str("` uses WebGL-only format `")
                    .str(format.as_str())
                    .str("`, which the packed layout (WebGPU vertex rules) cannot hold; use a 2- or 4-component type or format, or `#[gpu(layout = \"wgsl-storage\")]`"),
            ),
            LayoutRuleError::Overflow { index } => (
                index,
                Msg::new()
                    .str("field `")
                    .str(self.names[index])
                    .str("`: struct offsets overflow u64"),
            ),
            LayoutRuleError::NoFields | LayoutRuleError::DuplicateName { .. } => {
                (0, Msg::new().str(error.message()))
            }
        }
    }

    /// The first problem of the fields themselves (formats, sizes, layout rules). Written with
    /// few calls: every call costs in the compile-time interpreter, once per derived struct.
    const fn field_problem(
        &self,
        result: &Result<ConstLayout<N>, LayoutRuleError>,
    ) -> Option<(Spot, Msg)> {
        let mut k = 0;
        while k < N {
            let spot = match self.requested[k] {
                Some(requested) => {
                    if VertexFormat::from_name(requested).is_none() {
                        return Some((Spot::Format(k), self.unknown_format(k, requested)));
                    }
                    Spot::Format(k)
                }
                None => Spot::Type(k),
            };
            let format_len = self.formats[k].byte_length();
            if self.sizes[k] as u64 != format_len {
                return Some((spot, self.size_mismatch(k, format_len)));
            }
            k += 1;
        }
        match result {
            Ok(_) => None,
            Err(error) => {
                let (index, msg) = self.layout_problem(*error);
                let spot = if self.requested[index].is_some() {
                    Spot::Format(index)
                } else {
                    Spot::Type(index)
                };
                Some((spot, msg))
            }
        }
    }

    /// The first declared `offset = N` or `stride = N` that the layout contradicts.
    const fn assertion_problem(&self, layout: &ConstLayout<N>) -> Option<(Spot, Msg)> {
        let mut k = 0;
        while k < N {
            if let Some(declared) = self.declared_offsets[k]
                && declared != layout.offsets[k]
            {
                let msg = Msg::new()
                    .str("field `")
                    .str(self.names[k])
                    .str("` is declared at `offset = ")
                    .num(declared)
                    .str("`, but the ")
                    .str(self.layout.as_str())
                    .str(" layout places it at byte ")
                    .num(layout.offsets[k])
                    .str("; fix the assertion or the fields before it");
                return Some((Spot::Offset(k), msg));
            }
            k += 1;
        }
        if let Some(declared) = self.declared_stride
            && declared != layout.shape.byte_stride
        {
            let msg = Msg::new()
                .str("the struct is declared with `stride = ")
                .num(declared)
                .str("`, but the ")
                .str(self.layout.as_str())
                .str(" layout gives a byte stride of ")
                .num(layout.shape.byte_stride)
                .str("; fix the assertion or the fields");
            return Some((Spot::Stride, msg));
        }
        None
    }
}

/// Lays out the struct through the runtime's engine and checks everything the expansion
/// asserts, once.
///
/// # Panics
/// On a problem, unless `facts.reported_by_caller`, at the caller.
#[must_use]
#[track_caller]
pub const fn analyze<const N: usize, const M: usize>(facts: &Facts<N, M>) -> Analysis<N> {
    let result = layout_formats(facts.layout, &facts.formats);
    let mut problem = facts.field_problem(&result);
    let layout = match (&result, &problem) {
        (Ok(layout), None) => *layout,
        _ => ConstLayout {
            offsets: [0; N],
            shape: EMPTY_SHAPE,
        },
    };
    let valid = problem.is_none();
    if valid {
        problem = facts.assertion_problem(&layout);
    }

    let mut host_matches = false;
    if let Some(host) = &facts.host {
        let zero_copy = host_problem(&layout, host);
        host_matches = valid && zero_copy.is_none();
        if valid
            && facts.zero_copy
            && problem.is_none()
            && let Some((at, msg)) = zero_copy
        {
            let spot = if at < M {
                Spot::ZeroCopyField(at)
            } else {
                Spot::ZeroCopyEnd
            };
            problem = Some((spot, msg));
        }
    }

    if !facts.reported_by_caller
        && let Some((_, msg)) = &problem
    {
        fail(msg);
    }

    Analysis {
        layout,
        formats: facts.formats,
        names: facts.names,
        valid,
        host_matches,
        problem,
    }
}

/// Why the host bytes of a `#[repr(C)]` struct are not its gpu rows (see [`zero_copy_problem`]).
const fn host_problem<const N: usize, const M: usize>(
    layout: &ConstLayout<N>,
    host: &HostFacts<M>,
) -> Option<(usize, Msg)> {
    let mut fields = host.fields;
    // Fill in the gpu offsets: host fields name gpu fields by index.
    let mut j = 0;
    while j < M {
        if let Some(k) = fields[j].gpu_index {
            fields[j].gpu_offset = Some(layout.offsets[k]);
        }
        j += 1;
    }
    zero_copy_problem(&fields, host.size, layout.shape.byte_stride)
}

/// Whether a `#[repr(C)]` struct's host bytes are its gpu rows (`HOST_LAYOUT_MATCHES`): every gpu
/// field at its gpu offset, the struct as long as the stride, and the fields' sizes (gpu fields'
/// formats plus `padding_sizes`, the `#[gpu(padding)]` fields' sizes) adding up to the struct's
/// size, so no byte is implicit padding.
#[must_use]
pub const fn host_matches<const N: usize>(
    analysis: &Analysis<N>,
    copies: &[FieldCopy],
    host_size: usize,
    padding_sizes: usize,
) -> bool {
    if !analysis.valid || analysis.problem.is_some() || copies.len() != N {
        return false;
    }
    if host_size as u64 != analysis.layout.shape.byte_stride {
        return false;
    }
    let mut covered = padding_sizes as u64;
    let mut k = 0;
    while k < N {
        if copies[k].host as u64 != analysis.layout.offsets[k] {
            return false;
        }
        covered += analysis.formats[k].byte_length();
        k += 1;
    }
    covered == host_size as u64
}

/// The vertex attributes, locations counted from `location`; for a struct with a `-webgl` field,
/// which no wgpu vertex attribute reads, that field's index (the expansion then fails with
/// [`no_vertex_layout`], spanned at the field).
///
/// # Errors
/// The index of the first field whose format has no wgpu vertex format.
pub const fn vertex_attributes<const N: usize>(
    analysis: &Analysis<N>,
    location: u32,
) -> Result<[wgpu::VertexAttribute; N], usize> {
    let mut list = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: 0,
        shader_location: 0,
    }; N];
    let mut k = 0;
    while k < N {
        let Some(format) = analysis.formats[k].to_wgpu() else {
            return Err(k);
        };
        list[k] = wgpu::VertexAttribute {
            format,
            offset: analysis.layout.offsets[k],
            shader_location: location.saturating_add(k as u32),
        };
        k += 1;
    }
    Ok(list)
}

/// Why field `k` leaves the struct without a vertex layout.
#[must_use]
pub const fn no_vertex_layout<const N: usize>(analysis: &Analysis<N>, k: usize) -> Msg {
    Msg::new()
        .str("field `")
        .str(analysis.names[k])
        .str("` has WebGL-only format `")
        .str(analysis.formats[k].as_str())
        .str("`, which no wgpu vertex attribute reads, so the struct has no vertex layout; use a 2- or 4-component type or format, or use the struct only as storage (without `vertex_buffer_layout`)")
}

/// The struct format's field entries.
#[must_use]
pub const fn struct_fields<const N: usize>(analysis: &Analysis<N>) -> [GpuDataStructField; N] {
    let mut fields = [const { GpuDataStructField::from_static("", VertexFormat::Float32, 0) }; N];
    let mut k = 0;
    while k < N {
        let field = GpuDataStructField::from_static(
            analysis.names[k],
            analysis.formats[k],
            analysis.layout.offsets[k],
        );
        // The placeholder borrows a `'static` string: forgetting it frees nothing.
        core::mem::forget(core::mem::replace(&mut fields[k], field));
        k += 1;
    }
    fields
}

/// The copies that encode or decode one row, from the analysis and the host field offsets.
#[must_use]
pub const fn row_copies<const N: usize>(
    analysis: &Analysis<N>,
    host_offsets: [usize; N],
) -> [FieldCopy; N] {
    let mut copies = [FieldCopy {
        host: 0,
        gpu: 0,
        len: 0,
    }; N];
    let mut k = 0;
    while k < N {
        copies[k] = FieldCopy {
            host: host_offsets[k],
            gpu: analysis.layout.offsets[k] as usize,
            len: analysis.formats[k].byte_length() as usize,
        };
        k += 1;
    }
    copies
}

/// One host field of a `#[repr(C)]` struct, gpu or padding, in declaration order.
#[derive(Clone, Copy)]
pub struct HostField {
    /// The Rust field name.
    pub name: &'static str,
    /// `offset_of!` the field.
    pub offset: usize,
    /// `size_of` its type.
    pub size: usize,
    /// Its index among the gpu fields; `None` for `#[gpu(padding)]` fields.
    pub gpu_index: Option<usize>,
    /// Its gpu offset, filled in by [`analyze`].
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

/// The struct format of a derive that failed (the compile error is already reported).
pub const FALLBACK_FORMAT: &GpuDataStructFormat =
    &GpuDataStructFormat::from_static(StructLayout::WgslStorage, &[], EMPTY_SHAPE);

/// A type a host-only `#[gpu(padding)]` field may have: plain data, so the struct's bytes stay
/// initialized and the field can decode as zeros.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[gpu(padding)]` field",
    label = "not plain data",
    note = "padding fields must be `bytemuck::Pod` (every byte initialized, any bit pattern valid), such as `[u8; N]` or `u32`"
)]
pub trait PaddingField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PaddingField for T {}

/// Requires a `#[gpu(padding)]` field type to be plain data.
pub const fn assert_padding<T: PaddingField>() {}

/// A type `impl_gpu_field!` accepts: plain data in bytemuck's sense.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `bytemuck::Pod`, so `impl_gpu_field!` cannot make it a gpu field",
    label = "not plain data",
    note = "derive `bytemuck::Pod` and `bytemuck::Zeroable` on a `#[repr(C)]` or `#[repr(transparent)]` type, or write `unsafe impl gpudata::GpuField` and uphold its safety contract"
)]
pub trait PlainField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PlainField for T {}

/// `impl_gpu_field!`'s checks: `T` is plain data (a trait bound) and as long as `format`.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_plain_field<T: PlainField>(type_name: &str, format: VertexFormat) {
    check_field_size::<T>(type_name, format);
}

/// Checks that a field type is as long as its format.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_field_size<T>(type_name: &str, format: VertexFormat) {
    let size = size_of::<T>() as u64;
    if size != format.byte_length() {
        let msg = Msg::new()
            .str("`")
            .str(type_name)
            .str("` is ")
            .num(size)
            .str(" bytes, but format `")
            .str(format.as_str())
            .str("` is ")
            .num(format.byte_length())
            .str(" bytes; name a format as long as the type");
        fail(&msg);
    }
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
                gpu_index: None,
                offset: 0,
                size: 4,
                gpu_offset: Some(0),
            },
            HostField {
                name: "b",
                gpu_index: None,
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
                gpu_index: None,
                offset: 4,
                size: 12,
                gpu_offset: None,
            },
            HostField {
                name: "b",
                gpu_index: None,
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
