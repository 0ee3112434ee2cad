// Kernel source text for synthetic submissions: plausible Python (Triton, inline CUDA C++, inline
// HIP, CuTe DSL, plain PyTorch) and CUDA C++ files, 2-20 KB each, as a pure function of a code key.
//
// A lineage is one kernel a user keeps editing: its structure (blocks, identifiers, tuning tables,
// size) comes from the lineage seed; a version changes a few tuning constants and the note line at
// the top. So two versions of a lineage are near-duplicates (5-byte-shingle Jaccard at least
// 0.8), two lineages share little beyond boilerplate, and the same key always gives the same bytes
// (code_id identity is exact code identity). Writers regenerate text from keys while streaming, so
// no code is kept in memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::synth {

enum class Language { TRITON, CUDA_INLINE, HIP_INLINE, CUTE_DSL, PYTORCH, CUDA_FILE };

[[nodiscard]] const char* to_string(Language language);

struct CodeKey {
  uint64_t lineage = 0;
  uint32_t version = 0;
  Language language = Language::TRITON;
  friend bool operator==(const CodeKey&, const CodeKey&) = default;
};

// The cheat planted in a code, if any: about 1 distinct code in 200 (a pure function of the key,
// so every row with that code agrees) ends with one of these known kinds of cheat, appended to
// the honest kernel (docs/synth.md). The audit must find them (docs/audit.md).
enum class PlantedCheat {
  NONE,
  CALL_COUNTER_REPLAY,  // counts calls, returns the output of an earlier call (NVFP4 group GEMM)
  TIMER_PATCH,          // replaces time.perf_counter
  RESULT_PIPE,          // writes benchmark lines into the harness's result pipe
  IDENTITY_CACHE,       // caches outputs by the inputs' data_ptr and replays them
  UNSYNCED_STREAM,      // runs the kernel on a side stream nobody waits for
  OBFUSCATED_EXEC,      // exec of base64-decoded text
  FAKE_PRINT,           // a CUDA file printing a benchmark line
};
[[nodiscard]] PlantedCheat planted_cheat(const CodeKey& key);
[[nodiscard]] const char* to_string(PlantedCheat cheat);

// Synth's own record of what a generated code holds, by the names of docs/techniques.md: the
// technology of its hot loop, and the feature tags, kernels, autotune configurations and shape
// branches of the templates it wrote (`kbdata techniques` is tested against it).
struct CodeRecord {
  std::string_view language;
  std::vector<std::string_view> features;  // each once, sorted
  uint32_t kernels = 0;
  uint32_t autotune_configs = 0;
  uint32_t shape_branches = 0;
};

// Appends the source of `key`, written for problem `problem`, to `out`; with `record`, also what
// it wrote there.
void generate_code(const CodeKey& key, std::string_view problem, std::string& out,
                   CodeRecord* record = nullptr);

// The reference implementation of a problem (leaderboards.parquet `reference`): plain PyTorch, or
// CUDA C++ for a "cu" leaderboard.
[[nodiscard]] std::string reference_code(std::string_view problem, bool cuda, uint64_t seed);

}  // namespace kbdata::synth
