// A C++ program built against an installed spool with CMake:
//   find_package(spool REQUIRED)
//   target_link_libraries(hello_cpp PRIVATE spool::spool_cpp)
// Reassembles "hello, world" from out-of-order pieces and prints it.
#include <spool.hpp>

#include <iostream>
#include <string>

int main() {
  spool::Reassembler r{spool::ByteStream{64}};
  r.insert(7, "world", true);
  r.insert(0, "hello, ", false);
  std::string text{r.reader().peek()};
  r.reader().pop(text.size());
  if (text != "hello, world" || !r.reader().is_finished()) {
    std::cerr << "reassembled '" << text << "'\n";
    return 1;
  }
  std::cout << text << '\n';
  return 0;
}
