//===- TraceCudaDriver.cpp - a driver call log over the fake driver -*- C++
//-*-//
//
// libstc_trace_cuda.so: loaded in place of libcuda.so.1 (by a program's
// own dlopen/ctypes, or by stc_runtime through STC_CUDA_DRIVER_LIBRARY), it
// writes one line per call of the driver entry points that decide what a
// GPU computes -- module loads, kernel lookups, function attributes and
// occupancy queries, tensor-map encodes, device memory for tensor maps,
// launches, synchronizations -- to the file named by $STC_TRACE_CUDA_LOG,
// and forwards each call to the fake driver (test/Unit/FakeCudaDriver.cpp),
// which it is linked against: every entry point it does not define (context
// management, device queries, error texts) is the fake's, found through
// this library's dependencies.
//
// The log is meant to be compared between two programs that should drive
// the GPU identically (test/Bench/launch-equivalence.test: the GPU
// benchmark before and after it moved onto stc_runtime's C API), so it
// holds no value that differs between runs: device allocations are named
// alloc#N in allocation order and pointers into them alloc#N+offset
// (wherever they appear: launch parameters, tensor-map addresses, copy
// destinations), modules module#N, functions by name, PTX images by size
// and FNV-1a hash.  JIT options that only ask for logs (error and info log
// buffers, their sizes, verbosity) are left out: they change no code.
// Calls not listed are not logged: the benchmark's context handling
// (PyTorch's context versus the runtime's push/pop of the same primary
// context) differs by design and computes nothing.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

// JIT options that only concern logging (cuda.h's CUjit_option values).
bool isLogOption(int option) {
  return option == 3 /*INFO_LOG_BUFFER*/ ||
         option == 4 /*INFO_LOG_BUFFER_SIZE_BYTES*/ ||
         option == 5 /*ERROR_LOG_BUFFER*/ ||
         option == 6 /*ERROR_LOG_BUFFER_SIZE_BYTES*/ ||
         option == 12 /*LOG_VERBOSE*/;
}

// cuLaunchKernelEx's configuration, as the fake declares it.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

struct Tracer {
  std::mutex mu;
  FILE *out = nullptr;
  /// Live device allocations: base -> (number, size).
  std::map<uint64_t, std::pair<int, size_t>> allocations;
  int allocationCount = 0;
  std::map<void *, int> modules;
  int moduleCount = 0;
  std::map<void *, std::string> functions;

  Tracer() {
    if (const char *path = std::getenv("STC_TRACE_CUDA_LOG"))
      out = std::fopen(path, "a");
  }

  /// "alloc#N+off" for an address inside a live allocation, else hex.
  std::string address(uint64_t a) const {
    auto it = allocations.upper_bound(a);
    if (it != allocations.begin()) {
      --it;
      if (a >= it->first && a < it->first + it->second.second)
        return "alloc#" + std::to_string(it->second.first) + "+" +
               std::to_string(a - it->first);
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)a);
    return buf;
  }

  std::string function(void *fn) const {
    auto it = functions.find(fn);
    return it == functions.end() ? std::string("fn?") : "fn:" + it->second;
  }

  void line(const std::string &text, CUresult r) {
    if (!out)
      return;
    std::fprintf(out, "%s -> %d\n", text.c_str(), r);
    std::fflush(out);
  }
};

Tracer &tracer() {
  static Tracer &t = *new Tracer();
  return t;
}

template <typename T>
std::string list(const T *v, unsigned n) {
  std::string s = "[";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string hexBytes(const void *p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  const auto *b = static_cast<const unsigned char *>(p);
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[b[i] >> 4];
    s += kDigits[b[i] & 15];
  }
  return s;
}

uint64_t fnv1a(const void *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  const auto *b = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < n; ++i)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/// The fake's definition of `name` (the next one after this library's).
template <typename Fn>
Fn next(const char *name) {
  void *sym = dlsym(RTLD_NEXT, name);
  if (!sym) {
    std::fprintf(stderr, "libstc_trace_cuda: no %s after this library\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

/// The last launch's parameters as the fake recorded them, one value per
/// parameter: an 8-byte one that points into a device allocation as
/// alloc#N+off, every other one as its bytes in hex.
std::string launchParams(const Tracer &t) {
  static auto sizesOf =
      next<size_t (*)(size_t *, size_t)>("stcFakeCudaLastParamSizes");
  static auto bytesOf =
      next<size_t (*)(void *, size_t)>("stcFakeCudaLastParams");
  std::vector<size_t> sizes(sizesOf(nullptr, 0));
  sizesOf(sizes.data(), sizes.size());
  std::vector<unsigned char> bytes(bytesOf(nullptr, 0));
  bytesOf(bytes.data(), bytes.size());
  std::string s = "[";
  size_t at = 0;
  for (size_t i = 0; i < sizes.size() && at + sizes[i] <= bytes.size(); ++i) {
    s += i ? "," : "";
    uint64_t v = 0;
    if (sizes[i] == 8) {
      std::memcpy(&v, &bytes[at], 8);
      std::string a = t.address(v);
      s += a.rfind("alloc#", 0) == 0 ? a : hexBytes(&bytes[at], 8);
    } else {
      s += hexBytes(&bytes[at], sizes[i]);
    }
    at += sizes[i];
  }
  return s + "]";
}

/// grid, block, shared memory, stream and cluster of a launch config.
std::string describeConfig(const Tracer &t, const LaunchConfig *c) {
  if (!c)
    return "config=null";
  unsigned grid[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
  unsigned block[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
  std::string s = "grid=" + list(grid, 3) + " block=" + list(block, 3) +
                  " shared=" + std::to_string(c->sharedMemBytes) +
                  " stream=" + t.address(uint64_t(uintptr_t(c->stream))) +
                  " attrs=[";
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    const LaunchAttribute &a = c->attrs[i];
    s += (i ? "," : "") + std::to_string(a.id);
    if (a.id == 4 /*CLUSTER_DIMENSION*/) {
      unsigned dim[3] = {a.value.clusterDim.x, a.value.clusterDim.y,
                         a.value.clusterDim.z};
      s += ":cluster=" + list(dim, 3);
    } else {
      s += ":" + hexBytes(a.value.bytes, sizeof(a.value.bytes));
    }
  }
  return s + "]";
}

using Lock = std::lock_guard<std::mutex>;

} // namespace

extern "C" {

CUresult cuModuleLoadDataEx(void **module, const void *image,
                            unsigned numOptions, int *options, void **values) {
  static auto real = next<decltype(&cuModuleLoadDataEx)>("cuModuleLoadDataEx");
  CUresult r = real(module, image, numOptions, options, values);
  Tracer &t = tracer();
  Lock lock(t.mu);
  size_t n = image ? std::strlen(static_cast<const char *>(image)) : 0;
  char hash[32];
  std::snprintf(hash, sizeof(hash), "%016llx",
                (unsigned long long)fnv1a(image, n));
  std::string text = "cuModuleLoadDataEx image=" + std::to_string(n) +
                     "B:" + hash + " options=[";
  bool first = true;
  for (unsigned i = 0; i < numOptions; ++i)
    if (!isLogOption(options[i])) {
      text += (first ? "" : ",") + std::to_string(options[i]) + "=" +
              std::to_string(reinterpret_cast<uintptr_t>(values[i]));
      first = false;
    }
  text += "]";
  if (r == 0) {
    t.modules[*module] = ++t.moduleCount;
    text += " module#" + std::to_string(t.moduleCount);
  }
  t.line(text, r);
  return r;
}

CUresult cuModuleUnload(void *module) {
  static auto real = next<decltype(&cuModuleUnload)>("cuModuleUnload");
  Tracer &t = tracer();
  std::string name;
  {
    Lock lock(t.mu);
    auto it = t.modules.find(module);
    name = it == t.modules.end() ? "module?"
                                 : "module#" + std::to_string(it->second);
  }
  CUresult r = real(module);
  Lock lock(t.mu);
  t.line("cuModuleUnload " + name, r);
  return r;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  static auto real =
      next<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  CUresult r = real(function, module, name);
  Tracer &t = tracer();
  Lock lock(t.mu);
  auto it = t.modules.find(module);
  if (r == 0)
    t.functions[*function] = name;
  t.line("cuModuleGetFunction " +
             (it == t.modules.end() ? std::string("module?")
                                    : "module#" + std::to_string(it->second)) +
             " " + name,
         r);
  return r;
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  static auto real = next<decltype(&cuFuncGetAttribute)>("cuFuncGetAttribute");
  CUresult r = real(value, attribute, function);
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line("cuFuncGetAttribute " + t.function(function) +
             " attribute=" + std::to_string(attribute) +
             (r == 0 ? " value=" + std::to_string(*value) : std::string()),
         r);
  return r;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  static auto real = next<decltype(&cuFuncSetAttribute)>("cuFuncSetAttribute");
  CUresult r = real(function, attribute, value);
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line("cuFuncSetAttribute " + t.function(function) + " attribute=" +
             std::to_string(attribute) + " value=" + std::to_string(value),
         r);
  return r;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     void *function,
                                                     int blockSize,
                                                     size_t dynamicShared) {
  static auto real =
      next<decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  CUresult r = real(numBlocks, function, blockSize, dynamicShared);
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line("cuOccupancyMaxActiveBlocksPerMultiprocessor " + t.function(function) +
             " block=" + std::to_string(blockSize) +
             " shared=" + std::to_string(dynamicShared) +
             (r == 0 ? " value=" + std::to_string(*numBlocks) : std::string()),
         r);
  return r;
}

CUresult cuOccupancyMaxActiveClusters(int *numClusters, void *function,
                                      const LaunchConfig *config) {
  static auto real = next<decltype(&cuOccupancyMaxActiveClusters)>(
      "cuOccupancyMaxActiveClusters");
  CUresult r = real(numClusters, function, config);
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line(
      "cuOccupancyMaxActiveClusters " + t.function(function) + " " +
          describeConfig(t, config) +
          (r == 0 ? " value=" + std::to_string(*numClusters) : std::string()),
      r);
  return r;
}

CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  static auto real =
      next<decltype(&cuTensorMapEncodeTiled)>("cuTensorMapEncodeTiled");
  CUresult r = real(map, dataType, rank, address, dims, strides, box,
                    elementStrides, interleave, swizzle, l2Promotion, oobFill);
  Tracer &t = tracer();
  Lock lock(t.mu);
  unsigned n = rank <= 5 ? rank : 0;
  t.line("cuTensorMapEncodeTiled type=" + std::to_string(dataType) +
             " rank=" + std::to_string(rank) +
             " address=" + t.address(uint64_t(uintptr_t(address))) + " dims=" +
             list(dims, n) + " strides=" + list(strides, n ? n - 1 : 0) +
             " box=" + list(box, n) +
             " element_strides=" + list(elementStrides, n) +
             " interleave=" + std::to_string(interleave) +
             " swizzle=" + std::to_string(swizzle) +
             " l2_promotion=" + std::to_string(l2Promotion) +
             " oob_fill=" + std::to_string(oobFill),
         r);
  return r;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
  static auto real = next<decltype(&cuMemAlloc_v2)>("cuMemAlloc_v2");
  CUresult r = real(dptr, bytes);
  Tracer &t = tracer();
  Lock lock(t.mu);
  std::string text = "cuMemAlloc bytes=" + std::to_string(bytes);
  if (r == 0) {
    t.allocations[*dptr] = {++t.allocationCount, bytes};
    text += " alloc#" + std::to_string(t.allocationCount);
  }
  t.line(text, r);
  return r;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  static auto real = next<decltype(&cuMemFree_v2)>("cuMemFree_v2");
  Tracer &t = tracer();
  std::string name;
  {
    Lock lock(t.mu);
    name = t.address(dptr);
  }
  CUresult r = real(dptr);
  Lock lock(t.mu);
  if (r == 0)
    t.allocations.erase(dptr);
  t.line("cuMemFree " + name, r);
  return r;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  static auto real = next<decltype(&cuMemcpyHtoD_v2)>("cuMemcpyHtoD_v2");
  CUresult r = real(dst, src, bytes);
  Tracer &t = tracer();
  Lock lock(t.mu);
  // Tensor maps (128 bytes each) in full, other data by hash.
  char hash[40];
  std::snprintf(hash, sizeof(hash), "fnv:%016llx",
                (unsigned long long)fnv1a(src, bytes));
  t.line(
      "cuMemcpyHtoD dst=" + t.address(dst) + " bytes=" + std::to_string(bytes) +
          " data=" + (bytes <= 1024 ? hexBytes(src, bytes) : std::string(hash)),
      r);
  return r;
}

CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned shared, void *stream,
                        void **params, void **extra) {
  static auto real = next<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  CUresult r = real(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                    shared, stream, params, extra);
  Tracer &t = tracer();
  Lock lock(t.mu);
  unsigned grid[3] = {gridX, gridY, gridZ};
  unsigned block[3] = {blockX, blockY, blockZ};
  t.line("cuLaunchKernel " + t.function(function) + " grid=" + list(grid, 3) +
             " block=" + list(block, 3) + " shared=" + std::to_string(shared) +
             " stream=" + t.address(uint64_t(uintptr_t(stream))) +
             (extra ? " extra" : "") +
             (r == 0 ? " params=" + launchParams(t) : std::string()),
         r);
  return r;
}

CUresult cuLaunchKernelEx(const LaunchConfig *config, void *function,
                          void **params, void **extra) {
  static auto real = next<decltype(&cuLaunchKernelEx)>("cuLaunchKernelEx");
  CUresult r = real(config, function, params, extra);
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line("cuLaunchKernelEx " + t.function(function) + " " +
             describeConfig(t, config) + (extra ? " extra" : "") +
             (r == 0 ? " params=" + launchParams(t) : std::string()),
         r);
  return r;
}

CUresult cuCtxSynchronize(void) {
  static auto real = next<decltype(&cuCtxSynchronize)>("cuCtxSynchronize");
  CUresult r = real();
  Tracer &t = tracer();
  Lock lock(t.mu);
  t.line("cuCtxSynchronize", r);
  return r;
}

} // extern "C"
