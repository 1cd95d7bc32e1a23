//! The one text builder of `const fn`s: [`Text`], a fixed buffer that compile-time messages
//! ([`Msg`]) and leaf paths ([`LeafName`]) append strings and numbers to; and [`fail`], a message
//! turned into a compile error.

#![allow(
    clippy::cast_possible_truncation,
    reason = "a decimal digit is below 10"
)]

/// Text built in `const fn`s: a fixed buffer of `CAPACITY` bytes.
///
/// Two ways to append, as the two uses need: [`str`](Self::str) appends a string whole or not at
/// all (a message keeps every part that fits), [`push`](Self::push) appends it or, once the
/// buffer is full, `...` (a path says it was cut). Either way the text stays UTF-8.
#[derive(Clone, Copy, Debug)]
pub struct Text<const CAPACITY: usize> {
    buf: [u8; CAPACITY],
    /// Bytes used.
    pub(super) len: usize,
}

/// A compile-time message.
pub type Msg = Text<640>;

/// A leaf's name (`lights[2].color`), built at compile time.
pub type LeafName = Text<120>;

impl<const CAPACITY: usize> Text<CAPACITY> {
    /// An empty text.
    pub const EMPTY: Text<CAPACITY> = Text::new();

    /// An empty text.
    #[must_use]
    pub const fn new() -> Text<CAPACITY> {
        Text {
            buf: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `s` whole, or nothing when it does not fit (so the text stays UTF-8).
    #[must_use]
    pub const fn str(mut self, s: &str) -> Text<CAPACITY> {
        let bytes = s.as_bytes();
        if self.len + bytes.len() > CAPACITY {
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
    pub const fn num(self, n: u64) -> Text<CAPACITY> {
        self.str(Decimal::new(n).as_str())
    }

    /// Appends `s` whole, or `...` once the buffer is full (names stay UTF-8).
    #[must_use]
    pub(crate) const fn push(mut self, s: &str) -> Text<CAPACITY> {
        let bytes = s.as_bytes();
        if self.len + bytes.len() > CAPACITY - 3 {
            if self.len + 3 <= CAPACITY {
                self.buf[self.len] = b'.';
                self.buf[self.len + 1] = b'.';
                self.buf[self.len + 2] = b'.';
                self.len += 3;
            }
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

    /// Appends `[i]` (see [`push`](Self::push)).
    #[must_use]
    pub(crate) const fn index(self, i: u64) -> Text<CAPACITY> {
        self.push("[").push(Decimal::new(i).as_str()).push("]")
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

/// Fails compilation with `msg`, reported at the caller (the expansion spans the call at the
/// user's token).
#[track_caller]
pub const fn fail(msg: &Msg) -> ! {
    panic!("{}", msg.as_str())
}

/// [`fail`] with a message passed by value (no constant for rustc to evaluate early).
#[track_caller]
pub const fn fail_with(msg: Msg) -> ! {
    panic!("{}", msg.as_str())
}

impl<const CAPACITY: usize> Default for Text<CAPACITY> {
    fn default() -> Text<CAPACITY> {
        Text::new()
    }
}

/// A number's decimal digits, written in `const fn`s.
#[derive(Clone, Copy)]
struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    /// The digits of `n`.
    const fn new(n: u64) -> Decimal {
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
        Decimal { digits, start }
    }

    /// The digits as text.
    const fn as_str(&self) -> &str {
        let (_, used) = self.digits.split_at(self.start);
        match core::str::from_utf8(used) {
            Ok(s) => s,
            Err(_) => "",
        }
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
}
