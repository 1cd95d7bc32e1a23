//! The one kernel shape every operation is generated in: a *row transform*.
//!
//! Each invocation handles `G` consecutive rows (`rows_per_thread`). It loads the bytes of its
//! rows from each *source* (a buffer range read with a fixed row stride) in the widest aligned
//! unit the layout allows (`vec4<u32>`, `vec2<u32>` or `u32`), lets the operation's [`Body`]
//! turn the units of each row into output units, assembles those into whole 32-bit words and
//! writes the `G` rows of every *output* with the widest aligned stores. `G` is chosen so that
//! every output's `G` rows are a whole number of 16-byte chunks and every source's `G` rows a
//! whole number of words, so no two invocations ever write the same word and 8- and 16-bit
//! values need no atomics.
//!
//! Strides and the phase of each source's offset inside its load unit are fixed when the text is
//! generated (they are part of the cache key); row counts and offsets arrive at run time in a
//! uniform array `P`, so one pipeline serves every length and every offset with the same phase.
//!
//! `P[0].x` is the row count, `P[0].y` the invocation count; source `i`'s base (in load units)
//! is `P[1 + i / 4][i % 4]`; constant `j` is the `vec4<u32>` `P[constant_base + j]`.
//!
//! A *placed* kernel ([`KernelLayout::placed`], the table re-layouts) writes rows into a range of
//! an existing buffer instead of a fresh one. Its invocations follow the output's own grid of
//! `G`-row blocks (block `k` is rows `kG..kG + G` of the output region), so a dispatch over the
//! absolute rows `[start, end)` begins with the block holding `start`: `P[0].z` is `start`'s
//! place in that block (`lo`) and `P[0].x` the end (`lo` + rows). Output `o`'s base (in store
//! units from its binding's start) is `P[output_base + o / 4][o % 4]`. Invocations whose block
//! lies inside the range store whole units as usual; the first and last invocation of a range
//! (whose blocks hold rows of another dispatch: another batch, the neighbouring segment) merge
//! their words: each word keeps the bytes of rows outside the range (read, masked, written
//! back), and words with no byte in the range are not written at all. Dispatches run in order
//! and only one invocation of a dispatch touches an edge block, so no two writes race. Sources
//! are read from the block's first row: rows of the first block before `lo` are loaded (at
//! indices that may wrap below the binding, which WebGPU's bounds rules make zero or an
//! in-bounds value) and discarded by the merge.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::body::{Body, RowCtx};
use super::kernel_layout::{KernelLayout, pitch};

/// Declared type of a storage binding's elements, by unit size in bytes.
fn element_type(unit: u32) -> &'static str {
    match unit {
        16 => "vec4<u32>",
        8 => "vec2<u32>",
        _ => "u32",
    }
}

/// Where element `j` of a run of `chunks`-element blocks lives in the padded workgroup array, as
/// WGSL (`j` a `u32` expression).
fn padded(j: &str, chunks: u64) -> String {
    if chunks == pitch(chunks) {
        j.to_owned()
    } else {
        format!("({j}) / {chunks}u * {}u + ({j}) % {chunks}u", pitch(chunks))
    }
}

/// The WGSL text of the kernel.
pub(crate) fn generate(layout: &KernelLayout, body: &dyn Body) -> String {
    let g_rows = layout.rows_per_thread;
    let mut chunks = BTreeSet::new();
    let mut rows = Vec::with_capacity(g_rows as usize);
    let mut names = 0;
    for g in 0..g_rows {
        let mut ctx = RowCtx {
            layout,
            g,
            stmts: String::new(),
            chunks: &mut chunks,
            out: Vec::new(),
            names,
        };
        body.row(&mut ctx);
        names = ctx.names;
        rows.push((ctx.stmts, ctx.out));
    }

    let mut s = String::new();
    let _ = writeln!(s, "// gpudata row transform: {g_rows} rows per invocation");
    let _ = writeln!(
        s,
        "@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {}>;",
        layout.param_len()
    );
    for (i, binding) in layout.bindings.iter().enumerate() {
        let access = if binding.read_only {
            "read"
        } else {
            "read_write"
        };
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, {access}> b{}: array<{}>;",
            i + 1,
            i + 1,
            element_type(binding.unit)
        );
    }
    let wg = u64::from(layout.workgroup_size);
    let staging = layout.stage_len > 0;
    let any_staged_source = layout.staged_sources.iter().any(Option::is_some);
    if staging {
        let _ = writeln!(
            s,
            "var<workgroup> stage: array<vec4<u32>, {}>;",
            layout.stage_len
        );
    }
    s.push_str(&body.helpers());
    let _ = writeln!(s, "@compute @workgroup_size({wg})");
    let _ = writeln!(
        s,
        "fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{"
    );
    let _ = writeln!(s, "    let wbase = (wid.y * nwg.x + wid.x) * {wg}u;");
    s.push_str("    let t = wbase + lid;\n");
    if staging {
        // Barriers need every invocation: none returns early; writes are guarded instead.
        s.push_str("    let live = t < P[0].y;\n");
    } else {
        s.push_str("    if (t >= P[0].y) { return; }\n");
    }
    if layout.placed {
        let _ = writeln!(s, "    let r0 = t * {g_rows}u;");
        s.push_str("    let n = P[0].x;\n");
        s.push_str("    let lo = P[0].z;\n");
        let _ = writeln!(s, "    let full = r0 >= lo && r0 + {g_rows}u <= n;");
        for o in 0..layout.outputs.len() {
            let _ = writeln!(
                s,
                "    let obase{o} = P[{}].{};",
                layout.output_base() + o / 4,
                ["x", "y", "z", "w"][o % 4]
            );
        }
    } else if g_rows > 1 {
        let _ = writeln!(s, "    let r0 = t * {g_rows}u;");
        s.push_str("    let n = P[0].x;\n");
    }
    for (i, source) in layout.sources.iter().enumerate() {
        let param = format!("P[{}].{}", 1 + i / 4, ["x", "y", "z", "w"][i % 4]);
        match &layout.staged_sources[i] {
            Some(staged) => {
                let _ = writeln!(s, "    let base{i} = {param} + wbase * {}u;", staged.chunks);
            }
            None => {
                let step = u64::from(g_rows) * source.stride / u64::from(source.unit);
                let _ = writeln!(s, "    let base{i} = {param} + t * {step}u;");
            }
        }
    }
    if any_staged_source {
        for (i, source) in layout.sources.iter().enumerate() {
            let Some(staged) = &layout.staged_sources[i] else {
                continue;
            };
            let binding = source.binding + 1;
            for k in 0..staged.len.div_ceil(wg) {
                let _ = writeln!(
                    s,
                    "    {{ let i = {}u + lid; if (i < {}u) {{ stage[{}u + {}] = b{binding}[base{i} + i]; }} }}",
                    k * wg,
                    staged.len,
                    staged.offset,
                    padded("i", staged.chunks)
                );
            }
        }
        s.push_str("    workgroupBarrier();\n");
    }
    for (source, chunk) in &chunks {
        match &layout.staged_sources[*source] {
            Some(staged) => {
                // Chunk `chunk` of this invocation is element `lid * chunks + chunk` of the run;
                // past its own chunks it reaches into the next invocation's block.
                let _ = writeln!(
                    s,
                    "    let s{source}c{chunk} = stage[{}u + (lid + {}u) * {}u + {}u];",
                    staged.offset,
                    chunk / staged.chunks,
                    pitch(staged.chunks),
                    chunk % staged.chunks
                );
            }
            None => {
                let binding = layout.sources[*source].binding + 1;
                let _ = writeln!(
                    s,
                    "    let s{source}c{chunk} = b{binding}[base{source} + {chunk}u];"
                );
            }
        }
    }

    // Output words: (output, word) -> pieces.
    let mut words: Vec<Vec<Vec<String>>> = layout
        .outputs
        .iter()
        .map(|o| vec![Vec::new(); (u64::from(g_rows) * o.row_stride / 4) as usize])
        .collect();
    // Bytes of each output word that the row code writes (a placed kernel keeps the others).
    let mut cover: Vec<Vec<u32>> = words.iter().map(|w| vec![0u32; w.len()]).collect();
    for (g, (stmts, out)) in rows.iter().enumerate() {
        s.push_str(stmts);
        // A placed kernel's rows outside its range are masked when merged, not here.
        let valid = if g_rows > 1 && g > 0 && !layout.placed {
            let name = format!("ok{g}");
            let _ = writeln!(s, "    let {name} = r0 + {g}u < n;");
            Some(name)
        } else {
            None
        };
        for unit in out {
            let output = &layout.outputs[unit.output];
            let byte = g as u64 * output.row_stride + unit.byte;
            let shift = (byte % 4) * 8;
            let mut piece = if shift == 0 {
                unit.expr.clone()
            } else {
                format!("({} << {shift}u)", unit.expr)
            };
            if let Some(valid) = &valid {
                piece = format!("select(0u, {piece}, {valid})");
            }
            debug_assert!(shift + u64::from(unit.size) * 8 <= 32);
            let bits = if unit.size >= 4 {
                u32::MAX
            } else {
                ((1u32 << (8 * unit.size)) - 1) << shift
            };
            cover[unit.output][(byte / 4) as usize] |= bits;
            words[unit.output][(byte / 4) as usize].push(piece);
        }
    }
    let any_staged_output = layout.staged_outputs.iter().any(Option::is_some);
    if any_staged_output && any_staged_source {
        // Every invocation has read its staged rows before the array is reused for outputs.
        s.push_str("    workgroupBarrier();\n");
    }
    for (o, output) in layout.outputs.iter().enumerate() {
        let binding = output.binding + 1;
        let per_unit = (output.unit / 4) as usize;
        let step = u64::from(g_rows) * output.row_stride / u64::from(output.unit);
        let staged = layout.staged_outputs[o].as_ref();
        if layout.placed {
            placed_stores(&mut s, layout, o, &words[o], &cover[o], staging);
            continue;
        }
        let word = |w: usize| -> String {
            let pieces = &words[o][w];
            if pieces.is_empty() {
                "0u".to_owned()
            } else {
                pieces.join(" | ")
            }
        };
        for (k, start) in (0..words[o].len()).step_by(per_unit).enumerate() {
            let value = match per_unit {
                4 => format!(
                    "vec4<u32>({}, {}, {}, {})",
                    word(start),
                    word(start + 1),
                    word(start + 2),
                    word(start + 3)
                ),
                2 => format!("vec2<u32>({}, {})", word(start), word(start + 1)),
                _ => word(start),
            };
            match staged {
                Some(staged) => {
                    let _ = writeln!(
                        s,
                        "    stage[{}u + lid * {}u + {k}u] = {value};",
                        staged.offset,
                        pitch(staged.chunks)
                    );
                }
                None if staging => {
                    let _ = writeln!(
                        s,
                        "    if (live) {{ b{binding}[t * {step}u + {k}u] = {value}; }}"
                    );
                }
                None => {
                    let _ = writeln!(s, "    b{binding}[t * {step}u + {k}u] = {value};");
                }
            }
        }
    }
    if any_staged_output {
        s.push_str("    workgroupBarrier();\n");
        for (o, output) in layout.outputs.iter().enumerate() {
            let Some(staged) = &layout.staged_outputs[o] else {
                continue;
            };
            if layout.placed && !fully_covered(&cover[o]) {
                // Stored word by word (see `placed_stores`).
                continue;
            }
            let binding = output.binding + 1;
            for k in 0..staged.chunks {
                if layout.placed {
                    // Only blocks inside the range: the edge blocks merged their own words.
                    let _ = writeln!(
                        s,
                        "    {{ let i = {}u + lid; let g = wbase * {c}u + i; let rb = g / {c}u * {g_rows}u; if (g < P[0].y * {c}u && rb >= lo && rb + {g_rows}u <= n) {{ b{binding}[obase{o} + g] = stage[{}u + {}]; }} }}",
                        k * wg,
                        staged.offset,
                        padded("i", staged.chunks),
                        c = staged.chunks
                    );
                    continue;
                }
                let _ = writeln!(
                    s,
                    "    {{ let i = {}u + lid; let g = wbase * {c}u + i; if (g < P[0].y * {c}u) {{ b{binding}[g] = stage[{}u + {}]; }} }}",
                    k * wg,
                    staged.offset,
                    padded("i", staged.chunks),
                    c = staged.chunks
                );
            }
        }
    }
    s.push_str("}\n");
    s
}

/// Whether the row code writes every byte of an output's words.
fn fully_covered(cover: &[u32]) -> bool {
    cover.iter().all(|&c| c == u32::MAX)
}

/// The stores of output `o` of a placed kernel (`words`: the pieces of each of its words in one
/// invocation's block; `cover`: the bytes of each word they write). A placed kernel writes only
/// those bytes: for a block inside the range, whole units when the row code writes all of their
/// bytes (through workgroup memory when the output is staged), else word by word, merging
/// partly written words with the bytes they keep; for an edge block, every word that holds a
/// byte to write is merged, keeping also the bytes of rows outside the range. A word with no
/// byte to write is never touched.
fn placed_stores(
    s: &mut String,
    layout: &KernelLayout,
    o: usize,
    words: &[Vec<String>],
    cover: &[u32],
    staging: bool,
) {
    let output = &layout.outputs[o];
    let g_rows = layout.rows_per_thread;
    let binding = output.binding + 1;
    let per_unit = (output.unit / 4) as usize;
    let step = u64::from(g_rows) * output.row_stride / u64::from(output.unit);
    let name = |w: usize| format!("o{o}w{w}");
    let element = |w: usize| {
        format!(
            "b{binding}[obase{o} + t * {step}u + {}u]{}",
            w / per_unit,
            match per_unit {
                4 => [".x", ".y", ".z", ".w"][w % 4],
                2 => [".x", ".y"][w % 2],
                _ => "",
            }
        )
    };
    for (w, pieces) in words.iter().enumerate() {
        if cover[w] == 0 {
            continue;
        }
        let _ = writeln!(s, "    let {} = {};", name(w), pieces.join(" | "));
    }
    let live = if staging { "live && " } else { "" };
    let _ = writeln!(s, "    if ({live}full) {{");
    let whole = fully_covered(cover);
    for (k, start) in (0..words.len()).step_by(per_unit).enumerate() {
        if !whole {
            for (w, &c) in cover.iter().enumerate().skip(start).take(per_unit) {
                match c {
                    0 => {}
                    u32::MAX => {
                        let _ = writeln!(s, "        {} = {};", element(w), name(w));
                    }
                    c => {
                        let e = element(w);
                        let _ = writeln!(s, "        {e} = ({e} & {:#010x}u) | {};", !c, name(w));
                    }
                }
            }
            continue;
        }
        let value = match per_unit {
            4 => format!(
                "vec4<u32>({}, {}, {}, {})",
                name(start),
                name(start + 1),
                name(start + 2),
                name(start + 3)
            ),
            2 => format!("vec2<u32>({}, {})", name(start), name(start + 1)),
            _ => name(start),
        };
        match &layout.staged_outputs[o] {
            Some(staged) => {
                let _ = writeln!(
                    s,
                    "        stage[{}u + lid * {}u + {k}u] = {value};",
                    staged.offset,
                    pitch(staged.chunks)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "        b{binding}[obase{o} + t * {step}u + {k}u] = {value};"
                );
            }
        }
    }
    s.push_str(if staging {
        "    } else if (live) {\n"
    } else {
        "    } else {\n"
    });
    let stride = output.row_stride;
    for g in 0..u64::from(g_rows) {
        let _ = writeln!(s, "        let in{g} = r0 + {g}u >= lo && r0 + {g}u < n;");
    }
    for (w, &c) in cover.iter().enumerate() {
        if c == 0 {
            continue;
        }
        // The bytes of each row in this word that the row code writes, as masks.
        let mut masks: Vec<(u64, u32)> = Vec::new();
        for b in 4 * w as u64..4 * w as u64 + 4 {
            let row = b / stride;
            let bit = (0xffu32 << ((b % 4) * 8)) & c;
            if bit == 0 {
                continue;
            }
            match masks.last_mut() {
                Some((r, m)) if *r == row => *m |= bit,
                _ => masks.push((row, bit)),
            }
        }
        let write = masks
            .iter()
            .map(|(row, mask)| format!("select(0u, {mask:#010x}u, in{row})"))
            .collect::<Vec<_>>()
            .join(" | ");
        let e = element(w);
        let _ = writeln!(
            s,
            "        {{ let m = {write}; if (m != 0u) {{ {e} = ({e} & ~m) | ({} & m); }} }}",
            name(w)
        );
    }
    s.push_str("    }\n");
}
