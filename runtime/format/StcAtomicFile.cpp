//===- StcAtomicFile.cpp - write a whole file or nothing ------------------===//

#include "runtime/format/StcAtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace {

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

} // namespace

bool stc::format::writeFileAtomically(const std::string &path,
                                      const std::vector<uint8_t> &bytes,
                                      std::string &error) {
  // A uniquely named temporary file next to the destination, so that the
  // final rename is atomic (same file system); the counter keeps threads of
  // one process apart, the pid processes.
  static std::atomic<unsigned> counter{0};
  std::string tempPath;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tempPath = path + ".tmp." + std::to_string(::getpid()) + "." +
               std::to_string(counter++);
    fd =
        ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    error = path + ": cannot create a temporary file in '" + directoryOf(path) +
            "': " + std::strerror(errno);
    return false;
  }

  auto failAndCleanup = [&](const std::string &what, int err) {
    if (fd >= 0)
      ::close(fd);
    ::unlink(tempPath.c_str());
    error = path + ": " + what + ": " + std::strerror(err);
    return false;
  };
  const uint8_t *p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t written = ::write(fd, p, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return failAndCleanup("write error", errno);
    }
    p += written;
    left -= static_cast<size_t>(written);
  }
  int closeResult = ::close(fd);
  fd = -1;
  if (closeResult != 0)
    return failAndCleanup("write error", errno);
  if (::rename(tempPath.c_str(), path.c_str()) != 0)
    return failAndCleanup("cannot rename the temporary file into place", errno);
  return true;
}
