// The GPU GEMM benchmark's "cutlass2" baseline (bench/README.md, "GPU GEMM"):
// CUTLASS 2.x's Ampere 2:4 sparse GEMM, cutlass::gemm::device::SparseGemm
// with cutlass::arch::Sm80 kernels (mma.sp.sync + ldmatrix + cp.async
// multistage pipelines, the design of CUTLASS's example
// 15_ampere_sparse_tensorop_gemm), compiled for sm_90. It is what a
// well-tuned mma.sp kernel reaches on Hopper: the natural yardstick for STC's
// own mma.sp kernel (method "stc").
//
// A benchmark baseline only, never part of STC: built by
// `bench/run_gpu_bench.sh build` from the CUTLASS sources in
// /work/shared/third_party (the headers are CUTLASS's; this file is ours) into
// a shared library that bench/gpu/cutlass2.py loads with ctypes.
//
//   C = A . B, A the sparse M x K operand, row-major, 2:4 along K (given
//   already pruned and dense: the same matrix STC and cuSPARSELt get), B
//   column-major (the caller's N x K contiguous buffer), C row-major M x N.
//   f16 -> f16 and bf16 -> bf16 with f32 accumulation; i8 -> i32 (exact
//   accumulator).
//
// Every CUDA and CUTLASS status is checked; errors come back as text and a
// non-zero return, never an abort (the benchmark records them as
// "unavailable" with the reason).

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlass/cutlass.h"
#include "cutlass/version.h"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/epilogue/thread/linear_combination_clamp.h"
#include "cutlass/gemm/device/gemm_sparse.h"
#include "cutlass/util/host_reorder.h"
#include "cutlass/util/host_tensor.h"
#include "cutlass/util/host_uncompress.h"

namespace {

// The benchmark's dtype codes (bench/gpu/cutlass2.py DTYPES).
enum DType { kF16 = 0, kBF16 = 1, kI8 = 2 };

// ---------------------------------------------------------------------------
// Element types and instruction shape of each dtype
// ---------------------------------------------------------------------------

// f16/bf16: mma.sp m16n8k32 with f32 accumulation and an f16/bf16 output
// (the benchmark's programs output their input type); the epilogue writes
// 128-bit vectors (8 elements). Threadblock K tiles are 64 (CUTLASS's sm80
// sparse unit tests and profiler use 64 or 128 for 16-bit types).
template <typename T>
struct Float16Traits {
  using Element = T;
  using Output = T;
  using Accumulator = float;
  using Epilogue = cutlass::epilogue::thread::LinearCombination<
      Output, 128 / cutlass::sizeof_bits<Output>::value, Accumulator, Accumulator>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 32>;
  static constexpr int kTileK = 64;
};

// i8: mma.sp m16n8k64 s8 x s8 -> s32, the int32 accumulator as the output
// (exact). LinearCombinationClamp with int32 compute, as CUTLASS's own
// s8t_s8n_s32t sparse unit tests instantiate it: alpha = 1, beta = 0 in
// integer arithmetic, and the clamp to the int32 range is a no-op.
struct Int8Traits {
  using Element = int8_t;
  using Output = int32_t;
  using Accumulator = int32_t;
  using Epilogue = cutlass::epilogue::thread::LinearCombinationClamp<
      Output, 128 / cutlass::sizeof_bits<Output>::value, Accumulator, Accumulator>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 64>;
  static constexpr int kTileK = 128;
};

// One kernel: threadblock TM x TN x kTileK, warp WM x WN x kTileK, `Stages`
// cp.async pipeline stages; A row-major, B column-major, C row-major.
template <typename Tr, int TM, int TN, int WM, int WN, int Stages>
using SparseGemmOf = cutlass::gemm::device::SparseGemm<
    typename Tr::Element, cutlass::layout::RowMajor,
    typename Tr::Element, cutlass::layout::ColumnMajor,
    typename Tr::Output, cutlass::layout::RowMajor,
    typename Tr::Accumulator, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<TM, TN, Tr::kTileK>,
    cutlass::gemm::GemmShape<WM, WN, Tr::kTileK>,
    typename Tr::Instruction, typename Tr::Epilogue,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages>;

// The configurations offered per dtype, all among those CUTLASS's sm80
// sparse unit tests instantiate (test/unit/gemm/device/
// gemm_{f16t_f16n_f32t_tensor_op_f32,s8t_s8n_s32t_tensor_op_s32}_sparse_sm80.cu)
// and its profiler generates: the two large 256-wide tiles for large
// problems (more reuse per byte loaded), the square 128 x 128 tile with one
// more stage (Hopper's 227 KiB of shared memory allows it), and a 128 x 64
// tile with a deep pipeline for the small ones (bert, llm n16: twice the
// threadblocks of 128 x 128, filling more of the 132 SMs). The benchmark
// times every one and reports the fastest, as CUTLASS's profiler would pick.
template <typename Tr>
struct Configs {
  using C0 = SparseGemmOf<Tr, 128, 256, 64, 64, 3>;
  using C1 = SparseGemmOf<Tr, 256, 128, 64, 64, 3>;
  using C2 = SparseGemmOf<Tr, 128, 128, 64, 64, 4>;
  using C3 = SparseGemmOf<Tr, 128, 64, 64, 32, 6>;
  static constexpr int kCount = 4;
  static const char* name(int i) {
    static const std::string names[kCount] = {
        tile_name<C0>(), tile_name<C1>(), tile_name<C2>(), tile_name<C3>()};
    return i >= 0 && i < kCount ? names[i].c_str() : nullptr;
  }
  template <typename G>
  static std::string tile_name() {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%dx%dx%d_%dx%dx%d_s%d", G::ThreadblockShape::kM,
                  G::ThreadblockShape::kN, G::ThreadblockShape::kK, G::WarpShape::kM,
                  G::WarpShape::kN, G::WarpShape::kK, G::kStages);
    return buf;
  }
};

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

struct Error {
  std::string text;
};

void fail(const std::string& text) { throw Error{text}; }

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    fail(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

void check_cutlass(cutlass::Status s, const char* what) {
  if (s != cutlass::Status::kSuccess)
    fail(std::string(what) + ": " + cutlassGetStatusString(s));
}

int report(char* err, int errlen, const std::string& text) {
  if (err && errlen > 0) {
    std::strncpy(err, text.c_str(), size_t(errlen) - 1);
    err[errlen - 1] = '\0';
  }
  return 1;
}

// A device buffer freed with its owner (cudaFree's status is ignored at
// teardown: nothing useful can be done with it there).
struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  void upload(const void* host, size_t bytes, const char* what) {
    check_cuda(cudaMalloc(&ptr, bytes), what);
    check_cuda(cudaMemcpy(ptr, host, bytes, cudaMemcpyHostToDevice), what);
  }
};

// ---------------------------------------------------------------------------
// The prepared operand and one cached kernel per configuration
// ---------------------------------------------------------------------------

struct Handle {
  virtual ~Handle() = default;
  virtual void run(int config, const void* b, void* c, cudaStream_t stream) = 0;
};

// One configuration's kernel for the handle's A: initialize() (can_implement,
// parameters, the shared-memory attribute) once, on the first call; every
// later call only swaps B and C (SparseGemm::update, host-side pointer
// updates) and launches, so a timed call costs what torch.mm's does: one
// kernel launch.
struct Runner {
  virtual ~Runner() = default;
  virtual void run(const void* b, void* c, cudaStream_t stream) = 0;
};

template <typename Gemm>
struct RunnerOf : Runner {
  using Arguments = typename Gemm::Arguments;
  using ElementA = typename Gemm::ElementA;
  using ElementB = typename Gemm::ElementB;
  using ElementC = typename Gemm::ElementC;
  using ElementE = typename Gemm::ElementE;

  Gemm gemm;
  bool initialized = false;
  int m, n, k;
  const ElementA* a;
  const ElementE* e;
  typename Gemm::LayoutE layout_e;

  RunnerOf(int m, int n, int k, const void* a, const void* e,
           typename Gemm::LayoutE layout_e)
      : m(m), n(n), k(k), a(static_cast<const ElementA*>(a)),
        e(static_cast<const ElementE*>(e)), layout_e(layout_e) {}

  void run(const void* b, void* c, cudaStream_t stream) override {
    ElementC* out = static_cast<ElementC*>(c);
    // C is not read (beta = 0: the epilogue skips the source), but the
    // arguments need a reference: the output itself.
    Arguments args(
        {m, n, k},
        {a, cutlass::layout::RowMajor(k / Gemm::kSparse)},
        {static_cast<const ElementB*>(b), cutlass::layout::ColumnMajor(k)},
        {out, cutlass::layout::RowMajor(n)}, {out, cutlass::layout::RowMajor(n)},
        {const_cast<ElementE*>(e), layout_e},
        {typename Gemm::EpilogueOutputOp::ElementCompute(1),
         typename Gemm::EpilogueOutputOp::ElementCompute(0)},
        1);
    if (!initialized) {
      check_cutlass(Gemm::can_implement(args), "SparseGemm::can_implement");
      // Split-K 1: no workspace (get_workspace_size is 0).
      check_cutlass(gemm.initialize(args, nullptr, stream), "SparseGemm::initialize");
      initialized = true;
    } else {
      check_cutlass(gemm.update(args, nullptr), "SparseGemm::update");
    }
    // A stale error of earlier work would be reported as this launch's.
    check_cuda(cudaPeekAtLastError(), "a CUDA error pending before the launch");
    cutlass::Status s = gemm.run(stream);
    if (s != cutlass::Status::kSuccess)
      fail(std::string("SparseGemm::run: ") + cutlassGetStatusString(s) +
           " (the kernel launch failed)");
  }
};

template <typename Tr>
struct HandleOf : Handle {
  using Cfg = Configs<Tr>;
  using G = typename Cfg::C0;
  using Element = typename Tr::Element;
  using ElementE = typename G::ElementE;
  using LayoutE = typename G::LayoutE;
  // One compressed A and one reordered metadata serve every configuration:
  // their format depends on the element type only.
  template <typename X>
  static constexpr bool same_format() {
    return std::is_same<typename X::ElementE, ElementE>::value &&
           std::is_same<typename X::LayoutE, LayoutE>::value &&
           X::kSparse == G::kSparse && X::kElementsPerElementE == G::kElementsPerElementE;
  }
  static_assert(same_format<typename Cfg::C1>() && same_format<typename Cfg::C2>() &&
                    same_format<typename Cfg::C3>(),
                "the configurations of a dtype must share A's sparse format");
  static_assert(G::kSparse == 2, "2:4 sparsity (kSparse 2) expected");
  // CUTLASS's host utilities (uncompress) read one 4-bit (idx0, idx1) pair
  // per group of 4 elements of A, 256 / bits(A) elements per ElementE.
  static constexpr int kPerE = 256 / cutlass::sizeof_bits<Element>::value;
  static_assert(cutlass::sizeof_bits<ElementE>::value == kPerE,
                "one metadata nibble per group of four elements of A");

  int m, n, k;
  DeviceBuffer a_dev, e_dev;
  LayoutE layout_e;
  std::unique_ptr<Runner> runners[Cfg::kCount];

  static bool is_zero(Element x) { return x == Element(0); }

  HandleOf(int m_, int n_, int k_, const void* a_pruned) : m(m_), n(n_), k(k_) {
    // The formats' granularity: reorder_meta interleaves rows in groups of 32
    // (16 for 32-bit metadata), the metadata's columns in pairs.
    const int e_cols = k / G::kSparse / G::kElementsPerElementE;
    if (m <= 0 || n <= 0 || k <= 0 || m % 32 || k % (2 * kPerE))
      fail("unsupported shape M=" + std::to_string(m) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k) + ": CUTLASS's sparse metadata layout needs M % 32 == 0 "
           "and K % " + std::to_string(2 * kPerE) + " == 0");

    // The pruned A, as the benchmark gives it to every method. Earlier work
    // on other streams (the pruning) must have finished.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize before reading A");
    const size_t mk = size_t(m) * size_t(k);
    std::vector<Element> dense(mk);
    check_cuda(cudaMemcpy(dense.data(), a_pruned, mk * sizeof(Element), cudaMemcpyDeviceToHost),
               "copying A to the host");

    // Compress: per group of four, the (at most two) non-zeros in order,
    // their indices idx0 < idx1 as a nibble idx0 | idx1 << 2 (mma.sp's
    // metadata; a group with fewer non-zeros is padded with zeros at legal
    // indices). CUTLASS has no 2.x compressor: its example and tests draw
    // compressed A and metadata at random. Ours is checked below by
    // CUTLASS's own uncompress.
    cutlass::HostTensor<Element, cutlass::layout::RowMajor> values(
        {m, k / G::kSparse}, false);
    cutlass::HostTensor<ElementE, cutlass::layout::RowMajor> meta({m, e_cols}, false);
    for (int r = 0; r < m; ++r) {
      const Element* row = dense.data() + size_t(r) * k;
      Element* vrow = values.host_data() + size_t(r) * (k / 2);
      ElementE* erow = meta.host_data() + size_t(r) * e_cols;
      for (int c = 0; c < e_cols; ++c) erow[c] = ElementE(0);
      for (int g = 0; g < k / 4; ++g) {
        int idx[2], nz = 0;
        for (int j = 0; j < 4; ++j) {
          if (is_zero(row[4 * g + j])) continue;
          if (nz == 2)
            fail("A is not 2:4 sparse: row " + std::to_string(r) + ", columns " +
                 std::to_string(4 * g) + ".." + std::to_string(4 * g + 3) +
                 " hold more than two non-zeros");
          idx[nz++] = j;
        }
        if (nz == 0) {
          idx[0] = 0, idx[1] = 1;
        } else if (nz == 1) {
          // Pair the one non-zero with a zero at another index, in order.
          if (idx[0] == 3) idx[1] = 3, idx[0] = 2;
          else idx[1] = 3;
        }
        vrow[2 * g] = row[4 * g + idx[0]];
        vrow[2 * g + 1] = row[4 * g + idx[1]];
        const int col = (4 * g) / kPerE, shift = ((4 * g) % kPerE) / 4 * 4;
        erow[col] = ElementE(erow[col] | ElementE((idx[0] | (idx[1] << 2)) << shift));
      }
    }

    // CUTLASS's reading of our format must give A back.
    cutlass::HostTensor<Element, cutlass::layout::RowMajor> back({m, k}, false);
    cutlass::uncompress(back.host_ref(), values.host_ref(), meta.host_ref(), m, k);
    for (size_t i = 0; i < mk; ++i) {
      const Element x = dense[i], y = back.host_data()[i];
      if (!(x == y) && !(is_zero(x) && is_zero(y)))
        fail("CUTLASS's uncompress of the compressed A differs from A at row " +
             std::to_string(i / k) + ", column " + std::to_string(i % k) +
             " (the compressor is wrong)");
    }

    // The metadata reordered for the kernels' ldmatrix loads.
    cutlass::HostTensor<ElementE, LayoutE> reordered({m, e_cols}, false);
    layout_e = reordered.layout();
    cutlass::reorder_meta(reordered.host_ref(), meta.host_ref(),
                          cutlass::gemm::GemmCoord(m, n, e_cols));
    a_dev.upload(values.host_data(), values.capacity() * sizeof(Element),
                 "uploading the compressed A");
    e_dev.upload(reordered.host_data(), reordered.capacity() * sizeof(ElementE),
                 "uploading the reordered metadata");
  }

  template <typename Gemm>
  std::unique_ptr<Runner> make() {
    return std::unique_ptr<Runner>(new RunnerOf<Gemm>(m, n, k, a_dev.ptr, e_dev.ptr, layout_e));
  }

  void run(int config, const void* b, void* c, cudaStream_t stream) override {
    if (config < 0 || config >= Cfg::kCount)
      fail("no configuration " + std::to_string(config) + " (there are " +
           std::to_string(Cfg::kCount) + ")");
    std::unique_ptr<Runner>& r = runners[config];
    if (!r) {
      switch (config) {
        case 0: r = make<typename Cfg::C0>(); break;
        case 1: r = make<typename Cfg::C1>(); break;
        case 2: r = make<typename Cfg::C2>(); break;
        default: r = make<typename Cfg::C3>(); break;
      }
    }
    r->run(b, c, stream);
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// C API (bench/gpu/cutlass2.py)
// ---------------------------------------------------------------------------

extern "C" {

// What the library is: CUTLASS's version and the kernels' family.
const char* cutlass2_info() {
  static const std::string s =
      "CUTLASS " + std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) + "." +
      std::to_string(CUTLASS_PATCH) +
      " cutlass::gemm::device::SparseGemm, cutlass::arch::Sm80 kernels (mma.sp.sync), "
      "compiled for sm_90";
  return s.c_str();
}

// How many configurations dtype has (0 = none: unsupported dtype).
int cutlass2_configs(int dtype) {
  switch (dtype) {
    case kF16: return Configs<Float16Traits<cutlass::half_t>>::kCount;
    case kBF16: return Configs<Float16Traits<cutlass::bfloat16_t>>::kCount;
    case kI8: return Configs<Int8Traits>::kCount;
    default: return 0;
  }
}

// Configuration `config`'s name ("TMxTNxTK_WMxWNxWK_sSTAGES"), or NULL.
const char* cutlass2_config_name(int dtype, int config) {
  switch (dtype) {
    case kF16: return Configs<Float16Traits<cutlass::half_t>>::name(config);
    case kBF16: return Configs<Float16Traits<cutlass::bfloat16_t>>::name(config);
    case kI8: return Configs<Int8Traits>::name(config);
    default: return nullptr;
  }
}

// Prepares A for C = A . B (M x N x K): a_pruned_device is the 2:4-pruned
// dense A on the device, row-major M x K, of the dtype's element type. It is
// read back, compressed and its metadata reordered on the host with CUTLASS's
// utilities, and uploaded into buffers the handle owns. Synchronises the
// device (not for timing). Returns 0, or non-zero with the reason in err.
int cutlass2_prepare(int dtype, int M, int N, int K, const void* a_pruned_device,
                     void** handle, char* err, int errlen) {
  try {
    if (!handle || !a_pruned_device) fail("null handle or A");
    *handle = nullptr;
    Handle* h = nullptr;
    switch (dtype) {
      case kF16: h = new HandleOf<Float16Traits<cutlass::half_t>>(M, N, K, a_pruned_device); break;
      case kBF16: h = new HandleOf<Float16Traits<cutlass::bfloat16_t>>(M, N, K, a_pruned_device); break;
      case kI8: h = new HandleOf<Int8Traits>(M, N, K, a_pruned_device); break;
      default: fail("unsupported dtype code " + std::to_string(dtype));
    }
    *handle = h;
    return 0;
  } catch (const Error& e) {
    return report(err, errlen, e.text);
  } catch (const std::bad_alloc&) {
    return report(err, errlen, "out of host memory preparing A");
  } catch (const std::exception& e) {
    return report(err, errlen, std::string("exception: ") + e.what());
  } catch (...) {
    return report(err, errlen, "unknown exception");
  }
}

// Launches configuration `config` on `stream` (a cudaStream_t): C (M x N
// row-major, the dtype's output type) = A . B, B the N x K contiguous
// buffer (column-major K x N). The first call of a configuration also checks
// and initialises it. Asynchronous; returns 0, or non-zero with the reason.
int cutlass2_run(void* handle, int config, const void* b_nk_device, void* c_device,
                 void* stream, char* err, int errlen) {
  try {
    if (!handle || !b_nk_device || !c_device) fail("null handle, B or C");
    static_cast<Handle*>(handle)->run(config, b_nk_device, c_device,
                                      static_cast<cudaStream_t>(stream));
    return 0;
  } catch (const Error& e) {
    return report(err, errlen, e.text);
  } catch (const std::exception& e) {
    return report(err, errlen, std::string("exception: ") + e.what());
  } catch (...) {
    return report(err, errlen, "unknown exception");
  }
}

void cutlass2_free(void* handle) { delete static_cast<Handle*>(handle); }

}  // extern "C"
