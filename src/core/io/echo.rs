//! Quoting user input inside error messages: a message echoes at most a
//! few hundred bytes of what the user wrote, with control characters
//! escaped, so a NUL byte or a 100 MB line never reaches the terminal raw.

/// Longest echo of one piece of input, bytes (before escaping).
pub const MAX_ECHO_BYTES: usize = 200;

/// Longest line of a message built around a parser's own report (TOML
/// errors quote the offending source line), bytes.
pub const MAX_MESSAGE_LINE_BYTES: usize = 300;

/// `text` as it may appear in a message: control characters (NUL, escape
/// sequences, newlines), U+FEFF and the bidirectional overrides escaped as
/// `\u{..}`, `\n`, `\t`…, and
/// anything beyond [`MAX_ECHO_BYTES`] cut at a character boundary with a
/// note of the full length.
pub fn shown(text: &str) -> String {
    cut(text, MAX_ECHO_BYTES)
}

/// Longest `{}` text of a number a message quotes before it switches to
/// the exponent form.
const MAX_PLAIN_NUMBER_CHARS: usize = 24;

/// The number `x` as a message quotes it: Rust's `{}` text (`0.5`, `-3`,
/// `1000000`), unless that is longer than 24 characters, then `{:e}`
/// (`1e300`, `-2.5e-30`): `{}` writes every digit, 301 of them for
/// `1e300`. Both read back as `x`.
pub fn shown_number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() > MAX_PLAIN_NUMBER_CHARS {
        format!("{x:e}")
    } else {
        plain
    }
}

/// Every line of a multi-line message (such as a TOML parse error, which
/// quotes the source line) capped at [`MAX_MESSAGE_LINE_BYTES`] and
/// escaped like [`shown`]; the line breaks themselves are kept.
pub fn capped_lines(message: &str) -> String {
    message
        .lines()
        .map(|l| cut(l, MAX_MESSAGE_LINE_BYTES))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Control characters, the byte order mark and the bidirectional
/// overrides (which reorder what a terminal shows).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || c == '\u{feff}'
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 16);
    for c in text[..end].chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if end < text.len() {
        out.push_str(&format!("… ({} bytes in all)", text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_or_tiny_number_was_quoted_with_every_digit() {
        assert_eq!(shown_number(0.5), "0.5");
        assert_eq!(shown_number(-3.0), "-3");
        assert_eq!(shown_number(1e12), "1000000000000");
        assert_eq!(shown_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(shown_number(1e30), "1e30");
        assert_eq!(shown_number(-1e300), "-1e300");
        assert_eq!(shown_number(2.5e-30), "2.5e-30");
        assert_eq!(shown_number(f64::NAN), "NaN");
        assert_eq!(shown_number(f64::NEG_INFINITY), "-inf");
        // Either form reads back as the number.
        for x in [1e30, -1e300, 2.5e-30, 0.30000000000000004, 123456.789] {
            assert_eq!(shown_number(x).parse::<f64>(), Ok(x));
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(shown("a\0b\x1b[2Jc\n"), "a\\u{0}b\\u{1b}[2Jc\\n");
        assert_eq!(shown("\u{feff}id"), "\\u{feff}id");
        assert_eq!(shown("déjà vu"), "déjà vu");
        assert_eq!(shown("a\u{202e}b"), "a\\u{202e}b");
    }

    #[test]
    fn long_input_is_cut_at_a_character_boundary_with_its_length() {
        let long = "é".repeat(1000);
        let s = shown(&long);
        assert!(s.len() < MAX_ECHO_BYTES + 40, "{}", s.len());
        assert!(s.ends_with("… (2000 bytes in all)"), "{s}");
        let lines = capped_lines(&format!("short\n{}\nend", "x".repeat(10_000)));
        let v: Vec<&str> = lines.lines().collect();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0], "short");
        assert!(v[1].len() < MAX_MESSAGE_LINE_BYTES + 40);
        assert_eq!(v[2], "end");
    }
}
