#include "query/submissions.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "techniques/techniques.h"

namespace kbdata::query {
namespace {

bool has(const std::vector<std::string>& fields, const char* name) {
  return std::find(fields.begin(), fields.end(), name) != fields.end();
}

}  // namespace

std::vector<std::string> submissions_fields(const SubmissionsRequest& request) {
  std::vector<std::string> fields = request.columns;
  if (fields.empty()) {
    if (request.for_people) {
      fields = {"submission_id", "problem_name", "user_id", "user_name", "submission_time",
                "status",        "score",        "passed",  "runner"};
    } else {
      fields = report::submission_fields();
      fields.pop_back();  // code
    }
  }
  if (request.with_code && !has(fields, "code")) fields.push_back("code");
  return fields;
}

dataset::LoadOptions submissions_load(const SubmissionsRequest& request,
                                      const std::vector<std::string>& fields) {
  dataset::LoadOptions load;
  load.threads = request.threads;
  load.filter = request.filter;
  const bool code_field = has(fields, "code");
  load.with_code = code_field;
  load.with_results = has(fields, "benchmarks");
  if (report::wants_techniques(fields)) {
    // What the code uses, worked out on the load's threads; the code itself kept only when shown.
    load.with_code = true;
    load.prepare = [code_field](dataset::Submission& s, std::optional<std::string_view> code) {
      if (!code) return;
      s.prepared = techniques::classify(*code, s.file_name.value_or(""));
      if (code_field) s.code = std::string(*code);
    };
  }
  return load;
}

SubmissionsQuery::SubmissionsQuery(const std::vector<std::string>& fields, int64_t batch_rows,
                                   int64_t batch_code_bytes)
    : cells_(fields),
      table_(cells_.columns(), report::submissions_rule(), batch_rows),
      batch_rows_(batch_rows),
      batch_code_bytes_(batch_code_bytes) {}

void SubmissionsQuery::add(const dataset::Submission& s) {
  cells_.fill(s, row_);
  table_.add_row(std::move(row_), s.leaderboard_id, s.problem_name);
  row_ = {};
  ++open_rows_;
  if (s.code) open_code_bytes_ += static_cast<int64_t>(s.code->size());
  if (open_rows_ >= batch_rows_ || open_code_bytes_ >= batch_code_bytes_) {
    table_.end_batch();  // sealed already when the table reached batch_rows itself
    open_rows_ = 0;
    open_code_bytes_ = 0;
  }
}

}  // namespace kbdata::query
