//! `#[gpu(wgsl = "...")]`: the WGSL type string of an attribute, read at macro time into a
//! [`WgslTy`] (the expansion writes it as a `gpudata::layout::WgslType` constant; the layout
//! itself stays gpudata's `const fn`s' job).

/// A parsed WGSL type without structs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WgslTy {
    /// `f32`, `vec3<f32>`, `mat4x4<f32>`, `atomic<u32>`: kind, columns, rows, scalar.
    Leaf {
        kind: LeafKind,
        columns: u8,
        rows: u8,
        scalar: &'static str,
    },
    /// `array<E, N>`.
    Array(Box<WgslTy>, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeafKind {
    Scalar,
    Vector,
    Matrix,
    Atomic,
}

fn scalar(s: &str) -> Option<&'static str> {
    ["f32", "f16", "i32", "u32"].into_iter().find(|x| *x == s)
}

fn dimension(s: &str) -> Option<u8> {
    match s {
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    }
}

fn alias(s: &str) -> Option<WgslTy> {
    let (body, suffix) = s.split_at(s.len().checked_sub(1)?);
    let scalar = match suffix {
        "f" => "f32",
        "h" => "f16",
        "i" => "i32",
        "u" => "u32",
        _ => return None,
    };
    if let Some(n) = body.strip_prefix("vec") {
        return Some(WgslTy::Leaf {
            kind: LeafKind::Vector,
            columns: 1,
            rows: dimension(n)?,
            scalar,
        });
    }
    let (c, r) = body.strip_prefix("mat")?.split_once('x')?;
    Some(WgslTy::Leaf {
        kind: LeafKind::Matrix,
        columns: dimension(c)?,
        rows: dimension(r)?,
        scalar,
    })
}

/// Reads `text` (spaces allowed): a scalar, `vecN<T>`, `matCxR<T>`, `atomic<T>`, a shorthand
/// alias, or `array<E, N>` of them. Validity (`mat4x4<i32>`) is the layout engine's to report.
pub(crate) fn parse(text: &str) -> Option<WgslTy> {
    let text = text.trim();
    if let Some(inner) = text
        .strip_prefix("array")
        .map(str::trim_start)
        .and_then(|t| t.strip_prefix('<'))
        .and_then(|t| t.strip_suffix('>'))
    {
        let mut depth = 0i32;
        let mut comma = None;
        for (i, c) in inner.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                ',' if depth == 0 => comma = Some(i),
                _ => {}
            }
        }
        let comma = comma?;
        let count = inner[comma + 1..].trim();
        let count = count.strip_suffix(['u', 'i']).unwrap_or(count);
        return Some(WgslTy::Array(
            Box::new(parse(&inner[..comma])?),
            count.parse().ok()?,
        ));
    }
    if let Some(s) = scalar(text) {
        return Some(WgslTy::Leaf {
            kind: LeafKind::Scalar,
            columns: 1,
            rows: 1,
            scalar: s,
        });
    }
    if let Some(leaf) = alias(text) {
        return Some(leaf);
    }
    let (head, inner) = text.split_once('<')?;
    let s = scalar(inner.strip_suffix('>')?.trim())?;
    let head = head.trim();
    if head == "atomic" {
        return Some(WgslTy::Leaf {
            kind: LeafKind::Atomic,
            columns: 1,
            rows: 1,
            scalar: s,
        });
    }
    if let Some(n) = head.strip_prefix("vec") {
        return Some(WgslTy::Leaf {
            kind: LeafKind::Vector,
            columns: 1,
            rows: dimension(n)?,
            scalar: s,
        });
    }
    let (c, r) = head.strip_prefix("mat")?.split_once('x')?;
    Some(WgslTy::Leaf {
        kind: LeafKind::Matrix,
        columns: dimension(c)?,
        rows: dimension(r)?,
        scalar: s,
    })
}
