//! Name conversions for the generated marker module and marker types.

/// `GpuVertex` → `gpu_vertex`, `HTTPRequest` → `http_request`.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                None | Some('_') => false,
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) => p.is_uppercase() && next.is_some_and(char::is_lowercase),
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `position` → `Position`, `uv_0` → `Uv0`, `_reserved` → `Reserved`.
pub(crate) fn upper_camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for part in name.split('_') {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_words_and_acronyms() {
        assert_eq!(snake_case("Particle"), "particle");
        assert_eq!(snake_case("GpuVertex"), "gpu_vertex");
        assert_eq!(snake_case("HTTPRequest"), "http_request");
        assert_eq!(snake_case("Vertex2D"), "vertex2_d");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn upper_camel_case_joins_words() {
        assert_eq!(upper_camel_case("position"), "Position");
        assert_eq!(upper_camel_case("uv_0"), "Uv0");
        assert_eq!(upper_camel_case("_reserved"), "Reserved");
        assert_eq!(upper_camel_case("normalWs"), "NormalWs");
        assert_eq!(upper_camel_case("__"), "");
    }
}
