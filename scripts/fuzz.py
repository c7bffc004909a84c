#!/usr/bin/env python3
"""Structured mutation fuzzer for stencil-opt.

Takes stencil programs (by default every .mlir under examples/ and test/),
mutates their text form in ways that target the stencil dialect (offsets,
bounds, ranks, element types, op nesting, terminators, SSA names, time-loop
aliasing, ...), runs every mutant through several stencil-opt pipelines and
classifies each run as OK, DIAGNOSTIC, CRASH or HANG. Crashing inputs are
saved, deduplicated by a crash signature, with a command that reproduces
them, and can be minimized. See docs/fuzzing.md.

Standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> stencil-opt arguments. "parse" is parse + verify + print.
PIPELINES = [
    ("parse", []),
    ("shape", ["--stencil-shape-inference"]),
    ("loops", ["--stencil-shape-inference", "--convert-stencil-to-loops"]),
    ("inline-loops", ["--stencil-shape-inference", "--stencil-inlining",
                      "--convert-stencil-to-loops"]),
    ("cpu", ["--stencil-cpu-pipeline"]),
    ("cpu-omp", ["--stencil-cpu-pipeline=openmp=true"]),
    ("canon", ["--canonicalize"]),
    ("poly", ["--stencil-to-poly", "--poly-print-dependences"]),
    ("hex-tile", ["--hex-tile=h=1", "--convert-stencil-to-loops"]),
    ("split-tile", ["--split-tile=h=2", "--convert-stencil-to-loops"]),
    # The GPU mapping up to outlined kernels (no ptxas), and its CPU executor.
    ("gpu-map", ["--hex-tile=h=1", "--convert-to-gpu=host-to-llvm=false"]),
    ("gpu-emulate", ["--hex-tile=h=1", "--stencil-cpu-pipeline=emulate-gpu=true"]),
    ("split-gpu-map", ["--split-tile", "--convert-to-gpu=host-to-llvm=false"]),
]
PIPELINE_ARGS = dict(PIPELINES)

OK, DIAG, CRASH, HANG = "OK", "DIAGNOSTIC", "CRASH", "HANG"

# ---------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------

_SPLIT_RE = re.compile(r"^\s*//\s*-----\s*$")
_COMMENT_LINE_RE = re.compile(r"^\s*//")
_TRAILING_DIRECTIVE_RE = re.compile(
    r"\s*//\s*(?:expected-\w+|CHECK[\w-]*|RUN)\b.*$")


def clean_source(text):
    """Splits a test file on `// -----` and drops RUN/CHECK/expected-*
    directives and other comment lines. Returns the non-empty chunks."""
    chunks, cur = [], []
    for line in text.split("\n"):
        if _SPLIT_RE.match(line):
            chunks.append(cur)
            cur = []
            continue
        if _COMMENT_LINE_RE.match(line):
            continue
        line = _TRAILING_DIRECTIVE_RE.sub("", line).rstrip()
        cur.append(line)
    chunks.append(cur)
    out = []
    for c in chunks:
        while c and not c[0].strip():
            c = c[1:]
        while c and not c[-1].strip():
            c = c[:-1]
        if any(l.strip() for l in c):
            out.append("\n".join(c) + "\n")
    return out


def load_corpus(paths):
    """Returns a sorted list of (name, text) seeds."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                for n in sorted(names):
                    if n.endswith(".mlir"):
                        files.append(os.path.join(root, n))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise SystemExit("fuzz: corpus path %s does not exist" % p)
    seeds = []
    for f in sorted(set(files)):
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        rel = os.path.relpath(f, REPO)
        for i, chunk in enumerate(clean_source(text)):
            seeds.append(("%s#%d" % (rel, i), chunk))
    return seeds


# ---------------------------------------------------------------------------
# Text helpers for the mutators
# ---------------------------------------------------------------------------

INTERESTING = [0, 1, -1, 2, -2, 3, -3, 4, 7, 8, 9, 16, 31, 32, 33, 63, 64, 65,
               -64, -65, 127, 128, 255, 256, 1000, 4096, 65535, 65536,
               2**31 - 1, -2**31, 2**31, 2**32, 2**62, 2**63 - 1, -2**63,
               2**63, 2**64, -2**64]
ELEM_TYPES = ["f64", "f32", "f16", "bf16", "i32", "i64", "i1", "i8", "index"]
FUZZ_CHARS = list("[]<>(){}%:,=-_?x0123456789 \n\"#!@^.") + [
    "stencil.", "!stencil.temp<", "!stencil.field<", "?x", "xf64", "[0,8]",
    "unroll <[2]>", "<[0, 0]>", "%0", "%arg0", "{", "}", "-> ()", ": f64",
    "\"stencil.return\"() : () -> ()", "<{offset = #stencil.index<[0]>}>"]

NAME = r"%[\w$.\-]+"
NAME_RE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
STENCIL_TYPE_RE = re.compile(r"!stencil\.(field|temp)<([^<>]*)>")
RESULT_TYPE_RE = re.compile(r"!stencil\.result<([^<>]*)>")
TYPE_PAT = r"(?:!stencil\.\w+<[^<>]*>|memref<[^<>]*>|[a-z]\w*)"
DIM_RE = re.compile(r"\?|\[\s*-?\d+\s*,\s*-?\d+\s*\]")
INT_RE = re.compile(r"(?<![\w.#%@])-?\d+(?![\w.])")
BRACKET_LIST_RE = re.compile(r"\[((?:\s*(?:-?\d+|_)\s*,)*\s*(?:-?\d+|_)\s*)\]")


def _lines(text):
    return text.split("\n")


def _join(lines):
    return "\n".join(lines)


def indent_of(line):
    return line[: len(line) - len(line.lstrip())]


def find_blocks(lines, pred):
    """(start, end) of every region that opens on a line matching pred
    (the line ends with `{`) and closes on line `end`, by brace counting."""
    blocks = []
    for i, line in enumerate(lines):
        if not pred(line) or not line.rstrip().endswith("{"):
            continue
        depth = 0
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0 and j > i:
                blocks.append((i, j))
                break
    return blocks


def apply_blocks(lines):
    return find_blocks(lines, lambda l: "stencil.apply" in l)


def func_blocks(lines):
    return find_blocks(lines, lambda l: "func.func" in l and "private" not in l)


def inside_any(idx, blocks):
    return any(s < idx < e for s, e in blocks)


def terminator_index(lines, block):
    """The line of the terminator of a block: its last line at depth 1."""
    s, e = block
    depth = 0
    last = None
    for j in range(s, e):
        if depth == 1 and lines[j].strip():
            last = j
        depth += lines[j].count("{") - lines[j].count("}")
    return last if last is not None else e


def body_indent(lines, block):
    s, e = block
    for j in range(s + 1, e):
        if lines[j].strip():
            return indent_of(lines[j])
    return indent_of(lines[s]) + "  "


def defined_names(text):
    names = set()
    for m in re.finditer(r"^\s*(%s)(?::\d+)?\s*(?:,\s*(%s)\s*)*=" % (NAME, NAME),
                         text, re.M):
        names.add(m.group(1))
    for m in re.finditer(r"[(,]\s*(%s)\s*(?:=|:)" % NAME, text):
        names.add(m.group(1))
    for m in re.finditer(r"scf\.\w+\s+(%s)\s*=" % NAME, text):
        names.add(m.group(1))
    return sorted(names)


def value_types(text):
    """Best-effort map from SSA name to its type string."""
    types = {}
    # function arguments and apply region arguments: `%x : T`, `%x = %v : T`
    for m in re.finditer(r"[(,]\s*(%s)\s*(?:=\s*%s\s*)?:\s*(%s)" % (NAME, NAME + r"(?:#\d+)?", TYPE_PAT), text):
        types.setdefault(m.group(1), m.group(2))
    for line in _lines(text):
        m = re.match(r"\s*(%s)(?::(\d+))?\s*=\s*(.*)$" % NAME, line)
        if not m:
            continue
        name, rhs = m.group(1), m.group(3)
        if re.match(r"stencil\.(load|cast|buffer|external_load)\b", rhs):
            t = re.search(r"->\s*(%s)\s*$" % TYPE_PAT, rhs)
            if t:
                types[name] = t.group(1)
        elif rhs.startswith("stencil.alloc"):
            t = re.search(r":\s*(%s)\s*$" % TYPE_PAT, rhs)
            if t:
                types[name] = t.group(1)
        elif rhs.startswith("stencil.apply"):
            t = re.search(r"->\s*\(\s*(%s)" % TYPE_PAT, rhs)
            if t:
                types[name] = t.group(1)
                if m.group(2):
                    for k in range(int(m.group(2))):
                        types["%s#%d" % (name, k)] = t.group(1)
        elif re.match(r"stencil\.(access|dyn_access)\b", rhs):
            t = STENCIL_TYPE_RE.search(rhs)
            if t:
                types[name] = elem_of(t.group(2))
        elif rhs.startswith("stencil.index"):
            types[name] = "index"
        elif rhs.startswith("stencil.store_result"):
            t = RESULT_TYPE_RE.search(rhs)
            if t:
                types[name] = "!stencil.result<%s>" % t.group(1)
        elif rhs.startswith("arith."):
            t = re.search(r":\s*(%s)\s*$" % TYPE_PAT, rhs)
            if t:
                types[name] = t.group(1)
    return types


def parse_shape(body):
    """'[-1,65]x?x...xf64' -> (dims, elem) or None."""
    dims = []
    rest = body.strip()
    while True:
        m = DIM_RE.match(rest)
        if not m or not rest[m.end():].startswith("x"):
            break
        dims.append(m.group(0).replace(" ", ""))
        rest = rest[m.end() + 1:]
    return dims, rest


def elem_of(body):
    return parse_shape(body)[1]


def rank_of(t):
    m = STENCIL_TYPE_RE.search(t or "")
    return len(parse_shape(m.group(2))[0]) if m else 0


def fmt_shape(dims, elem):
    return "x".join(dims + [elem])


def rand_dim(rng):
    lb = rng.choice([0, -1, -2, 0, 1, rng.randint(-5, 5)])
    ub = lb + rng.choice([0, 1, 4, 8, 9, 16, rng.randint(0, 70)])
    return "[%d,%d]" % (lb, ub)


def mutate_int(rng, v):
    r = rng.random()
    if r < 0.45:
        return v + rng.choice([-2, -1, 1, 2])
    if r < 0.6:
        return -v
    if r < 0.9:
        return rng.choice(INTERESTING)
    return rng.randint(-100, 100)


def mutate_list_items(rng, items, allow_placeholder=True):
    items = list(items)
    r = rng.random()
    if not items:
        return ["0"]
    if r < 0.55:
        i = rng.randrange(len(items))
        try:
            items[i] = str(mutate_int(rng, int(items[i])))
        except ValueError:
            items[i] = str(rng.choice([0, 1, -1]))
    elif r < 0.7:
        del items[rng.randrange(len(items))]
    elif r < 0.85:
        items.insert(rng.randrange(len(items) + 1), str(rng.choice([0, 0, 1, -1, 2])))
    elif r < 0.93 and allow_placeholder:
        items[rng.randrange(len(items))] = "_"
    else:
        rng.shuffle(items)
    return items


def replace_span(text, start, end, new):
    return text[:start] + new + text[end:]


def pick_match(rng, regex, text):
    ms = list(regex.finditer(text))
    return rng.choice(ms) if ms else None


def fresh(rng, prefix="fz"):
    return "%%%s_%d" % (prefix, rng.randrange(100000))


# ---------------------------------------------------------------------------
# Mutators: each takes (rng, text, ctx) and returns the new text or None.
# ---------------------------------------------------------------------------

ACCESS_RE = re.compile(r"stencil\.(?:dyn_)?access\s+%s(?:#\d+)?\s*(?:\{[^}]*\}\s*)?\[([^\]]*)\]" % NAME)


def m_access_offset(rng, text, ctx):
    m = pick_match(rng, ACCESS_RE, text)
    if not m:
        return None
    items = [x.strip() for x in m.group(1).split(",")]
    items = mutate_list_items(rng, items)
    return replace_span(text, m.start(1), m.end(1), ", ".join(items))


def _mutate_type_body(rng, kind, body):
    dims, elem = parse_shape(body)
    r = rng.random()
    if r < 0.4 and dims:
        i = rng.randrange(len(dims))
        d = dims[i]
        if d == "?":
            dims[i] = rand_dim(rng)
        else:
            lb, ub = [int(x) for x in d[1:-1].split(",")]
            c = rng.random()
            if c < 0.4:
                lb = mutate_int(rng, lb)
            elif c < 0.8:
                ub = mutate_int(rng, ub)
            elif c < 0.9:
                lb, ub = ub, lb
            else:
                ub = lb
            dims[i] = "[%d,%d]" % (lb, ub)
    elif r < 0.5:
        dims = ["?"] * len(dims) if dims and dims[0] != "?" else [rand_dim(rng) for _ in dims]
    elif r < 0.6 and dims:
        dims[rng.randrange(len(dims))] = "?"          # mixed ? and bounds
    elif r < 0.72 and dims:
        del dims[rng.randrange(len(dims))]
    elif r < 0.84:
        d = "?" if (dims and dims[0] == "?") else rand_dim(rng)
        dims.insert(rng.randrange(len(dims) + 1), d)
    elif r < 0.95:
        elem = rng.choice(ELEM_TYPES)
    else:
        dims = [str(rng.choice([4, 8, 64]))] * max(1, len(dims))  # extent form
    return "!stencil.%s<%s>" % (kind, fmt_shape(dims, elem))


def m_type_bounds(rng, text, ctx):
    m = pick_match(rng, STENCIL_TYPE_RE, text)
    if not m:
        return None
    new = _mutate_type_body(rng, m.group(1), m.group(2))
    if rng.random() < 0.5:
        return text.replace(m.group(0), new)        # every identical type
    return replace_span(text, m.start(), m.end(), new)


STORE_BOUNDS_RE = re.compile(
    r"(?:\(|\bto\s+|#stencil\.bounds)<\[([^\]]*)\]\s*,\s*\[([^\]]*)\]>")
OLD_STORE_BOUNDS_RE = re.compile(r"\(\[([^\]]*)\]\s*:\s*\[([^\]]*)\]\)")


def m_store_bounds(rng, text, ctx):
    ms = list(STORE_BOUNDS_RE.finditer(text)) + list(OLD_STORE_BOUNDS_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    lo = [x.strip() for x in m.group(1).split(",")]
    hi = [x.strip() for x in m.group(2).split(",")]
    r = rng.random()
    if r < 0.35:
        lo = mutate_list_items(rng, lo, False)
    elif r < 0.7:
        hi = mutate_list_items(rng, hi, False)
    elif r < 0.8:
        lo, hi = hi, lo
    elif r < 0.9:                       # drop or add a dimension in both
        if rng.random() < 0.5 and len(lo) > 1 and len(hi) > 1:
            i = rng.randrange(min(len(lo), len(hi)))
            del lo[i]
            del hi[i]
        else:
            lo.append("0")
            hi.append(str(rng.choice([0, 1, 8, 64])))
    else:
        hi = [str(int(h) + rng.choice([1, 64, -1])) if h.lstrip("-").isdigit() else h for h in hi]
    span_lo, span_hi = (m.start(1), m.end(1)), (m.start(2), m.end(2))
    text = replace_span(text, span_hi[0], span_hi[1], ", ".join(hi))
    return replace_span(text, span_lo[0], span_lo[1], ", ".join(lo))


def m_bracket_list(rng, text, ctx):
    """Any `[..]` integer list: offsets, unroll, index, dyn_access ranges."""
    m = pick_match(rng, BRACKET_LIST_RE, text)
    if not m:
        return None
    items = [x.strip() for x in m.group(1).split(",")]
    return replace_span(text, m.start(1), m.end(1), ", ".join(mutate_list_items(rng, items)))


def m_rank(rng, text, ctx):
    """Drop or add a dimension consistently: in every stencil type, every
    access offset list and every bounds list of the chosen rank."""
    ranks = [len(parse_shape(m.group(2))[0]) for m in STENCIL_TYPE_RE.finditer(text)]
    ranks = [r for r in ranks if r > 0]
    if not ranks:
        return None
    r0 = rng.choice(ranks)
    grow = rng.random() < 0.5 or r0 == 1
    everything = rng.random() < 0.7
    lb, ub = rng.choice([(0, 8), (-1, 9), (0, 0), (-1, 65)])

    def fix_type(m):
        dims, elem = parse_shape(m.group(2))
        if len(dims) != r0 and not everything:
            return m.group(0)
        if not dims:
            return m.group(0)
        if grow:
            dims = dims + ["?" if dims[0] == "?" else "[%d,%d]" % (lb, ub)]
        elif len(dims) > 1:
            dims = dims[:-1]
        return "!stencil.%s<%s>" % (m.group(1), fmt_shape(dims, elem))

    def fix_list(items, fill):
        if len(items) != r0 and not everything:
            return items
        if grow:
            return items + [fill]
        return items[:-1] if len(items) > 1 else items

    text = STENCIL_TYPE_RE.sub(fix_type, text)

    def fix_access(m):
        items = [x.strip() for x in m.group(1).split(",")]
        return m.group(0)[: m.start(1) - m.start()] + ", ".join(fix_list(items, "0")) + "]"

    text = ACCESS_RE.sub(fix_access, text)

    def fix_bounds(m):
        lo = [x.strip() for x in m.group(1).split(",")]
        hi = [x.strip() for x in m.group(2).split(",")]
        s = m.group(0)
        o = m.start()
        return (s[: m.start(1) - o] + ", ".join(fix_list(lo, str(lb))) +
                s[m.end(1) - o: m.start(2) - o] + ", ".join(fix_list(hi, str(ub))) +
                s[m.end(2) - o:])

    text = STORE_BOUNDS_RE.sub(fix_bounds, text)

    def fix_angle(m):
        items = [x.strip() for x in m.group(1).split(",")]
        return "<[" + ", ".join(fix_list(items, "0" if "unroll" not in m.group(0) else "1")) + "]>"

    if rng.random() < 0.5:   # index offsets, unroll factors, dyn_access ranges
        text = re.sub(r"(?<![\],] )<\[([-\d,\s_]*)\]>", fix_angle, text)
    return text


def m_elem_type(rng, text, ctx):
    elems = [elem_of(m.group(2)) for m in STENCIL_TYPE_RE.finditer(text)]
    elems += [m.group(1) for m in RESULT_TYPE_RE.finditer(text)]
    elems = [e for e in elems if re.match(r"^\w+$", e)]
    if not elems:
        return None
    old = rng.choice(elems)
    new = rng.choice([e for e in ELEM_TYPES if e != old])
    r = rng.random()
    if r < 0.6:   # everywhere, arith types included
        return re.sub(r"\b%s\b" % re.escape(old), new, text)
    if r < 0.8:   # in stencil types only
        text = STENCIL_TYPE_RE.sub(
            lambda m: m.group(0).replace("x" + old + ">", "x" + new + ">"), text)
        return RESULT_TYPE_RE.sub(
            lambda m: "!stencil.result<%s>" % (new if m.group(1) == old else m.group(1)), text)
    ms = [m for m in re.finditer(r"\b%s\b" % re.escape(old), text)]
    m = rng.choice(ms)
    return replace_span(text, m.start(), m.end(), new)


STENCIL_OP_LINE_RE = re.compile(
    r"stencil\.(load|store|cast|apply|access|dyn_access|index|store_result|buffer|combine|return)\b")


def _op_lines(lines, pattern=STENCIL_OP_LINE_RE):
    return [i for i, l in enumerate(lines) if pattern.search(l)]


def _extract_op(lines, i):
    """Line range [i, j] of the op starting on line i (an apply spans its
    region)."""
    if lines[i].rstrip().endswith("{"):
        depth = 0
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0 and j > i:
                return i, j
    return i, i


def _reindent(op_lines, indent):
    base = indent_of(op_lines[0])
    out = []
    for l in op_lines:
        out.append(indent + (l[len(base):] if l.startswith(base) else l.lstrip()))
    return out


def _freshen(rng, chunk, results=True):
    """Renames the values that the chunk defines (results and region
    arguments, or region arguments only), so that a copy does not redefine
    names."""
    text = "\n".join(chunk)
    defs = set(re.findall(r"^\s*(%s)(?::\d+)?\s*=" % NAME, text, re.M)) if results else set()
    defs |= set(re.findall(r"[(,]\s*(%s)\s*=" % NAME, text))
    for bb in re.findall(r"\^bb\w*\(([^)]*)\)", text):
        defs |= set(re.findall(r"(%s)\s*:" % NAME, bb))
    if not defs:
        return chunk
    prefix = "%%c%d_" % rng.randrange(1000)
    pat = re.compile(r"(%s)(?![\w$.\-])" % "|".join(re.escape(d) for d in sorted(defs, key=len, reverse=True)))
    return pat.sub(lambda m: prefix + m.group(1)[1:], text).split("\n")


def _wrap_in_if(rng, op_lines, indent):
    c = fresh(rng, "fz_c")
    inner = _reindent(op_lines, indent + "  ")
    if rng.random() < 0.5:
        head = [indent + "%s = arith.constant true" % c, indent + "scf.if %s {" % c]
        return head + inner + [indent + "}"]
    # with an else branch
    return ([indent + "%s = arith.constant %s" % (c, rng.choice(["true", "false"])),
             indent + "scf.if %s {" % c] + inner + [indent + "} else {", indent + "}"])


def m_nesting(rng, text, ctx):
    """Move or copy a stencil op into an apply body, into an scf.if inside an
    apply body, or out of one; nest an apply in an apply."""
    lines = _lines(text)
    applies = apply_blocks(lines)
    ops = _op_lines(lines)
    if not applies or not ops:
        return None
    src = rng.choice(ops)
    s, e = _extract_op(lines, src)
    chunk = lines[s:e + 1]
    move = rng.random() < 0.4
    kind = rng.random()
    if kind < 0.15 and inside_any(src, applies):
        # out of the apply: just before the outermost enclosing apply
        outer = min((a for a in applies if a[0] < src < a[1]), key=lambda a: a[0])
        dest, indent, wrap = outer[0], indent_of(lines[outer[0]]), False
    else:
        target = rng.choice(applies)
        if target[0] <= s <= target[1] and e > target[1]:
            return None
        dest = terminator_index(lines, target)
        indent = body_indent(lines, target)
        wrap = kind > 0.6
    if s <= dest <= e:
        return None
    chunk = _freshen(rng, chunk, results=not move)
    new_chunk = _wrap_in_if(rng, chunk, indent) if wrap else _reindent(chunk, indent)
    if move:
        if dest > e:
            dest -= (e - s + 1)
        del lines[s:e + 1]
    lines[dest:dest] = new_chunk
    return _join(lines)


def m_nest_apply(rng, text, ctx):
    """Copy an apply into an apply body; its operands become region
    arguments of the outer apply (so that it can verify)."""
    lines = _lines(text)
    applies = apply_blocks(lines)
    if not applies:
        return None
    inner = rng.choice(applies)
    outer = rng.choice(applies)
    chunk = lines[inner[0]:inner[1] + 1]
    chunk = _freshen(rng, chunk)
    header = chunk[0]
    outer_args = re.findall(r"[(,]\s*(%s)\s*=" % NAME, lines[outer[0]])
    if outer_args and rng.random() < 0.7:
        def sub_operand(m):
            return m.group(1) + rng.choice(outer_args) + m.group(3)
        header = re.sub(r"([(,]\s*%s\s*=\s*)(%s(?:#\d+)?)(\s*:)" % (NAME, NAME), sub_operand, header)
    chunk = [header] + chunk[1:]
    dest = terminator_index(lines, outer)
    indent = body_indent(lines, outer)
    if rng.random() < 0.3:
        new_chunk = _wrap_in_if(rng, chunk, indent)
    else:
        new_chunk = _reindent(chunk, indent)
    if rng.random() < 0.3 and inner != outer and not (inner[0] < outer[0] < inner[1]):
        # move instead of copy
        if dest > inner[1]:
            dest -= inner[1] - inner[0] + 1
        del lines[inner[0]:inner[1] + 1]
    lines[dest:dest] = new_chunk
    return _join(lines)


def _field_and_temp_values(types, names=None):
    fields = [n for n, t in types.items() if t.startswith("!stencil.field") and (names is None or n in names)]
    temps = [n for n, t in types.items() if t.startswith("!stencil.temp") and (names is None or n in names)]
    scalars = [n for n, t in types.items() if not t.startswith("!stencil") and (names is None or n in names)]
    return fields, temps, scalars


def _qtype(t):
    m = STENCIL_TYPE_RE.search(t)
    if not m:
        return None
    dims, elem = parse_shape(m.group(2))
    return "!stencil.temp<%s>" % fmt_shape(["?"] * len(dims), elem)


def _zero_list(rank, v=0):
    return ", ".join([str(v)] * max(rank, 1))


def _box(t, rng):
    m = STENCIL_TYPE_RE.search(t)
    dims = parse_shape(m.group(2))[0] if m else ["?"]
    lo, hi = [], []
    for d in dims:
        if d == "?":
            a, b = 0, rng.choice([4, 8])
        else:
            a, b = [int(x) for x in d[1:-1].split(",")]
            if b - a > 2 and rng.random() < 0.7:
                a, b = a + 1, b - 1
        lo.append(str(a))
        hi.append(str(b))
    return "<[%s], [%s]>" % (", ".join(lo), ", ".join(hi))


def scope_at(lines, target):
    """Values visible before line `target` (name -> type, best effort) and
    whether that point is inside an apply body (isolated from above)."""
    stack = [({}, False)]
    for i in range(target):
        line = lines[i]
        st = line.strip()
        if not st:
            continue
        if st.startswith("}"):
            if len(stack) > 1:
                stack.pop()
            if st.endswith("{"):                         # } else {
                stack.append(({}, stack[-1][1]))
            continue
        types = value_types(line)
        m = re.match(r"\s*(%s)(?::\d+)?\s*=" % NAME, line)
        if m and m.group(1) in types:
            stack[-1][0][m.group(1)] = types[m.group(1)]
        elif m:
            stack[-1][0][m.group(1)] = "?"
        if st.endswith("{"):
            is_apply = "stencil.apply" in line
            inner = {}
            for n, t in types.items():
                if m and n == m.group(1):
                    continue
                if re.search(r"[(,]\s*%s\s*[=:]" % re.escape(n), line):
                    inner[n] = t
            if "func.func" in line:
                stack = [(inner, False)]
            else:
                stack.append((inner, is_apply))
    visible, in_apply = {}, False
    for names, iso in stack:
        if iso:
            visible = {}
            in_apply = True
        visible.update(names)
    return visible, in_apply


def m_synth_op(rng, text, ctx):
    """Insert a stencil op (load, store, cast, access, apply, index, buffer,
    dyn_access), typed from the values in scope, at a random point: the top
    level, a time loop, an apply body or an scf.if inside an apply body."""
    lines = _lines(text)
    funcs = func_blocks(lines)
    if not funcs:
        return None
    fs, fe = rng.choice(funcs)
    cands = [i for i in range(fs + 1, fe + 1) if lines[i].strip() and not lines[i].strip().startswith("}")]
    if not cands:
        return None
    dest = rng.choice(cands)
    types, in_apply = scope_at(lines, dest)
    types = {n: t for n, t in types.items() if t != "?"}
    indent = indent_of(lines[dest])
    wrap = in_apply and rng.random() < 0.35
    fields, temps, scalars = _field_and_temp_values(types)
    choices = []
    v = fresh(rng)
    if fields:
        f = rng.choice(fields)
        ft = types[f]
        choices.append(["%s = stencil.load %s : %s -> %s" % (v, f, ft, _qtype(ft))])
        if "?" in ft or rng.random() < 0.3:
            m = STENCIL_TYPE_RE.search(ft)
            dims, elem = parse_shape(m.group(2))
            bt = "!stencil.field<%s>" % fmt_shape([rand_dim(rng) if d == "?" else d for d in dims], elem)
            choices.append(["%s = stencil.cast %s : %s -> %s" % (v, f, ft, bt)])
        choices.append(["%s = stencil.access %s[%s] : %s" % (v, f, _zero_list(rank_of(ft)), ft)])
    if temps:
        t = rng.choice(temps)
        tt = types[t]
        rk = rank_of(tt)
        bt = tt.replace("!stencil.temp", "!stencil.field")
        if "?" not in bt:               # xDSL's bufferized forms: a field copy of a temp
            choices.append(["%s = stencil.buffer %s : %s -> %s" % (v, t, tt, bt)])
            choices.append(["%s = stencil.alloc : %s" % (v, bt)])
        choices.append(["%s = stencil.access %s[%s] : %s" % (v, t, _zero_list(rk, rng.choice([0, 0, 1, -1])), tt)])
        if fields:
            f = rng.choice(fields)
            choices.append(["stencil.store %s to %s(%s) : %s to %s" % (t, f, _box(types[f], rng), tt, types[f])])
        choices.append(["%s = stencil.buffer %s : %s -> %s" % (v, t, tt, tt)])
        i = fresh(rng, "fz_i")
        choices.append(["%s = stencil.index 0 <[%s]>" % (i, _zero_list(rk)),
                        "%s = stencil.dyn_access %s[%s] in <[%s]> : <[%s]> : %s" % (
                            v, t, ", ".join([i] * max(rk, 1)), _zero_list(rk, -1), _zero_list(rk, 1), tt)])
        if len(temps) > 1 and rk:
            t2 = rng.choice(temps)
            choices.append(["%s = stencil.combine 0 at %d lower = (%s : %s) upper = (%s : %s) : %s" % (
                v, rng.choice([0, 1, 4, 8]), t, tt, t2, types[t2], tt)])
    srcs = temps + fields + scalars
    if srcs:
        src = rng.choice(srcs)
        st = types[src]
        rk = rank_of(st) or rng.choice([1, 2])
        if st.startswith("!stencil"):
            mm = STENCIL_TYPE_RE.search(st)
            elem = elem_of(mm.group(2)) if mm else "f64"
        else:
            elem = st
        a = fresh(rng, "fz_a")
        x = fresh(rng, "fz_x")
        res = fresh(rng, "fz_r")
        rt = "!stencil.temp<%s>" % fmt_shape(["?"] * rk, elem)
        body = ["%s = stencil.apply(%s = %s : %s) -> (%s) {" % (v, a, src, st, rt)]
        if st.startswith("!stencil"):
            body.append("  %s = stencil.access %s[%s] : %s" % (x, a, _zero_list(rk), st))
        else:
            x = a
        body += ["  %s = stencil.store_result %s : !stencil.result<%s>" % (res, x, elem),
                 "  stencil.return %s : !stencil.result<%s>" % (res, elem), "}"]
        if fields and rng.random() < 0.6:
            f = rng.choice(fields)
            body.append("stencil.store %s to %s(%s) : %s to %s" % (v, f, _box(types[f], rng), rt, types[f]))
        choices.append(body)
        if fields:                      # the `outs` form, writing a field in place
            f = rng.choice(fields)
            ft = types[f]
            mm = STENCIL_TYPE_RE.search(ft)
            fe = elem_of(mm.group(2)) if mm else elem
            x2 = fresh(rng, "fz_x")
            ob = ["stencil.apply(%s = %s : %s) outs (%s : %s) {" % (a, src, st, f, ft)]
            if st.startswith("!stencil"):
                ob.append("  %s = stencil.access %s[%s] : %s" % (x2, a, _zero_list(rk, rng.choice([0, 0, 1, -1])), st))
            else:
                x2 = a
            ob += ["  stencil.return %s : %s" % (x2, fe), "} to %s" % _box(ft, rng)]
            choices.append(ob)
    if not choices:
        return None
    op = [indent + l for l in rng.choice(choices)]
    if wrap:
        op = _wrap_in_if(rng, op, indent)
    lines[dest:dest] = op
    return _join(lines)


RETURN_RE = re.compile(r"^(\s*)(stencil\.return|scf\.yield)\b(.*)$")


def m_terminator(rng, text, ctx):
    lines = _lines(text)
    idx = [i for i, l in enumerate(lines) if RETURN_RE.match(l)]
    if not idx:
        return None
    i = rng.choice(idx)
    ind, op, rest = RETURN_RE.match(lines[i]).groups()
    m = re.match(r"\s*(.*?)\s*(unroll\s*<\[[^\]]*\]>)?\s*(?::\s*(.*))?$", rest)
    operands = [o.strip() for o in m.group(1).split(",") if o.strip()] if m else []
    unroll = m.group(2) if m else None
    tys = [t.strip() for t in (m.group(3) or "").split(",") if t.strip()] if m else []
    r = rng.random()
    if r < 0.2:
        del lines[i]
        return _join(lines)
    if r < 0.32:
        lines.insert(i, lines[i])
        return _join(lines)
    if r < 0.47 and operands:          # drop an operand (and maybe its type)
        k = rng.randrange(len(operands))
        del operands[k]
        if tys and rng.random() < 0.8:
            del tys[min(k, len(tys) - 1)]
    elif r < 0.6 and operands:         # duplicate an operand
        k = rng.randrange(len(operands))
        operands.append(operands[k])
        if tys and rng.random() < 0.8:
            tys.append(tys[min(k, len(tys) - 1)])
    elif r < 0.7 and len(operands) > 1:
        rng.shuffle(operands)
    elif r < 0.85 and op == "stencil.return":   # unroll
        n = rng.choice([1, 2, 2, 3])
        factors = [rng.choice([1, 2, 2, 4, 0, 3, -1]) for _ in range(n)]
        unroll = "unroll <[%s]>" % ", ".join(map(str, factors))
        u = 1
        for f in factors:
            u *= max(f, 1)
        if rng.random() < 0.7 and operands and u <= 16:
            operands = [o for o in operands for _ in range(u)]
            tys = [t for t in tys for _ in range(u)]
    elif r < 0.92:                     # another value
        names = defined_names(text)
        if not names:
            return None
        if operands:
            operands[rng.randrange(len(operands))] = rng.choice(names)
        else:
            operands = [rng.choice(names)]
    else:                              # no operands
        operands, tys = [], []
    s = ind + op
    if operands:
        s += " " + ", ".join(operands)
    if unroll and op == "stencil.return":
        s += " " + unroll
    if tys:
        s += " : " + ", ".join(tys)
    lines[i] = s
    return _join(lines)


def m_ssa(rng, text, ctx):
    lines = _lines(text)
    names = defined_names(text)
    uses = [(i, m) for i, l in enumerate(lines) for m in NAME_RE.finditer(l)]
    if not uses:
        return None
    r = rng.random()
    if r < 0.45 and names:           # rename a use to another defined name
        i, m = rng.choice(uses)
        lines[i] = replace_span(lines[i], m.start(), m.end(), rng.choice(names))
    elif r < 0.6:                    # undefined name or bad result number
        i, m = rng.choice(uses)
        new = rng.choice(["%undefined", m.group(0).split("#")[0] + "#%d" % rng.choice([1, 2, 7, 100]),
                          "%" + str(rng.randrange(100))])
        lines[i] = replace_span(lines[i], m.start(), m.end(), new)
    elif r < 0.85:                   # use before def: move a def below a use
        defs = [i for i, l in enumerate(lines) if re.match(r"\s*%s(?::\d+)?\s*=" % NAME, l)
                and not l.rstrip().endswith("{")]
        if not defs:
            return None
        d = rng.choice(defs)
        name = re.match(r"\s*(%s)" % NAME, lines[d]).group(1)
        later = [i for i in range(d + 1, len(lines))
                 if re.search(re.escape(name) + r"(?![\w$.\-])", lines[i])]
        if not later:
            return None
        tgt = rng.choice(later)
        line = lines.pop(d)
        lines.insert(tgt, line)
    else:                            # redefine a name (duplicate definition)
        defs = [i for i, l in enumerate(lines) if re.match(r"\s*%s\s*=" % NAME, l)]
        if len(defs) < 2:
            return None
        a, b = rng.sample(defs, 2)
        na = re.match(r"\s*(%s)" % NAME, lines[a]).group(1)
        lines[b] = re.sub(r"^(\s*)%s" % NAME, lambda m: m.group(1) + na, lines[b], count=1)
    return _join(lines)


def m_lines(rng, text, ctx):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    r = rng.random()
    i = rng.randrange(len(lines))
    if r < 0.35:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif r < 0.65:
        n = rng.choice([1, 1, 1, 2, 3])
        lines[i:i] = lines[i:i + n]
    else:
        n = rng.choice([1, 1, 1, 2, 3])
        del lines[i:i + n]
    return _join(lines)


STORE_LINE_RE = re.compile(r"^(\s*)stencil\.store\s+(%s(?:#\d+)?)\s+to\s+(%s)" % (NAME, NAME))


def m_dup_store(rng, text, ctx):
    lines = _lines(text)
    idx = [i for i, l in enumerate(lines) if STORE_LINE_RE.match(l)]
    if not idx:
        return None
    i = rng.choice(idx)
    line = lines[i]
    r = rng.random()
    if r < 0.5:
        lines.insert(i + rng.choice([0, 1]), line)                 # same temp, same field
    else:
        types = value_types(text)
        temps = [n for n, t in types.items() if t.startswith("!stencil.temp")]
        other = rng.choice(temps) if temps else None
        if not other:
            return None
        m = STORE_LINE_RE.match(line)
        lines.insert(i + 1, replace_span(line, m.start(2), m.end(2), other))  # other temp, same field
    return _join(lines)


ITER_ARGS_RE = re.compile(r"iter_args\(([^)]*)\)")


def m_alias(rng, text, ctx):
    """Pass the same field twice: to scf.for iter_args, to an apply, to a call,
    or to an apply's `outs` and one of its operands."""
    ms = list(ITER_ARGS_RE.finditer(text))
    r = rng.random()
    if ms and r < 0.7:
        m = rng.choice(ms)
        pairs = [p.strip() for p in m.group(1).split(",")]
        inits = [p.split("=")[1].strip() for p in pairs if "=" in p]
        if len(inits) < 1:
            return None
        src = rng.choice(inits)
        k = rng.randrange(len(pairs))
        if "=" not in pairs[k]:
            return None
        pairs[k] = pairs[k].split("=")[0].strip() + " = " + src
        if rng.random() < 0.2:   # also yield the same field twice
            text = replace_span(text, m.start(1), m.end(1), ", ".join(pairs))
            return re.sub(r"scf\.yield\s+(%s)\s*,\s*%s" % (NAME, NAME), r"scf.yield \1, \1", text, count=1)
        return replace_span(text, m.start(1), m.end(1), ", ".join(pairs))
    m = pick_match(rng, re.compile(r"outs\s*\((%s)" % NAME), text)
    if m:
        lines = _lines(text)
        # an operand of the same apply gets the outs field
        types = value_types(text)
        fields = [n for n, t in types.items() if t.startswith("!stencil.field")]
        if not fields:
            return None
        return replace_span(text, m.start(1), m.end(1), rng.choice(fields))
    m = pick_match(rng, re.compile(r"func\.call\s+@\w+\(([^)]*)\)"), text)
    if m:
        args = [a.strip() for a in m.group(1).split(",") if a.strip()]
        if len(args) < 2:
            return None
        args[rng.randrange(len(args))] = rng.choice(args)
        return replace_span(text, m.start(1), m.end(1), ", ".join(args))
    return None


def m_truncate(rng, text, ctx):
    if len(text) < 2:
        return None
    return text[: rng.randrange(1, len(text))]


def m_bytes(rng, text, ctx):
    if not text:
        return None
    n = rng.choice([1, 1, 2, 4])
    for _ in range(n):
        r = rng.random()
        p = rng.randrange(len(text) + 1)
        if r < 0.3:
            text = text[:p] + rng.choice(FUZZ_CHARS) + text[p:]
        elif r < 0.55 and p < len(text):
            text = text[:p] + text[p + rng.choice([1, 1, 2, 5]):]
        elif r < 0.8 and p < len(text):
            text = text[:p] + rng.choice(FUZZ_CHARS) + text[p + 1:]
        else:
            q = min(len(text), p + rng.randrange(1, 40))
            text = text[:q] + text[p:q] + text[q:]
    return text


def m_number(rng, text, ctx):
    m = pick_match(rng, INT_RE, text)
    if not m:
        return None
    return replace_span(text, m.start(), m.end(), str(mutate_int(rng, int(m.group(0)))))


def _top_level_units(lines, fs, fe):
    """Op units (start, end) directly in the body of the function (fs, fe),
    a multi-line op (apply, scf.for, ...) being one unit."""
    units = []
    i = fs + 1
    while i < fe:
        if not lines[i].strip():
            i += 1
            continue
        s, e = _extract_op(lines, i)
        units.append((s, e))
        i = e + 1
    return units


def _uses_after(lines, name, after):
    pat = re.compile(re.escape(name) + r"(?![\w$.\-])")
    return any(pat.search(lines[k]) for k in range(after + 1, len(lines)))


def m_time_loop(rng, text, ctx):
    """Wrap the body of a function in a time loop (scf.for) that carries
    the fields it loads and stores in iter_args, as ping-pong buffers or
    not; stencil.cast results (kept outside the loop) are loop inits too."""
    lines = _lines(text)
    funcs = func_blocks(lines)
    if not funcs:
        return None
    fs, fe = rng.choice(funcs)
    units = _top_level_units(lines, fs, fe)
    if len(units) < 2:
        return None
    term = units[-1]
    if "return" not in lines[term[0]]:
        return None
    types = value_types(_join(lines[fs:fe + 1]))
    outside, inside = [], []
    for u in units[:-1]:
        first = lines[u[0]]
        if re.search(r"=\s*(stencil\.cast|arith\.constant)\b", first) and rng.random() < 0.9:
            outside.append(u)
        else:
            inside.append(u)
    if not inside:
        return None
    body = [l for u in inside for l in lines[u[0]:u[1] + 1]]
    # values defined in the loop and used after it cannot stay: keep it simple
    btext = _join(body)
    fields = []
    for n, t in types.items():
        if t.startswith("!stencil.field") and re.search(re.escape(n) + r"(?![\w$.\-])", btext):
            if not re.search(r"(^\s*|[(,]\s*)%s\s*=" % re.escape(n), btext, re.M):
                fields.append(n)
    if not fields:
        return None
    fields.sort()
    rng.shuffle(fields)
    tag = rng.randrange(1000)
    its = ["%%fz_it%d_%d" % (tag, k) for k in range(len(fields))]
    for f, it in zip(fields, its):
        btext = re.sub(re.escape(f) + r"(?![\w$.\-])", it, btext)
    # ping-pong: rotate the fields of each type
    yields = list(its)
    by_type = {}
    for k, f in enumerate(fields):
        by_type.setdefault(types[f], []).append(k)
    for ks in by_type.values():
        if len(ks) > 1 and rng.random() < 0.8:
            for a, b in zip(ks, ks[1:] + ks[:1]):
                yields[a] = its[b]
    ind = body_indent(lines, (fs, fe))
    steps = rng.choice([1, 2, 3, 3, 0, 5, -1])
    tys = ", ".join(types[f] for f in fields)
    v = "%%fz_%d" % tag
    res = v + ("_res:%d" % len(fields) if len(fields) > 1 else "_res")
    loop = [ind + "%s_lb = arith.constant 0 : index" % v,
            ind + "%s_ub = arith.constant %d : index" % (v, steps),
            ind + "%s_st = arith.constant 1 : index" % v,
            ind + "%s = scf.for %s_t = %s_lb to %s_ub step %s_st iter_args(%s) -> (%s) {" % (
                res, v, v, v, v, ", ".join("%s = %s" % (it, f) for it, f in zip(its, fields)), tys)]
    loop += _reindent(btext.split("\n"), ind + "  ")
    loop += [ind + "  scf.yield %s : %s" % (", ".join(yields), ", ".join(types[fields[its.index(y)]] for y in yields)),
             ind + "}"]
    new = lines[:fs + 1]
    for u in outside:
        new += lines[u[0]:u[1] + 1]
    new += loop
    new += lines[term[0]:]
    return _join(new)


def m_wrap_region(rng, text, ctx):
    """Put a few top-level ops (ending with a store or an apply with `outs`)
    under an scf.if, an scf.for or an scf.execute_region."""
    lines = _lines(text)
    funcs = func_blocks(lines)
    if not funcs:
        return None
    fs, fe = rng.choice(funcs)
    units = _top_level_units(lines, fs, fe)
    ends = [k for k, u in enumerate(units) if re.match(r"\s*stencil\.(store|apply)\b", lines[u[0]])
            or "scf.for" in lines[u[0]]]
    if not ends:
        return None
    k = rng.choice(ends)
    j = k
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if j == 0:
            break
        u = units[j - 1]
        m = re.match(r"\s*(%s)" % NAME, lines[u[0]])
        if m and _uses_after(lines, m.group(1), units[k][1]):
            break
        j -= 1
    s, e = units[j][0], units[k][1]
    chunk = lines[s:e + 1]
    ind = indent_of(lines[s])
    r = rng.random()
    c = fresh(rng, "fz_c")
    if r < 0.5:
        head = [ind + "%s = arith.constant %s" % (c, rng.choice(["true", "true", "false"])),
                ind + "scf.if %s {" % c]
        tail = [ind + "}"]
    elif r < 0.8:
        head = [ind + "%s = arith.constant 0 : index" % c,
                ind + "%s_n = arith.constant %d : index" % (c, rng.choice([1, 2, 0])),
                ind + "%s_s = arith.constant 1 : index" % c,
                ind + "scf.for %s_i = %s to %s_n step %s_s {" % (c, c, c, c)]
        tail = [ind + "}"]
    else:
        head = [ind + "scf.execute_region {"]
        tail = [ind + "  scf.yield", ind + "}"]
    lines[s:e + 1] = head + _reindent(chunk, ind + "  ") + tail
    return _join(lines)


def m_crossover(rng, text, ctx):
    other = rng.choice(ctx["seeds"])[1]
    olines = [l for l in _lines(other) if l.strip()]
    lines = _lines(text)
    if not olines:
        return None
    i = rng.randrange(len(olines))
    s, e = _extract_op(olines, i)
    if e - s > 40:
        e = s
    lines[rng.randrange(len(lines) + 1):0] = olines[s:e + 1]
    return _join(lines)


MUTATORS = [
    # (name, function, weight)
    ("access-offset", m_access_offset, 8),
    ("type-bounds", m_type_bounds, 8),
    ("store-bounds", m_store_bounds, 6),
    ("bracket-list", m_bracket_list, 3),
    ("rank", m_rank, 5),
    ("elem-type", m_elem_type, 5),
    ("nesting", m_nesting, 10),
    ("nest-apply", m_nest_apply, 6),
    ("synth-op", m_synth_op, 10),
    ("terminator", m_terminator, 7),
    ("ssa", m_ssa, 6),
    ("lines", m_lines, 5),
    ("dup-store", m_dup_store, 4),
    ("alias", m_alias, 4),
    ("truncate", m_truncate, 2),
    ("bytes", m_bytes, 3),
    ("number", m_number, 4),
    ("crossover", m_crossover, 3),
    ("time-loop", m_time_loop, 5),
    ("wrap-region", m_wrap_region, 5),
]
MUTATOR_NAMES = [m[0] for m in MUTATORS]


def make_mutant(seed, index, seeds, derived, only=None):
    """Mutant number `index` of the campaign with seed `seed`: deterministic
    (its random stream depends only on the seed, the index and the corpus)."""
    rng = random.Random("stencil-fuzz:%s:%d" % (seed, index))
    # Seeds from the invalid-IR tests already fail to verify: pick them less.
    sname, text = rng.choices(seeds, [1 if "invalid" in n else 8 for n, _ in seeds])[0]
    form = rng.random()
    if form < 0.25:
        d = derived("shape", sname, text)
        if d:
            sname, text = sname + "[shape]", d
    elif form < 0.33:
        d = derived("generic", sname, text)
        if d:
            sname, text = sname + "[generic]", d
    ctx = {"seeds": seeds}
    muts = [m for m in MUTATORS if only is None or m[0] in only]
    weights = [m[2] for m in muts]
    applied = []
    n = rng.choice([1, 1, 1, 1, 1, 2, 2, 3])
    tries = 0
    while len(applied) < n and tries < 20:
        tries += 1
        name, fn, _ = rng.choices(muts, weights)[0]
        try:
            new = fn(rng, text, ctx)
        except (ValueError, IndexError, AttributeError, TypeError):
            new = None
        if new is None or new == text:
            continue
        text = new
        applied.append(name)
    return sname, applied, text


# ---------------------------------------------------------------------------
# Running stencil-opt and classifying the result
# ---------------------------------------------------------------------------

CRASH_MARKERS = [
    "PLEASE submit a bug report", "Stack dump:", "LLVM ERROR:", "Assertion `",
    "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
    "malloc():", "free():", "double free", "corrupted size", "corrupted double-linked",
    "munmap_chunk()", "realloc():", "UNREACHABLE executed", "terminate called",
]
# Diagnostics that only a pass producing broken IR can give.
INVALID_IR_MARKERS = [
    "null operand found", "<<NULL VALUE>>", "<<NULL TYPE>>",
    "does not dominate this use", "operation destroyed but still has uses",
    "failed to legalize unresolved materialization",
]
HEAP_MSG_RE = re.compile(
    r"(malloc\(\)[^\n]*|free\(\)[^\n]*|double free[^\n]*|corrupted [^\n]*|"
    r"munmap_chunk\(\)[^\n]*|realloc\(\)[^\n]*)")
ASAN_RE = re.compile(r"ERROR: (?:AddressSanitizer|LeakSanitizer): ([\w-]+)")
ASSERT_RE = re.compile(r"Assertion `(.*)' failed")
LLVM_ERROR_RE = re.compile(r"LLVM ERROR: ([^\n]*)")
FRAME_RE = re.compile(r"^\s*#(\d+)\s+0x[0-9a-fA-F]+\s+(?:in\s+)?(.*?)\s*$")
GDB_FRAME_RE = re.compile(r"^#(\d+)\s+(?:0x[0-9a-fA-F]+ in )?(.+?)(?: \(.*?\))?(?: (?:at|from) (\S+))?\s*$")
ERROR_LINE_RE = re.compile(r"(?:^|\n)[^\n]*error: [^\n]*")
ERR_OP_RE = re.compile(r"error: (?:'([a-z_]+\.[\w.]+)' op|failed to legalize operation '([a-z_]+\.[\w.]+)')")

SKIP_FRAME_RE = re.compile(
    r"^(llvm::sys::(PrintStackTrace|RunSignalHandlers|CleanupOnSignal|RunInterruptHandlers)|"
    r"SignalHandler|__restore_rt|raise|abort|__GI_|__pthread_kill|pthread_kill|"
    r"gsignal|__libc_|_int_|malloc|free|cfree|__malloc|__assert|__interceptor|__asan|__sanitizer|"
    r"__lsan|operator new|operator delete|tcache|unlink_chunk|malloc_printerr|__cxa_|call_init|"
    r"std::terminate|__gnu_cxx::__verbose|_Unwind|__fortify|<unknown>|\?\?|0x|"
    r"llvm::report_fatal_error|llvm::llvm_unreachable_internal|_start$|main$)")


def _short_fn(fn):
    fn = fn.replace("(anonymous namespace)", "anon")
    # drop " (module+0xoff)" and parameter lists, keep the qualified name
    fn = re.sub(r"\s*\((?:/|\S+\+0x)[^)]*\)\s*$", "", fn)
    depth, out = 0, []
    for ch in fn:
        if ch == "(" :
            depth += 1
            continue
        if ch == ")":
            depth = max(0, depth - 1)
            continue
        if depth == 0:
            out.append(ch)
    fn = "".join(out).strip()
    fn = re.sub(r"\s+const$", "", fn)
    fn = re.sub(r"\s*\+\s*0x[0-9a-f]+$", "", fn)
    return fn


def parse_frames(stderr):
    """Frames of an LLVM stack dump or an ASan report: [(function, module)].
    An unsymbolized frame is named after its module and offset."""
    frames = []
    for line in stderr.split("\n"):
        m = FRAME_RE.match(line)
        if not m:
            continue
        rest = m.group(2)
        mod, off = "", ""
        mm = re.search(r"\(([^()\s]*?)\+(0x[0-9a-fA-F]+)\)\s*$", rest)
        if mm:
            mod, off = mm.group(1), mm.group(2)
            rest = rest[: mm.start()]
        mm2 = (re.search(r"\s(\S+):\d+:\d+$", rest)            # "fn file:line:col"
               or re.search(r"\s(\S*/\S+|\S+\.\w+):\d+$", rest))
        if mm2:
            mod = mod or mm2.group(1)
            rest = rest[: mm2.start()]
        fn = _short_fn(rest).strip()
        if not fn:
            if "libc.so" in mod or not mod:
                fn = "<unknown>"
            else:
                fn = "%s+%s" % (os.path.basename(mod), off)
        frames.append((fn, mod))
    return frames


def parse_gdb_frames(out, binary):
    frames = []
    for line in out.split("\n"):
        m = GDB_FRAME_RE.match(line.strip())
        if not m:
            continue
        fn = _short_fn(m.group(2))
        frames.append((fn, m.group(3) or binary))
    return frames


def meaningful(frames):
    """The frames of the crash itself: without the crash handler, libc,
    allocator and sanitizer frames, and unsymbolized frames."""
    for k, (fn, mod) in enumerate(frames):          # LLVM's handler on top
        if fn.startswith("llvm::sys::RunSignalHandlers"):
            for j in range(k + 1, len(frames)):
                if "libc.so" in frames[j][1] or frames[j][0].startswith("__restore_rt"):
                    frames = frames[j + 1:]
                    break
            break
    out = []
    for fn, mod in frames:
        if SKIP_FRAME_RE.match(fn) or fn.startswith("<unknown>@libc"):
            continue
        if fn in ("main", "_start"):
            continue
        out.append((fn, mod))
    return out


PARSER_FRAME_RE = re.compile(
    r"(Parser|parseSourceFile|parseAsmSourceFile|Lexer|parseSourceString|"
    r"mlir::parseAttribute|mlir::parseType)")


def is_project_frame(fn, mod, stencil_opt):
    if fn in ("main", "_start"):
        return False
    if "stencil" in fn.lower():
        return True
    return bool(mod) and os.path.basename(mod) == os.path.basename(stencil_opt)


class Result:
    __slots__ = ("status", "kind", "rc", "stdout", "stderr", "detail", "frames", "seconds")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def run_opt(opt, args, text, timeout, env):
    t0 = time.time()
    try:
        p = subprocess.run([opt] + args, input=text.encode("utf-8", "replace"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode("utf-8", "replace"), (e.stderr or b"").decode("utf-8", "replace"), time.time() - t0
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"), time.time() - t0)


def classify(rc, stdout, stderr, input_text, pipeline):
    """Returns (status, kind, detail)."""
    if rc is None:
        return HANG, "hang", "timeout"
    crashed = rc < 0 or any(m in stderr for m in CRASH_MARKERS)
    if crashed:
        m = ASAN_RE.search(stderr)
        if m:
            return CRASH, "asan", m.group(1)
        m = ASSERT_RE.search(stderr)
        if m:
            return CRASH, "assert", m.group(1)
        m = LLVM_ERROR_RE.search(stderr)
        if m:
            return CRASH, "llvm-error", m.group(1)
        m = HEAP_MSG_RE.search(stderr)
        if m:
            return CRASH, "heap", m.group(1)
        sig = -rc if rc < 0 else rc
        names = {6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS", 8: "SIGFPE", 4: "SIGILL", 9: "SIGKILL"}
        if rc < 0:
            return CRASH, "signal", names.get(sig, "signal %d" % sig)
        if rc in (134, 139, 135, 136, 132):
            return CRASH, "signal", names.get(rc - 128, "signal %d" % (rc - 128))
        return CRASH, "crash", "crash marker, exit %d" % rc
    if rc == 0:
        return OK, "ok", ""
    errors = ERROR_LINE_RE.findall(stderr)
    if not errors:
        return CRASH, "silent-failure", "exit %d without an error diagnostic" % rc
    if pipeline != "parse":
        # the input parsed and verified, so broken IR comes from a pass
        for mk in INVALID_IR_MARKERS:
            if mk in stderr:
                return CRASH, "invalid-ir", mk
        for m in ERR_OP_RE.finditer(stderr):
            op = m.group(1) or m.group(2)
            # func ops print without their dialect prefix ("return").
            printed = op[len("func."):] if op.startswith("func.") else op
            if (not op.startswith("stencil.") and op not in input_text
                    and not re.search(r"(?<![.\w])%s\b" % re.escape(printed), input_text)):
                return CRASH, "invalid-ir", "error at '%s', an op that the passes created" % op
    return DIAG, "diagnostic", errors[0].strip()


def gdb_frames(opt, args, text, timeout, env):
    """Backtrace at the crash under gdb, for crashes whose stack dump has no
    frames (heap corruption aborts inside the crash handler)."""
    gdb = shutil.which("gdb")
    if not gdb:
        return []
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        p = subprocess.run([gdb, "-nx", "-batch", "-ex", "set pagination off",
                            "-ex", "set print frame-arguments none",
                            "-ex", "run", "-ex", "bt 40", "--args", opt, path, "-o", "/dev/null"] + args,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=max(60, 4 * timeout), env=env)
        out = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        out = ""
    finally:
        os.unlink(path)
    bt = out[out.find("\n#0 "):] if "\n#0 " in out else ""
    return parse_gdb_frames(bt, opt)


def signature(pipeline, kind, detail, frames, stencil_opt, nframes=3):
    """(signature string, upstream_parser?). The signature is the pipeline,
    the crash class and the top `nframes` frames of the crash (or, without
    frames, its normalized message)."""
    mf = meaningful(frames)
    upstream = (pipeline == "parse" and bool(frames)
                and not any(is_project_frame(fn, mod, stencil_opt) for fn, mod in frames)
                and any(PARSER_FRAME_RE.search(fn) for fn, _ in frames))
    if mf:
        key = " <- ".join(f[0] for f in mf[:nframes])
        cls = kind if kind in ("heap", "assert", "llvm-error") else "crash"
        if kind == "asan":
            cls = "asan:" + detail
        return "%s | %s | %s" % (pipeline, cls, key), upstream
    d = re.sub(r"0x[0-9a-f]+", "ADDR", detail or "")
    d = re.sub(r"\d+", "N", d)
    return "%s | %s | %s" % (pipeline, kind, d), upstream


def run_pipeline(opt, pipeline, text, timeout, env, use_gdb=True):
    args = PIPELINE_ARGS[pipeline]
    rc, out, err, secs = run_opt(opt, args, text, timeout, env)
    if rc is None:  # confirm a hang with a longer limit (the machine may be busy)
        rc, out, err, secs = run_opt(opt, args, text, timeout * 3, env)
    status, kind, detail = classify(rc, out, err, text, pipeline)
    frames = []
    if status == CRASH and kind not in ("invalid-ir", "silent-failure"):
        frames = parse_frames(err)
        if not meaningful(frames) and use_gdb:
            frames = gdb_frames(opt, args, text, timeout, env)
    return Result(status=status, kind=kind, rc=rc, stdout=out, stderr=err,
                  detail=detail, frames=frames, seconds=secs)


def roundtrip(opt, pipeline, printed, timeout, env, generic_check):
    """Re-parses the output of an OK run. Returns (failure, runs): failure is
    None or (kind, detail, stderr, reproducer-extra-args)."""
    rc, out, err, _ = run_opt(opt, [], printed, timeout, env)
    status, kind, detail = classify(rc, out, err, printed, "parse")
    if status != OK:
        return ("roundtrip", "re-parse of the printed output: %s" % (detail or status),
                err, []), 1
    if not generic_check:
        return None, 1
    if out != printed:
        return ("roundtrip-unstable", "printing the re-parsed output differs", "", []), 1
    rc, gout, gerr, _ = run_opt(opt, ["--mlir-print-op-generic"], printed, timeout, env)
    if rc != 0:
        return None, 2
    rc2, _, gerr2, _ = run_opt(opt, [], gout, timeout, env)
    st, k, d = classify(rc2, "", gerr2, gout, "parse")
    if st != OK:
        return ("roundtrip-generic", "re-parse of the generic form: %s" % (d or st),
                gerr2, ["--mlir-print-op-generic"]), 3
    return None, 3


def test_case(opt, text, pipelines, timeout, env, rt_pipelines, use_gdb=True):
    """Runs one input through the pipelines. Returns a list of run records
    (pipeline, Result, roundtrip-failure-or-None)."""
    records = []
    for name in pipelines:
        res = run_pipeline(opt, name, text, timeout, env, use_gdb)
        rt, rt_runs = None, 0
        if res.status == OK and name in rt_pipelines and res.stdout.strip():
            rt, rt_runs = roundtrip(opt, name, res.stdout, timeout, env, generic_check=(name == "parse"))
        records.append((name, res, rt, rt_runs))
        if name == "parse" and res.status != OK:
            break   # every other pipeline parses first and fails the same way
    return records


# ---------------------------------------------------------------------------
# Findings
# ---------------------------------------------------------------------------

def repro_command(opt, pipeline, path, extra_rt=None):
    cmd = " ".join(shlex.quote(x) for x in [opt, path] + PIPELINE_ARGS[pipeline])
    if extra_rt is not None:
        cmd += " | " + " ".join(shlex.quote(x) for x in [opt] + extra_rt)
        if extra_rt:
            cmd += " | " + shlex.quote(opt)
    return cmd


class Findings:
    def __init__(self, out_dir, opt):
        self.out_dir = out_dir
        self.opt = opt
        self.unique = {}        # signature -> dict
        self.hangs = {}
        self.lock = threading.Lock()

    def add(self, sig, upstream, pipeline, kind, detail, frames, text, stderr, case, mutations, rt_extra=None):
        with self.lock:
            if sig in self.unique:
                self.unique[sig]["count"] += 1
                return False
            ident = hashlib.sha1(sig.encode()).hexdigest()[:10]
            entry = {"id": ident, "sig": sig, "upstream": upstream, "pipeline": pipeline,
                     "kind": kind, "detail": detail, "frames": frames, "text": text,
                     "stderr": stderr, "case": case, "mutations": mutations, "count": 1,
                     "rt_extra": rt_extra, "dir": None}
            self.unique[sig] = entry
        if self.out_dir:
            self.save(entry)
        return True

    def save(self, e):
        d = os.path.join(self.out_dir, ("upstream-" if e["upstream"] else "") + e["kind"] + "-" + e["id"])
        os.makedirs(d, exist_ok=True)
        e["dir"] = d
        inp = os.path.join(d, "input.mlir")
        with open(inp, "w") as fh:
            fh.write(e["text"])
        with open(os.path.join(d, "stderr.txt"), "w") as fh:
            fh.write(e["stderr"] or "")
        self.write_info(e)

    def write_info(self, e):
        d = e["dir"]
        inp = os.path.join(d, "min.mlir" if e.get("minimized") else "input.mlir")
        cmd = repro_command(self.opt, e["pipeline"], inp, e["rt_extra"])
        with open(os.path.join(d, "repro.sh"), "w") as fh:
            fh.write("#!/bin/sh\n# %s\n%s\n" % (e["sig"], cmd))
        os.chmod(os.path.join(d, "repro.sh"), 0o755)
        with open(os.path.join(d, "info.txt"), "w") as fh:
            fh.write("signature: %s\n" % e["sig"])
            fh.write("pipeline: %s (%s)\n" % (e["pipeline"], " ".join(PIPELINE_ARGS[e["pipeline"]]) or "parse only"))
            fh.write("kind: %s\ndetail: %s\n" % (e["kind"], e["detail"]))
            fh.write("upstream parser: %s\n" % ("yes" if e["upstream"] else "no"))
            fh.write("first found: case %s, mutations %s\n" % (e["case"], ",".join(e["mutations"])))
            fh.write("occurrences: %d\n" % e["count"])
            fh.write("reproduce: %s\n" % cmd)
            if e["frames"]:
                fh.write("frames:\n")
                for fn, mod in meaningful(e["frames"])[:12]:
                    fh.write("  %s  [%s]\n" % (fn, os.path.basename(mod) if mod else ""))


# ---------------------------------------------------------------------------
# Minimization (delta debugging over lines, then tokens)
# ---------------------------------------------------------------------------

# a token with the whitespace before it, so that deleting one keeps the rest readable
TOKEN_RE = re.compile(r"\s*(?:%[\w$.\-#]+|!?[\w.]+|-?\d+|\S)")


def finding_signature(opt, pipeline, text, timeout, env, rt_extra=None):
    """Signature of the bug that `text` triggers on `pipeline`, or None."""
    res = run_pipeline(opt, pipeline, text, timeout, env, use_gdb=True)
    if rt_extra is not None:
        if res.status != OK:
            return None
        rt = roundtrip(opt, pipeline, res.stdout, timeout, env, generic_check=(pipeline == "parse"))[0]
        if not rt:
            return None
        return "%s | %s" % (pipeline, rt[0])
    if res.status == HANG:
        return "%s | hang" % pipeline
    if res.status != CRASH:
        return None
    if res.kind in ("invalid-ir", "silent-failure"):
        return "%s | %s | %s" % (pipeline, res.kind, res.detail)
    return signature(pipeline, res.kind, res.detail, res.frames, opt)[0]


def minimize(opt, pipeline, text, target_sig, timeout, env, rt_extra=None, budget=300, log=None):
    """Shrinks `text` while it keeps the signature `target_sig`."""
    deadline = time.time() + budget
    cache = {}
    tests = [0]

    def keeps(candidate):
        if candidate in cache:
            return cache[candidate]
        if time.time() > deadline:
            return False
        tests[0] += 1
        ok = finding_signature(opt, pipeline, candidate, timeout, env, rt_extra) == target_sig
        cache[candidate] = ok
        return ok

    def ddmin(units, join):
        n = 2
        while len(units) >= 2 and time.time() < deadline:
            chunk = max(1, len(units) // n)
            reduced = False
            i = 0
            while i < len(units):
                cand = units[:i] + units[i + chunk:]
                if cand and keeps(join(cand)):
                    units = cand
                    reduced = True
                else:
                    i += chunk
            if not reduced:
                if chunk == 1:
                    break
                n = min(len(units), n * 2)
        return units

    def op_pass(lines):
        """Deletes whole ops (a function, an apply, a loop with its region,
        or one line), outermost first, while the bug persists."""
        changed = True
        while changed and time.time() < deadline:
            changed = False
            spans = sorted({_extract_op(lines, i) for i in range(len(lines)) if lines[i].strip()},
                           key=lambda se: (se[0] - se[1], se[0]))
            for s0, e0 in spans:
                if e0 >= len(lines):
                    continue
                cand = lines[:s0] + lines[e0 + 1:]
                if cand and keeps("\n".join(cand)):
                    lines = cand
                    changed = True
                    break
        return lines

    lines = [l for l in text.split("\n") if l.strip()]
    if not keeps("\n".join(lines)):
        lines = text.split("\n")
    prev = None
    while prev != lines and time.time() < deadline:
        prev = list(lines)
        lines = op_pass(lines)
        lines = ddmin(lines, "\n".join)
        new = []
        for k, l in enumerate(lines):      # tokens, one line at a time
            toks = TOKEN_RE.findall(l)
            if len(toks) > 1:
                rest_before, rest_after = new, lines[k + 1:]
                toks = ddmin(toks, lambda ts: "\n".join(rest_before + ["".join(ts)] + rest_after))
            new.append("".join(toks))
        lines = new
    # cosmetic: normalize indentation if that keeps the bug
    out = "\n".join(lines)
    pretty = _reindent_text(out)
    if pretty != out and keeps(pretty):
        out = pretty
    if log:
        log("minimize: %d tests, %d -> %d bytes" % (tests[0], len(text), len(out)))
    return out if out.endswith("\n") else out + "\n"


def _reindent_text(text):
    out, depth = [], 0
    for l in text.split("\n"):
        s = l.strip()
        if not s:
            continue
        d = depth - (1 if s.startswith("}") else 0)
        out.append("  " * max(d, 0) + s)
        depth += s.count("{") - s.count("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Campaign
# ---------------------------------------------------------------------------

def child_env(args):
    env = dict(os.environ)
    # allow_user_poisoning=0: the project's code is instrumented but the
    # installed MLIR is not, and LLVM's inline BumpPtrAllocator poisons slabs
    # only on the instrumented side, which gives false use-after-poison
    # reports in MLIR's own code.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=%d:allow_user_poisoning=0:abort_on_error=0:symbolize=1"
                   % (1 if args.leaks else 0))
    sym = shutil.which("llvm-symbolizer")
    if sym:
        env.setdefault("LLVM_SYMBOLIZER_PATH", sym)
        env.setdefault("ASAN_SYMBOLIZER_PATH", sym)
    return env


def campaign(args):
    opt = args.stencil_opt
    env = child_env(args)
    corpus_paths = args.corpus or [os.path.join(REPO, "examples"), os.path.join(REPO, "test")]
    seeds = load_corpus(corpus_paths)
    if not seeds:
        raise SystemExit("fuzz: empty corpus")
    pipelines = [p for p, _ in PIPELINES if args.pipelines is None or p in args.pipelines]
    if "parse" not in pipelines:
        pipelines.insert(0, "parse")
    rt_pipes = set(pipelines) if args.roundtrip == "all" else ({"parse"} if args.roundtrip == "parse" else set())
    only = set(args.mutators.split(",")) if args.mutators else None
    if only and not only <= set(MUTATOR_NAMES):
        raise SystemExit("fuzz: unknown mutators %s" % ", ".join(sorted(only - set(MUTATOR_NAMES))))

    dcache = {}

    def derived(form, name, text):
        key = (form, name)
        if key not in dcache:
            a = ["--stencil-shape-inference"] if form == "shape" else ["--mlir-print-op-generic"]
            rc, out, _, _ = run_opt(opt, a, text, args.timeout, env)
            dcache[key] = out if rc == 0 else None
        return dcache[key]

    findings = Findings(args.out, opt)
    counts = {OK: 0, DIAG: 0, CRASH: 0, HANG: 0}
    crash_runs = 0
    upstream_runs = 0
    runs = 0
    cases = 0
    mut_stats = {n: [0, 0] for n in MUTATOR_NAMES}  # mutants, that parse
    start = time.time()
    last_report = start
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if not args.quiet else (lambda s: None)
    if args.out:
        os.makedirs(args.out, exist_ok=True)

    def out_of_time():
        return args.time_budget is not None and time.time() - start > args.time_budget

    def handle(case, applied, text, records):
        nonlocal runs, crash_runs, upstream_runs
        for pipeline, res, rt, rt_runs in records:
            runs += 1 + rt_runs
            counts[res.status] += 1
            if pipeline == "parse" and applied:
                for n in set(applied):
                    mut_stats[n][0] += 1
                    mut_stats[n][1] += res.status == OK
            if res.status == CRASH:
                if res.kind in ("invalid-ir", "silent-failure"):
                    sig, upstream = "%s | %s | %s" % (pipeline, res.kind, res.detail), False
                else:
                    sig, upstream = signature(pipeline, res.kind, res.detail, res.frames, opt)
                if upstream:
                    upstream_runs += 1
                else:
                    crash_runs += 1
                if findings.add(sig, upstream, pipeline, res.kind, res.detail, res.frames, text,
                                res.stderr, case, applied):
                    print("NEW %s: %s" % ("UPSTREAM PARSER CRASH" if upstream else "CRASH", sig), flush=True)
            elif res.status == HANG:
                key = "%s | hang" % pipeline
                if findings.add(key, False, pipeline, "hang", "timeout", [], text, res.stderr, case, applied):
                    print("NEW HANG: %s" % key, flush=True)
            if rt is not None:
                crash_runs += 1
                counts[OK] += rt_runs - 1
                sig = "%s | %s" % (pipeline, rt[0])
                if findings.add(sig, False, pipeline, rt[0], rt[1], [], text, rt[2], case, applied, rt_extra=rt[3]):
                    print("NEW ROUND-TRIP FAILURE: %s" % sig, flush=True)
            else:
                counts[OK] += rt_runs

    limit = args.count
    if limit is None and args.time_budget is None:
        limit = 500
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = {}
        index = 0
        while True:
            while (len(pending) < 2 * args.jobs and (limit is None or index < limit)
                   and not out_of_time()):
                sname, applied, text = make_mutant(args.seed, index, seeds, derived, only)
                fut = pool.submit(test_case, opt, text, pipelines, args.timeout, env, rt_pipes,
                                  not args.no_gdb)
                pending[fut] = (index, sname, applied, text)
                index += 1
            if not pending:
                break
            done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                case, sname, applied, text = pending.pop(fut)
                cases += 1
                handle("%d (seed %s, from %s)" % (case, args.seed, sname), applied, text, fut.result())
            if time.time() - last_report > args.report_every:
                last_report = time.time()
                log("fuzz: [%ds] %d cases, %d runs, %d crashes (%d unique), %d hangs" % (
                    time.time() - start, cases, runs, crash_runs,
                    sum(1 for e in findings.unique.values() if not e["upstream"] and e["kind"] != "hang"),
                    counts[HANG]))

    if args.minimize:
        for e in findings.unique.values():
            if e["kind"] == "hang" and not args.minimize_hangs:
                continue
            log("minimizing %s" % e["sig"])
            small = minimize(opt, e["pipeline"], e["text"], e["sig"] if e["kind"] != "hang" else e["sig"],
                             args.timeout, env, e["rt_extra"], budget=args.minimize_budget, log=log)
            e["min"] = small
            if e["dir"]:
                with open(os.path.join(e["dir"], "min.mlir"), "w") as fh:
                    fh.write(small)
                e["minimized"] = True
                findings.write_info(e)

    # report
    proj = [e for e in findings.unique.values() if not e["upstream"] and e["kind"] != "hang"]
    ups = [e for e in findings.unique.values() if e["upstream"]]
    hangs = [e for e in findings.unique.values() if e["kind"] == "hang"]
    sys.stdout.flush()
    if not args.quiet:
        log("fuzz: mutators (mutants / that parse): " + ", ".join(
            "%s %d/%d" % (n, s[0], s[1]) for n, s in mut_stats.items()))
    for title, group in (("crashes", proj), ("upstream parser crashes", ups), ("hangs", hangs)):
        if not group:
            continue
        print("fuzz: %d unique %s:" % (len(group), title))
        for e in sorted(group, key=lambda e: e["sig"]):
            where = (" -> " + e["dir"]) if e["dir"] else ""
            print("  [%dx] %s%s" % (e["count"], e["sig"], where))
    # the same stack in several pipelines is most likely one bug
    by_site = {}
    for e in proj + ups:
        by_site.setdefault(e["sig"].split(" | ", 1)[1], []).append(e["pipeline"])
    if len(by_site) < len(proj) + len(ups):
        print("fuzz: %d distinct crash sites:" % len(by_site))
        for site, pipes in sorted(by_site.items()):
            print("  %s  (%s)" % (site, ", ".join(pipes)))
    print("fuzz: %d cases, %d runs, %d crashes (%d unique), %d hangs, %d diagnostics, %d ok, "
          "%d upstream parser crashes (%d unique)" % (
              cases, runs, crash_runs, len(proj), counts[HANG], counts[DIAG], counts[OK],
              upstream_runs, len(ups)))
    return 1 if (proj or hangs) else 0


def minimize_file(args):
    opt = args.stencil_opt
    env = child_env(args)
    with open(args.minimize) as fh:
        text = fh.read()
    pipes = args.pipelines or [p for p, _ in PIPELINES]
    for p in pipes:
        sig = finding_signature(opt, p, text, args.timeout, env)
        rt_extra = None
        if sig is None and p in (args.pipelines or ["parse"]):
            res = run_pipeline(opt, p, text, args.timeout, env)
            if res.status == OK:
                rt = roundtrip(opt, p, res.stdout, args.timeout, env, p == "parse")[0]
                if rt:
                    rt_extra, sig = rt[3], "%s | %s" % (p, rt[0])
        if sig is None:
            continue
        print("fuzz: %s" % sig)
        small = minimize(opt, p, text, sig, args.timeout, env, rt_extra, budget=args.minimize_budget,
                         log=lambda s: print(s, file=sys.stderr))
        dest = args.output or (os.path.splitext(args.minimize)[0] + ".min.mlir")
        with open(dest, "w") as fh:
            fh.write(small)
        print("fuzz: minimized to %s (%d lines); reproduce with:\n  %s" % (
            dest, small.count("\n"), repro_command(opt, p, dest, rt_extra)))
        return 0
    print("fuzz: %s does not crash on %s" % (args.minimize, ", ".join(pipes)))
    return 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", default="0", help="campaign seed (default 0)")
    ap.add_argument("--count", type=int, help="number of mutants (default 500 without --time-budget)")
    ap.add_argument("--time-budget", type=float, help="stop making mutants after this many seconds")
    ap.add_argument("--jobs", type=int, default=1, help="parallel stencil-opt runs (default 1)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per run (default 10)")
    ap.add_argument("--stencil-opt", default=os.path.join(REPO, "build", "bin", "stencil-opt"))
    ap.add_argument("--corpus", action="append", help="file or directory of seeds (repeatable; "
                    "default examples/ and test/)")
    ap.add_argument("--out", help="directory where crashing inputs are saved")
    ap.add_argument("--pipelines", type=lambda s: s.split(","),
                    help="comma-separated subset of: " + ",".join(p for p, _ in PIPELINES))
    ap.add_argument("--mutators", help="comma-separated subset of: " + ",".join(MUTATOR_NAMES))
    ap.add_argument("--roundtrip", choices=["all", "parse", "none"], default="all",
                    help="re-parse the output of OK runs of every pipeline (default), parse only, or none")
    ap.add_argument("--minimize", nargs="?", const=True, default=False, metavar="FILE",
                    help="alone: minimize every unique crash found by the campaign; with FILE: "
                         "minimize that crashing input (on --pipelines, default all) and exit")
    ap.add_argument("-o", "--output", help="with --minimize FILE: where to write (default FILE.min.mlir)")
    ap.add_argument("--minimize-budget", type=float, default=300, help="seconds per minimization")
    ap.add_argument("--minimize-hangs", action="store_true", help="also minimize hangs (slow)")
    ap.add_argument("--no-gdb", action="store_true",
                    help="do not rerun frameless crashes under gdb for a backtrace")
    ap.add_argument("--leaks", action="store_true", help="ASan builds: report leaks too")
    ap.add_argument("--report-every", type=float, default=60, help="progress line period (s)")
    ap.add_argument("--quiet", action="store_true", help="no progress or statistics on stderr")
    ap.add_argument("--print", dest="print_case", type=int, metavar="N",
                    help="print mutant N of --seed and exit")
    args = ap.parse_args(argv)
    if args.pipelines:
        bad = set(args.pipelines) - set(PIPELINE_ARGS)
        if bad:
            ap.error("unknown pipelines: " + ", ".join(sorted(bad)))
    if not os.access(args.stencil_opt, os.X_OK):
        ap.error("stencil-opt not found at %s" % args.stencil_opt)
    args.stencil_opt = os.path.abspath(args.stencil_opt)
    if args.print_case is not None:
        seeds = load_corpus(args.corpus or [os.path.join(REPO, "examples"), os.path.join(REPO, "test")])
        env = child_env(args)

        def derived(form, name, text):
            a = ["--stencil-shape-inference"] if form == "shape" else ["--mlir-print-op-generic"]
            rc, out, _, _ = run_opt(args.stencil_opt, a, text, args.timeout, env)
            return out if rc == 0 else None
        only = set(args.mutators.split(",")) if args.mutators else None
        sname, applied, text = make_mutant(args.seed, args.print_case, seeds, derived, only)
        sys.stdout.write("// from %s, mutations: %s\n%s" % (sname, ",".join(applied), text))
        return 0
    if isinstance(args.minimize, str):
        return minimize_file(args)
    return campaign(args)


if __name__ == "__main__":
    sys.exit(main())
