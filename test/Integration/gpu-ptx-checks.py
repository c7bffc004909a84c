# REQUIRES: ptxas
# RUN: %python %s %ptxas
# Static checks of the GPU code, on the cubin and the PTX that
# --convert-to-gpu produces (no GPU needed):
#  * jacobi2d, untiled and hex-tiled, becomes a cubin for sm_90;
#  * every kernel of the examples: no register spills, no local memory
#    (ptxas resource report); no FMA, no flush-to-zero, no approximate
#    division or square root (bit-exact with the CPU);
#  * at the papers' sizes, 2D and 3D: no spills, tiles in shared memory,
#    32-bit shared addresses (64-bit with short-shared-pointers=false);
#  * the full tiles of a hex-tiled jacobi2d with unrolled time steps: one
#    time step is straight-line code between two barriers (no branch);
#  * fma=true does contract;
#  * the unroll budget and inter-tile-reuse=auto keep Devito forms unspilled;
#  * a kernel that spills at two blocks per SM is compiled for one.
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from stencil import benchmarks, devito_forms
from stencil.compiler import find_stencil_opt

PTXAS = sys.argv[1]
ROOT = Path(__file__).resolve().parents[2]
OPT = find_stencil_opt()
tmp = Path(tempfile.mkdtemp(prefix="ptx-checks-"))


def lower(path, *passes):
    out = subprocess.run([OPT, str(path), *passes], capture_output=True, text=True)
    assert out.returncode == 0, (path, passes, out.stderr)
    return out.stdout


def unescape(text):
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def ptx_of(module_text):
    """The PTX of every gpu.binary object of a module lowered with format=isa."""
    texts = [unescape(m) for m in re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', module_text)]
    assert texts, "no PTX in the module"
    return texts


def ptxas_report(ptx, name):
    path = tmp / f"{name}.ptx"
    path.write_text(ptx)
    out = subprocess.run([PTXAS, "-arch=sm_90", "-v", str(path), "-o", str(tmp / f"{name}.cubin")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stderr


def check_resources(ptx, name):
    report = ptxas_report(ptx, name)
    frames = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                        report)
    assert frames, report
    # No spills; no local memory in the PTX. (ptxas gives a function a small
    # stack frame for its own subroutines, e.g. the slow path of div.rn.f64.)
    for _, stores, loads in frames:
        assert (stores, loads) == ("0", "0"), (name, report)
    assert not re.search(r"\.local\b|\b(ld|st)\.local\b", ptx), name
    return report


def instructions(ptx):
    return [line.strip() for line in ptx.splitlines()
            if line.strip() and not line.strip().startswith(("//", ".", "{", "}", ")"))
            and not line.strip().endswith(":")]


def check_exact(ptx, name):
    body = "\n".join(instructions(ptx))
    for bad in (r"\bfma\.", r"\.ftz\b", r"\.approx\b", r"\bmad\.(rn\.)?f"):
        assert not re.search(bad, body), (name, bad)


# 1. Cubins for sm_90, untiled and hex-tiled.
jacobi2d = ROOT / "examples" / "jacobi2d.mlir"
for passes in ((), ("--hex-tile",)):
    text = lower(jacobi2d, *passes, "--convert-to-gpu")
    assert "gpu.binary" in text and 'chip = "sm_90"' in text, passes
    objects = re.findall(r'bin = "((?:[^"\\]|\\.)*)"', text)
    assert objects and all(o.startswith("\\7FELF") for o in objects), passes
    # The host function is in the LLVM dialect; its launches become runtime
    # calls when the module is translated to LLVM IR.
    assert "llvm.func @jacobi2d(" in text and "gpu.launch_func" in text, passes
    print(f"ok jacobi2d {' '.join(passes) or 'untiled'}: cubin for sm_90")

# 2. Resources and exactness of every example's kernels, untiled and
# hex-tiled by the headline command (device-sized tiles, promotion, launch
# bounds: docs/gpu.md, "Kernels sized for the device").
examples = [p for p in sorted((ROOT / "examples").glob("*.mlir")) if "iter_args" in p.read_text()]
for path in examples:
    for variant, passes in (("untiled", ()), ("hex", ("--hex-tile",))):
        for i, ptx in enumerate(ptx_of(lower(path, *passes, "--convert-to-gpu=format=isa"))):
            name = f"{path.stem}-{variant}-{i}"
            check_resources(ptx, name)
            check_exact(ptx, name)
    print(f"ok {path.stem}: no spills, no local memory, exact arithmetic")

# 3. Full tiles: straight-line time steps. 512x512 has full tiles; with
# threads=64,1 each thread owns whole hexagon rows of a 64-wide tile, and
# with the time steps unrolled one step of a full tile has no branch.
big = tmp / "jacobi2d-512.mlir"
big.write_text(benchmarks.BENCHMARKS["jacobi2d"].mlir((512, 512), 40, "f32"))
h = 3
ptxs = ptx_of(lower(big, f"--hex-tile=h={h} widths=16,64 unroll=true",
                    "--convert-to-gpu=format=isa threads=64,1 promote=none"))
for i, ptx in enumerate(ptxs):
    check_resources(ptx, f"full-{i}")
    check_exact(ptx, f"full-{i}")
    # Segments of the instruction stream between barriers.
    segments, current = [], []
    for ins in instructions(ptx):
        if ins.startswith("bar.sync") or ins.startswith("barrier.sync"):
            segments.append(current)
            current = []
        else:
            current.append(ins)
    straight, best = 0, 0
    for seg in segments:
        branch = any(re.match(r"(@%p\d+\s+)?bra", ins) for ins in seg)
        stores = any(ins.startswith("st.global") for ins in seg)
        straight = straight + 1 if stores and not branch else 0
        best = max(best, straight)
    # 2(h+1) steps per full tile; the first may begin with the loop's entry.
    assert best >= 2 * (h + 1) - 1, (i, best)
    print(f"ok full tiles of phase {i}: {best} consecutive branch-free time steps")

# 4. The papers' sizes (2D: 3072^2 f32; 3D: 384^3 f64) with the headline
# command's defaults (in 3D promoted on request: promote=auto leaves 3D
# kernels in global memory): every kernel keeps its tile in shared memory
# within the 48 KiB budget, without spills (launch bounds); global loads
# only in the copy-in (a few loops), the steps on shared memory.
# bench/gpu_resources.py covers every benchmark in f32 and f64
# (docs/performance.md).
for name, dtype, extra in (("jacobi2d", "f32", ""), ("heat3d", "f64", " promote=interleaved")):
    bench = benchmarks.BENCHMARKS[name]
    shape, steps = benchmarks.PAPER_SIZES[bench.rank]
    paper = tmp / f"{name}-paper.mlir"
    paper.write_text(bench.mlir(shape, steps, dtype))
    if extra:
        # The default 3D kernels: no shared memory, no spills.
        for i, ptx in enumerate(ptx_of(lower(paper, "--hex-tile", "--convert-to-gpu=format=isa"))):
            report = check_resources(ptx, f"{name}-paper-default-{i}")
            assert ".shared" not in ptx, (name, i)
            print(f"ok paper-size {name} {dtype} phase {i} (promote=auto): global memory, no spills")
    for i, ptx in enumerate(ptx_of(lower(paper, "--hex-tile", "--convert-to-gpu=format=isa" + extra))):
        report = check_resources(ptx, f"{name}-paper-{i}")
        smem = [int(b) for b in re.findall(r"(\d+) bytes smem", report)]
        assert smem and all(0 < b <= 49152 for b in smem), (name, i, report)
        body = instructions(ptx)
        global_loads = sum(ins.startswith("ld.global") for ins in body)
        shared_loads = sum(ins.startswith("ld.shared") for ins in body)
        assert 0 < global_loads <= 32 and shared_loads >= 5 * global_loads, (
            name, i, global_loads, shared_loads)
        # (The steps' unrolled loads are all ld.shared: the few ld.global are
        # the copy-in loops, one per code version of a tile.)
        # Shared addresses are 32-bit registers (short-shared-pointers).
        shared = [ins for ins in body if re.match(r"(ld|st)\.shared", ins)]
        assert shared and all("[%r" in ins and "[%rd" not in ins for ins in shared), (
            name, i, [ins for ins in shared if "[%rd" in ins][:3])
        registers = re.findall(r"Used (\d+) registers", report)[0]
        print(f"ok paper-size {name} {dtype} phase {i}: {smem[0]} bytes shared, "
              f"{registers} registers, no spills, {global_loads} global / "
              f"{shared_loads} shared loads")

# 5. short-shared-pointers=false keeps 64-bit shared addresses (so the
# 32-bit ones above are the option's doing).
jacobi2d = ROOT / "examples" / "jacobi2d.mlir"
for short, register in (("true", "%r"), ("false", "%rd")):
    body = instructions("\n".join(ptx_of(lower(
        jacobi2d, "--hex-tile", f"--convert-to-gpu=format=isa short-shared-pointers={short}"))))
    shared = [ins for ins in body if re.match(r"(ld|st)\.shared", ins)]
    assert shared and all(re.search(r"\[" + register + r"\d", ins) for ins in shared), (
        short, shared[:3])
print("ok short-shared-pointers: 32-bit shared addresses by default, 64-bit without")

# 6. fma=true contracts (so the default's absence of fma is meaningful).
# jacobi1d_3pt computes 0.25*u[-1] + 0.5*u[0] + ...: multiply-adds.
jacobi1d = ROOT / "examples" / "jacobi1d_3pt.mlir"
ptx = "\n".join(ptx_of(lower(jacobi1d, "--convert-to-gpu=format=isa")))
assert not re.search(r"\bfma\.", ptx) and re.search(r"\bmul\.rn\.f64", ptx)
ptx = "\n".join(ptx_of(lower(jacobi1d, "--convert-to-gpu=format=isa fma=true")))
assert re.search(r"\bfma\.rn\.f64", ptx), "fma=true did not contract"
print("ok fma=true contracts multiply-adds")

# 7. unroll-budget: a Devito elastic 3D step (9 statements, 240 operations,
# 6 points per thread at the suite's size) is past the default budget and
# keeps its point loops: no spills; unrolled in full it spills (so the
# budget is what keeps the registers).
family, order, shape, steps = next(f for f in devito_forms.SUITE if f[:2] == ("elastic3d", 2))
elastic = tmp / "elastic3d-o2.mlir"
elastic.write_text(devito_forms.make(family, order, shape, steps).mlir())
for i, ptx in enumerate(ptx_of(lower(elastic, "--hex-tile", "--convert-to-gpu=format=isa"))):
    check_resources(ptx, f"elastic3d-o2-{i}")
    check_exact(ptx, f"elastic3d-o2-{i}")
spilled = [re.findall(r"(\d+) bytes spill stores", ptxas_report(ptx, f"elastic3d-unrolled-{i}"))
           for i, ptx in enumerate(ptx_of(lower(
               elastic, "--hex-tile", "--convert-to-gpu=format=isa unroll-budget=100000")))]
assert any(int(s) > 0 for kernel in spilled for s in kernel), spilled
# Spill relief gives them one block per SM and still finds spills: a remark
# names each such kernel.
remarks = subprocess.run([OPT, str(elastic), "--hex-tile",
                          "--convert-to-gpu=format=isa unroll-budget=100000", "-o", "/dev/null"],
                         capture_output=True, text=True).stderr
assert re.search(r"remark: gpu\.module @\w+: kernel '\w+' spills \d+ bytes with \d+ registers "
                 r"at 1 block\(s\) per SM", remarks), remarks
print("ok elastic3d-o2: point loops past the unroll budget, no spills (unrolled: spills, "
      "with a remark)")

# 8. inter-tile-reuse=auto: a Devito elastic 2D step at order 8 (5
# statements, 8 promoted arrays; 384^2) gets no inter-tile reuse and no
# spills; with reuse forced (and LLVM's loop strength reduction, as before
# session 45) every array's moves push both kernels past 255 registers.
elastic = tmp / "elastic2d-o8.mlir"
elastic.write_text(devito_forms.make("elastic2d", 8, (384, 384), 8).mlir())
for i, ptx in enumerate(ptx_of(lower(elastic, "--hex-tile", "--convert-to-gpu=format=isa"))):
    check_resources(ptx, f"elastic2d-o8-{i}")
spilled = [re.findall(r"(\d+) bytes spill stores", ptxas_report(ptx, f"elastic2d-reuse-{i}"))
           for i, ptx in enumerate(ptx_of(lower(
               elastic, "--hex-tile",
               "--convert-to-gpu=format=isa inter-tile-reuse=true loop-strength-reduction=true")))]
assert any(int(s) > 0 for kernel in spilled for s in kernel), spilled
print("ok elastic2d-o8: no inter-tile reuse with 5 statements per step, no spills "
      "(with reuse: spills)")

# 9. Spill relief: with LLVM's loop strength reduction, Devito's 3D heat
# form at order 8 on 32^3 has a kernel that spills at the two blocks per SM
# (128 registers) its launch bounds ask for; the serializer's ptxas check
# compiles that kernel for one block (no spills) and leaves the other
# kernel's launch bounds as they were. relieve-spills=false keeps the spill
# (so the check is what removes it). Without loop strength reduction (the
# default) neither kernel spills at the launch bounds asked for.
heat = tmp / "heat3d-o8.mlir"
heat.write_text(devito_forms.make("heat", 8, (32, 32, 32), 4).mlir())
lsr = "loop-strength-reduction=true"
relieved = ptx_of(lower(heat, "--hex-tile", f"--convert-to-gpu=format=isa {lsr}"))
kept = ptx_of(lower(heat, "--hex-tile", f"--convert-to-gpu=format=isa relieve-spills=false {lsr}"))
default = ptx_of(lower(heat, "--hex-tile", "--convert-to-gpu=format=isa"))
assert len(default) == len(kept)
for i, (ptx, before) in enumerate(zip(default, kept)):
    check_resources(ptx, f"heat3d-o8-default-{i}")
    assert (re.findall(r"\.minnctapersm (\d+)", ptx)
            == re.findall(r"\.minnctapersm (\d+)", before)), i
assert len(relieved) == len(kept)
for i, (ptx, before) in enumerate(zip(relieved, kept)):
    check_resources(ptx, f"heat3d-o8-{i}")
    spills = re.findall(r"(\d+) bytes spill stores", ptxas_report(before, f"heat3d-o8-spill-{i}"))
    blocks = re.findall(r"\.minnctapersm (\d+)", before)
    expected = ["1"] if any(int(s) > 0 for s in spills) else blocks
    assert re.findall(r"\.minnctapersm (\d+)", ptx) == expected, (i, spills, blocks)
assert any(re.findall(r"\.minnctapersm 2", ptx) for ptx in kept)
assert any(int(s) > 0 for i, ptx in enumerate(kept)
           for s in re.findall(r"(\d+) bytes spill stores", ptxas_report(ptx, f"heat3d-o8-kept-{i}")))
print("ok heat3d-o8: with loop strength reduction the spilling kernel compiled for one "
      "block per SM instead of two (relieve-spills=false: spills); without it, no spills "
      "at two")
