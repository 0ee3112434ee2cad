// Throughput of the code analyses (the audit's rules, the techniques' classification) over
// real-shaped code, one stage at a time, on one core: a diagnostic of where `kbdata audit`'s and
// `kbdata techniques`' own work goes (their figures against `kbdata stats` are
// bench/analysis_bench.sh's, of the commands).
//
//   BM_Regions          python_regions: the strings and comments of each Python code
//   BM_Tokens           tokenize_python: every token of each code (the full pass's lexer)
//   BM_PythonModel/0    source::PythonModel: tokens, statements, scopes and bindings of each code
//   BM_PythonModel/1    the same and every expression's facts (what the full pass's rules read)
//   BM_Screen           screen_python: the screen in front of the code rules
//   BM_AuditSubmission  audit_submission: every rule, as `kbdata audit` runs it per row
//   BM_VocabularyHyperscan
//                       a bound, not kbdata: Hyperscan (a dedicated multi-pattern matcher) finding
//                       the screen's vocabulary (screen_vocabulary) in each code, as literals, each
//                       word reported once per code, nothing checked; less than any audit of these
//                       rules must do (docs/BENCHMARKS.md, "the bound")
//   BM_Classify         techniques::classify: kbdata techniques' work per row
//   BM_TechniquesVocabularyHyperscan
//                       the same bound for the techniques: their rules' words (vocabulary())
//
// Each reports bytes_per_second over the codes' bytes. The codes are the first $KBDATA_AUDIT_ROWS
// (default 20000) submissions with code of the folder $KBDATA_BENCH_DIR (default
// build/bench-data/nvfp4, the full synthetic NVFP4 file; bench/README.md), held in memory.
#include <benchmark/benchmark.h>
#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "audit/audit.h"
#include "audit/code_rules.h"
#include "audit/code_screen.h"
#include "audit/folder_audit.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "source/embedded.h"
#include "source/python_model.h"
#include "source/python_regions.h"
#include "source/tokens.h"
#include "techniques/techniques.h"

namespace {

using kbdata::audit::CodeContext;

struct Corpus {
  std::vector<kbdata::dataset::Submission> rows;
  std::vector<CodeContext> contexts;
  kbdata::audit::References references;
  int64_t bytes = 0;
};

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus out;
    const std::string dir =
        env_or("KBDATA_BENCH_DIR", std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/nvfp4");
    const size_t limit = std::stoul(env_or("KBDATA_AUDIT_ROWS", "20000"));
    const kbdata::dataset::DataDir data = kbdata::dataset::scan_data_dir(dir);
    out.references = kbdata::audit::folder_references(data);
    kbdata::dataset::LoadOptions load;
    load.threads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));  // as the command's default
    load.with_code = true;
    kbdata::dataset::LoadStats stats;
    kbdata::dataset::load_dir(
        data, load,
        [&](kbdata::dataset::Submission&& s) {
          if (out.rows.size() >= limit || !s.code) return;
          out.bytes += static_cast<int64_t>(s.code->size());
          out.rows.push_back(std::move(s));
        },
        stats);
    for (const auto& s : out.rows) {
      CodeContext context;
      context.cpp_file = kbdata::source::is_cpp_source(*s.code, s.file_name.value_or(""));
      if (const auto* r = out.references.find(s)) {
        context.reference_float_bits = r->float_bits;
        context.reference_normalised = &r->normalised;
      }
      out.contexts.push_back(context);
    }
    size_t full = 0;
    size_t cpp = 0;
    size_t types_only = 0;
    size_t cpp_rules = 0;
    size_t cpp_bytes = 0;
    size_t kernel_tail = 0;
    std::map<std::string, size_t> reasons;
    for (size_t i = 0; i < out.rows.size(); ++i) {
      if (out.contexts[i].cpp_file) {
        ++cpp;
        continue;
      }
      const auto screen = kbdata::audit::screen_python(*out.rows[i].code, out.contexts[i]);
      full += screen.full ? 1 : 0;
      if (screen.full) {
        // By reason and by the reference's width (unknown: precision-downgrade's other form).
        const auto& bits = out.contexts[i].reference_float_bits;
        ++reasons[screen.reason + (bits ? ", reference of " + std::to_string(*bits) + " bits"
                                        : ", reference unknown")];
      }
      if (screen.custom_kernel) kernel_tail += out.rows[i].code->size() - screen.custom_kernel->pos;
      for (const auto& source : screen.cpp) {
        (source.types_only ? types_only : cpp_rules) += 1;
        cpp_bytes += kbdata::source::token_body(*out.rows[i].code, source.string).size();
      }
    }
    std::fprintf(stderr,
                 "%zu codes, %lld bytes: %zu C++ files, %zu Python codes to the full pass; "
                 "embedded C++ the screen passes on: %zu sources to the C++ rules, %zu to the "
                 "type rule, %zu bytes; %zu bytes from the custom_kernel lines on\n",
                 out.rows.size(), static_cast<long long>(out.bytes), cpp, full, cpp_rules,
                 types_only, cpp_bytes, kernel_tail);
    for (const auto& [reason, n] : reasons) {
      std::fprintf(stderr, "  to the full pass for %s: %zu\n", reason.c_str(), n);
    }
    return out;
  }();
  return c;
}

void BM_Regions(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& s : c.rows) n += kbdata::source::python_regions(*s.code).size();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

void BM_Screen(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    size_t n = 0;
    for (size_t i = 0; i < c.rows.size(); ++i) {
      if (c.contexts[i].cpp_file) continue;
      n += kbdata::audit::screen_python(*c.rows[i].code, c.contexts[i]).full ? 1 : 0;
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

void BM_AuditSubmission(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& s : c.rows)
      n += kbdata::audit::audit_submission(s, *s.code, c.references).size();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

// The Python lexer over every code (the full pass's first step; the screen's path lexes the
// function custom_kernel only).
void BM_Tokens(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& s : c.rows) n += kbdata::source::tokenize_python(*s.code).size();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

// The Python model of every code: tokens, statements, scopes and bindings (`facts` false), then
// every expression's facts too (what the full pass's rules read).
void BM_PythonModel(benchmark::State& state) {
  const Corpus& c = corpus();
  const bool facts = state.range(0) != 0;
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& s : c.rows) {
      const kbdata::source::PythonModel model(*s.code);
      n += facts ? model.facts().calls.size() : model.statements().size();
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

int count_match(unsigned /*id*/, unsigned long long /*from*/, unsigned long long /*to*/,
                unsigned /*flags*/, void* context) {
  ++*static_cast<size_t*>(context);
  return 0;
}

// The words of `words` found by Hyperscan as literals in every code, each once per code.
void vocabulary_hyperscan(benchmark::State& state, const std::vector<std::string_view>& words) {
  const Corpus& c = corpus();
  std::vector<const char*> texts;
  std::vector<size_t> lengths;
  std::vector<unsigned> flags(words.size(), HS_FLAG_SINGLEMATCH);
  std::vector<unsigned> ids;
  for (std::string_view w : words) {
    texts.push_back(w.data());
    lengths.push_back(w.size());
    ids.push_back(static_cast<unsigned>(ids.size()));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(texts.data(), flags.data(), ids.data(), lengths.data(),
                           static_cast<unsigned>(words.size()), HS_MODE_BLOCK, nullptr, &db,
                           &error) != HS_SUCCESS) {
    const std::string message = error != nullptr ? error->message : "unknown error";
    hs_free_compile_error(error);
    throw std::runtime_error("hyperscan: " + message);
  }
  const std::unique_ptr<hs_database_t, decltype(&hs_free_database)> database(db, hs_free_database);
  hs_scratch_t* raw_scratch = nullptr;
  if (hs_alloc_scratch(db, &raw_scratch) != HS_SUCCESS)
    throw std::runtime_error("hyperscan scratch");
  const std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)> scratch(raw_scratch,
                                                                          hs_free_scratch);
  size_t matches = 0;
  for (auto _ : state) {
    matches = 0;
    for (const auto& s : c.rows) {
      hs_scan(db, s.code->data(), static_cast<unsigned>(s.code->size()), 0, scratch.get(),
              count_match, &matches);
    }
    benchmark::DoNotOptimize(matches);
  }
  state.counters["words"] = static_cast<double>(words.size());
  state.counters["matches"] = static_cast<double>(matches);
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

void BM_VocabularyHyperscan(benchmark::State& state) {
  vocabulary_hyperscan(state, kbdata::audit::screen_vocabulary());
}

void BM_TechniquesVocabularyHyperscan(benchmark::State& state) {
  vocabulary_hyperscan(state, kbdata::techniques::vocabulary());
}

// kbdata techniques' classification of each code, as the command runs it per row.
void BM_Classify(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& s : c.rows) {
      n += kbdata::techniques::classify(*s.code, s.file_name.value_or("")).features;
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}

BENCHMARK(BM_Regions)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tokens)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PythonModel)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Screen)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AuditSubmission)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VocabularyHyperscan)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Classify)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TechniquesVocabularyHyperscan)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  try {
    benchmark::Initialize(&argc, argv);
    corpus();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "audit_bench: %s\n", e.what());
    return 1;
  }
}
