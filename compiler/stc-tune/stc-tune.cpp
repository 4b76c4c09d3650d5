//===- stc-tune.cpp - the autotuner's compiler side -----------*- C++ -*-===//
//
// `stc-tune (PROGRAM.mlir | --shapes=FILE) --target=ARCH -o DIR`: for every
// product of a program (or of a shape list), the candidate kernel
// configurations (sparse and dense, passes/GPU/KernelCandidates.h) ranked
// by the cost model, one MLIR program per candidate in the benchmark's
// program form with the configuration attached, and DIR/manifest.json
// (docs/TUNING.md). The GPU side (bench/run_gpu_bench.sh build-tune,
// run-tune) compiles, checks and times them and writes the tuning
// database. `--evaluate-db=FILE` reports the cost model's leave-one-out
// accuracy on a database instead.
//
// Outputs are written only when everything succeeded.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"
#include "compiler/lib/ToolSupport.h"
#include "passes/GPU/ConfigureGpuKernels.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/KernelCandidates.h"
#include "passes/GPU/KernelConfig.h"
#include "passes/GPU/SparseOrDense.h"
#include "passes/GPU/TuningData.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::GpuArch;
using stc_gpu::KernelConfigAttr;
namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("[<program.mlir>]"), cl::init(""));
static cl::opt<std::string>
    shapesFile("shapes",
               cl::desc("A shape list instead of a program: lines "
                        "`matmul M N K DTYPE [OUT]` (DTYPE f16, bf16 or i8; "
                        "OUT the result type, by default DTYPE, i32 for i8) "
                        "and `conv N H W C F KH KW STRIDE PAD DTYPE [OUT]` "
                        "(NHWC, f16 or bf16)"),
               cl::value_desc("file"), cl::init(""));
static cl::opt<std::string> outputDir("o",
                                      cl::desc("Directory to write the "
                                               "candidates and manifest.json "
                                               "into"),
                                      cl::value_desc("dir"), cl::init(""));
static cl::opt<int> numCandidates(
    "candidates",
    cl::desc("Candidates per op and kind (sparse, dense): the compiler's "
             "default choice and the best others by the cost model"),
    cl::init(8));
static cl::opt<std::string> kinds("kinds",
                                  cl::desc("Which kernels to try: both "
                                           "(default), sparse or dense"),
                                  cl::init("both"));
static cl::opt<std::string> evaluateDb(
    "evaluate-db",
    cl::desc("Print the cost model's leave-one-out accuracy on this tuning "
             "database (for --target, --tuning-device) and write nothing"),
    cl::value_desc("file"), cl::init(""));

static constexpr const char *kTool = "stc-tune";

namespace {

/// One product to tune.
struct TuneOp {
  tuning::TuningKey key;
  /// Where it came from: "prog.mlir:12:10" or "shapes.txt:3".
  std::string source;
  bool trySparse = true, tryDense = true;
};

/// The output size of a convolution along H and W, by stc.conv's own
/// rule (<= 0 where the filter does not fit).
std::pair<int64_t, int64_t> outputSize(const tuning::ConvShape &c) {
  return {ConvOp::getOutputSize(c.h, c.kh, c.strideH, c.dilationH, c.padTop,
                                c.padBottom),
          ConvOp::getOutputSize(c.w, c.kw, c.strideW, c.dilationW, c.padLeft,
                                c.padRight)};
}

/// The benchmark's sparse program form (bench/gpu/build_programs.py):
/// A given compressed, B K x N (i8: N x K), one stc.spmm.
std::string sparseProgram(const tuning::TuningKey &key, NMPatternAttr pattern) {
  bool transposed = key.dtype == "i8";
  const std::string &t = key.dtype, &o = key.out;
  std::string v = llvm::formatv("tensor<{0}x{1}x{2}>", key.m,
                                pattern.getValuesPerRow(key.k), t);
  std::string mt = llvm::formatv("tensor<{0}x{1}xi16>", key.m,
                                 pattern.getMetaWordsPerRow(key.k));
  std::string d = transposed
                      ? llvm::formatv("tensor<{0}x{1}x{2}>", key.n, key.k, t)
                      : llvm::formatv("tensor<{0}x{1}x{2}>", key.k, key.n, t);
  std::string out = llvm::formatv("tensor<{0}x{1}x{2}>", key.m, key.n, o);
  return llvm::formatv(
      "func.func @spmm(%values: {0}, %meta: {1}, %dense: {2}) -> {3} {{\n"
      "  %out = stc.spmm %values, %meta, %dense\n"
      "      {{pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>{4}}\n"
      "      : {0}, {1}, {2} -> {3}\n"
      "  return %out : {3}\n"
      "}\n",
      v, mt, d, out, transposed ? ", dense_transposed = true" : "");
}

/// The dense form: C = A . B with A M x K and B K x N, a zero fill and a
/// linalg.matmul.
std::string denseProgram(const tuning::TuningKey &key) {
  const std::string &t = key.dtype, &o = key.out;
  std::string a = llvm::formatv("tensor<{0}x{1}x{2}>", key.m, key.k, t);
  std::string b = llvm::formatv("tensor<{0}x{1}x{2}>", key.k, key.n, t);
  std::string out = llvm::formatv("tensor<{0}x{1}x{2}>", key.m, key.n, o);
  bool integer = key.out == "i32";
  return llvm::formatv(
      "func.func @gemm(%a: {0}, %b: {1}) -> {2} {{\n"
      "  %zero = arith.constant {3} : {4}\n"
      "  %init = tensor.empty() : {2}\n"
      "  %c0 = linalg.fill ins(%zero : {4}) outs(%init : {2}) -> {2}\n"
      "  %out = linalg.matmul ins(%a, %b : {0}, {1}) outs(%c0 : {2}) -> {2}\n"
      "  return %out : {2}\n"
      "}\n",
      a, b, out, integer ? "0" : "0.0", o);
}

/// A convolution as one stc.conv (the filter given compressed, F x
/// KH*KW*Cp along its input channels; the input NHWC).
std::string convProgram(const tuning::TuningKey &key, NMPatternAttr pattern) {
  const tuning::ConvShape &c = *key.conv;
  const std::string &t = key.dtype, &o = key.out;
  auto [oh, ow] = outputSize(c);
  // k is KH * KW * Cp, the filter's row in the compressed format.
  std::string v = llvm::formatv("tensor<{0}x{1}x{2}>", c.f,
                                pattern.getValuesPerRow(key.k), t);
  std::string mt = llvm::formatv("tensor<{0}x{1}xi16>", c.f,
                                 pattern.getMetaWordsPerRow(key.k));
  std::string in =
      llvm::formatv("tensor<{0}x{1}x{2}x{3}x{4}>", c.n, c.h, c.w, c.c, t);
  std::string out =
      llvm::formatv("tensor<{0}x{1}x{2}x{3}x{4}>", c.n, oh, ow, c.f, o);
  return llvm::formatv(
      "func.func @conv(%values: {0}, %meta: {1}, %input: {2}) -> {3} {{\n"
      "  %out = stc.conv %values, %meta, %input\n"
      "      {{pattern = #stc.nm<2:4>, filter_size = array<i64: {4}, {5}>,\n"
      "       strides = array<i64: {6}, {7}>, dilations = array<i64: {8}, "
      "{9}>,\n"
      "       pad_low = array<i64: {10}, {11}>, pad_high = array<i64: {12}, "
      "{13}>, groups = {14} : i64}\n"
      "      : {0}, {1}, {2} -> {3}\n"
      "  return %out : {3}\n"
      "}\n",
      v, mt, in, out, c.kh, c.kw, c.strideH, c.strideW, c.dilationH,
      c.dilationW, c.padTop, c.padLeft, c.padBottom, c.padRight, c.groups);
}

/// Reads a shape list; errors as "FILE:LINE: error: ...".
FailureOr<std::vector<TuneOp>> readShapes(const std::string &path,
                                          llvm::StringRef arch) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    reportError(kTool,
                "cannot read '" + path + "': " + buffer.getError().message());
    return failure();
  }
  std::vector<TuneOp> ops;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [i, raw] : llvm::enumerate(lines)) {
    llvm::StringRef line = raw.split('#').first.trim();
    if (line.empty())
      continue;
    std::string where = llvm::formatv("{0}:{1}", path, i + 1).str();
    auto fail = [&](const llvm::Twine &why) {
      llvm::errs() << where << ": error: " << why << "\n";
      return failure();
    };
    llvm::SmallVector<llvm::StringRef> words;
    line.split(words, ' ', -1, /*KeepEmpty=*/false);
    bool conv = !words.empty() && words[0] == "conv";
    size_t sizes = conv ? 9 : 3;
    if (words.empty() || (words[0] != "matmul" && !conv) ||
        words.size() < sizes + 2 || words.size() > sizes + 3)
      return fail("expected `matmul M N K DTYPE [OUT]` or `conv N H W C F KH "
                  "KW STRIDE PAD DTYPE [OUT]`, got '" +
                  line + "'");
    TuneOp op;
    op.source = where;
    tuning::TuningKey &key = op.key;
    key.arch = arch.str();
    SmallVector<int64_t> values;
    for (llvm::StringRef word : ArrayRef(words).slice(1, sizes)) {
      int64_t size;
      if (word.getAsInteger(10, size) || size < 0 || size > (1 << 20))
        return fail("size '" + word + "' is not an integer in 0..1048576");
      values.push_back(size);
    }
    // Every size but a convolution's padding is at least 1.
    for (auto [i, size] : llvm::enumerate(values))
      if (size == 0 && !(conv && i == 8))
        return fail("size '" + words[i + 1] + "' must be at least 1");
    if (conv) {
      tuning::ConvShape c;
      c.n = values[0];
      c.h = values[1];
      c.w = values[2];
      c.c = values[3];
      c.f = values[4];
      c.kh = values[5];
      c.kw = values[6];
      c.strideH = c.strideW = values[7];
      c.padTop = c.padLeft = c.padBottom = c.padRight = values[8];
      auto [oh, ow] = outputSize(c);
      if (oh <= 0 || ow <= 0)
        return fail("the filter is larger than the padded input");
      key.op = "conv";
      key.conv = c;
      key.m = c.f;
      key.n = c.n * oh * ow;
      key.k = c.kh * c.kw * ((c.c + 3) / 4 * 4);
      op.tryDense = false;
    } else {
      key.m = values[0];
      key.n = values[1];
      key.k = values[2];
    }
    key.dtype = words[sizes + 1].str();
    if (key.dtype != "f16" && key.dtype != "bf16" && key.dtype != "i8")
      return fail("DTYPE must be f16, bf16 or i8, got '" + key.dtype + "'");
    if (conv && key.dtype == "i8")
      return fail("i8 convolutions are not supported (f16 or bf16)");
    key.out = words.size() == sizes + 3 ? words[sizes + 2].str()
              : key.dtype == "i8"       ? std::string("i32")
                                        : key.dtype;
    bool floatOut = key.out == "f16" || key.out == "bf16" || key.out == "f32";
    if (key.dtype == "i8" ? key.out != "i32" : !floatOut)
      return fail("OUT '" + key.out + "' does not go with " + key.dtype +
                  " (f16, bf16 or f32 for floats; i32 for i8)");
    int64_t kMultiple = key.dtype == "i8" ? 32 : 16;
    if (!conv && key.k % kMultiple)
      return fail(llvm::formatv("K={0} is not a multiple of {1} (the "
                                "compressed format's rows)",
                                key.k, kMultiple));
    ops.push_back(std::move(op));
  }
  if (ops.empty()) {
    reportError(kTool, "'" + path + "' lists no shape");
    return failure();
  }
  return ops;
}

/// The products of a program after the pipeline's sparsification, as the
/// configure pass sees them.
FailureOr<std::vector<TuneOp>> programOps(ModuleOp module, GpuArch arch,
                                          const StcPipelineOptions &options) {
  StcPipelineOptions stcOnly = options;
  stcOnly.stopAfterStc = true;
  if (failed(runStcPipeline(module, stcOnly)))
    return failure();
  std::vector<TuneOp> ops;
  auto locationText = [](Location loc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn();
    else
      loc.print(os);
    return text;
  };
  module.walk([&](Operation *op) {
    std::optional<Problem> pb;
    bool dense = false;
    if (auto spmm = dyn_cast<SpmmOp>(op)) {
      pb = problemOf(spmm);
    } else if (auto conv = dyn_cast<ConvOp>(op)) {
      pb = problemOf(conv);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      std::string why;
      FailureOr<DenseGemm> gemm = denseGemmOf(linalgOp, why);
      if (failed(gemm))
        return;
      pb = gemm->pb;
      dense = true;
    } else {
      return;
    }
    std::optional<tuning::TuningKey> key = tuningKeyOf(op, *pb, arch);
    if (!key || key->batch != 1) {
      op->emitRemark() << kTool << ": not tuned (dynamic sizes or a batch)";
      return;
    }
    // The benchmark forms have no epilogue; the database lookup falls back
    // to the entry without one.
    key->epilogue = "none";
    TuneOp t{*key, locationText(op->getLoc()), !dense, !key->conv};
    auto same = llvm::find_if(
        ops, [&](const TuneOp &o) { return o.key.sameProblem(t.key); });
    if (same == ops.end())
      ops.push_back(std::move(t));
    else
      same->trySparse |= t.trySparse;
  });
  return ops;
}

/// A candidate program ready to write.
struct Candidate {
  std::string name, program, text, config;
  bool sparse, isDefault;
  double predictedUs;
};

/// Parses `text`, configures its one product for the target (with the
/// tuning data, as stc-compile would) and returns the module.
OwningOpRef<ModuleOp> configuredModule(MLIRContext &context,
                                       const std::string &text,
                                       const StcPipelineOptions &options) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return nullptr;
  PassManager pm(&context);
  StcConfigureGpuKernelsOptions configure;
  configure.target = options.target;
  configure.tuningDb = options.tuningDb;
  configure.tuningDevice = options.tuningDevice;
  configure.tuningBuiltin = options.tuningBuiltin;
  pm.addPass(createStcConfigureGpuKernels(configure, options.gpu));
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// The op a product module holds: its stc.spmm or linalg.matmul.
Operation *productOf(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (isa<SpmmOp, ConvOp, linalg::MatmulOp>(op))
      found = op;
  });
  return found;
}

std::string printed(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

std::string attrText(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// The candidates of one kind for `op`: the configured (default) choice,
/// then the best predicted others, at most numCandidates.
LogicalResult addCandidates(const TuneOp &t, const std::string &opName,
                            bool sparse, ModuleOp module, GpuArch arch,
                            const TuningData &data,
                            std::vector<Candidate> &out) {
  Operation *op = productOf(module);
  auto chosen =
      op ? op->getAttrOfType<KernelConfigAttr>(KernelConfigAttr::kAttrName)
         : KernelConfigAttr();
  if (!chosen) {
    reportError(kTool, "internal: no configured product for " + t.key.str());
    return failure();
  }
  std::string why;
  Problem pb = !sparse ? denseGemmOf(cast<linalg::LinalgOp>(op), why)->pb
               : isa<ConvOp>(op) ? problemOf(cast<ConvOp>(op))
                                 : problemOf(cast<SpmmOp>(op));
  tuning::ModelProblem mp = modelProblemOf(t.key);
  std::vector<std::pair<double, KernelConfigAttr>> ranked;
  for (KernelConfigAttr c : kernelCandidates(op, pb, arch, !sparse, chosen))
    ranked.emplace_back(data.model().predict(mp, modelKernelOf(c, sparse)).us,
                        c);
  // The default first, the others by prediction.
  std::stable_sort(ranked.begin() + 1, ranked.end(),
                   [](auto &a, auto &b) { return a.first < b.first; });
  if (ranked.size() > static_cast<size_t>(numCandidates))
    ranked.resize(numCandidates);
  for (auto [i, r] : llvm::enumerate(ranked)) {
    Candidate c;
    c.sparse = sparse;
    c.isDefault = i == 0;
    c.predictedUs = r.first;
    c.config = attrText(r.second);
    std::string stem = llvm::formatv("{0}{1}", sparse ? "s" : "d", i).str();
    c.name = opName + "-" + stem;
    c.program = opName + "/" + stem + ".mlir";
    op->setAttr(KernelConfigAttr::kAttrName, r.second);
    c.text = "// Generated by stc-tune: " + t.key.str() + ", candidate " +
             c.name + (c.isDefault ? " (the compiler's default)" : "") + ".\n" +
             printed(module);
    out.push_back(std::move(c));
  }
  return success();
}

llvm::json::Object keyJson(const tuning::TuningKey &key) {
  llvm::json::Object object{
      {"arch", key.arch},   {"op", key.op},   {"m", key.m},
      {"n", key.n},         {"k", key.k},     {"batch", key.batch},
      {"dtype", key.dtype}, {"out", key.out}, {"epilogue", key.epilogue}};
  if (const std::optional<tuning::ConvShape> &c = key.conv)
    object["conv"] = llvm::json::Object{
        {"n", c->n},
        {"h", c->h},
        {"w", c->w},
        {"c", c->c},
        {"f", c->f},
        {"kh", c->kh},
        {"kw", c->kw},
        {"stride", llvm::json::Array{c->strideH, c->strideW}},
        {"pad",
         llvm::json::Array{c->padTop, c->padLeft, c->padBottom, c->padRight}},
        {"dilation", llvm::json::Array{c->dilationH, c->dilationW}},
        {"groups", c->groups}};
  return object;
}

/// Writes every file or none.
LogicalResult
writeAll(const std::vector<std::pair<std::string, std::string>> &files) {
  std::vector<std::unique_ptr<llvm::ToolOutputFile>> outputs;
  for (auto &[path, contents] : files) {
    if (std::error_code ec = llvm::sys::fs::create_directories(
            llvm::sys::path::parent_path(path))) {
      reportError(kTool, "cannot create the directory of '" + path +
                             "': " + ec.message());
      return failure();
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
    if (!file) {
      reportError(kTool, error);
      return failure();
    }
    file->os() << contents;
    file->os().flush();
    if (file->os().has_error()) {
      file->os().clear_error();
      reportError(kTool, "cannot write '" + path + "'");
      return failure();
    }
    outputs.push_back(std::move(file));
  }
  for (auto &file : outputs)
    file->keep();
  return success();
}

int evaluate(MLIRContext &context, GpuArch arch,
             const StcPipelineOptions &options) {
  OwningOpRef<ModuleOp> anchor = ModuleOp::create(UnknownLoc::get(&context));
  FailureOr<std::unique_ptr<TuningData>> data =
      TuningData::load(*anchor, kTool, arch, evaluateDb, options.tuningDevice,
                       /*builtin=*/false);
  if (failed(data))
    return 1;
  if (!(*data)->hasData()) {
    reportError(kTool, "'" + evaluateDb + "' has no measurements for " +
                           options.target);
    return 1;
  }
  tuning::CostModel::Accuracy a = (*data)->model().leaveOneOut();
  llvm::outs() << llvm::formatv(
      "{0} on {1}: {2} samples; leave-one-out |predicted/measured - 1|: "
      "median {3:F3}, p90 {4:F3}\n",
      (*data)->deviceName(), options.target, a.count, a.median, a.p90);
  // What matters to the tuner: whether the model, without a problem's own
  // measurements, picks that problem's fastest candidate.
  tuning::CostModel::ChoiceQuality q = (*data)->model().leaveOneOutChoice();
  llvm::outs() << llvm::formatv(
      "leave-one-out choice: the fastest candidate in {0} of {1} problems; "
      "regret (measured chosen / fastest - 1): median {2:F3}, worst {3:F3}\n",
      q.fastest, q.groups, q.medianRegret, q.worstRegret);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerSharedToolOptions(kTool);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-tune " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "stc-tune: candidate kernels for the "
                              "autotuner (docs/TUNING.md)\n");
  StcPipelineOptions options;
  if (failed(getPipelineOptions(kTool, options)))
    return 1;
  std::optional<GpuArch> arch = stc_gpu::symbolizeGpuArch(options.target);
  if (!arch) {
    reportError(kTool, "--target must be a GPU architecture (sm_80, sm_86, "
                       "sm_89, sm_90 or sm_90a), got '" +
                           options.target + "'");
    return 1;
  }
  if (numCandidates < 1) {
    reportError(kTool, "--candidates must be at least 1");
    return 1;
  }
  if (kinds != "both" && kinds != "sparse" && kinds != "dense") {
    reportError(kTool,
                "--kinds must be both, sparse or dense, got '" + kinds + "'");
    return 1;
  }
  DialectRegistry registry;
  registerAllStcDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  filterRemarks(context);
  if (!evaluateDb.empty())
    return evaluate(context, *arch, options);

  if (inputFile.empty() == shapesFile.empty()) {
    reportError(kTool, "give either a program or --shapes=FILE");
    return 1;
  }
  if (outputDir.empty()) {
    reportError(kTool, "-o DIR is required");
    return 1;
  }
  std::vector<TuneOp> ops;
  if (!shapesFile.empty()) {
    FailureOr<std::vector<TuneOp>> read =
        readShapes(shapesFile, options.target);
    if (failed(read))
      return 1;
    ops = std::move(*read);
  } else {
    OwningOpRef<ModuleOp> module =
        parseInput(kTool, inputFile, context, sourceMgr);
    if (!module)
      return 1;
    FailureOr<std::vector<TuneOp>> found = programOps(*module, *arch, options);
    if (failed(found))
      return 1;
    ops = std::move(*found);
    if (ops.empty()) {
      reportError(kTool,
                  "'" + inputFile + "' has no product to tune (see --remarks)");
      return 1;
    }
  }

  // Stored 2:4 rows: values and metadata words per row of a weight.
  context.loadDialect<StcDialect>();
  auto pattern = NMPatternAttr::get(&context, 2, 4);
  OwningOpRef<ModuleOp> anchor = ModuleOp::create(UnknownLoc::get(&context));
  FailureOr<std::unique_ptr<TuningData>> data =
      TuningData::load(*anchor, kTool, *arch, options.tuningDb,
                       options.tuningDevice, options.tuningBuiltin);
  if (failed(data))
    return 1;

  std::vector<std::pair<std::string, std::string>> files;
  llvm::json::Array manifestOps;
  for (auto [index, t] : llvm::enumerate(ops)) {
    std::string name = llvm::formatv("t{0}", index).str();
    // The auto decision, as --sparsity=auto makes it for this product
    // (convolutions: against their dense kernel by the model; they have
    // no dense candidates here).
    OwningOpRef<ModuleOp> denseModule;
    SparsityDecision decision;
    Operation *matmul = nullptr;
    if (t.key.conv) {
      Builder types(&context);
      auto typeOf = [&](StringRef name) -> Type {
        return name == "bf16"  ? Type(types.getBF16Type())
               : name == "f32" ? Type(types.getF32Type())
                               : Type(types.getF16Type());
      };
      decision = decideConvSparsity(*t.key.conv, typeOf(t.key.dtype),
                                    typeOf(t.key.out), pattern.getM(),
                                    /*accumulates=*/false,
                                    /*atRunTime=*/false, *arch, **data);
    } else {
      denseModule = configuredModule(context, denseProgram(t.key), options);
      if (!denseModule)
        return 1;
      matmul = productOf(*denseModule);
      decision =
          decideSparsity(cast<linalg::LinalgOp>(matmul), matmul->getOperand(0),
                         matmul->getOperand(1), 1, 0, 0, /*accumulates=*/false,
                         /*atRunTime=*/false, *arch, **data);
    }
    std::vector<Candidate> candidates;
    std::string autoConfig;
    if (t.trySparse && (kinds != "dense" || decision.sparse)) {
      OwningOpRef<ModuleOp> sparseModule =
          configuredModule(context,
                           t.key.conv ? convProgram(t.key, pattern)
                                      : sparseProgram(t.key, pattern),
                           options);
      if (!sparseModule)
        return 1;
      if (decision.sparse)
        autoConfig = attrText(
            productOf(*sparseModule)->getAttr(KernelConfigAttr::kAttrName));
      if (kinds != "dense" && failed(addCandidates(t, name, true, *sparseModule,
                                                   *arch, **data, candidates)))
        return 1;
    }
    bool hasDense = matmul && matmul->hasAttr(KernelConfigAttr::kAttrName);
    if (hasDense && !decision.sparse)
      autoConfig = attrText(matmul->getAttr(KernelConfigAttr::kAttrName));
    if (hasDense && t.tryDense && kinds != "sparse" &&
        failed(addCandidates(t, name, false, *denseModule, *arch, **data,
                             candidates)))
      return 1;
    if (candidates.empty())
      continue;
    if (t.key.conv)
      decision.sparseUs = candidates.front().predictedUs;
    llvm::json::Array list;
    for (Candidate &c : candidates) {
      list.push_back(llvm::json::Object{{"name", c.name},
                                        {"sparse", c.sparse},
                                        {"heuristic", c.isDefault},
                                        {"predicted_us", c.predictedUs},
                                        {"config", c.config},
                                        {"program", c.program}});
      files.emplace_back(outputDir + "/" + c.program, std::move(c.text));
    }
    llvm::json::Object entry{{"name", name},
                             {"key", keyJson(t.key)},
                             {"dense_transposed", t.key.dtype == "i8"},
                             {"source", t.source},
                             {"candidates", std::move(list)}};
    llvm::json::Object autoJson{{"sparse", decision.sparse},
                                {"predicted_sparse_us", decision.sparseUs},
                                {"why", decision.why},
                                {"config", autoConfig}};
    if (decision.denseUs > 0)
      autoJson["predicted_dense_us"] = decision.denseUs;
    entry["auto"] = std::move(autoJson);
    manifestOps.push_back(std::move(entry));
  }
  llvm::json::Object manifest{{"format", "stc-tune-manifest"},
                              {"version", 1},
                              {"target", options.target},
                              {"ops", std::move(manifestOps)}};
  std::string manifestText;
  llvm::raw_string_ostream os(manifestText);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  os.flush();
  files.emplace_back(outputDir + "/manifest.json", manifestText);
  return failed(writeAll(files)) ? 1 : 0;
}
