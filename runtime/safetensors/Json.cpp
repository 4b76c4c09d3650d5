//===- Json.cpp - the JSON of a safetensors header --------------*- C++ -*-===//
//
// A strict, generic JSON parser (RFC 8259: objects, arrays, strings with
// every escape, numbers kept as their text, true/false/null) that builds a
// small tree, rejecting duplicate keys and nesting deeper than a fixed
// limit; UTF-8 validation (RFC 3629); JSON string quoting.  Safetensors.cpp
// checks the tree against the safetensors schema.
//
//===----------------------------------------------------------------------===//

#include "runtime/safetensors/Json.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <utility>

namespace stc::safetensors {

namespace {

/// Length of the well-formed UTF-8 sequence at `p` (at most `n` bytes
/// available), or 0 if it is ill-formed (overlong forms, surrogates and code
/// points above U+10FFFF are ill-formed, as RFC 3629 says).
size_t utf8SequenceLength(const uint8_t *p, size_t n) {
  uint8_t b0 = p[0];
  if (b0 < 0x80)
    return 1;
  size_t len;
  uint32_t cp;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// A strict RFC 8259 parser over one buffer.  Nesting is bounded so that a
/// hostile header cannot exhaust the stack.
class JsonParser {
public:
  static constexpr int kMaxDepth = 64;

  JsonParser(const uint8_t *p, size_t n) : p(p), n(n) {}

  /// Parses one value followed only by whitespace.  On failure returns false
  /// with `error` describing the problem and its byte offset.
  bool parseDocument(JsonValue &out, std::string &error) {
    skipSpace();
    if (!parseValue(out, 0))
      return report(error);
    skipSpace();
    if (pos != n) {
      fail("unexpected data after the JSON object");
      return report(error);
    }
    return true;
  }

private:
  const uint8_t *p;
  size_t n;
  size_t pos = 0;
  std::string message;
  size_t messagePos = 0;

  bool fail(const std::string &what) {
    if (message.empty()) {
      message = what;
      messagePos = pos;
    }
    return false;
  }
  bool report(std::string &error) {
    error = message + " at header byte " + std::to_string(messagePos);
    return false;
  }

  void skipSpace() {
    while (pos < n && (p[pos] == ' ' || p[pos] == '\t' || p[pos] == '\n' ||
                       p[pos] == '\r'))
      ++pos;
  }

  bool consumeLiteral(const char *lit) {
    size_t len = std::strlen(lit);
    if (n - pos < len || std::memcmp(p + pos, lit, len) != 0)
      return false;
    pos += len;
    return true;
  }

  bool parseValue(JsonValue &out, int depth) {
    if (pos >= n)
      return fail("unexpected end of the header");
    uint8_t c = p[pos];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        return fail("JSON nested deeper than " + std::to_string(kMaxDepth) +
                    " levels");
      return c == '{' ? parseObject(out, depth) : parseArray(out, depth);
    }
    if (c == '"') {
      out.kind = JsonValue::Kind::String;
      return parseString(out.text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      out.kind = JsonValue::Kind::Number;
      return parseNumber(out.text);
    }
    if (consumeLiteral("true")) {
      out.kind = JsonValue::Kind::Bool;
      out.boolean = true;
      return true;
    }
    if (consumeLiteral("false")) {
      out.kind = JsonValue::Kind::Bool;
      return true;
    }
    if (consumeLiteral("null")) {
      out.kind = JsonValue::Kind::Null;
      return true;
    }
    return fail("invalid JSON value");
  }

  bool parseObject(JsonValue &out, int depth) {
    out.kind = JsonValue::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (pos < n && p[pos] == '}') {
      ++pos;
      return true;
    }
    std::set<std::string> seen;
    while (true) {
      skipSpace();
      if (pos >= n || p[pos] != '"')
        return fail("expected a string key");
      size_t keyPos = pos;
      std::string key;
      if (!parseString(key))
        return false;
      if (!seen.insert(key).second) {
        pos = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (pos >= n || p[pos] != ':')
        return fail("expected ':' after a key");
      ++pos;
      skipSpace();
      JsonValue value;
      if (!parseValue(value, depth + 1))
        return false;
      out.members.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (pos < n && p[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < n && p[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(JsonValue &out, int depth) {
    out.kind = JsonValue::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (pos < n && p[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      JsonValue value;
      if (!parseValue(value, depth + 1))
        return false;
      out.elements.push_back(std::move(value));
      skipSpace();
      if (pos < n && p[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < n && p[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  bool parseHex4(uint32_t &v) {
    if (n - pos < 4)
      return fail("truncated \\u escape");
    v = 0;
    for (int i = 0; i < 4; ++i) {
      uint8_t c = p[pos + i];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        return fail("invalid \\u escape");
    }
    pos += 4;
    return true;
  }

  /// The header was checked to be valid UTF-8 before parsing, so multi-byte
  /// sequences are copied as they are.
  bool parseString(std::string &out) {
    ++pos; // '"'
    out.clear();
    while (true) {
      if (pos >= n)
        return fail("unterminated string");
      uint8_t c = p[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos;
        continue;
      }
      ++pos;
      if (pos >= n)
        return fail("unterminated string");
      uint8_t e = p[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += static_cast<char>(e);
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return fail("unpaired surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low;
          if (!consumeLiteral("\\u") || !parseHex4(low) || low < 0xDC00 ||
              low > 0xDFFF)
            return fail("unpaired surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos;
        return fail("invalid escape in a string");
      }
    }
  }

  bool parseNumber(std::string &out) {
    size_t start = pos;
    auto digits = [&] {
      size_t s = pos;
      while (pos < n && p[pos] >= '0' && p[pos] <= '9')
        ++pos;
      return pos - s;
    };
    if (p[pos] == '-')
      ++pos;
    if (pos < n && p[pos] == '0') {
      ++pos;
    } else if (digits() == 0) {
      return fail("invalid number");
    }
    if (pos < n && p[pos] == '.') {
      ++pos;
      if (digits() == 0)
        return fail("invalid number");
    }
    if (pos < n && (p[pos] == 'e' || p[pos] == 'E')) {
      ++pos;
      if (pos < n && (p[pos] == '+' || p[pos] == '-'))
        ++pos;
      if (digits() == 0)
        return fail("invalid number");
    }
    out.assign(reinterpret_cast<const char *>(p + start), pos - start);
    return true;
  }
};

} // namespace

size_t findInvalidUtf8(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t len = utf8SequenceLength(p + i, n - i);
    if (len == 0)
      return i;
    i += len;
  }
  return std::string::npos;
}

bool isValidUtf8(const std::string &s) {
  return findInvalidUtf8(reinterpret_cast<const uint8_t *>(s.data()),
                         s.size()) == std::string::npos;
}

bool parseJsonDocument(const uint8_t *p, size_t n, JsonValue &out,
                       std::string &error) {
  JsonParser parser(p, n);
  return parser.parseDocument(out, error);
}

void appendJsonString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

} // namespace stc::safetensors
