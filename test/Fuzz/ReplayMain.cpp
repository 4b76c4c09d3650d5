//===- ReplayMain.cpp - run fuzz targets on files ---------------*- C++ -*-===//
//
// stc-fuzz-replay TARGET PATH...: runs the fuzz target TARGET
// (FuzzTargets.h) once on each file given, and on each file of each
// directory given (sorted, not recursive). For builds without libFuzzer
// (the seed corpora still go through every target) and to reproduce a
// finding under a debugger. Prints "stc-fuzz-replay: TARGET: N inputs" and
// exits 0 when no input crashed.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stc-fuzz-replay TARGET PATH... (TARGET: %s)\n",
                 stcFuzzTargetNames());
    return 2;
  }
  StcFuzzTarget target = stcFuzzTarget(argv[1]);
  if (!target) {
    std::fprintf(stderr,
                 "stc-fuzz-replay: error: unknown target '%s' (expected one "
                 "of: %s)\n",
                 argv[1], stcFuzzTargetNames());
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    std::error_code ec;
    if (std::filesystem::is_directory(argv[i], ec)) {
      std::vector<std::string> entries;
      for (const auto &entry : std::filesystem::directory_iterator(argv[i]))
        if (entry.is_regular_file())
          entries.push_back(entry.path().string());
      std::sort(entries.begin(), entries.end());
      files.insert(files.end(), entries.begin(), entries.end());
    } else {
      files.push_back(argv[i]);
    }
  }
  for (const std::string &file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "stc-fuzz-replay: error: cannot read %s\n",
                   file.c_str());
      return 2;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    target(bytes.data(), bytes.size());
  }
  std::printf("stc-fuzz-replay: %s: %zu inputs\n", argv[1], files.size());
  return 0;
}
