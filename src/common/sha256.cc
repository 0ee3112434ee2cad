#include "common/sha256.h"

#include <nettle/sha2.h>

#include "common/text.h"

namespace kbdata {

struct Sha256::Context {
  sha256_ctx ctx{};
};

Sha256::Sha256() : context_(std::make_unique<Context>()) { sha256_init(&context_->ctx); }

Sha256::~Sha256() = default;

void Sha256::update(const uint8_t* data, size_t size) { sha256_update(&context_->ctx, size, data); }

std::string Sha256::hex_digest() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context_->ctx, sizeof digest, digest);  // also re-initialises the context
  std::string out;
  append_hex(out, std::span<const uint8_t>(digest, sizeof digest));
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex_digest();
}

}  // namespace kbdata
