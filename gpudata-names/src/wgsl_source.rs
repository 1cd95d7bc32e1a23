//! The bounds WGSL text must stay within before naga reads it, and the stack naga's reader needs
//! for text within them: one rule for `gpudata::check::Shader::parse` (and the CLI's `check` and
//! `layout --check` through it) and the derive's compile-time shader check.
//!
//! naga 30's WGSL front end recurses once per level of an expression's syntax tree while it
//! lowers the tree (a sum `a + b + c + …` is a left-nested tree as deep as it has terms, as are
//! chains of unary operators, `.member`s, `[index]`es and `else if`s), once per bracket while it
//! parses (it stops itself at 200), and once per module-scope declaration of a chain of
//! declarations that name the next. In an unoptimized build (tests, and proc macros, which cargo
//! builds without optimization even in release builds) a level costs up to 6.1 KiB of stack
//! (measured, below), so a 2,000-term sum overflows a 2 MiB test thread's stack and a 5,000-term
//! sum the 8 MiB main thread's: the process aborts. [`wgsl_source_shape`] reads the text once
//! (linear, no allocation), refuses it past a [`WgslBound`], and says how deep it goes; its
//! [`parse_stack_bytes`](WgslSourceShape::parse_stack_bytes) is the stack to parse it on.
//!
//! Measured with naga 30.0.2 unoptimized, Rust 1.95, x86-64 Linux: the smallest thread stack
//! that parsed and laid out a shader, for 100, 1,000 and 4,000 levels: a sum of `a`s 6.1 KiB a
//! term, `-`/`!` chains and `.xyzw` chains 5.5 KiB a level, `[0]` chains 5.4 KiB, `else if`
//! chains 11.3 KiB a link (two levels here: `else` and `if`), nested `vec2<f32>(…, a).x` 22 KiB
//! a level (four levels here); nested parentheses 7.7 KiB and nested calls 9.3 KiB a level up to
//! naga's own parser limit (under 2 MiB); chains of `const`s or `alias`es naming the next 0.66
//! KiB a declaration.

use core::fmt;

/// One of the bounds of [`wgsl_source_shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WgslBound {
    /// Brackets (`(`, `[`, `{`) nested more than [`MAX_NESTING`] deep. naga's parser refuses
    /// text nested 200 deep itself, so no shader naga reads is refused by this bound.
    Nesting,
    /// An expression or statement deeper than [`MAX_DEPTH`] levels, counted along its deepest
    /// path: each operator (`+`, `.`, `<`, `=`, ...), `[` index, bracket, `if` and `else`.
    Depth,
    /// More than [`MAX_DECLARATIONS`] module-scope declarations.
    Declarations,
}

/// The deepest bracket nesting [`wgsl_source_shape`] accepts.
pub const MAX_NESTING: u32 = 255;
/// The deepest expression or statement [`wgsl_source_shape`] accepts: a sum of 9,998 terms in a
/// function's `return` passes (the `->` and the body's braces count too).
pub const MAX_DEPTH: u32 = 10_000;
/// The most module-scope declarations [`wgsl_source_shape`] accepts.
pub const MAX_DECLARATIONS: u32 = 65_536;

/// The stack of a parse besides its levels: naga's parser at its own limit of 200 nested
/// brackets (under 2 MiB measured) and the fixed frames, twice over.
const STACK_FLOOR: usize = 4 << 20;
/// The stack of one level of [`WgslSourceShape::depth`] (6.1 KiB measured at most).
const STACK_PER_LEVEL: usize = 8 << 10;
/// The stack of one module-scope declaration (0.66 KiB measured).
const STACK_PER_DECLARATION: usize = 1 << 10;

impl WgslBound {
    /// The bound's value.
    #[must_use]
    pub const fn limit(self) -> u32 {
        match self {
            WgslBound::Nesting => MAX_NESTING,
            WgslBound::Depth => MAX_DEPTH,
            WgslBound::Declarations => MAX_DECLARATIONS,
        }
    }
}

impl fmt::Display for WgslBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = self.limit();
        match self {
            WgslBound::Nesting => write!(f, "brackets nest more than {limit} deep"),
            WgslBound::Depth => write!(
                f,
                "an expression or statement is more than {limit} levels deep (operators, indices, brackets, `if` and `else` counted along its deepest path); split it with `let`"
            ),
            WgslBound::Declarations => {
                write!(f, "more than {limit} module-scope declarations")
            }
        }
    }
}

/// A bound the text passes, and the byte offset of the expression, statement or declaration
/// (or the bracket) that passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgslSourceProblem {
    /// The bound.
    pub bound: WgslBound,
    /// The byte offset in the text where what passes it starts.
    pub at: usize,
}

/// How deep WGSL text goes, as [`wgsl_source_shape`] counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WgslSourceShape {
    /// The deepest expression or statement, in levels (at most [`MAX_DEPTH`]).
    pub depth: u32,
    /// The deepest bracket nesting (at most [`MAX_NESTING`]).
    pub nesting: u32,
    /// The module-scope declarations (at most [`MAX_DECLARATIONS`]).
    pub declarations: u32,
}

impl WgslSourceShape {
    /// The thread stack to parse the text on with naga: 4 MiB, plus 8 KiB a level of
    /// [`depth`](Self::depth) and 1 KiB a declaration (a third and a half more than measured);
    /// at most 146 MiB, within the bounds. Only the pages a parse touches are used.
    #[must_use]
    pub const fn parse_stack_bytes(&self) -> usize {
        STACK_FLOOR
            .saturating_add(STACK_PER_LEVEL.saturating_mul(self.depth as usize))
            .saturating_add(STACK_PER_DECLARATION.saturating_mul(self.declarations as usize))
    }
}

/// A parse [`WgslSourceShape::run_parse`] could not finish.
#[cfg(feature = "std")]
#[derive(Debug)]
pub enum ParseThreadError {
    /// The thread could not start (the system refused its stack).
    Spawn {
        /// The stack asked for, in bytes.
        stack: usize,
        /// The system's error.
        error: std::io::Error,
    },
    /// The parse panicked, with this message.
    Panicked(String),
}

#[cfg(feature = "std")]
impl fmt::Display for ParseThreadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseThreadError::Spawn { stack, error } => write!(
                f,
                "cannot start a thread with {stack} bytes of stack to parse it on: {error}"
            ),
            ParseThreadError::Panicked(message) => write!(f, "naga panicked reading it: {message}"),
        }
    }
}

#[cfg(feature = "std")]
impl WgslSourceShape {
    /// Runs `parse` (naga reading text of this shape) on a thread of
    /// [`parse_stack_bytes`](Self::parse_stack_bytes) of stack and returns its result; where the
    /// platform has no threads (`wasm32-unknown-unknown`), on this one.
    ///
    /// # Errors
    /// [`ParseThreadError::Spawn`] when the thread cannot start, [`ParseThreadError::Panicked`]
    /// when `parse` panics (the panic hook has printed it).
    pub fn run_parse<R: Send>(
        &self,
        parse: impl FnOnce() -> R + Send,
    ) -> Result<R, ParseThreadError> {
        let stack = self.parse_stack_bytes();
        // Lent to the thread, so that it is still here when no thread starts.
        let mut parse = Some(parse);
        let ran = std::thread::scope(|scope| {
            let slot = &mut parse;
            std::thread::Builder::new()
                .name("wgsl parse".into())
                .stack_size(stack)
                .spawn_scoped(scope, move || slot.take().map(|f| f()))
                .map(|thread| thread.join())
        });
        match ran {
            Ok(Ok(Some(done))) => Ok(done),
            Ok(Ok(None)) => Err(ParseThreadError::Panicked("the parse did not run".into())),
            Ok(Err(panic)) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|m| (*m).into())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".into());
                Err(ParseThreadError::Panicked(message))
            }
            Err(error) => match parse.take() {
                Some(f) if error.kind() == std::io::ErrorKind::Unsupported => Ok(f()),
                _ => Err(ParseThreadError::Spawn { stack, error }),
            },
        }
    }
}

/// The line and column (both from 1; the column in bytes) of byte `offset` of `source`, or of
/// its end when `offset` is past it.
#[must_use]
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let before = &source.as_bytes()[..end];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// One bracket level's state: the current item (between `,`, `;` and a `}` that no `else`
/// follows), its operators and its deepest closed group, and the deepest item so far; with
/// where the depth of each comes from (`usize::MAX`: nowhere yet).
#[derive(Clone, Copy)]
struct Level {
    ops: u32,
    inner: u32,
    /// Where the deepest closed group of the current item gets its depth.
    inner_at: usize,
    best: u32,
    /// Where the deepest item gets its depth.
    best_at: usize,
    /// Where the current item starts.
    start: usize,
}

impl Level {
    const NEW: Level = Level {
        ops: 0,
        inner: 0,
        inner_at: usize::MAX,
        best: 0,
        best_at: usize::MAX,
        start: usize::MAX,
    };

    /// The current item's depth.
    const fn depth(&self) -> u32 {
        self.ops.saturating_add(self.inner)
    }

    /// Where the current item's depth comes from: its deepest group's, when that is most of it
    /// (a long statement inside a function), else its own start.
    const fn anchor(&self) -> usize {
        if self.inner >= self.ops && self.inner_at != usize::MAX {
            self.inner_at
        } else {
            self.start
        }
    }
}

/// The brackets, items and depth of WGSL text, in one pass.
struct Scan {
    levels: [Level; MAX_NESTING as usize + 1],
    /// Open brackets.
    open: usize,
    shape: WgslSourceShape,
}

impl Scan {
    fn level(&mut self) -> &mut Level {
        &mut self.levels[self.open]
    }

    fn problem(bound: WgslBound, at: usize) -> WgslSourceProblem {
        WgslSourceProblem { bound, at }
    }

    /// A token of the current item at `at`.
    fn token(&mut self, at: usize) {
        let level = self.level();
        if level.start == usize::MAX {
            level.start = at;
        }
    }

    /// One more level in the current item.
    fn op(&mut self) -> Result<(), WgslSourceProblem> {
        let level = self.level();
        level.ops = level.ops.saturating_add(1);
        self.check()
    }

    fn check(&mut self) -> Result<(), WgslSourceProblem> {
        let level = self.level();
        if level.depth() > MAX_DEPTH {
            return Err(Self::problem(WgslBound::Depth, level.anchor()));
        }
        Ok(())
    }

    /// Ends the current item (a declaration at module scope).
    fn end_item(&mut self) -> Result<(), WgslSourceProblem> {
        let module_scope = self.open == 0;
        let level = self.level();
        let started = level.start;
        if level.depth() > level.best || level.best_at == usize::MAX {
            level.best = level.depth();
            level.best_at = level.anchor();
        }
        level.ops = 0;
        level.inner = 0;
        level.inner_at = usize::MAX;
        level.start = usize::MAX;
        if module_scope && started != usize::MAX {
            self.shape.declarations = self.shape.declarations.saturating_add(1);
            if self.shape.declarations > MAX_DECLARATIONS {
                return Err(Self::problem(WgslBound::Declarations, started));
            }
        }
        Ok(())
    }

    fn open(&mut self, at: usize) -> Result<(), WgslSourceProblem> {
        if self.open >= MAX_NESTING as usize {
            return Err(Self::problem(WgslBound::Nesting, at));
        }
        self.open += 1;
        self.levels[self.open] = Level::NEW;
        self.shape.nesting = self.shape.nesting.max(self.open as u32);
        Ok(())
    }

    /// Closes the innermost bracket (a closer without an opener is naga's to report).
    fn close(&mut self) -> Result<(), WgslSourceProblem> {
        if self.open == 0 {
            return Ok(());
        }
        self.end_item()?;
        let closed = *self.level();
        let group = closed.best.saturating_add(1);
        self.open -= 1;
        let level = self.level();
        if group > level.inner {
            level.inner = group;
            level.inner_at = closed.best_at;
        }
        self.check()
    }
}

/// A token of WGSL text: a word (identifier or keyword), a number, or one byte of anything else.
#[derive(Clone, Copy)]
enum Token<'a> {
    Word(&'a [u8]),
    Number,
    Mark(u8),
}

/// Whether `b` continues an identifier (any non-ASCII byte does: WGSL identifiers may be
/// Unicode, and other text is naga's to refuse).
const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The end of the number starting at `from`: digits, letters, `.`, and a sign after an exponent
/// (`1.5e-3`, `0x1p+4`, `2u`, `.5h`).
fn number_end(bytes: &[u8], from: usize) -> usize {
    let hex = bytes
        .get(from..from + 2)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"0x"));
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        let exponent = if hex { b'p' } else { b'e' };
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' {
            i += 1;
            if b.eq_ignore_ascii_case(&exponent) && matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
        } else {
            break;
        }
    }
    i
}

/// The end of the block comment whose `/*` is at `from` (WGSL's block comments nest).
fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'*')) => {
                depth += 1;
                i += 2;
            }
            (b'*', Some(b'/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// How deep WGSL text goes, or the first [`WgslBound`] it passes, read in one linear pass
/// without allocating (about 3 KiB of stack).
///
/// The depth of an expression or statement counts, along its deepest path, each operator and
/// punctuation mark other than brackets, `,`, `;` and `:` (`+`, `-`, `.`, `<`, `>`, `=`, `@`, `&`;
/// a two-character operator counts twice), each `[` index, each pair of brackets, and each `if`
/// and `else`; a list is as deep as its deepest item. This bounds the depth of the tree naga
/// builds (each of its nodes is at least one such mark, or a bracket around its operands), so
/// text within the bounds parses on a thread of
/// [`parse_stack_bytes`](WgslSourceShape::parse_stack_bytes). Comments are skipped; numbers
/// (`1.5e-3`) are one token. What is not WGSL is left to naga to refuse.
///
/// # Errors
/// The first bound passed and where: [`WgslBound::Nesting`] at the bracket,
/// [`WgslBound::Depth`] and [`WgslBound::Declarations`] at the start of the expression,
/// statement or declaration.
pub fn wgsl_source_shape(source: &str) -> Result<WgslSourceShape, WgslSourceProblem> {
    let bytes = source.as_bytes();
    let mut scan = Scan {
        levels: [Level::NEW; MAX_NESTING as usize + 1],
        open: 0,
        shape: WgslSourceShape::default(),
    };
    // A `}` just closed: the item ends there unless `else` follows.
    let mut after_brace = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b'/' && next == Some(b'/') {
            while bytes.get(i).is_some_and(|&c| c != b'\n' && c != b'\r') {
                i += 1;
            }
            continue;
        }
        if b == b'/' && next == Some(b'*') {
            i = block_comment_end(bytes, i);
            continue;
        }
        let at = i;
        let token = if is_word_byte(b) && !b.is_ascii_digit() {
            while bytes.get(i).is_some_and(|&c| is_word_byte(c)) {
                i += 1;
            }
            Token::Word(&bytes[at..i])
        } else if b.is_ascii_digit() || (b == b'.' && next.is_some_and(|c| c.is_ascii_digit())) {
            i = number_end(bytes, i);
            Token::Number
        } else {
            i += 1;
            Token::Mark(b)
        };
        if after_brace {
            after_brace = false;
            if !matches!(token, Token::Word(b"else")) {
                scan.end_item()?;
            }
        }
        if !matches!(token, Token::Mark(b',' | b';')) {
            scan.token(at);
        }
        match token {
            Token::Word(b"if" | b"else") => scan.op()?,
            Token::Word(_) | Token::Number | Token::Mark(b':') => {}
            Token::Mark(b'(' | b'{') => scan.open(at)?,
            Token::Mark(b'[') => {
                scan.op()?;
                scan.open(at)?;
            }
            Token::Mark(b')' | b']') => scan.close()?,
            Token::Mark(b'}') => {
                scan.close()?;
                after_brace = true;
            }
            Token::Mark(b',' | b';') => scan.end_item()?,
            Token::Mark(_) => scan.op()?,
        }
    }
    while scan.open > 0 {
        scan.close()?;
    }
    scan.end_item()?;
    scan.shape.depth = scan.levels[0].best;
    Ok(scan.shape)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    use super::{
        MAX_DECLARATIONS, MAX_DEPTH, MAX_NESTING, WgslBound, WgslSourceProblem, wgsl_source_shape,
    };

    fn depth(text: &str) -> u32 {
        wgsl_source_shape(text).unwrap().depth
    }

    #[test]
    fn depth_counts_operators_indices_brackets_and_else_if_along_the_deepest_path() {
        assert_eq!(depth(""), 0);
        assert_eq!(depth("const a = 1;"), 1);
        // `->` (two marks), the body's braces, three `+`.
        assert_eq!(depth("fn f(a: f32) -> f32 { return a + a + a + a; }"), 6);
        // A list is as deep as its deepest item: a table of constants is shallow.
        assert_eq!(depth("const t = array(1.0, 2.0, 3.5e-3, 0x1p+4, .5h);"), 2);
        // The index chain counts each `[`, though the indices are shallow.
        assert_eq!(depth("const b = a[0][1][2];"), 5);
        // Operators after a group count above it.
        assert_eq!(depth("const c = (a + a + a) + a + a;"), 6);
        // Each `else if` link is two levels; a `}` without `else` ends the statement.
        assert_eq!(depth("fn f() { if a {} else if b {} else if c {} }"), 7);
        assert_eq!(depth("fn f() { if a {} if b {} if c {} }"), 3);
        // Comments are skipped, block comments nest.
        assert_eq!(depth("// a + a + a\nconst a = /* + /* + */ + */ 1;"), 1);
    }

    #[test]
    fn module_scope_items_are_declarations() {
        let shape = wgsl_source_shape(
            "enable f16; struct S { a: f32, b: vec3<f32> }; const c = 1; fn f() { let x = (1); }",
        )
        .unwrap();
        assert_eq!(shape.declarations, 4);
        assert_eq!(shape.nesting, 2);
    }

    fn sum(terms: usize) -> String {
        let mut text = String::from("fn f(a: f32) -> f32 {\n    return a");
        for _ in 1..terms {
            text.push_str(" + a");
        }
        text.push_str(";\n}\n");
        text
    }

    #[test]
    fn each_bound_is_reported_where_it_is_passed() {
        assert_eq!(depth(&sum(MAX_DEPTH as usize - 2)), MAX_DEPTH);
        assert_eq!(
            wgsl_source_shape(&sum(MAX_DEPTH as usize - 1)),
            Err(WgslSourceProblem {
                bound: WgslBound::Depth,
                at: 26
            })
        );
        let nested = |n: usize| {
            let mut text = String::from("const a = ");
            text.extend(core::iter::repeat_n('(', n));
            text.push('1');
            text.extend(core::iter::repeat_n(')', n));
            text
        };
        assert_eq!(
            wgsl_source_shape(&nested(MAX_NESTING as usize))
                .unwrap()
                .nesting,
            MAX_NESTING
        );
        assert_eq!(
            wgsl_source_shape(&nested(MAX_NESTING as usize + 1)),
            Err(WgslSourceProblem {
                bound: WgslBound::Nesting,
                at: 10 + MAX_NESTING as usize
            })
        );
        let mut many = String::new();
        for _ in 0..=MAX_DECLARATIONS {
            many.push_str("alias t = f32;\n");
        }
        assert_eq!(
            wgsl_source_shape(&many),
            Err(WgslSourceProblem {
                bound: WgslBound::Declarations,
                at: 15 * MAX_DECLARATIONS as usize
            })
        );
    }

    #[test]
    fn the_stack_grows_with_depth_and_declarations_and_stays_bounded() {
        let shallow = wgsl_source_shape("const a = 1;").unwrap();
        assert_eq!(
            shallow.parse_stack_bytes(),
            (4 << 20) + (8 << 10) + (1 << 10)
        );
        let deepest = super::WgslSourceShape {
            depth: MAX_DEPTH,
            nesting: MAX_NESTING,
            declarations: MAX_DECLARATIONS,
        };
        assert_eq!(
            deepest.parse_stack_bytes(),
            (4 << 20) + 10_000 * 8192 + 65_536 * 1024
        );
        assert!(deepest.parse_stack_bytes() < 147 << 20);
    }

    #[test]
    fn positions_are_lines_and_byte_columns_from_one() {
        let text = "ab\ncdé\nf";
        assert_eq!(super::line_column(text, 0), (1, 1));
        assert_eq!(super::line_column(text, 4), (2, 2));
        // Inside `é`: its start. Past the end: the end.
        assert_eq!(super::line_column(text, 6), (2, 3));
        assert_eq!(super::line_column(text, 99), (3, 2));
    }

    #[cfg(feature = "std")]
    #[test]
    fn a_parse_runs_on_the_stack_it_needs_and_a_panic_is_an_error() {
        // 2,048 frames of over 1 KiB: more than a test thread's 2 MiB, within the 12 MiB of a
        // text 1,000 levels deep.
        fn deep(n: u32) -> u32 {
            let frame = core::hint::black_box([n as u8; 1024]);
            if n == 0 {
                0
            } else {
                deep(n - 1) + u32::from(frame[0] & 1)
            }
        }
        let shape = super::WgslSourceShape {
            depth: 1000,
            ..Default::default()
        };
        assert_eq!(shape.run_parse(|| deep(2048)).unwrap(), 1024);
        let panicked = shape.run_parse(|| -> u32 { panic!("boom") }).unwrap_err();
        assert_eq!(panicked.to_string(), "naga panicked reading it: boom");
    }
}
