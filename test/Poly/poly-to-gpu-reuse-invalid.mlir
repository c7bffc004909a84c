// RUN: stencil-opt %s --poly-to-gpu="inter-tile-reuse=always" -verify-diagnostics

// inter-tile-reuse takes true, false or auto (the default: reuse with one
// statement per step); anything else is an error at the module.
// expected-error @below {{poly-to-gpu: inter-tile-reuse must be true, false or auto, got 'always'}}
module {
}
