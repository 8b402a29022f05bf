// detail/atomic_file.hpp: replace a file in one step, or not at all.
//
// The contents go to a fresh temporary file next to the target (same directory,
// hence same file system), which is flushed, synced and closed with every error
// checked, and is then renamed onto the target. POSIX rename() replaces the
// target atomically: a reader sees the old file or the new one, never a mixture.
// On any failure the temporary is removed and forkscale::error is thrown.
// Devices and pipes (/dev/stdout, a FIFO) are the exception: they are written in
// place, since there is no file to replace.
#pragma once
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include "../../config.hpp"
#include "../../report.hpp"

#if defined(_WIN32)
#include <process.h>
#include <filesystem>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Text (a path, a label) as it goes into one line: control characters are written
// as escapes, so a newline inside cannot split the line or move the cursor.
inline std::string printable_path(const std::string& path) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

inline std::string errno_text(int err) {
  if (err == 0) return "unknown error";
  return std::error_code(err, std::generic_category()).message();
}

[[noreturn]] inline void throw_write_error(const std::string& path, const std::string& reason) {
  throw error("forkscale: cannot write report '" + printable_path(path) + "': " + reason);
}

inline unsigned long current_process_id() noexcept {
#if defined(_WIN32)
  return static_cast<unsigned long>(_getpid());
#else
  return static_cast<unsigned long>(getpid());
#endif
}

// Removes the temporary file unless released; closes it first if still open.
class temporary_file {
 public:
  temporary_file() = default;
  temporary_file(const temporary_file&) = delete;
  temporary_file& operator=(const temporary_file&) = delete;
  ~temporary_file() { discard(); }

  // Creates a file that did not exist before ("x": O_EXCL), so a temporary of
  // another writer is never truncated or shared. Returns errno on failure.
  int create(const std::string& target) {
    static std::atomic<unsigned long> counter{0};
    int err = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
      name_ = target + ".tmp." + std::to_string(current_process_id()) + "." +
              std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
      errno = 0;
      file_ = std::fopen(name_.c_str(), "wbx");
      if (file_) return 0;
      err = errno;
      if (err != EEXIST) break;
    }
    name_.clear();
    return err ? err : EIO;
  }

  std::FILE* get() const noexcept { return file_; }
  const std::string& name() const noexcept { return name_; }

  // Closes the stream; returns errno of the first failure, or 0.
  int close() noexcept {
    if (!file_) return 0;
    errno = 0;
    const int rc = std::fclose(file_);
    file_ = nullptr;
    return rc == 0 ? 0 : (errno ? errno : EIO);
  }

  // After a successful rename the name belongs to the target: keep it.
  void release() noexcept { name_.clear(); }

  void discard() noexcept {
    if (file_) {
      std::fclose(file_);
      file_ = nullptr;
    }
    if (!name_.empty()) {
      std::remove(name_.c_str());
      name_.clear();
    }
  }

 private:
  std::FILE* file_ = nullptr;
  std::string name_;
};

// A target that is a device or a pipe (/dev/stdout, /dev/null, a FIFO) is written
// in place: renaming onto it would replace the device node, not feed it.
inline bool is_special_file(const std::string& path) noexcept {
#if defined(_WIN32)
  (void)path;
  return false;
#else
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
#endif
}

inline void write_special_file(const std::string& path, const std::string& contents) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw_write_error(path, errno_text(errno ? errno : EIO));
  errno = 0;
  const bool written = (contents.empty() || std::fwrite(contents.data(), 1, contents.size(), f) == contents.size()) &&
                       std::fflush(f) == 0 && !std::ferror(f);
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written) throw_write_error(path, errno_text(err ? err : EIO));
  if (!closed) throw_write_error(path, errno_text(errno ? errno : EIO));
}

// Writes `contents` to `path`, replacing any file there in one step. Throws
// forkscale::error ("forkscale: cannot write report '<path>': <reason>") and
// leaves neither a partial target nor a temporary file behind on failure.
inline void write_file_atomically(const std::string& path, const std::string& contents) {
  if (path.empty()) throw_write_error(path, "the path is empty");
  if (is_special_file(path)) return write_special_file(path, contents);

  temporary_file tmp;
  if (const int err = tmp.create(path)) throw_write_error(path, errno_text(err));

  errno = 0;
  if (!contents.empty() && std::fwrite(contents.data(), 1, contents.size(), tmp.get()) != contents.size()) {
    const int err = errno;
    tmp.discard();
    throw_write_error(path, errno_text(err ? err : EIO));
  }
  errno = 0;
  if (std::fflush(tmp.get()) != 0 || std::ferror(tmp.get())) {
    const int err = errno;
    tmp.discard();
    throw_write_error(path, errno_text(err ? err : EIO));
  }
#if !defined(_WIN32)
  // The data must be on disk before the rename is, or a crash right after the
  // rename could leave an empty file under the target's name.
  if (fsync(fileno(tmp.get())) != 0 && errno != EINVAL && errno != ENOTSUP) {
    const int err = errno;
    tmp.discard();
    throw_write_error(path, errno_text(err));
  }
#endif
  if (const int err = tmp.close()) {
    tmp.discard();
    throw_write_error(path, errno_text(err));
  }

#if defined(_WIN32)
  // std::rename does not replace an existing file on Windows;
  // std::filesystem::rename does (MoveFileEx with MOVEFILE_REPLACE_EXISTING).
  std::error_code ec;
  std::filesystem::rename(std::filesystem::path(tmp.name()), std::filesystem::path(path), ec);
  if (ec) {
    tmp.discard();
    throw_write_error(path, ec.message());
  }
#else
  errno = 0;
  if (std::rename(tmp.name().c_str(), path.c_str()) != 0) {
    const int err = errno;
    tmp.discard();
    throw_write_error(path, errno_text(err ? err : EIO));
  }
#endif
  tmp.release();
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
