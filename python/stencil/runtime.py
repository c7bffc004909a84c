"""Call compiled stencil functions on numpy arrays (and on GPU arrays).

The lowered ABI (docs/dialect.md): every field argument is a memref of the
field's full extent whose element 0 is the field's lower bound. Through the C
entry point ``_mlir_ciface_<name>`` each memref is passed as a pointer to a
descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}.

A library compiled for CUDA (compile_file(..., target="cuda")) takes DEVICE
pointers in those descriptors (docs/gpu-runtime.md). StencilLibrary.call
accepts numpy arrays, which it copies to device memory and back around the
call, and objects with ``__cuda_array_interface__`` (CuPy, Numba, PyTorch...),
whose device memory it passes as is. Device memory, copies and errors go
through libStencilCudaRuntime.so (CudaRuntime); a CUDA failure raises
CudaError with the runtime's message (the failing call and the error name).
"""

import ctypes
import re

import numpy as np

from .compiler import CompileError, MemRefArg

_NUMPY_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "index": np.int64, "i1": np.bool_,
}
_CTYPES_SCALARS = {
    "f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "index": ctypes.c_int64, "i1": ctypes.c_bool,
    "!llvm.ptr": ctypes.c_void_p,
}


def random_field(rng, shape, mlir_type):
    """Random values of a field: in [0, 1) for floats, integers in [-100,
    100) (i1: half of them true)."""
    if mlir_type == "i1":
        return rng.random(shape) < 0.5
    dtype = numpy_dtype(mlir_type)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return rng.random(shape).astype(dtype)


def numpy_dtype(mlir_type):
    try:
        return np.dtype(_NUMPY_DTYPES[mlir_type])
    except KeyError:
        raise ValueError(f"element type {mlir_type} has no numpy type: call the "
                         "compiled library from C for it") from None


def _descriptor_type(rank):
    class MemRefDescriptor(ctypes.Structure):
        _fields_ = [
            ("allocated", ctypes.c_void_p),
            ("aligned", ctypes.c_void_p),
            ("offset", ctypes.c_int64),
            ("sizes", ctypes.c_int64 * rank),
            ("strides", ctypes.c_int64 * rank),
        ]
    return MemRefDescriptor


def memref_descriptor(array):
    """A descriptor viewing `array` (which must stay alive during the call)."""
    return _descriptor(array.ctypes.data, array.shape,
                       [s // array.itemsize for s in array.strides])


def _descriptor(ptr, shape, strides=None):
    rank = len(shape)
    if strides is None:
        strides = _contiguous_strides(shape, 1)
    desc = _descriptor_type(rank)()
    desc.allocated = ptr
    desc.aligned = ptr
    desc.offset = 0
    for d in range(rank):
        desc.sizes[d] = shape[d]
        desc.strides[d] = strides[d]
    return desc


def _contiguous_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return strides[::-1]


def _check_array_spec(name, i, dtype, shape, spec):
    """dtype and shape of a field argument against its lowered memref type."""
    if dtype != numpy_dtype(spec.dtype):
        raise TypeError(f"argument {i} of @{name}: dtype {dtype}, "
                        f"expected {numpy_dtype(spec.dtype)}")
    if len(shape) != len(spec.shape) or any(
            s is not None and s != a for s, a in zip(spec.shape, shape)):
        raise ValueError(f"argument {i} of @{name}: shape {tuple(shape)}, "
                         f"expected {spec.shape}")


def _check_numpy_arg(name, i, arg, spec):
    if not isinstance(arg, np.ndarray):
        raise TypeError(f"argument {i} of @{name} must be a numpy array")
    _check_array_spec(name, i, arg.dtype, arg.shape, spec)
    if not arg.flags["C_CONTIGUOUS"] or not arg.flags["WRITEABLE"]:
        raise ValueError(f"argument {i} of @{name} must be a writeable "
                         "C-contiguous array")


# --------------------------------------------------------------------------
# The emulation's race check and profile (libStencilEmulation.so)


class RaceError(RuntimeError):
    """The race check of the GPU emulation found two threads of a block
    touching one element between two barriers, one of them writing: the
    message is the runtime's report (kernel, element, the two accesses)."""


class _OnePerPath:
    """A ctypes wrapper of a shared library, loaded once per path and class."""

    @classmethod
    def load(cls, path):
        path = str(path)
        instances = cls.__dict__.get("_instances")
        if instances is None:
            instances = {}
            cls._instances = instances
        if path not in instances:
            instances[path] = cls(path)
        return instances[path]


class EmulationRuntime(_OnePerPath):
    """libStencilEmulation.so through ctypes
    (Stencil/Runtime/EmulationRuntime.h). One per process and path: its
    counters are those of every library that links it."""


    def __init__(self, path):
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise CompileError(f"cannot load the emulation runtime {path}: {e}") from None
        self.path, self.lib = path, lib
        for fn, res, args in [("stencilEmuReset", None, []),
                              ("stencilEmuProfileJson", ctypes.c_char_p, []),
                              ("stencilEmuSetRaceAbort", None, [ctypes.c_int]),
                              ("stencilEmuRaceCount", ctypes.c_int64, []),
                              ("stencilEmuRaceReport", ctypes.c_char_p, [])]:
            f = getattr(lib, fn)
            f.restype, f.argtypes = res, args
        # Races raise RaceError in Python instead of aborting the process.
        lib.stencilEmuSetRaceAbort(0)

    def reset(self):
        self.lib.stencilEmuReset()

    def profile(self):
        """The counters since the last reset: {"kernels": [...], "total":
        {...}, "locations": {kernel: location}} (stencil.profile.KEYS)."""
        import json
        return json.loads(self.lib.stencilEmuProfileJson().decode())

    def check_races(self, context):
        """Raise RaceError with the first race's report (and forget the
        races) if the runtime saw any."""
        count = self.lib.stencilEmuRaceCount()
        if count:
            report = self.lib.stencilEmuRaceReport().decode(errors="replace")
            self.reset()
            raise RaceError(f"{context}: {count} race(s) between the threads of a block; "
                            f"the first:\n{report.rstrip()}")


# --------------------------------------------------------------------------
# CUDA


class CudaError(RuntimeError):
    """A CUDA failure: the message names the failing call and the CUDA
    error (as libStencilCudaRuntime reported it), or says why there is no
    usable driver."""


class CudaArray:
    """A checked ``__cuda_array_interface__`` argument (cuda_array_arg)."""

    def __init__(self, ptr, shape, dtype, stream):
        self.ptr, self.shape, self.dtype, self.stream = ptr, tuple(shape), dtype, stream


def cuda_array_arg(obj, spec, index=0, name="?"):
    """Validate an object with ``__cuda_array_interface__`` (versions 0-3)
    against the memref argument `spec` of @name: element type, shape
    (static extents must match), C-contiguous strides, writeable, no mask.
    Returns a CudaArray; raises TypeError/ValueError saying what is wrong."""
    where = f"argument {index} of @{name}"
    try:
        iface = obj.__cuda_array_interface__
    except AttributeError:
        raise TypeError(f"{where} has no __cuda_array_interface__") from None
    if not isinstance(iface, dict):
        raise TypeError(f"{where}: __cuda_array_interface__ is not a dict")
    missing = [k for k in ("shape", "typestr", "data") if k not in iface]
    if missing:
        raise ValueError(f"{where}: __cuda_array_interface__ lacks {', '.join(missing)}")
    shape = tuple(int(e) for e in iface["shape"])
    try:
        dtype = np.dtype(iface["typestr"])
    except TypeError:
        raise TypeError(f"{where}: unknown typestr {iface['typestr']!r}") from None
    if dtype.byteorder == ">" or (dtype.byteorder == "|" and dtype.itemsize > 1):
        raise TypeError(f"{where}: typestr {iface['typestr']!r} is not native byte order")
    _check_array_spec(name, index, dtype, shape, spec)
    if iface.get("mask") is not None:
        raise ValueError(f"{where}: masked arrays are not supported")
    data = iface["data"]
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise ValueError(f"{where}: __cuda_array_interface__ 'data' must be (pointer, read_only)")
    ptr, readonly = int(data[0] or 0), bool(data[1])
    size = int(np.prod(shape)) if shape else 1
    if readonly:
        raise ValueError(f"{where} is read-only: the fields are updated in place")
    if ptr == 0 and size:
        raise ValueError(f"{where}: null device pointer")
    strides = iface.get("strides")
    if strides is not None:
        want = _contiguous_strides(shape, dtype.itemsize)
        if size and any(int(s) != w for s, w, e in zip(strides, want, shape) if e > 1):
            raise ValueError(f"{where}: strides {tuple(strides)} (bytes) are not those of a "
                             f"C-contiguous array {tuple(want)}: pass a contiguous copy")
    stream = iface.get("stream") if int(iface.get("version", 0)) >= 3 else None
    if stream is not None and int(stream) == 0:
        raise ValueError(f"{where}: 'stream' 0 is not allowed by __cuda_array_interface__ "
                         "(1: legacy default stream, 2: per-thread default stream)")
    return CudaArray(ptr, shape, dtype, None if stream is None else int(stream))


class CudaRuntime(_OnePerPath):
    """libStencilCudaRuntime.so through ctypes: device memory, copies and
    the error state (Stencil/Runtime/CudaRuntime.h). One per library path."""


    def __init__(self, path):
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise CudaError(f"no CUDA driver on this machine: cannot load libcuda.so.1 ({e}); "
                            "a library compiled with target='cuda' runs where the NVIDIA "
                            "driver is installed (emulate_gpu=True runs its kernels on the "
                            "CPU)") from None
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise CudaError(f"cannot load the CUDA runtime {path}: {e}") from None
        self.path, self.lib = path, lib
        c_int, c_size, c_void_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p
        for fn, res, args in [
                ("stencilCudaInit", c_int, []),
                ("stencilCudaGetDevice", c_int, []),
                ("stencilCudaGetDeviceInfo", c_int,
                 [ctypes.POINTER(c_int), ctypes.POINTER(c_int), ctypes.c_char_p, c_size]),
                ("stencilCudaGetLastError", c_int, []),
                ("stencilCudaGetLastErrorMessage", ctypes.c_char_p, []),
                ("stencilCudaGetErrorCount", c_int, []),
                ("stencilCudaClearLastError", None, []),
                ("stencilCudaSetVerbose", None, [c_int]),
                ("stencilCudaErrorName", ctypes.c_char_p, [c_int]),
                ("stencilCudaMalloc", c_void_p, [c_size]),
                ("stencilCudaFree", c_int, [c_void_p]),
                ("stencilCudaMemcpyHtoD", c_int, [c_void_p, c_void_p, c_size]),
                ("stencilCudaMemcpyDtoH", c_int, [c_void_p, c_void_p, c_size]),
                ("stencilCudaMemset", c_int, [c_void_p, ctypes.c_ubyte, c_size]),
                ("stencilCudaPointerDevice", c_int, [c_void_p]),
                ("stencilCudaSynchronize", c_int, []),
                ("stencilCudaSynchronizeStream", c_int, [ctypes.c_size_t])]:
            f = getattr(lib, fn)
            f.restype, f.argtypes = res, args

    def error(self):
        """The pending error's message (and clears it), or None."""
        if not self.lib.stencilCudaGetLastError():
            return None
        message = self.lib.stencilCudaGetLastErrorMessage().decode(errors="replace")
        self.lib.stencilCudaClearLastError()
        return message

    def check(self, context):
        """Raise CudaError if the runtime recorded an error."""
        message = self.error()
        if message:
            raise CudaError(f"{context}: {message}")

    def init(self):
        """Initialize the driver and the device (raises CudaError, again
        with the same message on later calls: a failure is final)."""
        result = self.lib.stencilCudaInit()
        if result:
            if not getattr(self, "_init_error", None):
                self._init_error = self.error() or (
                    "stencil-cuda: initialization failed: " +
                    self.lib.stencilCudaErrorName(result).decode())
            raise CudaError(f"CUDA is not usable: {self._init_error}")

    @property
    def device(self):
        return self.lib.stencilCudaGetDevice()

    def device_info(self):
        """(name, (major, minor)) of the device in use."""
        major, minor = ctypes.c_int(), ctypes.c_int()
        name = ctypes.create_string_buffer(256)
        self.lib.stencilCudaGetDeviceInfo(ctypes.byref(major), ctypes.byref(minor), name, 256)
        self.check("device query")
        return name.value.decode(errors="replace"), (major.value, minor.value)

    def malloc(self, nbytes):
        ptr = self.lib.stencilCudaMalloc(nbytes) if nbytes else None
        self.check(f"allocating {nbytes} bytes of device memory")
        return ptr

    def free(self, ptr):
        if ptr:
            self.lib.stencilCudaFree(ptr)

    def to_device(self, ptr, array):
        if array.nbytes:
            self.lib.stencilCudaMemcpyHtoD(ptr, array.ctypes.data, array.nbytes)
            self.check("copying to the device")

    def to_host(self, array, ptr):
        if array.nbytes:
            self.lib.stencilCudaMemcpyDtoH(array.ctypes.data, ptr, array.nbytes)
            self.check("copying from the device")

    def pointer_device(self, ptr):
        """Ordinal of the device owning `ptr`, -1 if it is no CUDA memory."""
        return self.lib.stencilCudaPointerDevice(ptr)

    def synchronize(self):
        self.lib.stencilCudaSynchronize()

    def synchronize_stream(self, stream):
        self.lib.stencilCudaSynchronizeStream(stream)


class StencilLibrary:
    """A loaded shared library built by compiler.compile_file.

    For target="cuda", loading initializes CUDA and loads the kernels: it
    raises CudaError when that fails (no driver, no device, kernels built
    for another GPU...)."""

    def __init__(self, compiled):
        if not hasattr(compiled, "library"):
            raise TypeError("StencilLibrary takes what compile_file returns (a "
                            f"CompiledModule), not {type(compiled).__name__}")
        self.compiled = compiled
        self.cuda = None
        self.emulation = None
        if getattr(compiled, "emulation_runtime", None):
            # Loaded first, with its symbols global: the library's calls bind
            # to this copy, whose counters Python reads.
            self.emulation = EmulationRuntime.load(compiled.emulation_runtime)
        if getattr(compiled, "target", "cpu") == "cuda":
            self.cuda = CudaRuntime.load(compiled.runtime)
            self.cuda.error()  # what an earlier library left
            self.cuda.init()
        try:
            self.lib = ctypes.CDLL(compiled.library)
        except OSError as e:
            hint = ""
            if "undefined symbol" in str(e):
                hint = ("\nthe program calls functions it does not define (for example "
                        "Devito's timer_start/timer_end): link C definitions of them with "
                        "--link FILE.c (compile_file(..., extra_sources=[...]))")
            raise CompileError(f"cannot load {compiled.library}: {e}{hint}") from None
        if self.cuda:
            # Its constructor loaded the kernels (mgpuModuleLoad).
            self.cuda.check(f"loading the kernels of {compiled.library}")

    def signature(self, name):
        try:
            return self.compiled.signatures[name]
        except KeyError:
            raise KeyError(f"no function @{name}; have "
                           f"{', '.join(self.compiled.signatures)}") from None

    def call(self, name, *args):
        """Call @name. Memref arguments take numpy arrays of exactly the
        lowered shape and element type (updated in place); scalars take
        Python numbers. For a CUDA library, memref arguments also take
        objects with __cuda_array_interface__ (used in place, no copy)."""
        sig = self.signature(name)
        if sig.returns:
            raise TypeError(f"@{name} returns values, which the Python runtime does not "
                            "support: call a function without results (its fields are "
                            "updated in place)")
        if len(args) != len(sig.args):
            raise TypeError(f"@{name} takes {len(sig.args)} arguments, got {len(args)}")
        if self.cuda:
            return self._call_cuda(name, sig, args)
        cargs, keep = [], []
        for i, (arg, spec) in enumerate(zip(args, sig.args)):
            if isinstance(spec, MemRefArg):
                _check_numpy_arg(name, i, arg, spec)
                desc = memref_descriptor(arg)
                keep.append(desc)
                cargs.append(ctypes.byref(desc))
            else:
                cargs.append(_scalar_arg(name, i, arg, spec))
        self._entry(name)(*cargs)
        if self.emulation and getattr(self.compiled, "race_check", False):
            self.emulation.check_races(f"@{name}")

    def profile(self):
        """The emulation's counters (a library compiled with profile=True)
        since the last reset_profile(): see stencil.profile."""
        if not self.emulation:
            raise CompileError("the library was not compiled with profile=True")
        return self.emulation.profile()

    def reset_profile(self):
        if self.emulation:
            self.emulation.reset()

    def _entry(self, name):
        fn = getattr(self.lib, f"_mlir_ciface_{name}")
        fn.restype = None
        return fn

    def _call_cuda(self, name, sig, args):
        rt = self.cuda
        rt.error()  # errors of earlier calls are not this call's
        cargs, keep, copies, owned = [], [], [], []
        try:
            for i, (arg, spec) in enumerate(zip(args, sig.args)):
                if not isinstance(spec, MemRefArg):
                    cargs.append(_scalar_arg(name, i, arg, spec))
                    continue
                if hasattr(arg, "__cuda_array_interface__"):
                    arr = cuda_array_arg(arg, spec, i, name)
                    if arr.ptr:
                        owner = rt.pointer_device(arr.ptr)
                        if owner < 0:
                            raise ValueError(f"argument {i} of @{name}: {arr.ptr:#x} is not "
                                             "CUDA memory (pass host data as a numpy array)")
                        if owner != rt.device:
                            raise ValueError(f"argument {i} of @{name} is on CUDA device "
                                             f"{owner}, the runtime uses device {rt.device} "
                                             f"(set STENCIL_CUDA_DEVICE={owner})")
                    if arr.stream is not None:
                        rt.synchronize_stream(arr.stream)
                        rt.check(f"waiting for the stream of argument {i} of @{name}")
                    ptr = arr.ptr
                elif isinstance(arg, np.ndarray):
                    _check_numpy_arg(name, i, arg, spec)
                    ptr = rt.malloc(arg.nbytes)
                    owned.append(ptr)
                    rt.to_device(ptr, arg)
                    copies.append((arg, ptr))
                else:
                    raise TypeError(f"argument {i} of @{name} must be a numpy array or an "
                                    "object with __cuda_array_interface__ (CuPy, Numba, "
                                    "PyTorch...)")
                desc = _descriptor(ptr or 0, tuple(arg.shape) if isinstance(arg, np.ndarray)
                                   else arr.shape)
                keep.append(desc)
                cargs.append(ctypes.byref(desc))
            self._entry(name)(*cargs)
            rt.synchronize()
            rt.check(f"@{name}")
            for array, ptr in copies:
                rt.to_host(array, ptr)
        finally:
            for ptr in owned:
                rt.free(ptr)
        rt.check(f"@{name}")


def _scalar_arg(name, i, arg, spec):
    if spec.dtype == "!llvm.ptr" and isinstance(arg, np.ndarray):
        return ctypes.c_void_p(arg.ctypes.data)
    if spec.dtype == "!llvm.ptr" and isinstance(arg, ctypes.c_void_p):
        return arg
    if spec.dtype in _CTYPES_SCALARS:
        integer = re.fullmatch(r"i(\d+)|index", spec.dtype)
        if integer and spec.dtype != "i1" and isinstance(arg, (int, np.integer)):
            bits = int(integer.group(1) or 64)
            if not -(1 << (bits - 1)) <= int(arg) < (1 << (bits - 1)):
                raise ValueError(f"argument {i} of @{name}: {arg} does not fit "
                                 f"in {spec.dtype}")
        return _CTYPES_SCALARS[spec.dtype](arg)
    raise TypeError(f"argument {i} of @{name}: unsupported type {spec.dtype}")
