// floors.hpp — what the C++ benchmark measures the reassemblers against
// besides each other.
//
// - HarnessFloor (and HarnessStream for the stream test): insert (push)
//   takes the segment and drops it, the reader never has anything. Its time
//   is the harness alone: the loop, moving each segment's std::string into
//   the call and freeing it there.
// - CopyFloor: the least a reassembler that keeps bytes can do — copy each
//   unique byte into a ring once, and hand it to the reader to copy out
//   once. Which bytes of which segment are new, and how far the assembled
//   prefix reaches after it, is planned before timing (FloorPlan), so
//   nothing is spent finding out. It is correct only for the schedule it
//   was planned for, drained after every segment as the harness does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floors {

struct HarnessReader {
  uint64_t bytes_buffered() const { return 0; }
  std::string_view peek() const { return {}; }
  void pop(uint64_t /*unused*/) {}
};

class HarnessFloor {
public:
  void insert(uint64_t /*first_index*/, std::string data, bool /*is_last*/) { std::string dropped = std::move(data); }
  HarnessReader& reader() { return reader_; }

private:
  HarnessReader reader_;
};

struct HarnessWriter {
  void push(std::string data) { std::string dropped = std::move(data); }
};

/// The stream test's harness alone: pushes drop their bytes, reads find none.
class HarnessStream {
public:
  HarnessWriter& writer() { return writer_; }
  HarnessReader& reader() { return reader_; }

private:
  HarnessWriter writer_;
  HarnessReader reader_;
};

/// The new pieces of each segment, as (offset in the segment, length), and
/// the assembled prefix after it.
struct FloorPlan {
  struct Step {
    size_t first_piece;
    size_t end_piece;
    uint64_t assembled;
  };
  uint64_t capacity = 0;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  std::vector<Step> steps;

  /// Simulates segments (index, length) drained after each one: the window
  /// is [assembled, assembled + capacity) and a byte is new the first time
  /// it lands inside it.
  FloorPlan(const std::vector<std::pair<uint64_t, uint64_t>>& segments, uint64_t stream_len, uint64_t cap)
    : capacity(cap) {
    std::vector<bool> present(stream_len, false);
    uint64_t assembled = 0;
    for (const auto& [index, len] : segments) {
      const size_t first = pieces.size();
      const uint64_t hi = std::min(index + len, assembled + capacity);
      for (uint64_t at = std::max(index, assembled); at < hi;) {
        if (present[at]) {
          ++at;
          continue;
        }
        const uint64_t run = at;
        while (at < hi && !present[at]) {
          present[at++] = true;
        }
        pieces.emplace_back(run - index, at - run);
      }
      while (assembled < stream_len && present[assembled]) {
        ++assembled;
      }
      steps.push_back({first, pieces.size(), assembled});
    }
  }
};

class CopyFloor;

class CopyFloorReader {
public:
  uint64_t bytes_buffered() const;
  std::string_view peek() const;
  void pop(uint64_t len);

private:
  friend class CopyFloor;
  explicit CopyFloorReader(CopyFloor& floor) : floor_(floor) {}
  CopyFloor& floor_;
};

class CopyFloor {
public:
  explicit CopyFloor(const FloorPlan& plan) : plan_(plan), ring_(plan.capacity, '\0'), reader_(*this) {}

  void insert(uint64_t first_index, std::string data, bool /*is_last*/) {
    const FloorPlan::Step& step = plan_.steps[next_++];
    if (stored_end_ == read_) {
      base_ = read_;  // nothing stored: start again at the ring's front
    }
    for (size_t k = step.first_piece; k < step.end_piece; ++k) {
      const auto [offset, len] = plan_.pieces[k];
      const uint64_t at = pos(first_index + offset);
      const uint64_t first = std::min<uint64_t>(len, ring_.size() - at);
      std::memcpy(ring_.data() + at, data.data() + offset, first);
      if (first < len) {
        std::memcpy(ring_.data(), data.data() + offset + first, len - first);
      }
      stored_end_ = std::max(stored_end_, first_index + offset + len);
    }
    assembled_ = step.assembled;
  }
  CopyFloorReader& reader() { return reader_; }

private:
  friend class CopyFloorReader;
  /// Ring position of stream index i: read_ - base_ < capacity, so one
  /// conditional subtraction wraps it.
  uint64_t pos(uint64_t i) const {
    const uint64_t at = i - base_;
    return at >= ring_.size() ? at - ring_.size() : at;
  }

  const FloorPlan& plan_;
  std::string ring_;
  CopyFloorReader reader_;
  size_t next_ = 0;
  uint64_t base_ = 0;
  uint64_t read_ = 0;
  uint64_t assembled_ = 0;
  uint64_t stored_end_ = 0;
};

inline uint64_t CopyFloorReader::bytes_buffered() const { return floor_.assembled_ - floor_.read_; }

inline std::string_view CopyFloorReader::peek() const {
  const uint64_t at = floor_.pos(floor_.read_);
  const uint64_t len = std::min<uint64_t>(bytes_buffered(), floor_.ring_.size() - at);
  return std::string_view(floor_.ring_).substr(at, len);
}

inline void CopyFloorReader::pop(uint64_t len) {
  floor_.read_ += std::min(len, bytes_buffered());
  if (floor_.read_ - floor_.base_ >= floor_.ring_.size()) {
    floor_.base_ += floor_.ring_.size();
  }
}

} // namespace floors
