//===- InputText.h - refuse inputs the MLIR parser must not see -*- C++ -*-===//
//
// What the tools check before handing a file to MLIR's parser: that it is
// text (a binary file such as an .onnx would otherwise be echoed back, raw
// bytes and all, in the parser's "unexpected character" diagnostic), and
// that it holds none of the constructs on which the upstream parser of
// MLIR 22 crashes (docs/RELIABILITY.md lists them with reproducers for an
// upstream report). Then the parse itself runs under LLVM's crash-recovery
// context, so that an upstream crash not yet known becomes an error line.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_LIB_INPUTTEXT_H
#define STC_COMPILER_LIB_INPUTTEXT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>

namespace mlir::stc {

/// Why `text` is not MLIR text ("it contains a NUL byte at offset 12
/// (line 1)", "byte 0xff at offset 3 (line 1) is not UTF-8"), or none.
std::optional<std::string> describeBinaryInput(llvm::StringRef text);

/// The offset and message of the first construct in `text` on which the
/// upstream parser crashes (outside strings and comments): a dense array
/// of index, a block label defined twice in one region; or none.
std::optional<std::pair<size_t, std::string>>
findParserCrasher(llvm::StringRef text);

/// Checks the main buffer of `sourceMgr` (named `path` in messages) with
/// the two functions above. A binary file is reported as one
/// "<tool>: error: <path>: not MLIR text: ..." line (no bytes of it); a
/// crasher as "<path>:line:col: error: ..." through the SourceMgr.
LogicalResult checkInputText(llvm::StringRef tool, llvm::StringRef path,
                             llvm::SourceMgr &sourceMgr);

/// parseSourceFile<ModuleOp> under a crash-recovery context: a crash of the
/// parser is reported as "<tool>: error: <path>: the MLIR parser crashed on
/// this input ..." and gives null, like a parse error.
OwningOpRef<ModuleOp> parseWithCrashRecovery(llvm::StringRef tool,
                                             llvm::StringRef path,
                                             llvm::SourceMgr &sourceMgr,
                                             MLIRContext &context);

} // namespace mlir::stc

#endif // STC_COMPILER_LIB_INPUTTEXT_H
