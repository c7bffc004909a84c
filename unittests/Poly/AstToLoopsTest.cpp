//===- AstToLoopsTest.cpp - isl AST to scf loops, executed ----------------===//
//
// Each test generates loops for a schedule tree, lowers them to LLVM, runs
// them through the MLIR execution engine and compares what the statement
// instances did against an enumeration of the domain by isl.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/AstToLoops.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <isl/cpp.h>
#include <isl/point.h>
#include <isl/set.h>

#include <gtest/gtest.h>

#include <functional>

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

// Coordinates (instance and subscripts) must lie in [-kOffset, kExtent -
// kOffset); each statement owns kSlots entries of the buffers, up to 3-d.
constexpr int64_t kExtent = 32;
constexpr int64_t kOffset = 8;
constexpr int64_t kSlots = kExtent * kExtent * kExtent;

/// Host-side linear slot of `coords` in the area of statement `stmt`.
int64_t linear(int stmt, ArrayRef<int64_t> coords) {
  int64_t result = stmt * kSlots, stride = 1;
  for (int64_t c : coords) {
    EXPECT_GE(c, -kOffset);
    EXPECT_LT(c, kExtent - kOffset);
    result += (c + kOffset) * stride;
    stride *= kExtent;
  }
  return result;
}

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The same slot computed in the generated code.
Value linearize(OpBuilder &b, Location loc, int stmt, ValueRange coords) {
  Value result = constant(b, loc, stmt * kSlots);
  int64_t stride = 1;
  for (Value c : coords) {
    Value shifted = arith::AddIOp::create(b, loc, c, constant(b, loc, kOffset));
    Value scaled =
        arith::MulIOp::create(b, loc, shifted, constant(b, loc, stride));
    result = arith::AddIOp::create(b, loc, result, scaled);
    stride *= kExtent;
  }
  return result;
}

void increment(OpBuilder &b, Location loc, Value memref, Value index) {
  Value old = memref::LoadOp::create(b, loc, memref, ValueRange{index});
  Value one = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1);
  Value sum = arith::AddIOp::create(b, loc, old, one);
  memref::StoreOp::create(b, loc, sum, memref, ValueRange{index});
}

void storeIndex(OpBuilder &b, Location loc, Value value, Value memref,
                Value index) {
  Value cast = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
  memref::StoreOp::create(b, loc, cast, memref, ValueRange{index});
}

std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

/// Emits one statement instance given the kernel's buffers.
using KernelEmitter = std::function<LogicalResult(
    OpBuilder &b, Location loc, StringRef statement, ValueRange iterators,
    ArrayRef<SmallVector<Value>> subscripts, Value count, Value out)>;

class AstToLoopsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  }

  AstToLoopsTest() : islCtx(isl_ctx_alloc()) {
    DialectRegistry registry;
    registry
        .insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                LLVM::LLVMDialect, memref::MemRefDialect, scf::SCFDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  ~AstToLoopsTest() override { isl_ctx_free(islCtx); }

  isl::ctx ctx() { return isl::ctx(islCtx); }
  isl::schedule schedule(const std::string &yaml) {
    return isl::schedule(ctx(), yaml);
  }
  isl::pw_multi_aff access(const std::string &str) {
    return isl::pw_multi_aff(ctx(), str);
  }

  /// Builds `func @kernel(%count, %out: memref<?xi64>, %N: index)` whose
  /// body is generated from `sched`. Returns null and sets `error` when
  /// generateLoops fails.
  OwningOpRef<ModuleOp> build(isl::schedule sched,
                              ArrayRef<StatementAccesses> statements,
                              const KernelEmitter &emitter,
                              std::string &error) {
    Location loc = UnknownLoc::get(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    OpBuilder b(&context);
    b.setInsertionPointToEnd(module->getBody());
    auto buffer = MemRefType::get({ShapedType::kDynamic}, b.getI64Type());
    auto func = func::FuncOp::create(
        b, loc, "kernel",
        b.getFunctionType({buffer, buffer, b.getIndexType()}, {}));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value count = entry->getArgument(0), out = entry->getArgument(1);
    llvm::StringMap<Value> params;
    params["N"] = entry->getArgument(2);
    auto emit = [&](OpBuilder &eb, Location eloc, StringRef statement,
                    ValueRange iterators,
                    ArrayRef<SmallVector<Value>> subscripts) {
      return emitter(eb, eloc, statement, iterators, subscripts, count, out);
    };
    LogicalResult result =
        generateLoops(b, loc, sched, statements, params, emit, error);
    func::ReturnOp::create(b, loc);
    if (failed(result)) {
      // Nothing generated is left behind.
      EXPECT_EQ(entry->getOperations().size(), 1u) << print(*module);
      return nullptr;
    }
    EXPECT_TRUE(succeeded(verify(*module)));
    return module;
  }

  /// Lowers `module` to LLVM and runs the kernel on the buffers.
  bool run(ModuleOp module, std::vector<int64_t> &count,
           std::vector<int64_t> &out, int64_t n) {
    PassManager pm(&context);
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(arith::createArithExpandOpsPass());
    pm.addPass(createArithToLLVMConversionPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
    pm.addPass(createConvertFuncToLLVMPass());
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(module))) {
      ADD_FAILURE() << "lowering to LLVM failed";
      return false;
    }
    auto engine = ExecutionEngine::create(module);
    if (!engine) {
      ADD_FAILURE() << "JIT: " << llvm::toString(engine.takeError());
      return false;
    }
    StridedMemRefType<int64_t, 1> countDesc{
        count.data(), count.data(), 0, {int64_t(count.size())}, {1}};
    StridedMemRefType<int64_t, 1> outDesc{
        out.data(), out.data(), 0, {int64_t(out.size())}, {1}};
    auto *countPtr = &countDesc;
    auto *outPtr = &outDesc;
    if (llvm::Error err = (*engine)->invoke("kernel", countPtr, outPtr, n)) {
      ADD_FAILURE() << "invoke: " << llvm::toString(std::move(err));
      return false;
    }
    return true;
  }

  /// Generates the counting kernel, runs it for each N in `ns` and checks
  /// it against the domain; returns the IR before lowering.
  std::string checkCounting(isl::schedule sched,
                            ArrayRef<StatementAccesses> statements,
                            ArrayRef<int64_t> ns = {0});

  isl_ctx *islCtx;
  MLIRContext context;
};

int occurrences(StringRef text, StringRef what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != StringRef::npos;
       pos = text.find(what, pos + 1))
    ++n;
  return n;
}

int statementIndex(ArrayRef<StatementAccesses> statements, StringRef name) {
  for (auto [i, s] : llvm::enumerate(statements))
    if (s.name == name)
      return i;
  return -1;
}

/// Counts each instance in `count` and writes `1 + slot(instance)` at the
/// slot of the first access's subscripts in `out`.
KernelEmitter countingEmitter(ArrayRef<StatementAccesses> statements) {
  return [statements](OpBuilder &b, Location loc, StringRef statement,
                      ValueRange iterators,
                      ArrayRef<SmallVector<Value>> subscripts, Value count,
                      Value out) -> LogicalResult {
    int s = statementIndex(statements, statement);
    if (s < 0 || subscripts.size() != statements[s].accesses.size())
      return failure();
    Value slot = linearize(b, loc, s, iterators);
    increment(b, loc, count, slot);
    if (!subscripts.empty()) {
      Value code = arith::AddIOp::create(b, loc, slot, constant(b, loc, 1));
      storeIndex(b, loc, code, out, linearize(b, loc, s, subscripts[0]));
    }
    return success();
  };
}

struct Instance {
  std::string name;
  SmallVector<int64_t> coords;
};

/// Fixes parameter N (if present) to `n` and drops it.
isl::set fixN(isl::set set, int64_t n) {
  if (isl_set_find_dim_by_name(set.get(), isl_dim_param, "N") < 0)
    return set;
  isl::set fixed(set.ctx(), "[N] -> { : N = " + std::to_string(n) + " }");
  return set.intersect_params(fixed).project_out_all_params();
}

SmallVector<Instance> enumerate(isl::set set) {
  SmallVector<Instance> result;
  set.foreach_point([&](isl::point p) {
    Instance inst;
    isl_space *space = isl_point_get_space(p.get());
    inst.name = isl_space_get_tuple_name(space, isl_dim_set);
    isl_size n = isl_space_dim(space, isl_dim_set);
    isl_space_free(space);
    for (isl_size k = 0; k < n; ++k) {
      isl_val *v = isl_point_get_coordinate_val(p.get(), isl_dim_set, k);
      inst.coords.push_back(isl_val_get_num_si(v));
      isl_val_free(v);
    }
    result.push_back(std::move(inst));
  });
  return result;
}

/// Checks that every instance of `domain` (with N = n) ran exactly once and
/// wrote its code at the subscripts of its first access.
void expectEachInstanceOnce(isl::union_set domain,
                            ArrayRef<StatementAccesses> statements,
                            const std::vector<int64_t> &count,
                            const std::vector<int64_t> &out, int64_t n) {
  int64_t total = 0;
  SmallVector<isl::set> sets;
  domain.foreach_set([&](isl::set set) { sets.push_back(set); });
  for (isl::set set : sets) {
    for (const Instance &inst : enumerate(fixN(set, n))) {
      ++total;
      int s = statementIndex(statements, inst.name);
      ASSERT_GE(s, 0) << inst.name;
      int64_t slot = linear(s, inst.coords);
      EXPECT_EQ(count[slot], 1) << inst.name << " at slot " << slot;
      if (statements[s].accesses.empty())
        continue;
      // The accessed element according to the access function.
      std::string coords;
      for (int64_t c : inst.coords)
        coords += (coords.empty() ? "" : ", ") + std::to_string(c);
      isl::set instance(set.ctx(), "{ " + inst.name + "[" + coords + "] }");
      isl::map accessMap = statements[s].accesses[0].as_map();
      isl::set image =
          fixN(instance.apply(fixN(accessMap.wrap(), n).unwrap()), n);
      SmallVector<Instance> elements = enumerate(image);
      ASSERT_EQ(elements.size(), 1u);
      EXPECT_EQ(out[linear(s, elements[0].coords)], slot + 1)
          << inst.name << " subscripts";
    }
  }
  int64_t executed = 0;
  for (int64_t c : count)
    executed += c;
  EXPECT_EQ(executed, total);
}

std::string
AstToLoopsTest::checkCounting(isl::schedule sched,
                              ArrayRef<StatementAccesses> statements,
                              ArrayRef<int64_t> ns) {
  std::string error;
  OwningOpRef<ModuleOp> module =
      build(sched, statements, countingEmitter(statements), error);
  if (!module) {
    ADD_FAILURE() << "generateLoops: " << error;
    return "";
  }
  std::string ir = print(*module);
  for (int64_t n : ns) {
    SCOPED_TRACE("N = " + std::to_string(n) + "\n" + ir);
    OwningOpRef<ModuleOp> copy = module->clone();
    std::vector<int64_t> count(statements.size() * kSlots, 0);
    std::vector<int64_t> out(statements.size() * kSlots, 0);
    if (!run(*copy, count, out, n))
      break;
    expectEachInstanceOnce(sched.domain(), statements, count, out, n);
  }
  return ir;
}

} // namespace

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

TEST_F(AstToLoopsTest, Triangle) {
  isl::schedule sched =
      schedule(R"({ domain: "{ S[i, j] : 0 <= i < 7 and 0 <= j <= i }",
       child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]" } })");
  StatementAccesses s{"S", {access("{ S[i, j] -> A[i + 1, 2j] }")}};
  std::string ir = checkCounting(sched, {s});
  EXPECT_NE(ir.find("scf.for"), std::string::npos);
  EXPECT_EQ(ir.find("scf.parallel"), std::string::npos);
}

// Interchanged loops over a parametric domain give min/max bounds.
TEST_F(AstToLoopsTest, Parametric) {
  isl::schedule sched =
      schedule(R"({ domain: "[N] -> { S[i, j] : 0 <= i < N and i <= j < N }",
       child: { schedule: "[N] -> [{ S[i, j] -> [(j)] }, { S[i, j] -> [(i)] }]" } })");
  StatementAccesses s{"S", {access("[N] -> { S[i, j] -> A[N - 1 - i, j] }")}};
  checkCounting(sched, {s}, {0, 1, 5, 13});
}

// Negative indices and parametric tiles: floor divisions in loop bounds.
TEST_F(AstToLoopsTest, TiledNegative) {
  isl::schedule sched = schedule(R"({ domain: "[N] -> { S[i] : -N <= i < N }",
       child: { schedule: "[N] -> [{ S[i] -> [(floor(i/4))] }, { S[i] -> [(i mod 4)] }]" } })");
  StatementAccesses s{"S", {access("{ S[i] -> A[floor(i/4), i mod 4] }")}};
  checkCounting(sched, {s}, {0, 1, 3, 4, 7, 8});
}

// Full tiles isolated and unrolled, partial tiles in separate loops.
TEST_F(AstToLoopsTest, TiledIsolateUnroll) {
  isl::schedule sched = schedule(R"({ domain: "{ S[i] : 0 <= i < 10 }",
       child: { schedule: "[{ S[i] -> [(floor(i/4))] }, { S[i] -> [(i mod 4)] }]",
                options: "{ isolate[[] -> [a, b]] : 0 <= a <= 1; [isolate[] -> unroll[1]] }" } })");
  StatementAccesses s{"S", {access("{ S[i] -> A[i mod 4, floor(i/4)] }")}};
  std::string ir = checkCounting(sched, {s});
  // The isolated full tiles are unrolled: four instances in one loop body.
  EXPECT_EQ(occurrences(ir, "scf.for "), 2) << ir;
}

TEST_F(AstToLoopsTest, SequenceWithFilters) {
  isl::schedule sched = schedule(
      R"({ domain: "{ A[i] : 0 <= i < 10; B[i, j] : 0 <= i < 4 and 0 <= j < 3 }",
       child: { sequence: [
         { filter: "{ A[i] }", child: { schedule: "[{ A[i] -> [(i)] }]" } },
         { filter: "{ B[i, j] }", child: { schedule: "[{ B[i, j] -> [(j)] }, { B[i, j] -> [(i)] }]" } } ] } })");
  StatementAccesses a{"A", {access("{ A[i] -> X[9 - i] }")}};
  StatementAccesses b{
      "B",
      {access("{ B[i, j] -> Y[j, i, 1] }"), access("{ B[i, j] -> Z[i] }")}};
  checkCounting(sched, {a, b});
}

// Two statements in one band: guards become scf.if with modulo conditions.
TEST_F(AstToLoopsTest, GuardsAndParameterConditions) {
  isl::schedule sched = schedule(
      R"({ domain: "[N] -> { S[i] : 0 <= i < 20 and i mod 3 = 0; T[i] : N <= i < 20 }",
       child: { schedule: "[N] -> [{ S[i] -> [(i)]; T[i] -> [(i)] }]" } })");
  StatementAccesses s{"S", {access("{ S[i] -> A[i] }")}};
  StatementAccesses t{"T", {}};
  std::string ir = checkCounting(sched, {s, t}, {-3, 0, 4, 20, 25});
  EXPECT_NE(ir.find("scf.if"), std::string::npos) << ir;
}

// Coordinates that isl substitutes (c0 / 2, c0 % 3, a parametric quotient),
// an if/else split and a strided loop.
TEST_F(AstToLoopsTest, SubstitutedCoordinates) {
  const char *domains[] = {
      "{ S[i, j] : 0 <= i < 6 and 2j <= i <= 2j + 1 }",
      "{ S[i, j] : 0 <= i < 6 and j = i mod 3 }",
      "[N] -> { S[i, j] : 0 <= i < 6 and 0 <= j <= N and i + N <= 3j <= i + N "
      "+ 2 }",
      "{ S[i, j] : 0 <= i < 6 and j >= i and j >= 3 and (j = i or j = 3) }",
      "{ S[i, j] : 0 <= i < 20 and i mod 3 = 0 and j = 0 }",
  };
  for (const char *domain : domains) {
    SCOPED_TRACE(domain);
    isl::schedule sched = schedule(
        std::string("{ domain: \"") + domain +
        R"(", child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]" } })");
    StatementAccesses s{"S", {access("{ S[i, j] -> A[j, i] }")}};
    checkCounting(sched, {s}, {0, 2, 5});
  }
}

// atomic forces single loops over unions of pieces: a loop with a max bound
// and a disjunctive guard, and a degenerate loop with a conditional value.
TEST_F(AstToLoopsTest, AtomicOptions) {
  const char *domains[] = {
      "{ S[i, j] : 0 <= i < 6 and j >= i and j >= 3 and (j = i or j = 3) }",
      "{ S[i, j] : 0 <= i < 6 and j = floor((i + 1)/2) + floor(i/3) }",
  };
  for (const char *domain : domains) {
    SCOPED_TRACE(domain);
    isl::schedule sched = schedule(
        std::string("{ domain: \"") + domain +
        R"(", child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", options: "{ atomic[1] }" } })");
    StatementAccesses s{"S", {access("{ S[i, j] -> A[j, i] }")}};
    checkCounting(sched, {s});
  }
}

// B must see every write of A: A writes X[i] = i + 1, then B copies X[9 - i]
// into count[i], which reads the value written in a later iteration of A.
TEST_F(AstToLoopsTest, SequenceOrder) {
  isl::schedule sched =
      schedule(R"({ domain: "{ A[i] : 0 <= i < 10; B[i] : 0 <= i < 10 }",
       child: { sequence: [
         { filter: "{ A[i] }", child: { schedule: "[{ A[i] -> [(i)] }]" } },
         { filter: "{ B[i] }", child: { schedule: "[{ B[i] -> [(i)] }]" } } ] } })");
  StatementAccesses a{"A", {access("{ A[i] -> X[i] }")}};
  StatementAccesses b{"B", {access("{ B[i] -> X[9 - i] }")}};
  KernelEmitter emitter = [](OpBuilder &b, Location loc, StringRef statement,
                             ValueRange iters,
                             ArrayRef<SmallVector<Value>> subscripts,
                             Value count, Value out) -> LogicalResult {
    if (subscripts.size() != 1 || subscripts[0].size() != 1)
      return failure();
    Value x = subscripts[0][0];
    if (statement == "A") {
      Value v = arith::AddIOp::create(b, loc, iters[0], constant(b, loc, 1));
      storeIndex(b, loc, v, out, x);
      return success();
    }
    Value v = memref::LoadOp::create(b, loc, out, ValueRange{x});
    memref::StoreOp::create(b, loc, v, count, ValueRange{iters[0]});
    return success();
  };
  std::string error;
  OwningOpRef<ModuleOp> module = build(sched, {a, b}, emitter, error);
  ASSERT_TRUE(module) << error;
  std::vector<int64_t> count(10, 0), out(10, 0);
  ASSERT_TRUE(run(*module, count, out, 0));
  for (int64_t i = 0; i < 10; ++i)
    EXPECT_EQ(count[i], 10 - i) << "B[" << i << "]";
}

TEST_F(AstToLoopsTest, ParallelMark) {
  isl::schedule sched =
      schedule(R"({ domain: "{ S[i, j] : 0 <= i < 7 and 0 <= j < 5 }",
       child: { mark: "parallel",
         child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]" } } })");
  StatementAccesses s{"S", {access("{ S[i, j] -> A[j, i] }")}};
  std::string ir = checkCounting(sched, {s});
  EXPECT_EQ(occurrences(ir, "scf.parallel "), 1) << ir;
  EXPECT_EQ(occurrences(ir, "scf.for "), 1) << ir;
  // The inner loop is inside the parallel one.
  EXPECT_LT(ir.find("scf.parallel "), ir.find("scf.for ")) << ir;
}

// Isolation splits the outer band member into several loops: each becomes
// its own scf.parallel; inner band members stay sequential.
TEST_F(AstToLoopsTest, ParallelMarkWithIsolation) {
  isl::schedule sched =
      schedule(R"({ domain: "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < 10 }",
       child: { mark: "parallel",
         child: { schedule: "[N] -> [{ S[i, j] -> [(floor(j/4))] }, { S[i, j] -> [(i)] }, { S[i, j] -> [(j mod 4)] }]",
                  options: "[N] -> { isolate[[] -> [a, b, c]] : 0 <= a <= 1 and 0 < b < N - 1 }" } } })");
  StatementAccesses s{"S", {access("{ S[i, j] -> A[i, j] }")}};
  std::string ir = checkCounting(sched, {s}, {0, 1, 2, 5});
  EXPECT_GE(occurrences(ir, "scf.parallel "), 2) << ir;
  std::string error;
  OwningOpRef<ModuleOp> module = build(sched, {s}, countingEmitter({s}), error);
  ASSERT_TRUE(module) << error;
  module->walk([&](scf::ParallelOp op) {
    EXPECT_FALSE(op->getParentOfType<scf::ParallelOp>()) << ir;
    EXPECT_FALSE(op->getParentOfType<scf::ForOp>()) << ir;
  });
}

// A mark below a sequential band: the time loop stays scf.for around the
// parallel loop of the next band.
TEST_F(AstToLoopsTest, ParallelMarkBelowBand) {
  isl::schedule sched =
      schedule(R"({ domain: "{ S[t, i] : 0 <= t < 3 and 0 <= i < 6 }",
       child: { schedule: "[{ S[t, i] -> [(t)] }]",
         child: { mark: "parallel",
           child: { schedule: "[{ S[t, i] -> [(i)] }]" } } } })");
  StatementAccesses s{"S", {access("{ S[t, i] -> A[t, i] }")}};
  std::string error;
  OwningOpRef<ModuleOp> module = build(sched, {s}, countingEmitter({s}), error);
  ASSERT_TRUE(module) << error;
  int parallel = 0;
  module->walk([&](scf::ParallelOp op) {
    ++parallel;
    EXPECT_TRUE(op->getParentOfType<scf::ForOp>());
  });
  EXPECT_EQ(parallel, 1);
  checkCounting(sched, {s});
}

// The band member right below the mark has a single value: no loop is
// generated for it, and the inner loop must not become parallel.
TEST_F(AstToLoopsTest, ParallelMarkOnEliminatedLoop) {
  isl::schedule sched =
      schedule(R"({ domain: "{ S[t, i] : t = 2 and 0 <= i < 6 }",
       child: { mark: "parallel",
         child: { schedule: "[{ S[t, i] -> [(t)] }, { S[t, i] -> [(i)] }]" } } })");
  StatementAccesses s{"S", {access("{ S[t, i] -> A[t, i] }")}};
  std::string ir = checkCounting(sched, {s});
  EXPECT_EQ(occurrences(ir, "scf.parallel "), 0) << ir;
  EXPECT_EQ(occurrences(ir, "scf.for "), 1) << ir;
}

TEST_F(AstToLoopsTest, UnknownParameterIsAnError) {
  isl::schedule sched = schedule(R"({ domain: "[M] -> { S[i] : 0 <= i < M }",
       child: { schedule: "[M] -> [{ S[i] -> [(i)] }]" } })");
  StatementAccesses s{"S", {}};
  std::string error;
  EXPECT_FALSE(build(sched, {s}, countingEmitter({s}), error));
  EXPECT_NE(error.find("'M'"), std::string::npos) << error;
}

TEST_F(AstToLoopsTest, MissingStatementIsAnError) {
  isl::schedule sched = schedule(R"({ domain: "{ S[i] : 0 <= i < 4 }",
       child: { schedule: "[{ S[i] -> [(i)] }]" } })");
  StatementAccesses t{"T", {}};
  std::string error;
  EXPECT_FALSE(build(sched, {t}, countingEmitter({t}), error));
  EXPECT_NE(error.find("'S'"), std::string::npos) << error;
}

// isl scans the instances that share a schedule point with extra loops,
// which are sequential even below a parallel mark.
TEST_F(AstToLoopsTest, NonInjectiveSchedule) {
  isl::schedule sched = schedule(
      R"({ domain: "{ S[i, j] : 0 <= i < 4 and 0 <= j < 3; T[i] : 0 <= i < 3 }",
       child: { mark: "parallel",
         child: { schedule: "[{ S[i, j] -> [(i)]; T[i] -> [(i)] }]" } } })");
  StatementAccesses s{"S", {access("{ S[i, j] -> A[j, i] }")}};
  StatementAccesses t{"T", {access("{ T[i] -> A[i] }")}};
  std::string ir = checkCounting(sched, {s, t});
  EXPECT_EQ(occurrences(ir, "scf.parallel "), 1) << ir;
  EXPECT_EQ(occurrences(ir, "scf.for "), 1) << ir;
}

TEST_F(AstToLoopsTest, MismatchedAccessIsAnError) {
  isl::schedule sched = schedule(R"({ domain: "{ S[i] : 0 <= i < 4 }",
       child: { schedule: "[{ S[i] -> [(i)] }]" } })");
  StatementAccesses s{"S", {access("{ T[i] -> A[i] }")}};
  std::string error;
  EXPECT_FALSE(build(sched, {s}, countingEmitter({s}), error));
  EXPECT_NE(error.find("domain space"), std::string::npos) << error;
}

TEST_F(AstToLoopsTest, EmitterFailureIsReported) {
  isl::schedule sched = schedule(R"({ domain: "{ S[i] : 0 <= i < 4 }",
       child: { schedule: "[{ S[i] -> [(i)] }]" } })");
  StatementAccesses s{"S", {}};
  KernelEmitter failing = [](OpBuilder &, Location, StringRef, ValueRange,
                             ArrayRef<SmallVector<Value>>, Value,
                             Value) -> LogicalResult { return failure(); };
  std::string error;
  EXPECT_FALSE(build(sched, {s}, failing, error));
  EXPECT_NE(error.find("emitter"), std::string::npos) << error;
}

// An unrolled parallel dimension leaves no loop to parallelize; the inner
// loops stay sequential.
TEST_F(AstToLoopsTest, ParallelMarkOnUnrolledLoop) {
  isl::schedule sched =
      schedule(R"({ domain: "{ S[i, j] : 0 <= i < 3 and 0 <= j < 5 }",
       child: { mark: "parallel",
         child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]",
                  options: "{ unroll[0] }" } } })");
  StatementAccesses s{"S", {access("{ S[i, j] -> A[i, j] }")}};
  std::string ir = checkCounting(sched, {s});
  EXPECT_EQ(occurrences(ir, "scf.parallel "), 0) << ir;
  EXPECT_EQ(occurrences(ir, "scf.for "), 3) << ir;
}

// Constraints on parameters come from a context node. Its set lives in the
// space of the outer band members (here none): "{ [] : ... }", not the
// parameter set "{ : ... }", which isl 0.25 rejects ("spaces don't match").
TEST_F(AstToLoopsTest, ContextNode) {
  isl::schedule sched =
      schedule(R"({ domain: "[N] -> { S[i] : 0 <= i < N and i < 10 }",
       child: { context: "[N] -> { [] : N >= 10 }",
         child: { schedule: "[N] -> [{ S[i] -> [(i)] }]" } } })");
  StatementAccesses s{"S", {access("{ S[i] -> A[i] }")}};
  std::string ir = checkCounting(sched, {s}, {10, 12});
  // With N >= 10 known, the bound is the constant 10 (no minsi).
  EXPECT_EQ(ir.find("arith.minsi"), std::string::npos) << ir;
}

TEST_F(AstToLoopsTest, EmptyDomain) {
  isl::schedule sched = schedule(R"({ domain: "{ S[i] : 0 <= i < 0 }",
       child: { mark: "parallel", child: { schedule: "[{ S[i] -> [(i)] }]" } } })");
  StatementAccesses s{"S", {access("{ S[i] -> A[i] }")}};
  std::string ir = checkCounting(sched, {s});
  EXPECT_EQ(ir.find("scf."), std::string::npos) << ir;
}
