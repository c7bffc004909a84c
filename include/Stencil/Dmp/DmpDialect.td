//===- DmpDialect.td - distributed-memory parallelism ------*- tablegen -*-===//
//
// The `dmp` dialect: a stencil program decomposed over the ranks of a
// process grid, and the halo exchanges between neighbouring ranks. The
// textual form of its attributes and of `dmp.swap` is xDSL's.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_DMP_DMPDIALECT_TD
#define STENCIL_DMP_DMPDIALECT_TD

include "mlir/IR/OpBase.td"

def Dmp_Dialect : Dialect {
  let name = "dmp";
  let cppNamespace = "::mlir::dmp";
  let summary = "Domain decomposition and halo exchange over MPI ranks";
  let description = [{
    `--stencil-distribute` turns a program over global fields into the
    program one rank runs on its block of the grid, with `dmp.swap` before
    the loads that read what a neighbour computed. `--convert-stencil-to-loops`
    lowers each swap to packing, non-blocking sends and receives through the
    project's MPI runtime, and unpacking.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Dmp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dmp_Dialect, mnemonic, traits>;

#endif // STENCIL_DMP_DMPDIALECT_TD
