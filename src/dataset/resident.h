// A data folder's rows kept in memory by a long-running process (kbdata serve), so that a load
// costs a pass over memory instead of a read of the files:
//
//   rows       every row load_dir gives for the whole folder, in its order, without the code (the
//              code is what makes the files large), legacy rows with their runs and results
//   prepared   for each PrepareStep, what its prepare made of each row's code, worked out once in
//              the same pass (a MinHash sketch, an audit's findings, a technique profile)
//
// load_dir (loader.h) hands a load over from memory when the DataDir carries a Resident
// (DataDir::resident) built from the same files and the load asks for nothing memory lacks: no
// code, no code sizes, or code only for a prepare step whose key (LoadOptions::prepare_key) the
// Resident has prepared. The rows are those the files would give, in the same order, with the
// same fields (details, runs and results kept only when the load asks for them), and `prepared`
// as the step left it. Rows a load from the files would drop as repeats of an earlier file's rows
// are dropped the same way, counted when the Resident is built rather than per load.
//
// Memory: the rows' fields and what the steps keep (each step says how much it keeps per row);
// Resident::build stops at `max_bytes`.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dataset/data_dir.h"
#include "dataset/loader.h"

namespace kbdata::dataset {

class Resident {
 public:
  // One pass over `dir` with every row's code (threads as LoadOptions::threads), each step's
  // prepare run on it. `progress` (may be empty) gets the rows kept so far, every few thousand,
  // and stops the build by returning false. Returns nullptr when stopped, or when the rows and
  // prepared values would pass `max_bytes` (0: no limit); `stopped_at` then gets the rows kept
  // when it stopped. Throws what load_dir throws.
  [[nodiscard]] static std::unique_ptr<Resident> build(
      const DataDir& dir, const std::vector<PrepareStep>& steps, int threads, uint64_t max_bytes,
      const std::function<bool(uint64_t rows)>& progress, uint64_t* stopped_at = nullptr);

  // Whether `dir` holds the files this was built from (paths, families, rows, row groups, and
  // for a local file its size and modification time) and `load` asks for nothing it lacks.
  [[nodiscard]] bool serves(const DataDir& dir, const LoadOptions& load) const;

  // load_dir from memory. REQUIRES: serves(dir, load).
  void load(const DataDir& dir, const LoadOptions& load, const SubmissionSink& sink,
            LoadStats& stats) const;

  [[nodiscard]] size_t rows() const { return rows_.size(); }
  [[nodiscard]] uint64_t bytes() const { return bytes_; }
  // Rows the build dropped as repeats of an earlier file's (LoadStats::repeats).
  [[nodiscard]] const std::vector<LoadStats::Repeats>& repeats() const { return repeats_; }

 private:
  struct FileStamp {
    std::string path;
    SchemaFamily family = SchemaFamily::FLAT;
    int64_t num_rows = 0;
    int num_row_groups = 0;
    std::optional<std::pair<uint64_t, int64_t>> local;  // size, modification time (ns)
  };
  struct Row {
    Submission submission;  // no code, runs or results; details read
    // Legacy rows': apart, so that a load that does not ask for them copies none.
    std::vector<Run> runs;
    std::optional<std::vector<BenchmarkResult>> benchmarks;
    uint32_t file = 0;               // index into files_ (and the DataDir's files)
    std::vector<std::any> prepared;  // one per step, in steps_ order
  };

  [[nodiscard]] static FileStamp stamp(const DataFile& file);

  std::vector<FileStamp> files_;
  std::vector<std::string> steps_;  // the steps' keys
  std::vector<Row> rows_;
  std::vector<LoadStats::Repeats> repeats_;
  uint64_t bytes_ = 0;
};

}  // namespace kbdata::dataset
