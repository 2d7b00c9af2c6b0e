// spool.hpp — header-only C++20 wrapper over spool's C interface (spool.h).
//
// The classes follow the CS144 lab's API, so a program written against it
// ports with a rename:
//
//   spool::ByteStream stream {4096};
//   stream.writer().push("hello");
//   std::string_view front = stream.reader().peek();
//   stream.reader().pop(front.size());
//
//   spool::Reassembler r {spool::ByteStream {4096}};
//   r.insert(5, "world", true);
//   r.insert(0, "hello", false);
//   // r.reader().peek() == "helloworld", r.bytes_pending() == 0
//
// Reader and Writer are views of the same ByteStream (as in the lab: the
// same object with a different set of methods). Copying a ByteStream or a
// Reassembler copies its contents; moving transfers the handle. Errors from
// the C layer (which only arise from misuse, e.g. pushing into a
// reassembler's output) throw spool::Error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "spool.h"

namespace spool {

/// A status other than SPOOL_OK from the C layer.
class Error : public std::runtime_error {
public:
  explicit Error(int status) : std::runtime_error(spool_status_message(status)), status_(status) {}
  int status() const noexcept { return status_; }

private:
  int status_;
};

namespace detail {
inline void check(int status) {
  if (status != SPOOL_OK) {
    throw Error(status);
  }
}
} // namespace detail

class Reader;
class Writer;
class Reassembler;

/// A bounded, in-order byte pipe over one ring buffer.
class ByteStream {
public:
  explicit ByteStream(uint64_t capacity) : handle_(spool_stream_new(capacity)), owned_(true) {
    if (handle_ == nullptr) {
      throw std::bad_alloc();
    }
  }
  ByteStream(const ByteStream& other) : handle_(spool_stream_clone(other.handle_)), owned_(true) {
    if (handle_ == nullptr) {
      throw std::bad_alloc();
    }
  }
  ByteStream(ByteStream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), owned_(std::exchange(other.owned_, false)) {}
  ByteStream& operator=(const ByteStream& other) {
    if (this != &other) {
      ByteStream copy(other);
      swap(copy);
    }
    return *this;
  }
  ByteStream& operator=(ByteStream&& other) noexcept {
    ByteStream moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~ByteStream() {
    if (owned_) {
      spool_stream_free(handle_);
    }
  }

  Reader& reader();
  const Reader& reader() const;
  Writer& writer();
  const Writer& writer() const;

  void set_error() { detail::check(spool_stream_set_error(handle_)); }
  bool has_error() const { return flag(spool_stream_has_error); }

protected:
  bool flag(int (*f)(const spool_stream*, bool*)) const {
    bool out = false;
    detail::check(f(handle_, &out));
    return out;
  }
  uint64_t count(int (*f)(const spool_stream*, uint64_t*)) const {
    uint64_t out = 0;
    detail::check(f(handle_, &out));
    return out;
  }

  spool_stream* handle_;
  bool owned_;

private:
  friend class Reassembler;
  struct Borrowed {};
  ByteStream(Borrowed /*unused*/, spool_stream* view) noexcept : handle_(view), owned_(false) {}
  spool_stream* release() noexcept {
    owned_ = false;
    return std::exchange(handle_, nullptr);
  }
  void swap(ByteStream& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(owned_, other.owned_);
  }
};

/// The writing half of a ByteStream.
class Writer : public ByteStream {
public:
  /// Pushes what fits; the rest is dropped.
  void push(std::string data) { push_view(data); }
  /// Pushes without taking a std::string (no copy on the C++ side).
  void push_view(std::string_view data) {
    detail::check(spool_stream_push(handle_, reinterpret_cast<const uint8_t*>(data.data()), data.size(), nullptr));
  }
  void close() { detail::check(spool_stream_close(handle_)); }
  bool is_closed() const { return flag(spool_stream_is_closed); }
  uint64_t available_capacity() const { return count(spool_stream_available_capacity); }
  uint64_t bytes_pushed() const { return count(spool_stream_bytes_pushed); }
};

/// The reading half of a ByteStream.
class Reader : public ByteStream {
public:
  /// The contiguous front of the buffered bytes; non-empty whenever
  /// anything is buffered. Valid until the stream next changes.
  std::string_view peek() const {
    const uint8_t* data = nullptr;
    size_t len = 0;
    detail::check(spool_stream_peek(handle_, &data, &len));
    return {reinterpret_cast<const char*>(data), len};
  }
  void pop(uint64_t len) { detail::check(spool_stream_pop(handle_, len)); }
  bool is_finished() const { return flag(spool_stream_is_finished); }
  uint64_t bytes_buffered() const { return count(spool_stream_bytes_buffered); }
  uint64_t bytes_popped() const { return count(spool_stream_bytes_popped); }
};

static_assert(sizeof(Reader) == sizeof(ByteStream));
static_assert(sizeof(Writer) == sizeof(ByteStream));

inline Reader& ByteStream::reader() { return static_cast<Reader&>(*this); }
inline const Reader& ByteStream::reader() const { return static_cast<const Reader&>(*this); }
inline Writer& ByteStream::writer() { return static_cast<Writer&>(*this); }
inline const Writer& ByteStream::writer() const { return static_cast<const Writer&>(*this); }

/// Pops up to `max_len` bytes from `reader` into `out` (replacing its contents).
inline void read(Reader& reader, uint64_t max_len, std::string& out) {
  out.clear();
  while (reader.bytes_buffered() > 0 && out.size() < max_len) {
    std::string_view front = reader.peek();
    front = front.substr(0, max_len - out.size());
    out += front;
    reader.pop(front.size());
  }
}

/// Puts out-of-order substrings of a stream back in order, into a ByteStream.
class Reassembler {
public:
  explicit Reassembler(ByteStream&& output)
    : handle_(spool_reassembler_new(output.release())), view_(ByteStream::Borrowed {}, nullptr) {
    if (handle_ == nullptr) {
      throw std::invalid_argument("spool::Reassembler needs an owned ByteStream");
    }
    view_.handle_ = spool_reassembler_stream(handle_);
  }
  Reassembler(const Reassembler& other)
    : handle_(spool_reassembler_clone(other.handle_)), view_(ByteStream::Borrowed {}, nullptr) {
    if (handle_ == nullptr) {
      throw std::bad_alloc();
    }
    view_.handle_ = spool_reassembler_stream(handle_);
  }
  Reassembler(Reassembler&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr))
    , view_(ByteStream::Borrowed {}, std::exchange(other.view_.handle_, nullptr)) {}
  Reassembler& operator=(Reassembler other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(view_.handle_, other.view_.handle_);
    return *this;
  }
  ~Reassembler() { spool_reassembler_free(handle_); }

  /// Inserts the substring `data` whose first byte has stream index
  /// `first_index`; `is_last_substring` marks the end of the stream.
  void insert(uint64_t first_index, std::string data, bool is_last_substring) {
    insert_view(first_index, data, is_last_substring);
  }
  /// Inserts without taking a std::string (no copy on the C++ side).
  void insert_view(uint64_t first_index, std::string_view data, bool is_last_substring) {
    detail::check(spool_reassembler_insert(
      handle_, first_index, reinterpret_cast<const uint8_t*>(data.data()), data.size(), is_last_substring));
  }

  /// Bytes stored but not yet written to the output.
  uint64_t bytes_pending() const {
    uint64_t out = 0;
    detail::check(spool_reassembler_bytes_pending(handle_, &out));
    return out;
  }
  /// The same, under the lab's newer name.
  uint64_t count_bytes_pending() const { return bytes_pending(); }

  Reader& reader() { return view_.reader(); }
  const Reader& reader() const { return view_.reader(); }
  const Writer& writer() const { return view_.writer(); }

private:
  spool_reassembler* handle_;
  ByteStream view_;
};

} // namespace spool
