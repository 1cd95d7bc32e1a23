//! A report for humans: a host struct format and a WGSL struct side by side, row by row, with
//! every disagreement marked (the layout CLI's `gpudata layout --check shader.wgsl STRUCT`).

use std::fmt::Write as _;

use naga::TypeInner;

use super::error::ShaderCheckError;
use super::shader::Shader;
use crate::layout::GpuDataStructFormat;

/// The widest a column of [`Shader::struct_report`] pads to, in bytes.
const WIDEST_COLUMN: usize = 64;

/// One member of a WGSL struct as naga lays it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgslMember {
    /// The member's name.
    pub name: String,
    /// Its WGSL type (`vec3<f32>`).
    pub wgsl_type: String,
    /// Its byte offset.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its alignment in bytes.
    pub align: u64,
}

impl Shader {
    /// The members of the WGSL struct `name` with naga's offsets, sizes and alignments, and the
    /// struct's size; `None` when the shader declares no such struct.
    #[must_use]
    pub fn struct_members(&self, name: &str) -> Option<(Vec<WgslMember>, u64)> {
        let ty = self.struct_named(name)?;
        let TypeInner::Struct { members, span } = &self.module().types[ty].inner else {
            return None;
        };
        let members = members
            .iter()
            .map(|m| {
                let (size, align) = self.size_align(m.ty);
                WgslMember {
                    name: m.name.clone().unwrap_or_default(),
                    wgsl_type: self.type_text(m.ty),
                    offset: u64::from(m.offset),
                    size,
                    align,
                }
            })
            .collect();
        Some((members, u64::from(*span)))
    }

    /// `host` and the WGSL struct `shader_struct` side by side: one line per field (matched by
    /// name, then the members the host lacks), `!=` where the sides disagree, and the stride
    /// and size; then the verdict of [`check_struct_format`](Self::check_struct_format).
    ///
    /// ```
    /// use gpudata::check::Shader;
    /// use gpudata::{GpuDataStructFormat, StructLayout};
    ///
    /// let shader = Shader::parse("struct P { a: f32, b: vec3<f32> }")?;
    /// let host = GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b", "float32x3")])?;
    /// let (report, verdict) = shader.struct_report(&host, "P")?;
    /// assert!(report.lines().any(|l| l.starts_with("b ") && l.contains("!=")));
    /// assert!(verdict.is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingStruct`].
    pub fn struct_report(
        &self,
        host: &GpuDataStructFormat,
        shader_struct: &str,
    ) -> Result<(String, Result<(), ShaderCheckError>), ShaderCheckError> {
        let (members, size) =
            self.struct_members(shader_struct)
                .ok_or_else(|| ShaderCheckError::MissingStruct {
                    name: shader_struct.to_owned(),
                })?;
        let verdict = self.check_struct_format(host, shader_struct);
        let flagged: Vec<String> = match &verdict {
            Err(ShaderCheckError::Mismatches { mismatches, .. }) => {
                mismatches.iter().map(|m| m.path.clone()).collect()
            }
            _ => Vec::new(),
        };
        let mut rows: Vec<[String; 9]> = Vec::new();
        let blank = || String::from("-");
        for field in host.fields() {
            let member = members.iter().find(|m| m.name == field.name());
            let mark = if flagged.iter().any(|p| p == field.name()) {
                "!="
            } else {
                ""
            };
            rows.push([
                field.name().to_owned(),
                field.format().as_str().to_owned(),
                field.byte_offset().to_string(),
                field.byte_length().to_string(),
                mark.to_owned(),
                member.map_or_else(blank, |m| m.wgsl_type.clone()),
                member.map_or_else(blank, |m| m.offset.to_string()),
                member.map_or_else(blank, |m| m.size.to_string()),
                member.map_or_else(blank, |m| m.align.to_string()),
            ]);
        }
        for member in members.iter().filter(|m| host.field(&m.name).is_none()) {
            rows.push([
                member.name.clone(),
                blank(),
                blank(),
                blank(),
                "!=".to_owned(),
                member.wgsl_type.clone(),
                member.offset.to_string(),
                member.size.to_string(),
                member.align.to_string(),
            ]);
        }
        let header = [
            "field",
            "format",
            "offset",
            "length",
            "",
            "wgsl type",
            "offset",
            "size",
            "align",
        ];
        // Names and types come from the input, unbounded: a column pads to at most
        // `WIDEST_COLUMN` (a longer cell runs over), and a width never reaches `format!`'s
        // limit of `u16::MAX`, past which it panics.
        let mut widths = header.map(str::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.len().min(WIDEST_COLUMN));
            }
        }
        let mut out = String::new();
        let stride_mark = if host.byte_stride() == size {
            ""
        } else {
            " !="
        };
        let _ = writeln!(
            out,
            "host {} rows (byte stride {}) against wgsl struct {shader_struct} (size {size}){stride_mark}",
            host.layout(),
            host.byte_stride()
        );
        let line = |cells: [&str; 9], out: &mut String| {
            let [n, f, o, l, m, t, so, s, a] = cells;
            let [wn, wf, wo, wl, wm, wt, wso, ws, wa] = widths;
            let text = format!(
                "{n:<wn$}  {f:<wf$}  {o:>wo$}  {l:>wl$}  {m:<wm$}  {t:<wt$}  {so:>wso$}  {s:>ws$}  {a:>wa$}"
            );
            let _ = writeln!(out, "{}", text.trim_end());
        };
        line(header, &mut out);
        for row in &rows {
            line(row.each_ref().map(String::as_str), &mut out);
        }
        Ok((out, verdict))
    }
}
