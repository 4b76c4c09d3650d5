//===- LibFuzzerDriver.cpp - libFuzzer's entry into STC's targets -*- C++
//-*-===//
//
// stc-fuzz: libFuzzer (clang's -fsanitize=fuzzer) around the targets of
// FuzzTargets.h, chosen by the environment variable STC_FUZZ_TARGET. The
// targets live in the StcFuzzTargets library, loaded with dlopen at start
// (STC_FUZZ_LIBRARY, else the path this driver was built with), so that
// one driver compiled by clang serves a library built by any compiler: in
// a clang build configured with -DSTC_FUZZ=ON the library carries
// libFuzzer's coverage instrumentation (and the sanitizers), elsewhere it
// does not and libFuzzer mutates blind (a smoke run, not a campaign).
// Usage: STC_FUZZ_TARGET=npy stc-fuzz [libFuzzer flags] [CORPUS...].
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

#ifndef STC_FUZZ_LIBRARY
#define STC_FUZZ_LIBRARY "libStcFuzzTargets.so"
#endif

namespace {
StcFuzzTarget target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *library = std::getenv("STC_FUZZ_LIBRARY");
  if (!library || !*library)
    library = STC_FUZZ_LIBRARY;
  void *handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    std::fprintf(stderr, "stc-fuzz: error: cannot load %s: %s\n", library,
                 dlerror());
    std::exit(2);
  }
  auto lookup = reinterpret_cast<StcFuzzTarget (*)(const char *)>(
      dlsym(handle, "stcFuzzTarget"));
  auto names = reinterpret_cast<const char *(*)(void)>(
      dlsym(handle, "stcFuzzTargetNames"));
  const char *name = std::getenv("STC_FUZZ_TARGET");
  target = lookup ? lookup(name) : nullptr;
  if (!target) {
    std::fprintf(stderr,
                 "stc-fuzz: error: set STC_FUZZ_TARGET to one of: %s (got "
                 "'%s')\n",
                 names ? names() : "?", name ? name : "");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return target(data, size);
}
