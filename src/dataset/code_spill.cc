#include "dataset/code_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "parquet/compression.h"

namespace kbdata::dataset {

CodeSpill::CodeSpill(const std::string& dir) {
  std::string pattern = (dir.empty() ? std::string(".") : dir) + "/.kbdata-spill-XXXXXX";
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) {
    throw IoError("cannot create a temporary file in " + (dir.empty() ? "." : dir) + ": " +
                  std::strerror(errno));
  }
  ::unlink(pattern.c_str());
  name_ = pattern;
}

CodeSpill::~CodeSpill() {
  if (fd_ >= 0) ::close(fd_);
}

void CodeSpill::compress(std::string_view text, std::vector<uint8_t>& out) {
  out.clear();  // parquet::compress appends
  parquet::compress(parquet::Codec::SNAPPY, 0,
                    {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, out);
}

CodeSpill::Entry CodeSpill::append(std::span<const uint8_t> compressed, size_t raw) {
  Entry e{size_, static_cast<uint32_t>(compressed.size()), static_cast<uint32_t>(raw)};
  size_t done = 0;
  while (done < compressed.size()) {
    const ssize_t n = ::write(fd_, compressed.data() + done, compressed.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw IoError("cannot write the temporary file " + name_ + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  size_ += compressed.size();
  return e;
}

void CodeSpill::read(const Entry& e, std::vector<uint8_t>& compressed, std::string& text) const {
  compressed.resize(e.compressed);
  size_t done = 0;
  while (done < compressed.size()) {
    const ssize_t n = ::pread(fd_, compressed.data() + done, compressed.size() - done,
                              static_cast<off_t>(e.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw IoError("cannot read the temporary file " + name_ + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  text.resize(e.raw);
  parquet::decompress(parquet::Codec::SNAPPY, compressed,
                      {reinterpret_cast<uint8_t*>(text.data()), text.size()});
}

}  // namespace kbdata::dataset
