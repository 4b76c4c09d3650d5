//===- stc-prune.cpp - prune weights files to 2:4 ---------------*- C++ -*-===//
//
// `stc-prune IN.npy|IN.safetensors -o OUT [options]`: prunes the weights of a
// NumPy or safetensors file to the 2:4 pattern along their reduction axis
// (the input features of nn.Linear, the input channels of a convolution),
// optionally after a channel permutation search, and writes them back either
// dense (same layout, pruned) or compressed in the canonical format of
// docs/DESIGN.md §3.  The command line is a stable contract:
//
//   stc-prune INPUT(.npy|.safetensors) -o OUTPUT [--method=strip|tile]
//             [--permute] [--tensors=NAME,...] [--compress]
//             [--report=FILE.json] [--seed=N] [--axis=N]
//             [--max-rounds=N] [--progress]
//
// The same input and options give byte-identical outputs and reports on any
// machine: the permutation search is bounded by --max-rounds (work), never
// by time (docs/RELIABILITY.md).
//
// The pruning itself is runtime/format (StcFormat.h, StcPrune.h): this file
// chooses the tensors and axes, lays each tensor out as rows x K, and writes
// the outputs.  Every failure is one `stc-prune: error: ...` line and a
// non-zero exit; all output files (the report included) are written to
// temporary files first and renamed into place only once everything
// succeeded.
//
//===----------------------------------------------------------------------===//

#include "compiler/StcVersion.h"
#include "runtime/format/StcFormat.h"
#include "runtime/format/StcLimits.h"
#include "runtime/format/StcPrune.h"
#include "runtime/npy/Npy.h"
#include "runtime/safetensors/Safetensors.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cl = llvm::cl;
namespace fmt = stc::format;
namespace st = stc::safetensors;

static constexpr const char *kTool = "stc-prune";
/// The value of the "stc.format" metadata of compressed safetensors outputs.
static constexpr const char *kCompressedFormat = "stc-2:4-canonical-v1";

static cl::OptionCategory category("stc-prune options");
// Required arguments and numbers are checked here rather than by
// llvm::cl, so that their errors are one `stc-prune: error:` line.
static cl::opt<std::string> inputPath(cl::Positional,
                                      cl::desc("<input.npy|input.safetensors>"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::value_desc("file"),
               cl::desc("Output file, of the input's kind (.npy or "
                        ".safetensors)"),
               cl::cat(category));
static cl::opt<std::string>
    methodOpt("method", cl::init("strip"), cl::value_desc("strip|tile"),
              cl::desc("strip: keep the 2 largest of every 4 along the "
                       "reduction axis (default); tile: keep 2 per row and "
                       "2 per column of every 4x4 tile, so that the "
                       "transpose is 2:4 too"),
              cl::cat(category));
static cl::opt<bool> permuteOpt(
    "permute",
    cl::desc("Search a permutation of the reduction channels under which "
             "pruning keeps more magnitude; the dense output stays in the "
             "original channel order"),
    cl::cat(category));
static cl::list<std::string> tensorsOpt(
    "tensors", cl::CommaSeparated, cl::value_desc("name,..."),
    cl::desc("safetensors: prune exactly these tensors (default: every "
             "F32/F16/BF16 tensor of rank >= 2 that does not look like a "
             "bias, norm or embedding)"),
    cl::cat(category));
static cl::opt<bool> compressOpt(
    "compress",
    cl::desc("Write the canonical compressed form (values + metadata) "
             "instead of the pruned dense tensors"),
    cl::cat(category));
static cl::opt<std::string>
    reportOpt("report", cl::value_desc("file.json"),
              cl::desc("Also write the per-tensor report as JSON"),
              cl::cat(category));
static cl::opt<std::string>
    seedOpt("seed", cl::init("0"), cl::value_desc("n"),
            cl::desc("Seed of the permutation search (default 0)"),
            cl::cat(category));
static cl::opt<std::string>
    axisOpt("axis", cl::value_desc("n"),
            cl::desc("Reduction axis (negative counts from the end); default: "
                     "the last axis for .npy, see below for safetensors"),
            cl::cat(category));
// Removed: a wall-clock budget made the permutation depend on the machine's
// speed. Still recognised, so that old command lines get a clear error.
static cl::opt<std::string> timeBudgetOpt("time-budget", cl::Hidden,
                                          cl::cat(category));
static cl::opt<std::string> maxRoundsOpt(
    "max-rounds", cl::init("100"), cl::value_desc("n"),
    cl::desc("Rounds of the permutation search per tensor (default 100): "
             "with the seed, what makes the permutation reproducible"),
    cl::cat(category));
static cl::opt<bool> progressOpt(
    "progress",
    cl::desc("Show a progress bar on stderr even when it is not a terminal"),
    cl::cat(category));

static cl::extrahelp moreHelp(R"(
Which tensors, along which axis:
  .npy          the one array (rank >= 2), along the last axis or --axis.
                Any rank: the other dimensions are the rows.
  .safetensors  --tensors, or by default every F32/F16/BF16 tensor of rank
                >= 2 whose name has no "bias", "norm" or "embed" part and
                whose reduction size is a multiple of 4 (the others are
                copied unchanged and listed as skipped).  Rank 2 (nn.Linear,
                out x in): along the last axis.  Rank >= 3 (convolution
                filters, O x I x kh x kw): along the input channels, axis 1,
                for each (o, kh, kw), as TensorRT and Apex ASP do.  --axis
                overrides both.  F16 and BF16 stay in their own type.

--method=tile --permute: the permutation is searched for strip pruning
  (the objective the search optimises), then tile pruning runs in the
  permuted channel order; if that keeps less than tile pruning without the
  permutation, the identity is used (and reported) instead.

Outputs:
  dense (default)  the pruned tensors, same shape, dtype and channel order
                   (also with --permute: the output is 2:4 in the permuted
                   order given by the report's "perm",
                   permuted[..., i] = original[..., perm[i]]).
  --compress       for a pruned tensor of shape S along axis a, with K =
                   S[a] and Kp = K rounded up to 16: values of shape
                   (S without a) + [Kp/2] in the tensor's dtype, and
                   metadata (S without a) + [Kp/16] 16-bit words, row-major
                   with each row's values contiguous (docs/DESIGN.md §3).
                   With --permute they are those of the permuted tensor
                   (the only one that is 2:4), and the permutation is saved.
    .npy:          OUTPUT holds the values, <OUTPUT stem>.meta.npy the
                   metadata (<i2, as stc-run reads i16), and with --permute
                   <OUTPUT stem>.perm.npy the permutation (<i8).
    .safetensors:  NAME becomes NAME.values, NAME.meta (U16) and with
                   --permute NAME.perm (I64); __metadata__ gets
                   "stc.format" = "stc-2:4-canonical-v1".
  Every safetensors output keeps the input's __metadata__ and adds
  "stc.version" and, per pruned tensor NAME, "stc.prune.NAME" (a JSON
  string: method, axis, shape, and the names of the compressed tensors).
  Tensors are stored by decreasing element size so that each is aligned.

Report (stdout; --report=FILE.json as JSON): per tensor the kept fraction
of the L1 magnitude, that of plain strip pruning, and with --permute the
kept fraction without the permutation and the fraction of the magnitude
lost without it that the permutation won back.
)");

namespace {

/// The numeric options, parsed.
struct Settings {
  uint64_t seed = 0;
  std::optional<int> axis;
  int maxRounds = 100;
};
Settings settings;

//===----------------------------------------------------------------------===//
// Progress bar and messages
//===----------------------------------------------------------------------===//

/// A one-line progress bar on stderr, redrawn in place.  It is shown when
/// stderr is a terminal and the run lasts more than a moment, or always with
/// --progress; it is erased before anything else is printed so that error
/// and report lines are never mixed into it.
class ProgressBar {
public:
  void init(bool forced) {
    terminal = llvm::sys::Process::StandardErrIsDisplayed();
    enabled = forced || terminal;
    delay = forced ? 0.0 : 0.5;
    start = Clock::now();
  }

  void update(size_t index, size_t count, const std::string &name,
              double fraction) {
    if (!enabled)
      return;
    auto now = Clock::now();
    double sinceStart = std::chrono::duration<double>(now - start).count();
    double sinceDraw = std::chrono::duration<double>(now - lastDraw).count();
    // Redrawn in place on a terminal; elsewhere each state is a new line,
    // so draw less often.
    double interval = terminal ? 0.1 : 1.0;
    if (sinceStart < delay || (shown && sinceDraw < interval && fraction < 1.0))
      return;
    lastDraw = now;
    double overall = (static_cast<double>(index) + fraction) /
                     static_cast<double>(count ? count : 1);
    constexpr int kWidth = 24;
    int filled = static_cast<int>(overall * kWidth);
    std::string line = "[" + std::string(filled, '#') +
                       std::string(kWidth - filled, '-') + "] " +
                       std::to_string(index + 1) + "/" + std::to_string(count) +
                       " " + name;
    if (line.size() > 72)
      line = line.substr(0, 69) + "...";
    char pct[16];
    std::snprintf(pct, sizeof(pct), " %3d%%",
                  static_cast<int>(fraction * 100.0));
    line += pct;
    erase();
    llvm::errs() << line;
    llvm::errs().flush();
    width = line.size();
    shown = true;
  }

  /// Removes the bar (if drawn) so that the next output starts a clean line.
  void erase() {
    if (!shown)
      return;
    if (terminal)
      llvm::errs() << "\r" << std::string(width, ' ') << "\r";
    else
      llvm::errs() << "\n";
    llvm::errs().flush();
    shown = false;
  }

private:
  using Clock = std::chrono::steady_clock;
  bool enabled = false;
  bool terminal = false;
  bool shown = false;
  double delay = 0.5;
  size_t width = 0;
  Clock::time_point start;
  Clock::time_point lastDraw;
};

ProgressBar progress;

int fail(const std::string &message) {
  progress.erase();
  llvm::outs().flush();
  llvm::errs() << kTool << ": error: " << message << "\n";
  return 1;
}

/// Prints one report line on stdout.
void say(const std::string &line) {
  progress.erase();
  llvm::outs() << line << "\n";
  llvm::outs().flush();
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string percent(double ratio) {
  if (!std::isfinite(ratio))
    return "n/a";
  return llvm::formatv("{0:F2}%", ratio * 100.0).str();
}

llvm::json::Value jsonNumber(double v) {
  if (!std::isfinite(v))
    return nullptr;
  return v;
}

llvm::json::Array jsonInts(const std::vector<int64_t> &v) {
  llvm::json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

//===----------------------------------------------------------------------===//
// One tensor
//===----------------------------------------------------------------------===//

/// A tensor selected for pruning.
struct Job {
  std::string name;
  /// "F32", "F16" or "BF16" (a .npy f4 is F32, f2 is F16).
  std::string dtype;
  std::vector<int64_t> shape;
  /// The reduction axis, in [0, rank).
  int axis = 0;
  /// The tensor's bytes: replaced by the pruned dense tensor unless
  /// compressing.
  std::vector<uint8_t> *data = nullptr;
};

/// What pruning a tensor produced.
struct Outcome {
  std::vector<uint8_t> values;
  std::vector<int64_t> valuesShape;
  std::vector<uint16_t> meta;
  std::vector<int64_t> metaShape;
  /// The channel order pruned in (identity without --permute).
  std::vector<int64_t> perm;
  /// L1 magnitudes: total, kept by the output, kept by the same method
  /// without permutation, and kept by plain strip without permutation.
  double total = 0;
  double kept = 0;
  double keptIdentity = 0;
  double keptStrip = 0;
  double efficacy = 0;
  int searchRounds = 0;

  double ratio(double x) const { return total > 0 ? x / total : 1.0; }
  /// The share of the magnitude lost without the permutation that the
  /// permutation won back.
  double recovered() const {
    double lost = total - keptIdentity;
    return lost > 0 ? (kept - keptIdentity) / lost : 0.0;
  }
};

/// The tensor seen as `slices` matrices of `rows` x K, K along the reduction
/// axis (stride `inner`).  With the dimensions before the axis flattened to
/// `outer` and those after it to `inner`, the rows are the outer index and
/// there is one slice per inner index (a conv filter O x I x kh x kw gives
/// one O x I matrix per (kh, kw), so a 4x4 tile spans 4 output channels);
/// when outer is 1 (a K x N matrix along axis 0) the rows are the inner
/// index instead.  Element c of row r of slice s is element(s, r, c) of the
/// row-major tensor.
struct Geometry {
  int64_t outer = 1, k = 1, inner = 1;
  bool rowsAreOuter = true;
  int64_t slices = 1, rows = 1, rowStride = 1;

  Geometry(const std::vector<int64_t> &shape, int axis) {
    for (int d = 0; d < axis; ++d)
      outer *= shape[d];
    k = shape[axis];
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
    rowsAreOuter = !(outer == 1 && inner > 1);
    slices = rowsAreOuter ? inner : 1;
    rows = rowsAreOuter ? outer : inner;
    rowStride = rowsAreOuter ? k * inner : 1;
  }
  int64_t element(int64_t s, int64_t r, int64_t c) const {
    return (rowsAreOuter ? s : 0) + r * rowStride + c * inner;
  }
  /// Row of (s, r) in the compressed output, whose rows are the non-reduction
  /// dimensions in their original order.
  int64_t compressedRow(int64_t s, int64_t r) const {
    return rowsAreOuter ? r * inner + s : r;
  }
};

template <typename T>
bool pruneTensor(const Job &job, fmt::MagnitudeFn<T> mag,
                 fmt::PruneMethod method, bool permute, bool compress,
                 const std::function<void(double)> &onProgress, Outcome &out,
                 std::string &error) {
  // main() refused tensors without elements, and the reader checked that
  // the data holds every element: the products below fit.
  const Geometry g(job.shape, job.axis);
  std::optional<int64_t> count = fmt::checkedElementCount(job.shape);
  if (!count || *count == 0 ||
      uint64_t(*count) * sizeof(T) != job.data->size()) {
    error = "internal error: tensor '" + job.name + "' of shape " +
            shapeString(job.shape) + " does not match its data";
    return false;
  }
  const int64_t n = *count;
  const int64_t allRows = g.slices * g.rows;
  std::vector<T> w(static_cast<size_t>(n));
  std::memcpy(w.data(), job.data->data(), w.size() * sizeof(T));

  // |W| as an allRows x K matrix, in the row order of the slices.
  std::vector<float> mags(static_cast<size_t>(allRows * g.k));
  for (int64_t s = 0; s < g.slices; ++s)
    for (int64_t r = 0; r < g.rows; ++r)
      for (int64_t c = 0; c < g.k; ++c)
        mags[(s * g.rows + r) * g.k + c] = mag(w[g.element(s, r, c)]);
  fmt::View2D<const float> magView =
      fmt::View2D<const float>::rowMajor(mags.data(), allRows, g.k);
  out.total = fmt::totalMagnitude(magView);

  std::vector<int64_t> identity(static_cast<size_t>(g.k));
  for (int64_t c = 0; c < g.k; ++c)
    identity[c] = c;
  out.perm = identity;
  if (permute) {
    for (float m : mags) {
      if (!std::isfinite(m)) {
        error = "tensor '" + job.name +
                "' contains NaN or infinite values: --permute needs finite "
                "weights";
        return false;
      }
    }
    // A single group has nothing to permute.
    if (g.k > 4 && allRows > 0) {
      fmt::PermutationSearchOptions options;
      options.seed = settings.seed;
      options.maxRounds = settings.maxRounds;
      options.progress = onProgress;
      fmt::PermutationSearchResult result =
          fmt::searchChannelPermutation(magView, fmt::kPattern24, options);
      if (!fmt::isPermutation(result.perm, g.k)) {
        error = "internal error: the permutation search of tensor '" +
                job.name + "' returned no permutation";
        return false;
      }
      out.perm = std::move(result.perm);
      out.efficacy = result.efficacy;
      out.searchRounds = result.rounds;
    }
  }

  // Gathers the slices with the columns in the order `order`, prunes them
  // with `how`, and returns them (slice-major, each rows x K row-major).
  auto prunedMatrix = [&](const std::vector<int64_t> &order,
                          fmt::PruneMethod how, std::vector<T> &x) {
    x.resize(static_cast<size_t>(allRows * g.k));
    for (int64_t s = 0; s < g.slices; ++s)
      for (int64_t r = 0; r < g.rows; ++r)
        for (int64_t c = 0; c < g.k; ++c)
          x[(s * g.rows + r) * g.k + c] = w[g.element(s, r, order[c])];
    for (int64_t s = 0; s < g.slices; ++s) {
      auto view =
          fmt::View2D<T>::rowMajor(x.data() + s * g.rows * g.k, g.rows, g.k);
      if (!fmt::pruneWithMethod<T>(view, view, fmt::kPattern24, how, mag))
        return false;
      if (fmt::checkPattern<T>(view, fmt::kPattern24, mag))
        return false;
    }
    return true;
  };
  auto keptOf = [&](const std::vector<T> &x) {
    double sum = 0;
    for (T v : x)
      sum += mag(v);
    return sum;
  };

  std::vector<T> x;
  if (!prunedMatrix(out.perm, method, x)) {
    error = "internal error: pruning tensor '" + job.name +
            "' did not give the 2:4 pattern";
    return false;
  }
  out.kept = keptOf(x);
  bool permuted = out.perm != identity;
  // The baselines, computed by pruning (rather than estimated) so that the
  // ratios compare sums taken the same way.
  std::vector<T> baseline;
  if (method == fmt::PruneMethod::Strip && !permuted) {
    out.keptStrip = out.kept;
  } else {
    prunedMatrix(identity, fmt::PruneMethod::Strip, baseline);
    out.keptStrip = keptOf(baseline);
  }
  if (!permuted) {
    out.keptIdentity = out.kept;
  } else if (method == fmt::PruneMethod::Strip) {
    out.keptIdentity = out.keptStrip;
  } else {
    prunedMatrix(identity, method, baseline);
    out.keptIdentity = keptOf(baseline);
    // The permutation was searched for strip pruning; tile pruning in its
    // order is usually better too, but not always: never be worse than
    // without it.
    if (out.kept < out.keptIdentity) {
      x.swap(baseline);
      out.perm = identity;
      out.kept = out.keptIdentity;
    }
  }

  if (!compress) {
    // Back to the original channel order.
    for (int64_t s = 0; s < g.slices; ++s)
      for (int64_t r = 0; r < g.rows; ++r)
        for (int64_t c = 0; c < g.k; ++c)
          w[g.element(s, r, out.perm[c])] = x[(s * g.rows + r) * g.k + c];
    std::memcpy(job.data->data(), w.data(), w.size() * sizeof(T));
    return true;
  }

  const int64_t vpr = fmt::valuesPerRow(g.k, fmt::kPattern24);
  const int64_t mpr = fmt::metaWordsPerRow(g.k, fmt::kPattern24);
  std::vector<T> values(static_cast<size_t>(allRows * vpr));
  out.meta.assign(static_cast<size_t>(allRows * mpr), 0);
  for (int64_t s = 0; s < g.slices; ++s) {
    int64_t first = g.compressedRow(s, 0);
    int64_t step = g.rows > 1 ? g.compressedRow(s, 1) - first : 1;
    fmt::View2D<const T> in = fmt::View2D<const T>::rowMajor(
        x.data() + s * g.rows * g.k, g.rows, g.k);
    fmt::View2D<T> v(values.data() + first * vpr, g.rows, vpr, step * vpr, 1);
    fmt::View2D<uint16_t> m(out.meta.data() + first * mpr, g.rows, mpr,
                            step * mpr, 1);
    fmt::Status status = fmt::compress<T>(in, v, m, fmt::kPattern24, mag);
    if (!status.ok()) {
      error = "internal error: compressing tensor '" + job.name +
              "': " + status.message;
      return false;
    }
  }
  out.values.resize(values.size() * sizeof(T));
  std::memcpy(out.values.data(), values.data(), out.values.size());
  std::vector<int64_t> rowsShape;
  for (size_t d = 0; d < job.shape.size(); ++d)
    if (static_cast<int>(d) != job.axis)
      rowsShape.push_back(job.shape[d]);
  out.valuesShape = rowsShape;
  out.valuesShape.push_back(vpr);
  out.metaShape = rowsShape;
  out.metaShape.push_back(mpr);
  return true;
}

bool pruneJob(const Job &job, fmt::PruneMethod method, bool permute,
              bool compress, const std::function<void(double)> &onProgress,
              Outcome &out, std::string &error) {
  if (job.dtype == "F32")
    return pruneTensor<float>(job, fmt::magnitudeF32, method, permute, compress,
                              onProgress, out, error);
  if (job.dtype == "F16")
    return pruneTensor<uint16_t>(job, fmt::magnitudeF16, method, permute,
                                 compress, onProgress, out, error);
  return pruneTensor<uint16_t>(job, fmt::magnitudeBF16, method, permute,
                               compress, onProgress, out, error);
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

/// Resolves --axis (or `fallback`) against `rank`; none if out of range.
std::optional<int> resolveAxis(int rank, int fallback) {
  int axis = settings.axis.value_or(fallback);
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::string axisRangeError(const std::string &what, int rank,
                           const std::vector<int64_t> &shape) {
  return "--axis=" + axisOpt + " is out of range for " + what + " of rank " +
         std::to_string(rank) + " (shape " + shapeString(shape) +
         "; expected " + std::to_string(-rank) + " to " +
         std::to_string(rank - 1) + ")";
}

/// Whether a tensor name looks like something that is not a matmul or conv
/// weight (biases, normalisation parameters, embedding tables), which the
/// default selection leaves alone.
bool looksLikeNonWeight(const std::string &name) {
  std::string lower = llvm::StringRef(name).lower();
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(lower).split(parts, '.');
  for (llvm::StringRef part : parts) {
    if (part.contains("bias") || part.contains("norm") ||
        part.contains("embed"))
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Output files
//===----------------------------------------------------------------------===//

/// Writes every file to a temporary file in its directory, then renames them
/// all into place: a failure before the renames leaves nothing behind.
bool commitFiles(
    const std::vector<std::pair<std::string, std::vector<uint8_t>>> &files,
    std::string &error) {
  std::vector<llvm::sys::fs::TempFile> temps;
  auto discardAll = [&] {
    for (llvm::sys::fs::TempFile &t : temps)
      llvm::consumeError(t.discard());
  };
  for (const auto &[path, bytes] : files) {
    llvm::SmallString<256> model(path);
    model += ".tmp-%%%%%%%%";
    llvm::Expected<llvm::sys::fs::TempFile> temp =
        llvm::sys::fs::TempFile::create(model);
    if (!temp) {
      llvm::StringRef dir = llvm::sys::path::parent_path(path);
      error = path + ": cannot create a temporary file in '" +
              (dir.empty() ? std::string(".") : dir.str()) +
              "': " + llvm::toString(temp.takeError());
      discardAll();
      return false;
    }
    temps.push_back(std::move(*temp));
    llvm::raw_fd_ostream os(temps.back().FD, /*shouldClose=*/false);
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.flush();
    if (os.has_error()) {
      error = path + ": write error: " + os.error().message();
      os.clear_error();
      discardAll();
      return false;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (llvm::Error e = temps[i].keep(files[i].first)) {
      error = files[i].first +
              ": cannot rename into place: " + llvm::toString(std::move(e));
      for (size_t j = i + 1; j < temps.size(); ++j)
        llvm::consumeError(temps[j].discard());
      return false;
    }
  }
  return true;
}

bool isDirectory(const std::string &path) {
  return llvm::sys::fs::is_directory(path);
}

std::vector<uint8_t> bytesOf(const std::string &text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

template <typename T>
std::vector<uint8_t> rawBytes(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

} // namespace

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << kTool << " " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  // Parse errors come back as text so that they too are one error line.
  std::string parseErrors;
  llvm::raw_string_ostream parseStream(parseErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "stc-prune: prune the weights of a .npy or .safetensors file to "
          "2:4\n",
          &parseStream)) {
    // Some errors go to stderr directly, already one line: add nothing.
    // The others come here, with a "Try: ... --help" and a "Did you mean"
    // line that are left out.
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(parseErrors).split(lines, '\n', -1, false);
    if (lines.empty())
      return 1;
    llvm::StringRef first = lines.front().trim();
    first = first.split(".  Try:").first;
    if (size_t colon = first.find(": ");
        colon != llvm::StringRef::npos && first.starts_with(argv[0]))
      first = first.drop_front(colon + 2);
    first.consume_front(std::string(kTool) + ": ");
    return fail(first.str() + " (see stc-prune --help)");
  }
  progress.init(progressOpt);

  std::optional<fmt::PruneMethod> method = fmt::parsePruneMethod(methodOpt);
  if (!method)
    return fail("--method must be strip or tile, got '" + methodOpt + "'");
  if (inputPath.empty())
    return fail("no input file (usage: stc-prune INPUT.npy|INPUT.safetensors "
                "-o OUTPUT [options])");
  if (outputPath.empty())
    return fail("no output file: -o OUTPUT is required");
  if (llvm::StringRef(seedOpt).getAsInteger(10, settings.seed))
    return fail("--seed must be a non-negative integer, got '" + seedOpt + "'");
  if (axisOpt.getNumOccurrences()) {
    int axis;
    if (llvm::StringRef(axisOpt).getAsInteger(10, axis))
      return fail("--axis must be an integer, got '" + axisOpt + "'");
    settings.axis = axis;
  }
  if (timeBudgetOpt.getNumOccurrences())
    return fail("--time-budget was removed: the permutation search is "
                "bounded by --max-rounds alone (rounds of work), so that the "
                "permutation does not depend on the machine's speed");
  if (llvm::StringRef(maxRoundsOpt).getAsInteger(10, settings.maxRounds) ||
      settings.maxRounds < 1)
    return fail("--max-rounds must be an integer >= 1, got '" + maxRoundsOpt +
                "'");
  llvm::StringRef in(inputPath);
  bool isNpy = in.ends_with(".npy");
  if (!isNpy && !in.ends_with(".safetensors"))
    return fail(inputPath +
                ": unsupported input (expected a .npy or .safetensors file)");
  const char *ext = isNpy ? ".npy" : ".safetensors";
  if (!llvm::StringRef(outputPath).ends_with(ext))
    return fail("output '" + outputPath + "' must end in " + ext +
                " like the input");
  if (isNpy && tensorsOpt.getNumOccurrences())
    return fail("--tensors selects tensors of a .safetensors input; " +
                inputPath + " is a .npy file");
  if (!reportOpt.empty() && reportOpt == outputPath)
    return fail("--report and -o name the same file '" + outputPath + "'");

  // The output files, in the order they are renamed into place.
  std::string stem = outputPath.substr(0, outputPath.size() - 4);
  std::vector<std::string> outputNames;
  if (!reportOpt.empty())
    outputNames.push_back(reportOpt);
  if (isNpy && compressOpt) {
    outputNames.push_back(stem + ".meta.npy");
    if (permuteOpt)
      outputNames.push_back(stem + ".perm.npy");
  }
  outputNames.push_back(outputPath);
  for (const std::string &name : outputNames)
    if (isDirectory(name))
      return fail(name + ": is a directory");

  // Read the input and choose the jobs.
  std::string error;
  stc::npy::Array array;
  st::File file;
  std::vector<Job> jobs;
  std::vector<std::pair<std::string, std::string>> skipped;
  if (isNpy) {
    if (!stc::npy::readNpy(inputPath, array, error))
      return fail(error);
    Job job;
    job.name = llvm::sys::path::filename(inputPath).str();
    if (array.dtype == "f4")
      job.dtype = "F32";
    else if (array.dtype == "f2")
      job.dtype = "F16";
    else
      return fail(inputPath + ": dtype " + array.dtype +
                  " cannot be pruned (expected f4 or f2)");
    int rank = static_cast<int>(array.shape.size());
    if (rank < 2)
      return fail(inputPath + ": shape " +
                  stc::npy::shapeToString(array.shape) + " has rank " +
                  std::to_string(rank) + "; pruning needs rank 2 or more");
    std::optional<int> axis = resolveAxis(rank, -1);
    if (!axis)
      return fail(axisRangeError(inputPath, rank, array.shape));
    // Nothing to prune, and its other dimensions may be as large as the
    // header likes (a permutation of 2^40 channels, loops over 2^32 rows of
    // nothing): refused rather than copied.
    if (array.numElements() == 0)
      return fail(inputPath + ": shape " +
                  stc::npy::shapeToString(array.shape) +
                  " has no elements: there is nothing to prune");
    job.shape = array.shape;
    job.axis = *axis;
    job.data = &array.data;
    jobs.push_back(job);
  } else {
    if (!st::readSafetensors(inputPath, file, error))
      return fail(error);
    std::set<std::string> named(tensorsOpt.begin(), tensorsOpt.end());
    for (const std::string &name : named)
      if (!file.find(name))
        return fail("tensor '" + name + "' is not in " + inputPath);
    for (st::Tensor &t : file.tensors) {
      bool explicitly = named.count(t.name) != 0;
      if (!named.empty() && !explicitly)
        continue;
      int rank = static_cast<int>(t.shape.size());
      std::string dtype = st::dtypeName(t.dtype);
      bool prunable = dtype == "F32" || dtype == "F16" || dtype == "BF16";
      std::string reason;
      if (!prunable)
        reason = "dtype " + dtype + " (only F32, F16 and BF16 are pruned)";
      else if (rank < 2)
        reason = "rank " + std::to_string(rank) +
                 " (only tensors of rank 2 or more are pruned)";
      if (!reason.empty()) {
        if (explicitly)
          return fail(inputPath + ": tensor '" + t.name +
                      "' cannot be pruned: " + reason);
        skipped.emplace_back(t.name, reason);
        continue;
      }
      if (!explicitly && looksLikeNonWeight(t.name)) {
        skipped.emplace_back(t.name, "looks like a bias, norm or embedding");
        continue;
      }
      // Rank 2 (nn.Linear): the last axis; rank >= 3 (conv filters in
      // PyTorch's O x I x ... layout): the input channels.
      std::optional<int> axis = resolveAxis(rank, 1);
      if (!axis)
        return fail(axisRangeError("tensor '" + t.name + "'", rank, t.shape));
      int64_t k = t.shape[*axis];
      if (explicitly && t.numElements() == 0)
        return fail(inputPath + ": tensor '" + t.name + "' of shape " +
                    shapeString(t.shape) +
                    " has no elements: there is nothing to prune");
      if (!explicitly && (k % 4 != 0 || t.numElements() == 0)) {
        skipped.emplace_back(t.name, t.numElements() == 0
                                         ? std::string("empty")
                                         : "reduction size " +
                                               std::to_string(k) +
                                               " is not a multiple of 4");
        continue;
      }
      if (compressOpt) {
        for (const char *suffix : {".values", ".meta", ".perm"})
          if (file.find(t.name + suffix))
            return fail("cannot compress tensor '" + t.name +
                        "': " + inputPath + " already has a tensor '" + t.name +
                        suffix + "'");
      }
      Job job;
      job.name = t.name;
      job.dtype = dtype;
      job.shape = t.shape;
      job.axis = *axis;
      job.data = &t.data;
      jobs.push_back(job);
    }
  }

  // Prune.
  std::vector<Outcome> outcomes(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job &job = jobs[i];
    auto onProgress = [&, i](double f) {
      progress.update(i, jobs.size(), job.name, f);
    };
    onProgress(0.0);
    if (!pruneJob(job, *method, permuteOpt, compressOpt, onProgress,
                  outcomes[i], error))
      return fail(inputPath + ": " + error);
    const Outcome &o = outcomes[i];
    std::string line = job.name + ": shape " + shapeString(job.shape) + " " +
                       job.dtype + ", axis " + std::to_string(job.axis) + ", " +
                       fmt::pruneMethodName(*method);
    if (permuteOpt) {
      line += " + permutation: kept " + percent(o.ratio(o.kept)) + " (" +
              percent(o.ratio(o.keptIdentity)) + " without permutation";
      if (*method != fmt::PruneMethod::Strip)
        line += ", " + percent(o.ratio(o.keptStrip)) + " by plain strip";
      line += "), won back " + percent(o.recovered()) +
              " of the magnitude lost without it, search " +
              std::to_string(o.searchRounds) + " rounds";
    } else {
      line += ": kept " + percent(o.ratio(o.kept)) + " of the magnitude";
      if (*method != fmt::PruneMethod::Strip)
        line += " (" + percent(o.ratio(o.keptStrip)) + " by plain strip)";
    }
    say(line);
  }
  progress.erase();
  for (const auto &[name, reason] : skipped)
    say(name + ": skipped: " + reason);
  if (jobs.empty())
    say("no tensor pruned");

  // Assemble the outputs.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> outputs;
  if (!reportOpt.empty()) {
    llvm::json::Array tensors;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Job &job = jobs[i];
      const Outcome &o = outcomes[i];
      llvm::json::Object t{
          {"name", job.name},
          {"shape", jsonInts(job.shape)},
          {"dtype", job.dtype},
          {"axis", job.axis},
          {"method", fmt::pruneMethodName(*method)},
          {"kept_ratio", jsonNumber(o.ratio(o.kept))},
          {"kept_ratio_strip", jsonNumber(o.ratio(o.keptStrip))},
      };
      if (permuteOpt) {
        t["kept_ratio_identity"] = jsonNumber(o.ratio(o.keptIdentity));
        t["recovered_fraction"] = jsonNumber(o.recovered());
        t["perm"] = jsonInts(o.perm);
        t["efficacy"] = jsonNumber(o.efficacy);
        t["search_rounds"] = o.searchRounds;
      } else {
        t["recovered_fraction"] = nullptr;
        t["perm"] = nullptr;
      }
      if (compressOpt) {
        t["values_shape"] = jsonInts(o.valuesShape);
        t["meta_shape"] = jsonInts(o.metaShape);
      }
      tensors.push_back(std::move(t));
    }
    llvm::json::Array skippedJson;
    for (const auto &[name, reason] : skipped)
      skippedJson.push_back(
          llvm::json::Object{{"name", name}, {"reason", reason}});
    llvm::json::Object report{
        {"version", STC_VERSION_STRING},
        {"input", inputPath},
        {"output", outputPath},
        {"pattern", "2:4"},
        {"method", fmt::pruneMethodName(*method)},
        {"permute", permuteOpt.getValue()},
        {"compress", compressOpt.getValue()},
        {"seed", settings.seed},
        {"max_rounds", settings.maxRounds},
        {"tensors", std::move(tensors)},
        {"skipped", std::move(skippedJson)},
    };
    outputs.emplace_back(
        reportOpt,
        bytesOf(
            llvm::formatv("{0:2}", llvm::json::Value(std::move(report))).str() +
            "\n"));
  }

  if (isNpy) {
    const Outcome &o = outcomes[0];
    stc::npy::Array values = array;
    if (compressOpt) {
      values.shape = o.valuesShape;
      values.data = o.values;
      stc::npy::Array meta;
      meta.dtype = "i2";
      meta.shape = o.metaShape;
      meta.data = rawBytes(o.meta);
      std::vector<uint8_t> bytes;
      if (!stc::npy::encodeNpy(meta, bytes, error))
        return fail(stem + ".meta.npy: " + error);
      outputs.emplace_back(stem + ".meta.npy", std::move(bytes));
      if (permuteOpt) {
        stc::npy::Array perm;
        perm.dtype = "i8";
        perm.shape = {static_cast<int64_t>(o.perm.size())};
        perm.data = rawBytes(o.perm);
        if (!stc::npy::encodeNpy(perm, bytes, error))
          return fail(stem + ".perm.npy: " + error);
        outputs.emplace_back(stem + ".perm.npy", std::move(bytes));
      }
    }
    std::vector<uint8_t> bytes;
    if (!stc::npy::encodeNpy(values, bytes, error))
      return fail(outputPath + ": " + error);
    outputs.emplace_back(outputPath, std::move(bytes));
  } else {
    std::map<std::string, size_t> jobOf;
    for (size_t i = 0; i < jobs.size(); ++i)
      jobOf[jobs[i].name] = i;
    st::File result;
    result.metadata = file.metadata;
    result.metadata["stc.version"] = STC_VERSION_STRING;
    if (compressOpt && !jobs.empty())
      result.metadata["stc.format"] = kCompressedFormat;
    for (st::Tensor &t : file.tensors) {
      auto it = jobOf.find(t.name);
      if (it == jobOf.end()) {
        result.tensors.push_back(std::move(t));
        continue;
      }
      const Job &job = jobs[it->second];
      const Outcome &o = outcomes[it->second];
      llvm::json::Object info{
          {"method", fmt::pruneMethodName(*method)},
          {"pattern", "2:4"},
          {"axis", job.axis},
          {"shape", jsonInts(job.shape)},
          {"dtype", job.dtype},
          {"permuted", permuteOpt && compressOpt},
          {"compressed", compressOpt.getValue()},
      };
      if (!compressOpt) {
        result.tensors.push_back(std::move(t));
      } else {
        std::string name = t.name;
        info["values"] = name + ".values";
        info["meta"] = name + ".meta";
        result.tensors.push_back(
            {name + ".values", t.dtype, o.valuesShape, o.values});
        result.tensors.push_back(
            {name + ".meta", st::Dtype::U16, o.metaShape, rawBytes(o.meta)});
        if (permuteOpt) {
          info["perm"] = name + ".perm";
          result.tensors.push_back({name + ".perm",
                                    st::Dtype::I64,
                                    {static_cast<int64_t>(o.perm.size())},
                                    rawBytes(o.perm)});
        }
      }
      result.metadata["stc.prune." + job.name] =
          llvm::formatv("{0}", llvm::json::Value(std::move(info))).str();
    }
    st::sortForAlignment(result.tensors);
    std::vector<uint8_t> bytes;
    if (!st::encodeSafetensors(result, bytes, error))
      return fail(outputPath + ": " + error);
    outputs.emplace_back(outputPath, std::move(bytes));
  }

  if (!commitFiles(outputs, error))
    return fail(error);
  return 0;
}
