//===- TestSupport.h - helpers shared by the unit tests --------*- C++ -*-===//
#ifndef STC_TEST_UNIT_TESTSUPPORT_H
#define STC_TEST_UNIT_TESTSUPPORT_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

namespace stc::test {

/// The bits of a float, and back (to compare NaN payloads and signed zeros
/// exactly).
inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// A fresh temporary directory under $TMPDIR (or /tmp), removed with its
/// files on destruction.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string templ =
        std::string(base && *base ? base : "/tmp") + "/stc-unit-test-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      path = buf.data();
  }
  ~TempDir() {
    if (path.empty())
      return;
    for (const std::string &name : list())
      ::unlink((path + "/" + name).c_str());
    ::rmdir(path.c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  std::string file(const std::string &name) const { return path + "/" + name; }
  /// Names of the entries of the directory (without "." and "..").
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    if (DIR *dir = ::opendir(path.c_str())) {
      while (dirent *entry = ::readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..")
          names.push_back(name);
      }
      ::closedir(dir);
    }
    return names;
  }
  std::string path;
};

} // namespace stc::test

#endif // STC_TEST_UNIT_TESTSUPPORT_H
