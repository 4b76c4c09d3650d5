//===- InputText.cpp - refuse inputs the MLIR parser must not see -*- C++
//-*-===//
//
// See InputText.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/lib/InputText.h"

#include "llvm/ADT/DenseSet.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

size_t lineOf(llvm::StringRef text, size_t offset) {
  return 1 + text.take_front(offset).count('\n');
}

/// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no
/// overlong forms, no surrogates, at most U+10FFFF), or 0.
size_t utf8SequenceLength(llvm::StringRef text, size_t i) {
  auto byte = [&](size_t k) -> unsigned {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0x100;
  };
  unsigned b0 = byte(i);
  if (b0 < 0x80)
    return 1;
  auto continuation = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF)
    return continuation(i + 1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    unsigned b1 = byte(i + 1);
    bool ok = continuation(i + 1) && continuation(i + 2) &&
              !(b0 == 0xE0 && b1 < 0xA0) && !(b0 == 0xED && b1 >= 0xA0);
    return ok ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    unsigned b1 = byte(i + 1);
    bool ok = continuation(i + 1) && continuation(i + 2) &&
              continuation(i + 3) && !(b0 == 0xF0 && b1 < 0x90) &&
              !(b0 == 0xF4 && b1 >= 0x90);
    return ok ? 4 : 0;
  }
  return 0;
}

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

} // namespace

std::optional<std::string>
mlir::stc::describeBinaryInput(llvm::StringRef text) {
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\0')
      return "it contains a NUL byte at offset " + std::to_string(i) +
             " (line " + std::to_string(lineOf(text, i)) + ")";
    size_t length = utf8SequenceLength(text, i);
    if (length == 0) {
      std::string byte;
      llvm::raw_string_ostream(byte)
          << llvm::format_hex(static_cast<unsigned char>(text[i]), 4);
      return "byte " + byte + " at offset " + std::to_string(i) + " (line " +
             std::to_string(lineOf(text, i)) + ") is not UTF-8";
    }
    i += length;
  }
  return std::nullopt;
}

/// The label of a block defined at offset `i` of `text` (the first
/// non-blank character of a line, `^label` ... `:` ending the line before
/// any comment), or "".
static llvm::StringRef blockDefinedAt(llvm::StringRef text, size_t i) {
  if (text[i] != '^')
    return "";
  size_t end = i + 1;
  while (end < text.size() &&
         (isIdentifierChar(text[end]) || text[end] == '$' || text[end] == '.'))
    ++end;
  llvm::StringRef line = text.substr(i, text.find('\n', i) - i);
  line = line.substr(0, line.find("//")).rtrim();
  if (end == i + 1 || !line.ends_with(":"))
    return "";
  return text.slice(i, end);
}

/// The largest result number an SSA use may name (`%x#N`): far beyond any
/// real op's results, far below what makes the parser allocate gigabytes.
constexpr unsigned long long kMaxResultNumber = 65535;

std::optional<std::pair<size_t, std::string>>
mlir::stc::findParserCrasher(llvm::StringRef text) {
  // Regions by their opening brace (0: top level), and the blocks each
  // defines: MLIR 22's parser uses freed memory (and may crash, later)
  // after a block label defined twice in one region.
  llvm::SmallVector<size_t> regions = {0};
  llvm::DenseSet<std::pair<size_t, llvm::StringRef>> blocks;
  bool lineStart = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      lineStart = true;
      continue;
    }
    bool first = lineStart && c != ' ' && c != '\t' && c != '\r';
    if (first)
      lineStart = false;
    if (c == '"') {
      // A string literal: skip to its closing quote (escapes included).
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      lineStart = true;
      continue;
    }
    if (c == '{') {
      regions.push_back(i + 1);
      continue;
    }
    if (c == '}') {
      if (regions.size() > 1)
        regions.pop_back();
      continue;
    }
    if (first) {
      llvm::StringRef label = blockDefinedAt(text, i);
      if (!label.empty() && !blocks.insert({regions.back(), label}).second)
        return std::make_pair(
            i, "block " + label.str() +
                   " is defined twice in one region: MLIR 22's parser "
                   "uses freed memory on it (and may crash); rename one");
    }
    // %name#N with a huge N: the parser makes a forward reference with
    // N + 1 results (LLVM's "out of memory" abort for N = 2^31).
    if (c == '#' && i > 0 &&
        (isIdentifierChar(text[i - 1]) || text[i - 1] == '$' ||
         text[i - 1] == '.')) {
      size_t at = i;
      size_t end = i + 1;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      // Only an SSA use: walk back over the name to its '%'.
      size_t start = i;
      while (start > 0 && (isIdentifierChar(text[start - 1]) ||
                           text[start - 1] == '$' || text[start - 1] == '.'))
        --start;
      constexpr size_t kMaxResultDigits = 6;
      if (start > 0 && text[start - 1] == '%' && end > i + 1 &&
          (end - i - 1 > kMaxResultDigits ||
           std::stoull(text.slice(i + 1, end).str()) > kMaxResultNumber))
        return std::make_pair(
            at, "result number " + text.slice(i + 1, end).str() +
                    " is out of range (at most " +
                    std::to_string(kMaxResultNumber) +
                    "): MLIR 22's parser runs out of memory on a huge one");
    }
    if (!text.substr(i).starts_with("array") ||
        (i > 0 && isIdentifierChar(text[i - 1])))
      continue;
    // array < index (: ...)? > -- a dense array of index: MLIR 22's parser
    // asks the index type for a bit width it does not have and crashes.
    llvm::StringRef rest = text.substr(i + 5).ltrim();
    if (!rest.consume_front("<"))
      continue;
    rest = rest.ltrim();
    if (rest.consume_front("index") &&
        (rest.empty() || !isIdentifierChar(rest.front())))
      return std::make_pair(
          i, std::string("array<index ...> (a dense array of index) is not "
                         "supported: MLIR 22's parser crashes on it; use "
                         "array<i64: ...>"));
  }
  return std::nullopt;
}

LogicalResult mlir::stc::checkInputText(llvm::StringRef tool,
                                        llvm::StringRef path,
                                        llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  if (std::optional<std::string> why = describeBinaryInput(text)) {
    llvm::errs() << tool << ": error: " << path << ": not MLIR text: " << *why
                 << "\n";
    return failure();
  }
  if (auto crasher = findParserCrasher(text)) {
    sourceMgr.PrintMessage(
        llvm::SMLoc::getFromPointer(text.data() + crasher->first),
        llvm::SourceMgr::DK_Error, crasher->second);
    return failure();
  }
  return success();
}

OwningOpRef<ModuleOp>
mlir::stc::parseWithCrashRecovery(llvm::StringRef tool, llvm::StringRef path,
                                  llvm::SourceMgr &sourceMgr,
                                  MLIRContext &context) {
  OwningOpRef<ModuleOp> module;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  bool survived = recovery.RunSafely(
      [&] { module = parseSourceFile<ModuleOp>(sourceMgr, &context); });
  llvm::CrashRecoveryContext::Disable();
  if (survived)
    return module;
  // Whatever the parser built is in an unknown state: leaked, not freed.
  (void)module.release();
  llvm::errs() << tool << ": error: " << path
               << ": the MLIR parser crashed on this input (a bug of "
                  "upstream MLIR; see docs/RELIABILITY.md for how to report "
                  "it)\n";
  return nullptr;
}
