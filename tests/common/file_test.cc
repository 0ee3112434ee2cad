#include "common/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("kbdata-file-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LocalFile, ReadsRangesAndRejectsReadsPastTheEnd) {
  fs::path path = temp_dir() / "five.bin";
  std::ofstream(path, std::ios::binary) << "hello";
  auto file = LocalFile::open(path.string());
  EXPECT_EQ(file->size(), 5u);
  std::vector<uint8_t> out(3);
  file->read_at(1, out);
  EXPECT_EQ(std::string(out.begin(), out.end()), "ell");
  try {
    file->read_at(3, out);
    FAIL() << "expected an error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("five.bin"), std::string::npos);
  }
}

TEST(LocalFile, MissingFileAndDirectoryAreIoErrors) {
  EXPECT_THROW(LocalFile::open((temp_dir() / "no-such-folder" / "file.parquet").string()), IoError);
  EXPECT_THROW(LocalFile::open(temp_dir().string()), IoError);
}

TEST(RecordingFile, RecordsEveryRange) {
  MemoryFile memory("m", {1, 2, 3, 4, 5, 6});
  RecordingFile recording(memory);
  std::vector<uint8_t> out(2);
  recording.read_at(0, out);
  recording.read_at(4, out);
  ASSERT_EQ(recording.ranges().size(), 2u);
  EXPECT_EQ(recording.ranges()[1].offset, 4u);
  EXPECT_EQ(recording.bytes_read(), 4u);
}

TEST(AtomicOutputFile, AppearsOnlyOnCommit) {
  fs::path path = temp_dir() / "out.txt";
  fs::remove(path);
  {
    AtomicOutputFile out(path.string());
    out.write("partial");
    EXPECT_FALSE(fs::exists(path));
  }  // destroyed without commit: nothing appears, no temporary file is left
  EXPECT_FALSE(fs::exists(path));
  for (const auto& entry : fs::directory_iterator(path.parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find("out.txt.tmp-"), std::string::npos);
  }
  {
    AtomicOutputFile out(path.string());
    out.write("complete");
    out.commit();
  }
  EXPECT_EQ(slurp(path), "complete");
}

// A large output is sent towards the disk while it is written, a whole kWritebackBytes at a time,
// so that commit()'s fsync waits only for the tail.
TEST(AtomicOutputFile, StartsWritebackEveryChunkOfAppendedBytes) {
  fs::path path = temp_dir() / "large.bin";
  fs::remove(path);
  constexpr uint64_t kChunk = AtomicOutputFile::kWritebackBytes;
  const std::vector<uint8_t> piece(3 << 20, 'x');
  uint64_t written = 0;
  {
    AtomicOutputFile out(path.string());
    while (written < kChunk - piece.size()) {
      out.write(piece);
      written += piece.size();
    }
    EXPECT_EQ(out.writeback_started(), 0u);
    while (written < 2 * kChunk + 1) {
      out.write(piece);
      written += piece.size();
      EXPECT_EQ(out.writeback_started(), written / kChunk * kChunk);
    }
    out.commit();
  }
  EXPECT_EQ(fs::file_size(path), written);
  fs::remove(path);
}

// A missing folder is the user's mistake, refused before any work (docs/cli.md, "Safety").
TEST(AtomicOutputFile, FailsWhenTheFolderDoesNotExist) {
  const fs::path missing = temp_dir() / "no-such-folder";
  fs::remove_all(missing);
  EXPECT_THROW(AtomicOutputFile((missing / "out.txt").string()), UsageError);
  EXPECT_FALSE(fs::exists(missing));
}

}  // namespace
}  // namespace kbdata
