//! The WGSL of the block-copy kernels ([`block`](super::block)): the body kernel, whose
//! entries are found by a binary search over their first workgroups, and the edge kernel, which
//! stores zeros and composes edge vectors word by word (a kernel of its own, so that the body
//! kernel's code is only the copy).

use crate::ops::kernels::select::rows::WORKGROUP;

/// An edge entry's mode for a word kept as the destination holds it.
pub(crate) const KEEP: u32 = 0xffff;
/// An edge entry's mode for a zero word.
pub(crate) const ZERO: u32 = 0xfffe;
/// An edge entry's mode for a word source binding: this plus its index.
pub(crate) const WORD: u32 = 0x8000;

/// A `switch` over `count` bindings: one case per binding (`arm` of its index), the last as
/// the default.
fn switch(count: usize, arm: impl Fn(usize) -> String) -> String {
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
}

/// The function `name(which, at)` returning element `at` of binding `which` of the `count`
/// bindings `array0..` (zero where there are none).
fn getter(name: &str, which: &str, ty: &str, count: usize, array: &str) -> String {
    let mut text = format!("fn {name}({which}: u32, at: u32) -> {ty} {{\n    var v: {ty};\n");
    if count > 0 {
        text.push_str(&format!(
            "    switch {which} {{\n{}    }}\n",
            switch(count, |i| format!("v = {array}{i}[at];"))
        ));
    }
    text.push_str("    return v;\n}\n");
    text
}

/// The uniform, the bindings, and the functions loading a source vector (`load`) and storing a
/// destination vector (`store`).
fn common(sources: usize, words: usize, targets: usize, capacity: u64) -> String {
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
    text.push_str(&getter("load", "s", "vec4<u32>", sources, "src"));
    text.push_str(&format!(
        "fn store(d: u32, at: u32, v: vec4<u32>) {{\n    switch d {{\n{}    }}\n}}\n",
        switch(targets, |d| format!("dst{d}[at] = v;"))
    ));
    text
}

/// The binary search for the entry of workgroup `g` among the first `params.n.x`, and the
/// loop over the `per` vectors of each invocation (vector `i` of the entry's `a.y`), running
/// `step`.
fn entries(per: u32, step: &str) -> String {
    format!(
        "\x20   var lo = 0u;\n\
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
         {step}\
         \x20   }}\n",
        span = u64::from(WORKGROUP) * u64::from(per),
    )
}

/// The entry point's signature and the workgroup's index `g`.
fn main_head() -> String {
    format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
         \x20       @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = wid.x + wid.y * nwg.x;\n"
    )
}

/// The body kernel copying the blocks of its uniform table (`capacity` entries, `params.n.x` of
/// them) from `sources` source bindings into `targets` destination bindings. Block `b` is
/// `a = (first workgroup, vectors, phase, source binding)`, `b = (source vector, destination
/// binding, destination vector, 0)`. With phase 0 the source vectors are the words to copy;
/// with phase `p` (1 to 3: the source is `4p` bytes past a 16-byte boundary) vector `i` is the
/// last `4 - p` words of source vector `i` and the first `p` of vector `i + 1`: every load and
/// store is a whole aligned vector (a neighbour's load comes from the cache).
pub(crate) fn body_wgsl(sources: usize, targets: usize, capacity: u64, per: u32) -> String {
    let step = "\x20       let at = b.x + i;\n\
                \x20       var v = load(a.w, at);\n\
                \x20       if (a.z != 0u) {\n\
                \x20           let w = load(a.w, at + 1u);\n\
                \x20           switch a.z {\n\
                \x20               case 1u: { v = vec4<u32>(v.y, v.z, v.w, w.x); }\n\
                \x20               case 2u: { v = vec4<u32>(v.z, v.w, w.x, w.y); }\n\
                \x20               default: { v = vec4<u32>(v.w, w.x, w.y, w.z); }\n\
                \x20           }\n\
                \x20       }\n\
                \x20       store(b.y, b.z + i, v);\n";
    format!(
        "{}{}{}}}\n",
        common(sources, 0, targets, capacity),
        main_head(),
        entries(per, step)
    )
}

/// The edge kernel: zero entries first (`params.n.x` of them, over the first `params.n.y`
/// workgroups: `a = (first workgroup, vectors, 4, 0)`, `b = (0, destination binding,
/// destination vector, 0)`), then edge entries (`params.n.z`, one per invocation of the
/// workgroups after), each composing one destination vector word by word: `a = (destination
/// binding, vector, modes of words 0 and 1, of words 2 and 3)` (16 bits each: a vector source
/// binding, [`WORD`] plus a word source binding, [`ZERO`] or [`KEEP`]), `b` = the words' source
/// word indices. A vector with a kept word is read first; no other invocation writes its words.
pub(crate) fn edge_wgsl(
    sources: usize,
    words: usize,
    targets: usize,
    capacity: u64,
    per: u32,
) -> String {
    let mut text = common(sources, words, targets, capacity);
    text.push_str(&getter("load_word", "s", "u32", words, "wsrc"));
    text.push_str(&getter("fetch", "d", "vec4<u32>", targets, "dst"));
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
         }}\n\
         fn zeros(g: u32, lid: u32) {{\n{}}}\n",
        entries(per, "\x20       store(b.y, b.z + i, vec4<u32>(0u));\n")
    ));
    text.push_str(&main_head());
    text.push_str(&format!(
        "\x20   if (g < params.n.y) {{\n\
         \x20       zeros(g, lid);\n\
         \x20   }} else {{\n\
         \x20       let e = (g - params.n.y) * {WORKGROUP}u + lid;\n\
         \x20       if (e < params.n.z) {{ edge(e); }}\n\
         \x20   }}\n\
         }}\n"
    ));
    text
}
