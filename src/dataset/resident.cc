#include "dataset/resident.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace kbdata::dataset {
namespace {

// Heap bytes of a string beyond the object (none while it fits the small-string buffer).
size_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }
size_t heap_bytes(const std::optional<std::string>& s) { return s ? heap_bytes(*s) : 0; }

size_t heap_bytes(const Submission& s) {
  return heap_bytes(s.problem_name) + heap_bytes(s.user_id) + heap_bytes(s.user_name) +
         heap_bytes(s.file_name) + heap_bytes(s.status) + heap_bytes(s.mode) + heap_bytes(s.runner);
}

size_t heap_bytes(const std::vector<Run>& runs,
                  const std::optional<std::vector<BenchmarkResult>>& benchmarks) {
  size_t n = runs.capacity() * sizeof(Run);
  for (const Run& r : runs) {
    n += heap_bytes(r.mode) + r.benchmarks.capacity() * sizeof(BenchmarkResult);
  }
  if (benchmarks) n += benchmarks->capacity() * sizeof(BenchmarkResult);
  return n;
}

// Thrown by the build's sink when the memory bound is reached or progress stops it.
struct BoundReached {};

}  // namespace

Resident::FileStamp Resident::stamp(const DataFile& file) {
  FileStamp s;
  s.path = file.path;
  s.family = file.family;
  s.num_rows = file.num_rows;
  s.num_row_groups = file.num_row_groups;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file.path, ec);
  if (ec) return s;
  const auto time = std::filesystem::last_write_time(file.path, ec);
  if (ec) return s;
  s.local = std::make_pair(size, static_cast<int64_t>(time.time_since_epoch().count()));
  return s;
}

std::unique_ptr<Resident> Resident::build(const DataDir& dir, const std::vector<PrepareStep>& steps,
                                          int threads, uint64_t max_bytes,
                                          const std::function<bool(uint64_t rows)>& progress,
                                          uint64_t* stopped_at) {
  auto resident = std::unique_ptr<Resident>(new Resident());
  for (const DataFile& f : dir.files) resident->files_.push_back(stamp(f));
  for (const PrepareStep& step : steps) resident->steps_.push_back(step.key);

  LoadOptions load;
  load.threads = threads;
  load.with_code = true;
  load.with_details = true;
  load.with_runs = true;
  load.with_results = true;
  load.prepare = [&steps](Submission& s, std::optional<std::string_view> code) {
    std::vector<std::any> prepared;
    prepared.reserve(steps.size());
    for (const PrepareStep& step : steps) {
      s.prepared.reset();
      const bool wanted = code && (!step.code_wanted || step.code_wanted(s));
      step.prepare(s, wanted ? code : std::nullopt);
      prepared.push_back(std::move(s.prepared));
    }
    s.prepared = std::move(prepared);
  };
  LoadStats stats;
  uint64_t bytes = 0;
  try {
    load_dir_files(
        dir, load,
        [&](Submission&& s, const DataFile& file) {
          Row row;
          row.prepared = std::any_cast<std::vector<std::any>>(std::move(s.prepared));
          s.prepared.reset();
          row.runs = std::move(s.runs);
          s.runs.clear();
          row.benchmarks = std::move(s.benchmarks);
          s.benchmarks.reset();
          row.submission = std::move(s);
          row.file = static_cast<uint32_t>(&file - dir.files.data());
          bytes += sizeof(Row) + heap_bytes(row.submission) + heap_bytes(row.runs, row.benchmarks) +
                   row.prepared.capacity() * sizeof(std::any);
          for (size_t i = 0; i < steps.size(); ++i) {
            if (steps[i].bytes && row.prepared[i].has_value()) {
              bytes += steps[i].bytes(row.prepared[i]);
            }
          }
          if (max_bytes != 0 && bytes > max_bytes) throw BoundReached{};
          resident->rows_.push_back(std::move(row));
          if (progress && resident->rows_.size() % 1024 == 0 && !progress(resident->rows_.size())) {
            throw BoundReached{};
          }
        },
        stats);
  } catch (const BoundReached&) {
    if (stopped_at != nullptr) *stopped_at = resident->rows_.size();
    return nullptr;
  }
  resident->rows_.shrink_to_fit();
  resident->repeats_ = std::move(stats.repeats);
  resident->bytes_ = bytes;
  if (progress) progress(resident->rows_.size());  // the last count; too late to stop
  return resident;
}

bool Resident::serves(const DataDir& dir, const LoadOptions& load) const {
  if (load.with_code_bytes) return false;
  if (load.with_code &&
      (!load.prepare || load.prepare_key.empty() ||
       std::find(steps_.begin(), steps_.end(), load.prepare_key) == steps_.end())) {
    return false;
  }
  if (dir.files.size() != files_.size()) return false;
  for (size_t i = 0; i < files_.size(); ++i) {
    const FileStamp now = stamp(dir.files[i]);
    const FileStamp& then = files_[i];
    if (now.path != then.path || now.family != then.family || now.num_rows != then.num_rows ||
        now.num_row_groups != then.num_row_groups || now.local != then.local) {
      return false;
    }
  }
  return true;
}

void Resident::load(const DataDir& dir, const LoadOptions& load, const SubmissionSink& sink,
                    LoadStats& stats) const {
  // The files a load from them would read.
  std::vector<bool> selected(files_.size(), false);
  for (const DataFile* f : files_for(dir)) {
    selected[static_cast<size_t>(f - dir.files.data())] = true;
  }
  std::optional<size_t> step;
  if (load.with_code) {
    step = static_cast<size_t>(std::find(steps_.begin(), steps_.end(), load.prepare_key) -
                               steps_.begin());
  }
  for (const Row& row : rows_) {
    if (!selected[row.file]) continue;
    if (!matches(load.filter, row.submission)) continue;
    Submission s = row.submission;
    // A flat file's details are read only when asked for (LoadOptions::with_details); a legacy
    // file's always are.
    if (!load.with_details && files_[row.file].family == SchemaFamily::FLAT) {
      s.code_id.reset();
      s.file_name.reset();
      s.mode.reset();
    }
    if (load.with_runs) {
      s.runs = row.runs;
      if (!load.with_results) {
        for (Run& r : s.runs) r.benchmarks.clear();
      }
    }
    if (load.with_results) s.benchmarks = row.benchmarks;
    if (step) {
      s.prepared = row.prepared[*step];
    } else if (load.prepare) {
      load.prepare(s, std::nullopt);
    }
    ++stats.rows_read;
    sink(std::move(s));
  }
}

}  // namespace kbdata::dataset
