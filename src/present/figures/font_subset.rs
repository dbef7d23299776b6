//! A standalone subset of the bundled font for embedding in SVGs (as an
//! `@font-face` data URI): only the glyphs of the characters a figure uses
//! (and the components of composite glyphs), renumbered, with a fresh
//! Unicode `cmap` (format 4), full metrics and `post` format 3.
//!
//! Only what a browser needs to draw SVG text at the advance widths
//! plotters laid it out with is kept: the outlines, `hmtx`, `head`,
//! `hhea`, `maxp`, `OS/2` and a short `name` (the copyright, the family
//! and style names, the licence's address; the licence itself is
//! `assets/fonts/LICENSE-DejaVu.txt`). Dropped: the layout tables (kerning
//! and ligatures, which plotters' widths do not assume either), and the
//! hinting — the `fpgm`, `prep` and `cvt ` programs, `gasp` and every
//! glyph's own instructions, which only move outlines on a pixel grid and
//! never change an advance. Deterministic: the same characters give the
//! same bytes.

use std::collections::BTreeSet;

use crate::core::error::{Error, Result};

fn err(what: &str) -> Error {
    Error::input(format!("cannot subset the bundled font: {what}"))
}

fn u16_at(d: &[u8], at: usize) -> Result<u16> {
    d.get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| err("truncated"))
}

fn u32_at(d: &[u8], at: usize) -> Result<u32> {
    d.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| err("truncated"))
}

/// The tables of a TrueType font: (tag, bytes).
fn tables(font: &[u8]) -> Result<Vec<([u8; 4], &[u8])>> {
    let n = usize::from(u16_at(font, 4)?);
    (0..n)
        .map(|i| {
            let rec = 12 + 16 * i;
            let tag: [u8; 4] = font
                .get(rec..rec + 4)
                .and_then(|t| t.try_into().ok())
                .ok_or_else(|| err("table record"))?;
            let off = u32_at(font, rec + 8)? as usize;
            let len = u32_at(font, rec + 12)? as usize;
            let data = font
                .get(off..off + len)
                .ok_or_else(|| err("table bounds"))?;
            Ok((tag, data))
        })
        .collect()
}

fn checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |acc, c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        acc.wrapping_add(u32::from_be_bytes(w))
    })
}

/// The glyph ids a composite glyph refers to.
fn components(glyph: &[u8]) -> Result<Vec<u16>> {
    let mut out = Vec::new();
    if glyph.len() < 10 || i16::from_be_bytes([glyph[0], glyph[1]]) >= 0 {
        return Ok(out);
    }
    let mut at = 10;
    loop {
        let flags = u16_at(glyph, at)?;
        out.push(u16_at(glyph, at + 2)?);
        at += 4 + if flags & 0x0001 != 0 { 4 } else { 2 };
        at += if flags & 0x0008 != 0 {
            2
        } else if flags & 0x0040 != 0 {
            4
        } else if flags & 0x0080 != 0 {
            8
        } else {
            0
        };
        if flags & 0x0020 == 0 {
            return Ok(out);
        }
    }
}

/// Rewrite the component ids of a composite glyph with `map`.
fn remap_components(glyph: &mut [u8], map: &dyn Fn(u16) -> u16) -> Result<()> {
    if glyph.len() < 10 || i16::from_be_bytes([glyph[0], glyph[1]]) >= 0 {
        return Ok(());
    }
    let mut at = 10;
    loop {
        let flags = u16_at(glyph, at)?;
        let new = map(u16_at(glyph, at + 2)?).to_be_bytes();
        glyph[at + 2..at + 4].copy_from_slice(&new);
        at += 4 + if flags & 0x0001 != 0 { 4 } else { 2 };
        at += if flags & 0x0008 != 0 {
            2
        } else if flags & 0x0040 != 0 {
            4
        } else if flags & 0x0080 != 0 {
            8
        } else {
            0
        };
        if flags & 0x0020 == 0 {
            return Ok(());
        }
    }
}

/// `glyph` without its hinting instructions: a simple glyph's
/// `instructionLength` becomes 0, a composite glyph loses the instructions
/// after its last component and the flag that announces them.
fn without_instructions(glyph: &[u8]) -> Result<Vec<u8>> {
    if glyph.len() < 10 {
        return Ok(glyph.to_vec());
    }
    let contours = i16::from_be_bytes([glyph[0], glyph[1]]);
    if let Ok(contours) = usize::try_from(contours) {
        let at = 10 + 2 * contours;
        let len = usize::from(u16_at(glyph, at)?);
        let rest = glyph
            .get(at + 2 + len..)
            .ok_or_else(|| err("glyph instructions"))?;
        let mut out = Vec::with_capacity(glyph.len() - len);
        out.extend_from_slice(&glyph[..at]);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(rest);
        return Ok(out);
    }
    const WE_HAVE_INSTRUCTIONS: u16 = 0x0100;
    let mut out = glyph.to_vec();
    let mut at = 10;
    loop {
        let flags = u16_at(&out, at)?;
        out[at..at + 2].copy_from_slice(&(flags & !WE_HAVE_INSTRUCTIONS).to_be_bytes());
        at += 4 + if flags & 0x0001 != 0 { 4 } else { 2 };
        at += if flags & 0x0008 != 0 {
            2
        } else if flags & 0x0040 != 0 {
            4
        } else if flags & 0x0080 != 0 {
            8
        } else {
            0
        };
        if flags & 0x0020 == 0 {
            if at > out.len() {
                return Err(err("composite glyph"));
            }
            out.truncate(at);
            return Ok(out);
        }
    }
}

/// The `name` records a subset keeps (Windows, Unicode BMP): copyright,
/// family, style, unique id, full name, version, PostScript name, licence
/// address.
const NAME_IDS: [u16; 8] = [0, 1, 2, 3, 4, 5, 6, 14];

/// A `name` table (format 0) of the Windows records of `name` whose ids
/// are in [`NAME_IDS`].
fn short_name(name: &[u8]) -> Result<Vec<u8>> {
    let count = usize::from(u16_at(name, 2)?);
    let strings = usize::from(u16_at(name, 4)?);
    let mut kept: Vec<([u16; 4], &[u8])> = Vec::new();
    for i in 0..count {
        let rec = 6 + 12 * i;
        let ids = [
            u16_at(name, rec)?,
            u16_at(name, rec + 2)?,
            u16_at(name, rec + 4)?,
            u16_at(name, rec + 6)?,
        ];
        let len = usize::from(u16_at(name, rec + 8)?);
        let off = strings + usize::from(u16_at(name, rec + 10)?);
        if ids[0] == 3 && ids[1] == 1 && NAME_IDS.contains(&ids[3]) {
            let text = name
                .get(off..off + len)
                .ok_or_else(|| err("name string bounds"))?;
            kept.push((ids, text));
        }
    }
    kept.sort_by_key(|k| k.0);
    let header = 6 + 12 * kept.len();
    let mut out = Vec::new();
    for v in [0u16, kept.len() as u16, header as u16] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    let mut offset = 0usize;
    for (ids, text) in &kept {
        for v in ids {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&(text.len() as u16).to_be_bytes());
        out.extend_from_slice(&(offset as u16).to_be_bytes());
        offset += text.len();
    }
    for (_, text) in &kept {
        out.extend_from_slice(text);
    }
    Ok(out)
}

/// A TrueType font holding the glyphs of `chars` (BMP characters the font
/// has; others are left out and fall back to the viewer's fonts).
pub fn subset(font: &[u8], chars: &BTreeSet<char>) -> Result<Vec<u8>> {
    let face = ttf_parser::Face::parse(font, 0).map_err(|e| err(&e.to_string()))?;
    let tabs = tables(font)?;
    let table = |tag: &[u8; 4]| {
        tabs.iter()
            .find(|(t, _)| t == tag)
            .map(|(_, d)| *d)
            .ok_or_else(|| err(&String::from_utf8_lossy(tag)))
    };
    let (head, hhea, maxp, hmtx, loca, glyf, post) = (
        table(b"head")?,
        table(b"hhea")?,
        table(b"maxp")?,
        table(b"hmtx")?,
        table(b"loca")?,
        table(b"glyf")?,
        table(b"post")?,
    );
    let num_glyphs = usize::from(u16_at(maxp, 4)?);
    let long_loca = u16_at(head, 50)? == 1;
    let glyph_range = |g: usize| -> Result<(usize, usize)> {
        if g >= num_glyphs {
            return Err(err("glyph id out of range"));
        }
        Ok(if long_loca {
            (
                u32_at(loca, 4 * g)? as usize,
                u32_at(loca, 4 * g + 4)? as usize,
            )
        } else {
            (
                usize::from(u16_at(loca, 2 * g)?) * 2,
                usize::from(u16_at(loca, 2 * g + 2)?) * 2,
            )
        })
    };
    let glyph = |g: usize| -> Result<&[u8]> {
        let (a, b) = glyph_range(g)?;
        glyf.get(a..b).ok_or_else(|| err("glyf bounds"))
    };
    // Old glyph ids: .notdef, the characters', their components.
    let mut mapped: Vec<(char, u16)> = Vec::new();
    let mut keep: BTreeSet<u16> = BTreeSet::from([0]);
    for &c in chars {
        if u32::from(c) > 0xFFFF {
            continue;
        }
        if let Some(g) = face.glyph_index(c) {
            mapped.push((c, g.0));
            keep.insert(g.0);
        }
    }
    let mut todo: Vec<u16> = keep.iter().copied().collect();
    while let Some(g) = todo.pop() {
        for c in components(glyph(usize::from(g))?)? {
            if keep.insert(c) {
                todo.push(c);
            }
        }
    }
    let old: Vec<u16> = keep.iter().copied().collect();
    let new_id = |g: u16| old.binary_search(&g).map_or(0, |i| i as u16);
    // glyf, loca (long), hmtx (a full metric per glyph).
    let n_hmetrics = usize::from(u16_at(hhea, 34)?);
    let metric = |g: usize| -> Result<(u16, u16)> {
        if g < n_hmetrics {
            Ok((u16_at(hmtx, 4 * g)?, u16_at(hmtx, 4 * g + 2)?))
        } else {
            let last_adv = u16_at(hmtx, 4 * (n_hmetrics - 1))?;
            Ok((
                last_adv,
                u16_at(hmtx, 4 * n_hmetrics + 2 * (g - n_hmetrics))?,
            ))
        }
    };
    let (mut new_glyf, mut new_loca, mut new_hmtx) = (Vec::new(), Vec::new(), Vec::new());
    for &g in &old {
        new_loca.extend_from_slice(&(new_glyf.len() as u32).to_be_bytes());
        let mut data = without_instructions(glyph(usize::from(g))?)?;
        remap_components(&mut data, &new_id)?;
        new_glyf.extend_from_slice(&data);
        while new_glyf.len() % 4 != 0 {
            new_glyf.push(0);
        }
        let (adv, lsb) = metric(usize::from(g))?;
        new_hmtx.extend_from_slice(&adv.to_be_bytes());
        new_hmtx.extend_from_slice(&lsb.to_be_bytes());
    }
    new_loca.extend_from_slice(&(new_glyf.len() as u32).to_be_bytes());
    let n_new = old.len() as u16;
    let mut new_head = head.to_vec();
    new_head[8..12].copy_from_slice(&[0; 4]);
    new_head[50..52].copy_from_slice(&1u16.to_be_bytes());
    let mut new_hhea = hhea.to_vec();
    new_hhea[34..36].copy_from_slice(&n_new.to_be_bytes());
    let mut new_maxp = maxp.to_vec();
    new_maxp[4..6].copy_from_slice(&n_new.to_be_bytes());
    if new_maxp.len() >= 32 {
        // Version 1.0: no twilight zone, storage, functions, stack or
        // instructions any more.
        new_maxp[14..16].copy_from_slice(&1u16.to_be_bytes());
        new_maxp[16..28].fill(0);
    }
    let mut new_post = post.get(..32).ok_or_else(|| err("post"))?.to_vec();
    new_post[0..4].copy_from_slice(&0x0003_0000u32.to_be_bytes());
    // cmap: one format-4 subtable (Windows, Unicode BMP), a segment per
    // character and the closing 0xFFFF one.
    let mut segs: Vec<(u16, u16)> = mapped
        .iter()
        .map(|&(c, g)| (u32::from(c) as u16, new_id(g)))
        .collect();
    segs.sort_unstable();
    segs.dedup_by_key(|s| s.0);
    let seg_count = segs.len() + 1;
    let mut sub = Vec::new();
    let pow = (seg_count as f64).log2().floor() as u32;
    let search_range = 2 * (1u16 << pow);
    for v in [
        4u16,
        0, // length, set below
        0,
        (2 * seg_count) as u16,
        search_range,
        pow as u16,
        (2 * seg_count) as u16 - search_range,
    ] {
        sub.extend_from_slice(&v.to_be_bytes());
    }
    for &(c, _) in &segs {
        sub.extend_from_slice(&c.to_be_bytes());
    }
    sub.extend_from_slice(&0xFFFFu16.to_be_bytes());
    sub.extend_from_slice(&0u16.to_be_bytes()); // reservedPad
    for &(c, _) in &segs {
        sub.extend_from_slice(&c.to_be_bytes());
    }
    sub.extend_from_slice(&0xFFFFu16.to_be_bytes());
    for &(c, g) in &segs {
        sub.extend_from_slice(&g.wrapping_sub(c).to_be_bytes());
    }
    sub.extend_from_slice(&1u16.to_be_bytes());
    for _ in 0..seg_count {
        sub.extend_from_slice(&0u16.to_be_bytes());
    }
    let len = sub.len() as u16;
    sub[2..4].copy_from_slice(&len.to_be_bytes());
    let mut cmap = Vec::new();
    for v in [0u16, 1, 3, 1] {
        cmap.extend_from_slice(&v.to_be_bytes());
    }
    cmap.extend_from_slice(&12u32.to_be_bytes());
    cmap.extend_from_slice(&sub);
    // Assemble, tables sorted by tag.
    let mut out_tables: Vec<([u8; 4], Vec<u8>)> = vec![
        (*b"cmap", cmap),
        (*b"glyf", new_glyf),
        (*b"head", new_head),
        (*b"hhea", new_hhea),
        (*b"hmtx", new_hmtx),
        (*b"loca", new_loca),
        (*b"maxp", new_maxp),
        (*b"name", short_name(table(b"name")?)?),
        (*b"post", new_post),
    ];
    if let Ok(d) = table(b"OS/2") {
        out_tables.push((*b"OS/2", d.to_vec()));
    }
    out_tables.sort_by_key(|t| t.0);
    let n = out_tables.len() as u16;
    let pow = 15 - n.leading_zeros() as u16;
    let sr = 16 * (1u16 << pow);
    let mut out = Vec::new();
    out.extend_from_slice(&0x0001_0000u32.to_be_bytes());
    for v in [n, sr, pow, 16 * n - sr] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    let mut offset = 12 + 16 * out_tables.len();
    let mut body = Vec::new();
    let mut head_at = 0;
    for (tag, data) in &out_tables {
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(data).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        if tag == b"head" {
            head_at = offset;
        }
        body.extend_from_slice(data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        offset = 12 + 16 * out_tables.len() + body.len();
    }
    out.extend_from_slice(&body);
    let adjust = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    out[head_at + 8..head_at + 12].copy_from_slice(&adjust.to_be_bytes());
    Ok(out)
}

/// Base64 (RFC 4648: standard alphabet, padded), as a data URI wants it.
pub fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        // RFC 4648 §10's test vectors, and the alphabet's last two
        // characters (`+` and `/`, where base64url differs).
        for (raw, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), enc, "{raw:?}");
        }
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn a_subset_maps_its_characters_and_is_small() {
        let chars: BTreeSet<char> = "θ = 0.2 alpha-base é".chars().collect();
        let font = subset(super::super::style::FONT, &chars).expect("subset");
        assert!(font.len() < 60_000, "{} bytes", font.len());
        let face = ttf_parser::Face::parse(&font, 0).expect("a valid font");
        for c in chars {
            let g = face
                .glyph_index(c)
                .unwrap_or_else(|| panic!("{c} unmapped"));
            if c != ' ' {
                assert!(face.glyph_bounding_box(g).is_some(), "{c} has no outline");
            }
        }
        assert!(face.glyph_index('Z').is_none());
    }

    /// Issue 18: a subset was about 30 KB per SVG, most of it the licence
    /// text of `name` (14 KB) and the hinting programs and instructions.
    /// They are gone; the advance widths and outlines are the font's.
    #[test]
    fn a_subset_has_no_hinting_nor_licence_text_and_keeps_every_metric() {
        let full = ttf_parser::Face::parse(super::super::style::FONT, 0).expect("font");
        let chars: BTreeSet<char> = "mean loss L(τ) (accuracy) 0.25 ×∞ θ = 0.05 ÅŒé"
            .chars()
            .collect();
        let bytes = subset(super::super::style::FONT, &chars).expect("subset");
        let tags: Vec<[u8; 4]> = tables(&bytes)
            .expect("tables")
            .iter()
            .map(|t| t.0)
            .collect();
        for gone in [
            b"fpgm", b"prep", b"cvt ", b"gasp", b"kern", b"GPOS", b"GSUB",
        ] {
            assert!(!tags.contains(gone), "{}", String::from_utf8_lossy(gone));
        }
        let face = ttf_parser::Face::parse(&bytes, 0).expect("a valid font");
        for c in chars {
            let (g, f) = (
                face.glyph_index(c).expect("mapped"),
                full.glyph_index(c).expect("in the font"),
            );
            assert_eq!(face.glyph_hor_advance(g), full.glyph_hor_advance(f), "{c}");
            assert_eq!(
                face.glyph_bounding_box(g),
                full.glyph_bounding_box(f),
                "{c}"
            );
            let glyph = {
                let t = tables(&bytes).expect("tables");
                let (head, loca, glyf) = (
                    t.iter().find(|t| &t.0 == b"head").expect("head").1,
                    t.iter().find(|t| &t.0 == b"loca").expect("loca").1,
                    t.iter().find(|t| &t.0 == b"glyf").expect("glyf").1,
                );
                assert_eq!(u16_at(head, 50).expect("format"), 1, "long loca");
                let i = usize::from(g.0);
                let a = u32_at(loca, 4 * i).expect("loca") as usize;
                let b = u32_at(loca, 4 * i + 4).expect("loca") as usize;
                glyf[a..b].to_vec()
            };
            if glyph.len() >= 10 {
                let contours = i16::from_be_bytes([glyph[0], glyph[1]]);
                if let Ok(n) = usize::try_from(contours) {
                    assert_eq!(u16_at(&glyph, 10 + 2 * n).expect("len"), 0, "{c}: hinted");
                }
            }
        }
        assert_eq!(face.ascender(), full.ascender());
        assert_eq!(face.descender(), full.descender());
        assert_eq!(face.units_per_em(), full.units_per_em());
        let names: Vec<String> = face
            .names()
            .into_iter()
            .filter_map(|n| n.to_string())
            .collect();
        assert!(names.iter().any(|n| n == "DejaVu Sans"), "{names:?}");
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("Copyright (c) 2003 by Bitstream")),
            "{names:?}"
        );
        assert!(bytes.len() < 12_000, "{} bytes", bytes.len());
    }
}
