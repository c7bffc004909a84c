"""A performance model of the generated GPU kernels (no GPU needed).

Everything this module computes is a *model*: modeled times and modeled
GStencils/s, derived from counts, not measured on a GPU.

Inputs
------
- A per-kernel profile: a dict with exactly the keys of ``PROFILE_KEYS``
  (the memory-traffic profiler of the emulation produces them; counts are
  totals over the run for that kernel). ``global_bytes_read/written`` are the
  distinct bytes each launch touches, summed over launches: the DRAM traffic
  when L2 captures the reuse within a launch.
- PTX statistics per kernel (``ptx_kernel_stats``): instructions per thread
  of the kernel body (static count from the PTX text), registers per thread
  and shared bytes per block (from ``ptxas -v``).
- A device (``DEVICES``, keyed by the ``chip`` option of --convert-to-gpu).

The model of one launch
-----------------------
::

    memory  = DRAM bytes / (DRAM_ACHIEVABLE_FRACTION x peak bandwidth x active SMs / SMs)
    shared  = (shared requests + bank-conflict replays) / (1 request per clock x active SMs)
    issue   = warp instructions of the busiest SM / (4 warp instructions per clock)
    latency = rounds x (warp instructions per warp x WARP_ISSUE_LATENCY_CYCLES
                        + barriers per block x BARRIER_LATENCY_CYCLES
                        + global-load intervals per block x GLOBAL_LOAD_LATENCY_CYCLES) / clock
    time    = max(memory, shared, issue, latency) + LAUNCH_OVERHEAD_S

where active SMs = min(SMs, blocks of the launch), the busiest SM holds
ceil(blocks / SMs) blocks and runs them in rounds of the resident blocks
per SM (``occupancy``), and the latency term is one block's critical path:
its warps issue one instruction per WARP_ISSUE_LATENCY_CYCLES (Little's
law; with more warps per scheduler the issue term binds instead), wait at
each barrier, and wait for memory in each barrier interval that loads from
global memory. Modeled GStencils/s = updates / modeled time.

Command line::

    python3 -m stencil.gpumodel PROFILE.json [--chip sm_90] [--ptx FILE.ptx]...
        [--ptxas PATH] [--steps N]

prints the model table (in the style of Table 5 of the hybrid tiling paper,
Grosser et al., CGO'14: per kernel and per update).
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

# --------------------------------------------------------------------------
# Devices
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """One GPU, as the model sees it. Sources: see DEVICES."""
    name: str
    sms: int
    dram_bytes_per_s: float
    l2_bytes: int
    max_shared_per_sm: int          # bytes, largest shared-memory carveout
    max_shared_per_block_optin: int  # bytes, dynamic shared memory with opt-in
    max_shared_per_block_static: int  # bytes, without opt-in
    registers_per_sm: int
    max_registers_per_thread: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    clock_hz: float
    schedulers_per_sm: int           # warp instructions issued per clock per SM
    shared_banks: int
    shared_bank_bytes: int
    # CUDA occupancy calculator constants (same for sm_80 and sm_90).
    warp_size: int = 32
    register_alloc_unit: int = 256   # registers, per warp
    shared_alloc_unit: int = 128     # bytes
    reserved_shared_per_block: int = 1024  # bytes the runtime reserves per block

    @property
    def max_warps_per_sm(self):
        return self.max_threads_per_sm // self.warp_size

    @property
    def shared_requests_per_clock(self):
        """Shared-memory requests per clock per SM: a conflict-free warp
        request of 4-byte words uses all 32 banks x 4 B for one clock
        (derived: banks x bank width = 128 B = one warp of 4-byte words)."""
        return self.shared_banks * self.shared_bank_bytes / (self.warp_size * 4)


KIB = 1024

DEVICES = {
    # NVIDIA A100 PCIe 40GB (compute capability 8.0).
    # - NVIDIA A100 Tensor Core GPU datasheet: 1,555 GB/s HBM2 (PCIe 40GB).
    # - NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs,
    #   40 MB L2, up to 164 KB shared memory per SM (of 192 KB L1/shared),
    #   1410 MHz boost clock, 4 warp schedulers (sub-partitions) per SM,
    #   32 banks of 4 bytes.
    # - CUDA C++ Programming Guide, "Compute Capabilities", technical
    #   specifications for 8.0: 32 blocks, 2048 threads, 64K 32-bit registers
    #   per SM, 255 registers per thread, 48 KB static shared memory per
    #   block, 163 KB (166912 B) per block with opt-in, 164 KB per SM.
    # Derived check: 108 SMs x 64 FP32 lanes x 2 flop x 1.41 GHz = 19.5 TFLOPS,
    # the datasheet's FP32 peak.
    "sm_80": Device(
        name="A100 PCIe 40GB (sm_80)",
        sms=108,
        dram_bytes_per_s=1555e9,
        l2_bytes=40 * 1000 * 1000,
        max_shared_per_sm=164 * KIB,
        max_shared_per_block_optin=166912,
        max_shared_per_block_static=48 * KIB,
        registers_per_sm=65536,
        max_registers_per_thread=255,
        max_threads_per_sm=2048,
        max_blocks_per_sm=32,
        clock_hz=1.41e9,
        schedulers_per_sm=4,
        shared_banks=32,
        shared_bank_bytes=4,
    ),
    # NVIDIA H100 SXM5 80GB (compute capability 9.0).
    # - NVIDIA H100 Tensor Core GPU datasheet: 3.35 TB/s HBM3 (SXM).
    # - NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs
    #   (SXM5), 50 MB L2, 228 KB shared memory per SM (of 256 KB L1/shared),
    #   4 warp schedulers per SM, 32 banks of 4 bytes.
    # - CUDA C++ Programming Guide, technical specifications for 9.0: 32
    #   blocks, 2048 threads, 64K registers per SM, 255 per thread, 227 KB
    #   (232448 B) per block with opt-in, 48 KB static.
    # - Clock: 1.98 GHz maximum boost. Derived check: 132 SMs x 128 FP32
    #   lanes x 2 flop x 1.98 GHz = 66.9 TFLOPS, the datasheet's FP32 peak.
    #   Under sustained load the clock can be lower (power limit); the model
    #   uses the boost clock, so its issue times are lower bounds.
    "sm_90": Device(
        name="H100 SXM5 (sm_90)",
        sms=132,
        dram_bytes_per_s=3350e9,
        l2_bytes=50 * 1000 * 1000,
        max_shared_per_sm=228 * KIB,
        max_shared_per_block_optin=232448,
        max_shared_per_block_static=48 * KIB,
        registers_per_sm=65536,
        max_registers_per_thread=255,
        max_threads_per_sm=2048,
        max_blocks_per_sm=32,
        clock_hz=1.98e9,
        schedulers_per_sm=4,
        shared_banks=32,
        shared_bank_bytes=4,
    ),
}


def device(chip):
    """The Device of a chip name (the `chip` option of --convert-to-gpu)."""
    try:
        return DEVICES[chip]
    except KeyError:
        raise ValueError(f"unknown chip {chip!r}: the model knows {', '.join(sorted(DEVICES))}")


def _round_up(value, unit):
    return -(-value // unit) * unit


def occupancy(dev, threads_per_block, registers_per_thread, shared_bytes_per_block=0):
    """Resident blocks per SM (0: the block cannot run on this device).

    As the CUDA occupancy calculator computes it: the smallest of the limits
    by blocks per SM, by warps (threads) per SM, by registers (allocated per
    warp in units of 256 registers) and by shared memory (allocated per block
    in units of 128 B, plus the 1 KiB the runtime reserves per block).
    ``dev`` is a Device or a chip name.
    """
    if isinstance(dev, str):
        dev = device(dev)
    if threads_per_block <= 0 or threads_per_block > 1024:
        return 0
    if registers_per_thread > dev.max_registers_per_thread:
        return 0
    if shared_bytes_per_block > dev.max_shared_per_block_optin:
        return 0
    warps = -(-threads_per_block // dev.warp_size)
    limit = min(dev.max_blocks_per_sm, dev.max_warps_per_sm // warps)
    if registers_per_thread > 0:
        per_warp = _round_up(registers_per_thread * dev.warp_size, dev.register_alloc_unit)
        limit = min(limit, (dev.registers_per_sm // per_warp) // warps)
    if shared_bytes_per_block > 0:
        per_block = _round_up(shared_bytes_per_block + dev.reserved_shared_per_block,
                              dev.shared_alloc_unit)
        limit = min(limit, dev.max_shared_per_sm // per_block)
    return max(limit, 0)


# --------------------------------------------------------------------------
# Calibration constants of the model
# --------------------------------------------------------------------------

# Fraction of the spec-sheet DRAM bandwidth that streaming kernels sustain.
# Measured: the H100 SXM5 of the fifth lease copied a field of the 2D
# benchmarks (3072^2 f32, device to device) at 2.41-2.45 TB/s of its 3.35
# (docs/data/h100-2026-11-28/gpu-f32.json, `memcpy_gbs`): 0.72. With it the
# untiled jacobi 2D f32 on an A100 (test/Integration/gpu-model.py) lands
# within 5% of PERKS' published 133-138 GCells/s. (0.85, from copy
# benchmarks of other sources, put our untiled kernels 20-38% above what
# the H100 measured.)
DRAM_ACHIEVABLE_FRACTION = 0.72

# Latency of one block-wide barrier (bar.sync) on the critical path of a
# block, in cycles. Order of magnitude from microbenchmarks of
# __syncthreads (Wong et al., "Demystifying GPU Microarchitecture through
# Microbenchmarking", ISPASS 2010: a few tens of cycles); not measured on
# sm_80/sm_90 here.
BARRIER_LATENCY_CYCLES = 30

# Latency of a global load that misses L1, in cycles: what a barrier
# interval that loads from global memory waits before its barrier.
# Order of magnitude from microbenchmarks of Hopper and Ampere (Luo et al.,
# "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture", 2024:
# L2 hits about 260 cycles, DRAM about 480); copy-ins mix both.
GLOBAL_LOAD_LATENCY_CYCLES = 500

# Mean cycles between two instructions of one warp when nothing else
# hides its latencies (dependent arithmetic 4-6 cycles, shared loads about
# 30, partly overlapped by the independent points of an unrolled step):
# by Little's law a scheduler issues min(1, warps / this) instructions per
# clock. Calibration constant, fitted to one measured kernel (the headline
# hex-tiled jacobi 2D f32 at 3072^2 on an H100, docs/performance.md, "The
# model against the leases' measurements"); the other kernels of that run
# check it.
WARP_ISSUE_LATENCY_CYCLES = 14

# Cost of one kernel launch in a stream of back-to-back launches (driver and
# launch latency, the tail of the previous kernel): commonly 3-5 us on
# current GPUs and drivers; a calibration constant.
LAUNCH_OVERHEAD_S = 4e-6

SECTOR_BYTES = 32

# --------------------------------------------------------------------------
# Profiles
# --------------------------------------------------------------------------

PROFILE_KEYS = (
    "kernel", "launches", "blocks", "threads_per_block", "shared_bytes_per_block", "updates",
    "global_load_requests", "global_load_sectors", "global_load_bytes_requested",
    "global_store_requests", "global_store_sectors", "global_store_bytes_requested",
    "shared_load_requests", "shared_store_requests", "shared_bank_conflicts",
    "global_bytes_read", "global_bytes_written", "barriers", "global_load_intervals",
)
# Optional: the emulation's dynamic instruction counts (stencil.profile).
INSTRUCTION_KEYS = ("thread_instructions", "warp_instructions", "static_instructions")


def check_profile(profile):
    """Raises ValueError unless ``profile`` has exactly PROFILE_KEYS, and
    INSTRUCTION_KEYS all or none."""
    keys = set(profile)
    if keys & set(INSTRUCTION_KEYS):
        keys -= set(INSTRUCTION_KEYS)
        if not set(INSTRUCTION_KEYS) <= set(profile):
            keys.add("some but not all of INSTRUCTION_KEYS")
    missing, extra = set(PROFILE_KEYS) - keys, keys - set(PROFILE_KEYS)
    if missing or extra:
        raise ValueError(f"profile of {profile.get('kernel', '?')!r}: missing keys "
                         f"{sorted(missing)}, unexpected keys {sorted(extra)}")
    return profile


def load_profiles(source):
    """The kernel profiles of a JSON file or object: a list of kernel dicts,
    a dict with a "kernels" list (other keys, e.g. "steps", are returned as
    metadata) or a dict of kernel dicts keyed by name. Returns (list, meta)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source) as f:
            source = json.load(f)
    meta = {}
    if isinstance(source, dict) and "kernels" in source:
        meta = {k: v for k, v in source.items() if k != "kernels"}
        kernels = source["kernels"]
        if isinstance(kernels, dict):
            kernels = list(kernels.values())
    elif isinstance(source, dict) and "kernel" in source:
        kernels = [source]
    elif isinstance(source, dict):
        kernels = list(source.values())
    else:
        kernels = list(source)
    return [check_profile(dict(k)) for k in kernels], meta


# --------------------------------------------------------------------------
# PTX statistics
# --------------------------------------------------------------------------

_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")


def _unescape(text):
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def ptx_from_module(module_text):
    """The PTX texts of the gpu.binary ops of a module lowered with
    --convert-to-gpu=format=isa, as (binary name, ptx) pairs."""
    out = []
    for m in re.finditer(r'gpu\.binary\s+@([\w$.]+)[^\n]*?assembly = "((?:[^"\\]|\\.)*)"',
                         module_text):
        out.append((m.group(1), _unescape(m.group(2))))
    return out


def _instruction_lines(body):
    lines = []
    for line in body.splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "{", "}", ")")) or s.endswith(":"):
            continue
        lines.append(s)
    return lines


def _entry_bodies(ptx):
    """(name, body text) of every .entry of a PTX text."""
    out = []
    for m in _ENTRY.finditer(ptx):
        start = ptx.find("{", m.end())
        depth, i = 0, start
        while i < len(ptx):
            if ptx[i] == "{":
                depth += 1
            elif ptx[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.append((m.group(1), ptx[start + 1:i]))
    return out


def parse_ptxas_report(report):
    """Per entry function of a ``ptxas -v`` report: {name: {"registers",
    "shared_bytes", "spill_stores", "spill_loads", "stack_bytes"}}."""
    stats, current = {}, None
    for line in report.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$]+)'?", line)
        if m:
            current = stats.setdefault(m.group(1), {"registers": 0, "shared_bytes": 0,
                                                    "spill_stores": 0, "spill_loads": 0,
                                                    "stack_bytes": 0})
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m:
            current["stack_bytes"], current["spill_stores"], current["spill_loads"] = (
                int(m.group(1)), int(m.group(2)), int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            current["shared_bytes"] = int(s.group(1)) if s else 0
    return stats


def find_ptxas():
    """ptxas from $CUDA_HOME/bin, /usr/local/cuda/bin or PATH (None if absent)."""
    for d in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if d and os.access(os.path.join(d, "bin", "ptxas"), os.X_OK):
            return os.path.join(d, "bin", "ptxas")
    return shutil.which("ptxas")


def run_ptxas(ptx, chip="sm_90", ptxas=None):
    """The ``ptxas -v`` report of a PTX text for ``chip``."""
    ptxas = ptxas or find_ptxas()
    if not ptxas:
        raise RuntimeError("ptxas not found (set CUDA_HOME)")
    with tempfile.TemporaryDirectory(prefix="gpumodel-") as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        out = subprocess.run([ptxas, f"-arch={chip}", "-v", path, "-o", path + ".cubin"],
                             capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"ptxas failed: {out.stderr}")
    return out.stderr


def ptx_kernel_stats(ptx, ptxas_report=None):
    """Statistics of every kernel (.entry) of a PTX text, for the model:
    {name: {"instructions", "global_stores", "has_loop", "registers",
    "shared_bytes", "static_shared_bytes"}}.

    ``instructions``: instruction lines in the kernel body (static count; one
    thread executes exactly these when the body has no loop). ``registers``
    and ``shared_bytes`` come from the ``ptxas -v`` report when one is given;
    ``static_shared_bytes`` is the size of the .shared declarations of the PTX.
    """
    report = parse_ptxas_report(ptxas_report) if ptxas_report else {}
    stats = {}
    for name, body in _entry_bodies(ptx):
        lines = _instruction_lines(body)
        labels = {}
        for i, line in enumerate(body.splitlines()):
            m = re.match(r"\s*([\w$]+):\s*$", line)
            if m:
                labels[m.group(1)] = i
        has_loop = False
        for i, line in enumerate(body.splitlines()):
            m = re.search(r"\bbra(?:\.uni)?\s+([\w$]+)\s*;", line)
            if m and labels.get(m.group(1), i + 1) <= i:
                has_loop = True
        shared = 0
        for m in re.finditer(r"\.shared\s+(?:\.align\s+\d+\s+)?\.(?:b|u|s|f)(\d+)\s+[\w$]+((?:\[\d+\])+)",
                             body):
            count = 1
            for dim in re.findall(r"\[(\d+)\]", m.group(2)):
                count *= int(dim)
            shared += count * int(m.group(1)) // 8
        entry = {
            "instructions": len(lines),
            "global_stores": sum(1 for ins in lines if re.match(r"(@!?%p\d+\s+)?st\.global", ins)),
            "has_loop": has_loop,
            "registers": None,
            "shared_bytes": shared,
            "static_shared_bytes": shared,
        }
        if name in report:
            entry["registers"] = report[name]["registers"]
            entry["shared_bytes"] = max(shared, report[name]["shared_bytes"])
        stats[name] = entry
    return stats


def _ptx_for(kernel_name, ptx_stats):
    """The PTX statistics of a profile's kernel name ("module::func" or
    "func"), or None."""
    if not ptx_stats:
        return None
    candidates = [kernel_name] + kernel_name.split("::")[::-1]
    for c in candidates:
        if c in ptx_stats:
            return ptx_stats[c]
    return None


# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------


def model_warp_instructions(profile, stats):
    """Modeled warp instructions issued per launch, when the profile has
    the emulation's dynamic counts (INSTRUCTION_KEYS) and the kernel's PTX
    is known: the warp-issued modeled instructions scaled by the kernel's
    PTX instructions over its modeled static instructions (the op weights
    of the emulation made to agree with the PTX size). Else None."""
    if (stats is None or not profile.get("static_instructions")
            or "warp_instructions" not in profile):
        return None
    scale = stats["instructions"] / profile["static_instructions"]
    return profile["warp_instructions"] * scale / max(profile["launches"], 1)


def model_instructions_per_thread(profile, stats):
    """Modeled instructions one thread executes per launch. With the
    emulation's dynamic counts: those, scaled to the PTX
    (model_warp_instructions), per thread. Straight-line kernels: the
    static count. Kernels with loops: the static instructions per global
    store, times the updates of one thread (an estimate)."""
    if stats is None:
        return 0.0
    if profile.get("static_instructions") and "thread_instructions" in profile:
        scale = stats["instructions"] / profile["static_instructions"]
        threads = profile["blocks"] * profile["threads_per_block"]
        return profile["thread_instructions"] * scale / max(threads, 1)
    if not stats["has_loop"] or stats["global_stores"] == 0:
        return float(stats["instructions"])
    threads = profile["blocks"] * profile["threads_per_block"]
    per_update = stats["instructions"] / stats["global_stores"]
    return per_update * profile["updates"] / max(threads, 1)


def model_kernel(profile, dev, stats=None, registers=None, shared_bytes=None,
                 instructions_per_thread=None):
    """The model of one kernel of a profile on a device: a dict with the
    modeled times (per launch and total, seconds), the bound, and the counts
    per update. ``stats``: this kernel's entry of ptx_kernel_stats; the
    other arguments override it."""
    check_profile(profile)
    if isinstance(dev, str):
        dev = device(dev)
    launches = max(profile["launches"], 1)
    blocks = profile["blocks"] / launches
    tpb = profile["threads_per_block"]
    if registers is None:
        registers = (stats or {}).get("registers") or 0
    if shared_bytes is None:
        # The emulation's workgroup buffers: on the GPU they may be dynamic
        # shared memory, which neither the PTX nor ptxas -v sizes.
        shared_bytes = max((stats or {}).get("shared_bytes") or 0,
                           profile["shared_bytes_per_block"])
    warp_instructions = None
    if instructions_per_thread is None:
        instructions_per_thread = model_instructions_per_thread(profile, stats)
        warp_instructions = model_warp_instructions(profile, stats)

    resident = occupancy(dev, tpb, registers, shared_bytes)
    if resident == 0:
        raise ValueError(f"{profile['kernel']}: a block of {tpb} threads, {registers} registers "
                         f"and {shared_bytes} B shared memory does not fit on {dev.name}")
    slots = dev.sms * resident
    active_sms = min(dev.sms, blocks) if blocks > 0 else 0
    fill = min(1.0, blocks / slots) if slots else 0.0
    waves = math.ceil(blocks / slots) if blocks > 0 else 0

    dram = (profile["global_bytes_read"] + profile["global_bytes_written"]) / launches
    shared_wavefronts = (profile["shared_load_requests"] + profile["shared_store_requests"]
                         + profile["shared_bank_conflicts"]) / launches
    warps_per_block = math.ceil(tpb / dev.warp_size)
    warps = blocks * warps_per_block
    if warp_instructions is None:
        warp_instructions = instructions_per_thread * warps
    per_block = 1 / profile["blocks"] if profile["blocks"] else 0.0
    barriers_per_block = profile["barriers"] * per_block
    load_intervals_per_block = profile["global_load_intervals"] * per_block

    if active_sms:
        t_memory = dram / (DRAM_ACHIEVABLE_FRACTION * dev.dram_bytes_per_s * active_sms / dev.sms)
        t_shared = shared_wavefronts / (dev.shared_requests_per_clock * dev.clock_hz * active_sms)
        # Issue: the warp instructions of the busiest SM's blocks at its
        # schedulers' rate. Latency: that SM runs its blocks `resident` at a
        # time, and a block takes at least its critical path: each of its
        # warps issues one instruction per WARP_ISSUE_LATENCY_CYCLES, and
        # waits at every barrier and for the global loads of its copy-in
        # intervals.
        sm_blocks = math.ceil(blocks / dev.sms)
        t_issue = (warp_instructions / blocks * sm_blocks
                   / (dev.schedulers_per_sm * dev.clock_hz))
        rounds = math.ceil(sm_blocks / min(resident, sm_blocks))
        path = (warp_instructions / warps * WARP_ISSUE_LATENCY_CYCLES
                + BARRIER_LATENCY_CYCLES * barriers_per_block
                + GLOBAL_LOAD_LATENCY_CYCLES * load_intervals_per_block)
        t_latency = rounds * path / dev.clock_hz
    else:
        t_memory = t_shared = t_issue = t_latency = 0.0
    throughput = {"memory": t_memory, "shared": t_shared, "issue": t_issue, "latency": t_latency}
    bound = max(throughput, key=throughput.get)
    t_launch = throughput[bound] + LAUNCH_OVERHEAD_S
    total = t_launch * launches
    updates = profile["updates"]

    def per_update(x):
        return x / updates if updates else 0.0

    def efficiency(requested, sectors):
        return requested / (sectors * SECTOR_BYTES) if sectors else None

    return {
        "kernel": profile["kernel"],
        "launches": profile["launches"],
        "blocks_per_launch": blocks,
        "threads_per_block": tpb,
        "registers": registers,
        "shared_bytes": shared_bytes,
        "resident_blocks_per_sm": resident,
        "fill": fill,
        "waves": waves,
        "instructions_per_thread": instructions_per_thread,
        "warp_instructions_per_launch": warp_instructions,
        "updates": updates,
        "global_load_requests": profile["global_load_requests"],
        "global_store_requests": profile["global_store_requests"],
        "global_load_efficiency": efficiency(profile["global_load_bytes_requested"],
                                             profile["global_load_sectors"]),
        "global_store_efficiency": efficiency(profile["global_store_bytes_requested"],
                                              profile["global_store_sectors"]),
        "shared_requests": profile["shared_load_requests"] + profile["shared_store_requests"],
        "shared_bank_conflicts": profile["shared_bank_conflicts"],
        "dram_bytes": profile["global_bytes_read"] + profile["global_bytes_written"],
        "per_update": {
            "global_load_requests": per_update(profile["global_load_requests"]),
            "global_store_requests": per_update(profile["global_store_requests"]),
            "shared_requests": per_update(profile["shared_load_requests"]
                                          + profile["shared_store_requests"]),
            "shared_bank_conflicts": per_update(profile["shared_bank_conflicts"]),
            "dram_bytes": per_update(profile["global_bytes_read"] + profile["global_bytes_written"]),
            "model_ns": per_update(total) * 1e9,
        },
        "model_memory_s": t_memory,
        "model_shared_s": t_shared,
        "model_issue_s": t_issue,
        "model_latency_s": t_latency,
        "model_launch_overhead_s": LAUNCH_OVERHEAD_S,
        "model_bound": bound,
        "model_time_per_launch_s": t_launch,
        "model_time_s": total,
        "model_gstencils_per_s": updates / total / 1e9 if total else 0.0,
    }


def model_program(profiles, dev, ptx_stats=None, steps=None, overrides=None, ptx_order=None):
    """The model of every kernel of a program: {"kernels": [model_kernel
    results], "model_time_s", "model_time_per_step_s" (with ``steps``),
    "updates", "model_gstencils_per_s"}. ``ptx_stats``: ptx_kernel_stats of
    the program's PTX (merged over its binaries); ``ptx_order``: the
    statistics of each kernel in launch-site order (one per gpu.binary),
    used for profile kernels whose name is not in ``ptx_stats`` when there
    are as many as profiles (the emulation's profile names its kernels by
    launch site, the outlined binaries are named differently);
    ``overrides``: {kernel name: keyword arguments of model_kernel}."""
    if isinstance(dev, str):
        dev = device(dev)
    overrides = overrides or {}
    positional = ptx_order if ptx_order and len(ptx_order) == len(profiles) else None
    kernels = []
    for i, p in enumerate(profiles):
        stats = _ptx_for(p["kernel"], ptx_stats)
        if stats is None and positional:
            stats = positional[i]
        kernels.append(model_kernel(p, dev, stats, **overrides.get(p["kernel"], {})))
    total = sum(k["model_time_s"] for k in kernels)
    updates = sum(k["updates"] for k in kernels)
    return {
        "device": dev.name,
        "kernels": kernels,
        "model_time_s": total,
        "steps": steps,
        "model_time_per_step_s": total / steps if steps else None,
        "updates": updates,
        "model_gstencils_per_s": updates / total / 1e9 if total else 0.0,
    }


def format_table(result):
    """The model as text: a table in the style of Table 5 of the hybrid
    tiling paper (counts per kernel, then per update), then the modeled
    times."""
    rows = result["kernels"]
    lines = [f"GPU performance model (modeled, not measured) for {result['device']}", ""]
    head = ("| kernel | launches | updates | gld requests | gld efficiency | gst requests "
            "| gst efficiency | shared requests | bank conflicts | DRAM bytes |")
    lines += ["Counts per kernel (totals over the run):", "", head,
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k in rows:
        eff = lambda e: "n/a" if e is None else f"{100 * e:.0f}%"
        lines.append(f"| {k['kernel']} | {k['launches']} | {k['updates']} | {k['global_load_requests']} "
                     f"| {eff(k['global_load_efficiency'])} | {k['global_store_requests']} "
                     f"| {eff(k['global_store_efficiency'])} | {k['shared_requests']} "
                     f"| {k['shared_bank_conflicts']} | {k['dram_bytes']} |")
    lines += ["", "Per update:", "",
              "| kernel | gld requests | gst requests | shared requests | bank conflicts "
              "| DRAM bytes | model ns |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for k in rows:
        u = k["per_update"]
        lines.append(f"| {k['kernel']} | {u['global_load_requests']:.4f} | {u['global_store_requests']:.4f} "
                     f"| {u['shared_requests']:.4f} | {u['shared_bank_conflicts']:.4f} "
                     f"| {u['dram_bytes']:.3f} | {u['model_ns']:.5f} |")
    lines += ["", "Model per launch (us):", "",
              "| kernel | blocks | threads | regs | shared B | blocks/SM | memory | shared "
              "| issue | latency | launch | model time | bound | model GStencils/s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for k in rows:
        us = lambda s: f"{s * 1e6:.2f}"
        lines.append(f"| {k['kernel']} | {k['blocks_per_launch']:.0f} | {k['threads_per_block']} "
                     f"| {k['registers']} | {k['shared_bytes']} | {k['resident_blocks_per_sm']} "
                     f"| {us(k['model_memory_s'])} | {us(k['model_shared_s'])} | {us(k['model_issue_s'])} "
                     f"| {us(k['model_latency_s'])} | {us(k['model_launch_overhead_s'])} "
                     f"| {us(k['model_time_per_launch_s'])} | {k['model_bound']} "
                     f"| {k['model_gstencils_per_s']:.2f} |")
    lines += ["", f"model time: {result['model_time_s'] * 1e3:.4f} ms for {result['updates']} updates"]
    if result["model_time_per_step_s"] is not None:
        lines.append(f"model time per step: {result['model_time_per_step_s'] * 1e6:.2f} us "
                     f"({result['steps']} steps)")
    lines.append(f"model GStencils/s: {result['model_gstencils_per_s']:.2f}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m stencil.gpumodel",
        description="Print the GPU performance model (modeled times, not measurements) of a "
                    "kernel profile.")
    parser.add_argument("profile", help="profile JSON (kernel dicts with the keys of PROFILE_KEYS)")
    parser.add_argument("--chip", default="sm_90", choices=sorted(DEVICES))
    parser.add_argument("--ptx", action="append", default=[],
                        help="PTX of the kernels (a .ptx file, or a module lowered with "
                             "--convert-to-gpu=format=isa); repeatable")
    parser.add_argument("--ptxas", default=None, help="ptxas for registers and shared memory "
                        "(default: found in CUDA_HOME, /usr/local/cuda or PATH; 'none' to skip)")
    parser.add_argument("--steps", type=int, default=None, help="time steps of the run")
    parser.add_argument("--json", action="store_true", help="print the model as JSON")
    args = parser.parse_args(argv)

    profiles, meta = load_profiles(args.profile)
    steps = args.steps if args.steps is not None else meta.get("steps")
    ptx_stats, ptx_order = {}, []
    ptxas = None if args.ptxas == "none" else (args.ptxas or find_ptxas())
    for path in args.ptx:
        with open(path) as f:
            text = f.read()
        ptxs = ptx_from_module(text) if "gpu.binary" in text else [(None, text)]
        for binary, ptx in ptxs:
            report = run_ptxas(ptx, args.chip, ptxas) if ptxas else None
            for name, entry in ptx_kernel_stats(ptx, report).items():
                ptx_stats[name] = entry
                ptx_order.append(entry)
                if binary:
                    ptx_stats[f"{binary}::{name}"] = entry
    result = model_program(profiles, args.chip, ptx_stats or None, steps, ptx_order=ptx_order)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
