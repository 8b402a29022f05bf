// detail/util/atomic_file.hpp: replace a file in one step, or not at all; and
// replace a group of files written for one request (a plot's .dat and .gp, an
// example's five reports) together, or none of them.
//
// The contents go to a fresh temporary file next to the target (same directory,
// hence same file system), which is flushed, synced and closed with every error
// checked, and is then renamed onto the target. POSIX rename() replaces the
// target atomically: a reader sees the old file or the new one, never a mixture.
// On any failure the temporary is removed and forkscale::error is thrown.
// Devices and pipes (/dev/stdout, a FIFO) are the exception: they are written in
// place, since there is no file to replace.
//
// A group (write_files_atomically) first checks every target and writes every
// temporary file; only when all of them are complete are they renamed, one by
// one. A failure before the first rename — a target that is a directory, a
// directory that is missing or read-only, a full disk — removes every temporary
// and leaves every old file as it was. The renames themselves are not one atomic
// step: a reader may see some files of the group new and the others still old
// for the moment between them, and if a rename fails midway (the directory made
// read-only between the checks and the rename, say) the files renamed before it
// hold the new contents, it and the ones after keep their old contents, no
// temporary is left, and the error names the files already replaced.
#pragma once
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

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

// One file of a group written together (write_files_atomically).
struct file_to_write {
  std::string path;
  std::string contents;
};

// A group's error: the failing file and why, and — for a group of several —
// that none of them was replaced.
[[noreturn]] inline void throw_group_error(const std::string& path, const std::string& reason, std::size_t count) {
  if (count < 2) throw_write_error(path, reason);
  throw_write_error(path, reason + " (none of the " + std::to_string(count) + " files was replaced)");
}

inline bool is_directory_path(const std::string& path) noexcept {
#if defined(_WIN32)
  std::error_code ec;
  return std::filesystem::is_directory(std::filesystem::path(path), ec);
#else
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
#endif
}

// What can be known about the targets before anything is written: a path that
// is empty, named twice, or a directory fails the whole group.
inline void check_targets(const std::vector<file_to_write>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].path;
    if (path.empty()) throw_group_error(path, "the path is empty", files.size());
    for (std::size_t j = 0; j < i; ++j)
      if (files[j].path == path) throw_group_error(path, "the same file is named twice in one write", files.size());
    if (is_directory_path(path)) throw_group_error(path, errno_text(EISDIR), files.size());
  }
}

inline void finish_temporary(temporary_file& tmp, const std::string& path, std::size_t count);

// Writes `contents` into a fresh temporary file for `path`: written, flushed,
// synced and closed, every error checked. Throws (the temporary is then removed
// by its owner).
inline void fill_temporary(temporary_file& tmp, const std::string& path, const std::string& contents,
                           std::size_t count) {
  if (const int err = tmp.create(path)) throw_group_error(path, errno_text(err), count);
  errno = 0;
  if (!contents.empty() && std::fwrite(contents.data(), 1, contents.size(), tmp.get()) != contents.size()) {
    const int err = errno;
    throw_group_error(path, errno_text(err ? err : EIO), count);
  }
  finish_temporary(tmp, path, count);
}

// Flushes, syncs and closes a temporary whose contents are written, every error
// checked. Throws (the temporary is then removed by its owner).
inline void finish_temporary(temporary_file& tmp, const std::string& path, std::size_t count) {
  errno = 0;
  if (std::fflush(tmp.get()) != 0 || std::ferror(tmp.get())) {
    const int err = errno;
    throw_group_error(path, errno_text(err ? err : EIO), count);
  }
#if !defined(_WIN32)
  // The data must be on disk before the rename is, or a crash right after the
  // rename could leave an empty file under the target's name.
  if (fsync(fileno(tmp.get())) != 0 && errno != EINVAL && errno != ENOTSUP) {
    const int err = errno;
    throw_group_error(path, errno_text(err), count);
  }
#endif
  if (const int err = tmp.close()) throw_group_error(path, errno_text(err), count);
}

// Renames the finished temporary onto `path`. Returns an empty string, or why it
// failed.
inline std::string rename_onto(temporary_file& tmp, const std::string& path) {
#if defined(_WIN32)
  // std::rename does not replace an existing file on Windows;
  // std::filesystem::rename does (MoveFileEx with MOVEFILE_REPLACE_EXISTING).
  std::error_code ec;
  std::filesystem::rename(std::filesystem::path(tmp.name()), std::filesystem::path(path), ec);
  if (ec) return ec.message();
#else
  errno = 0;
  if (std::rename(tmp.name().c_str(), path.c_str()) != 0) return errno_text(errno ? errno : EIO);
#endif
  tmp.release();
  return std::string();
}

// A rename failed after `done` of the group's files were renamed.
[[noreturn]] inline void throw_midway_error(const std::vector<file_to_write>& files, std::size_t done,
                                            const std::string& reason) {
  std::string replaced;
  for (std::size_t i = 0; i < done; ++i)
    if (!is_special_file(files[i].path))
      replaced += (replaced.empty() ? "'" : ", '") + printable_path(files[i].path) + "'";
  throw_write_error(files[done].path, reason + " (" + std::to_string(files.size()) +
                                          " files were written together; already replaced: " +
                                          (replaced.empty() ? std::string("none") : replaced) +
                                          "; this one and the files after it keep their old contents)");
}

// Writes every file of `files`, replacing the files there, all together or none
// (see the top of this header for the window between the renames). Throws
// forkscale::error ("forkscale: cannot write report '<path>': <reason>") and
// leaves no temporary file behind on failure.
inline void write_files_atomically(const std::vector<file_to_write>& files) {
  check_targets(files);
  std::vector<std::unique_ptr<temporary_file>> tmps(files.size());
  std::vector<bool> special(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    special[i] = is_special_file(files[i].path);
    if (special[i]) continue;
    tmps[i] = std::make_unique<temporary_file>();
    fill_temporary(*tmps[i], files[i].path, files[i].contents, files.size());
  }
  // Devices and pipes cannot be taken back: they are written once every
  // temporary is complete, before any rename.
  for (std::size_t i = 0; i < files.size(); ++i)
    if (special[i]) write_special_file(files[i].path, files[i].contents);
  std::size_t renamed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (special[i]) continue;
    const std::string reason = rename_onto(*tmps[i], files[i].path);
    if (reason.empty()) {
      ++renamed;
      continue;
    }
    if (renamed == 0) throw_group_error(files[i].path, reason, files.size());
    throw_midway_error(files, i, reason);
  }
}

// Writes `contents` to `path`, replacing any file there in one step. Throws
// forkscale::error ("forkscale: cannot write report '<path>': <reason>") and
// leaves neither a partial target nor a temporary file behind on failure.
inline void write_file_atomically(const std::string& path, const std::string& contents) {
  write_files_atomically({file_to_write{path, contents}});
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
