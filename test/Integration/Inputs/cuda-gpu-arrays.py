"""On a GPU (cuda-gpu.test): a program compiled for CUDA, called with numpy
arrays and with device arrays (__cuda_array_interface__ over memory of the
runtime's allocator), equals the CPU library bit for bit; a pointer outside
device memory is refused before it reaches the GPU."""
import sys

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import CudaError, StencilLibrary


class DeviceArray:
    def __init__(self, rt, host):
        self.rt, self.shape, self.dtype = rt, host.shape, host.dtype
        self.ptr = rt.malloc(host.nbytes)
        rt.to_device(self.ptr, host)
        self.__cuda_array_interface__ = dict(shape=host.shape, typestr=host.dtype.str,
                                             data=(self.ptr, False), strides=None, version=3,
                                             stream=1)

    def get(self):
        out = np.empty(self.shape, self.dtype)
        self.rt.to_host(out, self.ptr)
        return out


path = sys.argv[1]
cpu = StencilLibrary(compile_file(path))
gpu = StencilLibrary(compile_file(path, target="cuda"))
name, sig = next(iter(cpu.compiled.signatures.items()))
rng = np.random.default_rng(1)
inputs = [rng.random(a.shape) for a in sig.args]
want = [a.copy() for a in inputs]
cpu.call(name, *want)
got = [a.copy() for a in inputs]
gpu.call(name, *got)
assert all(np.array_equal(g, w) for g, w in zip(got, want)), "numpy arrays: GPU != CPU"
print("ok: numpy arrays, GPU == CPU bit for bit")
dev = [DeviceArray(gpu.cuda, a) for a in inputs]
gpu.call(name, *dev)
assert all(np.array_equal(d.get(), w) for d, w in zip(dev, want)), "device arrays: GPU != CPU"
print("ok: device arrays used in place, GPU == CPU bit for bit")
name_, (major, minor) = gpu.cuda.device_info()
print(f"ok: device {gpu.cuda.device}: {name_} sm_{major}{minor}")
# A pointer outside device memory is refused before the call.
try:
    bad = type("Bad", (), {})()
    bad.__cuda_array_interface__ = dict(shape=inputs[0].shape, typestr=inputs[0].dtype.str,
                                        data=(dev[0].ptr + (1 << 40), False), version=2)
    gpu.call(name, bad, *dev[1:])
    print("FAILED: no error for a pointer outside device memory")
    sys.exit(1)
except (ValueError, CudaError) as e:
    print(f"ok: bad pointer refused: {type(e).__name__}: {str(e)[:200]}")
print("PASS")
