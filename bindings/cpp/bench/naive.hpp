// naive.hpp — the reference spool's C++ wrapper is measured against: the
// ByteStream and Reassembler a student writes first for the CS144 lab,
// with the lab's API. The stream is a std::string (push appends, pop
// erases from the front); the reassembler keeps pending pieces in a
// std::map from index to string, cut so they never overlap, and pushes the
// front piece into the stream once it is next.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace naive {

class Reader;
class Writer;

class ByteStream {
public:
  explicit ByteStream(uint64_t capacity) : capacity_(capacity) {}
  Reader& reader();
  Writer& writer();

protected:
  std::string buffer_;
  uint64_t capacity_;
  uint64_t pushed_ = 0;
  uint64_t popped_ = 0;
  bool closed_ = false;
};

class Writer : public ByteStream {
public:
  /// Takes the string by value, as the lab's API does.
  void push(std::string data) {
    const uint64_t n = std::min<uint64_t>(data.size(), available_capacity());
    buffer_.append(data, 0, n);
    pushed_ += n;
  }
  void close() { closed_ = true; }
  bool is_closed() const { return closed_; }
  uint64_t available_capacity() const { return capacity_ - buffer_.size(); }
  uint64_t bytes_pushed() const { return pushed_; }
};

class Reader : public ByteStream {
public:
  std::string_view peek() const { return buffer_; }
  void pop(uint64_t len) {
    len = std::min<uint64_t>(len, buffer_.size());
    buffer_.erase(0, len);
    popped_ += len;
  }
  bool is_finished() const { return closed_ && buffer_.empty(); }
  uint64_t bytes_buffered() const { return buffer_.size(); }
  uint64_t bytes_popped() const { return popped_; }
};

inline Reader& ByteStream::reader() { return static_cast<Reader&>(*this); }
inline Writer& ByteStream::writer() { return static_cast<Writer&>(*this); }

class Reassembler {
public:
  explicit Reassembler(ByteStream&& output) : output_(std::move(output)) {}

  void insert(uint64_t first_index, std::string data, bool is_last_substring) {
    Writer& w = output_.writer();
    const uint64_t next = w.bytes_pushed();
    const uint64_t window_end = next + w.available_capacity();
    const uint64_t data_end = first_index + data.size();
    if (is_last_substring && data_end <= window_end) {
      end_ = data_end;
      has_end_ = true;
    }
    const uint64_t start = std::max(first_index, next);
    const uint64_t stop = std::min(data_end, window_end);
    if (start < stop) {
      store(start, std::string_view(data).substr(start - first_index, stop - start));
    }
    while (!pending_.empty() && pending_.begin()->first == w.bytes_pushed()) {
      w.push(std::move(pending_.begin()->second));
      pending_.erase(pending_.begin());
    }
    if (has_end_ && w.bytes_pushed() == end_) {
      w.close();
    }
  }

  uint64_t bytes_pending() const {
    uint64_t n = 0;
    for (const auto& [index, piece] : pending_) {
      n += piece.size();
    }
    return n;
  }
  Reader& reader() { return output_.reader(); }
  Writer& writer() { return output_.writer(); }

private:
  /// Adds the parts of `piece` (at `start`) no stored piece covers.
  void store(uint64_t start, std::string_view piece) {
    const uint64_t end = start + piece.size();
    auto it = pending_.upper_bound(start);
    if (it != pending_.begin()) {
      --it;
    }
    uint64_t at = start;
    for (; it != pending_.end() && it->first < end; ++it) {
      if (it->first > at) {
        pending_.emplace(at, std::string(piece.substr(at - start, it->first - at)));
      }
      at = std::max(at, it->first + it->second.size());
    }
    if (at < end) {
      pending_.emplace(at, std::string(piece.substr(at - start)));
    }
  }

  ByteStream output_;
  std::map<uint64_t, std::string> pending_;
  uint64_t end_ = 0;
  bool has_end_ = false;
};

} // namespace naive
