"""Memory traffic of the GPU kernels, counted by the CPU emulation.

`stencil-gpu-emulate` with `profile` (compile_file(..., emulate_gpu=True,
profile=True)) reports every global and shared load and store of the
emulated threads to libStencilEmulation.so, which counts per kernel (launch
site) what a GPU would see (docs/gpu.md, "Profiling and race checking the
emulation"):

  * requests per warp: a warp is 32 consecutive linear thread ids (x
    fastest); the k-th execution of one load/store op by the threads of a
    warp between two barriers is one request;
  * the 32-byte sectors a global request touches, and the bytes it asks for
    (load efficiency = requested bytes / (32 * sectors));
  * shared-memory requests and bank-conflict replays: 32 banks of 4 bytes,
    replays of a request = (most distinct 4-byte words in one bank) - 1;
  * the distinct global bytes each launch reads and writes (DRAM traffic
    with a perfect cache within a launch), summed over launches;
  * barriers executed (per block), the barrier intervals of a block that
    issue a global load (each waits for memory before its barrier),
    launches, blocks, threads per block, and updates: executed stores
    marked `stencil.update` (the computed points);
  * modeled instructions: each block of the kernel body is weighted with
    the PTX instructions its ops cost (a multiply-add per memory index, a
    few for a division, one for most ops, none for constants); executed per
    thread (`thread_instructions`) and per warp (`warp_instructions`: the
    k-th execution of a block by the threads of a warp between two
    barriers is issued once, whichever threads take it), and the kernel's
    static total (`static_instructions`), with which the model scales them
    to the kernel's PTX.

profile_file() returns the counters as a dict:

    {"kernels": [{"kernel": ..., <KEYS>}, ...],
     "total": {"kernel": "total", <KEYS>},
     "locations": {kernel: "file:line:col"}}

with the keys KEYS of every entry; format_table() prints them per update,
like Table 5 of the hybrid hexagonal tiling paper.
"""

import tempfile

import numpy as np

from .compiler import MemRefArg, pass_list, compile_file
from .gpumodel import INSTRUCTION_KEYS, PROFILE_KEYS
from .runtime import StencilLibrary, random_field

# The keys of each kernel's entry (and of the total), in order: the model's
# inputs.
KEYS = PROFILE_KEYS + INSTRUCTION_KEYS


# cudaMalloc returns at least 256-byte aligned memory; the profiled fields
# are placed alike, so that the sectors counted do not depend on where numpy
# put them.
DEVICE_ALIGNMENT = 256


def device_aligned(array, alignment=DEVICE_ALIGNMENT):
    """A C-contiguous copy of `array` whose data starts on `alignment` bytes."""
    raw = np.empty(array.nbytes + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    aligned = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    aligned[...] = array
    return aligned


def random_arguments(signature, seed=0):
    """Random fields in [0, 1) for every memref argument of `signature`
    (static shapes only, placed as cudaMalloc would: DEVICE_ALIGNMENT);
    pointer arguments get a zeroed 4 KiB buffer."""
    rng = np.random.default_rng(seed)
    values = []
    for spec in signature.args:
        if not isinstance(spec, MemRefArg) and spec.dtype == "!llvm.ptr":
            values.append(np.zeros(4096, np.uint8))
            continue
        if not isinstance(spec, MemRefArg):
            raise ValueError(f"@{signature.name} takes a scalar {spec.dtype}: call "
                             "profile_library with the arguments")
        if any(s is None for s in spec.shape):
            raise ValueError(f"@{signature.name} takes a field of unknown size: call "
                             "profile_library with the arguments")
        values.append(device_aligned(random_field(rng, spec.shape, spec.dtype)))
    return values


def profile_library(lib, name, *args):
    """Counters of one call of @name in `lib` (a StencilLibrary compiled
    with profile=True) on `args`."""
    lib.reset_profile()
    lib.call(name, *args)
    return lib.profile()


def profile_file(path, hex_tile=None, gpu_options="", func=None, seed=0, extra_passes=(),
                 openmp=False, workdir=None, extra_sources=()):
    """Compile the program in `path` through the emulated GPU mapping with
    the profile (hex-tiled when `hex_tile` is a string of --hex-tile
    options, "" for the defaults), run @func (the only function by default)
    once on random fields and return its counters (see the module's doc).
    `gpu_options`: options of the mapping, as for --emulate-gpu;
    `extra_sources`: C files defining functions the program calls (Devito's
    timers), as for compile_file."""
    passes = pass_list(extra_passes)
    if hex_tile is not None:
        passes += (f"hex-tile={hex_tile}" if hex_tile else "hex-tile",)
    with tempfile.TemporaryDirectory() as tmp:
        compiled = compile_file(path, openmp=openmp, workdir=workdir or tmp,
                                extra_passes=passes, emulate_gpu=True,
                                gpu_options=gpu_options, profile=True,
                                extra_sources=list(extra_sources))
        lib = StencilLibrary(compiled)
        sigs = compiled.signatures
        if func is None:
            if len(sigs) != 1:
                raise ValueError(f"the module has functions {', '.join(sigs)}: choose one "
                                 "with func=")
            func = next(iter(sigs))
        sig = lib.signature(func)
        return profile_library(lib, func, *random_arguments(sig, seed))


def derived(entry):
    """Per-update metrics of one entry (None where there are no updates):
    the rows of format_table."""
    updates = entry["updates"]

    def per(key):
        return entry[key] / updates if updates else None

    def efficiency(requested, sectors):
        return entry[requested] / (32 * entry[sectors]) if entry[sectors] else None

    return {
        "global_load_requests": per("global_load_requests"),
        "global_load_sectors": per("global_load_sectors"),
        "global_load_efficiency": efficiency("global_load_bytes_requested",
                                             "global_load_sectors"),
        "global_store_requests": per("global_store_requests"),
        "global_store_sectors": per("global_store_sectors"),
        "global_store_efficiency": efficiency("global_store_bytes_requested",
                                              "global_store_sectors"),
        "shared_load_requests": per("shared_load_requests"),
        "shared_store_requests": per("shared_store_requests"),
        "shared_bank_conflicts": per("shared_bank_conflicts"),
        "global_bytes_read": per("global_bytes_read"),
        "global_bytes_written": per("global_bytes_written"),
        "barriers": per("barriers"),
        "global_load_intervals": per("global_load_intervals"),
        "thread_instructions": per("thread_instructions"),
        "warp_instructions": per("warp_instructions"),
    }


_ROWS = [
    ("global load requests", "global_load_requests", "global_load_requests"),
    ("global load sectors", "global_load_sectors", "global_load_sectors"),
    ("global load efficiency", None, "global_load_efficiency"),
    ("global store requests", "global_store_requests", "global_store_requests"),
    ("global store sectors", "global_store_sectors", "global_store_sectors"),
    ("global store efficiency", None, "global_store_efficiency"),
    ("shared load requests", "shared_load_requests", "shared_load_requests"),
    ("shared store requests", "shared_store_requests", "shared_store_requests"),
    ("shared bank-conflict replays", "shared_bank_conflicts", "shared_bank_conflicts"),
    ("DRAM bytes read (distinct)", "global_bytes_read", "global_bytes_read"),
    ("DRAM bytes written (distinct)", "global_bytes_written", "global_bytes_written"),
    ("barriers", "barriers", "barriers"),
    ("barrier intervals with global loads", "global_load_intervals", "global_load_intervals"),
    ("modeled instructions (threads)", "thread_instructions", "thread_instructions"),
    ("modeled instructions (warps)", "warp_instructions", "warp_instructions"),
]


def issue_slots_by_statement(blocks):
    """Where a kernel's warp-issued modeled instructions go: {statements:
    share} over its instrumented blocks (result["blocks"][kernel]), keyed by
    the statements whose code a block holds ("" for index arithmetic and
    control flow alone), largest first."""
    slots = {}
    for block in blocks:
        key = block.get("statements", "")
        slots[key] = slots.get(key, 0) + block["instructions"] * block["warp_issues"]
    total = sum(slots.values())
    if not total:
        return {}
    return dict(sorted(((k, v / total) for k, v in slots.items()), key=lambda kv: -kv[1]))


def format_table(result):
    """The counters of profile_file as text: per kernel and in total, each
    count and its value per update (efficiencies in percent), and per kernel
    the share of its issue slots by statement."""
    lines = []
    locations = result.get("locations", {})
    blocks = result.get("blocks", {})
    for entry in result["kernels"] + [result["total"]]:
        name = entry["kernel"]
        where = f" at {locations[name]}" if name in locations else ""
        lines.append(f"kernel {name}{where}:" if name != "total" else "total:")
        lines.append(f"  {entry['launches']} launches, {entry['blocks']} blocks of "
                     f"{entry['threads_per_block']} threads, {entry['updates']} updates")
        lines.append(f"  {'':32}{'count':>14}{'per update':>14}")
        per = derived(entry)
        for label, key, metric in _ROWS:
            value = per[metric]
            if key is None:
                shown = "-" if value is None else f"{100 * value:.1f}%"
                lines.append(f"  {label:32}{'':>14}{shown:>14}")
                continue
            shown = "-" if value is None else f"{value:.4f}"
            lines.append(f"  {label:32}{entry[key]:>14}{shown:>14}")
        shares = issue_slots_by_statement(blocks.get(name, []))
        if shares:
            lines.append("  issue slots by statement: " + ", ".join(
                f"{k or '(index and control)'} {100 * v:.0f}%" for k, v in shares.items()))
    return "\n".join(lines) + "\n"
