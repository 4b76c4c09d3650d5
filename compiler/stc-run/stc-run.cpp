//===- stc-run.cpp - compile and run an stc program ---------*- C++ -*-===//
//
// `stc-run PROG.mlir --input=a.npy ... --output=y.npy`: compiles the
// program with the stc pipeline, JIT-compiles it with MLIR's execution
// engine, feeds the entry function's arguments from .npy files (or seeded
// random data), and writes its results. `--check` also runs the dense
// reference lowering of the same program and compares. Every failure is one
// error line and a non-zero exit; outputs are written only after
// everything succeeded, each atomically.
//
// `--device=cuda` compiles the kernels for the present GPU (its sm_XY;
// sm_90a on a Hopper; sm_90 PTX, JIT-compiled by the driver, on anything
// newer) and runs the
// host code with the runtime's mgpu* entry points; `--device=auto` does so
// when a CUDA driver and an sm_80+ GPU are present and the program compiles
// for it, and runs on the CPU otherwise, saying which on stderr.
// `--list-devices` prints the CUDA devices, one per line.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"
#include "compiler/lib/ToolSupport.h"
#include "compiler/onnx/OnnxImport.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/emulator/stc_gpu_emulator.h"
#include "runtime/format/StcAtomicFile.h"
#include "runtime/format/StcLimits.h"
#include "runtime/npy/Npy.h"
#include "runtime/stc_runtime.h"
#include "runtime/stc_runtime_cuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/ExecutionEngine/RunnerUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>
#include <random>

using namespace mlir;
using namespace mlir::stc;
namespace cl = llvm::cl;

// Optional so that --list-devices needs no program; main() checks it.
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input.mlir|input.onnx>"),
                                      cl::Optional);
static cl::opt<std::string>
    device("device",
           cl::desc("auto (default), cpu, cuda, or emulate (the GPU kernels "
                    "run on the CPU through the emulator, for testing)"),
           cl::init("auto"));
static cl::opt<std::string> entry("entry", cl::desc("Entry function"),
                                  cl::init("main"));
static cl::list<std::string> inputs("input",
                                    cl::desc("A .npy file per argument"));
static cl::list<std::string> outputs("output",
                                     cl::desc("A .npy file per result"));
static cl::opt<unsigned> repeat("repeat", cl::desc("Runs to time"),
                                cl::init(1));
static cl::opt<bool> check("check",
                           cl::desc("Compare with the dense reference"));
static cl::opt<bool> randomInputs("random-inputs",
                                  cl::desc("Draw missing inputs from a seeded "
                                           "normal distribution"));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of --random-inputs"),
                              cl::init(1));
static cl::opt<bool> listDevices(
    "list-devices",
    cl::desc("Print the CUDA devices (\"N: NAME sm_XY, M MiB\") and exit; "
             "exit status 1 when there is no driver or no device"));

static cl::opt<std::string> profileFile(
    "profile",
    cl::desc("Write, per call of the entry, what the GPU did (launches, "
             "h2d_bytes, d2h_bytes, device_allocs, device_frees, kernel_ms, "
             "wall_ms) as JSON to this file"),
    cl::value_desc("FILE.json"));

static cl::opt<bool> misalignDeviceInputs(
    "misalign-device-inputs",
    cl::desc("With --gpu-device-entry: place each input one element past a "
             "16-byte boundary, as a caller's pointer into the middle of a "
             "buffer is (a PyTorch view); the kernels must not assume more "
             "than the element's own alignment"));

static constexpr const char *kTool = "stc-run";

namespace {

/// One ranked memref descriptor as the C interface lays it out:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}, all 8 bytes.
struct Descriptor {
  std::vector<int64_t> words;
  int64_t rank = 0;
  void *allocated() const { return reinterpret_cast<void *>(words[0]); }
  char *aligned() const { return reinterpret_cast<char *>(words[1]); }
  int64_t offset() const { return words[2]; }
  int64_t size(int64_t i) const { return words[3 + i]; }
  int64_t stride(int64_t i) const { return words[3 + rank + i]; }
};

/// An argument or result: element type, shape and the bytes in C order.
struct HostTensor {
  Type elementType;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

size_t elementBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// The .npy dtype that carries element type `t` (bf16 travels as f4).
std::optional<std::string> npyDtypeFor(Type t) {
  if (t.isF32() || t.isBF16())
    return std::string("f4");
  if (t.isF16())
    return std::string("f2");
  if (t.isF64())
    return std::string("f8");
  if (t.isInteger(8))
    return std::string("i1");
  if (t.isInteger(16))
    return std::string("i2");
  if (t.isInteger(32))
    return std::string("i4");
  if (t.isInteger(64))
    return std::string("i8");
  return std::nullopt;
}

/// Loads .npy `path` as argument `index` of type `type`.
LogicalResult loadInput(const std::string &path, unsigned index,
                        RankedTensorType type, HostTensor &out) {
  ::stc::npy::Array array;
  std::string error;
  if (!::stc::npy::readNpy(path, array, error)) {
    reportError(kTool, error);
    return failure();
  }
  std::optional<std::string> want = npyDtypeFor(type.getElementType());
  std::string argName = "argument #" + std::to_string(index) + " of @" + entry +
                        " (" + typeString(type) + ")";
  if (!want) {
    reportError(kTool, argName + " has an element type stc-run cannot feed");
    return failure();
  }
  if (array.dtype != *want) {
    reportError(kTool, path + ": dtype " + array.dtype + " does not match " +
                           argName + ", which needs " + *want);
    return failure();
  }
  bool shapeOk = static_cast<int64_t>(array.shape.size()) == type.getRank();
  for (int64_t i = 0; shapeOk && i < type.getRank(); ++i)
    shapeOk = type.isDynamicDim(i) || type.getDimSize(i) == array.shape[i];
  if (!shapeOk) {
    reportError(kTool, path + ": shape " + shapeString(array.shape) +
                           " does not match " + argName);
    return failure();
  }
  out.elementType = type.getElementType();
  out.shape = array.shape;
  if (type.getElementType().isBF16()) {
    std::vector<float> f(array.numElements());
    std::memcpy(f.data(), array.data.data(), f.size() * 4);
    out.bytes.resize(f.size() * 2);
    for (size_t i = 0; i < f.size(); ++i) {
      uint16_t b = ::stc::npy::floatToBFloat16(f[i]);
      std::memcpy(&out.bytes[i * 2], &b, 2);
    }
  } else {
    out.bytes = std::move(array.data);
  }
  return success();
}

/// Seeded data for argument `index` (static shapes only): N(0, 1) for
/// floats, uniform over [-128, 127] for i8 (quantized operands).
LogicalResult randomInput(unsigned index, RankedTensorType type,
                          std::mt19937_64 &rng, HostTensor &out) {
  if (!type.hasStaticShape()) {
    reportError(kTool, "argument #" + std::to_string(index) + " of @" + entry +
                           " has a dynamic shape (" + typeString(type) +
                           "): give it with --input");
    return failure();
  }
  Type t = type.getElementType();
  if (!(t.isF32() || t.isF16() || t.isBF16() || t.isInteger(8))) {
    reportError(kTool, "--random-inputs supports f32, f16, bf16 and i8 "
                       "arguments, "
                       "argument #" +
                           std::to_string(index) + " is " + typeString(t));
    return failure();
  }
  // Checked before anything is allocated: a shape whose size overflows, or
  // that this machine cannot hold, is one error line (not an abort).
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  std::optional<int64_t> bytes =
      ::stc::format::checkedByteSize(shape, elementBytes(t));
  std::string why = ::stc::format::describeAllocationLimit(
      bytes ? uint64_t(*bytes) : 0, !bytes);
  if (!why.empty()) {
    reportError(kTool, "--random-inputs: argument #" + std::to_string(index) +
                           " of @" + entry + " (" + typeString(type) +
                           ") cannot be allocated: " + why);
    return failure();
  }
  std::normal_distribution<float> normal(0.0f, 1.0f);
  out.elementType = t;
  out.shape = std::move(shape);
  int64_t n = *bytes / int64_t(elementBytes(t));
  out.bytes.resize(*bytes);
  if (t.isInteger(8)) {
    std::uniform_int_distribution<int> uniform(-128, 127);
    for (int64_t i = 0; i < n; ++i)
      out.bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(uniform(rng)));
    return success();
  }
  for (int64_t i = 0; i < n; ++i) {
    float v = normal(rng);
    if (t.isF32()) {
      std::memcpy(&out.bytes[i * 4], &v, 4);
    } else {
      uint16_t b = t.isF16() ? ::stc::npy::floatToHalf(v)
                             : ::stc::npy::floatToBFloat16(v);
      std::memcpy(&out.bytes[i * 2], &b, 2);
    }
  }
  return success();
}

/// A descriptor pointing at `t`'s bytes (identity layout).
Descriptor describe(HostTensor &t) {
  Descriptor d;
  d.rank = t.shape.size();
  d.words.resize(3 + 2 * d.rank);
  d.words[0] = d.words[1] = reinterpret_cast<int64_t>(t.bytes.data());
  d.words[2] = 0;
  // Unsigned: a tensor with no elements may have other dimensions whose
  // product overflows (its strides are never used to address anything).
  uint64_t stride = 1;
  for (int64_t i = d.rank - 1; i >= 0; --i) {
    d.words[3 + i] = t.shape[i];
    d.words[3 + d.rank + i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(t.shape[i]);
  }
  return d;
}

/// Copies a result buffer (any strides) into a C-order host tensor.
HostTensor readResult(const Descriptor &d, Type elementType) {
  HostTensor t;
  t.elementType = elementType;
  size_t width = elementBytes(elementType);
  int64_t n = 1;
  for (int64_t i = 0; i < d.rank; ++i) {
    t.shape.push_back(d.size(i));
    n *= d.size(i);
  }
  t.bytes.resize(n * width);
  std::vector<int64_t> index(d.rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t offset = d.offset();
    for (int64_t i = 0; i < d.rank; ++i)
      offset += index[i] * d.stride(i);
    std::memcpy(&t.bytes[e * width], d.aligned() + offset * width, width);
    for (int64_t i = d.rank - 1; i >= 0; --i) {
      if (++index[i] < d.size(i))
        break;
      index[i] = 0;
    }
  }
  return t;
}

/// Elements as doubles (for --check).
std::vector<double> asDoubles(const HostTensor &t) {
  size_t width = elementBytes(t.elementType);
  size_t n = t.bytes.size() / width;
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t *p = &t.bytes[i * width];
    if (t.elementType.isF32()) {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = f;
    } else if (t.elementType.isF64()) {
      std::memcpy(&out[i], p, 8);
    } else if (t.elementType.isF16() || t.elementType.isBF16()) {
      uint16_t b;
      std::memcpy(&b, p, 2);
      out[i] = t.elementType.isF16() ? ::stc::npy::halfToFloat(b)
                                     : ::stc::npy::bfloat16ToFloat(b);
    } else {
      // Signed integers of `width` bytes (little-endian), sign-extended.
      int64_t v = 0;
      std::memcpy(&v, p, width);
      if (width < 8) {
        int shift = 64 - 8 * static_cast<int>(width);
        v = static_cast<int64_t>(static_cast<uint64_t>(v) << shift) >> shift;
      }
      out[i] = static_cast<double>(v);
    }
  }
  return out;
}

LogicalResult writeOutput(const std::string &path, const HostTensor &t) {
  std::optional<std::string> dtype = npyDtypeFor(t.elementType);
  ::stc::npy::Array array;
  std::string error;
  if (t.elementType.isBF16()) {
    std::vector<double> d = asDoubles(t);
    std::vector<float> f(d.begin(), d.end());
    if (!::stc::npy::fromFloat32(f, "f4", t.shape, array, error)) {
      reportError(kTool, path + ": " + error);
      return failure();
    }
  } else {
    array.dtype = *dtype;
    array.shape = t.shape;
    array.data = t.bytes;
  }
  if (!::stc::npy::writeNpy(path, array, error)) {
    reportError(kTool, error);
    return failure();
  }
  return success();
}

/// The runtime's entry points, handed to the JIT by name.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, void *address) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                           llvm::JITSymbolFlags::Exported};
  };
  // Every entry point of runtime/RuntimeEntryPoints.def: the CPU runtime's
  // through their C-interface wrappers (memref descriptors) or as plain C, the
  // emulator's as plain C functions; the GPU runtime's come with
  // stc_cuda_mgpu_symbols below.
#define STC_RUNTIME_ENTRY_CInterface(SYMBOL)                                   \
  add("_mlir_ciface_" #SYMBOL, (void *)&_mlir_ciface_##SYMBOL);
#define STC_RUNTIME_ENTRY_CpuPlainC(SYMBOL) add(#SYMBOL, (void *)&(SYMBOL));
#define STC_RUNTIME_ENTRY_Gpu(SYMBOL)
#define STC_RUNTIME_ENTRY_Emulator(SYMBOL) add(#SYMBOL, (void *)&(SYMBOL));
#define STC_RUNTIME_ENTRY(KIND, NAME, SYMBOL) STC_RUNTIME_ENTRY_##KIND(SYMBOL)
#include "runtime/RuntimeEntryPoints.def"
#undef STC_RUNTIME_ENTRY_CInterface
#undef STC_RUNTIME_ENTRY_CpuPlainC
#undef STC_RUNTIME_ENTRY_Gpu
#undef STC_RUNTIME_ENTRY_Emulator
  // Strided copies that bufferization emits (upstream's C runner utils).
  add("memrefCopy", (void *)&memrefCopy);
  // The printers of upstream's runner utils that programs in upstream's
  // test style call (named here: nothing else would link the library in).
#define RUNNER_UTIL(name) add(#name, (void *)&(name))
  RUNNER_UTIL(_mlir_ciface_printMemrefI8);
  RUNNER_UTIL(_mlir_ciface_printMemrefI16);
  RUNNER_UTIL(_mlir_ciface_printMemrefI32);
  RUNNER_UTIL(_mlir_ciface_printMemrefI64);
  RUNNER_UTIL(_mlir_ciface_printMemrefF16);
  RUNNER_UTIL(_mlir_ciface_printMemrefBF16);
  RUNNER_UTIL(_mlir_ciface_printMemrefF32);
  RUNNER_UTIL(_mlir_ciface_printMemrefF64);
  RUNNER_UTIL(_mlir_ciface_printMemrefInd);
  RUNNER_UTIL(_mlir_ciface_printMemrefC32);
  RUNNER_UTIL(_mlir_ciface_printMemrefC64);
  RUNNER_UTIL(printMemrefI32);
  RUNNER_UTIL(printMemrefI64);
  RUNNER_UTIL(printMemrefF32);
  RUNNER_UTIL(printMemrefF64);
  RUNNER_UTIL(printMemrefInd);
  RUNNER_UTIL(printMemrefC32);
  RUNNER_UTIL(printMemrefC64);
  RUNNER_UTIL(_mlir_ciface_nanoTime);
#undef RUNNER_UTIL
  // What gpu-to-llvm's host code calls (GPU targets).
  size_t count = 0;
  const StcCudaSymbol *symbols = stc_cuda_mgpu_symbols(&count);
  for (size_t i = 0; i < count; ++i)
    add(symbols[i].name, symbols[i].address);
  return map;
}

/// The runtime's CUDA error message as one line, without its "error: "
/// prefix (the JIT log of a failed module load has several).
std::string cudaErrorLine() {
  std::string message = stc_cuda_last_error();
  llvm::StringRef text(message);
  text.consume_front("error: ");
  std::string line;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef l : lines) {
    if (!line.empty())
      line += line.back() == ':' ? " " : "; ";
    line += l.trim().str();
  }
  return line;
}

/// Reports the recorded CUDA error, if any, as one "stc-run: error:" line.
LogicalResult checkCudaError() {
  if (!stc_cuda_has_error())
    return success();
  reportError(kTool, cudaErrorLine());
  return failure();
}

/// A compiled program, ready to call.
struct CompiledProgram {
  std::unique_ptr<ExecutionEngine> engine;
  SmallVector<Type> resultElementTypes;
  SmallVector<int64_t> resultRanks;
  void (*entryPoint)(void **) = nullptr;
};

FailureOr<CompiledProgram> compile(ModuleOp module,
                                   const StcPipelineOptions &options) {
  addCInterfaces(module);
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  CompiledProgram program;
  for (Type t : func.getFunctionType().getResults()) {
    auto ranked = cast<RankedTensorType>(t);
    program.resultElementTypes.push_back(ranked.getElementType());
    program.resultRanks.push_back(ranked.getRank());
  }
  if (failed(runStcPipeline(module, options)))
    return failure();
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder) {
    reportError(kTool, "cannot detect the host: " +
                           llvm::toString(tmBuilder.takeError()));
    return failure();
  }
  auto tm = tmBuilder->createTargetMachine();
  if (!tm) {
    reportError(kTool, "cannot create a target machine: " +
                           llvm::toString(tm.takeError()));
    return failure();
  }
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(3, 0, tm->get());
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine) {
    reportError(kTool, "JIT compilation failed: " +
                           llvm::toString(engine.takeError()));
    return failure();
  }
  (*engine)->registerSymbols(runtimeSymbols);
  if (isStcGpuTarget(options.target) && !options.gpuEmulate) {
    // Global constructors load the kernels (JIT-compiling the PTX): before
    // the first timed call, and a failure is reported here.
    stc_cuda_clear_error();
    (*engine)->initialize();
    if (failed(checkCudaError()))
      return failure();
  }
  // Materialize now, so that JIT compilation is not part of the first
  // timed call.
  auto entryPoint = (*engine)->lookupPacked("_mlir_ciface_" + entry);
  if (!entryPoint) {
    reportError(kTool, "JIT compilation failed: " +
                           llvm::toString(entryPoint.takeError()));
    return failure();
  }
  program.entryPoint = *entryPoint;
  program.engine = std::move(*engine);
  return program;
}

/// Calls the entry once; returns its results.
/// The extent in bytes of a result buffer (the span its strides address).
size_t extentBytes(const Descriptor &d, size_t width) {
  int64_t last = d.offset();
  for (int64_t i = 0; i < d.rank; ++i) {
    if (d.size(i) == 0)
      return 0;
    last += (d.size(i) - 1) * d.stride(i);
  }
  return size_t(last + 1) * width;
}

/// `deviceEntry` (--gpu-device-entry on a CUDA device): the program takes
/// and returns device buffers, so the arguments are copied to device memory
/// first and the results back from it, by stc-run as any caller holding its
/// data on the host would (outside the program's --profile counters).
/// Where --gpu-device-entry programs keep their buffers.
enum class EntryBuffers { Host, CudaDevice, EmulatedDevice };

/// The device copies of the arguments (--gpu-device-entry on a CUDA
/// device): allocated at the first call and kept for the calls of
/// --repeat, as a caller that holds its data on the device keeps it, so
/// that every call sees the same addresses (the runtime's caches, tensor
/// maps among them, are keyed by them); freed at the end.
struct DeviceArguments {
  SmallVector<StcCudaDevicePtr> pointers;
  DeviceArguments() = default;
  DeviceArguments(const DeviceArguments &) = delete;
  DeviceArguments &operator=(const DeviceArguments &) = delete;
  ~DeviceArguments() {
    for (StcCudaDevicePtr p : pointers)
      stc_cuda_mem_free(p);
  }
};

FailureOr<SmallVector<HostTensor>>
invoke(CompiledProgram &program, SmallVector<HostTensor> &args,
       double *milliseconds, EntryBuffers entry = EntryBuffers::Host,
       DeviceArguments *deviceCopies = nullptr) {
  bool deviceEntry = entry == EntryBuffers::CudaDevice;
  SmallVector<Descriptor> argDescs;
  // Without a caller's DeviceArguments, this call's own, freed at return.
  DeviceArguments ownCopies;
  DeviceArguments &deviceArgs = deviceCopies ? *deviceCopies : ownCopies;
  bool allocate = deviceArgs.pointers.empty();
  // --misalign-device-inputs: one element past a 16-byte boundary.
  bool misalign = misalignDeviceInputs && entry != EntryBuffers::Host;
  std::vector<std::vector<uint8_t>> misalignedCopies;
  for (HostTensor &t : args) {
    argDescs.push_back(describe(t));
    size_t shift = misalign ? elementBytes(t.elementType) % 16 : 0;
    if (!deviceEntry) {
      if (!misalign)
        continue;
      // Emulated device memory is host memory: a copy at the shifted place.
      std::vector<uint8_t> &copy =
          misalignedCopies.emplace_back(t.bytes.size() + 32);
      uintptr_t base = reinterpret_cast<uintptr_t>(copy.data());
      uint8_t *at = copy.data() + ((16 - base % 16) % 16) + shift;
      std::copy(t.bytes.begin(), t.bytes.end(), at);
      argDescs.back().words[0] = argDescs.back().words[1] =
          reinterpret_cast<int64_t>(at);
      continue;
    }
    StcCudaDevicePtr p = 0;
    if (allocate) {
      if (stc_cuda_mem_alloc(t.bytes.size() + shift, &p) != STC_CUDA_SUCCESS) {
        (void)checkCudaError();
        return failure();
      }
      deviceArgs.pointers.push_back(p);
    } else {
      p = deviceArgs.pointers[argDescs.size() - 1];
    }
    if (stc_cuda_memcpy_htod(p + shift, t.bytes.data(), t.bytes.size()) !=
        STC_CUDA_SUCCESS) {
      (void)checkCudaError();
      return failure();
    }
    argDescs.back().words[0] = argDescs.back().words[1] = int64_t(p + shift);
  }
  // Results: one descriptor, or a struct of them (all fields 8 bytes).
  size_t resultWords = 0;
  for (int64_t rank : program.resultRanks)
    resultWords += 3 + 2 * rank;
  std::vector<int64_t> resultStorage(std::max<size_t>(resultWords, 1), 0);
  SmallVector<void *> argPointers;
  SmallVector<void *> packed;
  void *resultPointer = resultStorage.data();
  if (!program.resultRanks.empty())
    packed.push_back(&resultPointer);
  for (Descriptor &d : argDescs)
    argPointers.push_back(d.words.data());
  for (void *&p : argPointers)
    packed.push_back(&p);
  stc_rt_clear_error();
  auto start = std::chrono::steady_clock::now();
  program.entryPoint(packed.data());
  auto stop = std::chrono::steady_clock::now();
  if (milliseconds)
    *milliseconds =
        std::chrono::duration<double, std::milli>(stop - start).count();
  // After an error the program returned at once (stc-return-on-error): its
  // results are placeholders, freed unread.
  bool ok = !stc_rt_has_error() && !stc_cuda_has_error();
  SmallVector<HostTensor> results;
  size_t word = 0;
  for (size_t r = 0; r < program.resultRanks.size(); ++r) {
    Descriptor d;
    d.rank = program.resultRanks[r];
    d.words.assign(resultStorage.begin() + word,
                   resultStorage.begin() + word + 3 + 2 * d.rank);
    word += 3 + 2 * d.rank;
    if (deviceEntry) {
      // A device buffer from the runtime's pool: read it back, give it back.
      if (ok) {
        size_t width = elementBytes(program.resultElementTypes[r]);
        std::vector<char> host(extentBytes(d, width));
        if (!host.empty() &&
            stc_cuda_memcpy_dtoh(host.data(),
                                 StcCudaDevicePtr(int64_t(d.words[1])),
                                 host.size()) != STC_CUDA_SUCCESS)
          ok = false;
        Descriptor onHost = d;
        onHost.words[1] = reinterpret_cast<int64_t>(host.data());
        if (ok)
          results.push_back(readResult(onHost, program.resultElementTypes[r]));
      }
      bool aliasesArgument = false;
      for (Descriptor &a : argDescs)
        aliasesArgument |=
            d.allocated() == reinterpret_cast<void *>(a.words[0]);
      if (!aliasesArgument)
        mgpuMemFree(d.allocated(), nullptr);
      continue;
    }
    if (ok)
      results.push_back(readResult(d, program.resultElementTypes[r]));
    // The program allocated its results with malloc; arguments are ours.
    bool aliasesArgument = false;
    for (Descriptor &a : argDescs)
      aliasesArgument |= d.allocated() == reinterpret_cast<void *>(a.words[0]);
    if (aliasesArgument)
      continue;
    // The emulator's device buffers are host memory; its counters see the
    // free as the pool would.
    if (entry == EntryBuffers::EmulatedDevice)
      stc_emu_device_free(d.words[1]);
    std::free(d.allocated());
  }
  if (stc_rt_has_error()) {
    llvm::errs() << stc_rt_error_message() << "\n";
    return failure();
  }
  if (failed(checkCudaError()))
    return failure();
  return results;
}

/// Checks that @entry exists and has tensor arguments and results only.
LogicalResult checkEntry(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal()) {
    reportError(kTool, inputFile + ": no function @" + entry +
                           " with a body (use --entry)");
    return failure();
  }
  for (Type t : func.getFunctionType().getInputs()) {
    if (!isa<RankedTensorType>(t) || !npyDtypeFor(getElementTypeOrSelf(t))) {
      func.emitError() << "stc-run: argument type " << t
                       << " is not supported (ranked tensors of f32, f16, "
                          "bf16, f64 or integers)";
      return failure();
    }
  }
  for (Type t : func.getFunctionType().getResults()) {
    if (!isa<RankedTensorType>(t) || !npyDtypeFor(getElementTypeOrSelf(t))) {
      func.emitError() << "stc-run: result type " << t
                       << " is not supported (ranked tensors only)";
      return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CUDA devices
//===----------------------------------------------------------------------===//

/// A runtime message without the advice to use --device=cpu (stc-run says
/// itself what it falls back to).
std::string withoutCpuAdvice(llvm::StringRef message) {
  message.consume_front("error: ");
  message.consume_back("; use --device=cpu");
  return message.str();
}

/// `--list-devices`: one line per device, "N: NAME sm_XY, M MiB" (the
/// memory when the driver reports it), marked when STC cannot use it.
int listCudaDevices() {
  using namespace ::stc::cuda;
  CudaDriver &drv = CudaDriver::get();
  if (!drv.status().ok()) {
    reportError(kTool, (drv.status().code == STC_CUDA_ERROR_NO_DEVICE
                            ? "no CUDA device: "
                            : "no CUDA driver: ") +
                           withoutCpuAdvice(drv.status().message));
    return 1;
  }
  int count = 0;
  if (CUresult r = drv.cuDeviceGetCount(&count); r != kCudaSuccess) {
    reportError(kTool,
                "no CUDA device: " + drv.describe("cuDeviceGetCount", r));
    return 1;
  }
  if (count == 0) {
    reportError(kTool, "no CUDA device: the driver reports 0 devices");
    return 1;
  }
  // cuDeviceTotalMem is not among the entry points the runtime needs; look
  // it up in the library the runtime loaded.
  using TotalMemFn = CUresult (*)(size_t *, CUdevice);
  TotalMemFn totalMem = nullptr;
  // dlopen only adds a reference to the loaded library (RTLD_NOLOAD); the
  // runtime's own reference keeps it loaded after dlclose.
  if (void *lib = dlopen(drv.libraryPath().c_str(),
                         RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    totalMem = reinterpret_cast<TotalMemFn>(dlsym(lib, "cuDeviceTotalMem_v2"));
    dlclose(lib);
  }
  for (int i = 0; i < count; ++i) {
    DeviceProperties props;
    Status status = drv.queryDevice(i, props);
    if (!status.ok() && status.code != STC_CUDA_ERROR_UNSUPPORTED_DEVICE) {
      llvm::outs() << i << ": (" << status.message << ")\n";
      continue;
    }
    llvm::outs() << i << ": " << props.name << " sm_" << props.smMajor
                 << props.smMinor;
    size_t bytes = 0;
    if (totalMem && totalMem(&bytes, props.device) == kCudaSuccess)
      llvm::outs() << ", " << (bytes >> 20) << " MiB";
    if (!status.ok())
      llvm::outs() << " (unsupported: STC's GPU kernels need sm_80 or later)";
    llvm::outs() << "\n";
  }
  return 0;
}

/// The GPU target for a device of compute capability `sm` (10 * major +
/// minor, at least 80): the newest target not newer than the device. A
/// Hopper (exactly 9.0) gets sm_90a, the wgmma.mma_async.sp kernels (the
/// sm_90 mma.sp ones run at a fraction of their speed there). Past 9.0 it
/// is sm_90 PTX, which the driver JIT-compiles forward (sm_90a code would
/// not run there).
std::string targetForDevice(int sm) {
  if (sm == 90)
    return "sm_90a";
  if (sm > 90)
    return "sm_90";
  if (sm >= 89)
    return "sm_89";
  if (sm >= 86)
    return "sm_86";
  return "sm_80";
}

/// Probes device 0 for --device=cuda|auto. On success fills `info`; on
/// failure returns the reason and leaves no error recorded.
std::optional<std::string> probeCuda(StcCudaDeviceInfo &info) {
  if (stc_cuda_init(0) == STC_CUDA_SUCCESS &&
      stc_cuda_device_info(&info) == STC_CUDA_SUCCESS)
    return std::nullopt;
  std::string why = withoutCpuAdvice(cudaErrorLine());
  stc_cuda_clear_error();
  return why;
}

/// A run-time error stops the program where it happens (the runtime's
/// error hook): a program that prints as it runs (vector.print,
/// sparse_tensor.print) prints nothing after it. What it printed before is
/// flushed first.
[[noreturn]] void stopOnRuntimeError(const char *message) {
  std::fflush(stdout);
  llvm::errs() << message << "\n";
  llvm::errs().flush();
  std::_Exit(1);
}

/// True when `a` and `b` are both NaN, or the same infinity.
bool sameNonFinite(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::isinf(a) && a == b;
}

double toleranceFor(Type t) {
  if (t.isF16() || t.isBF16() || t.isInteger(8))
    return 1e-2;
  // i32 results are the exact integer accumulator.
  if (t.isInteger(32))
    return 0.0;
  return 1e-5;
}

/// Largest element-wise difference allowed for integer results: i32 is
/// exact; an i8 result may differ by one where the two paths' f32
/// epilogues round a value near a half differently.
std::optional<double> integerMaxDiff(Type t) {
  if (t.isInteger(32))
    return 0.0;
  if (t.isInteger(8))
    return 1.0;
  return std::nullopt;
}

/// The GPU computes f32 operands as tf32 (10-bit mantissa): the tf32
/// tolerance of docs/DESIGN.md §7.
double gpuInputTolerance(Type t) {
  if (isa<IntegerType>(t))
    return 0.0; // i8 products are exact in the s32 accumulator.
  return t.isF32() ? 1e-3 : toleranceFor(t);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Keep freed buffers of up to 32 MiB in the heap instead of returning
  // them to the OS: a program run repeatedly (--repeat) would otherwise
  // page-fault through every temporary on every call.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerSharedToolOptions(kTool);
  onnx_import::registerOnnxInput();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-run " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "stc-run: compile and run an stc program\n");
  if (listDevices)
    return listCudaDevices();
  if (inputFile.empty()) {
    llvm::errs() << "stc-run: Not enough positional command line arguments "
                    "specified!\nMust specify at least 1 positional argument: "
                    "See: stc-run --help\n";
    return 1;
  }

  StcPipelineOptions options;
  if (failed(getPipelineOptions(kTool, options)))
    return 1;
  if (device != "auto" && device != "cpu" && device != "cuda" &&
      device != "emulate") {
    reportError(kTool, "--device must be auto, cpu, cuda or emulate, got '" +
                           device + "'");
    return 1;
  }
  if (device == "emulate") {
    // The GPU kernels, compiled for --target (sm_80 unless a GPU target is
    // given), run on the CPU.
    if (options.target == "cpu")
      options.target = "sm_80";
    options.gpuEmulate = true;
  }
  bool gpuTargetGiven = targetGiven() && options.target != "cpu";
  if (device == "cpu" && gpuTargetGiven) {
    reportError(kTool, "--target=" + options.target +
                           " generates GPU code, which --device=cpu does not "
                           "run (use --device=cuda or --device=emulate)");
    return 1;
  }
  if (device == "cuda" && targetGiven() && options.target == "cpu") {
    reportError(kTool, "--target=cpu contradicts --device=cuda");
    return 1;
  }
  // CUDA: which device, and the target its kernels are compiled for.
  bool useCuda = false;
  std::string cudaLine;
  if (device == "cuda" || device == "auto") {
    StcCudaDeviceInfo info;
    std::optional<std::string> why = probeCuda(info);
    if (why && (device == "cuda" || gpuTargetGiven)) {
      reportError(kTool,
                  "--device=" + device +
                      (device == "auto" ? " with --target=" + options.target
                                        : std::string()) +
                      ": no usable CUDA device: " + *why);
      return 1;
    }
    if (!why) {
      useCuda = true;
      std::string sm = "sm_" + std::to_string(info.sm);
      if (!gpuTargetGiven) {
        options.target = targetForDevice(info.sm);
        // mma.sp::ordered_metadata is PTX ISA 8.5, which drivers before
        // CUDA 12.5 cannot JIT-compile; the plain form is PTX 7.1.
        if (info.driver_version > 0 && info.driver_version < 12050)
          options.gpu.orderedMetadata = false;
      }
      cudaLine =
          "stc-run: device: cuda (" + std::string(info.name) + ", " + sm +
          (options.target == sm ? std::string()
                                : ", running " + options.target + " kernels") +
          ")";
    } else {
      cudaLine =
          "stc-run: device: cpu (auto: no usable CUDA device: " + *why + ")";
    }
  }
  if (repeat == 0) {
    reportError(kTool, "--repeat must be at least 1");
    return 1;
  }
  if (options.gpuDeviceEntry && !useCuda && !options.gpuEmulate) {
    reportError(kTool, "--gpu-device-entry needs a GPU (--device=cuda or "
                       "--device=emulate); the program runs on the CPU");
    return 1;
  }
  if (misalignDeviceInputs && !options.gpuDeviceEntry) {
    reportError(kTool, "--misalign-device-inputs needs --gpu-device-entry "
                       "(without it the program copies its inputs to "
                       "buffers of its own)");
    return 1;
  }

  DialectRegistry registry;
  registerAllStcDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  filterRemarks(context);
  OwningOpRef<ModuleOp> module =
      parseInput(kTool, inputFile, context, sourceMgr);
  if (!module || failed(checkEntry(*module)))
    return 1;
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  FunctionType type = func.getFunctionType();

  // Inputs.
  if (inputs.size() > type.getNumInputs()) {
    reportError(kTool, std::to_string(inputs.size()) + " --input files for @" +
                           entry + ", which takes " +
                           std::to_string(type.getNumInputs()) + " arguments");
    return 1;
  }
  if (inputs.size() < type.getNumInputs() && !randomInputs) {
    reportError(kTool, "@" + entry + " takes " +
                           std::to_string(type.getNumInputs()) +
                           " arguments but " + std::to_string(inputs.size()) +
                           " --input files were given (or use "
                           "--random-inputs)");
    return 1;
  }
  if (outputs.size() > type.getNumResults()) {
    reportError(kTool, std::to_string(outputs.size()) +
                           " --output files for @" + entry + ", which has " +
                           std::to_string(type.getNumResults()) + " results");
    return 1;
  }
  SmallVector<HostTensor> args(type.getNumInputs());
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto argType = cast<RankedTensorType>(type.getInput(i));
    LogicalResult loaded = i < inputs.size()
                               ? loadInput(inputs[i], i, argType, args[i])
                               : randomInput(i, argType, rng, args[i]);
    if (failed(loaded))
      return 1;
  }

  OwningOpRef<ModuleOp> referenceModule;
  if (check)
    referenceModule = module->clone();

  if (device == "emulate")
    llvm::errs() << "stc-run: device: emulate (" << options.target
                 << " kernels on the CPU)\n";
  else if (device == "auto" || useCuda)
    llvm::errs() << cudaLine << "\n";
  else
    llvm::errs() << "stc-run: device: cpu\n";
  FailureOr<CompiledProgram> program = failure();
  if (useCuda && device == "auto") {
    // Compile a copy for the GPU; a program the GPU code generator rejects
    // (f32 operands, say) runs on the CPU instead.
    OwningOpRef<ModuleOp> attempt = module->clone();
    std::string why;
    {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Error)
          return failure(); // remarks go on to the usual handlers
        if (why.empty())
          why = d.str();
        return success();
      });
      program = compile(*attempt, options);
    }
    if (failed(program)) {
      if (why.empty()) // not a compiler diagnostic: already reported
        return 1;
      llvm::errs() << "stc-run: device: cpu (auto: the GPU code generator "
                      "rejected the program: "
                   << why << ")\n";
      options.target = "cpu";
      setRemarksMuted(true); // Already reported by the attempt.
      program = compile(*module, options);
      setRemarksMuted(false);
    }
  } else {
    program = compile(*module, options);
  }
  if (failed(program))
    return 1;

  stc_rt_set_error_hook(&stopOnRuntimeError);
  // --profile: the GPU's counters around each call (stc_gpu_counters.h).
  bool onCuda = useCuda && options.target != "cpu";
  bool onEmulator = options.gpuEmulate && options.target != "cpu";
  if (!profileFile.empty() && onCuda)
    stc_cuda_set_profiling(1);
  auto readCounters = [&](StcGpuCounters &c) {
    c = StcGpuCounters{};
    if (onCuda)
      stc_cuda_counters(&c);
    else if (onEmulator)
      stc_emu_counters(&c);
  };
  llvm::json::Array profileCalls;
  SmallVector<double> times;
  FailureOr<SmallVector<HostTensor>> results;
  DeviceArguments deviceArguments;
  for (unsigned r = 0; r < repeat; ++r) {
    double ms = 0;
    StcGpuCounters before, after;
    readCounters(before);
    EntryBuffers entryBuffers = EntryBuffers::Host;
    if (options.gpuDeviceEntry)
      entryBuffers = onCuda       ? EntryBuffers::CudaDevice
                     : onEmulator ? EntryBuffers::EmulatedDevice
                                  : EntryBuffers::Host;
    results = invoke(*program, args, &ms, entryBuffers, &deviceArguments);
    if (failed(results))
      return 1;
    times.push_back(ms);
    if (profileFile.empty())
      continue;
    readCounters(after);
    if (onCuda && failed(checkCudaError()))
      return 1;
    profileCalls.push_back(llvm::json::Object{
        {"launches", int64_t(after.launches - before.launches)},
        {"h2d_bytes", int64_t(after.h2d_bytes - before.h2d_bytes)},
        {"d2h_bytes", int64_t(after.d2h_bytes - before.d2h_bytes)},
        {"device_allocs", int64_t(after.device_allocs - before.device_allocs)},
        {"device_frees", int64_t(after.device_frees - before.device_frees)},
        {"kernel_ms", after.kernel_ms - before.kernel_ms},
        {"wall_ms", ms}});
  }
  llvm::errs() << "stc-run: timing: runs (ms):";
  for (double t : times)
    llvm::errs() << llvm::format(" %.3f", t);
  llvm::errs() << "\n";
  std::sort(times.begin(), times.end());
  llvm::errs() << llvm::format(
      "stc-run: timing: @%s median %.3f ms, min %.3f ms over %u runs\n",
      entry.c_str(), times[times.size() / 2], times.front(), (unsigned)repeat);

  bool checkFailed = false;
  if (check) {
    StcPipelineOptions refOptions = options;
    refOptions.reference = true;
    refOptions.target = "cpu";
    refOptions.gpuEmulate = false;
    setRemarksMuted(true); // Already reported for the program itself.
    FailureOr<CompiledProgram> reference =
        compile(*referenceModule, refOptions);
    setRemarksMuted(false);
    if (failed(reference))
      return 1;
    FailureOr<SmallVector<HostTensor>> expected =
        invoke(*reference, args, nullptr);
    if (failed(expected))
      return 1;
    for (size_t i = 0; i < results->size(); ++i) {
      std::vector<double> got = asDoubles((*results)[i]);
      std::vector<double> want = asDoubles((*expected)[i]);
      double num = 0, den = 0, maxDiff = 0;
      for (size_t e = 0; e < got.size(); ++e) {
        // The same NaN or infinity in both results is agreement (an input
        // NaN reaches both through the same products); a non-finite value
        // on one side only makes the error infinite below.
        if (sameNonFinite(got[e], want[e]))
          continue;
        num += (got[e] - want[e]) * (got[e] - want[e]);
        den += want[e] * want[e];
        maxDiff = std::max(maxDiff, std::fabs(got[e] - want[e]));
      }
      double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
      if (std::isnan(rel))
        rel = INFINITY;
      double tol = toleranceFor((*results)[i].elementType);
      // Tensor cores multiply f16/bf16 inputs and accumulate with their own
      // rounding: on the GPU the inputs' precision bounds the error too.
      if ((useCuda || options.gpuEmulate) && options.target != "cpu")
        for (Type t : type.getInputs())
          tol = std::max(tol, gpuInputTolerance(getElementTypeOrSelf(t)));
      std::optional<double> maxAllowed =
          integerMaxDiff((*results)[i].elementType);
      bool ok = rel <= tol && (!maxAllowed || maxDiff <= *maxAllowed);
      checkFailed |= !ok;
      llvm::errs() << llvm::format(
          "stc-run: check: result #%zu relative error %.3e vs the dense "
          "reference (tolerance %.0e)",
          i, rel, tol);
      if (maxAllowed)
        llvm::errs() << llvm::format(", largest difference %.0f (at most "
                                     "%.0f)",
                                     maxDiff, *maxAllowed);
      llvm::errs() << ": " << (ok ? "PASS" : "FAIL") << "\n";
    }
  }
  if (checkFailed)
    return 1;
  // The profile first: if it cannot be written, no output is.
  if (!profileFile.empty()) {
    int64_t inputBytes = 0;
    for (const HostTensor &t : args)
      inputBytes += int64_t(t.bytes.size());
    llvm::json::Object profile{{"device", onCuda       ? "cuda"
                                          : onEmulator ? "emulate"
                                                       : "cpu"},
                               {"target", options.target},
                               {"entry", entry},
                               {"input_bytes", inputBytes},
                               {"calls", std::move(profileCalls)}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(profile))) << "\n";
    std::string error;
    if (!::stc::format::writeFileAtomically(
            profileFile, std::vector<uint8_t>(text.begin(), text.end()),
            error)) {
      reportError(kTool, error);
      return 1;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (failed(writeOutput(outputs[i], (*results)[i]))) {
      if (!profileFile.empty())
        llvm::sys::fs::remove(profileFile);
      return 1;
    }
  return 0;
}
