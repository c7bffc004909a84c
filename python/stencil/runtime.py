"""Call compiled stencil functions on numpy arrays.

The lowered ABI (docs/dialect.md): every field argument is a memref of the
field's full extent whose element 0 is the field's lower bound. Through the C
entry point ``_mlir_ciface_<name>`` each memref is passed as a pointer to a
descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}.
"""

import ctypes

import numpy as np

from .compiler import CompileError, MemRefArg

_NUMPY_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "index": np.int64,
}
_CTYPES_SCALARS = {
    "f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "index": ctypes.c_int64, "i1": ctypes.c_bool,
    "!llvm.ptr": ctypes.c_void_p,
}


def numpy_dtype(mlir_type):
    try:
        return np.dtype(_NUMPY_DTYPES[mlir_type])
    except KeyError:
        raise TypeError(f"no numpy type for element type {mlir_type}") from None


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
    rank = array.ndim
    desc = _descriptor_type(rank)()
    ptr = array.ctypes.data
    desc.allocated = ptr
    desc.aligned = ptr
    desc.offset = 0
    for d in range(rank):
        desc.sizes[d] = array.shape[d]
        desc.strides[d] = array.strides[d] // array.itemsize
    return desc


class StencilLibrary:
    """A loaded shared library built by compiler.compile_file."""

    def __init__(self, compiled):
        self.compiled = compiled
        try:
            self.lib = ctypes.CDLL(compiled.library)
        except OSError as e:
            hint = ""
            if "undefined symbol" in str(e):
                hint = ("\nthe program calls functions it does not define (for example "
                        "Devito's timer_start/timer_end): link C definitions of them with "
                        "--link FILE.c (compile_file(..., extra_sources=[...]))")
            raise CompileError(f"cannot load {compiled.library}: {e}{hint}") from None

    def signature(self, name):
        try:
            return self.compiled.signatures[name]
        except KeyError:
            raise KeyError(f"no function @{name}; have "
                           f"{', '.join(self.compiled.signatures)}") from None

    def call(self, name, *args):
        """Call @name. Memref arguments take numpy arrays of exactly the
        lowered shape and element type (updated in place); scalars take
        Python numbers."""
        sig = self.signature(name)
        if sig.returns:
            raise TypeError(f"@{name} returns values, which the Python runtime does not "
                            "support: call a function without results (its fields are "
                            "updated in place)")
        if len(args) != len(sig.args):
            raise TypeError(f"@{name} takes {len(sig.args)} arguments, got {len(args)}")
        cargs, keep = [], []
        for i, (arg, spec) in enumerate(zip(args, sig.args)):
            if isinstance(spec, MemRefArg):
                if not isinstance(arg, np.ndarray):
                    raise TypeError(f"argument {i} of @{name} must be a numpy array")
                if arg.dtype != numpy_dtype(spec.dtype):
                    raise TypeError(f"argument {i} of @{name}: dtype {arg.dtype}, "
                                    f"expected {numpy_dtype(spec.dtype)}")
                if len(arg.shape) != len(spec.shape) or any(
                        s is not None and s != a for s, a in zip(spec.shape, arg.shape)):
                    raise ValueError(f"argument {i} of @{name}: shape {arg.shape}, "
                                     f"expected {spec.shape}")
                if not arg.flags["C_CONTIGUOUS"] or not arg.flags["WRITEABLE"]:
                    raise ValueError(f"argument {i} of @{name} must be a writeable "
                                     "C-contiguous array")
                desc = memref_descriptor(arg)
                keep.append(desc)
                cargs.append(ctypes.byref(desc))
            elif spec.dtype == "!llvm.ptr" and isinstance(arg, np.ndarray):
                cargs.append(ctypes.c_void_p(arg.ctypes.data))
            elif spec.dtype in _CTYPES_SCALARS:
                cargs.append(_CTYPES_SCALARS[spec.dtype](arg))
            else:
                raise TypeError(f"argument {i} of @{name}: unsupported type {spec.dtype}")
        fn = getattr(self.lib, f"_mlir_ciface_{name}")
        fn.restype = None
        fn(*cargs)
