//! WGSL text through `Shader::parse`, then the struct checks and the side-by-side report of
//! every struct it declares: arbitrary text, spliced with pieces that chain and nest deeply
//! (sums, minus and member chains, index chains, `else if` chains, nested parentheses and
//! constructors, alias chains) on both sides of gpudata's bounds and past naga's stack (issue
//! 30). No abort, no panic; a refusal names a bound `gpudata_names::wgsl_source_shape` says the
//! text passes, and text it accepts is never refused for a bound.
#![no_main]

use arbitrary::Arbitrary;
use gpudata::check::{Shader, ShaderCheckError};
use gpudata::{GpuDataStructFormat, StructLayout, VertexFormat};
use libfuzzer_sys::fuzz_target;

/// One piece of the shader, its size taken modulo a little past the bound it tests.
#[derive(Arbitrary, Debug)]
enum Piece {
    /// Any text, spliced in as it is.
    Text(String),
    /// A function returning a sum of `n` terms.
    Sum(u16),
    /// `- - … a`.
    Negations(u16),
    /// `v.xyzw.xyzw…`.
    Members(u16),
    /// `v[0][0]…`.
    Indices(u16),
    /// `if … else if … else if …`.
    ElseIfs(u16),
    /// `((((1.0))))`.
    Parens(u16),
    /// `vec2<f32>(vec2<f32>(…, a).x, a).x`.
    Constructors(u16),
    /// `alias t0 = t1; alias t1 = t2; …`.
    Aliases(u32),
    /// A struct of up to eight members of the listed types, for the checks.
    Struct(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    pieces: Vec<Piece>,
    /// The host rows checked against each struct: `(name index, format index)`.
    fields: Vec<(u8, u8)>,
    packed: bool,
}

const MEMBER_TYPES: [&str; 8] = [
    "f32",
    "vec3<f32>",
    "u32",
    "atomic<u32>",
    "atomic<f32>",
    "vec2<f16>",
    "array<f32, 4>",
    "mat4x4<f32>",
];

fn push_piece(text: &mut String, index: usize, piece: &Piece) {
    let f = |body: String| format!("fn f{index}(a: f32, v: vec4<f32>) -> f32 {{ {body} }}\n");
    let chained = |n: u16, limit: usize, item: &str| item.repeat(usize::from(n) % limit);
    let piece = match piece {
        Piece::Text(t) => t.clone(),
        Piece::Sum(n) => f(format!("return a{};", chained(*n, 10_100, " + a"))),
        Piece::Negations(n) => f(format!("return {}a;", chained(*n, 10_100, "- "))),
        Piece::Members(n) => f(format!("return v{}.x;", chained(*n, 10_100, ".xyzw"))),
        Piece::Indices(n) => f(format!("return v{}[0];", chained(*n, 10_100, "[0]"))),
        Piece::ElseIfs(n) => {
            let links = chained(*n, 3_400, " else if a > 1.0 { return 1.0; }");
            f(format!("if a > 0.0 {{ return 0.0; }}{links} return a;"))
        }
        Piece::Parens(n) => {
            let n = usize::from(*n) % 300;
            format!("const c{index} = {}1.0{};\n", "(".repeat(n), ")".repeat(n))
        }
        Piece::Constructors(n) => {
            let n = usize::from(*n) % 300;
            f(format!(
                "return {}a{};",
                "vec2<f32>(".repeat(n),
                ", a).x".repeat(n)
            ))
        }
        Piece::Aliases(n) => {
            let n = *n as usize % 70_000;
            let mut chain = String::new();
            for i in 0..n {
                chain.push_str(&format!("alias t{index}_{i} = t{index}_{};\n", i + 1));
            }
            chain.push_str(&format!("alias t{index}_{n} = f32;\n"));
            chain
        }
        Piece::Struct(members) => {
            let mut s = format!("struct S{index} {{");
            for (m, ty) in members.iter().take(8).enumerate() {
                let ty = MEMBER_TYPES[usize::from(*ty) % MEMBER_TYPES.len()];
                s.push_str(&format!(" m{m}: {ty},"));
            }
            s.push_str(" }\n");
            s
        }
    };
    text.push_str(&piece);
}

fuzz_target!(|input: Input| {
    let mut text = String::new();
    for (index, piece) in input.pieces.iter().enumerate() {
        push_piece(&mut text, index, piece);
    }
    let shape = gpudata_names::wgsl_source_shape(&text);
    let shader = match Shader::parse(&text) {
        Ok(shader) => shader,
        Err(ShaderCheckError::TooComplex { bound, .. }) => {
            let passed = shape.expect_err("a bound the shape does not see");
            assert_eq!(passed.bound, bound);
            return;
        }
        Err(ShaderCheckError::Parse { .. }) => return,
        Err(other) => panic!("parse returned {other:?}"),
    };
    assert!(shape.is_ok(), "parsed past a bound: {shape:?}");
    let layout = if input.packed {
        StructLayout::Packed
    } else {
        StructLayout::WgslStorage
    };
    let fields: Vec<(String, VertexFormat)> = input
        .fields
        .iter()
        .filter_map(|(name, f)| {
            VertexFormat::ALL
                .get(usize::from(*f))
                .map(|f| (format!("m{}", name % 8), *f))
        })
        .collect();
    let Ok(host) = GpuDataStructFormat::new(layout, fields) else {
        return;
    };
    let names: Vec<String> = shader
        .module()
        .types
        .iter()
        .filter_map(|(_, t)| t.name.clone())
        .collect();
    for name in names {
        // Any verdict; neither may panic.
        let _ = shader.check_struct_format(&host, &name);
        let _ = shader.struct_report(&host, &name);
    }
});
