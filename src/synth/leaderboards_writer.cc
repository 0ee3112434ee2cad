#include "synth/leaderboards_writer.h"

#include <algorithm>

#include "synth/code_generator.h"
#include "synth/output_file.h"

namespace kbdata::synth {

std::vector<parquet::SchemaElement> leaderboards_schema() {
  parquet::SchemaElement list = group_element("gpu_types", parquet::Repetition::OPTIONAL, 1);
  parquet::LogicalType t;
  t.kind = parquet::LogicalType::Kind::LIST;
  list.logical_type = t;
  list.converted_type = parquet::ConvertedType::LIST;
  return {root_element(7),
          optional_leaf("id", parquet::PhysicalType::INT64),
          string_leaf("name"),
          timestamp_leaf("deadline", /*utc=*/true),
          string_leaf("lang"),
          string_leaf("description"),
          string_leaf("reference"),
          list,
          group_element("list", parquet::Repetition::REPEATED, 1),
          string_leaf("element")};
}

std::pair<int64_t, uint64_t> write_leaderboards(const std::string& path,
                                                std::span<const LeaderboardModel> models,
                                                uint64_t seed,
                                                const parquet::WriterOptions& options) {
  std::vector<const LeaderboardModel*> sorted;
  for (const LeaderboardModel& m : models) {
    bool seen = std::any_of(sorted.begin(), sorted.end(),
                            [&](const LeaderboardModel* o) { return o->id == m.id; });
    if (!seen) sorted.push_back(&m);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const LeaderboardModel* a, const LeaderboardModel* b) { return a->id < b->id; });
  OutputFile out(path, leaderboards_schema(), options);
  Columns& c = out.columns();
  for (const LeaderboardModel* m : sorted) {
    c.i64(0, m->id);
    c.bytes(1, m->name);
    c.i64(2, m->deadline_us);
    c.bytes(3, m->cuda_file ? "cu" : "py");
    std::string description = "Implement " + m->name + " as fast as you can on " +
                              m->runners.front() +
                              ". Your kernel is checked against the reference and ranked by the "
                              "geometric mean of the benchmark shapes' mean times.";
    if (!m->note.empty()) description += " Note: " + m->note + ".";
    c.bytes(4, description);
    c.bytes(5, reference_code(m->name, m->cuda_file, seed));
    c.string_list(6, m->runners);
    out.row_done();
  }
  uint64_t bytes = out.finish();
  return {out.rows(), bytes};
}

}  // namespace kbdata::synth
