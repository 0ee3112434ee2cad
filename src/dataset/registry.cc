#include "dataset/registry.h"

#include <algorithm>

namespace kbdata::dataset {
namespace {

constexpr const char* kNote598 =
    "598's on-premise measurements became unreliable midway through the competition; 697 (same "
    "problem, on Modal) is the trustworthy one";
constexpr const char* kNoteHelion =
    "measurements on the B200_Nebius runner are fragile; treat rankings as approximate";
constexpr const char* kNoteTrimul = "scores compare only within one runner";

std::vector<LeaderboardInfo> amd_leaderboards() {
  // Ranking rule of the first AMD competition's problems: geometric mean (docs/dataset.md §2: every
  // competition problem uses geom). Single-GPU problems ran on MI300, distributed ones on MI300x8.
  return {{398, "amd-identity", RankingBy::GEOM, "", {"MI300"}},
          {399, "amd-fp8-mm", RankingBy::GEOM, "", {"MI300"}},
          {430, "amd-mixture-of-experts", RankingBy::GEOM, "", {"MI300"}},
          {463, "amd-mla-decode", RankingBy::GEOM, "", {"MI300"}},
          {563, "amd-all2all", RankingBy::GEOM, "", {"MI300x8"}},
          {564, "amd-gemm-rs", RankingBy::GEOM, "", {"MI300x8"}},
          {565, "amd-ag-gemm", RankingBy::GEOM, "", {"MI300x8"}}};
}

std::vector<ConfigInfo> build() {
  std::vector<ConfigInfo> c;
  c.push_back({"amd_submissions",
               "submissions.parquet",
               SchemaFamily::LEGACY_RUNS,
               amd_leaderboards(),
               {"MI300", "MI300x8"},
               "first AMD competition, every run of every submission (legacy per-run schema)",
               ""});
  c.push_back({"amd_successful_submissions",
               "successful_submissions.parquet",
               SchemaFamily::LEGACY_RUNS,
               amd_leaderboards(),
               {"MI300", "MI300x8"},
               "first AMD competition, passing runs only (legacy per-run schema)",
               "passing runs only"});
  c.push_back({"nvidia_nvfp4_submissions",
               "nvidia_nvfp4_submissions.parquet",
               SchemaFamily::FLAT,
               // The on-premise B200 machines are the runner NVIDIA; Modal's are B200.
               {{595, "nvfp4_gemv", RankingBy::GEOM, "", {"NVIDIA"}},
                {597, "nvfp4_gemm", RankingBy::GEOM, "", {"NVIDIA"}},
                {598, "nvfp4_dual_gemm", RankingBy::GEOM, kNote598, {"NVIDIA"}},
                {697, "modal_nvfp4_dual_gemm", RankingBy::GEOM, "", {"B200"}},
                {730, "nvfp4_group_gemm", RankingBy::GEOM, "", {"NVIDIA", "B200"}}},
               {"NVIDIA", "B200"},
               "NVIDIA NVFP4 competition on B200",
               ""});
  c.push_back({"amd_1_1m_competition",
               "amd_1_1m_competition_submissions.parquet",
               SchemaFamily::FLAT,
               {{763, "amd-mxfp4-mm", RankingBy::GEOM, "", {"MI355X"}},
                {764, "amd-moe-mxfp4", RankingBy::GEOM, "", {"MI355X"}},
                {765, "amd-mixed-mla", RankingBy::GEOM, "", {"MI355X"}}},
               {"MI355X"},
               "AMD $1.1M competition on MI355X",
               ""});
  c.push_back({"trimul_submissions",
               "trimul_submissions.parquet",
               SchemaFamily::FLAT,
               {{496, "trimul", RankingBy::GEOM, kNoteTrimul, {"A100", "H100", "B200", "MI300"}}},
               {"A100", "H100", "B200", "MI300"},
               "triangle multiplication on mixed hardware",
               kNoteTrimul});
  c.push_back(
      {"helion_b200_nebius",
       "helion_b200_nebius_submissions.parquet",
       SchemaFamily::FLAT,
       {{766, "causal_conv1d", RankingBy::GEOM, kNoteHelion, {"B200_Nebius"}},
        {767, "fp8_quant", RankingBy::GEOM, kNoteHelion, {"B200_Nebius"}},
        {768, "gated_deltanet_chunk_fwd_h", RankingBy::GEOM, kNoteHelion, {"B200_Nebius"}},
        {769, "gated_deltanet_chunk_fwd_o", RankingBy::GEOM, kNoteHelion, {"B200_Nebius"}},
        {770, "gated_deltanet_recompute_w_u", RankingBy::GEOM, kNoteHelion, {"B200_Nebius"}}},
       {"B200_Nebius"},
       "Helion kernels on B200 (Nebius)",
       kNoteHelion});
  std::vector<LeaderboardInfo> pmpp;
  // The `_v2` is part of the published problem_name.
  for (const char* name : {"conv2d_v2", "grayscale_v2", "histogram_v2", "matmul_v2", "prefixsum_v2",
                           "sort_v2", "vectoradd_v2", "vectorsum_v2"}) {
    pmpp.push_back({std::nullopt, name, RankingBy::LAST, "", {"A100", "B200", "H100", "L4"}});
  }
  c.push_back({"pmpp_v2_submissions",
               "pmpp_v2_submissions.parquet",
               SchemaFamily::FLAT,
               pmpp,
               {"A100", "B200", "H100", "L4"},
               "PMPP practice problems (ranking_by last; may not be deduplicated)",
               "practice problems; may not be deduplicated"});
  c.push_back({"linalg_submissions",
               "linalg_submissions.parquet",
               SchemaFamily::FLAT,
               {{774, "qr_v2", RankingBy::GEOM, "", {"B200"}},
                {775, "eigh", RankingBy::GEOM, "", {"B200"}},
                {776, "cholesky", RankingBy::GEOM, "", {"B200"}}},
               {"B200"},
               "linear algebra problems on B200 (773 qr excluded)",
               ""});
  c.push_back({"leaderboards",
               "leaderboards.parquet",
               SchemaFamily::LEADERBOARDS,
               {},
               {},
               "every leaderboard: name, deadline, language, description, reference code, GPUs",
               ""});
  return c;
}

const std::vector<ConfigInfo>& table() {
  static const std::vector<ConfigInfo> kTable = build();
  return kTable;
}

}  // namespace

std::span<const ConfigInfo> configs() { return table(); }

const ConfigInfo* find_config(std::string_view name) {
  for (const ConfigInfo& c : table()) {
    if (c.name == name || c.file == name) return &c;
  }
  return nullptr;
}

std::vector<LeaderboardRef> find_leaderboard(int64_t id) {
  std::vector<LeaderboardRef> out;
  for (const ConfigInfo& c : table()) {
    for (const LeaderboardInfo& l : c.leaderboards) {
      if (l.id == id) out.push_back({&c, &l});
    }
  }
  return out;
}

std::vector<LeaderboardRef> find_problem(std::string_view name) {
  std::vector<LeaderboardRef> out;
  for (const ConfigInfo& c : table()) {
    for (const LeaderboardInfo& l : c.leaderboards) {
      if (l.name == name) out.push_back({&c, &l});
    }
  }
  return out;
}

std::string_view note_for(int64_t leaderboard_id) {
  for (const LeaderboardRef& ref : find_leaderboard(leaderboard_id)) {
    if (!ref.leaderboard->note.empty()) return ref.leaderboard->note;
  }
  return "";
}

bool is_registered(int64_t leaderboard_id, std::string_view name) {
  if (!find_leaderboard(leaderboard_id).empty()) return true;
  for (const LeaderboardRef& ref : find_problem(name)) {
    if (!ref.leaderboard->id) return true;
  }
  return false;
}

RankingBy ranking_by_of(int64_t leaderboard_id) {
  for (const LeaderboardRef& ref : find_leaderboard(leaderboard_id)) {
    if (ref.leaderboard->ranking_by) return *ref.leaderboard->ranking_by;
  }
  return RankingBy::GEOM;
}

const char* to_string(SchemaFamily family) {
  switch (family) {
    case SchemaFamily::FLAT:
      return "flat";
    case SchemaFamily::LEGACY_RUNS:
      return "legacy per-run";
    case SchemaFamily::LEADERBOARDS:
      return "leaderboards";
  }
  return "?";
}

const char* to_string(RankingBy ranking) {
  switch (ranking) {
    case RankingBy::GEOM:
      return "geom";
    case RankingBy::MEAN:
      return "mean";
    case RankingBy::LAST:
      return "last";
  }
  return "?";
}

}  // namespace kbdata::dataset
