//! The field-name rule of the runtime (`gpudata::layout`'s `field_name.rs`), for names the
//! derive sees: identifiers joined by `.`, each with optional `[N]` indices (`position`,
//! `lights[1].color`). The derive crate cannot call the runtime, so the rule is written here
//! once more, with the runtime's words; `tests/ui/errors/field_names.rs` pins it and
//! `tests/format/errors.rs::layout_invalid_field_name` pins the runtime's.

/// What breaks the rule in `name`, in the runtime's words (`' ' at byte 1`), or `None`.
pub(crate) fn field_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("an empty name".to_owned());
    }
    if let Some((at, c)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')))
    {
        return Some(format!("{c:?} at byte {at}"));
    }
    let bytes = name.as_bytes();
    let segment = |at: usize| {
        Some(format!(
            "a segment at byte {at} that does not start with a letter or `_`"
        ))
    };
    let mut at = 0;
    loop {
        if !bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        {
            return segment(at);
        }
        while bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            at += 1;
        }
        while bytes.get(at) == Some(&b'[') {
            let start = at;
            let digits = bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            at += 1 + digits;
            if digits == 0 || bytes.get(at) != Some(&b']') {
                return Some(format!(
                    "an index at byte {start} that is not `[` digits `]`"
                ));
            }
            at += 1;
        }
        match bytes.get(at) {
            None => return None,
            Some(b'.') => at += 1,
            Some(_) => return segment(at),
        }
    }
}
