//! Text for people: numbers with three decimals and aligned tables (the
//! terminal summaries of both modes).

/// A number for people: three decimals, scientific from 10⁶ and below
/// 10⁻³ (0 stays `0.000`).
pub fn num_text(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1.0e6 || x.abs() < 1.0e-3) {
        format!("{x:.3e}")
    } else {
        format!("{x:.3}")
    }
}

/// Columns padded to a common width: the first left-aligned, the others
/// right-aligned, two spaces apart.
pub fn align(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let pad = width[c].saturating_sub(cell.chars().count());
            if c == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_switch_to_scientific_outside_a_thousandth_to_a_million() {
        assert_eq!(num_text(0.0), "0.000");
        assert_eq!(num_text(1.23456), "1.235");
        assert_eq!(num_text(999_999.0), "999999.000");
        assert_eq!(num_text(1.0e6), "1.000e6");
        assert_eq!(num_text(0.000_5), "5.000e-4");
    }

    #[test]
    fn first_column_left_aligned_the_others_right_aligned() {
        let rows = vec![
            vec!["policy".to_string(), "x".into()],
            vec!["a".to_string(), "10.5".into()],
        ];
        assert_eq!(align(&rows), "policy     x\na       10.5\n");
    }
}
