# RUN: %python %s %t
# The memory-traffic profile of the GPU emulation, on kernels whose counts
# are known: a coalesced f32 copy (per warp and load: 1 request, 4 sectors),
# a strided f32 load (stride 8: 32 sectors per request), f64 coalesced (8
# sectors), shared memory with and without bank conflicts (stride 32 words:
# 31 replays per request; f64: 2 banks per element), barriers, updates, and
# a thread loop (the k-th execution of an op by the threads of a warp is
# one request), and the modeled instructions (per thread, per warp under
# divergence, static; stencil.profile), and the barrier intervals that load
# from global memory. Then the untiled jacobi2d (f32, block 32x8): 5 load requests
# and one store per 32 updates, the sectors that the addresses of the
# arrays give, the distinct bytes of each step.
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from stencil import profile
from stencil.compiler import compile_file, compile_module
from stencil.runtime import StencilLibrary

workdir = Path(sys.argv[1])
workdir.mkdir(parents=True, exist_ok=True)

KERNELS = """
module attributes {gpu.container_module} {
  // 2 blocks of 128 threads: b[i] = a[i] (f32), marked as updates.
  func.func @copy(%a: memref<256xf32>, %b: memref<256xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %a[%i] : memref<256xf32>
      memref.store %v, %b[%i] {stencil.update} : memref<256xf32>
      gpu.terminator
    }
    return
  }

  // 64 threads read a[8 t] (f32: one sector each) and write b[t].
  func.func @strided(%a: memref<512xf32>, %b: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %i = arith.muli %tx, %c8 : index
      %v = memref.load %a[%i] : memref<512xf32>
      memref.store %v, %b[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }

  // One warp (32 x 1 threads, 2-D ids) loads f64 a[t] into b[t].
  func.func @copy64(%a: memref<32xf64>, %b: memref<32xf64>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c2, %sz = %c1) {
      %row = arith.muli %ty, %sx : index
      %i = arith.addi %row, %tx : index
      %v = memref.load %a[%i] : memref<32xf64>
      memref.store %v, %b[%i] : memref<32xf64>
      gpu.terminator
    }
    return
  }

  // One warp: thread t stores s[t][0] (stride 32 words: all in bank 0, 31
  // replays), barrier, loads s[0][t] (conflict-free), stores it to b[t];
  // then f64 d[t] (2 banks per element, 2 words in each bank: 1 replay)
  // and e[2 t] (words 4t, 4t + 1: 4 words in each of 16 banks: 3 replays).
  func.func @banks(%b: memref<32xf32>, %c: memref<32xf64>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %x = arith.constant 1.0 : f32
    %y = arith.constant 2.0 : f64
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%s : memref<32x32xf32, #gpu.address_space<workgroup>>,
                         %d : memref<32xf64, #gpu.address_space<workgroup>>,
                         %e : memref<64xf64, #gpu.address_space<workgroup>>) {
      memref.store %x, %s[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %s[%c0, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
      memref.store %v, %b[%tx] : memref<32xf32>
      memref.store %y, %d[%tx] : memref<32xf64, #gpu.address_space<workgroup>>
      %t2 = arith.muli %tx, %c2 : index
      memref.store %y, %e[%t2] : memref<64xf64, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %d[%tx] : memref<32xf64, #gpu.address_space<workgroup>>
      memref.store %w, %c[%tx] : memref<32xf64>
      gpu.terminator
    }
    return
  }

  // One warp, each thread loads a[t + 32 k] for k < 4 in a loop: one
  // request per k (4 requests, 16 sectors).
  func.func @loop(%a: memref<128xf32>, %b: memref<32xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
        %row = arith.muli %k, %c32 : index
        %i = arith.addi %row, %tx : index
        %v = memref.load %a[%i] : memref<128xf32>
        %n = arith.addf %acc, %v : f32
        scf.yield %n : f32
      }
      memref.store %sum, %b[%tx] : memref<32xf32>
      gpu.terminator
    }
    return
  }

  // 2 blocks of one warp, three barrier intervals each: a copy-in from
  // global memory, a shared-only step, a global load again; 2 intervals of
  // each block load from global memory.
  func.func @staged(%a: memref<64xf32>, %b: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %a[%i] : memref<64xf32>
      memref.store %v, %s[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %s[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      %x = arith.addf %w, %w : f32
      memref.store %x, %s[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %s[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      %z = memref.load %a[%i] : memref<64xf32>
      %r = arith.addf %y, %z : f32
      memref.store %r, %b[%i] : memref<64xf32>
      gpu.terminator
    }
    return
  }

  // Two warps; only thread 0 copies: the then-block is issued by one warp.
  func.func @diverge(%a: memref<64xf32>, %b: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %first = arith.cmpi ult, %tx, %c1 : index
      scf.if %first {
        %v = memref.load %a[%tx] : memref<64xf32>
        memref.store %v, %b[%tx] : memref<64xf32>
      }
      gpu.terminator
    }
    return
  }
}
"""

lib = StencilLibrary(compile_module(KERNELS, "kernels", emulate_gpu=True, profile=True,
                                    workdir=workdir / "kernels"))


def aligned(n, dtype, alignment=128):
    """A zeroed array whose data starts at a multiple of `alignment` bytes."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n + alignment // itemsize, dtype)
    skip = (-raw.ctypes.data % alignment) // itemsize
    return raw[skip:skip + n]


def run(name, *args):
    result = profile.profile_library(lib, name, *args)
    assert len(result["kernels"]) == 1, result
    entry = result["kernels"][0]
    assert tuple(entry) == profile.KEYS, entry
    assert tuple(result["total"]) == profile.KEYS, result["total"]
    assert entry["kernel"] == f"{name}_kernel_0", entry
    return entry


def expect(entry, **counts):
    for key, value in counts.items():
        assert entry[key] == value, (entry["kernel"], key, entry[key], value)


a = aligned(256, np.float32)
a[:] = np.arange(256)
b = aligned(256, np.float32)
e = run("copy", a, b)
assert np.array_equal(a, b)
expect(e, launches=1, blocks=2, threads_per_block=128, updates=256,
       global_load_requests=8, global_load_sectors=32, global_load_bytes_requested=1024,
       global_store_requests=8, global_store_sectors=32, global_store_bytes_requested=1024,
       shared_load_requests=0, shared_store_requests=0, shared_bank_conflicts=0,
       global_bytes_read=1024, global_bytes_written=1024, barriers=0,
       global_load_intervals=2)
# Instructions: muli, addi, a load and a store of one index (2 each).
expect(e, static_instructions=6, thread_instructions=256 * 6, warp_instructions=8 * 6)

e = run("strided", aligned(512, np.float32), aligned(64, np.float32))
expect(e, updates=0, global_load_requests=2, global_load_sectors=64,
       global_load_bytes_requested=256, global_store_requests=2, global_store_sectors=8,
       global_bytes_read=256, global_bytes_written=256)

e = run("copy64", aligned(32, np.float64), aligned(32, np.float64))
expect(e, threads_per_block=32, global_load_requests=1, global_load_sectors=8,
       global_store_requests=1, global_store_sectors=8, global_bytes_read=256)

e = run("banks", aligned(32, np.float32), aligned(32, np.float64))
# Stores: s[t][0] (31 replays), d[t] (1 replay), e[2 t] (3); loads:
# s[0][t] (none), d[t] (1).
expect(e, shared_store_requests=3, shared_load_requests=2,
       shared_bank_conflicts=31 + 1 + 3 + 0 + 1, barriers=2, global_store_requests=2,
       global_load_intervals=0)

sa = aligned(64, np.float32)
sa[:] = np.arange(64)
sb = aligned(64, np.float32)
e = run("staged", sa, sb)
assert np.array_equal(sb, 3 * sa), sb
expect(e, blocks=2, barriers=4, global_load_intervals=4, global_load_requests=4,
       shared_load_requests=4, shared_store_requests=4)

e = run("loop", aligned(128, np.float32), aligned(32, np.float32))
expect(e, global_load_requests=4, global_load_sectors=16, global_store_requests=1,
       global_load_intervals=1)
# The body: scf.for (1), the store (2); 4 iterations of the loop's block:
# increment and branch (2), muli, addi, the load (2), addf.
expect(e, static_instructions=3 + 7, thread_instructions=32 * (3 + 4 * 7),
       warp_instructions=3 + 4 * 7)

e = run("diverge", aligned(64, np.float32), aligned(64, np.float32))
# cmpi and scf.if by both warps, the then-block (load and store, 4) by
# thread 0 only: issued once, by its warp.
expect(e, static_instructions=2 + 4, thread_instructions=64 * 2 + 4,
       warp_instructions=2 * 2 + 4)

# The total sums the kernels of one call.
result = profile.profile_library(lib, "copy", a, b)
assert result["total"]["global_load_requests"] == 8, result

# jacobi2d, untiled, f32, interior 64x64 in a 66x66 array, 2 steps, blocks
# of 32x8 threads: each warp is 32 consecutive points of one row.
subprocess.run([sys.executable, "-m", "stencil.benchmarks", "gen", "jacobi2d", "--shape",
                "64,64", "--steps", "2", "--dtype", "f32", "-o", str(workdir / "j2.mlir")],
               check=True)
jacobi = StencilLibrary(compile_file(workdir / "j2.mlir", emulate_gpu=True, profile=True,
                                     gpu_options="block-sizes=32,8",
                                     workdir=workdir / "jacobi"))
u0, u1 = aligned(66 * 66, np.float32).reshape(66, 66), aligned(66 * 66, np.float32).reshape(66, 66)
u0[:] = np.random.default_rng(0).random((66, 66))
result = profile.profile_library(jacobi, "jacobi2d", u0, u1)
total = result["total"]
updates = 2 * 64 * 64
assert total["updates"] == updates, total
assert total["global_load_requests"] * 32 == 5 * updates, total
assert total["global_store_requests"] * 32 == updates, total


def sectors(array, rows, cols):
    """Sectors of the warps of 32 points (i, j..j+31) at rows x cols."""
    base = array.ctypes.data
    count = 0
    for i in rows:
        for j in cols:
            first = base + (i * 66 + j) * 4
            count += (first + 32 * 4 - 1) // 32 - first // 32 + 1
    return count


# Interior point (i, j) is array element (i + 1, j + 1); warps start at
# j = 0 and 32. Step 0 reads u0 and writes u1, step 1 the reverse.
want_load = want_store = 0
for src, dst in [(u0, u1), (u1, u0)]:
    for di, dj in [(0, 0), (0, -1), (0, 1), (1, 0), (-1, 0)]:
        want_load += sectors(src, range(1 + di, 65 + di), (1 + dj, 33 + dj))
    want_store += sectors(dst, range(1, 65), (1, 33))
assert total["global_load_sectors"] == want_load, (total, want_load)
assert total["global_store_sectors"] == want_store, (total, want_store)
assert total["global_load_bytes_requested"] == 5 * 4 * updates, total
assert total["global_bytes_read"] == 2 * (66 * 66 - 4) * 4, total
assert total["global_bytes_written"] == 2 * 64 * 64 * 4, total
assert total["barriers"] == 0 and total["launches"] == 2, total

# The table and the JSON of the command line.
table = profile.format_table(result)
assert "global load requests" in table and "0.1562" in table, table
out = subprocess.run([sys.executable, "-m", "stencil", "profile", str(workdir / "j2.mlir"),
                      "--gpu-options=block-sizes=32,8", "--json"],
                     check=True, capture_output=True, text=True).stdout
cli = json.loads(out)
assert cli["total"]["global_load_requests"] * 32 == 5 * updates, cli
assert [tuple(k) for k in cli["kernels"]] == [profile.KEYS], cli
print(table)
print("ok profile: known counts of hand-written kernels and of jacobi2d")
