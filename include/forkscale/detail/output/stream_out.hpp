// detail/output/stream_out.hpp: text written through a fixed buffer (1 MiB),
// to a string or to a file, so that a large output (the trace) never has to be
// held whole; numbers formatted in place with std::to_chars (locale-free, no
// allocation). write_streamed_atomically() writes a file the way
// write_file_atomically does (a temporary in the same directory, flushed,
// synced, renamed onto the target; removed on any failure, which throws one
// line naming the file), with the contents produced piece by piece.
#pragma once
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../util/atomic_file.hpp"
#include "../util/function_ref.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

class stream_out {
 public:
  static constexpr std::size_t buffer_size = std::size_t(1) << 20;
  // Into `text` (appended).
  explicit stream_out(std::string& text) : text_(&text) { buf_.resize(buffer_size); }
  // Into `file` (not closed here); `path` names it in errors.
  stream_out(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) { buf_.resize(buffer_size); }
  stream_out(const stream_out&) = delete;
  stream_out& operator=(const stream_out&) = delete;

  void put(const char* p, std::size_t n) {
    if (n > buf_.size() - used_) {
      flush();
      if (n > buf_.size()) return sink(p, n);
    }
    std::memcpy(buf_.data() + used_, p, n);
    used_ += n;
  }
  void put(const std::string& s) { put(s.data(), s.size()); }
  void put(const char* s) { put(s, std::strlen(s)); }
  void put(char c) {
    if (used_ == buf_.size()) flush();
    buf_[used_++] = c;
  }
  void number(std::uint64_t v) {
    if (buf_.size() - used_ < 24) flush();
    used_ =
        static_cast<std::size_t>(std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), v).ptr - buf_.data());
  }
  // Nanoseconds as microseconds with three decimals: exact, locale-free.
  void micros(std::uint64_t ns) {
    number(ns / 1000);
    const auto f = static_cast<unsigned>(ns % 1000);
    const char digits[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                            static_cast<char>('0' + f % 10)};
    put(digits, 4);
  }
  void flush() {
    if (used_ == 0) return;
    sink(buf_.data(), used_);
    used_ = 0;
  }

 private:
  void sink(const char* p, std::size_t n) {
    if (text_) {
      text_->append(p, n);
      return;
    }
    errno = 0;
    if (std::fwrite(p, 1, n, file_) != n) {
      const int err = errno;
      throw_write_error(path_, errno_text(err ? err : EIO));
    }
  }

  std::string* text_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string path_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

// Writes `path` atomically with what `fill` puts into the stream (a device or
// a pipe, such as /dev/stdout, is written in place). Throws forkscale::error
// ("forkscale: cannot write report '<path>': <reason>") and leaves neither a
// partial target nor a temporary behind on failure.
inline void write_streamed_atomically(const std::string& path, function_ref<void(stream_out&)> fill) {
  if (path.empty()) throw_write_error(path, "the path is empty");
  if (is_directory_path(path)) throw_write_error(path, errno_text(EISDIR));
  if (is_special_file(path)) {
    errno = 0;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw_write_error(path, errno_text(errno ? errno : EIO));
    try {
      stream_out out(f, path);
      fill(out);
      out.flush();
    } catch (...) {
      std::fclose(f);
      throw;
    }
    errno = 0;
    const bool ok = std::fflush(f) == 0 && !std::ferror(f);
    const int err = errno;
    if (std::fclose(f) != 0 || !ok) throw_write_error(path, errno_text(err ? err : EIO));
    return;
  }
  temporary_file tmp;
  if (const int err = tmp.create(path)) throw_write_error(path, errno_text(err));
  {
    stream_out out(tmp.get(), path);
    fill(out);
    out.flush();
  }
  finish_temporary(tmp, path, 1);
  const std::string reason = rename_onto(tmp, path);
  if (!reason.empty()) throw_write_error(path, reason);
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
