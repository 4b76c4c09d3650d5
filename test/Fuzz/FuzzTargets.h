//===- FuzzTargets.h - STC's fuzz targets -----------------------*- C++ -*-===//
//
// The fuzz targets of docs/RELIABILITY.md ("Fuzzing"), one function each
// with libFuzzer's contract (any bytes in, return 0; a crash, a hang, a
// sanitizer report or a failed invariant -- __builtin_trap -- is a
// finding). They live in one library, StcFuzzTargets, that two drivers
// call: stc-fuzz (libFuzzer, LibFuzzerDriver.cpp) and stc-fuzz-replay
// (plain main, ReplayMain.cpp: runs files, for builds without libFuzzer
// and for reproducing a finding).
//
//===----------------------------------------------------------------------===//
#ifndef STC_TEST_FUZZ_FUZZTARGETS_H
#define STC_TEST_FUZZ_FUZZTARGETS_H

#include <cstddef>
#include <cstdint>

extern "C" {

/// A fuzz target: libFuzzer's LLVMFuzzerTestOneInput signature.
typedef int (*StcFuzzTarget)(const uint8_t *data, size_t size);

/// The target called `name` ("npy", "safetensors", "runtime", "onnx",
/// "tuning-db", "pipeline-cpu", "pipeline-ptx"), or null.
StcFuzzTarget stcFuzzTarget(const char *name);

/// The names above, separated by spaces (for messages).
const char *stcFuzzTargetNames(void);
}

namespace stc::fuzz {

/// .npy reader (parseNpy): on success the array's data matches its shape,
/// and encoding it and reading it back gives the same array.
int npyTarget(const uint8_t *data, size_t size);

/// safetensors reader (parseSafetensors): on success every tensor's data
/// matches shape x dtype, and encode -> parse gives the same file.
int safetensorsTarget(const uint8_t *data, size_t size);

/// The runtime's prune / compress / decompress / check / decode-indices /
/// check-reduction / check-alloc entry points (stc_runtime.h), on
/// descriptors and data made from the bytes: never a crash; prune gives the
/// pattern, compress of a pruned tensor succeeds and decompresses to it.
int runtimeTarget(const uint8_t *data, size_t size);

/// The ONNX importer (compiler/onnx) on the bytes as a model file, whose
/// external data can only be read from a private directory
/// (OnnxTargets.cpp): a refusal says why (no module); an accepted model
/// gives a module that verifies, with no error diagnostic.
int onnxTarget(const uint8_t *data, size_t size);

/// The tuning-database reader (passes/Tuning) on the bytes as a JSON file:
/// a refusal names the file and adds nothing; accepted entries are
/// complete and the cost model fitted to them predicts finite, positive
/// times.
int tuningDbTarget(const uint8_t *data, size_t size);

/// The .mlir front end and the whole CPU pipeline (parse -> verify ->
/// buildStcPipeline with sparsity=force -> LLVM IR), without running.
int pipelineCpuTarget(const uint8_t *data, size_t size);

/// The same to PTX, for sm_80 and sm_90a.
int pipelinePtxTarget(const uint8_t *data, size_t size);

} // namespace stc::fuzz

#endif // STC_TEST_FUZZ_FUZZTARGETS_H
