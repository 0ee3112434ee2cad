#include "dedup/flat_output.h"

#include <cstring>

#include "common/text.h"
#include "dataset/flat_schema.h"

namespace kbdata::dedup {
namespace {

using enum dataset::FlatColumn;

constexpr size_t kBatchRows = 1024;
constexpr size_t kBatchBytes = size_t{8} << 20;  // code dominates; keep a batch to a few MB

parquet::SchemaElement int64_element(const char* name) {
  parquet::SchemaElement e;
  e.name = name;
  e.repetition_type = parquet::Repetition::REQUIRED;
  e.type = parquet::PhysicalType::INT64;
  return e;
}

std::vector<parquet::SchemaElement> output_schema(ExtraColumns extra) {
  std::vector<parquet::SchemaElement> schema = dataset::flat_schema();
  if (extra == ExtraColumns::NONE) return schema;
  schema.push_back(int64_element("cluster_id"));
  if (extra == ExtraColumns::CLUSTER_SIZE) {
    schema.push_back(int64_element("cluster_size"));
  } else {
    parquet::SchemaElement kept;
    kept.name = "kept";
    kept.repetition_type = parquet::Repetition::REQUIRED;
    kept.type = parquet::PhysicalType::BOOLEAN;
    schema.push_back(kept);
  }
  schema[0].num_children = static_cast<int32_t>(schema.size() - 1);
  return schema;
}

void put_fixed(parquet::ColumnBatch& b, const void* value, size_t width, bool optional) {
  const auto* bytes = static_cast<const uint8_t*>(value);
  b.values.data.insert(b.values.data.end(), bytes, bytes + width);
  ++b.values.count;
  if (optional) b.def_levels.push_back(1);
}

void put_null(parquet::ColumnBatch& b) { b.def_levels.push_back(0); }

// Returns the bytes added.
size_t put_text(parquet::ColumnBatch& b, const std::optional<std::string>& text) {
  if (!text) {
    put_null(b);
    return 0;
  }
  std::string repaired;
  if (!is_valid_utf8(*text)) append_utf8_repaired(repaired, *text);
  const std::string& v = repaired.empty() ? *text : repaired;
  b.values.append_binary({reinterpret_cast<const uint8_t*>(v.data()), v.size()});
  b.def_levels.push_back(1);
  return v.size();
}

}  // namespace

FlatRowWriter::FlatRowWriter(const std::string& path, ExtraColumns extra,
                             std::vector<parquet::KeyValue> key_value_metadata)
    : extra_(extra), file_(path) {
  parquet::WriterOptions options;
  options.key_value_metadata = std::move(key_value_metadata);
  options.created_by = "kbdata";
  for (const auto& kv : options.key_value_metadata) {
    if (kv.key == "kbdata.version" && kv.value) options.created_by = "kbdata version " + *kv.value;
  }
  writer_ = std::make_unique<parquet::FileWriter>(file_, output_schema(extra), options);
  for (const auto& leaf : writer_->schema().leaves()) {
    parquet::ColumnBatch b;
    b.values = parquet::ValueBuffer::for_type(leaf.physical, leaf.type_length);
    batches_.push_back(std::move(b));
  }
}

FlatRowWriter::~FlatRowWriter() = default;

void FlatRowWriter::write(const dataset::Submission& s, const ClusterFields& cluster) {
  for (auto& b : batches_) ++b.num_levels;
  put_fixed(batches_[SUBMISSION_ID], &s.submission_id, 8, true);
  put_fixed(batches_[LEADERBOARD_ID], &s.leaderboard_id, 8, true);
  batch_bytes_ += put_text(batches_[PROBLEM_NAME], s.problem_name);
  batch_bytes_ += put_text(batches_[USER_ID], s.user_id);
  batch_bytes_ += put_text(batches_[USER_NAME], s.user_name);
  put_fixed(batches_[CODE_ID], &s.code_id, 8, true);
  batch_bytes_ += put_text(batches_[FILE_NAME], s.file_name);
  put_fixed(batches_[SUBMISSION_TIME], &s.submission_time, 8, true);
  batch_bytes_ += put_text(batches_[STATUS], s.status);
  if (s.score) {
    put_fixed(batches_[SCORE], &*s.score, 8, true);
  } else {
    put_null(batches_[SCORE]);
  }
  if (s.passed) {
    const uint8_t v = *s.passed ? 1 : 0;
    put_fixed(batches_[PASSED], &v, 1, true);
  } else {
    put_null(batches_[PASSED]);
  }
  batch_bytes_ += put_text(batches_[MODE], s.mode);
  batch_bytes_ += put_text(batches_[RUNNER], s.runner);
  batch_bytes_ += put_text(batches_[CODE], s.code);
  if (extra_ != ExtraColumns::NONE) {
    put_fixed(batches_[dataset::kFlatColumnCount], &cluster.cluster_id, 8, false);
    if (extra_ == ExtraColumns::CLUSTER_SIZE) {
      put_fixed(batches_[dataset::kFlatColumnCount + 1], &cluster.cluster_size, 8, false);
    } else {
      const uint8_t v = cluster.kept ? 1 : 0;
      put_fixed(batches_[dataset::kFlatColumnCount + 1], &v, 1, false);
    }
  }
  ++rows_;
  if (batches_[0].num_levels >= kBatchRows || batch_bytes_ >= kBatchBytes) flush();
}

void FlatRowWriter::flush() {
  if (batches_[0].num_levels > 0) writer_->write(batches_);
  for (auto& b : batches_) b.clear();
  batch_bytes_ = 0;
}

void FlatRowWriter::finish() {
  flush();
  writer_->close();
  file_.commit();
}

}  // namespace kbdata::dedup
