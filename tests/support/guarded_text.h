// A text whose last byte is the last of a readable page, the next page unmapped for reading: a
// scan that reads one byte past the text faults (SIGSEGV ends the test), in any build, where the
// heap's slack would hide the read.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace kbdata::testing {

class GuardedText {
 public:
  // Room for texts of up to `capacity` bytes.
  explicit GuardedText(size_t capacity) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    readable_ = (capacity + page - 1) / page * page;
    size_ = readable_ + page;
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("GuardedText: mmap failed");
    base_ = static_cast<char*>(p);
    if (mprotect(base_ + readable_, page, PROT_NONE) != 0) {
      munmap(base_, size_);
      throw std::runtime_error("GuardedText: mprotect failed");
    }
  }
  ~GuardedText() { munmap(base_, size_); }
  GuardedText(const GuardedText&) = delete;
  GuardedText& operator=(const GuardedText&) = delete;

  // `text` copied so that it ends where the guard page starts.
  std::string_view place(std::string_view text) {
    if (text.size() > readable_) throw std::invalid_argument("GuardedText: text too long");
    char* at = base_ + readable_ - text.size();
    if (!text.empty()) std::memcpy(at, text.data(), text.size());
    return {at, text.size()};
  }

 private:
  char* base_ = nullptr;
  size_t readable_ = 0;
  size_t size_ = 0;
};

}  // namespace kbdata::testing
