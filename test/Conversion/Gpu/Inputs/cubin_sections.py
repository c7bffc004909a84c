"""Prints each cubin of an MLIR module's gpu.binary objects as its ELF
sections (name, size, SHA-1 of the contents), leaving out ptxas's note of
the tool and its command line (`.note.nv.tkinfo`), which records `-v`."""
import hashlib
import re
import struct
import sys

text = open(sys.argv[1]).read()
# MLIR escapes a byte as \XX and a backslash as \\.
blobs = [re.sub(r"\\(\\|[0-9A-Fa-f]{2})",
                lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)), b)
         .encode("latin-1")
         for b in re.findall(r'bin = "((?:[^"\\]|\\.)*)"', text)]
assert blobs, "no cubin in the module"
for elf in blobs:
    assert elf[:4] == b"\x7fELF" and elf[4] == 2, "not a 64-bit ELF"
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    for name_at, kind, _, _, offset, size, *_ in headers:
        name = elf[names + name_at:elf.index(b"\0", names + name_at)].decode()
        if name == ".note.nv.tkinfo":
            continue
        data = elf[offset:offset + size] if kind != 8 else b""  # NOBITS: no contents
        print(name, size, hashlib.sha1(data).hexdigest())
    print("--")
