# REQUIRES: ptxas
# RUN: %python %s %ptxas
# The GPU performance model (python/stencil/gpumodel.py), without a GPU:
#  * the device table and the occupancy function on known cases;
#  * calibration: the untiled jacobi 2D 5-point f32 at 3072^2 on sm_80,
#    its profile built from first principles and its PTX from stencil-opt,
#    is modeled within 25% of PERKS' 133-138 GCells/s (ICS'23, Table 2);
#  * the model moves in the right direction (less DRAM traffic is never
#    slower; more blocks than SMs x resident blocks fill the device; bank
#    conflicts, barriers and launches cost time);
#  * PTX and ptxas -v parsing on the kernels of examples/jacobi2d.mlir,
#    untiled and hex-tiled;
#  * the command line prints the model table.
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from stencil import benchmarks
from stencil import gpumodel as gm
from stencil.compiler import find_stencil_opt

PTXAS = sys.argv[1]
ROOT = Path(__file__).resolve().parents[2]
OPT = find_stencil_opt()
tmp = Path(tempfile.mkdtemp(prefix="gpu-model-"))


def lower(path, *passes):
    out = subprocess.run([OPT, str(path), *passes], capture_output=True, text=True)
    assert out.returncode == 0, (path, passes, out.stderr)
    return out.stdout


# 1. Devices and occupancy.
a100, h100 = gm.device("sm_80"), gm.device("sm_90")
assert (a100.sms, h100.sms) == (108, 132)
assert a100.max_shared_per_block_optin == 166912 and h100.max_shared_per_block_optin == 232448
assert a100.shared_requests_per_clock == 1.0
occ = gm.occupancy
assert occ("sm_80", 256, 32, 0) == 8          # threads and registers: 8 x 256 = 2048
assert occ("sm_80", 1024, 64, 0) == 1         # 64 regs x 1024 threads = the register file
assert occ("sm_80", 1024, 32, 0) == 2         # threads
assert occ("sm_80", 128, 16, 0) == 16         # threads: 2048 / 128
assert occ("sm_80", 32, 16, 0) == 32          # blocks per SM
assert occ("sm_80", 256, 128, 0) == 2         # registers: 128 x 32 = 4096 per warp, 16 warps
assert occ("sm_80", 256, 255, 0) == 1         # 255 -> 8192 per warp (unit 256): 8 warps
assert occ("sm_80", 256, 40, 0) == 6          # 40 x 32 = 1280 per warp: 51 warps
assert occ("sm_80", 256, 32, 48 * 1024) == 3  # shared: (48 KiB + 1 KiB reserved) x 3 <= 164 KiB
assert occ("sm_90", 256, 32, 48 * 1024) == 4  # 228 KiB per SM on sm_90
assert occ("sm_80", 256, 32, 166912) == 1     # the opt-in maximum (+ 1 KiB) = 164 KiB
assert occ("sm_80", 256, 32, 166913) == 0     # beyond the opt-in maximum per block
assert occ("sm_90", 256, 32, 200 * 1024) == 1 and occ("sm_80", 256, 32, 200 * 1024) == 0
assert occ("sm_80", 256, 256, 0) == 0         # more than 255 registers per thread
print("ok occupancy")


# 2. Calibration. The untiled jacobi 2D f32 at 3072^2: one thread per
# point, 256-thread blocks (32x8), per warp of 32 updates 5 load requests
# (c, w, e, n, s rows of 32 floats: 4-5 sectors each since the rows of
# 3074 floats are not 128-byte aligned) and 1 store request; 8 bytes of
# DRAM traffic per update (each input read once per launch, L2 serving the
# neighbours' reuse, and the output written once).
N, STEPS = 3072, 1000
points = N * N
warps = points // 32


def jacobi_profile(updates_per_step=points, steps=STEPS, **changes):
    w = updates_per_step // 32
    p = {
        "kernel": "jacobi2d_kernel", "launches": steps, "blocks": updates_per_step // 256 * steps,
        "threads_per_block": 256, "shared_bytes_per_block": 0,
        "updates": updates_per_step * steps,
        "global_load_requests": 5 * w * steps, "global_load_sectors": 5 * 5 * w * steps,
        "global_load_bytes_requested": 5 * 128 * w * steps,
        "global_store_requests": w * steps, "global_store_sectors": 5 * w * steps,
        "global_store_bytes_requested": 128 * w * steps,
        "shared_load_requests": 0, "shared_store_requests": 0, "shared_bank_conflicts": 0,
        "global_bytes_read": 4 * updates_per_step * steps,
        "global_bytes_written": 4 * updates_per_step * steps,
        "barriers": 0, "global_load_intervals": updates_per_step // 256 * steps,
    }
    p.update(changes)
    return p


src = tmp / "jacobi2d-3072.mlir"
src.write_text(benchmarks.BENCHMARKS["jacobi2d"].mlir((N, N), 10, "f32"))
(binary, ptx), = gm.ptx_from_module(lower(src, "--convert-to-gpu=format=isa chip=sm_80"))
stats = gm.ptx_kernel_stats(ptx, gm.run_ptxas(ptx, "sm_80", PTXAS))
kernel = stats["jacobi2d_kernel"]
assert not kernel["has_loop"] and kernel["global_stores"] == 1, kernel
assert 10 < kernel["instructions"] < 80 and 0 < kernel["registers"] <= 32, kernel
result = gm.model_program([jacobi_profile()], "sm_80", stats, steps=STEPS)
k = result["kernels"][0]
modeled = result["model_gstencils_per_s"]
print(f"model: jacobi2d f32 {N}^2 on sm_80: {kernel['instructions']} instructions/thread, "
      f"{kernel['registers']} registers, {k['resident_blocks_per_sm']} blocks/SM, "
      f"{result['model_time_per_step_s'] * 1e6:.1f} us/step ({k['model_bound']} bound), "
      f"{modeled:.1f} modeled GStencils/s (PERKS: 133-138 GCells/s)")
assert k["model_bound"] == "memory"
assert 133.24 * 0.75 <= modeled <= 138.29 * 1.25, modeled
assert abs(k["per_update"]["dram_bytes"] - 8) < 1e-9
assert abs(k["global_load_efficiency"] - 0.8) < 1e-9  # 4 of 5 sectors
print(gm.format_table(result))
print("ok calibration")


# 3. Directions.
def modeled_time(profile, chip="sm_80", **kw):
    return gm.model_kernel(profile, chip, kernel, **kw)["model_time_s"]


base = jacobi_profile()
half = jacobi_profile(global_bytes_read=base["global_bytes_read"] // 2,
                      global_bytes_written=base["global_bytes_written"] // 2)
assert modeled_time(half) <= modeled_time(base)
assert modeled_time(half) < modeled_time(base)  # memory bound: strictly faster
# An issue-bound kernel: halving DRAM bytes does not slow it either.
heavy = dict(instructions_per_thread=2000)
assert modeled_time(half, **heavy) <= modeled_time(base, **heavy)
# Faster device, same counts: faster.
assert modeled_time(base, "sm_90") < modeled_time(base, "sm_80")
# Filling the device: with as many blocks as the SMs hold at once (or
# more) a block costs the device's full issue rate; with a quarter of them
# each SM has too few warps to hide their latency, and a block costs more.
resident = gm.occupancy("sm_80", 256, kernel["registers"], 0)
slots = a100.sms * resident


def time_per_block(blocks):
    p = jacobi_profile(updates_per_step=blocks * 256, steps=1)
    m = gm.model_kernel(p, "sm_80", kernel, instructions_per_thread=1000)
    return (m["model_time_per_launch_s"] - gm.LAUNCH_OVERHEAD_S) / blocks, m


full, m = time_per_block(4 * slots)
assert m["fill"] == 1.0 and m["model_bound"] == "issue", m
assert abs(time_per_block(slots)[0] - full) < 1e-9 * full
quarter, m = time_per_block(slots // 4)
assert m["fill"] == 0.25 and m["model_bound"] == "latency", m
assert quarter > 1.5 * full, (quarter, full)
# Bank conflicts, barriers and launches cost time.
shared = jacobi_profile(shared_load_requests=10 * warps * STEPS)
conflicts = jacobi_profile(shared_load_requests=10 * warps * STEPS,
                           shared_bank_conflicts=30 * warps * STEPS)
assert modeled_time(conflicts) > modeled_time(shared) >= modeled_time(base)
assert modeled_time(jacobi_profile(barriers=100 * base["blocks"])) > modeled_time(base)
more_launches = jacobi_profile(updates_per_step=points // 2, steps=2 * STEPS)
assert modeled_time(more_launches) > modeled_time(base)
# More registers, fewer resident blocks: the same blocks run in rounds of
# one per SM, whose 8 warps cannot hide their latency.
small = jacobi_profile(updates_per_step=slots * 256, steps=1)
t8 = gm.model_kernel(small, "sm_80", kernel, registers=32, instructions_per_thread=1000)
t1 = gm.model_kernel(small, "sm_80", kernel, registers=255, instructions_per_thread=1000)
assert t1["resident_blocks_per_sm"] == 1 and t1["model_bound"] == "latency", t1
assert t1["model_time_s"] > 4 * t8["model_time_s"], (t1, t8)
# Latency: a launch of one block per SM with long warps is bound by its
# blocks' critical path (each warp issues once per WARP_ISSUE_LATENCY_CYCLES,
# one block's 8 warps cannot fill 4 schedulers); barriers and global-load
# intervals lengthen the path, and more blocks per SM hide it until the
# issue rate binds.
few = jacobi_profile(updates_per_step=a100.sms * 256, steps=1)
lat = gm.model_kernel(few, "sm_80", kernel, instructions_per_thread=1000)
assert lat["model_bound"] == "latency", lat
cycles = 1000 * gm.WARP_ISSUE_LATENCY_CYCLES + gm.GLOBAL_LOAD_LATENCY_CYCLES
assert abs(lat["model_latency_s"] - cycles / a100.clock_hz) < 1e-12, lat
waits = gm.model_kernel({**few, "barriers": 100 * few["blocks"],
                         "global_load_intervals": 50 * few["blocks"]},
                        "sm_80", kernel, instructions_per_thread=1000)
cycles += 100 * gm.BARRIER_LATENCY_CYCLES + 49 * gm.GLOBAL_LOAD_LATENCY_CYCLES
assert abs(waits["model_latency_s"] - cycles / a100.clock_hz) < 1e-12, waits
# Eight blocks per SM at once: the same per-block path, issue time x 8 / 4
# schedulers x 8 warps = 16x, so latency no longer binds.
many = jacobi_profile(updates_per_step=8 * a100.sms * 256, steps=1)
full = gm.model_kernel(many, "sm_80", kernel, instructions_per_thread=1000)
assert full["resident_blocks_per_sm"] == 8, full
assert abs(full["model_latency_s"] - lat["model_latency_s"]) < 1e-12, full
assert full["model_bound"] == "issue", full
# Twice the blocks a device holds at once: two rounds of the critical path.
twice = jacobi_profile(updates_per_step=16 * a100.sms * 256, steps=1)
assert abs(gm.model_kernel(twice, "sm_80", kernel, instructions_per_thread=1000)
           ["model_latency_s"] - 2 * lat["model_latency_s"]) < 1e-12
print("ok directions")

# A profile with a wrong key is refused.
try:
    gm.check_profile({**base, "extra": 1})
    raise AssertionError("extra key accepted")
except ValueError:
    pass


# 4. PTX and ptxas -v on the kernels of examples/jacobi2d.mlir.
jacobi2d = ROOT / "examples" / "jacobi2d.mlir"
for variant, passes in (("untiled", ()), ("hex", ("--hex-tile=target=gpu",))):
    module = lower(jacobi2d, *passes, "--convert-to-gpu=format=isa")
    binaries = gm.ptx_from_module(module)
    assert binaries, variant
    for binary, ptx in binaries:
        report = gm.run_ptxas(ptx, "sm_90", PTXAS)
        parsed = gm.parse_ptxas_report(report)
        stats = gm.ptx_kernel_stats(ptx, report)
        assert set(stats) == set(parsed) == {"jacobi2d_kernel"}, (stats, parsed)
        s = stats["jacobi2d_kernel"]
        regs = int(re.search(r"Used (\d+) registers", report).group(1))
        smem = re.search(r"(\d+) bytes smem", report)
        assert s["registers"] == regs > 0, (s, report)
        assert s["shared_bytes"] == max(s["static_shared_bytes"], int(smem.group(1)) if smem else 0)
        assert variant == "hex" or s["shared_bytes"] == 0, (s, report)
        assert parsed["jacobi2d_kernel"]["spill_stores"] == 0
        assert s["instructions"] > 10 and s["global_stores"] >= 1, s
        assert s["has_loop"] == (variant == "hex"), (variant, s)
        barriers = len(re.findall(r"\b(bar|barrier)\.sync\b", ptx))
        assert (barriers > 0) == (variant == "hex"), (variant, barriers)
        print(f"ok ptx {variant} {binary}: {s['instructions']} instructions, "
              f"{s['registers']} registers, loops: {s['has_loop']}")
# A .shared declaration is counted.
fake = """.visible .entry k(
)
{
\t.shared .align 4 .b8 buf[4096];
\t.shared .align 8 .f64 tile[2][64];
\tbar.sync 0;
\tret;
}"""
assert gm.ptx_kernel_stats(fake)["k"]["shared_bytes"] == 4096 + 2 * 64 * 8


# 5. The command line.
profile_json = tmp / "profile.json"
profile_json.write_text(json.dumps({"steps": STEPS, "kernels": [jacobi_profile()]}))
ptx_file = tmp / "jacobi2d-3072.ptx"
(_, ptx), = gm.ptx_from_module(lower(src, "--convert-to-gpu=format=isa chip=sm_80"))
ptx_file.write_text(ptx)
out = subprocess.run([sys.executable, "-m", "stencil.gpumodel", str(profile_json), "--chip", "sm_80",
                      "--ptx", str(ptx_file), "--ptxas", PTXAS], capture_output=True, text=True)
assert out.returncode == 0, out.stderr
assert "model" in out.stdout and "| jacobi2d_kernel |" in out.stdout, out.stdout
cli = float(re.search(r"model GStencils/s: ([\d.]+)", out.stdout).group(1))
assert abs(cli - modeled) < 0.01 * modeled, (cli, modeled)
print(out.stdout)
print("ok command line")

# The emulation's profiler names kernels by launch site (<func>_kernel_<i>),
# the outlined binaries are @<func>_kernel, @<func>_kernel_0, ...: with a
# module's PTX the model matches them in launch-site order.
hex_module = tmp / "jacobi2d-hex.mlir"
hex_module.write_text(lower(jacobi2d, "--hex-tile=target=gpu", "--convert-to-gpu=format=isa"))
binaries = gm.ptx_from_module(hex_module.read_text())
assert [b for b, _ in binaries] == ["jacobi2d_kernel", "jacobi2d_kernel_0"], binaries
regs = [gm.parse_ptxas_report(gm.run_ptxas(p, "sm_90", PTXAS))["jacobi2d_kernel"]["registers"]
        for _, p in binaries]
hex_profiles = [jacobi_profile(updates_per_step=64 * 64 // 2, steps=2, kernel=f"jacobi2d_kernel_{i}",
                               threads_per_block=128, blocks=2 * 3, barriers=2 * 3 * 8)
                for i in range(2)]
profile_json.write_text(json.dumps({"kernels": hex_profiles,
                                    "total": {**hex_profiles[0], "kernel": "total"}}))
out = subprocess.run([sys.executable, "-m", "stencil.gpumodel", str(profile_json), "--json",
                      "--ptx", str(hex_module), "--ptxas", PTXAS], capture_output=True, text=True)
assert out.returncode == 0, out.stderr
modeled_hex = json.loads(out.stdout)
assert [k["registers"] for k in modeled_hex["kernels"]] == regs, (modeled_hex, regs)
assert all(k["model_latency_s"] > 0 for k in modeled_hex["kernels"])
print(f"ok command line with a module's PTX: registers {regs} matched by launch site")

# The emulation's profiler (stencil.profile) feeds the model directly: the
# untiled jacobi2d example, f64, 11 steps of 64x64 points.
from stencil.profile import profile_file

counted = profile_file(str(jacobi2d))
assert [set(k) for k in counted["kernels"]] == [set(gm.PROFILE_KEYS + gm.INSTRUCTION_KEYS)], counted
profiles, _ = gm.load_profiles(json.loads(json.dumps(counted)))
(binary, ptx), = gm.ptx_from_module(lower(jacobi2d, "--convert-to-gpu=format=isa"))
stats = gm.ptx_kernel_stats(ptx, gm.run_ptxas(ptx, "sm_90", PTXAS))
real = gm.model_program(profiles, "sm_90", stats, steps=11, ptx_order=list(stats.values()))
k = real["kernels"][0]
assert k["updates"] == 64 * 64 * 11 and k["launches"] == 11, k
assert 16 <= k["per_update"]["dram_bytes"] <= 17, k  # f64: read + write, halo once
assert k["registers"] == stats["jacobi2d_kernel"]["registers"]
# Every thread runs the whole body (64 x 64 points in 32 x 8 blocks): the
# emulation's instructions scaled to the PTX are the PTX's.
assert abs(k["instructions_per_thread"] - stats["jacobi2d_kernel"]["instructions"]) < 1e-9, k
assert k["warp_instructions_per_launch"] == k["instructions_per_thread"] * 4096 / 32, k
# 4096 points per launch: the launch overhead dominates.
assert k["model_time_per_launch_s"] < 2 * gm.LAUNCH_OVERHEAD_S, k
print(gm.format_table(real))
print("ok model of the emulation's profile")
