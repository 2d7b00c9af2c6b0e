// C++ tests of spool.hpp in the CS144 lab's style: ByteStream (basics,
// capacity, many writes, a randomised run against std::string), Reassembler
// (single, sequential, duplicates, holes, overlapping, window, end of
// stream), copy and move semantics, assignment to a reassembler's reader
// (the lab's save-and-restore), and error reporting. Built with
// AddressSanitizer and UndefinedBehaviorSanitizer by the test script.
#include <cstdio>
#include <random>
#include <string>
#include <utility>

#include "spool.hpp"

namespace {

int passed = 0;
int failed = 0;

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (cond) {                                                                      \
      ++passed;                                                                      \
    } else {                                                                         \
      ++failed;                                                                      \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                                \
  } while (0)

std::string read_all(spool::Reader& reader) {
  std::string out;
  spool::read(reader, reader.bytes_buffered(), out);
  return out;
}

void byte_stream_basics() {
  spool::ByteStream bs {15};
  CHECK(bs.writer().available_capacity() == 15);
  CHECK(!bs.writer().is_closed() && !bs.reader().is_finished() && !bs.has_error());
  bs.writer().push("cat");
  CHECK(bs.reader().peek() == "cat");
  CHECK(bs.reader().bytes_buffered() == 3);
  bs.writer().close();
  CHECK(bs.writer().is_closed() && !bs.reader().is_finished());
  bs.reader().pop(3);
  CHECK(bs.reader().is_finished() && bs.reader().bytes_popped() == 3);
  bs.set_error();
  CHECK(bs.has_error());
}

void byte_stream_capacity() {
  spool::ByteStream bs {2};
  bs.writer().push("cat");
  CHECK(bs.writer().bytes_pushed() == 2 && bs.writer().available_capacity() == 0);
  CHECK(bs.reader().peek() == "ca");
  bs.reader().pop(1);
  bs.writer().push("tac");
  CHECK(read_all(bs.reader()) == "at");
  CHECK(bs.writer().bytes_pushed() == 3 && bs.reader().bytes_popped() == 3);
}

void byte_stream_random_against_string() {
  std::mt19937 rng {12345};
  const uint64_t capacity = 37;
  spool::ByteStream bs {capacity};
  std::string model_buffer;
  std::string produced;
  std::string consumed;
  for (int step = 0; step < 20000; ++step) {
    if (rng() % 2 == 0) {
      std::string data(rng() % 20, '\0');
      for (auto& c : data) {
        c = static_cast<char>('a' + rng() % 26);
      }
      const uint64_t room = capacity - model_buffer.size();
      bs.writer().push(data);
      model_buffer += data.substr(0, room);
    } else {
      const uint64_t n = rng() % 25;
      std::string out;
      spool::read(bs.reader(), n, out);
      CHECK(out == model_buffer.substr(0, n));
      model_buffer.erase(0, out.size());
    }
    if (bs.reader().bytes_buffered() != model_buffer.size()) {
      CHECK(false);
      return;
    }
  }
  ++passed;
}

void copy_and_move() {
  spool::ByteStream a {8};
  a.writer().push("abc");
  spool::ByteStream b = a;  // deep copy
  a.reader().pop(3);
  CHECK(b.reader().peek() == "abc");
  spool::ByteStream c = std::move(b);
  CHECK(c.reader().peek() == "abc");
  a = c;
  c.reader().pop(1);
  CHECK(a.reader().peek() == "abc" && c.reader().peek() == "bc");

  spool::Reassembler r {spool::ByteStream {8}};
  r.insert(1, "bc", false);
  spool::Reassembler r2 = r;
  r.insert(0, "a", false);
  CHECK(r.reader().peek() == "abc" && r2.bytes_pending() == 2);
  spool::Reassembler r3 = std::move(r2);
  r3.insert(0, "a", false);
  CHECK(r3.reader().peek() == "abc");
}

void reassembler_single_and_sequential() {
  spool::Reassembler r {spool::ByteStream {65000}};
  r.insert(0, "a", false);
  CHECK(r.writer().bytes_pushed() == 1 && r.count_bytes_pending() == 0);
  CHECK(read_all(r.reader()) == "a");
  std::string all;
  for (uint64_t i = 1; i < 100; ++i) {
    r.insert(i, std::string(1, static_cast<char>('a' + i % 26)), i == 99);
    all += static_cast<char>('a' + i % 26);
  }
  CHECK(read_all(r.reader()) == all);
  CHECK(r.reader().is_finished());
}

void reassembler_holes_duplicates_overlaps() {
  spool::Reassembler r {spool::ByteStream {65000}};
  r.insert(4, "efgh", false);
  r.insert(4, "efgh", false);
  r.insert(5, "fg", false);
  CHECK(r.bytes_pending() == 4 && r.writer().bytes_pushed() == 0);
  r.insert(2, "cdef", false);
  CHECK(r.bytes_pending() == 6);
  r.insert(0, "abc", false);
  CHECK(r.bytes_pending() == 0 && read_all(r.reader()) == "abcdefgh");
}

void reassembler_window_and_end() {
  spool::Reassembler r {spool::ByteStream {2}};
  r.insert(0, "abc", true);  // cut short: the end is not fixed
  CHECK(r.writer().bytes_pushed() == 2 && !r.writer().is_closed());
  CHECK(read_all(r.reader()) == "ab");
  r.insert(2, "c", true);
  CHECK(r.writer().is_closed() && read_all(r.reader()) == "c" && r.reader().is_finished());

  spool::Reassembler e {spool::ByteStream {100}};
  e.insert(0, "ab", false);
  e.insert(5, "", true);  // an empty last substring fixes the end
  CHECK(!e.writer().is_closed());
  e.insert(2, "cde", false);
  CHECK(e.writer().is_closed() && read_all(e.reader()) == "abcde");

  spool::Reassembler big {spool::ByteStream {16}};
  big.insert(UINT64_MAX - 1, "xyz", true);
  CHECK(big.bytes_pending() == 0 && !big.writer().is_closed());
}

void assignment_restores_a_reassemblers_stream() {
  // The lab's tests save a stream and assign it back; the reassembler must
  // keep writing into the stream its reader() now shows.
  spool::Reassembler r {spool::ByteStream {16}};
  r.insert(0, "ab", false);
  r.insert(6, "gh", false);
  spool::ByteStream saved = r.reader();
  r.reader().pop(2);
  CHECK(r.reader().bytes_buffered() == 0);
  r.reader() = saved;
  CHECK(r.reader().peek() == "ab" && r.reader().bytes_popped() == 0);
  r.insert(2, "cd", false);
  CHECK(r.reader().peek() == "abcd");
  CHECK(r.writer().bytes_pushed() == 4);
  CHECK(r.bytes_pending() == 2);

  // Through a Reader copy and through a move, too.
  spool::Reader copy = r.reader();
  r.reader().pop(4);
  r.reader() = std::move(copy);
  r.insert(4, "ef", false);
  r.insert(8, "", true);
  CHECK(read_all(r.reader()) == "abcdefgh" && r.reader().is_finished());

  // Moving from a reader copies it: the reassembler keeps its stream.
  spool::Reassembler q {spool::ByteStream {8}};
  q.insert(0, "xy", false);
  spool::ByteStream taken = std::move(q.reader());
  q.insert(2, "z", false);
  CHECK(taken.reader().peek() == "xy" && q.reader().peek() == "xyz");

  // Plain streams: assignment is a deep copy, self-assignment a no-op.
  spool::ByteStream a {8};
  a.writer().push("abc");
  spool::ByteStream b {2};
  b = a;
  a.reader().pop(1);
  b = b;
  CHECK(b.reader().peek() == "abc" && a.reader().peek() == "bc");
  CHECK(b.writer().available_capacity() == 5);
}

void deferred_pops_are_exact() {
  // Pops inside the front slice and pushes into the published free space
  // are counted by the wrapper and carried by the next call; every query
  // must already see them.
  spool::ByteStream bs {8};
  bs.writer().push("abcdef");
  bs.reader().pop(2);
  CHECK(bs.reader().bytes_buffered() == 4 && bs.reader().bytes_popped() == 2);
  CHECK(bs.writer().available_capacity() == 4 && bs.reader().peek() == "cdef");
  spool::ByteStream copy = bs;
  CHECK(copy.reader().peek() == "cdef" && copy.reader().bytes_popped() == 2);
  bs.writer().push("ghij");  // carries the pop; the bytes wrap
  CHECK(bs.reader().peek() == "cdefgh" && bs.reader().bytes_buffered() == 8);
  bs.reader().pop(6);  // uses up the front slice
  CHECK(bs.reader().peek() == "ij" && bs.reader().bytes_popped() == 8);
  bs.writer().close();
  bs.reader().pop(1);
  CHECK(!bs.reader().is_finished());
  bs.reader().pop(5);  // past the front: one call, up to what is buffered
  CHECK(bs.reader().is_finished() && bs.reader().bytes_popped() == 10);

  spool::Reassembler r {spool::ByteStream {4}};
  r.insert(0, "abcd", false);
  r.reader().pop(4);  // deferred: the window must still grow for the insert
  r.insert(4, "efgh", false);
  CHECK(r.reader().peek() == "efgh" && r.writer().bytes_pushed() == 8);
  r.reader().pop(1);
  spool::Reassembler r2 = r;
  CHECK(r2.reader().peek() == "fgh" && r2.writer().available_capacity() == 1);
}

void deferred_pushes_are_exact() {
  spool::ByteStream bs {8};
  bs.writer().push("abc");  // into the published free space, no call
  CHECK(bs.writer().bytes_pushed() == 3 && bs.writer().available_capacity() == 5);
  CHECK(bs.reader().peek() == "abc" && bs.reader().bytes_buffered() == 3);
  bs.reader().pop(2);
  bs.writer().push("def");
  CHECK(bs.reader().peek() == "cdef");
  spool::ByteStream copy = bs;  // reports both first
  CHECK(copy.reader().peek() == "cdef" && copy.writer().bytes_pushed() == 6);
  bs.writer().push("ghijk");  // fills the ring: the last byte is dropped
  CHECK(bs.writer().bytes_pushed() == 10 && bs.writer().available_capacity() == 0);
  CHECK(read_all(bs.reader()) == "cdefghij");
  bs.writer().push("xy");
  bs.writer().close();  // reports the push first
  CHECK(bs.writer().is_closed() && bs.reader().bytes_buffered() == 2);
  bs.writer().push("z");  // a closed stream takes nothing
  CHECK(read_all(bs.reader()) == "xy" && bs.reader().is_finished());

  // A stream with unreported work handed to a reassembler, or assigned.
  spool::ByteStream out {8};
  out.writer().push("ab");
  spool::Reassembler r {std::move(out)};
  r.insert(2, "cd", false);
  CHECK(r.reader().peek() == "abcd");
  spool::ByteStream a {8};
  a.writer().push("12");
  spool::ByteStream b {8};
  b.writer().push("34");
  b.reader().pop(1);
  a = b;
  a.writer().push("5");
  CHECK(read_all(a.reader()) == "45" && read_all(b.reader()) == "4");
}

void errors_are_reported() {
  spool::Reassembler r {spool::ByteStream {4}};
  // Writing to the reassembler's output behind its back is refused.
  auto& writer = const_cast<spool::Writer&>(r.writer());
  bool threw = false;
  try {
    writer.push("x");
  } catch (const spool::Error& e) {
    threw = e.status() == SPOOL_E_READONLY;
  }
  CHECK(threw);
  r.reader().set_error();
  CHECK(r.reader().has_error());
}

} // namespace

int main() {
  byte_stream_basics();
  byte_stream_capacity();
  byte_stream_random_against_string();
  copy_and_move();
  reassembler_single_and_sequential();
  reassembler_holes_duplicates_overlaps();
  reassembler_window_and_end();
  assignment_restores_a_reassemblers_stream();
  deferred_pops_are_exact();
  deferred_pushes_are_exact();
  errors_are_reported();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed != 0 ? 1 : 0;
}
