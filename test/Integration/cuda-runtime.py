# REQUIRES: cuda-runtime
# RUN: %python %s %t
#
# libStencilCudaRuntime and the Python CUDA path, without a GPU: hand-written
# modules with gpu.launch (independent of the stencil GPU mapping) lowered by
# upstream's NVVM pipeline, compiled with compiler.compile_llvm_dialect and
# loaded in child processes that see
#   - no libcuda.so.1: a clear "no CUDA driver" error at load;
#   - the toolkit's stub as libcuda.so.1: cuInit fails, CudaError names cuInit
#     and CUDA_ERROR_STUB_LIBRARY, no crash;
#   - a fake driver (Inputs/fake-cuda-driver.c: host memory, launches counted,
#     failures injected): the whole call path, argument checks, the stream and
#     buffer caches, the sticky error, errors naming the call and the kernel.
import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "Inputs"))
from cuda_testing import (cuda_root, driver_env, fake_driver, stub_driver,  # noqa: E402
                          symbols, system_driver)

SCALE = """
module attributes {gpu.container_module} {
func.func @scale(%a: memref<1024xf32>) attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %f = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %i0 = arith.muli %bx, %c256 : index
    %i = arith.addi %i0, %tx : index
    %v = memref.load %a[%i] : memref<1024xf32>
    %w = arith.mulf %v, %f : f32
    memref.store %w, %a[%i] : memref<1024xf32>
    gpu.terminator
  }
  return
}
func.func @copies(%h: memref<1024xf32>, %h16: memref<16xi16>) attributes {llvm.emit_c_interface} {
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<1024xf32>
  %t2 = gpu.memcpy async [%t1] %d, %h : memref<1024xf32>, memref<1024xf32>
  %one = arith.constant 1.0 : f32
  %t3 = gpu.memset async [%t2] %d, %one : memref<1024xf32>, f32
  %t4 = gpu.memcpy async [%t3] %h, %d : memref<1024xf32>, memref<1024xf32>
  %d16, %t5 = gpu.alloc async [%t4] () : memref<16xi16>
  %s = arith.constant 3 : i16
  %t6 = gpu.memset async [%t5] %d16, %s : memref<16xi16>, i16
  %t7 = gpu.memcpy async [%t6] %h16, %d16 : memref<16xi16>, memref<16xi16>
  %t8 = gpu.dealloc async [%t7] %d16 : memref<16xi16>
  %t9 = gpu.dealloc async [%t8] %d : memref<1024xf32>
  gpu.wait [%t9]
  return
}
}
"""

# Events, cluster launches, host registration, the default device: the rest
# of what LLVM 22's host lowering calls (only linked, not run).
MISC = """
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @kern(%a: memref<?xf32>) kernel { gpu.return }
}
func.func @misc(%a: memref<?xf32>, %h: memref<16xf32>) attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %d = arith.constant 0 : i32
  gpu.set_default_device %d
  %u = memref.cast %h : memref<16xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  %t0 = gpu.wait async
  %t1 = gpu.wait async
  %t2 = gpu.launch_func async [%t0] @k::@kern clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
  %t3 = gpu.launch_func async [%t1] @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
  %t4 = gpu.wait async [%t2, %t3]
  gpu.wait [%t4]
  gpu.host_unregister %u : memref<*xf32>
  return
}
}
"""


def run_child(scenario, work, lib_dir, extra_env=None, expect_ok=True):
    """This script in a fresh process whose libcuda.so.1 comes from lib_dir
    (None: none at all); returns its JSON report."""
    env = driver_env(lib_dir, **(extra_env or {}))
    proc = subprocess.run([sys.executable, __file__, "--child", scenario, str(work)],
                          env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"child {scenario} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


# --------------------------------------------------------------------------
# Child processes


def load_compiled(work, name="scale"):
    from stencil.compiler import CompiledModule
    meta = json.loads((Path(work) / f"{name}.json").read_text())
    from stencil.compiler import MemRefArg, Signature
    sigs = {n: Signature(n, [MemRefArg(tuple(a[0]), a[1]) for a in args])
            for n, args in meta["signatures"].items()}
    return CompiledModule(meta["library"], sigs, False, target="cuda", runtime=meta["runtime"])


class DeviceArray:
    """A minimal __cuda_array_interface__ producer over a device pointer."""

    def __init__(self, ptr, shape=(1024,), typestr="<f4", strides=None, readonly=False,
                 stream=None, mask=None, version=3):
        self.__cuda_array_interface__ = dict(shape=shape, typestr=typestr,
                                             data=(ptr, readonly), strides=strides,
                                             version=version, stream=stream, mask=mask)


def child(scenario, work):
    import numpy as np

    from stencil.runtime import CudaError, StencilLibrary
    report = {}
    compiled = load_compiled(work)
    try:
        lib = StencilLibrary(compiled)
    except CudaError as e:
        report["load_error"] = str(e)
        print(json.dumps(report))
        return
    rt = lib.cuda
    fake = ctypes.CDLL("libcuda.so.1")
    fake.fakeCudaLastLaunch.restype = ctypes.c_uint
    calls = lambda n: fake.fakeCudaCalls(n.encode())  # noqa: E731
    report["device"] = rt.device
    report["device_info"] = rt.device_info()
    if scenario == "load":
        print(json.dumps(report))
        return
    a = np.arange(1024, dtype=np.float32)
    if scenario == "fake-launch-fails":
        try:
            lib.call("scale", a)
        except CudaError as e:
            report["call_error"] = str(e)
        report["live_after_error"] = fake.fakeCudaLiveAllocations()
        print(json.dumps(report))
        return
    for _ in range(3):
        lib.call("scale", a)
    report["unchanged"] = bool((a == np.arange(1024, dtype=np.float32)).all())
    report["counts"] = {n: calls(n) for n in (
        "cuMemAlloc", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemFree", "cuLaunchKernel",
        "cuStreamCreate", "cuStreamDestroy", "cuModuleLoadDataEx", "cuModuleGetFunction")}
    report["last_launch"] = [fake.fakeCudaLastLaunch(i) for i in range(6)]
    report["live"] = fake.fakeCudaLiveAllocations()

    # The second function: device alloc/memcpy/memset/dealloc on the stream.
    h, h16 = np.zeros(1024, np.float32), np.zeros(16, np.int16)
    lib.call("copies", h, h16)
    report["memset_f32"] = float(h[17])
    report["memset_i16"] = int(h16[5])

    # __cuda_array_interface__ arguments: used in place.
    dev = rt.malloc(4096)
    before = calls("cuMemcpyHtoDAsync")
    lib.call("scale", DeviceArray(dev))
    report["cai_copies"] = calls("cuMemcpyHtoDAsync") - before
    syncs = calls("cuStreamSynchronize")
    lib.call("scale", DeviceArray(dev, stream=1))
    report["cai_stream_syncs"] = calls("cuStreamSynchronize") - syncs
    errors = []
    for bad in (DeviceArray(dev, shape=(512,)), DeviceArray(dev, typestr="<f8"),
                DeviceArray(dev, typestr=">f4"), DeviceArray(dev, shape=(2, 512)),
                DeviceArray(dev, strides=(8,)), DeviceArray(dev, readonly=True),
                DeviceArray(dev, mask=object()), DeviceArray(a.ctypes.data),
                DeviceArray(0), DeviceArray(dev, stream=0), [1.0] * 1024):
        try:
            lib.call("scale", bad)
            errors.append("no error")
        except (TypeError, ValueError) as e:
            errors.append(f"{type(e).__name__}: {e}")
    report["cai_errors"] = errors
    rt.free(dev)

    # The C API through ctypes: stream cache, buffer cache, launches, errors.
    r = rt.lib
    r.mgpuStreamCreate.restype = ctypes.c_void_p
    s1, s2 = r.mgpuStreamCreate(), r.mgpuStreamCreate()
    r.mgpuStreamDestroy(ctypes.c_void_p(s1))
    r.stencilCudaGetStream.restype = ctypes.c_void_p
    report["same_stream"] = s1 == s2 == r.stencilCudaGetStream()
    report["stream_destroys"] = calls("cuStreamDestroy")
    r.mgpuMemAlloc.restype = ctypes.c_void_p
    r.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
    p1 = r.mgpuMemAlloc(1000, s1, False)
    r.mgpuMemFree(ctypes.c_void_p(p1), ctypes.c_void_p(s1))
    p2 = r.mgpuMemAlloc(1000, s1, False)
    p3 = r.mgpuMemAlloc(1000, s1, False)
    report["buffer_reused"] = p1 == p2 and p3 != p2
    for p in (p2, p3):
        r.mgpuMemFree(ctypes.c_void_p(p), ctypes.c_void_p(s1))

    class Stats(ctypes.Structure):
        _fields_ = [(n, ctypes.c_int64) for n in (
            "moduleLoads", "launches", "streamCreates", "streamsMade", "deviceAllocs",
            "cacheHits", "cachedBytes")]
    st = Stats()
    r.stencilCudaGetStats(ctypes.byref(st))
    report["stats"] = {n: getattr(st, n) for n, _ in Stats._fields_}
    r.stencilCudaReleaseCache()
    r.stencilCudaGetStats(ctypes.byref(st))
    report["cached_after_release"] = st.cachedBytes
    # Launches with an empty grid do nothing; negative sizes are errors.
    r.mgpuModuleGetFunction.restype = ctypes.c_void_p
    launches = calls("cuLaunchKernel")
    L = ctypes.c_int64
    r.mgpuLaunchKernel.argtypes = [ctypes.c_void_p, L, L, L, L, L, L, ctypes.c_int32,
                                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_size_t]
    fn = ctypes.c_void_p(12345)  # never reaches the driver
    r.mgpuLaunchKernel(fn, 0, 1, 1, 32, 1, 1, 0, s1, None, None, 0)
    report["empty_launch"] = [calls("cuLaunchKernel") - launches, r.stencilCudaGetLastError()]
    r.mgpuLaunchKernel(fn, -1, 1, 1, 32, 1, 1, 0, s1, None, None, 0)
    report["negative_launch"] = rt.error()
    # Sticky error: the first one is kept, the others counted.
    r.stencilCudaMemcpyHtoD(ctypes.c_void_p(16), a.ctypes.data, 64)
    r.stencilCudaMemset(ctypes.c_void_p(16), 0, 64)
    report["sticky"] = [r.stencilCudaGetLastError(), r.stencilCudaGetErrorCount(),
                        r.stencilCudaGetLastErrorMessage().decode()]
    r.stencilCudaClearLastError()
    report["cleared"] = [r.stencilCudaGetLastError(), r.stencilCudaGetErrorCount(),
                         r.stencilCudaGetLastErrorMessage().decode()]
    report["pointer_device"] = [rt.pointer_device(a.ctypes.data), rt.pointer_device(0)]
    report["error_name"] = r.stencilCudaErrorName(209).decode()
    print(json.dumps(report))


def child_stub(work):
    """The stub as libcuda.so.1: the C API's view."""
    from stencil.runtime import CudaError, StencilLibrary
    report = {}
    try:
        StencilLibrary(load_compiled(work))
    except CudaError as e:
        report["load_error"] = str(e)
    rt = ctypes.CDLL(str(load_compiled(work).runtime))
    rt.stencilCudaGetLastErrorMessage.restype = ctypes.c_char_p
    rt.stencilCudaErrorName.restype = ctypes.c_char_p
    rt.stencilCudaMalloc.restype = ctypes.c_void_p
    report["init_again"] = rt.stencilCudaInit()
    report["malloc"] = rt.stencilCudaMalloc(64)
    report["skip_error"] = rt.stencilCudaGetLastErrorMessage().decode()
    report["name"] = rt.stencilCudaErrorName(report["init_again"]).decode()
    print(json.dumps(report))


# --------------------------------------------------------------------------
# The test


def compile_module(work, name, mlir, fmt):
    """A hand-written gpu module through upstream's NVVM pipeline and the
    project's common compile tail."""
    from stencil.compiler import LLVM_BIN, compile_llvm_dialect, _parse_signatures, _run
    src = work / f"{name}.mlir"
    src.write_text(mlir)
    llvm_dialect = _run([str(LLVM_BIN / "mlir-opt"), str(src), "--gpu-lower-to-nvvm-pipeline="
                         f"cubin-chip=sm_90 cubin-features=+ptx80 cubin-format={fmt}"])
    sigs = _parse_signatures(mlir)
    compiled = compile_llvm_dialect(llvm_dialect, name, sigs, target="cuda", workdir=work / name)
    meta = {"library": compiled.library, "runtime": compiled.runtime,
            "signatures": {n: [[list(a.shape), a.dtype] for a in s.args]
                           for n, s in sigs.items()}}
    (work / f"{name}.json").write_text(json.dumps(meta))
    return compiled


def main(work):
    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    have_ptxas = bool(shutil.which("ptxas")) or (cuda_root() / "bin" / "ptxas").exists()

    # Compile: PTX always; a cubin when ptxas exists.
    scale = compile_module(work, "scale", SCALE, "isa")
    runtime = scale.runtime
    rt_defined = symbols(runtime, True)
    check(Path(runtime).name == "libStencilCudaRuntime.so", f"runtime found: {runtime}")
    formats = ["isa"] + (["bin"] if have_ptxas else [])
    for fmt in formats:
        (work / fmt).mkdir()
        for name, mlir in (("scale", SCALE), ("misc", MISC)):
            c = compile_module(work / fmt, name, mlir, fmt)
            undefined = symbols(c.library, False)
            mgpu = {s for s in undefined if s.startswith("mgpu")}
            check(f"_mlir_ciface_{name}" in symbols(c.library, True),
                  f"{fmt}/{name}: exports _mlir_ciface_{name}")
            check(mgpu and mgpu <= rt_defined,
                  f"{fmt}/{name}: the runtime defines the {len(mgpu)} mgpu functions it calls")
            dyn = subprocess.run(["readelf", "-d", c.library], capture_output=True,
                                 text=True).stdout
            check("libStencilCudaRuntime.so" in dyn and os.path.dirname(runtime) in dyn,
                  f"{fmt}/{name}: needs libStencilCudaRuntime.so, run path to it")
    check({"mgpuModuleLoad", "mgpuModuleLoadJIT", "mgpuLaunchKernel", "mgpuLaunchClusterKernel",
           "mgpuEventSynchronize", "mgpuMemHostRegisterMemRef", "mgpuSetDefaultDevice"}
          <= rt_defined, "runtime exports the mgpu entry points")
    check(all(s.startswith(("mgpu", "stencilCuda")) for s in rt_defined),
          "runtime exports nothing else")

    # No libcuda.so.1 (unless this machine has a driver on the default path).
    if system_driver():
        print("skip: this machine has libcuda.so.1")
    else:
        rep = run_child("load", work, None)
        check("no CUDA driver on this machine" in rep.get("load_error", ""),
              f"no driver: {rep.get('load_error')}")

    # The stub as the driver.
    stub = stub_driver(work / "stub")
    if stub:
        rep = run_child("stub", work, stub)
        err = rep.get("load_error", "")
        check("cuInit" in err and "CUDA_ERROR_STUB_LIBRARY" in err, f"stub: {err}")
        check(rep["init_again"] == 34 and rep["name"] == "CUDA_ERROR_STUB_LIBRARY"
              and rep["malloc"] is None, "stub: initialization stays failed, calls do nothing")
        check("stencilCudaMalloc skipped" in rep["skip_error"]
              and "CUDA_ERROR_STUB_LIBRARY" in rep["skip_error"],
              f"stub: skipped calls say why: {rep['skip_error']}")

    # The fake driver.
    fake_dir = fake_driver(work / "fake")
    rep = run_child("fake", work, fake_dir)
    check("load_error" not in rep, f"fake: loads ({rep.get('load_error')})")
    check(rep["device"] == 0 and rep["device_info"] == ["Fake GPU 0", [8, 6]], "fake: device 0")
    c = rep["counts"]
    check(rep["unchanged"], "fake: kernels do not run (the data came back unchanged)")
    check(c["cuMemAlloc"] == 3 and c["cuMemcpyHtoDAsync"] == 3 and c["cuMemcpyDtoHAsync"] == 3
          and c["cuMemFree"] == 3 and rep["live"] == 0,
          f"fake: numpy fields copied in, back and freed ({c})")
    check(c["cuLaunchKernel"] == 3 and rep["last_launch"] == [4, 1, 1, 256, 1, 1],
          f"fake: launches {rep['last_launch']}")
    check(c["cuStreamCreate"] == 1 and c["cuStreamDestroy"] == 0,
          "fake: one stream for all launches, never destroyed")
    check(c["cuModuleLoadDataEx"] == 1 and c["cuModuleGetFunction"] == 3,
          "fake: module loaded once")
    check(rep["memset_f32"] == 1.0 and rep["memset_i16"] == 3,
          "fake: gpu.memcpy/gpu.memset (mgpuMemcpy, mgpuMemset32/16) ran")
    check(rep["cai_copies"] == 0 and rep["cai_stream_syncs"] >= 1,
          "fake: __cuda_array_interface__ used in place, its stream synchronized")
    expected = ["ValueError: argument 0 of @scale: shape (512,), expected (1024,)",
                "TypeError: argument 0 of @scale: dtype float64, expected float32",
                "TypeError: argument 0 of @scale: typestr '>f4' is not native byte order",
                "ValueError: argument 0 of @scale: shape (2, 512), expected (1024,)",
                "ValueError: argument 0 of @scale: strides (8,) (bytes) are not those of a "
                "C-contiguous array (4,): pass a contiguous copy",
                "ValueError: argument 0 of @scale is read-only: the fields are updated in place",
                "ValueError: argument 0 of @scale: masked arrays are not supported",
                "is not CUDA memory (pass host data as a numpy array)",
                "ValueError: argument 0 of @scale: null device pointer",
                "ValueError: argument 0 of @scale: 'stream' 0 is not allowed",
                "TypeError: argument 0 of @scale must be a numpy array or an object with "
                "__cuda_array_interface__"]
    for want, got in zip(expected, rep["cai_errors"]):
        check(want in got, f"argument check: {got}")
    check(len(rep["cai_errors"]) == len(expected), "every bad argument refused")
    check(rep["same_stream"] and rep["stream_destroys"] == 0,
          "mgpuStreamCreate returns the cached stream, mgpuStreamDestroy keeps it")
    check(rep["buffer_reused"] and rep["stats"]["cacheHits"] >= 1,
          f"freed device buffers are reused ({rep['stats']})")
    check(rep["cached_after_release"] == 0, "stencilCudaReleaseCache empties the cache")
    check(rep["empty_launch"] == [0, 0], "an empty grid launches nothing, without error")
    check("invalid size grid -1x1x1" in (rep["negative_launch"] or ""),
          f"a negative grid is an error: {rep['negative_launch']}")
    code, count, message = rep["sticky"]
    check(code == 1 and count == 2 and "cuMemcpyHtoDAsync failed: CUDA_ERROR_INVALID_VALUE"
          in message and message.endswith("(and 1 more error)"),
          f"sticky error: first kept, later counted: {message}")
    check(rep["cleared"] == [0, 0, ""], "the error clears")
    check(rep["pointer_device"] == [-1, -1], "host and null pointers are not device memory")
    check(rep["error_name"] == "CUDA_ERROR_NO_BINARY_FOR_GPU", "error names without the driver")

    # Failures: kernels for another GPU, a failing launch, a bad device.
    rep = run_child("load", work, fake_dir, {"FAKE_CUDA_FAIL": "cuModuleLoadDataEx=209"})
    err = rep.get("load_error", "")
    check("cuModuleLoadData" in err and "CUDA_ERROR_NO_BINARY_FOR_GPU" in err
          and "the device is sm_86, the PTX targets sm_90" in err and "chip=sm_86" in err,
          f"kernels for another GPU: {err}")
    rep = run_child("fake-launch-fails", work, fake_dir, {"FAKE_CUDA_FAIL": "cuLaunchKernel=719"})
    err = rep.get("call_error", "")
    check(err.startswith("@scale: stencil-cuda: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED")
          and "kernel scale_kernel, grid 4x1x1, block 256x1x1" in err, f"failed launch: {err}")
    check(rep["live_after_error"] == 0, "device buffers freed after a failed call")
    rep = run_child("load", work, fake_dir, {"STENCIL_CUDA_DEVICE": "3"})
    err = rep.get("load_error", "")
    check("cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE" in err and "device 3 of 1" in err,
          f"STENCIL_CUDA_DEVICE out of range: {err}")
    rep = run_child("load", work, fake_dir, {"STENCIL_CUDA_DEVICE": "gpu1"})
    err = rep.get("load_error", "")
    check("STENCIL_CUDA_DEVICE='gpu1' is not a device ordinal" in err, f"bad device: {err}")
    rep = run_child("load", work, fake_dir, {"FAKE_CUDA_DEVICES": "2", "STENCIL_CUDA_DEVICE": "1"})
    check(rep.get("device") == 1, "STENCIL_CUDA_DEVICE selects the device")
    print("PASS")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        scenario, work = sys.argv[2], sys.argv[3]
        if scenario == "stub":
            child_stub(work)
        else:
            child(scenario, work)
    else:
        main(sys.argv[1])
