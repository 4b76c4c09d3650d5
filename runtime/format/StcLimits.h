//===- StcLimits.h - sizes STC refuses, checked without overflow -*- C++
//-*-===//
//
// One place for the size rules of docs/RELIABILITY.md ("Limits"): element
// counts and byte sizes computed without signed overflow, the physical
// memory of the machine (what a run-time allocation may ask for), and the
// compile-time bounds (what a static shape may describe, what a constant
// may hold once expanded). Used by the compiler (static shapes, constants),
// the runtime (allocations of generated code) and the tools (inputs, random
// inputs, weights files), so that all of them refuse the same sizes with
// the same numbers.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_FORMAT_STCLIMITS_H
#define STC_RUNTIME_FORMAT_STCLIMITS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stc::format {

/// Bytes a static shape may describe: 2^47, the user address space of
/// x86-64 (4-level paging) and of AArch64 with 48-bit addresses. A fixed
/// bound rather than the compiling machine's memory, so that whether a
/// program compiles does not depend on the machine that compiles it.
constexpr uint64_t kMaxStaticBytes = uint64_t(1) << 47;

/// Bytes a constant may hold once expanded (a splat `dense<1.0>` of a large
/// shape is a few bytes of text but this many bytes when folded, converted
/// or emitted into an object file): 2 GiB, what the small code model of an
/// object file addresses.
constexpr uint64_t kMaxConstantBytes = uint64_t(1) << 31;

/// a * b for non-negative a and b; nullopt when it overflows int64.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// The product of `shape` (every dimension non-negative); nullopt when a
/// dimension is negative or the product overflows int64. A zero dimension
/// gives 0 whatever the others are.
std::optional<int64_t> checkedElementCount(const std::vector<int64_t> &shape);

/// count * elementBytes; nullopt on overflow of int64.
std::optional<int64_t> checkedByteSize(const std::vector<int64_t> &shape,
                                       int64_t elementBytes);

/// The machine's physical memory in bytes (0 if unknown).
uint64_t physicalMemoryBytes();

/// Why `bytes` cannot be allocated on this machine, or "" when it can be
/// tried: more than the physical memory. `overflowed` says that computing
/// the size overflowed 64 bits.
std::string describeAllocationLimit(uint64_t bytes, bool overflowed);

/// "N bytes (X GiB)" for messages.
std::string formatBytes(uint64_t bytes);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCLIMITS_H
