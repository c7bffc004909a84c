#!/usr/bin/env python3
"""Compile times of the schedule transformations (docs/performance.md,
"Compile time"): wall seconds of `stencil-opt PROGRAM PASSES -o /dev/null`
for every example and every Devito-form program of the suite
(python/stencil/devito_forms.py SUITE), with each of

    hex     --hex-tile --convert-stencil-to-loops
    split   --split-tile --convert-stencil-to-loops
    fuse    --fuse --convert-stencil-to-loops
    gpu     --hex-tile --convert-to-gpu   (the headline command, to a cubin;
            only where ptxas is found)

The median of `--runs` runs per cell, one process at a time. Cells over the
issue's targets (1 s for the examples, 2 s for the Devito forms) are marked
with `*`. A last column names the two slowest passes of the first column
(`--mlir-timing`, one more run). `--timing NAME` prints the slowest passes (`--mlir-timing`) of one
program for each column instead.

    /usr/bin/python3 bench/compile_times.py [NAME ...] [--runs 3]
        [--columns hex,split,fuse,gpu] [--json] [--timing NAME]

NAME is an example's stem (jacobi2d) or a Devito form FAMILY-oORDER
(elastic3d-o8); none means all.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from stencil import devito_forms  # noqa: E402
from stencil.compiler import find_stencil_opt  # noqa: E402
from stencil.gpumodel import find_ptxas  # noqa: E402

COLUMNS = {
    "hex": ["--hex-tile", "--convert-stencil-to-loops"],
    "split": ["--split-tile", "--convert-stencil-to-loops"],
    "fuse": ["--fuse", "--convert-stencil-to-loops"],
    "gpu": ["--hex-tile", "--convert-to-gpu"],
}
TARGET_EXAMPLE, TARGET_FORM = 1.0, 2.0


def programs(workdir):
    """{name: (path, target seconds)}: the examples, then the suite's forms."""
    found = {p.stem: (p, TARGET_EXAMPLE) for p in sorted((ROOT / "examples").glob("*.mlir"))}
    for family, order, shape, steps in devito_forms.SUITE:
        name = f"{family}-o{order}"
        path = Path(workdir) / f"{name}.mlir"
        path.write_text(devito_forms.make(family, order, shape, steps).mlir())
        found[name] = (path, TARGET_FORM)
    return found


def seconds(path, passes, runs):
    """Median wall seconds of `runs` compiles (raises on a failed one)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([find_stencil_opt(), str(path), *passes, "-o", "/dev/null"],
                       check=True, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def slowest_passes(path, passes, count=4):
    """The `count` slowest entries of --mlir-timing as (seconds, name)."""
    report = subprocess.run([find_stencil_opt(), str(path), *passes, "-o", "/dev/null",
                             "--mlir-timing"], check=True, capture_output=True,
                            text=True).stderr
    rows = []
    for line in report.splitlines():
        # With a thread pool the report has user and wall columns: the
        # last is the wall time.
        m = re.match(r"\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)*([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*)$",
                     line)
        if m and m.group(2).strip() not in ("Total", "Rest", "Parser", "Output"):
            rows.append((float(m.group(1)), m.group(2).strip()))
    return sorted(rows, reverse=True)[:count]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--columns", default="hex,split,fuse,gpu")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timing", metavar="NAME")
    args = parser.parse_args()
    columns = [c for c in args.columns.split(",") if c]
    for c in columns:
        if c not in COLUMNS:
            parser.error(f"unknown column '{c}'; have {', '.join(COLUMNS)}")
    if "gpu" in columns and not find_ptxas():
        print("(no ptxas: the gpu column is left out)", file=sys.stderr)
        columns.remove("gpu")
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    with tempfile.TemporaryDirectory() as work:
        known = programs(work)
        names = [args.timing] if args.timing else args.names or list(known)
        for name in names:
            if name not in known:
                parser.error(f"unknown program '{name}'; have {', '.join(known)}")
        if args.timing:
            path, _ = known[args.timing]
            for c in columns:
                rows = slowest_passes(path, COLUMNS[c])
                print(f"{args.timing} {c}: " +
                      ", ".join(f"{name} {s:.2f} s" for s, name in rows))
            return 0

        table = {}
        for name in names:
            path, target = known[name]
            table[name] = {c: seconds(path, COLUMNS[c], args.runs) for c in columns}
            table[name]["target"] = target
            table[name]["slowest"] = [{"pass": p, "seconds": t}
                                      for t, p in slowest_passes(path, COLUMNS[columns[0]], 2)]
            if not args.json:
                print(f"  {name}: " + " ".join(f"{c} {table[name][c]:.2f}" for c in columns),
                      file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    print("| program | " + " | ".join(f"`{' '.join(COLUMNS[c])}`" for c in columns) +
          f" | slowest passes ({columns[0]}) |")
    print("|---|" + "---:|" * len(columns) + "---|")
    over = 0
    for name, row in table.items():
        cells = []
        for c in columns:
            late = c != "gpu" and row[c] > row["target"]
            over += late
            cells.append(f"{row[c]:.2f}{'*' if late else ''}")
        slowest = ", ".join(f"{s['pass']} {s['seconds']:.2f}" for s in row["slowest"])
        print(f"| {name} | " + " | ".join(cells) + f" | {slowest} |")
    print(f"\n{over} CPU-path cells over their target "
          f"({TARGET_EXAMPLE:g} s for an example, {TARGET_FORM:g} s for a Devito form); "
          f"median of {args.runs} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
