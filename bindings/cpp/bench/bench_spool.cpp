// bench_spool.cpp — the CS144 lab's two speed tests, from C++: spool's
// wrapper (spool.hpp) next to a naive std::string stream and std::map
// reassembler (naive.hpp), and floors (floors.hpp).
//
// Reassembler: the schedules of the Rust benchmark's cs144 cases — 1.5 MB
// through a 32 KiB window, each window filled back to front in 1500-byte
// segments stepping down by 1500 (no overlap) or 150 bytes (each byte ten
// times). As in the lab, segments are cut into std::strings before timing
// and moved into insert; after each insert the reader is drained
// completely (peek, append, pop).
//
// ByteStream: 10 MB through a 32 KiB stream in 1500-byte pushes (moved
// std::strings), each followed by reads of 4096, 128 or 32 bytes until the
// stream is empty.
//
// Every peer runs once per round, the order rotating, and its output is
// checked against the input after every run; the median over the rounds is
// reported, in Gbit/s of stream bytes as the lab prints them, and each ratio
// is the median of the per-round ratios.
//
//   bench_spool                  full run (30 rounds)
//   bench_spool --short          3 rounds, for the test script
//   bench_spool --only NAME      only the cases whose name contains NAME
//                                (reassembler no-overlap, reassembler
//                                10x-overlap, stream read-4096/128/32)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "floors.hpp"
#include "naive.hpp"
#include "spool.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Segment {
  uint64_t index;
  uint64_t len;
  bool last;
};

/// Random stream bytes (xorshift64*, fixed seed).
std::string random_data(size_t len, uint64_t seed) {
  std::string out(len, '\0');
  for (char& c : out) {
    seed ^= seed >> 12;
    seed ^= seed << 25;
    seed ^= seed >> 27;
    c = static_cast<char>((seed * 0x2545F4914F6CDD1DULL) >> 56);
  }
  return out;
}

/// The lab's speed schedule: within each window of `capacity` bytes
/// starting at i, segments of up to `chunk` bytes start at i + capacity - 1
/// and then every `step` bytes lower, down to i itself.
std::vector<Segment> cs144(uint64_t len, uint64_t capacity, uint64_t chunk, uint64_t step) {
  std::vector<Segment> segments;
  for (uint64_t i = 0; i < len; i += capacity) {
    uint64_t start = i + capacity - 1;
    while (true) {
      const uint64_t s = std::min(start, len - 1);
      const uint64_t end = std::min(s + chunk, len);
      segments.push_back({s, end - s, end == len});
      if (start == i) {
        break;
      }
      start = start > i + step ? start - step : i;
    }
  }
  return segments;
}

/// `data` cut into strings of `size` bytes, before timing.
std::vector<std::string> chunks(const std::string& data, size_t size) {
  std::vector<std::string> pieces;
  for (size_t at = 0; at < data.size(); at += size) {
    pieces.emplace_back(data.substr(at, size));
  }
  return pieces;
}

/// Drains everything the reader holds into `out`.
template <class Reader>
void drain(Reader& reader, std::string& out) {
  while (reader.bytes_buffered() > 0) {
    const std::string_view front = reader.peek();
    out.append(front);
    reader.pop(front.size());
  }
}

/// The segments' payloads as the strings the lab's API takes, cut before
/// timing (insert consumes them, so every run needs its own).
std::vector<std::string> payloads(const std::string& data, const std::vector<Segment>& segments) {
  std::vector<std::string> pieces;
  pieces.reserve(segments.size());
  for (const Segment& s : segments) {
    pieces.emplace_back(data.substr(s.index, s.len));
  }
  return pieces;
}

/// One timed run of a reassembler over a schedule; returns seconds. Not
/// inlined, so profilers see one call per run.
template <class R>
[[gnu::noinline]] double reassemble(R&& r, const std::vector<Segment>& segments, std::vector<std::string> pieces,
                                    std::string& out) {
  out.clear();
  const auto t0 = Clock::now();
  for (size_t k = 0; k < segments.size(); ++k) {
    r.insert(segments[k].index, std::move(pieces[k]), segments[k].last);
    drain(r.reader(), out);
  }
  const auto t1 = Clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

/// One timed run of a stream: pushes of the pieces, each followed by reads
/// of at most `read` bytes until empty; returns seconds.
template <class S>
[[gnu::noinline]] double pump(S&& s, std::vector<std::string> pieces, size_t read, std::string& out) {
  out.clear();
  const auto t0 = Clock::now();
  for (std::string& piece : pieces) {
    s.writer().push(std::move(piece));
    auto& reader = s.reader();
    while (reader.bytes_buffered() > 0) {
      const std::string_view front = reader.peek().substr(0, read);
      out.append(front);
      reader.pop(front.size());
    }
  }
  const auto t1 = Clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

struct Peer {
  const char* name;
  std::function<double(std::string&)> run;  // one timed run, output in the argument
  bool checked;                             // whether its output must equal the input
  std::vector<double> times;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs every peer once per round (rotating who goes first), checks the
/// outputs, prints medians, and returns for each peer the median over the
/// rounds of its time over spool's (the first peer's) in the same round —
/// a ratio whose two sides ran milliseconds apart, so load that drifts
/// over the run cancels.
std::vector<double> rounds(const char* title, const std::string& data, std::vector<Peer>& peers, int n) {
  std::string out;
  out.reserve(data.size());
  for (int round = 0; round < n; ++round) {
    for (size_t k = 0; k < peers.size(); ++k) {
      Peer& p = peers[(round + k) % peers.size()];
      p.times.push_back(p.run(out));
      if (p.checked && out != data) {
        std::fprintf(stderr, "%s: %s: output differs from the input\n", title, p.name);
        std::exit(1);
      }
    }
  }
  std::printf("%s\n", title);
  std::vector<double> ratios;
  for (const Peer& p : peers) {
    const double t = median(p.times);
    std::vector<double> per_round;
    for (size_t r = 0; r < p.times.size(); ++r) {
      per_round.push_back(p.times[r] / peers[0].times[r]);
    }
    ratios.push_back(median(per_round));
    const double gbits = static_cast<double>(data.size()) * 8 / t / 1e9;
    std::printf("  %-14s %9.1f us  %7.2f Gbit/s\n", p.name, t * 1e6, gbits);
  }
  return ratios;
}

void reassembler_case(const char* title, uint64_t step, int n) {
  const uint64_t len = 1'500'000;
  const uint64_t capacity = 32'768;
  const std::string data = random_data(len, 0x5EED);
  const std::vector<Segment> segments = cs144(len, capacity, 1500, step);
  std::vector<std::pair<uint64_t, uint64_t>> shape;
  for (const Segment& s : segments) {
    shape.emplace_back(s.index, s.len);
  }
  const floors::FloorPlan plan(shape, len, capacity);
  std::vector<Peer> peers = {
    {"spool", [&](std::string& out) { return reassemble(spool::Reassembler {spool::ByteStream {capacity}}, segments, payloads(data, segments), out); }, true, {}},
    {"naive std::map", [&](std::string& out) { return reassemble(naive::Reassembler {naive::ByteStream {capacity}}, segments, payloads(data, segments), out); }, true, {}},
    {"copy floor", [&](std::string& out) { return reassemble(floors::CopyFloor {plan}, segments, payloads(data, segments), out); }, true, {}},
    {"harness floor", [&](std::string& out) { return reassemble(floors::HarnessFloor {}, segments, payloads(data, segments), out); }, false, {}},
  };
  const std::vector<double> r = rounds(title, data, peers, n);
  std::printf("  spool vs naive %.2fx; spool's throughput is %.2f of the copy floor's, %.2f of the harness floor's\n"
              "  (medians of per-round time ratios)\n\n",
              r[1], r[2], r[3]);
}

void stream_case(size_t read, int n) {
  const size_t len = 10'000'000;
  const uint64_t capacity = 32'768;
  const std::string data = random_data(len, 99);
  std::vector<Peer> peers = {
    {"spool", [&](std::string& out) { return pump(spool::ByteStream {capacity}, chunks(data, 1500), read, out); }, true, {}},
    {"naive string", [&](std::string& out) { return pump(naive::ByteStream {capacity}, chunks(data, 1500), read, out); }, true, {}},
    {"harness floor", [&](std::string& out) { return pump(floors::HarnessStream {}, chunks(data, 1500), read, out); }, false, {}},
  };
  const std::string title = "byte stream, reads of " + std::to_string(read) + " bytes";
  const std::vector<double> r = rounds(title.c_str(), data, peers, n);
  std::printf("  spool vs naive %.2fx; spool's throughput is %.2f of the harness floor's\n"
              "  (medians of per-round time ratios)\n\n",
              r[1], r[2]);
}

} // namespace

int main(int argc, char** argv) {
  int n = 30;
  std::string only;  // run only the cases whose name contains this
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--short") == 0) {
      n = 3;
    } else if (std::strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      only = argv[++k];
    } else {
      std::fprintf(stderr, "usage: bench_spool [--short] [--only CASE]\n");
      return 2;
    }
  }
  const auto wanted = [&](const std::string& name) { return name.find(only) != std::string::npos; };
  if (wanted("reassembler no-overlap")) {
    reassembler_case("reassembler, cs144 schedule, no overlap", 1500, n);
  }
  if (wanted("reassembler 10x-overlap")) {
    reassembler_case("reassembler, cs144 schedule, 10x overlap", 150, n);
  }
  for (size_t read : {4096, 128, 32}) {
    if (wanted("stream read-" + std::to_string(read))) {
      stream_case(read, n);
    }
  }
  return 0;
}
