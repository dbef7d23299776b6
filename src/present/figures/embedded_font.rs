//! The bundled font inside SVGs. Every SVG a figure becomes (screen and
//! paper style) carries the glyphs its text uses, a subset of DejaVu Sans
//! (`font_subset`), as one CSS `@font-face` with a TrueType data
//! URI, and every text names that face first: the SVG looks the same in
//! every viewer. A page that inlines several figures (the HTML report)
//! strips each figure's face ([`strip_face`]) and declares one face with
//! the glyphs of them all ([`font_face`] of the union of their
//! [`text_chars`]): faces of one family with different subsets would
//! conflict, and the browser would use one of them for every figure.

use std::collections::BTreeSet;

use super::font_subset::{base64, subset};
use super::style::FONT;
use crate::core::error::{Error, Result};

/// The family name of the embedded face.
pub const EMBEDDED_FAMILY: &str = "tenantsim-DejaVuSans";

/// Where the face goes: this element, first in the SVG.
const FACE_START: &str = "<defs><style>@font-face{";
const FACE_END: &str = "</style></defs>\n";

/// Add the characters of the text of `svg` (the content of its `<text>`
/// elements as plotters writes them, entities decoded, line breaks
/// skipped) to `into`.
pub fn text_chars(svg: &str, into: &mut BTreeSet<char>) {
    let mut rest = svg;
    while let Some(open) = rest.find("<text") {
        rest = &rest[open..];
        let Some(gt) = rest.find('>') else { return };
        let body = &rest[gt + 1..];
        let end = body.find("</text>").unwrap_or(body.len());
        let mut text = &body[..end];
        while let Some(c) = text.chars().next() {
            let entity = [
                ("&lt;", '<'),
                ("&gt;", '>'),
                ("&amp;", '&'),
                ("&quot;", '"'),
                ("&apos;", '\''),
            ]
            .into_iter()
            .find(|(e, _)| text.starts_with(e));
            match entity {
                Some((e, c)) => {
                    into.insert(c);
                    text = &text[e.len()..];
                }
                None => {
                    if !matches!(c, '\n' | '\r' | '\t') {
                        into.insert(c);
                    }
                    text = &text[c.len_utf8()..];
                }
            }
        }
        rest = &body[end..];
    }
}

/// The `@font-face` rule of the bundled font's subset holding `chars`,
/// and the space and `x` (viewers take the `ex` that places
/// vertically-centred text from the `x` glyph).
pub fn font_face(chars: &BTreeSet<char>) -> Result<String> {
    let mut chars = chars.clone();
    chars.extend([' ', 'x']);
    let font = subset(FONT, &chars)?;
    Ok(format!(
        "@font-face{{font-family:\"{EMBEDDED_FAMILY}\";src:url(data:font/ttf;base64,{}) format(\"truetype\");}}",
        base64(&font)
    ))
}

/// `svg` as plotters drew it with the glyphs of its text embedded (the
/// face first in the SVG) and every text set in the embedded face;
/// viewers that skip `@font-face` (and the PDF converter) fall back to
/// DejaVu Sans, then `sans-serif`.
pub fn embed(svg: &str) -> Result<String> {
    let mut chars = BTreeSet::new();
    text_chars(svg, &mut chars);
    let face = font_face(&chars)?;
    let Some(end) = svg.find(">\n") else {
        return Err(Error::input("the drawn SVG has no root element"));
    };
    let body = svg[end + 2..].replace(
        "font-family=\"sans-serif\"",
        &format!("font-family=\"{EMBEDDED_FAMILY}, DejaVu Sans, sans-serif\""),
    );
    Ok(format!(
        "{}{FACE_START}{}{FACE_END}{body}",
        &svg[..end + 2],
        &face["@font-face{".len()..]
    ))
}

/// `svg` without the face [`embed`] put in it (unchanged when it has
/// none); its texts still name the embedded family.
pub fn strip_face(svg: &str) -> String {
    match svg.find(FACE_START) {
        Some(start) => match svg[start..].find(FACE_END) {
            Some(len) => format!("{}{}", &svg[..start], &svg[start + len + FACE_END.len()..]),
            None => svg.to_string(),
        },
        None => svg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWN: &str = "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">\n\
        <text x=\"1\" y=\"2\" font-family=\"sans-serif\">\nθ &lt; 0.2 &amp; b\n</text>\n\
        <line x1=\"0\" y1=\"0\" x2=\"9\" y2=\"9\"/>\n\
        <text x=\"1\" y=\"5\" font-family=\"sans-serif\">\nQ\n</text>\n</svg>\n";

    #[test]
    fn text_chars_are_the_texts_characters_entities_decoded() {
        let mut chars = BTreeSet::new();
        text_chars(DRAWN, &mut chars);
        let want: BTreeSet<char> = "θ < 0.2 & bQ".chars().collect();
        assert_eq!(chars, want, "markup (svg, line, x1 = …) is not text");
    }

    #[test]
    fn embed_then_strip_gives_one_face_then_none() {
        let svg = embed(DRAWN).expect("embed");
        assert_eq!(svg.matches("@font-face").count(), 1);
        assert!(svg.starts_with("<svg width=\"10\""), "{svg}");
        assert!(!svg.contains("font-family=\"sans-serif\""));
        assert_eq!(
            svg.matches(&format!("font-family=\"{EMBEDDED_FAMILY}, "))
                .count(),
            2
        );
        let stripped = strip_face(&svg);
        assert!(!stripped.contains("@font-face"), "{stripped}");
        assert!(stripped.contains(&format!("font-family=\"{EMBEDDED_FAMILY}, ")));
        assert_eq!(strip_face(&stripped), stripped);
        roxmltree::Document::parse(&svg).expect("the embedded SVG is XML");
    }
}
