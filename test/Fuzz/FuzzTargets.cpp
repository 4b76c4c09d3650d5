//===- FuzzTargets.cpp - the fuzz targets by name ---------------*- C++ -*-===//
//
// See FuzzTargets.h.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include <cstring>

namespace {

struct Entry {
  const char *name;
  StcFuzzTarget target;
};

const Entry kTargets[] = {
    {"npy", stc::fuzz::npyTarget},
    {"safetensors", stc::fuzz::safetensorsTarget},
    {"runtime", stc::fuzz::runtimeTarget},
    {"onnx", stc::fuzz::onnxTarget},
    {"tuning-db", stc::fuzz::tuningDbTarget},
    {"pipeline-cpu", stc::fuzz::pipelineCpuTarget},
    {"pipeline-ptx", stc::fuzz::pipelinePtxTarget},
};

} // namespace

extern "C" StcFuzzTarget stcFuzzTarget(const char *name) {
  for (const Entry &e : kTargets)
    if (name && std::strcmp(name, e.name) == 0)
      return e.target;
  return nullptr;
}

extern "C" const char *stcFuzzTargetNames(void) {
  return "npy safetensors runtime onnx tuning-db pipeline-cpu pipeline-ptx";
}
