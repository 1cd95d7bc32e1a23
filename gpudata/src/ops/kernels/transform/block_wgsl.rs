//! The WGSL of the block-copy kernel ([`block`](super::block)): body entries found by a binary
//! search over their first workgroups, edge vectors composed word by word after them.

use crate::ops::kernels::select::rows::WORKGROUP;

/// The kernel copying the blocks of its uniform table (`capacity` entries) from `sources`
/// vector source bindings and `words` word source bindings into `targets` destination
/// bindings. `params.n` is (body entries, their workgroups, edge entries, 0).
///
/// A body entry `b` is `a = (first workgroup, vectors, phase, source binding)`, `b = (source
/// vector, destination binding, destination vector, 0)`. With phase 0 the source vectors are
/// the words to copy; with phase `p` (1 to 3: the source is `4p` bytes past a 16-byte
/// boundary) vector `i` is the last `4 - p` words of source vector `i` and the first `p` of
/// vector `i + 1`: every load and store is a whole aligned vector (a neighbour's load comes
/// from the cache). Phase 4 stores zeros (a fresh output's bytes no copy writes).
///
/// An edge entry (after the body entries, one per invocation of the workgroups after the
/// bodies') composes one destination vector word by word: `a = (destination binding, vector,
/// modes of words 0 and 1, of words 2 and 3)` (16 bits each: a vector source binding, `0x8000`
/// plus a word source binding, [`ZERO`] or [`KEEP`]), `b` = the words' source word indices. A
/// vector with a kept word is read first; no other invocation writes its words.
pub(crate) fn wgsl(
    sources: usize,
    words: usize,
    targets: usize,
    capacity: u64,
    per: u32,
) -> String {
    let mut text = format!(
        "struct Block {{ a: vec4<u32>, b: vec4<u32> }}\n\
         struct Params {{ n: vec4<u32>, blocks: array<Block, {capacity}> }}\n\
         @group(0) @binding(0) var<uniform> params: Params;\n"
    );
    for s in 0..sources {
        text.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> src{s}: array<vec4<u32>>;\n",
            s + 1
        ));
    }
    for w in 0..words {
        text.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> wsrc{w}: array<u32>;\n",
            sources + w + 1
        ));
    }
    for d in 0..targets {
        text.push_str(&format!(
            "@group(0) @binding({}) var<storage, read_write> dst{d}: array<vec4<u32>>;\n",
            sources + words + d + 1
        ));
    }
    // A `switch` over bindings: one case per binding, the last as the default.
    let switch = |count: usize, arm: &dyn Fn(usize) -> String| {
        let mut out = String::new();
        for i in 0..count {
            let case = if i + 1 == count {
                "default".to_owned()
            } else {
                format!("case {i}u")
            };
            out.push_str(&format!("        {case}: {{ {} }}\n", arm(i)));
        }
        out
    };
    let fallback = |count: usize, body: String, none: &str| {
        if count == 0 {
            format!("    {none}\n")
        } else {
            body
        }
    };
    text.push_str("fn load(s: u32, at: u32) -> vec4<u32> {\n    var v = vec4<u32>(0u);\n");
    text.push_str(&fallback(
        sources,
        format!(
            "    switch s {{\n{}    }}\n",
            switch(sources, &|s| format!("v = src{s}[at];"))
        ),
        "",
    ));
    text.push_str("    return v;\n}\n");
    text.push_str("fn load_word(s: u32, at: u32) -> u32 {\n    var v = 0u;\n");
    text.push_str(&fallback(
        words,
        format!(
            "    switch s {{\n{}    }}\n",
            switch(words, &|w| format!("v = wsrc{w}[at];"))
        ),
        "",
    ));
    text.push_str("    return v;\n}\n");
    text.push_str("fn fetch(d: u32, at: u32) -> vec4<u32> {\n    var v: vec4<u32>;\n");
    text.push_str(&format!(
        "    switch d {{\n{}    }}\n    return v;\n}}\n",
        switch(targets, &|d| format!("v = dst{d}[at];"))
    ));
    text.push_str("fn store(d: u32, at: u32, v: vec4<u32>) {\n");
    text.push_str(&format!(
        "    switch d {{\n{}    }}\n}}\n",
        switch(targets, &|d| format!("dst{d}[at] = v;"))
    ));
    text.push_str(&format!(
        "fn word(mode: u32, at: u32, old: u32) -> u32 {{\n\
         \x20   if (mode == {KEEP}u) {{ return old; }}\n\
         \x20   if (mode == {ZERO}u) {{ return 0u; }}\n\
         \x20   if (mode >= {WORD}u) {{ return load_word(mode - {WORD}u, at); }}\n\
         \x20   return load(mode, at / 4u)[at % 4u];\n\
         }}\n\
         fn edge(e: u32) {{\n\
         \x20   let a = params.blocks[params.n.x + e].a;\n\
         \x20   let b = params.blocks[params.n.x + e].b;\n\
         \x20   let m = vec4<u32>(a.z & 0xffffu, a.z >> 16u, a.w & 0xffffu, a.w >> 16u);\n\
         \x20   var old = vec4<u32>(0u);\n\
         \x20   if (any(m == vec4<u32>({KEEP}u))) {{ old = fetch(a.x, a.y); }}\n\
         \x20   store(a.x, a.y, vec4<u32>(word(m.x, b.x, old.x), word(m.y, b.y, old.y),\n\
         \x20       word(m.z, b.z, old.z), word(m.w, b.w, old.w)));\n\
         }}\n"
    ));
    text.push_str(&format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
         \x20       @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = wid.x + wid.y * nwg.x;\n\
         \x20   if (g >= params.n.y) {{\n\
         \x20       let e = (g - params.n.y) * {WORKGROUP}u + lid;\n\
         \x20       if (e < params.n.z) {{ edge(e); }}\n\
         \x20       return;\n\
         \x20   }}\n\
         \x20   var lo = 0u;\n\
         \x20   var hi = params.n.x;\n\
         \x20   loop {{\n\
         \x20       if (hi - lo <= 1u) {{ break; }}\n\
         \x20       let mid = (lo + hi) / 2u;\n\
         \x20       if (params.blocks[mid].a.x <= g) {{ lo = mid; }} else {{ hi = mid; }}\n\
         \x20   }}\n\
         \x20   let a = params.blocks[lo].a;\n\
         \x20   let b = params.blocks[lo].b;\n\
         \x20   let first = (g - a.x) * {span}u + lid;\n\
         \x20   for (var k = 0u; k < {per}u; k++) {{\n\
         \x20       let i = first + k * {WORKGROUP}u;\n\
         \x20       if (i >= a.y) {{ return; }}\n\
         \x20       let at = b.x + i;\n\
         \x20       var v = vec4<u32>(0u);\n\
         \x20       if (a.z < 4u) {{\n\
         \x20           v = load(a.w, at);\n\
         \x20           if (a.z != 0u) {{\n\
         \x20               let w = load(a.w, at + 1u);\n\
         \x20               switch a.z {{\n\
         \x20                   case 1u: {{ v = vec4<u32>(v.y, v.z, v.w, w.x); }}\n\
         \x20                   case 2u: {{ v = vec4<u32>(v.z, v.w, w.x, w.y); }}\n\
         \x20                   default: {{ v = vec4<u32>(v.w, w.x, w.y, w.z); }}\n\
         \x20               }}\n\
         \x20           }}\n\
         \x20       }}\n\
         \x20       store(b.y, b.z + i, v);\n\
         \x20   }}\n\
         }}\n",
        span = u64::from(WORKGROUP) * u64::from(per),
    ));
    text
}

/// An edge entry's mode for a word kept as the destination holds it.
pub(crate) const KEEP: u32 = 0xffff;
/// An edge entry's mode for a zero word.
pub(crate) const ZERO: u32 = 0xfffe;
/// An edge entry's mode for a word source binding: this plus its index.
pub(crate) const WORD: u32 = 0x8000;
