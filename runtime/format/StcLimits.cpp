//===- StcLimits.cpp - sizes STC refuses ------------------------*- C++ -*-===//
//
// See StcLimits.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/format/StcLimits.h"

#include <cstdio>
#include <unistd.h>

namespace stc::format {

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::optional<int64_t> checkedElementCount(const std::vector<int64_t> &shape) {
  for (int64_t d : shape)
    if (d < 0)
      return std::nullopt;
  for (int64_t d : shape)
    if (d == 0)
      return 0;
  int64_t count = 1;
  for (int64_t d : shape) {
    std::optional<int64_t> next = checkedMul(count, d);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return count;
}

std::optional<int64_t> checkedByteSize(const std::vector<int64_t> &shape,
                                       int64_t elementBytes) {
  std::optional<int64_t> count = checkedElementCount(shape);
  if (!count)
    return std::nullopt;
  return checkedMul(*count, elementBytes);
}

uint64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return uint64_t(pages) * uint64_t(pageSize);
}

std::string formatBytes(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof(text), "%llu bytes (%.1f GiB)",
                static_cast<unsigned long long>(bytes),
                double(bytes) / double(uint64_t(1) << 30));
  return text;
}

std::string describeAllocationLimit(uint64_t bytes, bool overflowed) {
  if (overflowed)
    return "its size in bytes overflows 64 bits";
  uint64_t memory = physicalMemoryBytes();
  if (memory != 0 && bytes > memory)
    return formatBytes(bytes) + " is more than this machine's memory, " +
           formatBytes(memory);
  return std::string();
}

} // namespace stc::format
