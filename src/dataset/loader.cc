#include "dataset/loader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/text.h"
#include "common/thread_pool.h"
#include "dataset/column_types.h"
#include "dataset/hardware.h"
#include "dataset/registry.h"
#include "dataset/resident.h"
#include "dataset/row_key.h"
#include "parquet/file_reader.h"
#include "parquet/row_filter.h"
#include "parquet/schema.h"
#include "parquet/table_scan.h"

namespace kbdata::dataset {
namespace {

using parquet::ColumnBatch;
using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;

// Rows per batch: a batch of code (tens of KB a row) stays a few MB, so that the batches a scan
// holds at once (parquet/table_scan.h) stay a few tens of MB; without code, 1,024 rows (about
// 450 KB of Submissions) keep the batches in flight small against the few MB the analyses touch,
// and are still few hand-overs between threads.
constexpr size_t kBatchRowsWithCode = 256;
constexpr size_t kBatchRows = 1024;

using Role = ColumnRole;
using ColumnSpec = ModelColumn;

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// An integral double as int64, or nullopt when it is not finite, not whole or out of range.
std::optional<int64_t> whole(double v) {
  if (!std::isfinite(v) || std::trunc(v) != v) return std::nullopt;
  if (v < -9223372036854775808.0 || v >= 9223372036854775808.0) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> parse_id(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_number(std::string_view text) {
  // Leading and trailing blanks are tolerated (the tester writes plain numbers).
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string number_text(double v) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::string quoted(std::string_view text) {
  std::string out = "'";
  out += text.substr(0, 40);
  if (text.size() > 40) out += "...";
  return out + "'";
}

// One model column of a scan batch: the batch's values, and for each row the index of its value
// (-1 for null). An absent column (leaf < 0) reads as all nulls. The accessors return the model's
// value, nullopt for a null, and throw FormatError naming the row for a value the role cannot
// hold (and for a null when the spec says it may not be null).
struct Column {
  ColumnSpec spec;
  int leaf = -1;
  const ColumnDescriptor* d = nullptr;
  const ColumnBatch* batch = nullptr;        // borrowed from the scan batch
  const parquet::ScanBatch* scan = nullptr;  // the batch, for the file row numbers of errors
  std::vector<int64_t> index;
  // The scan delivers code_size_measure() of each value instead of the value (FileLoad::measure).
  bool measured = false;

  [[nodiscard]] bool present() const { return leaf >= 0; }
  [[nodiscard]] bool is_null(size_t r) const { return !present() || index[r] < 0; }
  [[nodiscard]] size_t at(size_t r) const { return static_cast<size_t>(index[r]); }

  [[noreturn]] void fail(size_t r, const std::string& what) const {
    FormatError error("row " + std::to_string(scan->file_row(r)) + ": " + what);
    error.locate_column(d->dotted_path);
    throw error;
  }

  // True for a null (after failing when nulls are not allowed).
  [[nodiscard]] bool null_at(size_t r) const {
    if (!is_null(r)) return false;
    if (present() && !spec.nullable) fail(r, "null, but the model needs a value here");
    return true;
  }

  // The raw text of a BYTE_ARRAY value, nullopt for a null or another type (no checks: for the
  // loader's early row drops, which only act on certain mismatches).
  [[nodiscard]] std::optional<std::string_view> str(size_t r) const {
    if (is_null(r) || d->physical != PhysicalType::BYTE_ARRAY) return std::nullopt;
    return batch->values.string(at(r));
  }

  // An integer column's value; nullopt for a UINT64 above the int64 range.
  [[nodiscard]] std::optional<int64_t> integer(size_t i) const {
    const bool is_unsigned = d->logical.kind == LogicalType::Kind::INTEGER && !d->logical.is_signed;
    if (d->physical == PhysicalType::INT32) {
      const int32_t v = batch->values.get<int32_t>(i);
      return is_unsigned ? static_cast<int64_t>(static_cast<uint32_t>(v)) : v;
    }
    const int64_t v = batch->values.get<int64_t>(i);
    if (is_unsigned && v < 0) return std::nullopt;
    return v;
  }

  // A DECIMAL value's unscaled integer; nullopt when it has more than 16 bytes.
  [[nodiscard]] std::optional<Int128> unscaled(size_t i) const {
    switch (d->physical) {
      case PhysicalType::INT32:
        return batch->values.get<int32_t>(i);
      case PhysicalType::INT64:
        return batch->values.get<int64_t>(i);
      default: {
        auto bytes = batch->values.bytes(i);
        if (bytes.size() > 16) return std::nullopt;
        if (bytes.empty()) return Int128{0};
        Int128 v = static_cast<int8_t>(bytes[0]);  // two's complement: the first byte is signed
        for (size_t k = 1; k < bytes.size(); ++k) v = v * 256 + bytes[k];
        return v;
      }
    }
  }

  // The double nearest to a DECIMAL's value: its exact text `<unscaled>e<-scale>`, rounded once by
  // from_chars (scaling the unscaled integer by a power of ten rounds twice, off by an ulp or more:
  // -27223674.2 read as -27223674.200000003).
  [[nodiscard]] double decimal_value(size_t r, size_t i) const {
    std::optional<Int128> v = unscaled(i);
    if (!v) fail(r, "a DECIMAL wider than 16 bytes");
    char text[64];
    char* end = text + sizeof text;
    char* p = end;
    const bool negative = *v < 0;
    auto magnitude = static_cast<UInt128>(*v);
    if (negative) magnitude = 0 - magnitude;
    const std::string exponent = "e" + std::to_string(-int64_t{d->logical.decimal_scale});
    p -= exponent.size();
    std::memcpy(p, exponent.data(), exponent.size());
    do {
      *--p = static_cast<char>('0' + static_cast<int>(magnitude % 10));
      magnitude /= 10;
    } while (magnitude != 0);
    if (negative) *--p = '-';
    double value = 0;
    auto [stop, ec] = std::from_chars(p, end, value);
    // Out of range (a scale beyond the double's exponents): from_chars leaves value untouched.
    if (ec == std::errc::result_out_of_range) {
      return static_cast<double>(*v) * std::pow(10.0, -d->logical.decimal_scale);
    }
    if (ec != std::errc() || stop != end) fail(r, "a DECIMAL kbdata cannot convert to a number");
    return value;
  }

  // The value as an integer id (Role::ID, and ID_TEXT's numbers).
  [[nodiscard]] std::optional<int64_t> id(size_t r) const {
    if (null_at(r)) return std::nullopt;
    const size_t i = at(r);
    if (is_decimal_type(*d)) {
      std::optional<Int128> v = unscaled(i);
      if (!v) fail(r, "a DECIMAL wider than 16 bytes where an integer id is expected");
      Int128 scaled = *v;
      for (int k = 0; k < d->logical.decimal_scale; ++k) {
        if (scaled % 10 != 0) fail(r, "a DECIMAL with a fraction where an integer id is expected");
        scaled /= 10;
      }
      if (scaled < std::numeric_limits<int64_t>::min() ||
          scaled > std::numeric_limits<int64_t>::max()) {
        fail(r, "a DECIMAL outside the int64 range where an integer id is expected");
      }
      return static_cast<int64_t>(scaled);
    }
    if (is_integer_type(*d)) {
      std::optional<int64_t> v = integer(i);
      if (!v) {
        fail(r, std::to_string(static_cast<uint64_t>(batch->values.get<int64_t>(i))) +
                    " is outside the int64 range of ids");
      }
      return v;
    }
    if (is_floating_type(*d)) {
      const double v = d->physical == PhysicalType::DOUBLE ? batch->values.get<double>(i)
                                                           : batch->values.get<float>(i);
      std::optional<int64_t> w = whole(v);
      if (!w) fail(r, number_text(v) + " is not an integer id");
      return w;
    }
    const std::string_view text = batch->values.string(i);
    std::optional<int64_t> v = parse_id(text);
    if (!v) fail(r, quoted(text) + " is not an integer id");
    return v;
  }

  // The value as text: strings as well-formed UTF-8 (ill-formed sequences replaced, as code is:
  // what every output shows, so that a filter given the shown text finds it); for ID_TEXT, ids as
  // decimal text.
  [[nodiscard]] std::optional<std::string> text(size_t r) const {
    if (null_at(r)) return std::nullopt;
    if (is_text_type(*d) && !is_decimal_type(*d)) {
      const std::string_view raw = batch->values.string(at(r));
      if (is_valid_utf8(raw)) return std::string(raw);
      std::string repaired;
      append_utf8_repaired(repaired, raw);
      return repaired;
    }
    return std::to_string(*id(r));
  }

  // A number (SCORE and NUMBER): DOUBLE, FLOAT, DECIMAL, integers, and for NUMBER text.
  [[nodiscard]] std::optional<double> f64(size_t r) const {
    if (null_at(r)) return std::nullopt;
    const size_t i = at(r);
    if (is_decimal_type(*d)) return decimal_value(r, i);
    switch (d->physical) {
      case PhysicalType::DOUBLE:
        return batch->values.get<double>(i);
      case PhysicalType::FLOAT:
        return batch->values.get<float>(i);
      case PhysicalType::INT32:
      case PhysicalType::INT64:
        if (std::optional<int64_t> v = integer(i)) return static_cast<double>(*v);
        return static_cast<double>(static_cast<uint64_t>(batch->values.get<int64_t>(i)));
      default: {
        const std::string_view text = batch->values.string(i);
        std::optional<double> v = parse_number(text);
        if (!v) fail(r, quoted(text) + " is not a number");
        return v;
      }
    }
  }

  // A timestamp as µs UTC: INT64 in the column's unit, or INT96 (naive ones taken as UTC).
  [[nodiscard]] std::optional<int64_t> time_us(size_t r) const {
    if (null_at(r)) return std::nullopt;
    const size_t i = at(r);
    if (d->physical == PhysicalType::INT64)
      return to_micros(batch->values.get<int64_t>(i), d->logical.unit);
    return int96_to_micros(batch->values.bytes(i).data());
  }

  // BOOLEAN, or an integer holding 0 or 1.
  [[nodiscard]] std::optional<bool> boolean(size_t r) const {
    if (null_at(r)) return std::nullopt;
    const size_t i = at(r);
    if (d->physical == PhysicalType::BOOLEAN) return batch->values.data[i] != 0;
    std::optional<int64_t> v = integer(i);
    if (v != 0 && v != 1) {
      fail(r, (v ? std::to_string(*v) : std::string("a value above the int64 range")) +
                  " is not a boolean (0 or 1)");
    }
    return *v == 1;
  }
};

// Points `c` at its column of `batch` and indexes its values. Throws FormatError if the batch's
// values do not match its levels.
void view(Column& c, const parquet::ScanBatch& batch, int slot) {
  c.scan = &batch;
  c.index.assign(batch.num_rows, -1);
  if (!c.present()) return;
  c.batch = &batch.columns[static_cast<size_t>(slot)];
  int64_t next = 0;
  for (size_t r = 0; r < batch.num_rows; ++r) {
    if (c.d->max_def == 0 || c.batch->def_levels[r] == c.d->max_def) c.index[r] = next++;
  }
  parquet::check_batch_values(*c.d, c.batch->values, static_cast<size_t>(next));
}

// The model columns of one file, read by one TableScan: the scan's columns are the present model
// columns; each batch is seen through a set of Column views (one set per batch, so that batches
// can be turned into rows on several threads at once).
class FileLoad {
 public:
  // Opens the columns of `specs`. Throws UnsupportedError (located at the column) for a column
  // whose type its role does not accept, FormatError for a required column the file lacks.
  FileLoad(parquet::FileReader& reader, const std::vector<ColumnSpec>& specs, int threads,
           size_t batch_rows)
      : reader_(reader), specs_(specs.size()), slots_(specs.size(), -1) {
    scan_.threads = threads;
    scan_.batch_rows = batch_rows;
    for (size_t c = 0; c < specs.size(); ++c) {
      Column& column = specs_[c];
      column.spec = specs[c];
      const int leaf = open_model_column(reader.schema(), specs[c]);
      if (leaf < 0) continue;
      column.leaf = leaf;
      column.d = &reader.schema().leaves()[static_cast<size_t>(leaf)];
      auto it = std::find(scan_.columns.begin(), scan_.columns.end(), leaf);
      slots_[c] = static_cast<int>(it - scan_.columns.begin());
      if (it == scan_.columns.end()) scan_.columns.push_back(leaf);
    }
  }

  // Reads only these rows of the file (file row numbers, sorted, disjoint).
  void only_rows(parquet::RowRanges rows) { scan_.rows = std::move(rows); }

  // Column `spec` (code, read for its decoded size alone) is measured by the scan where it decodes
  // it (code_size_measure()): the text is never copied out of its pages.
  void measure_code_size(size_t spec) {
    if (spec >= slots_.size() || slots_[spec] < 0) return;
    if (specs_[spec].d->physical != PhysicalType::BYTE_ARRAY || specs_[spec].d->max_rep > 0) return;
    scan_.measures.resize(scan_.columns.size(), nullptr);
    scan_.measures[static_cast<size_t>(slots_[spec])] = &code_size_measure;
    specs_[spec].measured = true;
  }

  // Empties column `spec` of `batch` (ScanBatch::release): what the rows took from it is theirs
  // now, and a batch waiting to be delivered holds no copy (of the code: most of its bytes).
  void release(parquet::ScanBatch& batch, size_t spec) const {
    if (spec < slots_.size() && slots_[spec] >= 0) {
      batch.release(static_cast<size_t>(slots_[spec]));
    }
  }

  // The caller's work per batch (a prepare step) is what the threads are for: the scan uses them
  // however few bytes it reads.
  void threads_for_any_work() { scan_.parallel_bytes = 0; }

  // The columns as opened (no batch): what is present, its descriptor.
  [[nodiscard]] const Column& operator[](size_t c) const { return specs_[c]; }

  // The views of `batch`'s columns, one per spec.
  [[nodiscard]] std::vector<Column> columns(const parquet::ScanBatch& batch) const {
    std::vector<Column> out = specs_;
    for (size_t c = 0; c < out.size(); ++c) view(out[c], batch, slots_[c]);
    return out;
  }

  // Scans the file (less what `filter` prunes; with `filter_rows`, less the rows where one of its
  // predicates fails, which must then only drop rows the caller's filter would drop):
  // map(columns, batch) on a worker thread per batch, deliver(batch) on the calling thread in
  // file order.
  void run(const parquet::RowFilter* filter, bool filter_rows, LoadStats& stats,
           const std::function<void(const std::vector<Column>&, parquet::ScanBatch&)>& map,
           const std::function<void(parquet::ScanBatch&)>& deliver) {
    parquet::ScanOptions options = scan_;
    options.filter = filter;
    options.filter_rows = filter_rows && filter != nullptr;
    parquet::TableScan scan(reader_, options);
    scan.run(
        [&](parquet::ScanBatch& batch) {
          if (map) map(columns(batch), batch);
        },
        [&](parquet::ScanBatch& batch) {
          deliver(batch);
          return true;
        });
    const parquet::ScanStats& s = scan.stats();
    stats.row_groups += s.row_groups;
    stats.row_groups_skipped += s.row_groups_pruned;
    stats.rows_read += s.rows_selected;
  }

 private:
  parquet::FileReader& reader_;
  std::vector<Column> specs_;
  std::vector<int> slots_;  // per spec: its column in the scan, or -1 when absent
  parquet::ScanOptions scan_;
};

int load_threads(const LoadOptions& options) { return std::max(1, options.threads); }

bool is_binary(const Column& c) {
  if (!c.present()) return false;
  auto kind = c.d->logical.kind;
  return kind != LogicalType::Kind::STRING && kind != LogicalType::Kind::ENUM &&
         kind != LogicalType::Kind::JSON;
}

std::optional<std::string> decode(const Column& code, size_t r, CodeRepairCounts& counts) {
  auto raw = code.str(r);
  if (!raw) return std::nullopt;
  return decode_code(*raw, is_binary(code), counts);
}

// The code of row r for a prepare step: a view into the batch where decoding changes nothing,
// else into `scratch` (decode_code_view).
std::optional<std::string_view> decode_view(const Column& code, size_t r, CodeRepairCounts& counts,
                                            std::string& scratch) {
  auto raw = code.str(r);
  if (!raw) return std::nullopt;
  return decode_code_view(*raw, is_binary(code), counts, scratch);
}

std::optional<uint64_t> decoded_size(const Column& code, size_t r, CodeRepairCounts& counts) {
  if (code.measured) {
    if (code.is_null(r)) return std::nullopt;
    return count_code_size_measure(code.batch->values.measure(code.at(r)), is_binary(code), counts);
  }
  auto raw = code.str(r);
  if (!raw) return std::nullopt;
  return decoded_code_size(*raw, is_binary(code), counts);
}

// True when row r of string column c certainly holds a value other than `want`. False for a
// null, an absent column, a non-string column or ill-formed UTF-8 (repaired when the Submission is
// built): the text the Submission would hold is then decided by building it.
bool differs(const Column& c, size_t r, std::string_view want) {
  const std::optional<std::string_view> value = c.str(r);
  return value && *value != want && is_valid_utf8(*value);
}

// The same for a runner, which compares trimmed and ignoring case (dataset/hardware.h).
bool runner_differs(const Column& c, size_t r, std::string_view want) {
  const std::optional<std::string_view> value = c.str(r);
  return value && !same_runner(*value, want) && is_valid_utf8(*value);
}

enum FlatColumn : size_t {
  F_SUBMISSION_ID,
  F_LEADERBOARD_ID,
  F_PROBLEM,
  F_USER_ID,
  F_USER_NAME,
  F_CODE_ID,
  F_FILE_NAME,
  F_TIME,
  F_STATUS,
  F_SCORE,
  F_PASSED,
  F_MODE,
  F_RUNNER,
  F_CODE
};

// The status of a submission whose file has no status column: the legacy family's rule
// (docs/data-model.md): "succeeded" with a score and a pass, else "failed".
std::string derived_status(const Submission& s) {
  return s.score && s.passed == true ? "succeeded" : "failed";
}

// Spellings of runners and statuses rewritten while a batch's rows were built (on a worker).
struct Respelled {
  uint64_t runners = 0;  // a runner written other than canonical_runner shows it
  uint64_t statuses = 0;
  std::vector<std::string> examples;  // up to LoadStats::kMaxNamed of the written spellings

  void note(std::string_view written) {
    if (examples.size() < LoadStats::kMaxNamed &&
        std::find(examples.begin(), examples.end(), written) == examples.end()) {
      examples.emplace_back(written);
    }
  }
  void add_to(LoadStats& stats) const {
    stats.respelled_runners += runners;
    stats.respelled_statuses += statuses;
    for (const std::string& e : examples) {
      if (stats.respellings.size() < LoadStats::kMaxNamed &&
          std::find(stats.respellings.begin(), stats.respellings.end(), e) ==
              stats.respellings.end()) {
        stats.respellings.push_back(e);
      }
    }
  }
};

// The runner and status of a row as shown (hardware.h), counting what was written otherwise. A
// runner the hardware table lacks is left as written: its shown spelling is the load's
// (LoadStats::respell_unknown_runner, on the calling thread).
std::optional<std::string> shown_runner(std::optional<std::string> written, Respelled& respelled) {
  if (!written) return written;
  const RunnerHardware* known = runner_hardware(*written);
  if (known == nullptr || known->runner == *written) return written;
  ++respelled.runners;
  respelled.note(*written);
  return std::string(known->runner);
}
std::string shown_status(const std::string& written, Respelled& respelled) {
  std::string shown = canonical_status(written);
  if (shown != written) {
    ++respelled.statuses;
    respelled.note(written);
  }
  return shown;
}

// What every row a file gives goes through on the calling thread before the sink, in file order
// (docs/data-model.md, "Spellings" and "Repeated rows"): a runner the hardware table lacks takes
// the first of its spellings the load met; a (submission_id, runner) the file already gave is
// dropped and counted, and named as inconsistent when its other fields differ; a leaderboard the
// registry lacks is noted once.
class RowChecks {
 public:
  // `repeats`: the file gives one row per (submission_id, runner) (flat files), so a second is a
  // repeat.
  // `rows`: the file's row count, the most it can admit.
  RowChecks(std::string file, LoadStats& stats, bool repeats, int64_t rows)
      : file_(std::move(file)), stats_(stats), repeats_(repeats) {
    if (repeats_) seen_.reserve(static_cast<size_t>(std::max<int64_t>(rows, 0)));
  }

  // False when the row is a repeat, to be dropped.
  bool admit(Submission& s) {
    int32_t runner = RowKey::kNoRunner;
    if (s.runner) {
      // Files give long runs of one runner: its table lookup and number are found once per run.
      if (last_runner_ != *s.runner) {
        last_runner_ = *s.runner;
        last_runner_known_ = runner_hardware(*s.runner) != nullptr;
        if (last_runner_known_) last_runner_number_ = runners_.number(s.runner);
      }
      if (last_runner_known_) {
        runner = last_runner_number_;
      } else {
        // The key holds the spelling the load shows: two spellings of one unknown runner are one.
        stats_.respell_unknown_runner(*s.runner);
        runner = runners_.number(s.runner);
      }
    }
    if (s.leaderboard_id != last_leaderboard_ || s.problem_name != last_problem_) {
      last_leaderboard_ = s.leaderboard_id;
      last_problem_ = s.problem_name;
      const std::pair<int64_t, std::string> key{s.leaderboard_id, s.problem_name};
      auto& seen = stats_.unregistered;
      if (!is_registered(s.leaderboard_id, s.problem_name) &&
          std::find(seen.begin(), seen.end(), key) == seen.end()) {
        seen.push_back(key);
      }
    }
    if (!repeats_) return true;
    const RowKey key{s.submission_id, runner};
    const uint64_t print = fingerprint(s);
    const auto [it, inserted] = seen_.try_emplace(key, print);
    if (inserted) return true;
    ++repeated_;
    if (it->second != print) {
      if (stats_.inconsistent.size() < LoadStats::kMaxNamed) {
        stats_.inconsistent.push_back({file_, s.submission_id, s.runner});
      }
      ++stats_.inconsistent_rows;
    }
    return false;
  }

  ~RowChecks() {
    if (repeated_ > 0) stats_.repeats.push_back({file_, file_, repeated_});
  }

 private:
  // The row's fields but its identity and code, hashed: two copies that hash alike agree.
  static uint64_t fingerprint(const Submission& s) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    const auto mix = [&h](uint64_t v) { h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2); };
    const auto text = [&](const std::optional<std::string>& v) {
      mix(v ? std::hash<std::string>()(*v) : 0x51ED270B27A3C6E1ULL);
    };
    mix(static_cast<uint64_t>(s.leaderboard_id));
    mix(std::hash<std::string>()(s.problem_name));
    mix(std::hash<std::string>()(s.user_id));
    text(s.user_name);
    mix(s.code_id ? static_cast<uint64_t>(*s.code_id) : 0x2545F4914F6CDD1DULL);
    text(s.file_name);
    mix(static_cast<uint64_t>(s.submission_time));
    mix(std::hash<std::string>()(s.status));
    mix(s.score ? std::bit_cast<uint64_t>(*s.score) : 0x7FF8DEADBEEF0001ULL);
    mix(s.passed ? (*s.passed ? 1 : 2) : 3);
    text(s.mode);
    return h;
  }

  std::string file_;
  LoadStats& stats_;
  bool repeats_;
  RunnerNumbers runners_;
  std::unordered_map<RowKey, uint64_t, RowKeyHash> seen_;  // each row admitted: its fingerprint
  uint64_t repeated_ = 0;
  std::optional<std::string> last_runner_;  // the runner of the row before, when it had one
  bool last_runner_known_ = false;
  int32_t last_runner_number_ = RowKey::kNoRunner;
  int64_t last_leaderboard_ = -1;
  std::string last_problem_ = "\x1f";  // no problem name: the first row is checked
};

// The rows one batch of a flat file gave, made on a worker thread.
struct FlatRows {
  std::vector<Submission> rows;
  CodeRepairCounts code;
  Respelled respelled;
};

void load_flat(parquet::FileReader& reader, const parquet::RowFilter* filter,
               const LoadOptions& options, const SubmissionSink& sink, LoadStats& stats) {
  std::vector<ColumnSpec> specs = model_columns(SchemaFamily::FLAT);
  specs.pop_back();  // code
  if (!options.with_details)
    specs[F_CODE_ID].name = specs[F_FILE_NAME].name = specs[F_MODE].name = "";
  if (options.with_code || options.with_code_bytes) {
    specs.push_back(model_columns(SchemaFamily::FLAT)[F_CODE]);
    specs.back().required = true;
  }
  // Code measured for its size alone is 8 bytes a row in a batch: batches as without code.
  const bool measure_code = options.with_code_bytes && !options.with_code;
  FileLoad file(reader, specs, load_threads(options),
                options.with_code ? kBatchRowsWithCode : kBatchRows);
  if (measure_code) file.measure_code_size(F_CODE);
  if (options.prepare) file.threads_for_any_work();
  const Filter& f = options.filter;
  // A file without a runner column cannot tell a submission's rows on two runners apart: the
  // identity rule needs the column.
  RowChecks checks(reader.name(), stats, /*repeats=*/file[F_RUNNER].present(), reader.num_rows());
  file.run(
      filter, /*filter_rows=*/true, stats,
      [&](const std::vector<Column>& load, parquet::ScanBatch& batch) {
        FlatRows out;
        out.rows.reserve(batch.num_rows);  // no regrowth: a Submission moves in ~30 stores
        std::string scratch;               // a repaired code handed to prepare
        for (size_t r = 0; r < batch.num_rows; ++r) {
          // Rows that cannot match are dropped before their Submission (a dozen strings) is
          // built. Only certain mismatches are dropped here; matches() below stays the exact
          // test.
          if (f.problem && differs(load[F_PROBLEM], r, *f.problem)) continue;
          if (f.user_id && differs(load[F_USER_ID], r, *f.user_id)) continue;
          if (f.runner && runner_differs(load[F_RUNNER], r, *f.runner)) continue;
          if (f.user && differs(load[F_USER_ID], r, *f.user) &&
              (load[F_USER_NAME].is_null(r) || differs(load[F_USER_NAME], r, *f.user))) {
            continue;
          }
          if (f.scored_only && load[F_SCORE].is_null(r)) continue;
          if (f.passed_only && load[F_PASSED].is_null(r)) continue;
          Submission s;
          s.submission_id = *load[F_SUBMISSION_ID].id(r);
          s.leaderboard_id = *load[F_LEADERBOARD_ID].id(r);
          s.problem_name = *load[F_PROBLEM].text(r);
          s.user_id = *load[F_USER_ID].text(r);
          s.user_name = load[F_USER_NAME].text(r);
          if (load[F_CODE_ID].present()) s.code_id = load[F_CODE_ID].id(r);
          s.file_name = load[F_FILE_NAME].text(r);
          s.submission_time = *load[F_TIME].time_us(r);
          s.score = load[F_SCORE].f64(r);
          s.passed = load[F_PASSED].boolean(r);
          s.status = load[F_STATUS].present() ? shown_status(*load[F_STATUS].text(r), out.respelled)
                                              : derived_status(s);
          s.mode = load[F_MODE].text(r);
          s.runner = shown_runner(load[F_RUNNER].text(r), out.respelled);
          if (!matches(options.filter, s)) continue;
          std::optional<std::string_view> code;
          if (options.with_code && (!options.code_wanted || options.code_wanted(s))) {
            if (options.prepare) {
              code = decode_view(load[F_CODE], r, out.code, scratch);
            } else {
              s.code = decode(load[F_CODE], r, out.code);
            }
          } else if (options.with_code_bytes) {
            s.code_bytes = decoded_size(load[F_CODE], r, out.code);
          }
          if (options.prepare) options.prepare(s, code);
          out.rows.push_back(std::move(s));
        }
        batch.result = std::move(out);
        file.release(batch, F_CODE);
      },
      [&](parquet::ScanBatch& batch) {
        auto& out = std::any_cast<FlatRows&>(batch.result);
        stats.code += out.code;
        out.respelled.add_to(stats);
        for (Submission& s : out.rows) {
          if (checks.admit(s)) sink(std::move(s));
        }
      });
}

enum LegacyColumn : size_t {
  L_SUBMISSION_ID,
  L_LEADERBOARD_ID,
  L_USER_ID,
  L_TIME,
  L_FILE_NAME,
  L_CODE_ID,
  L_RUN_ID,
  L_RUN_MODE,
  L_RUN_SCORE,
  L_RUN_PASSED,
  L_RUN_START,
  L_RUN_END,
  L_CODE
};

// The leaderboards a load knows: its options', else the registry's alone.
const LeaderboardDirectory& leaderboards_of(const LoadOptions& options) {
  static const LeaderboardDirectory kRegistryOnly;
  return options.leaderboards ? *options.leaderboards : kRegistryOnly;
}

// The leaves of run_system_info a legacy run records its machine in, or -1.
struct SystemLeaves {
  int gpu = -1;
  int device_count = -1;
};
SystemLeaves system_leaves(const parquet::Schema& schema) {
  SystemLeaves out;
  const auto& leaves = schema.leaves();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const auto& d = leaves[i];
    if (d.path.size() != 2 || d.path[0] != "run_system_info" || d.max_rep != 0) continue;
    if (d.path[1] == "gpu") out.gpu = static_cast<int>(i);
    if (d.path[1] == "device_count") out.device_count = static_cast<int>(i);
  }
  return out;
}

// The runners legacy runs chose among (legacy_runner), remembered per (leaderboard, device,
// device count): a file has a handful. Used on the calling thread only.
class LegacyRunners {
 public:
  explicit LegacyRunners(const LeaderboardDirectory& leaderboards) : leaderboards_(leaderboards) {}
  std::optional<std::string> of(int64_t leaderboard_id, const std::optional<std::string>& device,
                                std::optional<int64_t> device_count) {
    if (!device) return std::nullopt;
    for (const Known& k : known_) {
      if (k.leaderboard_id == leaderboard_id && k.device == *device && k.count == device_count) {
        return k.runner;
      }
    }
    std::optional<std::string> runner =
        legacy_runner(*device, device_count, leaderboards_.gpu_types(leaderboard_id));
    known_.push_back({leaderboard_id, *device, device_count, runner});
    return runner;
  }

 private:
  struct Known {
    int64_t leaderboard_id;
    std::string device;
    std::optional<int64_t> count;
    std::optional<std::string> runner;
  };
  const LeaderboardDirectory& leaderboards_;
  std::vector<Known> known_;
};

// A leaf of run_result holding a tester key benchmark.N.FIELD (docs/dataset.md §2).
struct BenchmarkLeaf {
  int leaf = -1;
  size_t benchmark = 0;  // N
  int field = 0;         // index into kBenchmarkFields
};
constexpr const char* kBenchmarkFields[] = {"mean", "std", "err", "runs", "best", "worst"};
constexpr size_t kMaxBenchmarks = 4096;  // a higher N is not a benchmark key

std::vector<BenchmarkLeaf> benchmark_leaves(const parquet::Schema& schema) {
  std::vector<BenchmarkLeaf> out;
  const auto& leaves = schema.leaves();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const auto& d = leaves[i];
    if (d.path.size() != 2 || d.path[0] != "run_result" || d.max_rep != 0) continue;
    std::string_view key = d.path[1];
    if (!key.starts_with("benchmark.")) continue;
    key.remove_prefix(10);
    size_t n = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
    if (ec != std::errc() || end == key.data() || n >= kMaxBenchmarks || *end != '.') continue;
    const std::string_view field = key.substr(static_cast<size_t>(end - key.data()) + 1);
    for (int f = 0; f < 6; ++f) {
      if (field == kBenchmarkFields[f]) out.push_back({static_cast<int>(i), n, f});
    }
  }
  return out;
}

// The fields of a legacy submission its first run (row r) gives, but the code; `problem_of` names
// a leaderboard id's problem.
template <typename ProblemOf>
Submission submission_fields(const std::vector<Column>& load, size_t r, int64_t id,
                             const ProblemOf& problem_of) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = *load[L_LEADERBOARD_ID].id(r);
  s.problem_name = problem_of(s.leaderboard_id);
  s.user_id = *load[L_USER_ID].text(r);
  s.code_id = load[L_CODE_ID].id(r);
  s.file_name = load[L_FILE_NAME].text(r);
  s.submission_time = *load[L_TIME].time_us(r);
  return s;
}

// The code of one row of a legacy batch, decoded on a worker.
struct DecodedCode {
  bool decoded = false;
  std::optional<std::string> code;  // with_code
  std::optional<uint64_t> bytes;    // with_code_bytes
  CodeRepairCounts counts;
};

// The columns a legacy load reads (LegacyColumn order), then the machine of each run
// (run_system_info.gpu and .device_count, which give the runner) and, with results, the tester's
// benchmark leaves (set in `bench_leaves`).
std::vector<ColumnSpec> legacy_specs(const parquet::Schema& schema, const LoadOptions& options,
                                     std::vector<BenchmarkLeaf>& bench_leaves) {
  std::vector<ColumnSpec> specs = model_columns(SchemaFamily::LEGACY_RUNS);
  if (!options.with_runs) specs[L_RUN_START].name = specs[L_RUN_END].name = "";
  if (options.with_code || options.with_code_bytes) {
    specs[L_CODE].required = true;
  } else {
    specs[L_CODE].name = "";
  }
  // The machine of each run (run_system_info.gpu and .device_count), which gives the runner.
  const SystemLeaves system = system_leaves(schema);
  specs.push_back({"", Role::TEXT, false, true, system.gpu});
  specs.push_back({"", Role::ID, false, true, system.device_count});
  if (options.with_results) bench_leaves = benchmark_leaves(schema);
  for (const BenchmarkLeaf& b : bench_leaves)
    specs.push_back({"", Role::NUMBER, false, true, b.leaf});
  return specs;
}

// On a worker: the code of the first row of each submission of a legacy batch (of `rows` rows)
// that `submission_level` keeps, decoded (`with_code`) or only measured.
std::vector<DecodedCode> decode_first_codes(const std::vector<Column>& load, size_t rows,
                                            const Filter& submission_level,
                                            const LeaderboardDirectory& leaderboards,
                                            bool with_code) {
  std::vector<DecodedCode> out(rows);
  std::unordered_set<int64_t> first;
  for (size_t r = 0; r < rows; ++r) {
    const std::optional<int64_t> id = load[L_SUBMISSION_ID].id(r);
    if (!id || !first.insert(*id).second) continue;
    // A submission the filter leaves out keeps no code: none is decoded for it.
    if (!matches(submission_level, submission_fields(load, r, *id, [&](int64_t leaderboard_id) {
                   return leaderboards.name_of(leaderboard_id);
                 }))) {
      continue;
    }
    DecodedCode& d = out[r];
    d.decoded = true;
    if (with_code) {
      d.code = decode(load[L_CODE], r, d.counts);
    } else {
      d.bytes = decoded_size(load[L_CODE], r, d.counts);
    }
  }
  return out;
}

// The conditions of `filter` a legacy submission can be tested on at its first run seen; passed
// and scored, and the runner (a later run may be the first to record its GPU), are tested once
// all its runs are grouped.
Filter first_run_conditions(Filter filter) {
  filter.passed_only = false;
  filter.scored_only = false;
  filter.runner.reset();
  return filter;
}

// A leaderboard id's problem name (LeaderboardDirectory::name_of), each looked up once. Used on
// the calling thread only.
class ProblemNames {
 public:
  explicit ProblemNames(const LeaderboardDirectory& leaderboards) : leaderboards_(leaderboards) {}
  const std::string& operator()(int64_t leaderboard_id) const {
    auto p = names_.find(leaderboard_id);
    if (p == names_.end()) {
      p = names_.emplace(leaderboard_id, leaderboards_.name_of(leaderboard_id)).first;
    }
    return p->second;
  }

 private:
  const LeaderboardDirectory& leaderboards_;
  mutable std::map<int64_t, std::string> names_;  // a cache
};

// The run of row `r` of a legacy batch (its times aside), with the tester's benchmark results of
// `bench_leaves` (whose columns follow L_CODE + 2).
Run legacy_run(const std::vector<Column>& load, size_t r,
               const std::vector<BenchmarkLeaf>& bench_leaves) {
  Run run;
  run.run_id = *load[L_RUN_ID].id(r);
  run.mode = *load[L_RUN_MODE].text(r);
  run.score = load[L_RUN_SCORE].f64(r);
  run.passed = load[L_RUN_PASSED].boolean(r);
  for (size_t k = 0; k < bench_leaves.size(); ++k) {
    const Column& c = load[L_CODE + 3 + k];
    std::optional<double> v = c.f64(r);
    if (!v) continue;
    const BenchmarkLeaf& b = bench_leaves[k];
    if (run.benchmarks.size() <= b.benchmark) run.benchmarks.resize(b.benchmark + 1);
    BenchmarkResult& result = run.benchmarks[b.benchmark];
    switch (b.field) {
      case 0:
        result.mean = v;
        break;
      case 1:
        result.std_dev = v;
        break;
      case 2:
        result.err = v;
        break;
      case 3: {
        std::optional<int64_t> runs = whole(*v);
        if (!runs) c.fail(r, number_text(*v) + " is not a count of runs");
        result.runs = runs;
        break;
      }
      case 4:
        result.best = v;
        break;
      default:
        result.worst = v;
        break;
    }
  }
  return run;
}

// The submission's score: its best (lowest) passed, scored leaderboard run. Secret runs cannot be
// told apart in this family, so they compete too (docs/data-model.md). A score no ranking can use
// (NaN, infinite, negative) is kept only when there is no other. `with_results`: the best run's
// benchmark results are the submission's.
void take_if_best(Submission& s, const Run& run, bool with_results) {
  if (run.mode == "leaderboard" && run.passed == true && run.score &&
      (!s.score || (valid_score(*run.score) && !valid_score(*s.score)) ||
       (valid_score(*run.score) == valid_score(*s.score) && *run.score < *s.score))) {
    s.score = run.score;
    if (with_results) s.benchmarks = run.benchmarks;
  }
}

// Every run of the legacy submissions is grouped: sorts them by id, each one's runs by run id,
// gives each its status from its score, and says which `filter` keeps (1) in the result.
std::vector<uint8_t> finish_legacy_groups(std::vector<Submission>& groups, const Filter& filter) {
  std::sort(groups.begin(), groups.end(), [](const Submission& a, const Submission& b) {
    return a.submission_id < b.submission_id;
  });
  std::vector<uint8_t> kept(groups.size(), 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    Submission& s = groups[i];
    if (s.score) {
      s.status = "succeeded";
      s.passed = true;
      s.mode = "leaderboard";
    } else {
      s.status = "failed";
    }
    std::sort(s.runs.begin(), s.runs.end(),
              [](const Run& a, const Run& b) { return a.run_id < b.run_id; });
    kept[i] = matches(filter, s) ? 1 : 0;
  }
  return kept;
}

// The code pass of a legacy load with a prepare step: the code column of `code_specs` read at the
// kept submissions' first rows (`wanted`: file row and index in `groups`, in file order), and each
// submission prepared on the worker that decoded it.
void legacy_code_pass(parquet::FileReader& reader, const std::vector<ColumnSpec>& code_specs,
                      const std::vector<std::pair<int64_t, size_t>>& wanted,
                      std::vector<Submission>& groups, const LoadOptions& options,
                      LoadStats& stats) {
  parquet::RowRanges rows;
  for (const auto& w : wanted) parquet::append_range(rows, w.first, w.first + 1);
  std::vector<ColumnSpec> code_only(code_specs.size());
  code_only[L_CODE] = code_specs[L_CODE];
  const bool measure_code = options.with_code_bytes && !options.with_code;
  FileLoad code_file(reader, code_only, load_threads(options),
                     measure_code ? kBatchRows : kBatchRowsWithCode);
  if (measure_code) code_file.measure_code_size(L_CODE);
  if (options.prepare) code_file.threads_for_any_work();
  code_file.only_rows(std::move(rows));
  LoadStats ignored;
  code_file.run(
      nullptr, /*filter_rows=*/false, ignored,
      [&](const std::vector<Column>& load, parquet::ScanBatch& batch) {
        CodeRepairCounts counts;
        batch.result = counts;
        if (batch.num_rows == 0) return;
        const std::vector<int64_t> file_rows = batch.file_rows();
        auto w = std::lower_bound(wanted.begin(), wanted.end(),
                                  std::pair<int64_t, size_t>{file_rows.front(), 0});
        std::string scratch;  // a repaired code handed to prepare
        for (size_t r = 0; r < batch.num_rows; ++r, ++w) {
          if (w == wanted.end() || w->first != file_rows[r]) {
            throw std::logic_error("legacy code pass: a row that was not asked for");
          }
          Submission& s = groups[w->second];  // each group on one worker only
          std::optional<std::string_view> code;
          if (options.code_wanted && !options.code_wanted(s)) {
            // Its code is not decoded (the submission is complete: the rule may use its score).
          } else if (options.with_code) {
            code = decode_view(load[L_CODE], r, counts, scratch);
          } else {
            s.code_bytes = decoded_size(load[L_CODE], r, counts);
          }
          options.prepare(s, code);
        }
        batch.result = counts;
        code_file.release(batch, L_CODE);
      },
      [&](parquet::ScanBatch& batch) {
        stats.code += std::any_cast<CodeRepairCounts&>(batch.result);
      });
}

// A legacy load's prepare step without a code pass: every group is in memory by now, so prepare
// runs on all the kept ones at once, on the load's threads, in blocks.
void prepare_legacy_groups(std::vector<Submission>& groups, const std::vector<uint8_t>& kept,
                           const LoadOptions& options) {
  constexpr size_t kBlock = 64;
  const size_t blocks = (groups.size() + kBlock - 1) / kBlock;
  const int threads = load_threads(options);
  std::unique_ptr<ThreadPool> pool =
      threads > 1 && blocks > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  run_all(pool.get(), blocks, [&](size_t block) {
    const size_t end = std::min(groups.size(), (block + 1) * kBlock);
    for (size_t i = block * kBlock; i < end; ++i) {
      if (kept[i] != 0) options.prepare(groups[i], std::nullopt);
    }
  });
}

void load_legacy(parquet::FileReader& reader, const parquet::RowFilter* filter,
                 const LoadOptions& options, const SubmissionSink& sink, LoadStats& stats) {
  std::vector<BenchmarkLeaf> bench_leaves;
  std::vector<ColumnSpec> specs = legacy_specs(reader.schema(), options, bench_leaves);
  const LeaderboardDirectory& leaderboards = leaderboards_of(options);
  LegacyRunners runners(leaderboards);
  Respelled respelled;

  const Filter submission_level = first_run_conditions(options.filter);

  std::vector<Submission> groups;
  std::unordered_map<int64_t, size_t> by_id;  // submission_id -> index in groups, or npos
  ProblemNames problem_of(leaderboards);
  constexpr size_t kRejected = static_cast<size_t>(-1);

  // Runs are grouped on the calling thread, in file order (the first run seen of a submission
  // gives its fields and code). The code is decoded on the workers, for the first row of each
  // submission in a batch (which the first run seen of it is): decoding, and the first touch of
  // the memory it fills, would otherwise be the calling thread's.
  //
  // With a prepare step the code is read in a second pass instead: the first pass groups the runs
  // without the code column and notes each submission's first row; the second reads the code of
  // those rows of the kept submissions only and prepares each on the worker that decoded it. The
  // code of every submission is then never in memory at once (prepare usually drops it).
  const bool code_pass = options.prepare && (options.with_code || options.with_code_bytes);
  const std::vector<ColumnSpec> code_specs = specs;  // the code column as the code pass reads it
  if (code_pass) specs[L_CODE].name = "";
  const bool reads_code = !code_pass && (options.with_code || options.with_code_bytes);
  std::vector<int64_t> first_rows;  // with code_pass: the file row of groups[i]'s first run
  const bool measure_code = options.with_code_bytes && !options.with_code;
  FileLoad file(reader, specs, load_threads(options),
                reads_code && !measure_code ? kBatchRowsWithCode : kBatchRows);
  if (reads_code && measure_code) file.measure_code_size(L_CODE);
  const auto decode_batch = [&](const std::vector<Column>& load, parquet::ScanBatch& batch) {
    if (reads_code)
      batch.result = decode_first_codes(load, batch.num_rows, submission_level, leaderboards,
                                        options.with_code);
  };
  file.run(filter, /*filter_rows=*/true, stats, decode_batch, [&](parquet::ScanBatch& batch) {
    const std::vector<Column> load = file.columns(batch);
    auto* decoded = std::any_cast<std::vector<DecodedCode>>(&batch.result);
    const std::vector<int64_t> file_rows = code_pass ? batch.file_rows() : std::vector<int64_t>();
    for (size_t r = 0; r < batch.num_rows; ++r) {
      const int64_t id = *load[L_SUBMISSION_ID].id(r);
      auto [it, inserted] = by_id.try_emplace(id, kRejected);
      if (inserted) {
        Submission s = submission_fields(load, r, id, problem_of);
        if (!matches(submission_level, s)) continue;
        if (reads_code && decoded != nullptr && (*decoded)[r].decoded) {
          DecodedCode& d = (*decoded)[r];
          s.code = std::move(d.code);
          s.code_bytes = d.bytes;
          stats.code += d.counts;
        } else if (options.with_code) {
          s.code = decode(load[L_CODE], r, stats.code);
        } else if (options.with_code_bytes) {
          s.code_bytes = decoded_size(load[L_CODE], r, stats.code);
        }
        it->second = groups.size();
        if (code_pass) first_rows.push_back(file_rows[r]);
        groups.push_back(std::move(s));
      }
      if (it->second == kRejected) continue;
      Submission& s = groups[it->second];
      if (!s.runner) {
        s.runner = shown_runner(
            runners.of(s.leaderboard_id, load[L_CODE + 1].text(r), load[L_CODE + 2].id(r)),
            respelled);
      }
      Run run = legacy_run(load, r, bench_leaves);
      take_if_best(s, run, options.with_results);
      if (options.with_runs) {
        run.start_time = load[L_RUN_START].time_us(r);
        run.end_time = load[L_RUN_END].time_us(r);
        s.runs.push_back(std::move(run));
      }
    }
  });

  const std::vector<uint8_t> kept = finish_legacy_groups(groups, options.filter);
  if (code_pass) {
    // The first row of each kept submission, in file order, and its index in (sorted) groups.
    std::vector<std::pair<int64_t, size_t>> wanted;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (kept[i] != 0) wanted.emplace_back(first_rows[by_id.at(groups[i].submission_id)], i);
    }
    std::sort(wanted.begin(), wanted.end());
    if (!wanted.empty()) legacy_code_pass(reader, code_specs, wanted, groups, options, stats);
  } else if (options.prepare) {
    // The sink still gets them in submission_id order.
    prepare_legacy_groups(groups, kept, options);
  }
  respelled.add_to(stats);
  RowChecks checks(reader.name(), stats, /*repeats=*/false, 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    if (kept[i] != 0 && checks.admit(groups[i])) sink(std::move(groups[i]));
  }
}

bool is_submission_file(const DataFile& f) {
  return f.family == SchemaFamily::FLAT || f.family == SchemaFamily::LEGACY_RUNS;
}

// `options` with the folder's leaderboards (LeaderboardDirectory::of) when one of `files` is a
// legacy file and the options carry none: only legacy files name leaderboards by id alone.
LoadOptions with_leaderboards(const DataDir& dir, const std::vector<const DataFile*>& files,
                              const LoadOptions& options) {
  LoadOptions out = options;
  const bool legacy = std::any_of(files.begin(), files.end(), [](const DataFile* f) {
    return f->family == SchemaFamily::LEGACY_RUNS;
  });
  if (legacy && !out.leaderboards) {
    out.leaderboards = std::make_shared<const LeaderboardDirectory>(LeaderboardDirectory::of(dir));
  }
  return out;
}

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

void LoadStats::respell_unknown_runner(std::string& runner) {
  const std::string_view trimmed = trim_blanks(runner);
  const std::string key = lower_case(trimmed);
  const std::string* shown = nullptr;
  for (const auto& [known, spelling] : unknown_runners_) {
    if (known == key) shown = &spelling;
  }
  if (shown == nullptr) shown = &unknown_runners_.emplace_back(key, std::string(trimmed)).second;
  if (*shown == runner) return;
  ++respelled_runners;
  if (respellings.size() < kMaxNamed &&
      std::find(respellings.begin(), respellings.end(), runner) == respellings.end()) {
    respellings.push_back(runner);
  }
  runner = *shown;
}

void load_file(parquet::FileReader& reader, SchemaFamily family, const LoadOptions& options,
               const SubmissionSink& sink, LoadStats& stats) {
  if (family != SchemaFamily::FLAT && family != SchemaFamily::LEGACY_RUNS) return;
  try {
    std::optional<std::vector<parquet::Predicate>> predicates = pushdown_predicates(
        options.filter, family, reader.schema(), options.with_runs, leaderboards_of(options));
    if (!predicates) {
      ++stats.files_skipped;
      return;
    }
    ++stats.files_read;
    std::optional<parquet::RowFilter> filter;
    if (!predicates->empty()) filter.emplace(reader.schema(), std::move(*predicates));
    const parquet::RowFilter* f = filter ? &*filter : nullptr;
    if (family == SchemaFamily::FLAT) {
      load_flat(reader, f, options, sink, stats);
    } else {
      load_legacy(reader, f, options, sink, stats);
    }
  } catch (Error& error) {
    error.locate_file(reader.name());
    throw;
  }
}

std::vector<const DataFile*> files_for(const DataDir& dir) {
  const bool has_amd_all = std::any_of(dir.files.begin(), dir.files.end(), [](const DataFile& f) {
    return f.config != nullptr && f.config->name == "amd_submissions";
  });
  std::vector<const DataFile*> out;
  for (const DataFile& f : dir.files) {
    if (!is_submission_file(f)) continue;
    if (f.config != nullptr && f.config->name == "amd_successful_submissions" && has_amd_all) {
      continue;
    }
    out.push_back(&f);
  }
  // Registry configs first: when a file repeats another's submissions (a dedup output saved beside
  // its source), the published config's rows are the ones kept.
  std::stable_partition(out.begin(), out.end(),
                        [](const DataFile* f) { return f->config != nullptr; });
  return out;
}

std::vector<const DataFile*> files_for(const DataDir& dir, const Filter& filter) {
  std::vector<const DataFile*> out;
  const std::vector<const DataFile*> files = files_for(dir);
  const LoadOptions options = with_leaderboards(dir, files, LoadOptions{});
  for (const DataFile* f : files) {
    auto reader = parquet::FileReader::open(dir.open(*f));
    try {
      std::optional<std::vector<parquet::Predicate>> predicates = pushdown_predicates(
          filter, f->family, reader->schema(), /*runs_wanted=*/true, leaderboards_of(options));
      if (!predicates) continue;
      bool may_hold = predicates->empty();
      if (!may_hold) {
        const parquet::RowFilter rows(reader->schema(), std::move(*predicates));
        for (int g = 0; g < reader->num_row_groups() && !may_hold; ++g) {
          may_hold = !rows.row_group_ranges(*reader, g).empty();
        }
      }
      if (may_hold) out.push_back(f);
    } catch (Error& error) {
      error.locate_file(f->path);
      throw;
    }
  }
  return out;
}

std::vector<FileContents> read_contents(const DataDir& dir, const ContentsOptions& given) {
  std::vector<const DataFile*> files;  // every one, amd_successful_submissions too
  for (const DataFile& f : dir.files) {
    if (is_submission_file(f)) files.push_back(&f);
  }
  LoadOptions options;
  options.threads = given.threads;
  options.with_details = false;
  options.leaderboards = given.leaderboards;
  options = with_leaderboards(dir, files, options);
  std::vector<FileContents> out;
  uint64_t rows = 0;
  for (const DataFile* f : files) {
    std::map<std::tuple<int64_t, std::string, std::optional<std::string>>, uint64_t> counts;
    FileContents contents;
    contents.file = f;
    try {
      LoadStats stats;
      auto reader = parquet::FileReader::open(dir.open(*f));
      load_file(
          *reader, f->family, options,
          [&](Submission&& s) {
            ++counts[{s.leaderboard_id, std::move(s.problem_name), std::move(s.runner)}];
            if (given.progress && ++rows % 4096 == 0)
              given.progress({.stage = {}, .done = rows, .total = 0, .unit = "rows"});
          },
          stats);
    } catch (const NetworkError&) {
      throw;
    } catch (Error& error) {
      error.locate_file(f->path);
      if (!given.keep_errors) throw;
      contents.error = error.what();
      counts.clear();
    }
    for (auto& [key, n] : counts) {
      contents.entries.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
    }
    out.push_back(std::move(contents));
  }
  if (given.progress) given.progress({.stage = {}, .done = rows, .total = 0, .unit = "rows"});
  return out;
}

std::vector<std::string> problems_in(const std::vector<FileContents>& contents) {
  std::set<std::string> all;
  for (const FileContents& c : contents) {
    for (const FileContents::Entry& e : c.entries) all.insert(e.problem_name);
  }
  return {all.begin(), all.end()};
}

void require_problem(const DataDir& dir, const std::string& problem) {
  const std::vector<std::string> names = problems_in(read_contents(dir));
  if (std::binary_search(names.begin(), names.end(), problem)) return;
  std::string known;
  for (const std::string& name : names) {
    if (!known.empty()) known += ", ";
    known += name;
  }
  // A registry config that would hold it, which the folder lacks (a partial snapshot, say).
  std::string absent;
  for (const LeaderboardRef& ref : find_problem(problem)) {
    const bool present = std::any_of(dir.files.begin(), dir.files.end(),
                                     [&](const DataFile& f) { return f.config == ref.config; });
    if (present || absent.find(ref.config->file) != std::string::npos) continue;
    absent += (absent.empty() ? "; the registry places it in " : " or ") + ref.config->file;
    if (!dir.pull_command.empty()) {
      std::string pull = dir.pull_command;
      const size_t at = pull.find("{config}");
      if (at != std::string::npos) pull.replace(at, 8, ref.config->name);
      absent += " (`" + pull + "` fetches it)";
    }
  }
  if (!absent.empty()) absent += ", which the folder lacks";
  throw UsageError("unknown problem '" + problem + "' in " + dir.path + absent +
                   did_you_mean(problem, names) +
                   " (its problems: " + (known.empty() ? "none" : known) + ")");
}

namespace {

// The submissions the files of one load have given so far, by (submission_id, runner), with the
// index of the file that gave each first.
class SeenSubmissions {
 public:
  // The file that gave `s` before, or -1 (and `s` is remembered as given by `file`).
  int earlier_file(const Submission& s, int file) {
    const auto [it, inserted] = seen_.try_emplace(runners_.key(s.submission_id, s.runner), file);
    return inserted || it->second == file ? -1 : it->second;
  }

 private:
  RunnerNumbers runners_;
  std::unordered_map<RowKey, int, RowKeyHash> seen_;
};

}  // namespace

void load_dir_files(const DataDir& dir, const LoadOptions& given, const FileSubmissionSink& sink,
                    LoadStats& stats) {
  const std::vector<const DataFile*> files = files_for(dir);
  const LoadOptions options = with_leaderboards(dir, files, given);
  SeenSubmissions seen;  // used only when there is more than one file
  for (size_t i = 0; i < files.size(); ++i) {
    const DataFile* f = files[i];
    auto counting = std::make_unique<CountingFile>(dir.open(*f));
    CountingFile* counter = counting.get();
    auto reader = parquet::FileReader::open(std::move(counting));
    if (files.size() == 1) {
      load_file(
          *reader, f->family, options, [&](Submission&& s) { sink(std::move(s), *f); }, stats);
    } else {
      std::map<int, uint64_t> repeated;  // earlier file -> rows dropped
      load_file(
          *reader, f->family, options,
          [&](Submission&& s) {
            const int earlier = seen.earlier_file(s, static_cast<int>(i));
            if (earlier >= 0) {
              ++repeated[earlier];
            } else {
              sink(std::move(s), *f);
            }
          },
          stats);
      for (const auto& [earlier, rows] : repeated) {
        stats.repeats.push_back({f->path, files[static_cast<size_t>(earlier)]->path, rows});
      }
    }
    stats.bytes_read += counter->bytes_read();
  }
}

void load_dir(const DataDir& dir, const LoadOptions& options, const SubmissionSink& sink,
              LoadStats& stats) {
  bool any = false;
  if (dir.resident && dir.resident->serves(dir, options)) {
    dir.resident->load(
        dir, options,
        [&](Submission&& s) {
          any = true;
          sink(std::move(s));
        },
        stats);
  } else {
    load_dir_files(
        dir, options,
        [&](Submission&& s, const DataFile&) {
          any = true;
          sink(std::move(s));
        },
        stats);
  }
  if (!any && options.filter.problem) require_problem(dir, *options.filter.problem);
}

}  // namespace kbdata::dataset
