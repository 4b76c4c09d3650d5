//===- InlineEncodedCalls.cpp - 2:4 tensors across calls -----*- C++ -*-===//
//
// A tensor with a structured[2, 4] encoding that crosses a call (converted
// in the caller, multiplied in the callee, or returned) has no single place
// where STC can see both the data and the contraction that uses it. Rather
// than invent a calling convention for the compressed form, STC inlines
// such calls when the callee's body is in the module: afterwards every
// encoded value flows from its conversion to its uses inside one function,
// and the sparsifiers compress it once, where it is used. Callees without a
// body, and recursive ones, are errors; private callees left without a
// caller are erased.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/SparsityPolicy.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCINLINEENCODEDCALLS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

bool hasStructuredEncoding(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    bool hasEncoding = false;
    return getStructuredDim(t, hasEncoding) >= 0;
  });
}

/// The functions of `module` that reach themselves through direct calls.
/// Inlining keeps who reaches whom, so this holds for the whole pass.
llvm::SmallPtrSet<Operation *, 4> findRecursiveFunctions(ModuleOp module,
                                                         SymbolTable &symbols) {
  llvm::DenseMap<Operation *, SmallVector<Operation *>> callees;
  module.walk([&](func::CallOp call) {
    auto caller = call->getParentOfType<func::FuncOp>();
    if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
      callees[caller].push_back(callee);
  });
  llvm::SmallPtrSet<Operation *, 4> recursive;
  for (auto &entry : callees) {
    Operation *start = entry.first;
    llvm::SmallPtrSet<Operation *, 8> seen;
    SmallVector<Operation *> work(entry.second.begin(), entry.second.end());
    while (!work.empty()) {
      Operation *f = work.pop_back_val();
      if (f == start) {
        recursive.insert(start);
        break;
      }
      if (seen.insert(f).second)
        llvm::append_range(work, callees.lookup(f));
    }
  }
  return recursive;
}

struct StcInlineEncodedCallsPass
    : public stc::impl::StcInlineEncodedCallsBase<StcInlineEncodedCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    recursive = findRecursiveFunctions(module, symbols);
    llvm::SmallSetVector<func::FuncOp, 4> inlined;
    // Terminates: without recursion, every round shortens the longest
    // chain of calls that carry encoded tensors.
    while (true) {
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) {
        if (hasStructuredEncoding(call.getOperandTypes()) ||
            hasStructuredEncoding(call.getResultTypes()))
          calls.push_back(call);
      });
      if (calls.empty())
        break;
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (failed(inlineCall(call, callee)))
          return signalPassFailure();
        inlined.insert(callee);
      }
    }
    for (func::FuncOp callee : inlined)
      if (callee.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(callee, module))
        callee.erase();
  }

private:
  llvm::SmallPtrSet<Operation *, 4> recursive;

  LogicalResult inlineCall(func::CallOp call, func::FuncOp callee) {
    auto refuse = [&](StringRef why) {
      call.emitError() << "stc: cannot pass a tensor with a structured[2, 4] "
                          "encoding to @"
                       << call.getCallee() << ", " << why
                       << " (STC inlines such calls; pass the dense tensor "
                          "instead)";
      return failure();
    };
    if (!callee)
      return refuse("which is not a func.func of this module");
    if (callee.isExternal())
      return refuse("which has no body in this module");
    if (recursive.contains(callee))
      return refuse("which is recursive");
    if (!callee.getBody().hasOneBlock())
      return refuse("whose body has more than one block");
    IRMapping mapping;
    Block &body = callee.getBody().front();
    mapping.map(body.getArguments(), call.getOperands());
    OpBuilder b(call);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    SmallVector<Value> results;
    for (Value v : ret.getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    call.emitRemark() << "stc: inlined @" << call.getCallee()
                      << ": a tensor with a structured[2, 4] encoding "
                         "crosses this call";
    call.replaceAllUsesWith(results);
    call.erase();
    ++numCallsInlined;
    return success();
  }
};

} // namespace
