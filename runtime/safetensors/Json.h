//===- Json.h - the JSON of a safetensors header ----------------*- C++ -*-===//
//
// What Safetensors.cpp needs of JSON and UTF-8: the strict parser that turns
// a header into a small tree (the first of the two steps of reading a
// header; the schema check is the second), UTF-8 validation, and JSON string
// quoting for writing headers and messages.
//
// Internal to the safetensors library (not part of its API); Json.cpp defines
// it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_SAFETENSORS_JSON_H
#define STC_RUNTIME_SAFETENSORS_JSON_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stc::safetensors {

/// Offset of the first ill-formed UTF-8 byte, or npos.
size_t findInvalidUtf8(const uint8_t *p, size_t n);

/// Whether `s` is well-formed UTF-8.
bool isValidUtf8(const std::string &s);

/// A parsed JSON value.  Numbers keep their source text: the schema decides
/// what it accepts (only non-negative integers).
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  /// The string, or the number's text.
  std::string text;
  std::vector<JsonValue> elements;
  /// Object members in source order (keys are unique).
  std::vector<std::pair<std::string, JsonValue>> members;
};

/// Parses the JSON document of `n` bytes at `p` strictly (RFC 8259): one
/// value followed only by whitespace, with no duplicate keys and nesting
/// bounded so that a hostile header cannot exhaust the stack.  On failure
/// returns false with `error` describing the problem and its byte offset.
bool parseJsonDocument(const uint8_t *p, size_t n, JsonValue &out,
                       std::string &error);

/// Writes `s` as a JSON string: quotes, backslashes and control characters
/// escaped, everything else (UTF-8 included) as is.
void appendJsonString(std::string &out, const std::string &s);

} // namespace stc::safetensors

#endif // STC_RUNTIME_SAFETENSORS_JSON_H
