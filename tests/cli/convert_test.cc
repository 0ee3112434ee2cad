// `kbdata convert` as a user runs it: options, errors, provenance, and atomic output when the
// input is bad or the process is interrupted midway.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/write/file_writer.h"
#include "support/run_kbdata.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using testing::data;
using testing::read_file;
using testing::run;

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kbdata-convert-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Files in the folder other than `keep`.
  [[nodiscard]] std::vector<std::string> leftovers(const std::string& keep = "") const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      std::string name = entry.path().filename().string();
      if (name != keep && name != "in.parquet") names.push_back(name);
    }
    return names;
  }

  fs::path dir_;
};

TEST_F(ConvertTest, DefaultCodecIsLz4Raw) {
  std::string out = path("out.parquet");
  auto result = run("convert " + data("nested_lists.parquet") + " " + out);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto reader = parquet::FileReader::open(out);
  for (const auto& chunk : reader->metadata().row_groups[0].columns) {
    EXPECT_EQ(chunk.meta_data->codec, parquet::Codec::LZ4_RAW);
  }
  EXPECT_EQ(run("cat " + out).out, run("cat " + data("nested_lists.parquet")).out);
}

TEST_F(ConvertTest, RewritesAFileWithTheSameRows) {
  std::string out = path("out.parquet");
  auto result = run("convert " + data("nested_lists.parquet") + " " + out +
                    " --compression zstd --level 7 --page-version 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  auto before = run("cat " + data("nested_lists.parquet"));
  auto after = run("cat " + out);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(before.out, after.out);

  auto reader = parquet::FileReader::open(out);
  const auto& meta = reader->metadata();
  EXPECT_EQ(meta.row_groups[0].columns[0].meta_data->codec, parquet::Codec::ZSTD);
  bool has_command = false;
  for (const auto& kv : meta.key_value_metadata) {
    if (kv.key == "kbdata.command") {
      has_command = true;
      EXPECT_NE(kv.value->find("convert"), std::string::npos);
      EXPECT_NE(kv.value->find("--level 7"), std::string::npos);
    }
  }
  EXPECT_TRUE(has_command);
  EXPECT_EQ(meta.created_by->rfind("kbdata version ", 0), 0u);
  for (const auto& chunk : meta.row_groups[0].columns) {
    EXPECT_TRUE(chunk.offset_index_offset.has_value());
  }
  EXPECT_TRUE(leftovers("out.parquet").empty());
}

TEST_F(ConvertTest, SizesAndEncodingsAreApplied) {
  std::string out = path("out.parquet");
  auto result = run("convert " + data("types.parquet") + " " + out +
                    " --row-group-size 7 --page-size 1KiB --encoding delta --checksums "
                    "--compression none");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto reader = parquet::FileReader::open(out);
  ASSERT_GT(reader->num_rows(), 7);
  EXPECT_EQ(reader->metadata().row_groups[0].num_rows, 7);
  auto verified = run("cat --verify-checksums " + out);
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_EQ(verified.out, run("cat " + data("types.parquet")).out);
}

// -o/--out names the output as every other command's does; OUT and -o together, or neither, is a
// usage error that writes nothing.
TEST_F(ConvertTest, TheOutputIsOutOrDashO) {
  const std::string in = data("nested_lists.parquet");
  for (const std::string& flag : {std::string("-o"), std::string("--out")}) {
    const std::string out = path("out" + flag + ".parquet");
    const auto result = run("convert " + in + " " + flag + " " + out);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(run("cat " + out).out, run("cat " + in).out);
  }
  const auto both = run("convert " + in + " " + path("a.parquet") + " -o " + path("b.parquet"));
  EXPECT_EQ(both.exit_code, 2) << both.err;
  const auto neither = run("convert " + in);
  EXPECT_EQ(neither.exit_code, 2) << neither.err;
  EXPECT_NE(neither.err.find("-o OUT"), std::string::npos) << neither.err;
  EXPECT_FALSE(fs::exists(path("a.parquet")));
  EXPECT_FALSE(fs::exists(path("b.parquet")));
}

TEST_F(ConvertTest, BadOptionsAreUsageErrorsAndWriteNothing) {
  std::string out = path("out.parquet");
  std::string in = data("types.parquet");
  for (const std::string& options :
       {std::string("--compression lzo"), std::string("--compression zstd --level 40"),
        std::string("--compression snappy --level 3"), std::string("--row-group-size 12XB"),
        std::string("--page-size 0"), std::string("--page-version 3"),
        std::string("--encoding fancy")}) {
    auto result = run("convert " + in + " " + out + " " + options);
    EXPECT_EQ(result.exit_code, 2) << options << ": " << result.err;
    EXPECT_NE(result.err.find("kbdata: "), std::string::npos) << options;
    // One line saying what is wrong (CLI11's own parse errors add a pointer to --help).
    EXPECT_LE(std::count(result.err.begin(), result.err.end(), '\n'), 2) << result.err;
    EXPECT_FALSE(fs::exists(out)) << options;
  }
  EXPECT_TRUE(leftovers().empty());
}

// A file of `rows` rows of 100 random lowercase letters, written by kbdata. 400,000 rows are
// enough that brotli at its slowest level takes seconds to rewrite them.
void write_input(const std::string& file, int rows, parquet::Codec codec) {
  std::vector<parquet::SchemaElement> schema(2);
  schema[0].name = "schema";
  schema[0].num_children = 1;
  schema[1].name = "text";
  schema[1].type = parquet::PhysicalType::BYTE_ARRAY;
  schema[1].repetition_type = parquet::Repetition::REQUIRED;
  AtomicOutputFile output(file);
  parquet::WriterOptions options;
  options.codec = codec;
  parquet::FileWriter writer(output, schema, options);
  parquet::ColumnBatch batch;
  batch.values = parquet::ValueBuffer::for_type(parquet::PhysicalType::BYTE_ARRAY, 0);
  uint64_t state = 42;
  for (int i = 0; i < rows; ++i) {
    std::string row;
    for (int k = 0; k < 100; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      row.push_back(static_cast<char>('a' + (state >> 59)));
    }
    batch.values.append_binary({reinterpret_cast<const uint8_t*>(row.data()), row.size()});
    batch.num_levels++;
  }
  writer.write(std::span<const parquet::ColumnBatch>(&batch, 1));
  writer.close();
  output.commit();
}

// Starts `kbdata convert IN OUT --compression brotli --level 11`, waits until its temporary file
// appears, sends `signal_number`, and returns the wait status.
int interrupt_convert(const std::string& in, const std::string& out, int signal_number,
                      const fs::path& dir) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(KBDATA_BINARY, KBDATA_BINARY, "convert", in.c_str(), out.c_str(), "--compression",
            "brotli", "--level", "11", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool started = false;
  while (!started && std::chrono::steady_clock::now() < deadline) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename().string().find(".kbdata-") != std::string::npos) started = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // midway through the rewrite
  ::kill(pid, signal_number);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(started);
  return status;
}

TEST_F(ConvertTest, ACorruptInputLeavesTheTargetUntouched) {
  std::string in = path("in.parquet");
  write_input(in, 50'000, parquet::Codec::SNAPPY);
  // Garbage over the header of the chunk's third data page: 0xFF is no Thrift field header.
  auto page = parquet::FileReader::open(in)->offset_index(0, 0)->page_locations.at(2);
  std::string bytes = read_file(in);
  for (int i = 0; i < 8; ++i) bytes[static_cast<size_t>(page.offset + i)] = '\xff';
  std::ofstream(in, std::ios::binary | std::ios::trunc) << bytes;
  std::string out = path("out.parquet");
  std::ofstream(out) << "previous contents";

  auto result = run("convert " + in + " " + out);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(in), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("column 'text'"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_TRUE(read_file(out) == "previous contents");
  EXPECT_TRUE(leftovers("out.parquet").empty());

  auto missing = run("convert " + path("nope.parquet") + " " + out);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nope.parquet"), std::string::npos);
  EXPECT_TRUE(read_file(out) == "previous contents");
}

TEST_F(ConvertTest, AnInterruptedConvertLeavesTheTargetUntouchedAndNoTemporary) {
  std::string in = path("in.parquet");
  write_input(in, 400'000, parquet::Codec::UNCOMPRESSED);
  std::string out = path("out.parquet");
  std::ofstream(out) << "previous contents";
  for (int signal_number : {SIGTERM, SIGINT}) {
    int status = interrupt_convert(in, out, signal_number, dir_);
    ASSERT_TRUE(WIFSIGNALED(status))
        << "convert finished before it was interrupted; status " << status;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_TRUE(read_file(out) == "previous contents");
    EXPECT_TRUE(leftovers("out.parquet").empty()) << leftovers("out.parquet")[0];
  }
}

TEST_F(ConvertTest, AKilledConvertLeavesTheTargetUntouched) {
  std::string in = path("in.parquet");
  write_input(in, 400'000, parquet::Codec::UNCOMPRESSED);
  std::string out = path("out.parquet");
  std::ofstream(out) << "previous contents";
  int status = interrupt_convert(in, out, SIGKILL, dir_);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(read_file(out) == "previous contents");
  // SIGKILL cannot be caught: the temporary stays, beside the target, named after it
  // (".out.parquet.<hash>.kbdata-<pid>-XXXXXX"), until the next write of the same target.
  const std::vector<std::string> left = leftovers("out.parquet");
  for (const std::string& name : left) {
    EXPECT_EQ(name.rfind(".out.parquet.", 0), 0u) << name;
    EXPECT_NE(name.find(".kbdata-"), std::string::npos) << name;
  }
  ASSERT_EQ(run("convert " + in + " " + out).exit_code, 0);
  EXPECT_TRUE(leftovers("out.parquet").empty());
}

}  // namespace
}  // namespace kbdata
