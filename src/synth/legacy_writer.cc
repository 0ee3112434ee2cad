#include "synth/legacy_writer.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "common/text.h"
#include "dataset/hardware.h"
#include "dataset/legacy_schema.h"
#include "synth/random.h"

namespace kbdata::synth {
namespace {

using dataset::LegacyColumn;
using parquet::FieldType;

// Struct fields: name and type.
struct Field {
  std::string name;
  FieldType type;
};

const std::vector<Field>& compilation_fields() {
  static const std::vector<Field> f = {
      {"success", FieldType::BOOLEAN},     {"nvcc_found", FieldType::BOOLEAN},
      {"nvcc_version", FieldType::STRING}, {"command", FieldType::STRING},
      {"stdout", FieldType::STRING},       {"stderr", FieldType::STRING},
      {"exit_code", FieldType::INT64},     {"duration", FieldType::DOUBLE}};
  return f;
}
const std::vector<Field>& meta_fields() {
  static const std::vector<Field> f = {
      {"stdout", FieldType::STRING},   {"stderr", FieldType::STRING},
      {"success", FieldType::BOOLEAN}, {"exit_code", FieldType::INT64},
      {"command", FieldType::STRING},  {"duration", FieldType::DOUBLE}};
  return f;
}
constexpr int kMaxBenchmarks = 4;
constexpr int kMaxTests = 4;
const std::vector<Field>& result_fields() {
  static const std::vector<Field> f = [] {
    std::vector<Field> v = {{"benchmark-count", FieldType::STRING}};
    for (int i = 0; i < kMaxBenchmarks; ++i) {
      for (const char* k : {"spec", "mean", "std", "err", "runs", "best", "worst"}) {
        v.push_back({"benchmark." + std::to_string(i) + "." + k, FieldType::STRING});
      }
    }
    v.push_back({"check", FieldType::STRING});
    v.push_back({"test-count", FieldType::STRING});
    for (int i = 0; i < kMaxTests; ++i) {
      for (const char* k : {"spec", "status", "error"}) {
        v.push_back({"test." + std::to_string(i) + "." + k, FieldType::STRING});
      }
    }
    return v;
  }();
  return f;
}
const std::vector<Field>& system_fields() {
  static const std::vector<Field> f = {
      {"gpu", FieldType::STRING},      {"device_count", FieldType::INT64},
      {"cpu", FieldType::STRING},      {"runtime", FieldType::STRING},
      {"platform", FieldType::STRING}, {"torch", FieldType::STRING},
      {"hostname", FieldType::STRING}};
  return f;
}

parquet::Field struct_field(const std::string& name, const std::vector<Field>& fields) {
  std::vector<parquet::Field> leaves;
  for (const Field& f : fields) leaves.push_back(parquet::Field::leaf(f.name, f.type));
  return parquet::Field::group(name, std::move(leaves));
}

// A struct value: present fields by name (typed as text, converted on write).
using StructValue = std::optional<std::vector<std::pair<std::string, std::string>>>;

// Gives the struct's leaves, which start at leaf `first`, their entries of one row.
void put_struct(parquet::RowFileWriter& out, size_t first, const std::vector<Field>& fields,
                const StructValue& value) {
  for (size_t i = 0; i < fields.size(); ++i) {
    const size_t leaf = first + i;
    if (!value) {
      out.column(leaf).null_at(0);  // the struct is null
      continue;
    }
    const std::string* text = nullptr;
    for (const auto& [k, v] : *value) {
      if (k == fields[i].name) text = &v;
    }
    if (text == nullptr) {
      out.column(leaf).null();  // a null field of a present struct
      continue;
    }
    switch (fields[i].type) {
      case FieldType::BOOLEAN:
        out.column<bool>(leaf).value(*text == "true");
        break;
      case FieldType::INT64:
        out.column<int64_t>(leaf).value(std::stoll(*text));
        break;
      case FieldType::DOUBLE:
        out.column<double>(leaf).value(std::stod(*text));
        break;
      default:
        out.column<std::string_view>(leaf).value(*text);
        break;
    }
  }
}

std::string fixed3(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", v);
  return buffer;
}

struct Run {
  const char* mode;
  bool passed;
  std::optional<double> score;
  int64_t start_us;
  int64_t end_us;
  StructValue compilation, meta, result, system;
};

// The runs of submission `s`, as the tester and runner would have recorded them.
std::vector<Run> runs_of(const Submission& s, const LeaderboardModel& m, Rng& rng) {
  std::vector<Run> runs;
  if (s.outcome == Outcome::PENDING) return runs;
  const std::string& runner = m.runners[static_cast<size_t>(std::countr_zero(s.runner_mask))];
  const dataset::RunnerHardware* hardware = dataset::runner_hardware(runner);
  const int devices = hardware != nullptr ? hardware->devices : 1;
  int64_t t = s.time_us + rng.range(2'000'000, 40'000'000);
  // The runner is not recorded: only the machine, as the tester saw it.
  const StructValue system = std::vector<std::pair<std::string, std::string>>{
      {"gpu", std::string(hardware != nullptr ? hardware->device : runner)},
      {"device_count", std::to_string(devices)},
      {"cpu", "AMD EPYC 9654 96-Core Processor"},
      {"runtime", "ROCm"},
      {"platform", "Linux-6.8.0-60-generic-x86_64-with-glibc2.35"},
      {"torch", "2.7.0+rocm6.3"},
      {"hostname", "mi300-node-" + std::to_string(rng.range(1, 12))}};
  const bool compiles = s.code.language == Language::HIP_INLINE;
  auto compilation = [&](bool ok) -> StructValue {
    if (!compiles) return std::nullopt;
    return std::vector<std::pair<std::string, std::string>>{
        {"success", ok ? "true" : "false"},
        {"command", "hipcc -O3 --offload-arch=gfx942 -shared -fPIC"},
        {"stdout", ""},
        {"stderr", ok ? "" : "error: use of undeclared identifier 'tile_b'"},
        {"exit_code", ok ? "0" : "1"},
        {"duration", fixed3(20 + rng.uniform() * 40)}};
  };
  auto meta = [&](bool ok, double seconds, const std::string& mode) -> StructValue {
    return std::vector<std::pair<std::string, std::string>>{
        {"stdout", ok ? "" : "Running " + mode + "...\n"},
        {"stderr", ok ? ""
                      : "Traceback (most recent call last):\n  File \"eval.py\", line 212, "
                        "in main\nRuntimeError: CUDA error: an illegal memory access was "
                        "encountered\n"},
        {"success", ok ? "true" : "false"},
        {"exit_code", ok ? "0" : "1"},
        {"command", "python eval.py " + mode},
        {"duration", fixed3(seconds)}};
  };
  auto add = [&](const char* mode, bool passed, std::optional<double> score, StructValue result,
                 bool crashed) {
    double seconds = 5 + rng.uniform() * 60;
    Run r{mode,
          passed,
          score,
          t,
          t + static_cast<int64_t>(seconds * 1e6),
          compilation(!crashed),
          meta(!crashed, seconds, mode),
          std::move(result),
          system};
    t = r.end_us + rng.range(100'000, 3'000'000);
    runs.push_back(std::move(r));
  };
  const int tests = static_cast<int>(rng.range(2, kMaxTests));
  auto test_result = [&](bool pass) {
    std::vector<std::pair<std::string, std::string>> v = {{"test-count", std::to_string(tests)}};
    for (int i = 0; i < tests; ++i) {
      std::string p = "test." + std::to_string(i) + ".";
      v.push_back({p + "spec", "m: " + std::to_string(64 << i) + "; n: 7168; k: 512; seed: " +
                                   std::to_string(rng.range(1000, 99999))});
      bool ok = pass || i + 1 < tests;
      v.push_back({p + "status", ok ? "pass" : "fail"});
      if (!ok)
        v.push_back({p + "error",
                     "mismatch found! custom implementation doesn't match "
                     "reference: 412 mismatched elements"});
    }
    v.push_back({"check", pass ? "pass" : "fail"});
    return v;
  };
  const int benchmarks = static_cast<int>(rng.range(2, kMaxBenchmarks));
  // Each benchmark's mean has a relative standard error of sigma sqrt(n) (times a factor whose
  // square averages 1), so that the errors propagated to the geometric mean of the n means give
  // the planted sigma of the score: var(log score) = sum (err_i / mean_i)^2 / n^2 = sigma^2.
  auto bench_result = [&](double score, bool pass) {
    std::vector<std::pair<std::string, std::string>> v = {
        {"benchmark-count", std::to_string(benchmarks)}};
    for (int i = 0; i < benchmarks; ++i) {
      std::string p = "benchmark." + std::to_string(i) + ".";
      // Means around the score whose geometric mean is about the score (ns).
      double mean = score * 1e9 * std::exp(0.4 * (i - (benchmarks - 1) / 2.0));
      const double relative_err =
          s.sigma * std::sqrt(static_cast<double>(benchmarks)) * std::sqrt(0.5 + rng.uniform());
      const int64_t timed = rng.range(10, 100);
      const double relative_std = relative_err * std::sqrt(static_cast<double>(timed));
      v.push_back({p + "spec", "m: " + std::to_string(1024 << i) + "; n: 1536; k: 7168; seed: " +
                                   std::to_string(rng.range(1000, 99999))});
      v.push_back({p + "mean", fixed3(mean)});
      v.push_back({p + "std", fixed3(mean * relative_std)});
      v.push_back({p + "err", fixed3(mean * relative_err)});
      v.push_back({p + "runs", std::to_string(timed)});
      v.push_back({p + "best", fixed3(mean / (1 + relative_std))});
      v.push_back({p + "worst", fixed3(mean * (1 + 2 * relative_std))});
    }
    v.push_back({"check", pass ? "pass" : "fail"});
    return v;
  };
  const size_t first_runner = static_cast<size_t>(std::countr_zero(s.runner_mask));
  const double score = s.scores[first_runner];
  switch (s.outcome) {
    case Outcome::ERROR:
      add("test", false, std::nullopt, std::nullopt, true);
      break;
    case Outcome::TEST_ONLY:
      add("test", true, std::nullopt, test_result(true), false);
      if (rng.chance(0.5)) add("benchmark", true, std::nullopt, bench_result(score, true), false);
      break;
    case Outcome::FAILED_CHECK:
      add("test", true, std::nullopt, test_result(true), false);
      add("leaderboard", false, std::nullopt, test_result(false), false);
      add("leaderboard", false, std::nullopt, test_result(false), false);
      break;
    case Outcome::SCORED:
    case Outcome::HACKED:
      add("test", true, std::nullopt, test_result(true), false);
      if (rng.chance(0.4)) add("benchmark", true, std::nullopt, bench_result(score, true), false);
      add("leaderboard", true, score, bench_result(score, true), false);
      add("leaderboard", true, std::nullopt, bench_result(s.secret_scores[first_runner], true),
          false);  // secret
      break;
    case Outcome::PENDING:
      break;
  }
  return runs;
}

}  // namespace

std::vector<parquet::Field> legacy_fields(bool binary_code) {
  std::vector<parquet::Field> fields =
      dataset::legacy_run_fields({.submission_time = FieldType::LOCAL_TIMESTAMP,
                                  .code = binary_code ? FieldType::BINARY : FieldType::STRING});
  const std::vector<Field>* structs[] = {&compilation_fields(), &meta_fields(), &result_fields(),
                                         &system_fields()};
  for (size_t i = 0; i < dataset::kLegacyStructColumns.size(); ++i) {
    fields.push_back(struct_field(dataset::kLegacyStructColumns[i], *structs[i]));
  }
  // The published files were written by pandas, whose row index comes last (its label of the row
  // in the DataFrame: successful_submissions keeps the labels of the full file's rows).
  fields.push_back(parquet::Field::leaf("__index_level_0__", FieldType::INT64));
  return fields;
}

std::string legacy_stored_code(const CodeKey& key, std::string_view problem) {
  std::string code;
  generate_code(key, problem, code);
  if (has_invalid_utf8(key)) {
    size_t at = code.find("\n# ");
    code.insert(at == std::string::npos ? 0 : at + 3, "caf\xE9: ");
  }
  if (!stored_as_hex_escape(key)) return code;
  std::string hex = "\\x";
  append_hex(hex, code);
  return hex;
}

LegacyResult write_legacy(const std::string& all_path, const std::string& passed_path,
                          std::span<const LeaderboardModel> models, const Population& population,
                          uint64_t seed, const OutputOptions& options, const ProgressFn& progress) {
  // The export's anonymisation: a random permutation of 1..N.
  Rng perm_rng(derive(seed, 500));
  std::vector<int64_t> anon(population.users.size());
  for (size_t i = 0; i < anon.size(); ++i) anon[i] = static_cast<int64_t>(i) + 1;
  for (size_t i = anon.size(); i > 1; --i) std::swap(anon[i - 1], anon[perm_rng.below(i)]);

  parquet::RowFileWriter all(all_path, legacy_fields(/*binary_code=*/true), options.writer,
                             options.provenance);
  parquet::RowFileWriter passed(passed_path, legacy_fields(/*binary_code=*/false), options.writer,
                                options.provenance);
  const size_t compilation_at = dataset::kLegacyColumnCount;
  const size_t meta_at = compilation_at + compilation_fields().size();
  const size_t result_at = meta_at + meta_fields().size();
  const size_t system_at = result_at + result_fields().size();
  const size_t index_at = system_at + system_fields().size();
  int64_t index = 0;  // the pandas index label of the full file's next row
  Rng run_ids(derive(seed, 501));
  int64_t run_id = 90'000 + static_cast<int64_t>(run_ids.below(1000));
  std::string code;
  int64_t done = 0;
  const auto total = static_cast<int64_t>(population.submissions.size());
  using dataset::leaf;
  for (const Submission& s : population.submissions) {
    const LeaderboardModel& m = models[s.leaderboard];
    Rng rng(derive(seed, 502, static_cast<uint64_t>(s.id)));
    std::vector<Run> runs = runs_of(s, m, rng);
    if (!runs.empty()) code = legacy_stored_code(s.code, m.name);
    for (const Run& r : runs) {
      run_id += 1 + static_cast<int64_t>(run_ids.below(4));
      for (parquet::RowFileWriter* out : {&all, &passed}) {
        if (out == &passed && !r.passed) continue;
        auto i64 = [&](LegacyColumn column, int64_t v) {
          out->column<int64_t>(leaf(column)).value(v);
        };
        auto text = [&](LegacyColumn column, std::string_view v) {
          out->column<std::string_view>(leaf(column)).value(v);
        };
        i64(LegacyColumn::SUBMISSION_ID, s.id);
        i64(LegacyColumn::LEADERBOARD_ID, m.id);
        i64(LegacyColumn::USER_ID, anon[s.user]);
        i64(LegacyColumn::SUBMISSION_TIME, s.time_us);
        text(LegacyColumn::FILE_NAME, "submission.py");
        text(LegacyColumn::CODE, code);
        i64(LegacyColumn::CODE_ID, s.code_id);
        i64(LegacyColumn::RUN_ID, run_id);
        i64(LegacyColumn::RUN_START_TIME, r.start_us);
        i64(LegacyColumn::RUN_END_TIME, r.end_us);
        text(LegacyColumn::RUN_MODE, r.mode);
        out->column<double>(leaf(LegacyColumn::RUN_SCORE)).optional(r.score);
        out->column<bool>(leaf(LegacyColumn::RUN_PASSED)).value(r.passed);
        put_struct(*out, compilation_at, compilation_fields(), r.compilation);
        put_struct(*out, meta_at, meta_fields(), r.meta);
        put_struct(*out, result_at, result_fields(), r.result);
        put_struct(*out, system_at, system_fields(), r.system);
        out->column<int64_t>(index_at).value(index);
        out->end_row();
      }
      ++index;
    }
    if (progress && ++done % 1024 == 0) {
      progress({.stage = {},
                .done = static_cast<uint64_t>(done),
                .total = static_cast<uint64_t>(total),
                .unit = "rows"});
    }
  }
  all.commit();
  passed.commit();
  LegacyResult result;
  result.all_bytes = all.bytes_written();
  result.all_rows = all.rows();
  result.passed_bytes = passed.bytes_written();
  result.passed_rows = passed.rows();
  if (progress) {
    progress({.stage = {},
              .done = static_cast<uint64_t>(total),
              .total = static_cast<uint64_t>(total),
              .unit = "rows"});
  }
  return result;
}

}  // namespace kbdata::synth
