// SHA-256 (nettle): of code kbdata extracts, of the files a data set's outputs come from, of the
// hub's LFS files as they stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kbdata {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const uint8_t* data, size_t size);
  void update(std::string_view bytes) {
    update(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  // The digest as 64 lower-case hex digits; the hash starts again empty.
  [[nodiscard]] std::string hex_digest();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// The SHA-256 of `bytes` in hex.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace kbdata
