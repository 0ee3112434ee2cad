#include "synth/leaderboards_writer.h"

#include <algorithm>
#include <vector>

#include "dataset/leaderboards_schema.h"
#include "synth/code_generator.h"

namespace kbdata::synth {

std::pair<int64_t, uint64_t> write_leaderboards(const std::string& path,
                                                std::span<const LeaderboardModel> models,
                                                uint64_t seed, const OutputOptions& options) {
  std::vector<const LeaderboardModel*> sorted;
  for (const LeaderboardModel& m : models) {
    bool seen = std::any_of(sorted.begin(), sorted.end(),
                            [&](const LeaderboardModel* o) { return o->id == m.id; });
    if (!seen) sorted.push_back(&m);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const LeaderboardModel* a, const LeaderboardModel* b) { return a->id < b->id; });
  using dataset::LeaderboardColumn;
  using dataset::leaf;
  parquet::RowFileWriter out(path, dataset::leaderboards_fields(), options.writer,
                             options.provenance);
  auto text = [&](LeaderboardColumn column, std::string_view v) {
    out.column<std::string_view>(leaf(column)).value(v);
  };
  for (const LeaderboardModel* m : sorted) {
    out.column<int64_t>(leaf(LeaderboardColumn::ID)).value(m->id);
    text(LeaderboardColumn::NAME, m->name);
    out.column<int64_t>(leaf(LeaderboardColumn::DEADLINE)).value(m->deadline_us);
    text(LeaderboardColumn::LANG, m->cuda_file ? "cu" : "py");
    std::string description = "Implement " + m->name + " as fast as you can on " +
                              m->runners.front() +
                              ". Your kernel is checked against the reference and ranked by the "
                              "geometric mean of the benchmark shapes' mean times.";
    if (!m->note.empty()) description += " Note: " + m->note + ".";
    text(LeaderboardColumn::DESCRIPTION, description);
    text(LeaderboardColumn::REFERENCE, reference_code(m->name, m->cuda_file, seed));
    parquet::BytesBuilder& gpus = out.column<std::string_view>(leaf(LeaderboardColumn::GPU_TYPES));
    gpus.begin_list();
    for (const std::string& runner : m->runners) gpus.value(runner);
    gpus.end_list();
    out.end_row();
  }
  out.commit();
  return {out.rows(), out.bytes_written()};
}

}  // namespace kbdata::synth
