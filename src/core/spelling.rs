//! Near misses: which known name a mistyped one was probably meant to be,
//! for "did you mean" hints in messages (a misspelt `[[policy]]` key, an
//! unknown scheduler or selector name).

/// Whether `typo` looks like a misspelling of `name`: different, and at
/// most one edit ([`edit_distance`]) for every three characters of `name`
/// (at least one edit).
pub fn looks_like(typo: &str, name: &str) -> bool {
    misspelling_distance(typo, name).is_some()
}

/// The name of `names` that `typo` [`looks_like`] a misspelling of, the
/// closest one (the first of equally close ones); `None` if none.
pub fn nearest<'a>(typo: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names
        .into_iter()
        .filter_map(|name| Some((misspelling_distance(typo, name)?, name)))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// The edit distance from `typo` to `name` when `typo` [`looks_like`] a
/// misspelling of it, each pair's distance computed once.
fn misspelling_distance(typo: &str, name: &str) -> Option<usize> {
    let distance = edit_distance(typo, name);
    (typo != name && distance <= (name.chars().count() / 3).max(1)).then_some(distance)
}

/// The Levenshtein distance between `a` and `b`, in characters: the
/// fewest insertions, deletions and substitutions that turn one into the
/// other (the classic one-row dynamic programme).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance of every pair of short strings over a two-letter
    /// alphabet against a brute force: the shortest path of single edits,
    /// found by breadth-first search.
    #[test]
    fn edit_distance_is_the_fewest_single_edits() {
        use std::collections::{HashSet, VecDeque};
        let words: Vec<String> = (0..=3)
            .flat_map(|n| {
                (0..1usize << n).map(move |bits| {
                    (0..n)
                        .map(|i| if bits >> i & 1 == 1 { 'b' } else { 'a' })
                        .collect()
                })
            })
            .collect();
        let edits = |w: &str| -> Vec<String> {
            let c: Vec<char> = w.chars().collect();
            let mut out = Vec::new();
            for i in 0..=c.len() {
                for x in ['a', 'b'] {
                    let mut v = c.clone();
                    v.insert(i, x);
                    out.push(v.into_iter().collect());
                }
                if i < c.len() {
                    let mut v = c.clone();
                    v.remove(i);
                    out.push(v.iter().collect());
                    for x in ['a', 'b'] {
                        let mut v = c.clone();
                        v[i] = x;
                        out.push(v.into_iter().collect());
                    }
                }
            }
            out
        };
        for a in &words {
            for b in &words {
                let mut seen = HashSet::from([a.clone()]);
                let mut queue = VecDeque::from([(a.clone(), 0)]);
                let shortest = loop {
                    let (w, d) = queue.pop_front().expect("b is reachable");
                    if w == *b {
                        break d;
                    }
                    for e in edits(&w) {
                        if e.len() <= 4 && seen.insert(e.clone()) {
                            queue.push_back((e, d + 1));
                        }
                    }
                };
                assert_eq!(edit_distance(a, b), shortest, "{a:?} → {b:?}");
            }
        }
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_nearest_name_within_one_edit_in_three() {
        let names = ["greedy", "round-robin", "random", "easeml-proto"];
        assert_eq!(nearest("gredy", names), Some("greedy"));
        assert_eq!(nearest("Greedy", names), Some("greedy"));
        assert_eq!(nearest("round_robin", names), Some("round-robin"));
        assert_eq!(nearest("randon", names), Some("random"));
        // Too far from every name, or the name itself: no hint.
        assert_eq!(nearest("fifo", names), None);
        assert_eq!(nearest("greedy", names), None);
        assert_eq!(nearest("", names), None);
        // "random" (one edit) is nearer than "round-robin".
        assert_eq!(nearest("randam", names), Some("random"));
        assert!(looks_like("selectr", "selector"));
        assert!(!looks_like("sel", "selector"));
    }
}
