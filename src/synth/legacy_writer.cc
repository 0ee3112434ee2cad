#include "synth/legacy_writer.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "synth/output_file.h"
#include "synth/random.h"

namespace kbdata::synth {
namespace {

using parquet::PhysicalType;
using parquet::Repetition;

enum Leaf : size_t {
  SUBMISSION_ID,
  LEADERBOARD_ID,
  USER_ID,
  SUBMISSION_TIME,
  FILE_NAME,
  CODE,
  CODE_ID,
  RUN_ID,
  RUN_START,
  RUN_END,
  RUN_MODE,
  RUN_SCORE,
  RUN_PASSED,
  FIRST_STRUCT_LEAF
};

// Struct fields: name and whether it is a string (else as noted).
enum class Kind { STRING, BOOL, INT, DOUBLE };
struct Field {
  std::string name;
  Kind kind;
};

const std::vector<Field>& compilation_fields() {
  static const std::vector<Field> f = {{"success", Kind::BOOL},        {"nvcc_found", Kind::BOOL},
                                       {"nvcc_version", Kind::STRING}, {"command", Kind::STRING},
                                       {"stdout", Kind::STRING},       {"stderr", Kind::STRING},
                                       {"exit_code", Kind::INT},       {"duration", Kind::DOUBLE}};
  return f;
}
const std::vector<Field>& meta_fields() {
  static const std::vector<Field> f = {{"stdout", Kind::STRING},  {"stderr", Kind::STRING},
                                       {"success", Kind::BOOL},   {"exit_code", Kind::INT},
                                       {"command", Kind::STRING}, {"duration", Kind::DOUBLE}};
  return f;
}
constexpr int kMaxBenchmarks = 4;
constexpr int kMaxTests = 4;
const std::vector<Field>& result_fields() {
  static const std::vector<Field> f = [] {
    std::vector<Field> v = {{"benchmark-count", Kind::STRING}};
    for (int i = 0; i < kMaxBenchmarks; ++i) {
      for (const char* k : {"spec", "mean", "err", "best", "worst"}) {
        v.push_back({"benchmark." + std::to_string(i) + "." + k, Kind::STRING});
      }
    }
    v.push_back({"check", Kind::STRING});
    v.push_back({"test-count", Kind::STRING});
    for (int i = 0; i < kMaxTests; ++i) {
      for (const char* k : {"spec", "status", "error"}) {
        v.push_back({"test." + std::to_string(i) + "." + k, Kind::STRING});
      }
    }
    return v;
  }();
  return f;
}
const std::vector<Field>& system_fields() {
  static const std::vector<Field> f = {{"gpu", Kind::STRING},      {"device_count", Kind::INT},
                                       {"cpu", Kind::STRING},      {"runtime", Kind::STRING},
                                       {"platform", Kind::STRING}, {"torch", Kind::STRING},
                                       {"hostname", Kind::STRING}};
  return f;
}

void add_struct(std::vector<parquet::SchemaElement>& s, const std::string& name,
                const std::vector<Field>& fields) {
  s.push_back(group_element(name, Repetition::OPTIONAL, static_cast<int>(fields.size())));
  for (const Field& f : fields) {
    switch (f.kind) {
      case Kind::STRING:
        s.push_back(string_leaf(f.name));
        break;
      case Kind::BOOL:
        s.push_back(optional_leaf(f.name, PhysicalType::BOOLEAN));
        break;
      case Kind::INT:
        s.push_back(optional_leaf(f.name, PhysicalType::INT64));
        break;
      case Kind::DOUBLE:
        s.push_back(optional_leaf(f.name, PhysicalType::DOUBLE));
        break;
    }
  }
}

// A struct value: present fields by name (typed as text, converted on write).
using StructValue = std::optional<std::vector<std::pair<std::string, std::string>>>;

void put_struct(Columns& c, size_t first, const std::vector<Field>& fields,
                const StructValue& value) {
  for (size_t i = 0; i < fields.size(); ++i) {
    const size_t leaf = first + i;
    if (!value) {
      c.null(leaf, 0);
      continue;
    }
    const std::string* text = nullptr;
    for (const auto& [k, v] : *value) {
      if (k == fields[i].name) text = &v;
    }
    if (text == nullptr) {
      c.null_in_struct(leaf);
      continue;
    }
    switch (fields[i].kind) {
      case Kind::STRING:
        c.bytes(leaf, *text);
        break;
      case Kind::BOOL:
        c.boolean(leaf, *text == "true");
        break;
      case Kind::INT:
        c.i64(leaf, std::stoll(*text));
        break;
      case Kind::DOUBLE:
        c.f64(leaf, std::stod(*text));
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
  const bool multi = runner == "MI300x8";
  int64_t t = s.time_us + rng.range(2'000'000, 40'000'000);
  const StructValue system = std::vector<std::pair<std::string, std::string>>{
      {"gpu", "AMD Instinct MI300X"},
      {"device_count", multi ? "8" : "1"},
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
  auto bench_result = [&](double score, bool pass) {
    std::vector<std::pair<std::string, std::string>> v = {
        {"benchmark-count", std::to_string(benchmarks)}};
    for (int i = 0; i < benchmarks; ++i) {
      std::string p = "benchmark." + std::to_string(i) + ".";
      // Means around the score whose geometric mean is about the score (ns).
      double mean = score * 1e9 * std::exp(0.4 * (i - (benchmarks - 1) / 2.0));
      v.push_back({p + "spec", "m: " + std::to_string(1024 << i) + "; n: 1536; k: 7168; seed: " +
                                   std::to_string(rng.range(1000, 99999))});
      v.push_back({p + "mean", fixed3(mean)});
      v.push_back({p + "err", fixed3(mean * 0.01 * (1 + rng.uniform()))});
      v.push_back({p + "best", fixed3(mean * 0.97)});
      v.push_back({p + "worst", fixed3(mean * 1.08)});
    }
    v.push_back({"check", pass ? "pass" : "fail"});
    return v;
  };
  const double score = s.scores[static_cast<size_t>(std::countr_zero(s.runner_mask))];
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
      add("leaderboard", true, std::nullopt, bench_result(score * 1.01, true), false);  // secret
      break;
    case Outcome::PENDING:
      break;
  }
  return runs;
}

}  // namespace

std::vector<parquet::SchemaElement> legacy_schema(bool binary_code) {
  std::vector<parquet::SchemaElement> s = {
      root_element(17),
      optional_leaf("submission_id", PhysicalType::INT64),
      optional_leaf("leaderboard_id", PhysicalType::INT64),
      optional_leaf("user_id", PhysicalType::INT64),
      timestamp_leaf("submission_time", /*utc=*/false),
      string_leaf("file_name"),
      binary_code ? optional_leaf("code", PhysicalType::BYTE_ARRAY) : string_leaf("code"),
      optional_leaf("code_id", PhysicalType::INT64),
      optional_leaf("run_id", PhysicalType::INT64),
      timestamp_leaf("run_start_time", /*utc=*/true),
      timestamp_leaf("run_end_time", /*utc=*/true),
      string_leaf("run_mode"),
      optional_leaf("run_score", PhysicalType::DOUBLE),
      optional_leaf("run_passed", PhysicalType::BOOLEAN)};
  add_struct(s, "run_compilation", compilation_fields());
  add_struct(s, "run_meta", meta_fields());
  add_struct(s, "run_result", result_fields());
  add_struct(s, "run_system_info", system_fields());
  return s;
}

std::string legacy_stored_code(const CodeKey& key, std::string_view problem) {
  std::string code;
  generate_code(key, problem, code);
  if (has_invalid_utf8(key)) {
    size_t at = code.find("\n# ");
    code.insert(at == std::string::npos ? 0 : at + 3, "caf\xE9: ");
  }
  if (!stored_as_hex_escape(key)) return code;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = "\\x";
  hex.reserve(2 + 2 * code.size());
  for (unsigned char ch : code) {
    hex.push_back(kHex[ch >> 4]);
    hex.push_back(kHex[ch & 15]);
  }
  return hex;
}

LegacyResult write_legacy(const std::string& all_path, const std::string& passed_path,
                          std::span<const LeaderboardModel> models, const Population& population,
                          uint64_t seed, const parquet::WriterOptions& options,
                          const Progress& progress) {
  // The export's anonymisation: a random permutation of 1..N.
  Rng perm_rng(derive(seed, 500));
  std::vector<int64_t> anon(population.users.size());
  for (size_t i = 0; i < anon.size(); ++i) anon[i] = static_cast<int64_t>(i) + 1;
  for (size_t i = anon.size(); i > 1; --i) std::swap(anon[i - 1], anon[perm_rng.below(i)]);

  OutputFile all(all_path, legacy_schema(/*binary_code=*/true), options);
  OutputFile passed(passed_path, legacy_schema(/*binary_code=*/false), options);
  const size_t compilation_at = FIRST_STRUCT_LEAF;
  const size_t meta_at = compilation_at + compilation_fields().size();
  const size_t result_at = meta_at + meta_fields().size();
  const size_t system_at = result_at + result_fields().size();
  Rng run_ids(derive(seed, 501));
  int64_t run_id = 90'000 + static_cast<int64_t>(run_ids.below(1000));
  std::string code;
  int64_t done = 0;
  const auto total = static_cast<int64_t>(population.submissions.size());
  for (const Submission& s : population.submissions) {
    const LeaderboardModel& m = models[s.leaderboard];
    Rng rng(derive(seed, 502, static_cast<uint64_t>(s.id)));
    std::vector<Run> runs = runs_of(s, m, rng);
    if (!runs.empty()) code = legacy_stored_code(s.code, m.name);
    for (const Run& r : runs) {
      run_id += 1 + static_cast<int64_t>(run_ids.below(4));
      for (OutputFile* out : {&all, &passed}) {
        if (out == &passed && !r.passed) continue;
        Columns& c = out->columns();
        c.i64(SUBMISSION_ID, s.id);
        c.i64(LEADERBOARD_ID, m.id);
        c.i64(USER_ID, anon[s.user]);
        c.i64(SUBMISSION_TIME, s.time_us);
        c.bytes(FILE_NAME, "submission.py");
        c.bytes(CODE, code);
        c.i64(CODE_ID, s.code_id);
        c.i64(RUN_ID, run_id);
        c.i64(RUN_START, r.start_us);
        c.i64(RUN_END, r.end_us);
        c.bytes(RUN_MODE, r.mode);
        c.opt_f64(RUN_SCORE, r.score);
        c.boolean(RUN_PASSED, r.passed);
        put_struct(c, compilation_at, compilation_fields(), r.compilation);
        put_struct(c, meta_at, meta_fields(), r.meta);
        put_struct(c, result_at, result_fields(), r.result);
        put_struct(c, system_at, system_fields(), r.system);
        out->row_done();
      }
    }
    if (progress && ++done % 1024 == 0) progress(done, total);
  }
  LegacyResult result;
  result.all_bytes = all.finish();
  result.all_rows = all.rows();
  result.passed_bytes = passed.finish();
  result.passed_rows = passed.rows();
  if (progress) progress(total, total);
  return result;
}

}  // namespace kbdata::synth
