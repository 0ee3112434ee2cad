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
  // competition problem uses geom).
  return {{398, "amd-identity", RankingBy::GEOM, ""},
          {399, "amd-fp8-mm", RankingBy::GEOM, ""},
          {430, "amd-mixture-of-experts", RankingBy::GEOM, ""},
          {463, "amd-mla-decode", RankingBy::GEOM, ""},
          {563, "amd-all2all", RankingBy::GEOM, ""},
          {564, "amd-gemm-rs", RankingBy::GEOM, ""},
          {565, "amd-ag-gemm", RankingBy::GEOM, ""}};
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
               {{595, "nvfp4_gemv", RankingBy::GEOM, ""},
                {597, "nvfp4_gemm", RankingBy::GEOM, ""},
                {598, "nvfp4_dual_gemm", RankingBy::GEOM, kNote598},
                {697, "modal_nvfp4_dual_gemm", RankingBy::GEOM, ""},
                {730, "nvfp4_group_gemm", RankingBy::GEOM, ""}},
               {"B200"},
               "NVIDIA NVFP4 competition on B200",
               ""});
  c.push_back({"amd_1_1m_competition",
               "amd_1_1m_competition_submissions.parquet",
               SchemaFamily::FLAT,
               {{763, "amd-mxfp4-mm", RankingBy::GEOM, ""},
                {764, "amd-moe-mxfp4", RankingBy::GEOM, ""},
                {765, "amd-mixed-mla", RankingBy::GEOM, ""}},
               {"MI355X"},
               "AMD $1.1M competition on MI355X",
               ""});
  c.push_back({"trimul_submissions",
               "trimul_submissions.parquet",
               SchemaFamily::FLAT,
               {{496, "trimul", RankingBy::GEOM, kNoteTrimul}},
               {"A100", "H100", "B200", "MI300"},
               "triangle multiplication on mixed hardware",
               kNoteTrimul});
  c.push_back({"helion_b200_nebius",
               "helion_b200_nebius_submissions.parquet",
               SchemaFamily::FLAT,
               {{766, "causal_conv1d", RankingBy::GEOM, kNoteHelion},
                {767, "fp8_quant", RankingBy::GEOM, kNoteHelion},
                {768, "gated_deltanet_chunk_fwd_h", RankingBy::GEOM, kNoteHelion},
                {769, "gated_deltanet_chunk_fwd_o", RankingBy::GEOM, kNoteHelion},
                {770, "gated_deltanet_recompute_w_u", RankingBy::GEOM, kNoteHelion}},
               {"B200_Nebius"},
               "Helion kernels on B200 (Nebius)",
               kNoteHelion});
  std::vector<LeaderboardInfo> pmpp;
  for (const char* name : {"conv2d", "grayscale", "histogram", "matmul", "prefixsum", "sort",
                           "vectoradd", "vectorsum"}) {
    pmpp.push_back({std::nullopt, name, RankingBy::LAST, ""});
  }
  c.push_back({"pmpp_v2_submissions",
               "pmpp_v2_submissions.parquet",
               SchemaFamily::FLAT,
               pmpp,
               {"T4", "L4", "A100", "H100", "B200"},
               "PMPP practice problems (ranking_by last; may not be deduplicated)",
               "practice problems; may not be deduplicated"});
  c.push_back({"linalg_submissions",
               "linalg_submissions.parquet",
               SchemaFamily::FLAT,
               {{774, "qr_v2", RankingBy::GEOM, ""},
                {775, "eigh", RankingBy::GEOM, ""},
                {776, "cholesky", RankingBy::GEOM, ""}},
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
