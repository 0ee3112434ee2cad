#include "dataset/filter.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "common/calendar.h"
#include "common/error.h"
#include "dataset/epochs.h"
#include "dataset/hardware.h"
#include "dataset/leaderboard_directory.h"
#include "parquet/schema.h"

namespace kbdata::dataset {
namespace {

using parquet::CompareOp;
using parquet::Predicate;

const parquet::ColumnDescriptor* top_level(const parquet::Schema& schema, const char* name) {
  std::optional<int> leaf = schema.find_leaf(name);
  if (!leaf) return nullptr;
  const auto& column = schema.leaves()[static_cast<size_t>(*leaf)];
  return column.max_rep == 0 && column.path.size() == 1 ? &column : nullptr;
}

// A column whose stored integers are the values themselves, compared as signed: a predicate on
// it means what it says. DECIMAL (scaled) and unsigned 64-bit columns are tested after loading.
bool is_integer_column(const parquet::ColumnDescriptor& c) {
  using Kind = parquet::LogicalType::Kind;
  if (c.physical != parquet::PhysicalType::INT32 && c.physical != parquet::PhysicalType::INT64) {
    return false;
  }
  if (c.logical.kind == Kind::NONE) return true;
  return c.logical.kind == Kind::INTEGER && (c.logical.is_signed || c.logical.bit_width < 32);
}

bool is_boolean_column(const parquet::ColumnDescriptor* c) {
  return c != nullptr && c->physical == parquet::PhysicalType::BOOLEAN;
}

// The stored value of µs time `micros` in the column's unit, or nullopt when the column's time
// cannot be compared as an integer (INT96, or no INT64).
std::optional<int64_t> time_literal(const parquet::ColumnDescriptor& c, int64_t micros,
                                    bool round_up) {
  if (c.physical != parquet::PhysicalType::INT64 ||
      c.logical.kind != parquet::LogicalType::Kind::TIMESTAMP) {
    return std::nullopt;
  }
  switch (c.logical.unit) {
    case parquet::TimeUnit::MILLIS: {
      int64_t v = micros / 1000;
      if (micros % 1000 != 0 && ((micros > 0) == round_up)) v += micros > 0 ? 1 : -1;
      return v;
    }
    case parquet::TimeUnit::MICROS:
      return micros;
    case parquet::TimeUnit::NANOS:
      if (micros > std::numeric_limits<int64_t>::max() / 1000 ||
          micros < std::numeric_limits<int64_t>::min() / 1000) {
        return std::nullopt;
      }
      return micros * 1000;
  }
  return std::nullopt;
}

void add_time_predicates(const Filter& f, const parquet::Schema& schema,
                         std::vector<Predicate>& out) {
  const auto* c = top_level(schema, "submission_time");
  if (c == nullptr) return;
  // Bounds are widened to whole stored units: pruning must stay conservative, the exact test
  // happens on the model.
  if (f.since) {
    if (auto v = time_literal(*c, *f.since, false))
      out.push_back({c->dotted_path, CompareOp::GE, *v, {}});
  }
  if (f.until) {
    if (auto v = time_literal(*c, *f.until, true))
      out.push_back({c->dotted_path, CompareOp::LE, *v, {}});
  }
}

std::optional<int64_t> parse_int(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

void RowSet::insert(int64_t submission_id, const std::optional<std::string>& runner) {
  rows_.insert(runners_.key(submission_id, runner));
}

bool RowSet::contains(int64_t submission_id, const std::optional<std::string>& runner) const {
  const std::optional<int32_t> number = runners_.find(runner);
  return number && rows_.contains(RowKey{submission_id, *number});
}

bool Filter::empty() const {
  return !submission_id && !problem && !leaderboard_id && !user_id && !user_name && !user &&
         !runner && !passed_only && !scored_only && !since && !until && !epoch && !excluded;
}

bool matches(const Filter& f, const Submission& s) {
  if (f.submission_id && s.submission_id != *f.submission_id) return false;
  if (f.problem && s.problem_name != *f.problem) return false;
  if (f.leaderboard_id && s.leaderboard_id != *f.leaderboard_id) return false;
  if (f.user_id && s.user_id != *f.user_id) return false;
  if (f.user_name && s.user_name != *f.user_name) return false;
  if (f.user && s.user_id != *f.user && s.user_name != *f.user) return false;
  if (f.runner && !(s.runner && same_runner(*s.runner, *f.runner))) return false;
  if (f.passed_only && s.passed != true) return false;
  if (f.scored_only && !s.score) return false;
  if (f.since && s.submission_time < *f.since) return false;
  if (f.until && s.submission_time >= *f.until) return false;
  if (f.epoch && epoch_of(s.leaderboard_id, s.submission_time) != *f.epoch) return false;
  if (f.excluded && f.excluded->contains(s.submission_id, s.runner)) return false;
  return true;
}

std::optional<std::vector<Predicate>> pushdown_predicates(
    const Filter& f, SchemaFamily family, const parquet::Schema& schema, bool runs_wanted,
    const LeaderboardDirectory& leaderboards) {
  std::vector<Predicate> out;
  auto add_int = [&](const char* column, int64_t value) {
    if (const auto* c = top_level(schema, column); c != nullptr && is_integer_column(*c)) {
      out.push_back({column, CompareOp::EQ, value, {}});
    }
  };
  auto add_string = [&](const char* column, const std::string& value) {
    // A value with U+FFFD may be the repair of stored bytes that are not UTF-8 (the model shows
    // strings repaired, docs/data-model.md), which statistics compare unrepaired: not pushed down.
    // Without one, only the same stored bytes can give it.
    if (value.find("\xEF\xBF\xBD") != std::string::npos) return;
    if (const auto* c = top_level(schema, column);
        c != nullptr && c->physical == parquet::PhysicalType::BYTE_ARRAY) {
      out.push_back({column, CompareOp::EQ, value, {}});
    }
  };
  if (f.submission_id) add_int("submission_id", *f.submission_id);
  if (f.leaderboard_id) add_int("leaderboard_id", *f.leaderboard_id);
  add_time_predicates(f, schema, out);

  if (family == SchemaFamily::FLAT) {
    if (f.problem) add_string("problem_name", *f.problem);
    if (f.user_id) add_string("user_id", *f.user_id);
    if (f.user_name) add_string("user_name", *f.user_name);
    if (f.passed_only && is_boolean_column(top_level(schema, "passed"))) {
      out.push_back({"passed", CompareOp::EQ, true, {}});
    }
    if (f.scored_only && top_level(schema, "score") != nullptr) {
      out.push_back({"score", CompareOp::IS_NOT_NULL, {}, {}});
    }
    return out;
  }
  if (family != SchemaFamily::LEGACY_RUNS) return std::nullopt;

  // Legacy: no user name; problems through the ids the folder's leaderboards file, the registry
  // or an unnamed leaderboard's spelling give the name (leaderboard_directory.h), whatever config
  // the registry puts them in (a legacy-format file may hold any leaderboard).
  if (f.user_name) return std::nullopt;
  if (f.problem) {
    const std::vector<int64_t> ids = leaderboards.ids_named(*f.problem);
    if (ids.empty()) return std::nullopt;
    const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
    if (const auto* c = top_level(schema, "leaderboard_id");
        c != nullptr && is_integer_column(*c)) {
      out.push_back({"leaderboard_id", CompareOp::BETWEEN, *lo, *hi});
    }
  }
  if (f.user_id) {
    const auto* c = top_level(schema, "user_id");
    if (c != nullptr && is_integer_column(*c)) {
      std::optional<int64_t> id = parse_int(*f.user_id);
      if (!id) return std::nullopt;  // an anonymised id is an integer
      out.push_back({"user_id", CompareOp::EQ, *id, {}});
    } else {
      add_string("user_id", *f.user_id);
    }
  }
  // Only leaderboard runs that passed with a score decide a submission's score and passed; its
  // other runs add nothing but the run list, so they may be pruned when the runs are not wanted.
  if ((f.passed_only || f.scored_only) && !runs_wanted) {
    if (is_boolean_column(top_level(schema, "run_passed"))) {
      out.push_back({"run_passed", CompareOp::EQ, true, {}});
    }
    if (const auto* c = top_level(schema, "run_mode");
        c != nullptr && c->physical == parquet::PhysicalType::BYTE_ARRAY) {
      out.push_back({"run_mode", CompareOp::EQ, std::string("leaderboard"), {}});
    }
    if (top_level(schema, "run_score") != nullptr) {
      out.push_back({"run_score", CompareOp::IS_NOT_NULL, {}, {}});
    }
  }
  return out;
}

int64_t to_micros(int64_t value, parquet::TimeUnit unit) {
  switch (unit) {
    case parquet::TimeUnit::MILLIS:
      if (value > std::numeric_limits<int64_t>::max() / 1000)
        return std::numeric_limits<int64_t>::max();
      if (value < std::numeric_limits<int64_t>::min() / 1000)
        return std::numeric_limits<int64_t>::min();
      return value * 1000;
    case parquet::TimeUnit::MICROS:
      return value;
    case parquet::TimeUnit::NANOS: {
      int64_t q = value / 1000;
      if (value % 1000 < 0) --q;  // floor
      return q;
    }
  }
  return value;
}

int64_t int96_to_micros(const uint8_t* bytes) {
  int64_t nanos = 0;
  uint32_t julian = 0;
  std::memcpy(&nanos, bytes, 8);
  std::memcpy(&julian, bytes + 8, 4);
  return (static_cast<int64_t>(julian) - 2440588) * 86'400'000'000LL + nanos / 1000;
}

namespace {

bool digits(const std::string& s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

int64_t parse_utc_time(const std::string& text, const std::string& what) {
  auto fail = [&]() -> int64_t {
    throw UsageError(what + " '" + text +
                     "' is not a UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.ffffff]][Z])");
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t micros = 0;
  if (!digits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day)) {
    return fail();
  }
  size_t pos = 10;
  if (pos < text.size() && (text[pos] == 'T' || text[pos] == ' ')) {
    if (!digits(text, pos + 1, 2, hour) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !digits(text, pos + 4, 2, minute)) {
      return fail();
    }
    pos += 6;
    if (pos < text.size() && text[pos] == ':') {
      if (!digits(text, pos + 1, 2, second)) return fail();
      pos += 3;
      if (pos < text.size() && text[pos] == '.') {
        ++pos;
        size_t start = pos;
        int64_t scale = 100000;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
          micros += (text[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (pos == start) return fail();
      }
    }
  }
  if (pos < text.size() && text[pos] == 'Z') ++pos;
  if (pos != text.size()) return fail();
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] ||
      (month == 2 && day == 29 && !leap) || hour > 23 || minute > 59 || second > 59) {
    return fail();
  }
  int64_t days = days_from_civil(year, month, day);
  return ((days * 24 + hour) * 60 + minute) * 60'000'000LL + second * 1'000'000LL + micros;
}

}  // namespace kbdata::dataset
