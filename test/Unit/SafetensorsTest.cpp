//===- SafetensorsTest.cpp - Tests for the safetensors reader/writer ------===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Unit tests for runtime/safetensors: round trips of random tensors of many
// dtypes, a file assembled byte by byte from the format description (not by
// our writer) read back correctly, our writer's bytes checked against the
// format (length field, exact JSON, offsets tiling, alignment), every class
// of malformed input rejected with a message, and random corruptions of a
// valid file never crashing the reader.
//
//===----------------------------------------------------------------------===//

#include "runtime/safetensors/Safetensors.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace stc::safetensors;

using stc::test::TempDir;

namespace {

/// Little-endian u64 length field followed by `header` and `data`.
std::vector<uint8_t> assemble(const std::string &header,
                              const std::vector<uint8_t> &data) {
  std::vector<uint8_t> bytes;
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<uint8_t>(n >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

Tensor randomTensor(const std::string &name, Dtype dtype,
                    std::vector<int64_t> shape, std::mt19937 &rng) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(static_cast<size_t>(t.numBytes()));
  for (uint8_t &b : t.data)
    b = static_cast<uint8_t>(rng());
  return t;
}

bool parse(const std::vector<uint8_t> &bytes, File &out, std::string &error) {
  return parseSafetensors(bytes.data(), bytes.size(), "f.safetensors", out,
                          error);
}

/// Parses `bytes`, expecting failure with a message that contains `needle`.
void expectError(const std::vector<uint8_t> &bytes, const std::string &needle) {
  File f;
  std::string error;
  EXPECT_FALSE(parse(bytes, f, error)) << "accepted; expected: " << needle;
  EXPECT_NE(error.find(needle), std::string::npos)
      << "message: " << error << "\nexpected to contain: " << needle;
  EXPECT_EQ(error.rfind("f.safetensors: ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

/// A valid one-tensor header around `entry` (the value of tensor "w").
std::vector<uint8_t> withEntry(const std::string &entry, size_t dataBytes) {
  return assemble("{\"w\":" + entry + "}", std::vector<uint8_t>(dataBytes, 7));
}

} // namespace

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

TEST(SafetensorsDtype, NamesAndSizes) {
  for (const char *name :
       {"BOOL", "U8",  "I8",   "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16",
        "U16",  "F16", "BF16", "I32",     "U32",     "F32",     "C64",
        "F64",  "I64", "U64",  "F4",      "F6_E2M3", "F6_E3M2"}) {
    std::optional<Dtype> d = parseDtype(name);
    ASSERT_TRUE(d) << name;
    EXPECT_STREQ(dtypeName(*d), name);
  }
  EXPECT_FALSE(parseDtype("f32"));
  EXPECT_FALSE(parseDtype("float16"));
  EXPECT_FALSE(parseDtype(""));
  EXPECT_EQ(dtypeBits(Dtype::BF16), 16);
  EXPECT_EQ(dtypeBits(Dtype::C64), 64);
  EXPECT_EQ(dtypeBits(Dtype::F4), 4);
  EXPECT_TRUE(isFloatingDtype(Dtype::BF16));
  EXPECT_FALSE(isFloatingDtype(Dtype::I32));
  EXPECT_FALSE(isFloatingDtype(Dtype::C64));

  Tensor t;
  t.dtype = Dtype::F4;
  t.shape = {3};
  EXPECT_EQ(t.numBytes(), -1); // 12 bits is not a whole number of bytes.
  t.shape = {2, 3};
  EXPECT_EQ(t.numBytes(), 3);
  t.dtype = Dtype::F32;
  t.shape = {};
  EXPECT_EQ(t.numElements(), 1);
  EXPECT_EQ(t.numBytes(), 4);
  t.shape = {4, 0, 5};
  EXPECT_EQ(t.numBytes(), 0);
  t.shape = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(t.numElements(), -1);
  EXPECT_EQ(t.numBytes(), -1);
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(SafetensorsRoundTrip, RandomTensorsOfManyDtypes) {
  std::mt19937 rng(1234);
  const Dtype dtypes[] = {Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::F64,
                          Dtype::I64, Dtype::I32, Dtype::I16,  Dtype::I8,
                          Dtype::U8,  Dtype::U16, Dtype::BOOL, Dtype::F4};
  for (int trial = 0; trial < 20; ++trial) {
    File in;
    int count = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < count; ++i) {
      std::vector<int64_t> shape;
      int rank = static_cast<int>(rng() % 4);
      for (int r = 0; r < rank; ++r)
        shape.push_back(1 + static_cast<int64_t>(rng() % 5) * 2);
      Dtype d = dtypes[rng() % (sizeof(dtypes) / sizeof(dtypes[0]))];
      if (d == Dtype::F4 && Tensor{"", d, shape, {}}.numBytes() < 0)
        shape.push_back(2);
      in.tensors.push_back(randomTensor(
          "layer." + std::to_string(count - i) + ".weight", d, shape, rng));
    }
    if (trial % 2)
      in.metadata = {{"format", "pt"}, {"trial", std::to_string(trial)}};

    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(encodeSafetensors(in, bytes, error)) << error;
    File out;
    ASSERT_TRUE(parse(bytes, out, error)) << error;
    EXPECT_EQ(out.metadata, in.metadata);
    // The data is stored in the order given, and read back in file order.
    ASSERT_EQ(out.tensors.size(), in.tensors.size());
    for (size_t i = 0; i < in.tensors.size(); ++i) {
      EXPECT_EQ(out.tensors[i].name, in.tensors[i].name);
      EXPECT_EQ(out.tensors[i].dtype, in.tensors[i].dtype);
      EXPECT_EQ(out.tensors[i].shape, in.tensors[i].shape);
      EXPECT_EQ(out.tensors[i].data, in.tensors[i].data);
    }
  }
}

TEST(SafetensorsRoundTrip, ScalarsEmptyTensorsAndOddNames) {
  std::mt19937 rng(7);
  File in;
  in.tensors.push_back(randomTensor("scalar", Dtype::F64, {}, rng));
  in.tensors.push_back(randomTensor("empty", Dtype::F32, {0, 3}, rng));
  in.tensors.push_back(randomTensor("empty2", Dtype::I8, {2, 0}, rng));
  in.tensors.push_back(randomTensor("quote\"back\\slash\ttab\x01 \xc3\xa9",
                                    Dtype::U8, {3}, rng));
  in.tensors.push_back(randomTensor("", Dtype::I16, {1}, rng));
  in.metadata = {{"k\n", "v\"\\\x7f"}, {"", ""}};
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeSafetensors(in, bytes, error)) << error;
  File out;
  ASSERT_TRUE(parse(bytes, out, error)) << error;
  EXPECT_EQ(out.metadata, in.metadata);
  for (const Tensor &t : in.tensors) {
    const Tensor *r = out.find(t.name);
    ASSERT_TRUE(r) << t.name;
    EXPECT_EQ(r->dtype, t.dtype);
    EXPECT_EQ(r->shape, t.shape);
    EXPECT_EQ(r->data, t.data);
  }
}

TEST(SafetensorsRoundTrip, EmptyFile) {
  File in;
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeSafetensors(in, bytes, error)) << error;
  // "{}" padded to 8 bytes.
  EXPECT_EQ(bytes, assemble("{}      ", {}));
  File out;
  ASSERT_TRUE(parse(bytes, out, error)) << error;
  EXPECT_TRUE(out.tensors.empty());
  EXPECT_TRUE(out.metadata.empty());
}

TEST(SafetensorsRoundTrip, FileOnDiskAtomically) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::mt19937 rng(3);
  File in;
  in.tensors.push_back(randomTensor("a", Dtype::BF16, {4, 8}, rng));
  in.metadata["format"] = "pt";
  std::string error;
  std::string path = dir.file("w.safetensors");
  ASSERT_TRUE(writeSafetensors(path, in, error)) << error;
  File out;
  ASSERT_TRUE(readSafetensors(path, out, error)) << error;
  ASSERT_EQ(out.tensors.size(), 1u);
  EXPECT_EQ(out.tensors[0].data, in.tensors[0].data);
  // Only the destination remains: no temporary file.
  EXPECT_EQ(dir.list(), std::vector<std::string>{"w.safetensors"});

  // A failed write (invalid contents, or a missing directory) leaves
  // nothing behind and an existing file untouched.
  File bad = in;
  bad.tensors[0].data.pop_back();
  EXPECT_FALSE(writeSafetensors(path, bad, error));
  EXPECT_NE(error.find("w.safetensors: cannot write: tensor \"a\": 63 bytes "
                       "of data for shape [4, 8] of BF16, which needs 64"),
            std::string::npos)
      << error;
  ASSERT_TRUE(readSafetensors(path, out, error)) << error;
  EXPECT_EQ(out.tensors[0].data, in.tensors[0].data);
  EXPECT_FALSE(
      writeSafetensors(dir.file("no/such/dir/x.safetensors"), in, error));
  EXPECT_NE(error.find("cannot create a temporary file in '"),
            std::string::npos)
      << error;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"w.safetensors"});

  EXPECT_FALSE(readSafetensors(dir.file("missing.safetensors"), out, error));
  EXPECT_NE(error.find("missing.safetensors: cannot open for reading: No such "
                       "file or directory"),
            std::string::npos)
      << error;
  EXPECT_FALSE(readSafetensors(dir.path, out, error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// A file written by hand from the format description
//===----------------------------------------------------------------------===//

TEST(SafetensorsSpec, ReadsAHandWrittenFile) {
  // Two tensors, listed out of offset order, with whitespace, an escaped
  // name, metadata in the middle and trailing space padding:
  //   "b\u00e9" I32 [2]   at [8, 16): 7, -2
  //   "a"       F32 [2,1] at [0, 8):  1.0, -2.5
  //   "c"       BF16 []   at [16, 18): bf16 1.5 = 0x3FC0
  std::string header =
      "{ \"b\\u00e9\" : {\"shape\": [2], \"dtype\": \"I32\", "
      "\"data_offsets\": [8, 16]},\n"
      "  \"__metadata__\": {\"format\": \"pt\", \"note\": \"x\\ny\"},\n"
      "  \"a\": {\"dtype\": \"F32\", \"shape\": [2, 1], "
      "\"data_offsets\": [0, 8]},\n"
      "  \"c\": {\"dtype\": \"BF16\", \"shape\": [], "
      "\"data_offsets\": [16, 18]} }   ";
  std::vector<uint8_t> data = {
      0x00, 0x00, 0x80, 0x3F, // 1.0f
      0x00, 0x00, 0x20, 0xC0, // -2.5f
      0x07, 0x00, 0x00, 0x00, // 7
      0xFE, 0xFF, 0xFF, 0xFF, // -2
      0xC0, 0x3F,             // bf16 1.5
  };
  std::vector<uint8_t> bytes;
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<uint8_t>((n >> (8 * i)) & 0xFF));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());

  File f;
  std::string error;
  ASSERT_TRUE(parse(bytes, f, error)) << error;
  ASSERT_EQ(f.tensors.size(), 3u);
  // In the order of their data.
  EXPECT_EQ(f.tensors[0].name, "a");
  EXPECT_EQ(f.tensors[1].name, "b\xc3\xa9");
  EXPECT_EQ(f.tensors[2].name, "c");
  EXPECT_EQ(f.tensors[0].dtype, Dtype::F32);
  EXPECT_EQ(f.tensors[0].shape, (std::vector<int64_t>{2, 1}));
  float a[2];
  std::memcpy(a, f.tensors[0].data.data(), 8);
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_EQ(a[1], -2.5f);
  int32_t b[2];
  ASSERT_EQ(f.tensors[1].data.size(), 8u);
  std::memcpy(b, f.tensors[1].data.data(), 8);
  EXPECT_EQ(b[0], 7);
  EXPECT_EQ(b[1], -2);
  EXPECT_EQ(f.tensors[2].dtype, Dtype::BF16);
  EXPECT_TRUE(f.tensors[2].shape.empty());
  EXPECT_EQ(f.tensors[2].data, (std::vector<uint8_t>{0xC0, 0x3F}));
  EXPECT_EQ(f.metadata.at("format"), "pt");
  EXPECT_EQ(f.metadata.at("note"), "x\ny");
  EXPECT_TRUE(f.find("b\xc3\xa9"));
  EXPECT_FALSE(f.find("b"));
}

TEST(SafetensorsSpec, EscapesAndSurrogatePairs) {
  // \ud83d\ude00 is U+1F600 (4 UTF-8 bytes); \/ is '/'.
  std::vector<uint8_t> bytes =
      assemble("{\"x\\ud83d\\ude00\\/\\t\":{\"dtype\":\"U8\",\"shape\":[1],"
               "\"data_offsets\":[0,1]}}",
               {42});
  File f;
  std::string error;
  ASSERT_TRUE(parse(bytes, f, error)) << error;
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].name, "x\xf0\x9f\x98\x80/\t");
}

//===----------------------------------------------------------------------===//
// Our writer's bytes against the format
//===----------------------------------------------------------------------===//

TEST(SafetensorsSpec, WriterBytes) {
  File in;
  // Given order: z (F32 [2]), then a (U8 [3]), then m (I64 [1]).
  in.tensors.push_back({"z", Dtype::F32, {2}, {0, 0, 128, 63, 0, 0, 0, 64}});
  in.tensors.push_back({"a", Dtype::U8, {3}, {1, 2, 3}});
  in.tensors.push_back({"m", Dtype::I64, {1}, {9, 0, 0, 0, 0, 0, 0, 0}});
  in.metadata = {{"stc.format", "2:4"}, {"a", "b"}};
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeSafetensors(in, bytes, error)) << error;

  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | bytes[i];
  ASSERT_LE(8 + n, bytes.size());
  // The buffer starts 8-byte aligned.
  EXPECT_EQ(n % 8, 0u);
  std::string header(bytes.begin() + 8, bytes.begin() + 8 + n);
  // Compact JSON, __metadata__ first, then names sorted; the data in the
  // order given: z at [0, 8), a at [8, 11), m at [11, 19).
  std::string json =
      "{\"__metadata__\":{\"a\":\"b\",\"stc.format\":\"2:4\"},"
      "\"a\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[8,11]},"
      "\"m\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[11,19]},"
      "\"z\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  ASSERT_GE(header.size(), json.size());
  EXPECT_EQ(header.substr(0, json.size()), json);
  EXPECT_EQ(header.substr(json.size()),
            std::string(header.size() - json.size(), ' '));
  EXPECT_LT(header.size() - json.size(), 8u);
  // The buffer is exactly the tensors' bytes, back to back.
  std::vector<uint8_t> buffer(bytes.begin() + 8 + n, bytes.end());
  std::vector<uint8_t> expected = {0, 0, 128, 63, 0, 0, 0, 64, 1, 2,
                                   3, 9, 0,   0,  0, 0, 0, 0,  0};
  EXPECT_EQ(buffer, expected);

  // sortForAlignment puts m (8-byte elements) first, then z, then a: every
  // tensor then starts at a multiple of its element size.
  sortForAlignment(in.tensors);
  EXPECT_EQ(in.tensors[0].name, "m");
  EXPECT_EQ(in.tensors[1].name, "z");
  EXPECT_EQ(in.tensors[2].name, "a");
}

TEST(SafetensorsSpec, AlignmentAfterSort) {
  std::mt19937 rng(99);
  const Dtype dtypes[] = {Dtype::U8,  Dtype::F16,  Dtype::F32,
                          Dtype::F64, Dtype::BOOL, Dtype::I16};
  File in;
  for (int i = 0; i < 12; ++i)
    in.tensors.push_back(randomTensor("t" + std::to_string(i), dtypes[i % 6],
                                      {1 + static_cast<int64_t>(rng() % 7)},
                                      rng));
  sortForAlignment(in.tensors);
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeSafetensors(in, bytes, error)) << error;
  File out;
  ASSERT_TRUE(parse(bytes, out, error)) << error;
  size_t offset = 0;
  for (const Tensor &t : out.tensors) {
    size_t size = static_cast<size_t>(dtypeBits(t.dtype) / 8);
    EXPECT_EQ(offset % size, 0u) << t.name;
    offset += t.data.size();
  }
}

TEST(SafetensorsSpec, WriterRejectsInvalidFiles) {
  std::vector<uint8_t> bytes;
  std::string error;
  File dup;
  dup.tensors.push_back({"x", Dtype::U8, {1}, {1}});
  dup.tensors.push_back({"x", Dtype::U8, {1}, {2}});
  EXPECT_FALSE(encodeSafetensors(dup, bytes, error));
  EXPECT_EQ(error, "tensor \"x\": duplicate name");

  File reserved;
  reserved.tensors.push_back({"__metadata__", Dtype::U8, {1}, {1}});
  EXPECT_FALSE(encodeSafetensors(reserved, bytes, error));
  EXPECT_NE(error.find("reserved"), std::string::npos) << error;

  File size;
  size.tensors.push_back({"x", Dtype::F16, {3}, {1, 2, 3, 4}});
  EXPECT_FALSE(encodeSafetensors(size, bytes, error));
  EXPECT_EQ(error, "tensor \"x\": 4 bytes of data for shape [3] of F16, "
                   "which needs 6");

  File negative;
  negative.tensors.push_back({"x", Dtype::U8, {-1}, {}});
  EXPECT_FALSE(encodeSafetensors(negative, bytes, error));
  EXPECT_NE(error.find("negative dimension"), std::string::npos) << error;

  File utf8;
  utf8.tensors.push_back({"\xff", Dtype::U8, {1}, {1}});
  EXPECT_FALSE(encodeSafetensors(utf8, bytes, error));
  EXPECT_NE(error.find("UTF-8"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Malformed inputs
//===----------------------------------------------------------------------===//

TEST(SafetensorsMalformed, Truncated) {
  expectError({}, "shorter than the 8-byte header length");
  expectError({1, 0, 0}, "shorter than the 8-byte header length");
  std::vector<uint8_t> good =
      withEntry("{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8);
  // Cut inside the header.
  expectError(std::vector<uint8_t>(good.begin(), good.begin() + 20),
              "truncated: header length");
  // Cut inside the data.
  expectError(std::vector<uint8_t>(good.begin(), good.end() - 1),
              "truncated: tensor \"w\" [0, 8] ends beyond the 7-byte data "
              "buffer");
  // A header length beyond the format's limit.
  std::vector<uint8_t> huge = good;
  huge[4] = 1; // 2^32 + ...
  expectError(huge, "exceeds the limit of 100000000 bytes");
  // Bytes after the last tensor.
  std::vector<uint8_t> extra = good;
  extra.push_back(0);
  expectError(extra, "the tensors cover 8 bytes of the 9-byte data buffer");
}

TEST(SafetensorsMalformed, BadJson) {
  auto header = [](const std::string &h) { return assemble(h, {}); };
  expectError(header(""), "does not start with '{'");
  expectError(header(" {}"), "does not start with '{'");
  expectError(header("[]"), "does not start with '{'");
  expectError(header("{"), "invalid header JSON: expected a string key");
  expectError(header("{\"a\":1,}"), "expected a string key at header byte 7");
  expectError(header("{\"a\" 1}"), "expected ':' after a key");
  expectError(header("{\"a\":[1 2]}"), "expected ',' or ']' in an array");
  expectError(header("{\"a\":tru}"), "invalid JSON value");
  expectError(header("{\"a\":\"x}"), "unterminated string");
  expectError(header("{\"a\":\"\\x\"}"), "invalid escape in a string");
  expectError(header("{\"a\":\"\\ud800\"}"), "unpaired surrogate");
  expectError(header("{\"a\":\"tab\there\"}"), "control character");
  expectError(header("{\"a\":01}"), "expected ',' or '}' in an object");
  expectError(header("{\"a\":-}"), "invalid number");
  expectError(header("{\"a\":1.}"), "invalid number");
  expectError(header("{}}"), "unexpected data after the JSON object");
  expectError(header("{} x"), "unexpected data after the JSON object");
  expectError(header("{\"\xff\":1}"), "not valid UTF-8 at header byte 2");
  expectError(header("{\"\xc0\x80\":1}"), "not valid UTF-8");     // Overlong.
  expectError(header("{\"\xed\xa0\x80\":1}"), "not valid UTF-8"); // Surrogate.
  expectError(
      header("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"),
      "JSON nested deeper than 64 levels");
  expectError(header("{\"a\":1,\"a\":2}"), "duplicate key \"a\"");
}

TEST(SafetensorsMalformed, Schema) {
  expectError(withEntry("1", 0), "tensor \"w\": expected an object");
  expectError(withEntry("{\"dtype\":\"F33\",\"shape\":[1],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "tensor \"w\": unknown dtype \"F33\"");
  expectError(withEntry("{\"dtype\":\"f32\",\"shape\":[1],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "unknown dtype \"f32\"");
  expectError(
      withEntry("{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}", 4),
      "\"dtype\" is not a string");
  expectError(withEntry("{\"dtype\":\"F32\",\"data_offsets\":[0,4]}", 4),
              "tensor \"w\": missing \"shape\"");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1]}", 4),
              "missing \"data_offsets\"");
  expectError(withEntry("{\"shape\":[1],\"data_offsets\":[0,4]}", 4),
              "missing \"dtype\"");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1],"
                        "\"data_offsets\":[0,4],\"extra\":1}",
                        4),
              "tensor \"w\": unknown key \"extra\"");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[-1],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "\"shape\" must be an array of non-negative integers");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1.0],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "\"shape\" must be an array of non-negative integers");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1e0],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "\"shape\" must be an array");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[99999999999999999999],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "\"shape\" must be an array");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":1,"
                        "\"data_offsets\":[0,4]}",
                        4),
              "\"shape\" must be an array");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1],"
                        "\"data_offsets\":[0,4,8]}",
                        4),
              "\"data_offsets\" must be two non-negative integers");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[1],"
                        "\"data_offsets\":[4,0]}",
                        4),
              "\"data_offsets\" [4, 0] end before begin");
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[4294967296,"
                        "4294967296],\"data_offsets\":[0,4]}",
                        4),
              "does not have a whole, representable number of bytes");
  expectError(withEntry("{\"dtype\":\"F4\",\"shape\":[3],"
                        "\"data_offsets\":[0,2]}",
                        2),
              "does not have a whole, representable number of bytes");
  expectError(assemble("{\"__metadata__\":{\"a\":1}}", {}),
              "\"__metadata__\" entry \"a\" is not a string");
  expectError(assemble("{\"__metadata__\":[]}", {}),
              "\"__metadata__\" must be an object of strings");
}

TEST(SafetensorsMalformed, SizeMismatch) {
  expectError(withEntry("{\"dtype\":\"F32\",\"shape\":[2,3],"
                        "\"data_offsets\":[0,20]}",
                        20),
              "tensor \"w\": shape [2, 3] of F32 needs 24 bytes but "
              "\"data_offsets\" [0, 20] span 20");
  expectError(withEntry("{\"dtype\":\"BF16\",\"shape\":[4],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "needs 8 bytes");
}

TEST(SafetensorsMalformed, OffsetsMustTileTheBuffer) {
  std::string a = "\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":";
  std::string b = "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":";
  // Overlap.
  expectError(
      assemble("{" + a + "[0,4]}," + b + "[2,6]}}", std::vector<uint8_t>(6)),
      "tensor \"b\" [2, 6] overlaps tensor \"a\" [0, 4]");
  // Same range twice.
  expectError(
      assemble("{" + a + "[0,4]}," + b + "[0,4]}}", std::vector<uint8_t>(4)),
      "overlaps");
  // Gap in the middle.
  expectError(
      assemble("{" + a + "[0,4]}," + b + "[5,9]}}", std::vector<uint8_t>(9)),
      "tensor \"b\" [5, 9] leaves a gap of 1 bytes before it");
  // Gap at the start.
  expectError(assemble("{" + a + "[2,6]}}", std::vector<uint8_t>(6)),
              "leaves a gap of 2 bytes");
  // Out of order in the header but tiling: accepted.
  File f;
  std::string error;
  EXPECT_TRUE(parse(
      assemble("{" + b + "[4,8]}," + a + "[0,4]}}", std::vector<uint8_t>(8)), f,
      error))
      << error;
}

TEST(SafetensorsMalformed, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(2024);
  File in;
  in.tensors.push_back(randomTensor("w", Dtype::F32, {3, 4}, rng));
  in.tensors.push_back(randomTensor("b", Dtype::F16, {3}, rng));
  in.metadata["k"] = "v";
  std::vector<uint8_t> good;
  std::string error;
  ASSERT_TRUE(encodeSafetensors(in, good, error)) << error;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 3) {
      case 0:
        bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
        break;
      case 1:
        bytes.resize(rng() % (bytes.size() + 1));
        break;
      default:
        bytes.insert(bytes.begin() + rng() % (bytes.size() + 1),
                     static_cast<uint8_t>(rng()));
      }
      if (bytes.empty())
        break;
    }
    File out;
    if (!parse(bytes, out, error)) {
      EXPECT_FALSE(error.empty());
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
  }
}
