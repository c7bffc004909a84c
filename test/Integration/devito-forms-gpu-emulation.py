# RUN: %python %s %t
# Every Devito-form program (python/stencil/devito_forms.py: heat, acoustic
# and damped wave with three time buffers, coupled systems, staggered elastic
# 2D/3D, space orders 2-8) through the GPU mapping, its kernels run on the CPU
# (stencil-gpu-emulate), bit for bit against its numpy reference: untiled
# (one launch per apply and step), and hex-tiled with the GPU default sizes
# (target=gpu; elastic 3D with the headline command's, re-tiled for the
# device; poly-to-gpu: blocks over hexagons, threads over the tile, barriers), every
# other one with OpenMP over the blocks. Staggered 3D at orders above 2 runs
# hex-tiled with the default promotion (none in 3D; promoted, its kernels
# take minutes to generate): steps past poly-to-gpu's unroll-budget, whose
# point loops stay loops, below an atomic loop over the block's tiles; at
# 5x4x3, through the default --hex-tile and poly-to-gpu's
# re-tiling, it is the case where statements meet so few tiles that isl pins
# their footprint boxes to the domain and promotion moves them onto the
# common offset (SharedPromotion.cpp, boxAlong). 3D kernels are promoted
# here on request (promote=interleaved; promote=auto, the default, leaves
# them in global memory), so that promotion meets every form.
import os
import sys
from pathlib import Path

from stencil import devito_forms as df

workdir = Path(sys.argv[1])
os.makedirs(workdir, exist_ok=True)
for i, (family, order, shape, steps) in enumerate(df.SUITE):
    prog = df.make(family, order, shape, steps)
    openmp = bool(i % 2)
    df.check_program(prog, workdir / "untiled", (openmp,), seed=3, xdsl=False,
                     emulate_gpu=True)
    if family == "elastic3d" and order > 2:
        df.check_program(prog, workdir / "hex", (openmp,), seed=4, xdsl=False,
                         extra_passes=("hex-tile",), emulate_gpu=True)
        print(f"ok {prog.name}: GPU mapping emulated (untiled, hex-tiled unpromoted)")
        continue
    # elastic 3D through the headline command's sizes (--hex-tile, re-tiled
    # by poly-to-gpu for the device: 30 s here) rather than target=gpu's
    # table (90 s of compile for its 9 statements per step)
    hex_pass = "hex-tile" if family == "elastic3d" else "hex-tile=target=gpu"
    df.check_program(prog, workdir / "hex", (openmp,), seed=4, xdsl=False,
                     extra_passes=(hex_pass,), emulate_gpu=True,
                     gpu_options="promote=interleaved")
    print(f"ok {prog.name}: GPU mapping emulated (untiled, hex-tiled)")
prog = df.make("elastic3d", 4, (5, 4, 3), 2)
df.check_program(prog, workdir / "small", (False,), seed=4, xdsl=False,
                 extra_passes=("hex-tile",), emulate_gpu=True,
                 gpu_options="promote=interleaved")
print(f"ok {prog.name}: GPU mapping emulated (re-tiled for the GPU)")
# A grid with full tiles through the headline command's re-tiling: the 2D
# forms' statements are too large for full-tile isolation on the GPU
# (poly-to-gpu's gpuIsolatesFullTiles), so full tiles take the generic
# code; the race check finds nothing.
prog = df.make("heat", 8, (96, 70), 7)
df.check_program(prog, workdir / "full", (False,), seed=5, xdsl=False,
                 extra_passes=("hex-tile",), emulate_gpu=True, race_check=True)
print(f"ok {prog.name}: GPU mapping emulated with full tiles, no isolation, no race")
print("ok all devito forms through the GPU mapping")
