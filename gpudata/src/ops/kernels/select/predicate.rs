//! The row-mask kernel: a predicate tree over columns, constants and other masks, evaluated
//! once per row, written as one bit per row (bit `i % 32` of word `i / 32`, Arrow's order).
//!
//! Each workgroup evaluates 8192 consecutive rows, 32 per invocation, and gathers their bits in
//! workgroup memory into 256 words, so the mask is written in whole, consecutive words. Two
//! kernels do the gathering: with `Features::SUBGROUP` (and `OpsConfig::subgroups`), each
//! subgroup's ballot of one step holds the bits of consecutive rows, which its first lanes OR into
//! the tile's words; without subgroups (or when the workgroup's subgroups are not full, which the
//! kernel checks), each invocation keeps its 32 rows' bits in one word and the workgroup transposes
//! them. Rows are split into runs of whole workgroups when a column or the mask exceeds one
//! binding.

use super::rows::{self, Span, WORKGROUP};
use crate::data::GpuDataView;
use crate::format::codec::{
    ShaderScalar, decoded_type, fetch_order, unit_byte_length, unit_of_lane,
};
use crate::format::{PrimitiveType, wgsl_codec};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;

/// A comparison of two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Comparison {
    /// `a < b`.
    Less,
    /// `a <= b`.
    LessEqual,
    /// `a > b`.
    Greater,
    /// `a >= b`.
    GreaterEqual,
    /// `a == b` (`-0 == +0`; NaN equals nothing).
    Equal,
    /// `a != b` (the negation of [`Equal`](Self::Equal): true for NaN).
    NotEqual,
}

impl Comparison {
    /// Every comparison.
    pub const ALL: [Comparison; 6] = [
        Comparison::Less,
        Comparison::LessEqual,
        Comparison::Greater,
        Comparison::GreaterEqual,
        Comparison::Equal,
        Comparison::NotEqual,
    ];

    /// The WGSL (and Rust) operator.
    pub(crate) const fn operator(self) -> &'static str {
        match self {
            Comparison::Less => "<",
            Comparison::LessEqual => "<=",
            Comparison::Greater => ">",
            Comparison::GreaterEqual => ">=",
            Comparison::Equal => "==",
            Comparison::NotEqual => "!=",
        }
    }
}

/// One side of a comparison in the kernel: lanes of column `n`, or a constant.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Side {
    Column(usize),
    Value(ShaderScalar),
}

impl Side {
    /// The lanes of the side: column `i`'s `components(i)`, 1 for a constant.
    pub(crate) fn lanes(self, components: impl Fn(usize) -> u32) -> u32 {
        match self {
            Side::Column(i) => components(i),
            Side::Value(_) => 1,
        }
    }
}

/// The lanes a comparison of `a` with `b` compares, on the GPU and in the CPU reference alike
/// (`components(i)`: column `i`'s lanes): equal lane counts lane by lane, or a single-lane side
/// against every lane of the other.
///
/// # Errors
/// [`OpError::LaneMismatch`] naming `b`'s column (input 0 for a constant) otherwise.
pub(crate) fn comparison_lanes(
    op: &'static str,
    a: Side,
    b: Side,
    components: impl Fn(usize) -> u32,
) -> Result<u32, OpError> {
    let (na, nb) = (a.lanes(&components), b.lanes(&components));
    if na != nb && na != 1 && nb != 1 {
        let input = match b {
            Side::Column(i) => i,
            Side::Value(_) => 0,
        };
        return Err(OpError::LaneMismatch {
            op,
            input,
            expected: na,
            found: nb,
        });
    }
    Ok(na.max(nb))
}

/// A predicate over the kernel's columns (by index) and masks (by index).
#[derive(Clone, Debug)]
pub(crate) enum Node {
    Compare(Comparison, Side, Side),
    Mask(usize),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

/// The type a lane of `side` has in the kernel.
fn side_type(side: Side, views: &[GpuDataView<'_>]) -> PrimitiveType {
    match side {
        Side::Column(i) => decoded_type(views[i].format()),
        Side::Value(ShaderScalar::F32(_)) => PrimitiveType::F32,
        Side::Value(ShaderScalar::I32(_)) => PrimitiveType::I32,
        Side::Value(ShaderScalar::U32(_)) => PrimitiveType::U32,
    }
}

/// The lanes of `side` in the kernel.
fn side_lanes(side: Side, views: &[GpuDataView<'_>]) -> u32 {
    side.lanes(|i| views[i].format().components())
}

/// WGSL of lane `lane` of `side` (lane 0 of a one-lane side), typed `ty`.
fn side_value(side: Side, lane: u32, lanes: u32) -> String {
    match side {
        Side::Column(i) => format!("x{i}_{}", if lanes == 1 { 0 } else { lane }),
        Side::Value(ShaderScalar::F32(v)) => format!("bitcast<f32>({:#x}u)", v.to_bits()),
        Side::Value(ShaderScalar::I32(v)) => format!("bitcast<i32>({:#x}u)", v as u32),
        Side::Value(ShaderScalar::U32(v)) => format!("{v}u"),
    }
}

/// The WGSL function [`compare`]'s float tests call.
pub(crate) const IS_NAN_F32: &str =
    "fn is_nan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n";

/// WGSL of `a op b` for values typed `ta` and `tb`, exact across signedness, in `f32` when
/// either is a float (calling [`IS_NAN_F32`]'s function).
pub(crate) fn compare(
    op: Comparison,
    a: &str,
    ta: PrimitiveType,
    b: &str,
    tb: PrimitiveType,
) -> String {
    use PrimitiveType::{I32, U32};
    let o = op.operator();
    match (ta, tb) {
        (I32, U32) => match op {
            Comparison::Less | Comparison::LessEqual => {
                format!("(({a} < 0i) || (bitcast<u32>({a}) {o} {b}))")
            }
            Comparison::Greater | Comparison::GreaterEqual | Comparison::Equal => {
                format!("(({a} >= 0i) && (bitcast<u32>({a}) {o} {b}))")
            }
            Comparison::NotEqual => format!("(({a} < 0i) || (bitcast<u32>({a}) != {b}))"),
        },
        (U32, I32) => match op {
            Comparison::Greater | Comparison::GreaterEqual => {
                format!("(({b} < 0i) || ({a} {o} bitcast<u32>({b})))")
            }
            Comparison::Less | Comparison::LessEqual | Comparison::Equal => {
                format!("(({b} >= 0i) && ({a} {o} bitcast<u32>({b})))")
            }
            Comparison::NotEqual => format!("(({b} < 0i) || ({a} != bitcast<u32>({b})))"),
        },
        (a_ty, b_ty) if a_ty == b_ty && a_ty != PrimitiveType::F32 => format!("({a} {o} {b})"),
        _ => {
            // WGSL lets a compiler assume floats are never NaN: test NaN on the bits, so NaN
            // compares false (true for `!=`) on every device.
            let (x, y) = (
                wgsl_codec::convert(a, ta, PrimitiveType::F32),
                wgsl_codec::convert(b, tb, PrimitiveType::F32),
            );
            let nan = format!("(is_nan_f32({x}) || is_nan_f32({y}))");
            if op == Comparison::NotEqual {
                format!("({nan} || ({x} != {y}))")
            } else {
                format!("(!{nan} && ({x} {o} {y}))")
            }
        }
    }
}

/// WGSL of `node`, a `bool` expression over the decoded lanes `x{view}_{lane}` and the mask
/// bits of row `row`.
pub(crate) fn expression(
    op: &'static str,
    node: &Node,
    views: &[GpuDataView<'_>],
) -> Result<String, OpError> {
    Ok(match node {
        Node::Compare(cmp, a, b) => {
            let lanes = comparison_lanes(op, *a, *b, |i| views[i].format().components())?;
            let (ta, tb) = (side_type(*a, views), side_type(*b, views));
            let (la, lb) = (side_lanes(*a, views), side_lanes(*b, views));
            let parts: Vec<String> = (0..lanes)
                .map(|l| compare(*cmp, &side_value(*a, l, la), ta, &side_value(*b, l, lb), tb))
                .collect();
            format!("({})", parts.join(" && "))
        }
        Node::Mask(m) => format!("(((m{m}_word(row >> 5u) >> (row & 31u)) & 1u) == 1u)"),
        Node::And(nodes) | Node::Or(nodes) if nodes.is_empty() => {
            (matches!(node, Node::And(_))).to_string()
        }
        Node::And(nodes) => join(op, nodes, " && ", views)?,
        Node::Or(nodes) => join(op, nodes, " || ", views)?,
        Node::Not(inner) => format!("(!{})", expression(op, inner, views)?),
    })
}

fn join(
    op: &'static str,
    nodes: &[Node],
    operator: &str,
    views: &[GpuDataView<'_>],
) -> Result<String, OpError> {
    let parts = nodes
        .iter()
        .map(|n| expression(op, n, views))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(format!("({})", parts.join(operator)))
}

/// The kernel's WGSL: `views` as bindings 1.., then the masks, then the output words.
///
/// Parameters: rows of the run, then each view's byte base, then each mask's word base, then
/// the output's word base.
fn kernel(
    op: &'static str,
    node: &Node,
    views: &[GpuDataView<'_>],
    masks: usize,
    ballot: bool,
) -> Result<String, OpError> {
    let test = expression(op, node, views)?;
    let mut wgsl = rows::header(2 + views.len() + masks);
    wgsl += IS_NAN_F32;
    let mut body = String::new();
    for (i, view) in views.iter().enumerate() {
        let format = view.format();
        let size = unit_byte_length(format);
        wgsl += &rows::binding_decl(1 + i, &format!("v{i}"), "u32", false);
        wgsl += &rows::load_fn(&format!("ld{i}"), &format!("v{i}"), size);
        body += &format!(
            "    let a{i} = param({}u) + row * {}u;\n",
            1 + i,
            view.byte_stride()
        );
        for lane in 0..format.components() {
            let stored = fetch_order(format, lane);
            let unit = u64::from(unit_of_lane(format, stored)) * size;
            body += &format!(
                "    let u{i}_{lane} = ld{i}(a{i} + {unit}u);\n    let x{i}_{lane} = {};\n",
                wgsl_codec::decode_unit_exact(
                    format,
                    stored,
                    &format!("u{i}_{lane}"),
                    wgsl_codec::NanBits::Quiet
                )
            );
        }
    }
    for m in 0..masks {
        wgsl += &rows::binding_decl(1 + views.len() + m, &format!("mw{m}"), "u32", false);
    }
    let out = 1 + views.len() + masks;
    wgsl += &rows::binding_decl(out, "bits", "u32", true);
    // Mask reads go through a function so that the row's word index is relative to its base.
    for m in 0..masks {
        wgsl += &format!(
            "fn m{m}_word(w: u32) -> u32 {{ return mw{m}[param({}u) + w]; }}\n",
            1 + views.len() + m
        );
    }
    let out_base = 1 + views.len() + masks;
    wgsl += &format!("fn eval_row(row: u32) -> bool {{\n{body}    return {test};\n}}\n");
    let tile = ROWS * WORKGROUP;
    let words = ROWS * WORKGROUP / 32;
    // Without subgroups each invocation evaluates `ROWS` rows, 256 apart (rows past the run
    // are evaluated as the last row and dropped), so that its loads are in flight together and
    // each load of a subgroup is consecutive, and keeps their bits in one word (bit k: row
    // k × 256 + lid). The workgroup then transposes: output word j (rows 32j..32j + 31 of the
    // tile) takes bit j / 8 of the words of invocations 32 (j % 8) .. 32 (j % 8) + 31.
    // Invocation j reads them starting at a different one for each j % 8, so a subgroup reads
    // eight different memory banks at every step (all starting at the same one read one bank;
    // that serialised reduction, with 8 rows per invocation, held the kernel at 16% of a copy
    // on an H200; BENCHMARKS.md, "Selection operations").
    let transpose = "\x20       let k = lid >> 3u;\n\
         \x20       let w = lid & 7u;\n\
         \x20       for (var b = 0u; b < 32u; b++) {\n\
         \x20           let s = (b + w) & 31u;\n\
         \x20           word |= ((held[w * 32u + s] >> k) & 1u) << s;\n\
         \x20       }\n";
    let store = format!("    bits[param({out_base}u) + group * {words}u + lid] = word;\n");
    if !ballot {
        let mut evals = String::new();
        for k in 0..ROWS {
            evals += &format!(
                "    let r{k} = first + {}u + lid;\n\
                 \x20   let ok{k} = eval_row(min(r{k}, n - 1u));\n\
                 \x20   m |= select(0u, {:#x}u, ok{k} && r{k} < n);\n",
                k * WORKGROUP,
                1u32 << k
            );
        }
        wgsl += &format!(
            "var<workgroup> held: array<u32, {WORKGROUP}>;\n\
             @compute @workgroup_size({WORKGROUP})\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                     @builtin(local_invocation_index) lid: u32) {{\n\
             \x20   let group = group_index(wid, nwg);\n\
             \x20   let n = param(0u);\n\
             \x20   let first = group * {tile}u;\n\
             \x20   var m = 0u;\n\
             {evals}\
             \x20   held[lid] = m;\n\
             \x20   workgroupBarrier();\n\
             \x20   var word = 0u;\n\
             \x20   {{\n{transpose}    }}\n\
             {store}\
             }}\n"
        );
        return Ok(wgsl);
    }
    // With subgroups, invocation `lane = subgroup_id × subgroup_size + subgroup_invocation_id`
    // evaluates rows `k × 256 + lane`; a subgroup's ballot of step k holds the bits of its
    // `subgroup_size` consecutive rows, which its first lanes OR into the tile's words in
    // workgroup memory (whole words from subgroups of 32 or more, parts of one word from
    // smaller ones). That numbering covers the workgroup only when its subgroups are full and
    // of one size, which Vulkan does not promise: the workgroup checks it first (every lane
    // marks its number) and otherwise evaluates as without subgroups (lanes by
    // `local_invocation_index`, bits transposed).
    // The rows are evaluated first (all 32 loads in flight, as without subgroups), their bits
    // kept in `m`; the ballots then only read `m`. (One ballot right after each row's
    // evaluation made every load wait for the ballot before it: 0.484 ms instead of 0.359 on
    // an H200, BENCHMARKS.md "The mask kernel with subgroup ballots".)
    let mut ballots = String::new();
    for k in 0..ROWS {
        ballots += &format!(
            "        let r{k} = first + {o}u + lane;\n\
             \x20       m |= select(0u, {bit:#x}u, eval_row(min(r{k}, n - 1u)) && r{k} < n);\n",
            o = k * WORKGROUP,
            bit = 1u32 << k,
        );
    }
    for k in 0..ROWS {
        ballots += &format!(
            "        let b{k} = subgroupBallot((m & {bit:#x}u) != 0u);\n\
             \x20       let at{k} = {o}u + sg * ss;\n\
             \x20       if (sid < q) {{ atomicOr(&tally[(at{k} >> 5u) + sid], b{k}[sid] << (at{k} & 31u)); }}\n",
            o = k * WORKGROUP,
            bit = 1u32 << k,
        );
    }
    wgsl += &format!(
        "var<workgroup> held: array<u32, {WORKGROUP}>;\n\
         var<workgroup> tally: array<atomic<u32>, {WORKGROUP}>;\n\
         var<workgroup> seen: array<atomic<u32>, {seen}>;\n\
         var<workgroup> full: u32;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32,\n\
                 @builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ss: u32,\n\
                 @builtin(subgroup_id) sg: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let first = group * {tile}u;\n\
         \x20   let lane = sg * ss + sid;\n\
         \x20   if (lane < {WORKGROUP}u && ss <= 128u) {{ atomicOr(&seen[lane >> 5u], 1u << (lane & 31u)); }}\n\
         \x20   workgroupBarrier();\n\
         \x20   if (lid == 0u) {{\n\
         \x20       var all = 1u;\n\
         \x20       for (var i = 0u; i < {seen}u; i++) {{ if (atomicLoad(&seen[i]) != 0xffffffffu) {{ all = 0u; }} }}\n\
         \x20       full = all;\n\
         \x20   }}\n\
         \x20   let whole = workgroupUniformLoad(&full) == 1u;\n\
         \x20   var m = 0u;\n\
         \x20   if (whole) {{\n\
         \x20       let q = max(ss >> 5u, 1u);\n\
         {ballots}\
         \x20   }} else {{\n\
         \x20       for (var k = 0u; k < {ROWS}u; k++) {{\n\
         \x20           let r = first + k * {WORKGROUP}u + lid;\n\
         \x20           if (eval_row(min(r, n - 1u)) && r < n) {{ m |= 1u << k; }}\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   held[lid] = m;\n\
         \x20   workgroupBarrier();\n\
         \x20   var word = 0u;\n\
         \x20   if (whole) {{\n\
         \x20       word = atomicLoad(&tally[lid]);\n\
         \x20   }} else {{\n{transpose}    }}\n\
         {store}\
         }}\n",
        seen = WORKGROUP / 32,
    );
    Ok(wgsl)
}

/// Rows each invocation of the mask kernel evaluates: one bit of each of 32 words, so that the
/// workgroup's 256 invocations hold its 256 words.
const ROWS: u32 = 32;

/// Words of a mask of `length` rows as the kernel writes them: whole workgroups of
/// `ROWS × 256 / 32` words.
pub(crate) fn mask_words(length: u64) -> u64 {
    let tile = u64::from(ROWS * WORKGROUP);
    length.div_ceil(tile) * (tile / 32)
}

/// The dispatches that evaluate `node` over rows `0..length` of `views` and `masks` (word
/// buffers of masks of `length` rows) into `output` (at least [`mask_words`] words).
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    node: &Node,
    views: &[GpuDataView<'_>],
    masks: &[&wgpu::Buffer],
    length: u64,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let ballot = planner.subgroups();
    let wgsl = kernel(op, node, views, masks.len(), ballot)?;
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let spans: Vec<Span<'_>> = views.iter().map(Span::of).collect();
    let mut bits: Vec<&wgpu::Buffer> = masks.to_vec();
    bits.push(output);
    let step = u64::from(ROWS * WORKGROUP);
    let runs = rows::runs(op, &limits, length, step, &spans, &bits)?;
    let mut dispatches = Vec::with_capacity(runs.len());
    for (first, n) in runs {
        let mut params = vec![rows::base32(op, n)?];
        let mut bindings = Vec::new();
        for view in views {
            let bound = Span::of(view).bind(op, first, n, align)?;
            params.push(rows::base32(op, bound.base)?);
            bindings.push(bound);
        }
        let words = mask_words(n);
        for mask in masks {
            let from = first / 32 * 4;
            let bound = rows::bind(mask, from, from + n.div_ceil(32) * 4, align);
            params.push(rows::base32(op, bound.base / 4)?);
            bindings.push(bound);
        }
        let from = first / 32 * 4;
        let bound = rows::bind(output, from, from + words * 4, align);
        params.push(rows::base32(op, bound.base / 4)?);
        bindings.push(bound);
        let workgroups = n.div_ceil(step);
        dispatches.push(rows::dispatch(
            planner, op, &wgsl, &params, &bindings, workgroups,
        )?);
    }
    Ok(dispatches)
}
