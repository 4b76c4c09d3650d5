//===- TuningDb.cpp - the tuning database (docs/TUNING.md) ----------------===//
//
// See TuningDb.h. Reading is strict where the compiler would otherwise act
// on a guess (a key member missing or of the wrong type, a best without a
// configuration) and lenient where the format may grow (unknown members
// are ignored).
//
//===----------------------------------------------------------------------===//
#include "passes/Tuning/TuningDb.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace mlir::stc::tuning;
namespace json = llvm::json;

bool ConvShape::operator==(const ConvShape &o) const {
  return n == o.n && h == o.h && w == o.w && c == o.c && f == o.f &&
         kh == o.kh && kw == o.kw && strideH == o.strideH &&
         strideW == o.strideW && padTop == o.padTop && padLeft == o.padLeft &&
         padBottom == o.padBottom && padRight == o.padRight &&
         dilationH == o.dilationH && dilationW == o.dilationW &&
         groups == o.groups;
}

std::string ConvShape::str() const {
  return llvm::formatv("{0}x{1}x{2}x{3} * {4}x{5}x{6} s{7},{8} "
                       "p{9},{10},{11},{12} d{13},{14} g{15}",
                       n, h, w, c, f, kh, kw, strideH, strideW, padTop, padLeft,
                       padBottom, padRight, dilationH, dilationW, groups)
      .str();
}

bool TuningKey::sameProblem(const TuningKey &other) const {
  return arch == other.arch && op == other.op && m == other.m && n == other.n &&
         k == other.k && batch == other.batch && dtype == other.dtype &&
         out == other.out && epilogue == other.epilogue && conv == other.conv;
}

std::string TuningKey::str() const {
  if (conv)
    return llvm::formatv("conv {0} {1}->{2} {3} on {4}", conv->str(), dtype,
                         out, epilogue, arch)
        .str();
  return llvm::formatv("{0} {1}x{2}x{3}{4} {5}->{6} {7} on {8}", op, m, n, k,
                       batch == 1 ? std::string()
                                  : llvm::formatv(" batch {0}", batch).str(),
                       dtype, out, epilogue, arch)
      .str();
}

namespace {

/// Reads one entry; returns what is wrong, or "".
class EntryReader {
public:
  explicit EntryReader(const json::Object &object) : object(object) {}

  std::string read(TuningEntry &entry) {
    const json::Object *key = object.getObject("key");
    if (!key)
      return "no \"key\" object";
    TuningKey &k = entry.key;
    if (std::string why = readKey(*key, k); !why.empty())
      return why;
    const json::Object *best = object.getObject("best");
    if (!best)
      return "no \"best\" object";
    if (std::string why = readConfig(*best, entry.best, "best"); !why.empty())
      return why;
    if (entry.best.status != "ok")
      return "\"best\" has status \"" + entry.best.status + "\"";
    if (const json::Object *runnerUp = object.getObject("runner_up")) {
      MeasuredConfig r;
      if (std::string why = readConfig(*runnerUp, r, "runner_up"); !why.empty())
        return why;
      entry.runnerUp = r;
    }
    if (const json::Array *candidates = object.getArray("candidates")) {
      for (auto [i, value] : llvm::enumerate(*candidates)) {
        const json::Object *c = value.getAsObject();
        std::string where = llvm::formatv("candidates[{0}]", i).str();
        if (!c)
          return where + " is not an object";
        MeasuredConfig m;
        if (std::string why = readConfig(*c, m, where); !why.empty())
          return why;
        entry.candidates.push_back(std::move(m));
      }
    }
    return "";
  }

private:
  static std::string readKey(const json::Object &key, TuningKey &k) {
    for (auto [name, field] :
         {std::pair<const char *, std::string *>{"device", &k.device},
          {"cc", &k.cc},
          {"arch", &k.arch},
          {"op", &k.op},
          {"dtype", &k.dtype},
          {"out", &k.out},
          {"epilogue", &k.epilogue}}) {
      std::optional<llvm::StringRef> s = key.getString(name);
      if (!s || s->empty())
        return std::string("key has no string \"") + name + "\"";
      *field = s->str();
    }
    for (auto [name, field] : {std::pair<const char *, int64_t *>{"m", &k.m},
                               {"n", &k.n},
                               {"k", &k.k},
                               {"batch", &k.batch}}) {
      // Sizes a kernel could have (the model's arithmetic stays in range).
      std::optional<int64_t> v = key.getInteger(name);
      if (!v || *v <= 0 || *v > (int64_t{1} << 31))
        return std::string("key has no integer \"") + name + "\" in 1..2^31";
      *field = *v;
    }
    if (k.op == "conv")
      return readConv(key, k);
    if (k.op != "matmul")
      return "key op \"" + k.op + "\" is not tuned (expected matmul or conv)";
    return "";
  }

  /// A convolution's "conv" object: sizes, and [h, w] / [top, left,
  /// bottom, right] arrays.
  static std::string readConv(const json::Object &key, TuningKey &k) {
    const json::Object *conv = key.getObject("conv");
    if (!conv)
      return "key op \"conv\" has no \"conv\" object";
    ConvShape c;
    auto integer = [](const json::Value *v, int64_t min, int64_t &out) {
      std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
      if (!i || *i < min || *i > (int64_t{1} << 31))
        return false;
      out = *i;
      return true;
    };
    for (auto [name, field] : {std::pair<const char *, int64_t *>{"n", &c.n},
                               {"h", &c.h},
                               {"w", &c.w},
                               {"c", &c.c},
                               {"f", &c.f},
                               {"kh", &c.kh},
                               {"kw", &c.kw},
                               {"groups", &c.groups}})
      if (!integer(conv->get(name), 1, *field))
        return std::string("conv has no integer \"") + name + "\" in 1..2^31";
    auto array = [&](const char *name, std::initializer_list<int64_t *> fields,
                     int64_t min) {
      const json::Array *a = conv->getArray(name);
      if (!a || a->size() != fields.size())
        return false;
      size_t i = 0;
      for (int64_t *field : fields)
        if (!integer(&(*a)[i++], min, *field))
          return false;
      return true;
    };
    if (!array("stride", {&c.strideH, &c.strideW}, 1))
      return "conv has no \"stride\" [h, w] of integers >= 1";
    if (!array("dilation", {&c.dilationH, &c.dilationW}, 1))
      return "conv has no \"dilation\" [h, w] of integers >= 1";
    if (!array("pad", {&c.padTop, &c.padLeft, &c.padBottom, &c.padRight}, 0))
      return "conv has no \"pad\" [top, left, bottom, right] of integers "
             ">= 0";
    if (c.c % c.groups || c.f % c.groups)
      return "conv's channels are not a multiple of its groups";
    k.conv = c;
    return "";
  }

  static std::string readConfig(const json::Object &c, MeasuredConfig &m,
                                const std::string &where) {
    if (std::optional<llvm::StringRef> status = c.getString("status"))
      m.status = status->str();
    if (m.status != "ok" && m.status != "wrong" && m.status != "failed" &&
        m.status != "skipped")
      return where + " has unknown status \"" + m.status + "\"";
    std::optional<bool> sparse = c.getBoolean("sparse");
    if (!sparse)
      return where + " has no boolean \"sparse\"";
    m.sparse = *sparse;
    std::optional<llvm::StringRef> config = c.getString("config");
    if (!config || !config->starts_with("#stc_gpu.kernel_config<"))
      return where + " has no \"config\" (#stc_gpu.kernel_config<...>)";
    m.config = config->str();
    if (m.status != "ok")
      return "";
    std::optional<double> median = c.getNumber("median_us");
    if (!median || !(*median > 0))
      return where + " has no positive \"median_us\"";
    m.medianUs = *median;
    return "";
  }

  const json::Object &object;
};

} // namespace

std::optional<std::string> TuningDb::add(llvm::StringRef text,
                                         llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &why) {
    return std::optional<std::string>(
        (llvm::Twine("tuning database ") + name + ": " + why).str());
  };
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return fail("not JSON: " + llvm::toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("not a JSON object");
  std::optional<int64_t> version = root->getInteger("stc_tuning_db");
  if (!version)
    return fail("no \"stc_tuning_db\": 1 (not a tuning database)");
  if (*version != 1)
    return fail(
        llvm::formatv("version {0}; this compiler reads version 1", *version));
  const json::Array *entries = root->getArray("entries");
  if (!entries)
    return fail("no \"entries\" array");
  std::vector<TuningEntry> added;
  for (auto [i, value] : llvm::enumerate(*entries)) {
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(llvm::formatv("entry {0}: not an object", i));
    TuningEntry entry;
    if (std::string why = EntryReader(*object).read(entry); !why.empty())
      return fail(llvm::formatv("entry {0}: {1}", i, why));
    entry.origin = llvm::formatv("{0} entry {1}", name, i).str();
    added.push_back(std::move(entry));
  }
  for (TuningEntry &entry : added) {
    auto same = llvm::find_if(all, [&](const TuningEntry &e) {
      return e.key.device == entry.key.device && e.key.sameProblem(entry.key);
    });
    if (same != all.end())
      *same = std::move(entry);
    else
      all.push_back(std::move(entry));
  }
  return std::nullopt;
}

std::string TuningDb::chooseDevice(llvm::StringRef cc, llvm::StringRef arch,
                                   llvm::StringRef requested) const {
  std::vector<std::pair<std::string, int>> counts;
  for (const TuningEntry &e : all) {
    if (e.key.cc != cc || e.key.arch != arch)
      continue;
    auto it =
        llvm::find_if(counts, [&](auto &c) { return c.first == e.key.device; });
    if (it == counts.end())
      counts.emplace_back(e.key.device, 1);
    else
      ++it->second;
  }
  if (!requested.empty())
    return llvm::any_of(counts, [&](auto &c) { return c.first == requested; })
               ? requested.str()
               : std::string();
  std::string best;
  int most = 0;
  for (auto &[device, count] : counts)
    if (count > most) {
      best = device;
      most = count;
    }
  return best;
}

std::vector<const TuningEntry *>
TuningDb::entriesFor(llvm::StringRef device, llvm::StringRef arch) const {
  std::vector<const TuningEntry *> result;
  for (const TuningEntry &e : all)
    if (e.key.device == device && e.key.arch == arch)
      result.push_back(&e);
  return result;
}

const TuningEntry *TuningDb::find(llvm::StringRef device,
                                  const TuningKey &key) const {
  for (const TuningEntry &e : all)
    if (e.key.device == device && e.key.sameProblem(key))
      return &e;
  return nullptr;
}

std::string TuningDb::describeDevices() const {
  std::map<std::string, std::string> devices;
  for (const TuningEntry &e : all)
    devices.emplace(e.key.cc + " " + e.key.arch, e.key.device);
  if (devices.empty())
    return "no entries";
  std::string text;
  for (auto &[ccArch, device] : devices) {
    if (!text.empty())
      text += ", ";
    auto [cc, arch] = llvm::StringRef(ccArch).split(' ');
    text += (arch + " on cc " + cc + " (" + device + ")").str();
  }
  return text;
}

std::string mlir::stc::tuning::computeCapabilityOf(llvm::StringRef arch) {
  return llvm::StringSwitch<std::string>(arch)
      .Case("sm_80", "8.0")
      .Case("sm_86", "8.6")
      .Case("sm_89", "8.9")
      .Cases("sm_90", "sm_90a", "9.0")
      .Default("");
}
