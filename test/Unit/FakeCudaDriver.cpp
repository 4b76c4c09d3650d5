//===- FakeCudaDriver.cpp - a scriptable stand-in for libcuda.so.1 -*- C++ -*-//
//
// A shared library exporting the CUDA driver entry points that stc_runtime
// resolves, with the driver's names and ABI, so that the CUDA runtime's
// tests (CudaRuntimeTest.cpp) can run every path -- failures included -- on
// a machine with no GPU.  The runtime loads it through
// STC_CUDA_DRIVER_LIBRARY.
//
// Behaviour is scripted by a scenario, chosen with the exported
// stcFakeCudaSetScenario() (which also forgets all state), or, for manual
// runs of stc-run against the fake, with $STC_FAKE_CUDA_SCENARIO read at the
// first cuInit:
//
//   healthy             one sm_90 device, "Fake NVIDIA H100"; memory is host
//                       memory (so copies round-trip) and launches are
//                       recorded (grid, block, cluster, shared memory, and
//                       the parameter bytes, sized by the kernel's PTX
//                       .entry signature as the real driver sizes them)
//   no-device           cuDeviceGetCount reports 0
//   sm75                the device is "Fake Tesla T4", sm_75
//   sm80                the device is "Fake NVIDIA A100", sm_80 (no clusters,
//                       163 KiB of opt-in shared memory), otherwise healthy
//   init-fails          cuInit returns CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
//   out-of-memory       cuMemAlloc/cuMemAllocManaged return OUT_OF_MEMORY
//   jit-error           cuModuleLoadDataEx fails with INVALID_PTX and fills
//                       the error-log buffer
//   launch-fails        cuLaunchKernel returns CUDA_ERROR_LAUNCH_FAILED
//   launch-fails-async  launches succeed, the next synchronization returns
//                       CUDA_ERROR_ILLEGAL_ADDRESS (as a faulting kernel)
//   descending-addresses  device memory comes from a 64 MiB arena, top
//                       down: every block lies below the one made before it
//
// Like the real driver it insists on cuInit before use, on a current context
// for the calls that need one, on device pointers that lie inside an
// allocation, and on opting in to more than 48 KiB of dynamic shared memory,
// so runtime bugs show up as test failures.  Kernels report fixed
// attributes (128 registers, at most 512 threads per block, sm_90 PTX and
// binary) and occupancy is computed from the block size and dynamic shared
// memory against the H100's limits (0 blocks when the function is not opted
// in to the shared memory asked for).  Results are read back with
// stcFakeCudaQuery(key), stcFakeCudaQueryString(key) and
// stcFakeCudaLastParams().
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;

// Result codes (cuda.h).
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kHostMemoryAlreadyRegistered = 712;
constexpr CUresult kHostMemoryNotRegistered = 713;
constexpr CUresult kLaunchFailed = 719;
constexpr CUresult kSystemDriverMismatch = 803;

struct ErrorInfo {
  CUresult code;
  const char *name;
  const char *text;
};
// The texts the real driver gives for these codes.
const ErrorInfo kErrors[] = {
    {kSuccess, "CUDA_SUCCESS", "no error"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {kInvalidPtx, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {kHostMemoryAlreadyRegistered, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {kHostMemoryNotRegistered, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {kSystemDriverMismatch, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
};

// Attribute and option values (cuda.h).
constexpr int kAttrCcMajor = 75;
constexpr int kAttrCcMinor = 76;
constexpr int kAttrMaxSharedOptin = 97;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr int kJitOptimizationLevel = 7;
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
constexpr int kFuncAttrSharedSizeBytes = 1;
constexpr int kFuncAttrLocalSizeBytes = 3;
constexpr int kFuncAttrNumRegs = 4;
constexpr int kFuncAttrPtxVersion = 5;
constexpr int kFuncAttrBinaryVersion = 6;
constexpr int kFuncAttrMaxDynamicShared = 8;
/// What every fake kernel reports: 128 registers per thread (so at most 512
/// threads per block), no spills, no static shared memory.
constexpr int kFakeRegisters = 128;
constexpr int kFakeMaxThreadsPerBlock = 512;
constexpr int kLaunchAttrClusterDimension = 4;

constexpr int kDefaultShared = 48 * 1024;
constexpr int kH100SharedOptin = 227 * 1024;
constexpr int kA100SharedOptin = 163 * 1024;

enum class Scenario {
  Healthy,
  NoDevice,
  Sm75,
  Sm80,
  InitFails,
  OutOfMemory,
  JitError,
  LaunchFails,
  LaunchFailsAsync,
  DescendingAddresses,
};

const struct {
  const char *name;
  Scenario scenario;
} kScenarios[] = {
    {"healthy", Scenario::Healthy},
    {"no-device", Scenario::NoDevice},
    {"sm75", Scenario::Sm75},
    {"sm80", Scenario::Sm80},
    {"init-fails", Scenario::InitFails},
    {"out-of-memory", Scenario::OutOfMemory},
    {"jit-error", Scenario::JitError},
    {"launch-fails", Scenario::LaunchFails},
    {"launch-fails-async", Scenario::LaunchFailsAsync},
    {"descending-addresses", Scenario::DescendingAddresses},
};

struct Module;

struct Function {
  Module *module = nullptr;
  std::string name;
  /// Byte size of each parameter, from the PTX; unknown for cubins.
  std::vector<size_t> paramSizes;
  bool paramsKnown = false;
  int maxDynamicShared = kDefaultShared;
};

struct Module {
  bool isCubin = false;
  std::map<std::string, std::vector<size_t>> entries;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

struct Launch {
  std::string kernel;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned cluster[3] = {0, 0, 0};
  unsigned shared = 0;
  void *stream = nullptr;
  std::vector<unsigned char> params;
  std::vector<size_t> paramSizes;
  size_t paramCount = 0;
  bool hadExtra = false;
  int sharedOptin = 0;
};

struct Fake {
  std::mutex mu;
  Scenario scenario = Scenario::Healthy;
  bool scenarioSet = false;
  bool initialized = false;
  int initCalls = 0;
  int primaryRefs = 0;
  /// Device memory: base address -> size.
  std::map<uintptr_t, size_t> allocations;
  /// descending-addresses: the arena and its lowest used byte (nothing is
  /// given back to it).
  std::vector<char> arena;
  size_t arenaTop = 0;
  int managedAllocations = 0;
  std::map<uintptr_t, size_t> registered;
  uintptr_t lastRegistered = 0;
  size_t lastRegisteredBytes = 0;
  std::set<Module *> modules;
  std::set<void *> streams;
  std::set<void *> events;
  int launches = 0;
  /// cuStreamWaitEvent and cuEventElapsedTime calls (the caching pool's
  /// ordering, kernel timing).
  int streamWaits = 0;
  /// cuStreamSynchronize calls.
  int streamSyncs = 0;
  int elapsedTimeQueries = 0;
  Launch last;
  int jitOptLevel = -1;
  bool asyncFault = false;
  /// The last cuTensorMapEncodeTiled call (innermost-first, as the driver
  /// receives them).
  struct TensorMap {
    int calls = 0;
    int dataType = -1, rank = 0, swizzle = -1;
    int interleave = -1, l2Promotion = -1, oobFill = -1;
    uintptr_t address = 0;
    uint64_t dims[5] = {}, strides[4] = {};
    unsigned box[5] = {}, elementStrides[5] = {};
  } tensorMap;
};

/// Never destroyed: generated host code unloads its modules from a global
/// destructor, which may run after this library's static destructors.
Fake &fake() {
  static Fake &f = *new Fake();
  return f;
}

/// The one primary context; a CUcontext is a pointer to it.
int primaryContext;
/// Each thread's context stack.  Trivially destructible on purpose, for
/// the same exit-time calls.
constexpr int kMaxContextDepth = 64;
thread_local void *contextStack[kMaxContextDepth];
thread_local int contextDepth = 0;

/// Whether `p` is a block of the descending-addresses arena.
bool inArena(const Fake &f, uintptr_t p) {
  auto base = reinterpret_cast<uintptr_t>(f.arena.data());
  return !f.arena.empty() && p >= base && p < base + f.arena.size();
}

/// Forgets everything (resources included).  Requires fake().mu.
void resetLocked(Fake &f) {
  for (auto &a : f.allocations)
    if (!inArena(f, a.first))
      std::free(reinterpret_cast<void *>(a.first));
  f.allocations.clear();
  for (Module *m : f.modules)
    delete m;
  f.modules.clear();
  for (void *s : f.streams)
    delete static_cast<int *>(s);
  f.streams.clear();
  for (void *e : f.events)
    delete static_cast<int *>(e);
  f.events.clear();
  f.registered.clear();
  f.tensorMap = Fake::TensorMap();
  f.lastRegistered = 0;
  f.lastRegisteredBytes = 0;
  f.managedAllocations = 0;
  f.initialized = false;
  f.initCalls = 0;
  f.primaryRefs = 0;
  f.launches = 0;
  f.streamWaits = 0;
  f.streamSyncs = 0;
  f.elapsedTimeQueries = 0;
  f.last = Launch();
  f.jitOptLevel = -1;
  f.asyncFault = false;
}

bool parseScenario(const char *name, Scenario &out) {
  for (const auto &s : kScenarios)
    if (name && std::strcmp(name, s.name) == 0) {
      out = s.scenario;
      return true;
    }
  return false;
}

/// The device's opt-in limit for dynamic shared memory per block.
int sharedOptinLimit(const Fake &f) {
  switch (f.scenario) {
  case Scenario::Sm75:
    return 64 * 1024;
  case Scenario::Sm80:
    return kA100SharedOptin;
  default:
    return kH100SharedOptin;
  }
}

/// Result for calls that need cuInit and a current context.
CUresult needContext(const Fake &f) {
  if (!f.initialized)
    return kNotInitialized;
  if (contextDepth == 0 || contextStack[contextDepth - 1] != &primaryContext)
    return kInvalidContext;
  return kSuccess;
}

/// True when [p, p+n) lies inside one device allocation.
bool inAllocation(const Fake &f, uintptr_t p, size_t n) {
  auto it = f.allocations.upper_bound(p);
  if (it == f.allocations.begin())
    return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second;
}

CUresult allocate(Fake &f, CUdeviceptr *dptr, size_t bytes) {
  if (CUresult r = needContext(f))
    return r;
  if (!dptr || bytes == 0)
    return kInvalidValue;
  if (f.scenario == Scenario::OutOfMemory)
    return kOutOfMemory;
  void *p = nullptr;
  if (f.scenario == Scenario::DescendingAddresses) {
    if (f.arena.empty()) {
      f.arena.resize(size_t(64) << 20);
      f.arenaTop = f.arena.size();
    }
    size_t rounded = (bytes + 255) / 256 * 256;
    if (rounded > f.arenaTop)
      return kOutOfMemory;
    f.arenaTop -= rounded;
    p = f.arena.data() + f.arenaTop;
  } else {
    p = std::malloc(bytes);
  }
  if (!p)
    return kOutOfMemory;
  f.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  *dptr = reinterpret_cast<uintptr_t>(p);
  return kSuccess;
}

size_t ptxTypeSize(const std::string &t) {
  static const struct {
    const char *type;
    size_t size;
  } kTypes[] = {{".u8", 1},  {".s8", 1},  {".b8", 1},  {".u16", 2},
                {".s16", 2}, {".b16", 2}, {".f16", 2}, {".u32", 4},
                {".s32", 4}, {".b32", 4}, {".f32", 4}, {".u64", 8},
                {".s64", 8}, {".b64", 8}, {".f64", 8}};
  for (const auto &k : kTypes)
    if (t == k.type)
      return k.size;
  return 0;
}

/// Reads the parameter sizes of every `.entry name(.param .type name, ...)`
/// in `ptx`.  Arrays (`.param .align 8 .b8 p[16]`) count element x length.
std::map<std::string, std::vector<size_t>>
parseEntries(const std::string &ptx) {
  std::map<std::string, std::vector<size_t>> entries;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    pos += 6;
    size_t b = ptx.find_first_not_of(" \t\r\n", pos);
    size_t e = ptx.find_first_of(" \t\r\n(", b);
    if (b == std::string::npos || e == std::string::npos)
      break;
    std::string name = ptx.substr(b, e - b);
    size_t open = ptx.find('(', e);
    size_t close = ptx.find(')', open);
    std::vector<size_t> sizes;
    if (open != std::string::npos && close != std::string::npos) {
      std::string list = ptx.substr(open + 1, close - open - 1);
      size_t start = 0;
      while (start < list.size()) {
        size_t comma = list.find(',', start);
        std::string param =
            list.substr(start, comma == std::string::npos ? std::string::npos
                                                          : comma - start);
        start = comma == std::string::npos ? list.size() : comma + 1;
        // Tokens: .param [.align N] .type [.ptr .align N] name[N]?
        std::vector<std::string> tokens;
        size_t t = 0;
        while ((t = param.find_first_not_of(" \t\r\n", t)) !=
               std::string::npos) {
          size_t end = param.find_first_of(" \t\r\n", t);
          tokens.push_back(param.substr(t, end - t));
          t = end;
        }
        if (tokens.size() < 3 || tokens[0] != ".param")
          continue;
        // The type is the first sized token; qualifiers such as `.ptr` and
        // `.align N` may come before or after it.
        size_t elem = 0;
        for (size_t i = 1; i + 1 < tokens.size() && !elem; ++i)
          elem = ptxTypeSize(tokens[i]);
        size_t count = 1;
        const std::string &last = tokens.back();
        size_t bracket = last.find('[');
        if (bracket != std::string::npos)
          count = std::strtoul(last.c_str() + bracket + 1, nullptr, 10);
        sizes.push_back(elem * count);
      }
    }
    entries[name] = sizes;
    pos = close == std::string::npos ? ptx.size() : close;
  }
  return entries;
}

/// Copies `log` into the JIT error-log option of a cuModuleLoadDataEx call
/// and writes back the bytes used, as the driver does.
void writeJitLog(unsigned numOptions, int *options, void **values,
                 const std::string &log) {
  char *buffer = nullptr;
  size_t size = 0;
  int sizeIndex = -1;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == kJitErrorLogBuffer)
      buffer = static_cast<char *>(values[i]);
    if (options[i] == kJitErrorLogBufferSizeBytes) {
      size = size_t(reinterpret_cast<uintptr_t>(values[i]));
      sizeIndex = int(i);
    }
  }
  if (!buffer || size == 0)
    return;
  size_t n = std::min(log.size(), size - 1);
  std::memcpy(buffer, log.data(), n);
  buffer[n] = '\0';
  values[sizeIndex] = reinterpret_cast<void *>(uintptr_t(n + 1));
}

CUresult recordLaunch(Fake &f, Function *fn, const unsigned grid[3],
                      const unsigned block[3], const unsigned *cluster,
                      unsigned shared, void *stream, void **params,
                      void **extra) {
  if (CUresult r = needContext(f))
    return r;
  if (!fn)
    return kInvalidHandle;
  if (f.scenario == Scenario::LaunchFails)
    return kLaunchFailed;
  for (int i = 0; i < 3; ++i)
    if (grid[i] == 0 || block[i] == 0)
      return kInvalidValue;
  if (uint64_t(block[0]) * block[1] * block[2] > 1024)
    return kInvalidValue;
  if (int64_t(shared) > fn->maxDynamicShared)
    return kInvalidValue;
  if (stream && !f.streams.count(stream))
    return kInvalidHandle;
  Launch l;
  l.kernel = fn->name;
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = grid[i];
    l.block[i] = block[i];
    l.cluster[i] = cluster ? cluster[i] : 0;
  }
  l.shared = shared;
  l.stream = stream;
  l.hadExtra = extra != nullptr;
  l.sharedOptin = fn->maxDynamicShared;
  if (fn->paramsKnown) {
    if (!fn->paramSizes.empty() && !params)
      return kInvalidValue;
    for (size_t i = 0; i < fn->paramSizes.size(); ++i) {
      const auto *bytes = static_cast<const unsigned char *>(params[i]);
      l.params.insert(l.params.end(), bytes, bytes + fn->paramSizes[i]);
    }
    l.paramSizes = fn->paramSizes;
    l.paramCount = fn->paramSizes.size();
  }
  f.last = std::move(l);
  ++f.launches;
  if (f.scenario == Scenario::LaunchFailsAsync)
    f.asyncFault = true;
  return kSuccess;
}

/// Result of a call that waits for device work.
CUresult syncResult(const Fake &f) {
  if (!f.initialized)
    return kNotInitialized;
  return f.asyncFault ? kIllegalAddress : kSuccess;
}

/// Blocks of `blockSize` threads with `dynamicShared` bytes each that fit
/// on one multiprocessor of the fake H100 (2048 threads, 64K registers,
/// 228 KiB of shared memory); 0 when the function is not opted in to that
/// much dynamic shared memory.
int fakeBlocksPerSm(const Function &fn, int blockSize, size_t dynamicShared) {
  if (blockSize <= 0 || blockSize > kFakeMaxThreadsPerBlock ||
      int64_t(dynamicShared) > fn.maxDynamicShared)
    return 0;
  int byThreads = 2048 / blockSize;
  int byRegisters = 65536 / (blockSize * kFakeRegisters);
  int byShared = dynamicShared ? int(228 * 1024 / dynamicShared) : 32;
  return std::min({byThreads, byRegisters, byShared, 32});
}

using Lock = std::lock_guard<std::mutex>;

} // namespace

//===----------------------------------------------------------------------===//
// Control interface (for the tests)
//===----------------------------------------------------------------------===//

extern "C" {

// The driver's own names (cuMemAlloc_v2, ...): the runtime resolves them by
// these exact symbols.
// NOLINTBEGIN(readability-identifier-naming)

/// Selects a scenario and forgets all state.  Returns 0, or -1 for an
/// unknown scenario name.
int stcFakeCudaSetScenario(const char *name) {
  Scenario s;
  if (!parseScenario(name, s))
    return -1;
  Fake &f = fake();
  Lock lock(f.mu);
  resetLocked(f);
  f.scenario = s;
  f.scenarioSet = true;
  return 0;
}

/// A counter or a field of the last launch; LLONG_MIN for an unknown key.
long long stcFakeCudaQuery(const char *key) {
  Fake &f = fake();
  Lock lock(f.mu);
  const Launch &l = f.last;
  const struct {
    const char *key;
    long long value;
  } values[] = {
      {"init_calls", f.initCalls},
      {"primary_ctx_refs", f.primaryRefs},
      {"live_allocations", (long long)f.allocations.size()},
      {"managed_allocations", f.managedAllocations},
      {"live_modules", (long long)f.modules.size()},
      {"live_streams", (long long)f.streams.size()},
      {"live_events", (long long)f.events.size()},
      {"registered_ranges", (long long)f.registered.size()},
      {"last_registered_address", (long long)f.lastRegistered},
      {"last_registered_bytes", (long long)f.lastRegisteredBytes},
      {"jit_opt_level", f.jitOptLevel},
      {"launches", f.launches},
      {"stream_waits", f.streamWaits},
      {"stream_syncs", f.streamSyncs},
      {"elapsed_time_queries", f.elapsedTimeQueries},
      {"grid.x", l.grid[0]},
      {"grid.y", l.grid[1]},
      {"grid.z", l.grid[2]},
      {"block.x", l.block[0]},
      {"block.y", l.block[1]},
      {"block.z", l.block[2]},
      {"cluster.x", l.cluster[0]},
      {"cluster.y", l.cluster[1]},
      {"cluster.z", l.cluster[2]},
      {"shared", l.shared},
      {"shared_optin", l.sharedOptin},
      {"stream", (long long)reinterpret_cast<uintptr_t>(l.stream)},
      {"param_count", (long long)l.paramCount},
      {"param_bytes", (long long)l.params.size()},
      {"had_extra", l.hadExtra ? 1 : 0},
      // Contexts pushed and not popped on the calling thread.
      {"context_depth", contextDepth},
      {"tensor_map.calls", f.tensorMap.calls},
      {"tensor_map.type", f.tensorMap.dataType},
      {"tensor_map.rank", f.tensorMap.rank},
      {"tensor_map.swizzle", f.tensorMap.swizzle},
      {"tensor_map.address", (long long)f.tensorMap.address},
      {"tensor_map.dim0", (long long)f.tensorMap.dims[0]},
      {"tensor_map.dim1", (long long)f.tensorMap.dims[1]},
      {"tensor_map.dim2", (long long)f.tensorMap.dims[2]},
      {"tensor_map.dim3", (long long)f.tensorMap.dims[3]},
      {"tensor_map.stride1", (long long)f.tensorMap.strides[0]},
      {"tensor_map.stride2", (long long)f.tensorMap.strides[1]},
      {"tensor_map.stride3", (long long)f.tensorMap.strides[2]},
      {"tensor_map.box0", f.tensorMap.box[0]},
      {"tensor_map.box1", f.tensorMap.box[1]},
      {"tensor_map.box2", f.tensorMap.box[2]},
      {"tensor_map.box3", f.tensorMap.box[3]},
      {"tensor_map.element_stride0", f.tensorMap.elementStrides[0]},
      {"tensor_map.element_stride1", f.tensorMap.elementStrides[1]},
      {"tensor_map.element_stride2", f.tensorMap.elementStrides[2]},
      {"tensor_map.element_stride3", f.tensorMap.elementStrides[3]},
      {"tensor_map.interleave", f.tensorMap.interleave},
      {"tensor_map.l2_promotion", f.tensorMap.l2Promotion},
      {"tensor_map.oob_fill", f.tensorMap.oobFill},
  };
  for (const auto &v : values)
    if (std::strcmp(v.key, key) == 0)
      return v.value;
  return LLONG_MIN;
}

/// "kernel": the name of the last launched kernel; "" for unknown keys.
const char *stcFakeCudaQueryString(const char *key) {
  Fake &f = fake();
  Lock lock(f.mu);
  static std::string result;
  result = std::strcmp(key, "kernel") == 0 ? f.last.kernel : std::string();
  return result.c_str();
}

/// Copies the last launch's parameter bytes; returns their total size.
size_t stcFakeCudaLastParams(void *buffer, size_t capacity) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (buffer)
    std::memcpy(buffer, f.last.params.data(),
                std::min(capacity, f.last.params.size()));
  return f.last.params.size();
}

/// Copies the byte size of each parameter of the last launch (at most
/// `capacity` of them); returns how many it had.
size_t stcFakeCudaLastParamSizes(size_t *sizes, size_t capacity) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (sizes)
    std::memcpy(sizes, f.last.paramSizes.data(),
                std::min(capacity, f.last.paramSizes.size()) * sizeof(size_t));
  return f.last.paramSizes.size();
}

//===----------------------------------------------------------------------===//
// Driver entry points
//===----------------------------------------------------------------------===//

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  for (const auto &e : kErrors)
    if (e.code == error) {
      *pStr = e.name;
      return kSuccess;
    }
  *pStr = nullptr;
  return kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  for (const auto &e : kErrors)
    if (e.code == error) {
      *pStr = e.text;
      return kSuccess;
    }
  *pStr = nullptr;
  return kInvalidValue;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return kInvalidValue;
  *version = 13000;
  return kSuccess;
}

CUresult cuInit(unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  ++f.initCalls;
  if (!f.scenarioSet) {
    const char *env = std::getenv("STC_FAKE_CUDA_SCENARIO");
    if (env && !parseScenario(env, f.scenario))
      return kInvalidValue;
    f.scenarioSet = true;
  }
  if (flags != 0)
    return kInvalidValue;
  if (f.scenario == Scenario::InitFails)
    return kSystemDriverMismatch;
  f.initialized = true;
  return kSuccess;
}

CUresult cuDeviceGetCount(int *count) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  *count = f.scenario == Scenario::NoDevice ? 0 : 1;
  return kSuccess;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (f.scenario == Scenario::NoDevice || ordinal != 0)
    return kInvalidDevice;
  *device = 0;
  return kSuccess;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (device != 0 || !name || len <= 0)
    return kInvalidValue;
  const char *n = f.scenario == Scenario::Sm75   ? "Fake Tesla T4"
                  : f.scenario == Scenario::Sm80 ? "Fake NVIDIA A100"
                                                 : "Fake NVIDIA H100";
  std::strncpy(name, n, size_t(len));
  name[len - 1] = '\0';
  return kSuccess;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (device != 0 || !value)
    return kInvalidValue;
  bool sm75 = f.scenario == Scenario::Sm75;
  switch (attribute) {
  case kAttrCcMajor:
    *value = sm75 ? 7 : f.scenario == Scenario::Sm80 ? 8 : 9;
    return kSuccess;
  case kAttrCcMinor:
    *value = sm75 ? 5 : 0;
    return kSuccess;
  case kAttrMaxSharedOptin:
    *value = sharedOptinLimit(f);
    return kSuccess;
  default:
    *value = 0;
    return kSuccess;
  }
}

CUresult cuDevicePrimaryCtxRetain(void **context, CUdevice device) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (device != 0 || !context)
    return kInvalidValue;
  ++f.primaryRefs;
  *context = &primaryContext;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (device != 0 || f.primaryRefs == 0)
    return kInvalidContext;
  --f.primaryRefs;
  return kSuccess;
}

CUresult cuCtxPushCurrent_v2(void *context) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (context != &primaryContext || f.primaryRefs == 0)
    return kInvalidContext;
  if (contextDepth == kMaxContextDepth)
    return kInvalidValue;
  contextStack[contextDepth++] = context;
  return kSuccess;
}

CUresult cuCtxPopCurrent_v2(void **context) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (contextDepth == 0)
    return kInvalidContext;
  --contextDepth;
  if (context)
    *context = contextStack[contextDepth];
  return kSuccess;
}

/// The calling thread's current context (null when none is pushed), as a
/// program that shares a context made by another library (PyTorch) asks.
CUresult cuCtxGetCurrent(void **context) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!context)
    return kInvalidValue;
  *context = contextDepth ? contextStack[contextDepth - 1] : nullptr;
  return kSuccess;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!device)
    return kInvalidValue;
  *device = 0;
  return kSuccess;
}

CUresult cuCtxSynchronize(void) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  return syncResult(f);
}

CUresult cuModuleLoadDataEx(void **module, const void *image,
                            unsigned numOptions, int *options, void **values) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!module || !image)
    return kInvalidValue;
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == kJitOptimizationLevel)
      f.jitOptLevel = int(reinterpret_cast<uintptr_t>(values[i]));

  auto m = std::make_unique<Module>();
  const char *bytes = static_cast<const char *>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    m->isCubin = true;
  } else {
    std::string ptx(bytes);
    if (f.scenario == Scenario::JitError) {
      writeJitLog(numOptions, options, values,
                  "ptxas application ptx input, line 9; error   : Unknown "
                  "symbol '%undefined_reg'\n"
                  "ptxas fatal   : Ptx assembly aborted due to errors\n");
      return kInvalidPtx;
    }
    if (ptx.find(".version") == std::string::npos ||
        ptx.find(".target") == std::string::npos) {
      writeJitLog(numOptions, options, values,
                  "ptxas application ptx input, line 1; fatal   : Missing "
                  ".version directive at start of file\n");
      return kInvalidPtx;
    }
    m->entries = parseEntries(ptx);
    if (m->entries.empty())
      return kInvalidImage;
  }
  *module = m.get();
  f.modules.insert(m.release());
  return kSuccess;
}

CUresult cuModuleUnload(void *module) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  auto *m = static_cast<Module *>(module);
  if (!f.modules.erase(m))
    return kInvalidHandle;
  delete m;
  return kSuccess;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  auto *m = static_cast<Module *>(module);
  if (!f.modules.count(m))
    return kInvalidHandle;
  if (!function || !name)
    return kInvalidValue;
  auto existing = m->functions.find(name);
  if (existing == m->functions.end()) {
    auto fn = std::make_unique<Function>();
    fn->module = m;
    fn->name = name;
    if (!m->isCubin) {
      auto entry = m->entries.find(name);
      if (entry == m->entries.end())
        return kNotFound;
      fn->paramSizes = entry->second;
      fn->paramsKnown = true;
    }
    existing = m->functions.emplace(name, std::move(fn)).first;
  }
  *function = existing->second.get();
  return kSuccess;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!function)
    return kInvalidHandle;
  if (attribute != kFuncAttrMaxDynamicShared)
    return kSuccess;
  if (value < 0 || value > sharedOptinLimit(f))
    return kInvalidValue;
  static_cast<Function *>(function)->maxDynamicShared = value;
  return kSuccess;
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!function)
    return kInvalidHandle;
  if (!value)
    return kInvalidValue;
  switch (attribute) {
  case kFuncAttrMaxThreadsPerBlock:
    *value = kFakeMaxThreadsPerBlock;
    return kSuccess;
  case kFuncAttrNumRegs:
    *value = kFakeRegisters;
    return kSuccess;
  case kFuncAttrSharedSizeBytes:
  case kFuncAttrLocalSizeBytes:
    *value = 0;
    return kSuccess;
  case kFuncAttrPtxVersion:
  case kFuncAttrBinaryVersion:
    *value = 90;
    return kSuccess;
  case kFuncAttrMaxDynamicShared:
    *value = static_cast<Function *>(function)->maxDynamicShared;
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     void *function,
                                                     int blockSize,
                                                     size_t dynamicShared) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!function)
    return kInvalidHandle;
  if (!numBlocks || blockSize <= 0)
    return kInvalidValue;
  *numBlocks = fakeBlocksPerSm(*static_cast<Function *>(function), blockSize,
                               dynamicShared);
  return kSuccess;
}

CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned shared, void *stream,
                        void **params, void **extra) {
  Fake &f = fake();
  Lock lock(f.mu);
  const unsigned grid[3] = {gridX, gridY, gridZ};
  const unsigned block[3] = {blockX, blockY, blockZ};
  return recordLaunch(f, static_cast<Function *>(function), grid, block,
                      nullptr, shared, stream, params, extra);
}

// CUlaunchAttribute: 4-byte id, 4 bytes of padding, a 64-byte value union.
struct FakeLaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct FakeLaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  FakeLaunchAttribute *attrs;
  unsigned numAttrs;
};

CUresult cuLaunchKernelEx(const FakeLaunchConfig *config, void *function,
                          void **params, void **extra) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!config)
    return kInvalidValue;
  const unsigned grid[3] = {config->gridDimX, config->gridDimY,
                            config->gridDimZ};
  const unsigned block[3] = {config->blockDimX, config->blockDimY,
                             config->blockDimZ};
  unsigned cluster[3] = {1, 1, 1};
  bool clustered = false;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == kLaunchAttrClusterDimension) {
      clustered = true;
      cluster[0] = config->attrs[i].value.clusterDim.x;
      cluster[1] = config->attrs[i].value.clusterDim.y;
      cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  if (clustered && f.scenario == Scenario::Sm80)
    return kInvalidValue; // clusters need sm_90
  for (int i = 0; i < 3; ++i)
    if (cluster[i] == 0 || grid[i] % cluster[i] != 0)
      return kInvalidValue; // grid must be a whole number of clusters
  if (cluster[0] * cluster[1] * cluster[2] > 8)
    return kInvalidValue; // without the non-portable cluster size attribute
  return recordLaunch(f, static_cast<Function *>(function), grid, block,
                      cluster, config->sharedMemBytes, config->hStream, params,
                      extra);
}

/// Clusters of the launch configuration that fit on the fake H100 at once:
/// 132 multiprocessors, grouped in pairs for the clusters (66 clusters of
/// two blocks, as blocks per multiprocessor allow).
CUresult cuOccupancyMaxActiveClusters(int *numClusters, void *function,
                                      const FakeLaunchConfig *config) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!function)
    return kInvalidHandle;
  if (!numClusters || !config)
    return kInvalidValue;
  unsigned cluster[3] = {1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == kLaunchAttrClusterDimension) {
      cluster[0] = config->attrs[i].value.clusterDim.x;
      cluster[1] = config->attrs[i].value.clusterDim.y;
      cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  unsigned blocks = cluster[0] * cluster[1] * cluster[2];
  if (blocks == 0 || blocks > 8)
    return kInvalidValue;
  int perSm = fakeBlocksPerSm(
      *static_cast<Function *>(function),
      int(config->blockDimX * config->blockDimY * config->blockDimZ),
      config->sharedMemBytes);
  *numClusters = int(132 / blocks) * std::min(perSm, 1);
  return kSuccess;
}

/// Records its arguments (see the tensor_map.* query keys) and writes a
/// recognizable map holding all of them.
/// Rejects what the real driver rejects for the arguments STC checks first
/// (alignment, ranges), so a runtime that skipped a check fails a test.
CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!map || reinterpret_cast<uintptr_t>(map) % 64 != 0 || rank < 1 ||
      rank > 5 || reinterpret_cast<uintptr_t>(address) % 16 != 0 ||
      interleave != 0 || swizzle < 0 || swizzle > 3 || l2Promotion < 0 ||
      l2Promotion > 3 || oobFill < 0 || oobFill > 1)
    return kInvalidValue;
  for (unsigned i = 0; i < rank; ++i) {
    if (box[i] == 0 || box[i] > 256 || elementStrides[i] == 0 ||
        elementStrides[i] > 8)
      return kInvalidValue;
    if (i > 0 && strides[i - 1] % 16 != 0)
      return kInvalidValue;
  }
  Fake::TensorMap &t = f.tensorMap;
  ++t.calls;
  t.dataType = dataType;
  t.rank = int(rank);
  t.swizzle = swizzle;
  t.interleave = interleave;
  t.l2Promotion = l2Promotion;
  t.oobFill = oobFill;
  t.address = reinterpret_cast<uintptr_t>(address);
  for (unsigned i = 0; i < rank; ++i) {
    t.dims[i] = dims[i];
    t.box[i] = box[i];
    t.elementStrides[i] = elementStrides[i];
    if (i > 0)
      t.strides[i - 1] = strides[i - 1];
  }
  // Words: the address, dims[0..4], strides[0..3], box[0..4] (innermost
  // first), then the enums, a byte each, and the element strides, 4 bits
  // each from bit 40, so that maps differing in any argument differ.
  uint64_t words[16] = {uint64_t(t.address)};
  for (unsigned i = 0; i < 5; ++i) {
    words[1 + i] = t.dims[i];
    words[10 + i] = t.box[i];
  }
  for (unsigned i = 0; i < 4; ++i)
    words[6 + i] = t.strides[i];
  words[15] = uint64_t(dataType) | uint64_t(swizzle) << 8 |
              uint64_t(interleave) << 16 | uint64_t(l2Promotion) << 24 |
              uint64_t(oobFill) << 32;
  for (unsigned i = 0; i < rank; ++i)
    words[15] |= uint64_t(t.elementStrides[i]) << (40 + 4 * i);
  std::memcpy(map, words, sizeof(words));
  return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
  Fake &f = fake();
  Lock lock(f.mu);
  return allocate(f, dptr, bytes);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (flags != 1 /*CU_MEM_ATTACH_GLOBAL*/ && flags != 2 /*HOST*/)
    return kInvalidValue;
  CUresult r = allocate(f, dptr, bytes);
  if (r == kSuccess)
    ++f.managedAllocations;
  return r;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  auto it = f.allocations.find(uintptr_t(dptr));
  if (it == f.allocations.end())
    return kInvalidValue;
  if (!inArena(f, it->first))
    std::free(reinterpret_cast<void *>(it->first));
  f.allocations.erase(it);
  return kSuccess;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!src || !inAllocation(f, uintptr_t(dst), bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
  return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (CUresult r = syncResult(f))
    return r; // a synchronous copy reports an earlier kernel's fault
  if (!dst || !inAllocation(f, uintptr_t(src), bytes))
    return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<const void *>(uintptr_t(src)), bytes);
  return kSuccess;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!dst || !src || (stream && !f.streams.count(stream)))
    return kInvalidValue;
  // Unified addressing: either side may be host or device memory, and both
  // are host memory here.
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)),
              reinterpret_cast<const void *>(uintptr_t(src)), bytes);
  return kSuccess;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!inAllocation(f, uintptr_t(dst), n))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(uintptr_t(dst)), value, n);
  return kSuccess;
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n,
                          void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!inAllocation(f, uintptr_t(dst), 2 * n) || dst % 2)
    return kInvalidValue;
  auto *p = reinterpret_cast<unsigned short *>(uintptr_t(dst));
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return kSuccess;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t n,
                          void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!inAllocation(f, uintptr_t(dst), 4 * n) || dst % 4)
    return kInvalidValue;
  auto *p = reinterpret_cast<unsigned *>(uintptr_t(dst));
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return kSuccess;
}

CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!p || bytes == 0)
    return kInvalidValue;
  auto key = reinterpret_cast<uintptr_t>(p);
  if (f.registered.count(key))
    return kHostMemoryAlreadyRegistered;
  f.registered[key] = bytes;
  f.lastRegistered = key;
  f.lastRegisteredBytes = bytes;
  return kSuccess;
}

CUresult cuMemHostUnregister(void *p) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!f.registered.erase(reinterpret_cast<uintptr_t>(p)))
    return kHostMemoryNotRegistered;
  return kSuccess;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!stream)
    return kInvalidValue;
  *stream = new int(0);
  f.streams.insert(*stream);
  return kSuccess;
}

CUresult cuStreamDestroy_v2(void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!f.streams.erase(stream))
    return kInvalidHandle;
  delete static_cast<int *>(stream);
  return kSuccess;
}

CUresult cuStreamSynchronize(void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  ++f.streamSyncs;
  if (stream && !f.streams.count(stream))
    return kInvalidHandle;
  return syncResult(f);
}

CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if ((stream && !f.streams.count(stream)) || !f.events.count(event))
    return kInvalidHandle;
  ++f.streamWaits;
  return kSuccess;
}

CUresult cuEventCreate(void **event, unsigned flags) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (CUresult r = needContext(f))
    return r;
  if (!event)
    return kInvalidValue;
  *event = new int(0);
  f.events.insert(*event);
  return kSuccess;
}

CUresult cuEventDestroy_v2(void *event) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!f.events.erase(event))
    return kInvalidHandle;
  delete static_cast<int *>(event);
  return kSuccess;
}

CUresult cuEventRecord(void *event, void *stream) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!f.events.count(event) || (stream && !f.streams.count(stream)))
    return kInvalidHandle;
  return kSuccess;
}

/// Kernels take no time on the fake.
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!ms || !f.events.count(start) || !f.events.count(end))
    return kInvalidHandle;
  ++f.elapsedTimeQueries;
  *ms = 0;
  return kSuccess;
}

CUresult cuEventSynchronize(void *event) {
  Fake &f = fake();
  Lock lock(f.mu);
  if (!f.initialized)
    return kNotInitialized;
  if (!f.events.count(event))
    return kInvalidHandle;
  return syncResult(f);
}

// NOLINTEND(readability-identifier-naming)

} // extern "C"
