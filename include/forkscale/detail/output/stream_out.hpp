// detail/output/stream_out.hpp: text written through a fixed buffer (1 MiB),
// to a string or to a file, so that a large output (the trace) never has to be
// held whole; numbers formatted in place (locale-free, no allocation). A
// writer of many small pieces (the trace's events) asks for room once
// (stream_out::room) and stores them through a plain pointer (put_text,
// put_bytes, put_decimal, put_micros), then hands the end back (advance). write_streamed_atomically() writes a file the
// way write_file_atomically does (a temporary in the same directory, flushed, synced, renamed onto the target; removed
// on any failure, which throws one line naming the file), with the contents produced piece by piece. On Linux the
// temporary's pages are handed to the disk every 8 MiB as they are written (sync_file_range), so that the sync before
// the rename waits for the last few MiB only, not for the whole file.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <fcntl.h>
#endif

#include "../../config.hpp"
#include "../util/atomic_file.hpp"
#include "../util/function_ref.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The decimal digits of 00..99, two by two.
constexpr char decimal_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The pieces of put_* below store at `p` and return the end; the caller has
// made room for them (at most 20 bytes a number, 24 a time).
template <std::size_t N>
inline char* put_text(char* p, const char (&text)[N]) noexcept {
  std::memcpy(p, text, N - 1);  // a literal: its length is known, the copy a few stores
  return p + (N - 1);
}
inline char* put_bytes(char* p, const char* s, std::size_t n) noexcept {
  std::memcpy(p, s, n);
  return p + n;
}
inline char* put_bytes(char* p, const std::string& s) noexcept { return put_bytes(p, s.data(), s.size()); }
// `v` in decimal, as std::to_chars writes it.
inline unsigned decimal_digits(std::uint64_t v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  // From the bit width: floor(log10(2^bits)) is bits * 1233 >> 12 for bits <= 64,
  // one less than the digits or the digits; a comparison tells which.
  static constexpr std::uint64_t powers[] = {1,
                                             10,
                                             100,
                                             1000,
                                             10000,
                                             100000,
                                             1000000,
                                             10000000,
                                             100000000,
                                             1000000000,
                                             10000000000ull,
                                             100000000000ull,
                                             1000000000000ull,
                                             10000000000000ull,
                                             100000000000000ull,
                                             1000000000000000ull,
                                             10000000000000000ull,
                                             100000000000000000ull,
                                             1000000000000000000ull,
                                             10000000000000000000ull};
  const unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(v | 1));
  const unsigned guess = (bits * 1233u) >> 12;
  return guess + ((v | 1) >= powers[guess] ? 1u : 0u);  // 0 has one digit too
#else
  unsigned n = 1;
  for (std::uint64_t ten = 10; n < 20 && v >= ten; ten *= 10) ++n;
  return n;
#endif
}
inline char* put_decimal(char* p, std::uint64_t v) noexcept {
  if (v < 10) {  // a thread's number, most often
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  const unsigned n = decimal_digits(v);
  char* q = p + n;
  while (v >= 100) {
    const auto pair = static_cast<unsigned>(v % 100) * 2;
    v /= 100;
    q -= 2;
    q[0] = decimal_pairs[pair];
    q[1] = decimal_pairs[pair + 1];
  }
  if (v >= 10) {
    q[-2] = decimal_pairs[v * 2];
    q[-1] = decimal_pairs[v * 2 + 1];
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return p + n;
}
// Nanoseconds as microseconds with three decimals: exact, locale-free.
inline char* put_micros(char* p, std::uint64_t ns) noexcept {
  p = put_decimal(p, ns / 1000);
  const auto f = static_cast<unsigned>(ns % 1000);
  p[0] = '.';
  p[1] = static_cast<char>('0' + f / 100);
  p[2] = decimal_pairs[(f % 100) * 2];
  p[3] = decimal_pairs[(f % 100) * 2 + 1];
  return p + 4;
}

class stream_out {
 public:
  static constexpr std::size_t buffer_size = std::size_t(1) << 20;
  // Into `text` (appended).
  explicit stream_out(std::string& text) : text_(&text) { buf_.resize(buffer_size); }
  // Into `file` (not closed here); `path` names it in errors. With
  // `write_back`, a regular file's written pages start going to the disk every
  // write_back_step bytes (where the system can be told: Linux), ahead of the
  // fsync that makes the file durable.
  stream_out(std::FILE* file, std::string path, bool write_back = false)
      : file_(file), path_(std::move(path)), write_back_(write_back) {
    buf_.resize(buffer_size);
  }
  static constexpr std::size_t write_back_step = std::size_t(8) << 20;
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
  void number(std::uint64_t v) { advance(put_decimal(room(20), v)); }
  // Nanoseconds as microseconds with three decimals: exact, locale-free.
  void micros(std::uint64_t ns) { advance(put_micros(room(24), ns)); }
  // Where the next `n` bytes go: room for them at the end of the buffer (made
  // by flushing it, and for more than it holds by making it larger). advance()
  // says where what was stored there ends.
  char* room(std::size_t n) {
    if (n > buf_.size() - used_) {
      flush();
      if (n > buf_.size()) buf_.resize(n);
    }
    return buf_.data() + used_;
  }
  void advance(char* end) noexcept { used_ = static_cast<std::size_t>(end - buf_.data()); }
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
    written_ += n;
    if (write_back_ && written_ - handed_ >= write_back_step) start_write_back();
  }
  // Starts writing the bytes since the last call to the disk, without waiting:
  // only a hint (a failure here is the sync's to report).
  void start_write_back() noexcept {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    if (std::fflush(file_) == 0)
      (void)sync_file_range(fileno(file_), static_cast<off_t>(handed_), static_cast<off_t>(written_ - handed_),
                            SYNC_FILE_RANGE_WRITE);
#endif
    handed_ = written_;
  }

  std::string* text_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string path_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
  bool write_back_ = false;
  std::size_t written_ = 0, handed_ = 0;  // bytes given to the file; of them, handed to the disk
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
    stream_out out(tmp.get(), path, /*write_back=*/true);
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
