//===- NpyTest.cpp - Tests for the .npy reader/writer ---------------------===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Unit tests for runtime/npy: round trips of every supported dtype and shape
// kind, interoperability with files written (and read) by NumPy itself
// (skipped when no python3 with numpy is available), format versions 2.0 and
// 3.0, every error path, and the f16/bf16 conversions.
//
//===----------------------------------------------------------------------===//

#include "runtime/npy/Npy.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace stc::npy;

using stc::test::TempDir;

namespace {

const std::vector<std::string> kAllDtypes = {
    "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"};

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Builds an .npy image with an arbitrary header dict and payload.
std::string makeNpy(const std::string &dict, const std::string &payload,
                    int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t len = header.size();
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + header + payload;
}

std::string floatPayload(const std::vector<float> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

/// Fills an array with deterministic pseudo-random bytes (0/1 for bool).
Array patternArray(const std::string &dtype, const std::vector<int64_t> &shape,
                   unsigned seed) {
  Array a = makeArray(dtype, shape);
  std::mt19937 rng(seed);
  for (uint8_t &byte : a.data)
    byte = dtype == "b1" ? rng() & 1 : static_cast<uint8_t>(rng());
  return a;
}

/// Returns a python3 command that can import numpy, or "" if none.
const std::string &pythonWithNumpy() {
  static const std::string python = [] {
    for (const char *candidate :
         {"python3", "/usr/bin/python3", "/usr/local/bin/python3"}) {
      std::string cmd =
          std::string(candidate) + " -c \"import numpy\" >/dev/null 2>&1";
      if (std::system(cmd.c_str()) == 0)
        return std::string(candidate);
    }
    return std::string();
  }();
  return python;
}

/// Runs a python script (written to a file in \p dir) with numpy; returns
/// the exit status (0 on success).
int runPython(const TempDir &dir, const std::string &script) {
  std::string scriptPath = dir.file("script.py");
  writeBytes(scriptPath, script);
  std::string cmd = pythonWithNumpy() + " " + scriptPath + " " + dir.path;
  int rc = std::system(cmd.c_str());
  ::unlink(scriptPath.c_str());
  return rc;
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(NpyTest, RoundTripEveryDtypeAndShape) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {7}, {2, 3, 4}, {0}, {3, 0, 2}, {1, 1, 1, 5}};
  unsigned seed = 1;
  for (const std::string &dtype : kAllDtypes) {
    for (const auto &shape : shapes) {
      SCOPED_TRACE(dtype + " " + shapeToString(shape));
      Array a = patternArray(dtype, shape, seed++);
      std::string path = dir.file("rt.npy");
      std::string error;
      ASSERT_TRUE(writeNpy(path, a, error)) << error;
      Array b;
      ASSERT_TRUE(readNpy(path, b, error)) << error;
      EXPECT_EQ(b.dtype, dtype);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(b.data, a.data);
      EXPECT_EQ(b.numElements(), a.numElements());
      EXPECT_EQ(b.elementSize(), dtypeSize(dtype));
      // Exactly the destination remains; no temporary files.
      EXPECT_EQ(dir.list(), std::vector<std::string>{"rt.npy"});
    }
  }
}

TEST(NpyTest, ArrayHelpers) {
  Array scalar = makeArray("f8", {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.data.size(), 8u);
  Array empty = makeArray("i2", {4, 0});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_TRUE(empty.data.empty());
  EXPECT_EQ(shapeToString({}), "()");
  EXPECT_EQ(shapeToString({3}), "(3,)");
  EXPECT_EQ(shapeToString({2, 3}), "(2, 3)");
  EXPECT_EQ(descrFor("f4"), "<f4");
  EXPECT_EQ(descrFor("u1"), "|u1");
  EXPECT_EQ(descrFor("b1"), "|b1");
  EXPECT_EQ(descrFor("c8"), "");
  EXPECT_FALSE(isSupportedDtype("c8"));
  EXPECT_FALSE(isSupportedDtype("f16"));
  EXPECT_TRUE(isSupportedDtype("u2"));
}

TEST(NpyTest, ParseDescrVariants) {
  std::string canon, error;
  bool big = false;
  ASSERT_TRUE(parseDescr("<f4", canon, big, error));
  EXPECT_EQ(canon, "f4");
  EXPECT_FALSE(big);
  ASSERT_TRUE(parseDescr("=i8", canon, big, error));
  EXPECT_EQ(canon, "i8");
  ASSERT_TRUE(parseDescr(">f2", canon, big, error));
  EXPECT_EQ(canon, "f2");
  EXPECT_TRUE(big);
  ASSERT_TRUE(parseDescr("|b1", canon, big, error));
  EXPECT_EQ(canon, "b1");
  ASSERT_TRUE(parseDescr("|i1", canon, big, error));
  EXPECT_EQ(canon, "i1");
  ASSERT_TRUE(parseDescr("<i1", canon, big, error));
  EXPECT_EQ(canon, "i1");
  ASSERT_TRUE(parseDescr("|u1", canon, big, error));
  EXPECT_EQ(canon, "u1");
  ASSERT_TRUE(parseDescr("|?", canon, big, error));
  EXPECT_EQ(canon, "b1");
  EXPECT_FALSE(parseDescr("<c8", canon, big, error));
  EXPECT_NE(error.find("unsupported dtype '<c8'"), std::string::npos);
  EXPECT_FALSE(parseDescr("|f4", canon, big, error));
  EXPECT_FALSE(parseDescr("<U3", canon, big, error));
  EXPECT_FALSE(parseDescr("|O", canon, big, error));
}

TEST(NpyTest, WrittenHeaderIsNumpyCompatible) {
  TempDir dir;
  Array a = patternArray("f4", {2, 3}, 7);
  std::string error, path = dir.file("h.npy");
  ASSERT_TRUE(writeNpy(path, a, error)) << error;
  std::string bytes = readBytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  size_t headerLen =
      static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  std::string header = bytes.substr(10, headerLen);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.find("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (2, 3), }"),
            0u);
  EXPECT_EQ(bytes.size(), 10 + headerLen + 24);
}

TEST(NpyTest, HugeHeaderUsesVersion2) {
  TempDir dir;
  // 25000 dimensions of size 1: the header no longer fits in 65535 bytes.
  Array a = makeArray("i4", std::vector<int64_t>(25000, 1));
  a.data = {1, 2, 3, 4};
  std::string error, path = dir.file("v2.npy");
  ASSERT_TRUE(writeNpy(path, a, error)) << error;
  std::string bytes = readBytes(path);
  EXPECT_EQ(bytes[6], 2);
  Array b;
  ASSERT_TRUE(readNpy(path, b, error)) << error;
  EXPECT_EQ(b.shape.size(), 25000u);
  EXPECT_EQ(b.data, a.data);
}

TEST(NpyTest, ReadsVersion2And3Headers) {
  TempDir dir;
  std::vector<float> values = {1.5f, -2.0f, 3.25f};
  for (int major : {1, 2, 3}) {
    SCOPED_TRACE(major);
    std::string path = dir.file("v.npy");
    writeBytes(path, makeNpy("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (3,), }",
                             floatPayload(values), major));
    Array a;
    std::string error;
    ASSERT_TRUE(readNpy(path, a, error)) << error;
    EXPECT_EQ(a.dtype, "f4");
    EXPECT_EQ(a.shape, std::vector<int64_t>{3});
    std::vector<float> got;
    ASSERT_TRUE(convertToFloat32(a, got, error)) << error;
    EXPECT_EQ(got, values);
  }
}

TEST(NpyTest, LenientHeaderSyntax) {
  TempDir dir;
  std::string path = dir.file("l.npy");
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  // Double quotes, different key order, no trailing comma, Python 2 'L'.
  writeBytes(path, makeNpy("{\"shape\": (2L, 3L), \"fortran_order\": False, "
                           "\"descr\": \"<f4\"}",
                           floatPayload(values)));
  Array a;
  std::string error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
}

TEST(NpyTest, BigEndianIsByteSwapped) {
  TempDir dir;
  std::string path = dir.file("be.npy");
  // 1.0f big-endian = 3F 80 00 00; 2.0f = 40 00 00 00.
  std::string payload("\x3f\x80\x00\x00\x40\x00\x00\x00", 8);
  writeBytes(path, makeNpy("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (2,), }",
                           payload));
  Array a;
  std::string error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  std::vector<float> got;
  ASSERT_TRUE(convertToFloat32(a, got, error));
  EXPECT_EQ(got, (std::vector<float>{1.0f, 2.0f}));
}

TEST(NpyTest, FortranOrderIsTransposedToC) {
  TempDir dir;
  std::string path = dir.file("f.npy");
  // C-order [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
  std::vector<float> fortran = {0, 3, 1, 4, 2, 5};
  writeBytes(path, makeNpy("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 3), }",
                           floatPayload(fortran)));
  Array a;
  std::string error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  std::vector<float> got;
  ASSERT_TRUE(convertToFloat32(a, got, error));
  EXPECT_EQ(got, (std::vector<float>{0, 1, 2, 3, 4, 5}));

  // 3-d: shape (2, 3, 4), value = 100*i + 10*j + k.
  std::vector<float> f3(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        f3[i + 2 * j + 6 * k] = 100.f * i + 10.f * j + k;
  writeBytes(path, makeNpy("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 3, 4), }",
                           floatPayload(f3)));
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  ASSERT_TRUE(convertToFloat32(a, got, error));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(got[12 * i + 4 * j + k], 100.f * i + 10.f * j + k);
}

//===----------------------------------------------------------------------===//
// Error paths
//===----------------------------------------------------------------------===//

/// Expects readNpy(path) to fail with a one-line message that names the file
/// and contains \p fragment.
void expectReadError(const std::string &path, const std::string &fragment) {
  Array a;
  std::string error;
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find(fragment), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(NpyTest, ErrorMissingFile) {
  TempDir dir;
  expectReadError(dir.file("does-not-exist.npy"), "No such file");
  expectReadError(dir.path, "read error");
}

TEST(NpyTest, ErrorNotAnNpyFile) {
  TempDir dir;
  std::string path = dir.file("garbage.npy");
  writeBytes(path, "hello, this is definitely not numpy data\n");
  expectReadError(path, "not a NumPy .npy file");
  writeBytes(path, "");
  expectReadError(path, "not a NumPy .npy file");
  writeBytes(path, "\x93NUM");
  expectReadError(path, "not a NumPy .npy file");
}

TEST(NpyTest, ErrorUnsupportedVersion) {
  TempDir dir;
  std::string path = dir.file("v9.npy");
  std::string bytes =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              floatPayload({1.0f}));
  bytes[6] = 9;
  writeBytes(path, bytes);
  expectReadError(path, "unsupported .npy format version 9.0");
}

TEST(NpyTest, ErrorTruncated) {
  TempDir dir;
  std::string path = dir.file("trunc.npy");
  std::string full =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              floatPayload({1, 2, 3, 4, 5, 6}));
  writeBytes(path, full.substr(0, full.size() - 4));
  expectReadError(path, "truncated data");
  writeBytes(path, full.substr(0, 40));
  expectReadError(path, "truncated header");
  writeBytes(path, full.substr(0, 9));
  expectReadError(path, "truncated header");
}

TEST(NpyTest, ErrorTrailingBytes) {
  TempDir dir;
  std::string path = dir.file("long.npy");
  writeBytes(path, makeNpy("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,), }",
                           floatPayload({1, 2, 3})));
  expectReadError(path, "shape/size mismatch");
}

TEST(NpyTest, ErrorUnsupportedDtype) {
  TempDir dir;
  std::string path = dir.file("c8.npy");
  writeBytes(path, makeNpy("{'descr': '<c8', 'fortran_order': False, "
                           "'shape': (2,), }",
                           std::string(16, '\0')));
  expectReadError(path, "unsupported dtype '<c8'");
  writeBytes(path, makeNpy("{'descr': [('a', '<f4'), ('b', '<i4')], "
                           "'fortran_order': False, 'shape': (2,), }",
                           std::string(16, '\0')));
  expectReadError(path, "structured dtypes");
  writeBytes(path, makeNpy("{'descr': '<U4', 'fortran_order': False, "
                           "'shape': (1,), }",
                           std::string(16, '\0')));
  expectReadError(path, "unsupported dtype '<U4'");
}

TEST(NpyTest, ErrorBadHeader) {
  TempDir dir;
  std::string path = dir.file("bad.npy");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{'descr': '<f4', 'shape': (1,), }", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, }", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (1,), }", "missing key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
       "'fortran_order' must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
       "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1], }",
       "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x'"},
      {"['descr', '<f4']", "expected '{'"},
      {"{'descr': '<f4' 'fortran_order': False}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,), }",
       "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4294967296, 4294967296, 4294967296), }",
       "too large"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.first);
    writeBytes(path, makeNpy(c.first, floatPayload({1.0f})));
    expectReadError(path, "bad header");
    expectReadError(path, c.second);
  }
}

TEST(NpyTest, WriteErrorsLeaveNoFile) {
  TempDir dir;
  std::string error;
  // Data size does not match the shape.
  Array bad = makeArray("f4", {2, 3});
  bad.data.resize(20);
  std::string path = dir.file("bad.npy");
  EXPECT_FALSE(writeNpy(path, bad, error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("shape/size mismatch"), std::string::npos) << error;
  EXPECT_TRUE(dir.list().empty());

  // Unsupported dtype.
  Array c8 = makeArray("f4", {2});
  c8.dtype = "c8";
  EXPECT_FALSE(writeNpy(path, c8, error));
  EXPECT_NE(error.find("unsupported dtype 'c8'"), std::string::npos) << error;
  EXPECT_TRUE(dir.list().empty());

  // Negative dimension.
  Array neg;
  neg.dtype = "f4";
  neg.shape = {-1};
  EXPECT_FALSE(writeNpy(path, neg, error));
  EXPECT_NE(error.find("negative dimension"), std::string::npos) << error;

  // Directory that does not exist.
  std::string missingDir = dir.file("no/such/dir/x.npy");
  EXPECT_FALSE(writeNpy(missingDir, makeArray("f4", {1}), error));
  EXPECT_NE(error.find(missingDir), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_TRUE(dir.list().empty());

  // Renaming over a directory fails: the temporary file is removed and the
  // directory is untouched.
  std::string subdir = dir.file("sub");
  ASSERT_EQ(::mkdir(subdir.c_str(), 0755), 0);
  EXPECT_FALSE(writeNpy(subdir, makeArray("f4", {1}), error));
  EXPECT_NE(error.find("rename"), std::string::npos) << error;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"sub"});
  ::rmdir(subdir.c_str());

  // A failed write leaves an existing destination intact.
  Array good = patternArray("i4", {3}, 3);
  ASSERT_TRUE(writeNpy(path, good, error)) << error;
  std::string before = readBytes(path);
  EXPECT_FALSE(writeNpy(path, bad, error));
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"bad.npy"});
}

TEST(NpyTest, WriteFailsInReadOnlyDirectory) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path.c_str(), 0555), 0);
  std::string error, path = dir.file("ro.npy");
  EXPECT_FALSE(writeNpy(path, makeArray("f4", {1}), error));
  EXPECT_NE(error.find("temporary file"), std::string::npos) << error;
  ::chmod(dir.path.c_str(), 0755);
  EXPECT_TRUE(dir.list().empty());
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(NpyTest, HalfKnownValues) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(0.5f), 0x3800);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(floatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalf(-1e10f), 0xFC00);
  EXPECT_EQ(floatToHalf(0.1f), 0x2E66);
  EXPECT_EQ(floatToHalf(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400); // Smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // Smallest subnormal.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // Tie to even.
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp: tie up.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.0f, -24)), 0x03FF);
  // Ties to even in the normal range: 1 + 2^-11 is halfway 1 and 1 + 2^-10.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  // A signalling NaN with only low payload bits must stay NaN.
  uint16_t snan = floatToHalf(bitsToFloat(0x7F800001u));
  EXPECT_EQ(snan & 0x7C00, 0x7C00);
  EXPECT_NE(snan & 0x03FF, 0);

  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
}

TEST(NpyTest, HalfExhaustiveRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f)))) << h;
      continue;
    }
    EXPECT_EQ(floatToHalf(f), h) << h;
  }
}

TEST(NpyTest, BFloat16KnownValues) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBFloat16(-2.0f), 0xC000);
  EXPECT_EQ(floatToBFloat16(3.14159265f), 0x4049);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
  // Ties to even: 0x3F808000 is halfway between 0x3F80 and 0x3F81.
  EXPECT_EQ(floatToBFloat16(bitsToFloat(0x3F808000u)), 0x3F80);
  EXPECT_EQ(floatToBFloat16(bitsToFloat(0x3F818000u)), 0x3F82);
  EXPECT_EQ(floatToBFloat16(bitsToFloat(0x3F808001u)), 0x3F81);
  EXPECT_EQ(floatToBFloat16(bitsToFloat(0x3F807FFFu)), 0x3F80);
  // Rounding the largest finite value up overflows to infinity.
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(floatToBFloat16(bitsToFloat(0x00000001u)), 0x0000);
  // NaNs stay NaN, including ones whose payload is only in the low bits.
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(
      floatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(
      std::isnan(bfloat16ToFloat(floatToBFloat16(bitsToFloat(0x7F800001u)))));
  EXPECT_TRUE(
      std::isnan(bfloat16ToFloat(floatToBFloat16(bitsToFloat(0xFF800001u)))));
  EXPECT_EQ(roundToBFloat16(1.00390625f), 1.0f); // Tie to even.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bfloat16ToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f)) {
      EXPECT_EQ(floatToBFloat16(f), b) << b;
    }
  }
}

TEST(NpyTest, ConvertToAndFromFloat32) {
  std::vector<float> values = {0.0f, 1.0f, -1.5f, 2.5f, 300.0f, -300.0f};
  std::string error;
  for (const std::string &dtype : kAllDtypes) {
    SCOPED_TRACE(dtype);
    Array a;
    ASSERT_TRUE(fromFloat32(values, dtype, {2, 3}, a, error)) << error;
    EXPECT_EQ(a.dtype, dtype);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.data.size(), 6 * dtypeSize(dtype));
    std::vector<float> back;
    ASSERT_TRUE(convertToFloat32(a, back, error)) << error;
    ASSERT_EQ(back.size(), 6u);
    if (dtype[0] == 'f') {
      EXPECT_EQ(back, values);
    } else if (dtype == "b1") {
      EXPECT_EQ(back, (std::vector<float>{0, 1, 1, 1, 1, 1}));
    } else if (dtype == "i1") {
      // Round half to even and saturate.
      EXPECT_EQ(back, (std::vector<float>{0, 1, -2, 2, 127, -128}));
    } else if (dtype == "u1") {
      EXPECT_EQ(back, (std::vector<float>{0, 1, 0, 2, 255, 0}));
    } else if (dtype[0] == 'u') {
      EXPECT_EQ(back, (std::vector<float>{0, 1, 0, 2, 300, 0}));
    } else {
      EXPECT_EQ(back, (std::vector<float>{0, 1, -2, 2, 300, -300}));
    }
  }
  // f16 rounding on the way in.
  Array h;
  ASSERT_TRUE(fromFloat32({0.1f}, "f2", {}, h, error));
  uint16_t bits;
  std::memcpy(&bits, h.data.data(), 2);
  EXPECT_EQ(bits, 0x2E66);
  Array nanInt;
  ASSERT_TRUE(fromFloat32({std::nanf("")}, "i4", {1}, nanInt, error));
  std::vector<float> zero;
  ASSERT_TRUE(convertToFloat32(nanInt, zero, error));
  EXPECT_EQ(zero, std::vector<float>{0.0f});

  // Errors.
  Array out;
  EXPECT_FALSE(fromFloat32(values, "f4", {4}, out, error));
  EXPECT_NE(error.find("shape/size mismatch"), std::string::npos) << error;
  EXPECT_FALSE(fromFloat32(values, "c8", {6}, out, error));
  EXPECT_NE(error.find("unsupported dtype"), std::string::npos) << error;
  Array broken = makeArray("f4", {3});
  broken.data.pop_back();
  EXPECT_FALSE(convertToFloat32(broken, zero, error));
}

//===----------------------------------------------------------------------===//
// Interoperability with NumPy
//===----------------------------------------------------------------------===//

TEST(NpyTest, ReadsFilesWrittenByNumpy) {
  if (pythonWithNumpy().empty())
    GTEST_SKIP() << "python3 with numpy is not available";
  TempDir dir;
  const char *script = R"PY(
import sys, numpy as np
d = sys.argv[1]
a = (np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 0.25 - 3)
np.save(d + '/f4.npy', a.astype('<f4'))
np.save(d + '/f2.npy', a.astype('<f2'))
np.save(d + '/f8.npy', a)
for t in ['i1', 'i2', 'i4', 'i8']:
    np.save(d + '/%s.npy' % t, a.astype('<' + t))
for t in ['u1', 'u2', 'u4', 'u8']:
    np.save(d + '/%s.npy' % t, np.abs(a).astype('<' + t))
np.save(d + '/b1.npy', a > 0)
np.save(d + '/scalar.npy', np.float32(2.5))
np.save(d + '/empty.npy', np.zeros((0, 3), np.float32))
np.save(d + '/fortran.npy', np.asfortranarray(a.astype(np.float32)))
np.save(d + '/bigendian.npy', a.astype('>f4'))
np.save(d + '/bigendian_f2.npy', a.astype('>f2'))
with open(d + '/v2.npy', 'wb') as f:
    np.lib.format.write_array(f, a.astype(np.float32), version=(2, 0))
with open(d + '/v3.npy', 'wb') as f:
    np.lib.format.write_array(f, a.astype(np.float32), version=(3, 0))
np.save(d + '/c8.npy', a.astype(np.complex64))
# Random floats and their float16 / bfloat16 roundings (bf16 computed with
# integer arithmetic: round to nearest even on the top 16 bits).
r = np.random.default_rng(0)
x = np.concatenate([r.standard_normal(5000), r.standard_normal(2000) * 1e-5,
                    r.standard_normal(2000) * 3e4,
                    r.standard_normal(1000) * 1e-7]).astype(np.float32)
np.save(d + '/rand_f32.npy', x)
with np.errstate(over='ignore'):
    np.save(d + '/rand_f16.npy', x.astype(np.float16))
u = x.view(np.uint32).astype(np.uint64)
bf = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
np.save(d + '/rand_bf16.npy', bf)
)PY";
  ASSERT_EQ(runPython(dir, script), 0);

  std::string error;
  auto load = [&](const std::string &name) {
    Array a;
    EXPECT_TRUE(readNpy(dir.file(name), a, error)) << error;
    return a;
  };
  auto asFloats = [&](const Array &a) {
    std::vector<float> v;
    EXPECT_TRUE(convertToFloat32(a, v, error)) << error;
    return v;
  };
  std::vector<float> expected(24);
  for (int i = 0; i < 24; ++i)
    expected[i] = i * 0.25f - 3;
  const std::vector<int64_t> shape = {2, 3, 4};

  for (const char *name :
       {"f4.npy", "f2.npy", "f8.npy", "fortran.npy", "bigendian.npy",
        "bigendian_f2.npy", "v2.npy", "v3.npy"}) {
    SCOPED_TRACE(name);
    Array a = load(name);
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(asFloats(a), expected);
  }
  EXPECT_EQ(load("f2.npy").dtype, "f2");
  EXPECT_EQ(load("bigendian_f2.npy").dtype, "f2");
  EXPECT_EQ(load("f8.npy").dtype, "f8");
  for (const char *t : {"i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"}) {
    SCOPED_TRACE(t);
    Array a = load(std::string(t) + ".npy");
    EXPECT_EQ(a.dtype, t);
    EXPECT_EQ(a.shape, shape);
    std::vector<float> v = asFloats(a);
    for (int i = 0; i < 24; ++i) {
      float want = std::trunc(expected[i]);
      if (t[0] == 'u')
        want = std::trunc(std::fabs(expected[i]));
      EXPECT_EQ(v[i], want) << i;
    }
  }
  Array b = load("b1.npy");
  EXPECT_EQ(b.dtype, "b1");
  std::vector<float> bv = asFloats(b);
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(bv[i], expected[i] > 0 ? 1.0f : 0.0f);

  Array scalar = load("scalar.npy");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(asFloats(scalar), std::vector<float>{2.5f});
  Array empty = load("empty.npy");
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.data.empty());

  Array c8;
  EXPECT_FALSE(readNpy(dir.file("c8.npy"), c8, error));
  EXPECT_NE(error.find("unsupported dtype '<c8'"), std::string::npos) << error;

  // Our f16 / bf16 rounding agrees with NumPy's on random data.
  std::vector<float> x = asFloats(load("rand_f32.npy"));
  Array f16 = load("rand_f16.npy");
  Array bf16 = load("rand_bf16.npy");
  ASSERT_EQ(f16.data.size(), x.size() * 2);
  ASSERT_EQ(bf16.data.size(), x.size() * 2);
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t h, bf;
    std::memcpy(&h, &f16.data[2 * i], 2);
    std::memcpy(&bf, &bf16.data[2 * i], 2);
    ASSERT_EQ(floatToHalf(x[i]), h) << x[i];
    ASSERT_EQ(floatToBFloat16(x[i]), bf) << x[i];
  }
}

TEST(NpyTest, NumpyReadsOurFiles) {
  if (pythonWithNumpy().empty())
    GTEST_SKIP() << "python3 with numpy is not available";
  TempDir dir;
  std::string error;
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i)
    values[i] = i * 0.25f - 3;
  for (const std::string &dtype : kAllDtypes) {
    Array a;
    ASSERT_TRUE(fromFloat32(values, dtype, {2, 3, 4}, a, error)) << error;
    ASSERT_TRUE(writeNpy(dir.file("our_" + dtype + ".npy"), a, error)) << error;
  }
  Array scalar;
  ASSERT_TRUE(fromFloat32({2.5f}, "f4", {}, scalar, error));
  ASSERT_TRUE(writeNpy(dir.file("our_scalar.npy"), scalar, error));
  ASSERT_TRUE(
      writeNpy(dir.file("our_empty.npy"), makeArray("f2", {3, 0}), error));
  const char *script = R"PY(
import sys, numpy as np
d = sys.argv[1]
ref = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 0.25 - 3
for t in ['f2', 'f4', 'f8', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8',
          'b1']:
    a = np.load(d + '/our_%s.npy' % t)
    want = np.dtype('?' if t == 'b1' else '<' + t)
    assert a.dtype == want, (t, a.dtype)
    assert a.shape == (2, 3, 4), (t, a.shape)
    if t[0] == 'f':
        exp = ref
    elif t == 'b1':
        exp = ref != 0
    elif t[0] == 'u':
        exp = np.where(ref < 0, 0, np.round(ref))
    else:
        exp = np.round(ref)
    assert np.array_equal(a.astype(np.float64), np.asarray(exp, np.float64)), t
s = np.load(d + '/our_scalar.npy')
assert s.shape == () and s.dtype == np.float32 and s == 2.5
e = np.load(d + '/our_empty.npy')
assert e.shape == (3, 0) and e.dtype == np.float16
)PY";
  EXPECT_EQ(runPython(dir, script), 0);
}

} // namespace
