#!/usr/bin/env python3
"""Reconstruct the ease.ml authors' heuristic model orders from their results.

The ease.ml prototype repository (github.com/DS3Lab/GP-UCB, commit 7d8ff339)
ships the results of two heuristics, "latest network first"
(MS/latest_first_with.txt) and "most cited network first"
(MS/cited_first_with.txt), but not the orders themselves, and its matrices
have no model names. Each result row is one of the 9 test data sets of
MS/test_second.txt (same row order) and holds the best accuracy found so far
after each of the 9 trials. A column order pi reproduces a row r when

    result[r][t] == max(test_second[r][pi[0]], ..., test_second[r][pi[t]])

for every trial t. This script searches all 9! column orders (a depth-first
search that drops a partial order as soon as it has more mismatching cells
than the best complete order so far, so it visits far fewer than 9! leaves
but returns exactly what the full enumeration would) and reports every order
with the fewest mismatching cells over the 9 x 9 result table.

Ambiguity: several orders can fit equally well (columns that never raise
any row's best-so-far at their trial are interchangeable). The script prints
each position as the set of columns it takes over the optimal orders. With
--metadata it writes the lexicographically smallest optimal order of each
heuristic (the rule "lowest column first" at every ambiguous position) as a
tenantsim model-metadata CSV; with --variants DIR it writes one CSV per
optimal order (see below) so that every consistent completion can be run.

The CSV values are RANKS, not real years or citation counts:
model_year = 10 - (position in the latest-first order), model_citations =
10 - (position in the most-cited order), positions counted from 1, so the
first model tried has 9 and the last 1. tenantsim's most-recent selector
(model_year desc) and most-cited selector (model_citations desc) then try
the models in exactly the reconstructed orders. Model ids are the matrix
importer's defaults: column 1 = m0, ..., column 9 = m8.

Variant k (k = 1 .. max(n_latest, n_cited)) pairs latest-first order
k (cycling when there are fewer) with most-cited order k (likewise): each
heuristic reads only its own column, so the variants cover every consistent
completion of both orders.

Usage (the authors' files are not in the repository: they have no licence;
give them from wherever you have them):

    python3 scripts/reconstruct-heuristic-orders.py \
        latest_first_with.txt cited_first_with.txt MS/test_second.txt \
        [--ts-ms-test TS-MS/test.txt] [--metadata OUT.csv] [--variants DIR]

Standard library only. Exit status 1 on unreadable or malformed input.
"""

import argparse
import os
import sys
import tempfile

TOL = 1e-9


def read_matrix(path):
    """Rows of floats, whitespace separated, blank lines skipped."""
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                cells = line.split()
                if not cells:
                    continue
                try:
                    rows.append([float(c) for c in cells])
                except ValueError:
                    sys.exit(f"{path}: line {no}: expected numbers, got {line.strip()!r}")
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    if not rows:
        sys.exit(f"{path}: no rows")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            sys.exit(f"{path}: row {i + 1} has {len(r)} values, row 1 has {width}")
    return rows


def best_orders(result, matrix):
    """(fewest mismatching cells, every column order with that many).

    Orders are tuples of 0-based columns. A cell (r, t) mismatches when the
    result's best-so-far differs from the matrix's under the order.
    """
    n_rows, n_cols = len(matrix), len(matrix[0])
    best = [n_rows * n_cols + 1]
    found = []

    def search(order, used, best_so_far, mismatches):
        if mismatches > best[0]:
            return
        t = len(order)
        if t == n_cols:
            if mismatches < best[0]:
                best[0] = mismatches
                found.clear()
            found.append(tuple(order))
            return
        for c in range(n_cols):
            if used & (1 << c):
                continue
            new_best = [max(b, matrix[r][c]) for r, b in enumerate(best_so_far)]
            miss = sum(
                1 for r in range(n_rows) if abs(new_best[r] - result[r][t]) > TOL
            )
            order.append(c)
            search(order, used | (1 << c), new_best, mismatches + miss)
            order.pop()

    search([], 0, [float("-inf")] * n_rows, 0)
    return best[0], sorted(found)


def mismatched_cells(result, matrix, order):
    """(row, trial, result value, matrix best-so-far) for each mismatch."""
    out = []
    for r, row in enumerate(matrix):
        b = float("-inf")
        for t, c in enumerate(order):
            b = max(b, row[c])
            if abs(b - result[r][t]) > TOL:
                out.append((r, t, result[r][t], b))
    return out


def describe(name, result, matrix, orders, mismatches):
    n_cols = len(matrix[0])
    sets = [sorted({o[t] + 1 for o in orders}) for t in range(n_cols)]
    shown = ",".join(
        str(s[0]) if len(s) == 1 else "{" + ",".join(map(str, s)) + "}" for s in sets
    )
    print(f"{name}: {len(orders)} optimal order(s), {mismatches} mismatching cell(s) each")
    print(f"  positions (1-based columns): {shown}")
    print(f"  lowest column first: {','.join(str(c + 1) for c in orders[0])}")
    for r, t, want, got in mismatched_cells(result, matrix, orders[0]):
        print(
            f"  mismatch: row {r + 1}, trial {t + 1}: result reads {want:g}, "
            f"matrix best-so-far is {got:g}"
        )


def metadata_csv(latest, cited, n_cols):
    """The model-metadata CSV text for one latest order and one cited order."""
    year = {c: n_cols + 1 - (i + 1) for i, c in enumerate(latest)}
    cites = {c: n_cols + 1 - (i + 1) for i, c in enumerate(cited)}
    width = len(str(n_cols - 1))
    lines = ["model,model_year,model_citations"]
    for c in range(n_cols):
        lines.append(f"m{c:0{width}d},{year[c]},{cites[c]}")
    return "\n".join(lines) + "\n"


def write_atomic(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("latest", help="MS/latest_first_with.txt (9 x 9 best-so-far)")
    p.add_argument("cited", help="MS/cited_first_with.txt (9 x 9 best-so-far)")
    p.add_argument("test_second", help="MS/test_second.txt (9 data sets x 9 models)")
    p.add_argument(
        "--ts-ms-test",
        help="TS-MS/test.txt: check that it is rows 2-9 of test_second (same columns)",
    )
    p.add_argument("--metadata", help="write the lowest-column-first orders here")
    p.add_argument("--variants", help="write variant-K.csv for every optimal order here")
    a = p.parse_args()

    matrix = read_matrix(a.test_second)
    results = {"latest-first": read_matrix(a.latest), "most-cited": read_matrix(a.cited)}
    for name, res in results.items():
        if (len(res), len(res[0])) != (len(matrix), len(matrix[0])):
            sys.exit(
                f"{name}: result is {len(res)} x {len(res[0])}, "
                f"test_second is {len(matrix)} x {len(matrix[0])}"
            )
    if a.ts_ms_test:
        ts = read_matrix(a.ts_ms_test)
        if ts != matrix[1:]:
            sys.exit(f"{a.ts_ms_test}: not rows 2-{len(matrix)} of {a.test_second}")
        print(f"{a.ts_ms_test}: rows 2-{len(matrix)} of {a.test_second}, same columns")

    found = {}
    for name, res in results.items():
        mismatches, orders = best_orders(res, matrix)
        describe(name, res, matrix, orders, mismatches)
        found[name] = orders

    n_cols = len(matrix[0])
    latest, cited = found["latest-first"], found["most-cited"]
    if a.metadata:
        write_atomic(a.metadata, metadata_csv(latest[0], cited[0], n_cols))
        print(f"wrote {a.metadata}")
    if a.variants:
        n = max(len(latest), len(cited))
        for k in range(n):
            text = metadata_csv(latest[k % len(latest)], cited[k % len(cited)], n_cols)
            write_atomic(os.path.join(a.variants, f"variant-{k + 1}.csv"), text)
        print(f"wrote {n} variants to {a.variants}")


if __name__ == "__main__":
    main()
