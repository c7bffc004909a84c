// Malformed stencil types and attributes.
// RUN: stencil-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{stencil types are either fully dynamic or fully bounded: dimension 1 is bounded but dimension 0 is `?`}}
func.func private @mixed_dyn_first(!stencil.field<?x[0,4]xf64>)

// -----

// expected-error @+1 {{stencil types are either fully dynamic or fully bounded: dimension 2 is `?` but dimension 0 is bounded}}
func.func private @mixed_bounded_first(!stencil.temp<[0,4]x[0,4]x?xf64>)

// -----

// expected-error @+1 {{a bound must be greater than -9223372036854775808}}
func.func private @int64_min_bound(!stencil.field<[-9223372036854775808,4]xf64>)

// -----

// expected-error @+1 {{a bound must be greater than -9223372036854775808}}
func.func private @int64_min_upper_bound(!stencil.temp<[0,4]x[-9223372036854775808,-9223372036854775808]xf64>)

// -----

// expected-error @+1 {{upper bound 3 is below lower bound 5 in dimension 1}}
func.func private @bad_type_bounds(!stencil.field<[0,4]x[5,3]xf64>)

// -----

// Every point of a field is indexed by a signed 64-bit index.
// expected-error @+1 {{the extent 9223372036854775807 - (-1) of dimension 0 does not fit in 64 bits}}
func.func private @extent_overflow(!stencil.field<[-1,9223372036854775807]xf64>)

// -----

// expected-error @+1 {{the box of bounds [0, 0, 0] to [4294967296, 4294967296, 4] has more than 2^63 points}}
func.func private @points_overflow(!stencil.temp<[0,4294967296]x[0,4294967296]x[0,4]xf32>)

// -----

// expected-error @+1 {{the extent 9223372036854775807 - (-2) of dimension 1 does not fit in 64 bits}}
func.func private @bounds_extent_overflow() attributes {b = #stencil.bounds<[0, -2], [4, 9223372036854775807]>}

// -----

// expected-error @+1 {{expected rank 1 to 3, got 4}}
func.func private @rank4(!stencil.field<[0,1]x[0,1]x[0,1]x[0,1]xf64>)

// -----

// expected-error @+1 {{expected rank 1 to 3, got 4}}
func.func private @rank4_dyn(!stencil.temp<?x?x?x?xf32>)

// -----

// A type without dimensions (rank 0).
// expected-error @+1 {{expected a dimension `?` or `[lb,ub]`}}
func.func private @rank0(!stencil.field<f64>)

// -----

// Open Earth Compiler's extent-only shapes are not the xDSL form.
// expected-error @+1 {{not as an extent like `64`}}
func.func private @extent_shape(!stencil.field<64x64xf64>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @missing_comma(!stencil.field<[0 4]xf64>)

// -----

// expected-error @+1 {{element type must be an integer, index or float type, got 'tensor<4xf64>'}}
func.func private @tensor_element(!stencil.temp<[0,4]xtensor<4xf64>>)

// -----

// expected-error @+1 {{element type must be an integer, index or float type, got 'memref<2xf32>'}}
func.func private @memref_element(!stencil.field<?xmemref<2xf32>>)

// -----

// expected-error @+1 {{element type must be an integer, index or float type, got '!stencil.temp<?xf64>'}}
func.func private @nested_element(!stencil.field<?x!stencil.temp<?xf64>>)

// -----

// expected-error @+1 {{!stencil.result element type must be an integer, index or float type, got 'vector<4xf32>'}}
func.func private @result_vector(!stencil.result<vector<4xf32>>)

// -----

// expected-error @+1 {{expected 1 to 3 indices, got 0}}
func.func private @index_empty() attributes {i = #stencil.index<[]>}

// -----

// expected-error @+1 {{expected 1 to 3 indices, got 4}}
func.func private @index_rank4() attributes {i = #stencil.index<[1, 2, 3, 4]>}

// -----

// expected-error @+1 {{bounds have 1 lower and 2 upper values}}
func.func private @bounds_sizes() attributes {b = #stencil.bounds<[0], [4, 4]>}

// -----

// expected-error @+1 {{expected bounds of rank 1 to 3, got 0}}
func.func private @bounds_rank0() attributes {b = #stencil.bounds<[], []>}

// -----

// expected-error @+1 {{expected bounds of rank 1 to 3, got 4}}
func.func private @bounds_rank4() attributes {b = #stencil.bounds<[0, 0, 0, 0], [1, 1, 1, 1]>}

// -----

// expected-error @+1 {{upper bound -1 is below lower bound 0 in dimension 0}}
func.func private @bounds_inverted() attributes {b = #stencil.bounds<[0, 0], [-1, 4]>}
