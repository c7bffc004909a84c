"""Compiles a program distributed over a grid and pickles the result:
compile_pickled.py FILE GRID OUT.pickle"""
import pickle
import sys

from stencil import compiler

with open(sys.argv[3], "wb") as f:
    pickle.dump(compiler.compile_file(sys.argv[1], distribute=sys.argv[2]), f)
