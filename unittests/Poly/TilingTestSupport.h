//===- TilingTestSupport.h - small programs for the tiling tests -*- C++
//-*-===//
//
// Stencil programs in canonical form (K statements per step, constant
// dependence distances) and enumeration helpers, shared by the tests of
// hybrid hexagonal and split tiling.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_UNITTESTS_POLY_TILINGTESTSUPPORT_H
#define STENCIL_UNITTESTS_POLY_TILINGTESTSUPPORT_H

#include "Stencil/Poly/HybridTiling.h"

#include <isl/cpp.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tiling_test {

using namespace mlir::stencil::poly;

using Vec = std::vector<int64_t>;
/// A statement instance: the statement's name and its coordinates.
using Instance = std::pair<std::string, Vec>;

/// A dependence S_from[t, s] -> S_to[t + dt, s + ds] (t in time steps).
struct Dep {
  unsigned from, to;
  int64_t dt;
  Vec ds;
};

/// A stencil program in canonical form: K statements per time step over
/// 0 <= t < N and 1 <= s_i <= extents[i].
struct Program {
  unsigned n = 0, K = 1;
  isl::union_set domain;
  isl::union_map canonical, deps;
};

inline std::string tuple(const std::string &name, unsigned n) {
  std::string s = name + "[t";
  for (unsigned i = 0; i < n; ++i)
    s += ", s" + std::to_string(i);
  return s + "]";
}

inline std::string str(const isl::union_map &m) {
  char *c = isl_union_map_to_str(m.get());
  std::string s = c;
  free(c);
  return s;
}

inline int64_t coordinate(const isl::point &p, isl_dim_type type,
                          unsigned pos) {
  isl_val *v = isl_point_get_coordinate_val(p.get(), type, pos);
  int64_t r = isl_val_get_num_si(v);
  isl_val_free(v);
  return r;
}

/// All pairs (instance, image vector) of a bounded union_map.
inline std::vector<std::pair<Instance, Vec>>
enumerate(const isl::union_map &umap) {
  std::vector<std::pair<Instance, Vec>> result;
  umap.foreach_map([&](isl::map map) {
    unsigned nIn = isl_map_dim(map.get(), isl_dim_in);
    unsigned nOut = isl_map_dim(map.get(), isl_dim_out);
    const char *name = isl_map_get_tuple_name(map.get(), isl_dim_in);
    map.wrap().foreach_point([&](isl::point p) {
      Vec in, out;
      for (unsigned i = 0; i < nIn; ++i)
        in.push_back(coordinate(p, isl_dim_set, i));
      for (unsigned i = 0; i < nOut; ++i)
        out.push_back(coordinate(p, isl_dim_set, nIn + i));
      result.push_back({{name ? name : "", in}, out});
    });
  });
  return result;
}

/// All points of a bounded set, flattened (a wrapped [[T] -> [S]] gives
/// [T, S...]).
inline std::set<Vec> enumerate(const isl::set &set) {
  std::set<Vec> result;
  unsigned n = isl_set_dim(set.get(), isl_dim_set);
  set.foreach_point([&](isl::point p) {
    Vec v;
    for (unsigned i = 0; i < n; ++i)
      v.push_back(coordinate(p, isl_dim_set, i));
    result.insert(v);
  });
  return result;
}

/// Builds small stencil programs in canonical form in its own isl context.
class TilingTest : public ::testing::Test {
protected:
  void TearDown() override { isl_ctx_free(rawCtx); }

  isl::union_set fixN(isl::union_set s, int64_t N) {
    return s.intersect_params(
        isl::set(ctx, "[N] -> { : N = " + std::to_string(N) + " }"));
  }
  isl::union_map fixN(isl::union_map m, int64_t N) {
    return m.intersect_params(
        isl::set(ctx, "[N] -> { : N = " + std::to_string(N) + " }"));
  }

  Program makeProgram(unsigned K, const Vec &extents,
                      const std::vector<Dep> &deps) {
    Program prog;
    prog.n = extents.size();
    prog.K = K;
    std::string dom, canon;
    for (unsigned k = 0; k < K; ++k) {
      std::string name = "S" + std::to_string(k);
      dom += tuple(name, prog.n) + " : 0 <= t < N";
      canon += tuple(name, prog.n) + " -> [" + std::to_string(K) + "t + " +
               std::to_string(k);
      for (unsigned i = 0; i < prog.n; ++i) {
        dom += " and 1 <= s" + std::to_string(i) +
               " <= " + std::to_string(extents[i]);
        canon += ", s" + std::to_string(i);
      }
      dom += "; ";
      canon += "]; ";
    }
    prog.domain = isl::union_set(ctx, "[N] -> { " + dom + "}");
    prog.canonical = isl::union_map(ctx, "{ " + canon + "}");
    std::string dep;
    for (const Dep &d : deps) {
      dep += tuple("S" + std::to_string(d.from), prog.n) + " -> S" +
             std::to_string(d.to) + "[t + " + std::to_string(d.dt);
      for (unsigned i = 0; i < prog.n; ++i)
        dep += ", s" + std::to_string(i) + " + " + std::to_string(d.ds[i]);
      dep += "]; ";
    }
    prog.deps = isl::union_map(ctx, "{ " + dep + "}")
                    .intersect_domain(prog.domain)
                    .intersect_range(prog.domain);
    return prog;
  }

  DependenceCone cone(const Program &prog) {
    std::string error;
    std::optional<DependenceCone> c =
        computeDependenceCone(prog.deps, prog.canonical, prog.n, error);
    EXPECT_TRUE(c.has_value()) << error;
    return c.value_or(DependenceCone{});
  }

  isl_ctx *rawCtx = isl_ctx_alloc();
  isl::ctx ctx{rawCtx};
};

/// The 3^n-point Jacobi stencil: every neighbour at distance <= 1.
inline std::vector<Dep> jacobi(unsigned n) {
  std::vector<Dep> deps;
  unsigned count = 1;
  for (unsigned i = 0; i < n; ++i)
    count *= 3;
  for (unsigned c = 0; c < count; ++c) {
    Vec ds;
    for (unsigned i = 0, r = c; i < n; ++i, r /= 3)
      ds.push_back(int64_t(r % 3) - 1);
    deps.push_back({0, 0, 1, ds});
  }
  return deps;
}

} // namespace tiling_test

#endif // STENCIL_UNITTESTS_POLY_TILINGTESTSUPPORT_H
