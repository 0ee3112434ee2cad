#include "techniques/techniques.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "source/bytes.h"
#include "source/code_model.h"
#include "source/embedded.h"
#include "source/tokens.h"

namespace kbdata::techniques {

using source::Token;
using source::TokenKind;

namespace {

constexpr std::array<std::string_view, kLanguages> kLanguageNames = {
    "thunderkittens", "cute_dsl",  "helion",  "triton",  "hip",
    "cuda",           "cuda_file", "library", "pytorch", "python"};
constexpr std::array<std::string_view, kFeatures> kFeatureNames = {
    "tensor_cores",        "tma",        "async_copy", "shared_memory", "mbarrier",
    "warp_specialization", "persistent", "fp8",        "fp4",           "autotune",
    "cuda_graphs",         "streams",    "split_k"};

// Whether `s` starts with the literal `prefix`: a compare of known length, inlined.
template <size_t N>
[[gnu::always_inline]] inline bool starts(std::string_view s, const char (&prefix)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), prefix, N - 1) == 0;
}
template <size_t N>
[[gnu::always_inline]] inline bool is(std::string_view s, const char (&word)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), word, N - 1) == 0;
}

// The feature a C++ name sets on its own (docs/techniques.md's C++ names), by its first byte;
// `cuda::barrier` is read where the name's context is known.
std::optional<Feature> cpp_name_feature(std::string_view w) {
  switch (w[0]) {
    case 'm':
      if (is(w, "mma_sync") || is(w, "make_tiled_mma")) return Feature::TENSOR_CORES;
      if (is(w, "make_tma_copy")) return Feature::TMA;
      if (is(w, "memcpy_async")) return Feature::ASYNC_COPY;
      if (is(w, "multiProcessorCount")) return Feature::PERSISTENT;
      break;
    case 'w':
      if (is(w, "wmma")) return Feature::TENSOR_CORES;
      if (is(w, "warpgroup_reg_alloc") || is(w, "warpgroup_reg_dealloc")) {
        return Feature::WARP_SPECIALIZATION;
      }
      break;
    case 'M':
      if (is(w, "MMA_Atom")) return Feature::TENSOR_CORES;
      break;
    case 'H':
      // hipDataType's (hipBLASLt's operands).
      if (starts(w, "HIP_R_8F_E4M3") || starts(w, "HIP_R_8F_E5M2")) return Feature::FP8;
      if (starts(w, "HIP_R_4F_E2M1")) return Feature::FP4;
      break;
    case 'T':
      if (is(w, "TiledMMA")) return Feature::TENSOR_CORES;
      break;
    case 'U':
      if (is(w, "UMMA")) return Feature::TENSOR_CORES;
      break;
    case 'S':
      if (starts(w, "SM80_16x8") || starts(w, "SM90_64x") || starts(w, "SM100_MMA")) {
        return Feature::TENSOR_CORES;
      }
      if (starts(w, "SM90_TMA_") || starts(w, "SM100_TMA_")) return Feature::TMA;
      if (starts(w, "SM80_CP_ASYNC")) return Feature::ASYNC_COPY;
      if (is(w, "SPLIT_K") || is(w, "SPLITK")) return Feature::SPLIT_K;
      break;
    case '_':
      if (starts(w, "__builtin_amdgcn_mfma_") || starts(w, "__builtin_amdgcn_wmma_") ||
          starts(w, "__builtin_amdgcn_smfmac_")) {
        return Feature::TENSOR_CORES;
      }
      if (is(w, "__pipeline_memcpy_async")) return Feature::ASYNC_COPY;
      if (is(w, "__shared__")) return Feature::SHARED_MEMORY;
      if (starts(w, "__nv_fp8_e8m0") || starts(w, "__nv_fp8x2_e8m0")) return std::nullopt;
      if (starts(w, "__nv_fp8") || starts(w, "__hip_fp8") || starts(w, "__amd_fp8")) {
        return Feature::FP8;
      }
      if (starts(w, "__nv_fp4") || starts(w, "__hip_fp4") || starts(w, "__amd_fp4")) {
        return Feature::FP4;
      }
      break;
    case 'C':
      // cudaDataType's fp8 and fp4 (cuBLASLt's operands).
      if (starts(w, "CUDA_R_8F_E4M3") || starts(w, "CUDA_R_8F_E5M2")) return Feature::FP8;
      if (starts(w, "CUDA_R_4F_E2M1")) return Feature::FP4;
      if (is(w, "CUDAGraph")) return Feature::CUDA_GRAPHS;
      if (is(w, "CUtensorMap")) return Feature::TMA;
      if (is(w, "ClusterBarrier") || is(w, "ClusterTransactionBarrier")) return Feature::MBARRIER;
      break;
    case 'c':
      if (is(w, "cuTensorMapEncodeTiled")) return Feature::TMA;
      if (is(w, "cp_async_wait")) return Feature::ASYNC_COPY;
      if (is(w, "cudaDevAttrMultiProcessorCount")) return Feature::PERSISTENT;
      if (is(w, "cudaGraphLaunch") || is(w, "cudaStreamBeginCapture") ||
          is(w, "cudaGraphInstantiate") || is(w, "cudaGraphInstantiateWithFlags") ||
          is(w, "cudaGraphExecUpdate") || is(w, "cuGraphLaunch") ||
          is(w, "cudaStreamBeginCaptureToGraph")) {
        return Feature::CUDA_GRAPHS;
      }
      if (starts(w, "cudaStreamCreate")) return Feature::STREAMS;
      break;
    case 'h':
      if (is(w, "hipDeviceAttributeMultiprocessorCount")) return Feature::PERSISTENT;
      if (is(w, "hipGraphLaunch") || is(w, "hipStreamBeginCapture") ||
          is(w, "hipGraphInstantiate") || is(w, "hipGraphExecUpdate")) {
        return Feature::CUDA_GRAPHS;
      }
      if (starts(w, "hipStreamCreate")) return Feature::STREAMS;
      break;
    case 'f':
      if (is(w, "float_e4m3_t") || is(w, "float_e5m2_t") || starts(w, "fp8_e4m3") ||
          starts(w, "fp8_e5m2") || starts(w, "fp8e4m3") || starts(w, "fp8e5m2")) {
        return Feature::FP8;
      }
      if (is(w, "float_e2m1_t") || starts(w, "fp4_e2m1") || starts(w, "fp4e2m1")) {
        return Feature::FP4;
      }
      break;
    case 'F':
      if (starts(w, "Float8_e4m3") || starts(w, "Float8_e5m2")) return Feature::FP8;
      if (starts(w, "Float4_e2m1")) return Feature::FP4;
      break;
    case 'k':
      if (starts(w, "kFloat8_e4m3") || starts(w, "kFloat8_e5m2")) return Feature::FP8;
      if (starts(w, "kFloat4_e2m1")) return Feature::FP4;
      break;
    case 'g':
      if (is(w, "getStreamFromPool")) return Feature::STREAMS;
      break;
    case 's':
      if (is(w, "split_k") || is(w, "splitk")) return Feature::SPLIT_K;
      break;
    case 'n':
      if (is(w, "num_splits")) return Feature::SPLIT_K;
      break;
    case 'N':
      if (is(w, "NUM_SPLITS")) return Feature::SPLIT_K;
      break;
    default:
      break;
  }
  if (w.ends_with("TileScheduler")) return Feature::PERSISTENT;
  return std::nullopt;
}

// A table of the bytes some name of a rule starts with: most names of a code start with another
// one and are passed over without a comparison.
struct FirstBytes {
  constexpr explicit FirstBytes(std::string_view bytes) {
    for (char c : bytes) seen[static_cast<unsigned char>(c)] = true;
  }
  [[nodiscard]] constexpr bool operator()(std::string_view w) const {
    return !w.empty() && seen[static_cast<unsigned char>(w[0])];
  }
  std::array<bool, 256> seen{};
};
// read_cpp's names (include, kittens, hip*, __*, cublas, asm, if, mma_sync, wmma, MMA_Atom,
// TiledMMA, make_*, UMMA, SM*, CU*, cu*, memcpy_async, cp_async_wait, Cluster*, barrier,
// warpgroup_*, cudaDevAttr*, multiProcessorCount, float_e*, fp*, cudaGraph*, cudaStream*,
// getStreamFromPool, split_k's names, CUDA_R_* and HIP_R_* data types) but the TileScheduler
// suffix.
constexpr FirstBytes kCppFirstBytes("ikh_camwMTUSCHbfgsnN");
// PythonReader::by_parts's names.
constexpr FirstBytes kPythonPartBytes("SsnNmTC");

// The names split_k reads, in Python and C++ alike.
bool split_k_name(std::string_view w) {
  return w == "SPLIT_K" || w == "split_k" || w == "splitk" || w == "SPLITK" || w == "num_splits" ||
         w == "NUM_SPLITS";
}

// The lines covered by tokens given in text order (each starting at or after the one before): a
// token covers its first line and, a string, the lines it runs across.
class LineSet {
 public:
  void add(std::string_view text, const Token& t) {
    uint32_t last = t.line;
    if (t.kind == TokenKind::STRING) {
      last += static_cast<uint32_t>(std::count(text.begin() + t.begin, text.begin() + t.end, '\n'));
    }
    if (last <= last_) return;
    count_ += last - std::max(t.line - 1, last_);
    last_ = last;
  }
  [[nodiscard]] uint32_t count() const { return count_; }

 private:
  uint32_t last_ = 0;  // the last line counted
  uint32_t count_ = 0;
};

// Whether a shape is compared with an integer literal in tokens [from, to) of `text`: a comparison
// operator, an integer NUMBER and a shape (`.shape`, `.size(`, or one of the shape names).
bool compares_shape(std::string_view text, const Token* toks, size_t from, size_t to) {
  bool comparison = false;
  bool integer = false;
  bool shape = false;
  for (size_t k = from; k < to; ++k) {
    const Token& t = toks[k];
    const std::string_view s = source::token_text(text, t);
    if (t.kind == TokenKind::OP) {
      comparison =
          comparison || s == "==" || s == "!=" || s == "<" || s == "<=" || s == ">" || s == ">=";
    } else if (t.kind == TokenKind::NUMBER) {
      integer = integer || std::all_of(s.begin(), s.end(), [](char c) {
                  return (c >= '0' && c <= '9') || c == '_' || c == '\'';
                });
    } else if (t.kind == TokenKind::NAME) {
      const bool after_dot = k > from && toks[k - 1].kind == TokenKind::OP &&
                             source::token_text(text, toks[k - 1]) == ".";
      if (after_dot) {
        shape = shape || s == "shape" ||
                (s == "size" && k + 1 < to && source::token_text(text, toks[k + 1]) == "(");
      } else {
        shape = shape || s == "M" || s == "N" || s == "K" || s == "m" || s == "n" || s == "k" ||
                s == "B" || s == "H" || s == "D" || s == "S" || s == "seq_len" || s == "batch" ||
                s == "num_tokens";
      }
    }
  }
  return comparison && integer && shape;
}

// The instructions of a PTX text (an asm string's body): the dotted name at its start and after
// each `;` or line break (a real one or a `\n` escape), past labels and predicates.
template <typename Fn>
void ptx_instructions(std::string_view body, Fn&& fn) {
  size_t i = 0;
  while (i < body.size()) {
    // Skip separators and blanks: ; { } whitespace, \n \t escapes, a predicate @p / @!p.
    while (i < body.size()) {
      const char c = body[i];
      if (c == ';' || c == '{' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
      } else if (c == '\\' && i + 1 < body.size()) {
        i += 2;
      } else if (c == '@') {
        while (i < body.size() && body[i] != ' ' && body[i] != '\t') ++i;
      } else {
        break;
      }
    }
    size_t e = i;
    while (e < body.size() && (source::is_ident(body[e]) || body[e] == '.')) ++e;
    if (e > i && e < body.size() && body[e] == ':' &&
        (e + 1 == body.size() || body[e + 1] != ':')) {  // a label, not a state space's ::
      i = e + 1;
      continue;
    }
    if (e > i) fn(body.substr(i, e - i));
    // To the end of this instruction.
    while (e < body.size() && body[e] != ';' && body[e] != '\n' &&
           !(body[e] == '\\' && e + 1 < body.size() && body[e + 1] == 'n')) {
      ++e;
    }
    i = std::max(e, i + 1);
  }
}

// The C++ of one embedded source or file: features, languages, kernels, shape branches.
struct CppFacts {
  bool hip = false;
  bool thunderkittens = false;
  bool global_kernel = false;
  bool launch = false;
  bool library = false;
  uint32_t kernels = 0;
};

// The features the PTX of an asm statement's string uses: the types of a whole instruction
// (operands and qualifiers after `::` included), then its instructions.
void ptx_features(std::string_view ptx, Techniques& out) {
  for (std::string_view type : {".e4m3", ".e5m2"}) {
    if (ptx.find(type) != std::string_view::npos) out.add(Feature::FP8);
  }
  for (std::string_view type : {".e2m1", "kind::mxf4", ".ue4m3"}) {
    if (ptx.find(type) != std::string_view::npos) out.add(Feature::FP4);
  }
  ptx_instructions(ptx, [&](std::string_view ins) {
    if (ins == "mma" || starts(ins, "mma.") || starts(ins, "wgmma.") ||
        starts(ins, "tcgen05.mma")) {
      out.add(Feature::TENSOR_CORES);
    } else if (starts(ins, "cp.async.bulk.tensor")) {
      out.add(Feature::TMA);
    } else if (starts(ins, "cp.async.") && !starts(ins, "cp.async.bulk")) {
      out.add(Feature::ASYNC_COPY);
    } else if (ins == "mbarrier" || starts(ins, "mbarrier.")) {
      out.add(Feature::MBARRIER);
    } else if (starts(ins, "setmaxnreg")) {
      out.add(Feature::WARP_SPECIALIZATION);
    }
  });
}

void read_cpp(std::string_view text, const std::vector<Token>& all, Techniques& out,
              CppFacts& facts, LineSet* kernel_lines) {
  // The tokens hold no comments (the code model drops them).
  const std::vector<Token>& toks = all;
  if (kernel_lines != nullptr) {
    for (const Token& t : all) kernel_lines->add(text, t);
  }
  const auto txt = [&](size_t k) {
    return k < toks.size() ? source::token_text(text, toks[k]) : std::string_view();
  };
  const auto op = [&](size_t k, std::string_view s) {
    return k < toks.size() && source::token_is(text, toks[k], TokenKind::OP, s);
  };
  for (size_t k = 0; k < toks.size(); ++k) {
    const Token& t = toks[k];
    if (t.kind == TokenKind::STRING) {
      const std::string_view body = source::token_body(text, t);
      if (body.find("kittens.cuh") != std::string_view::npos && k >= 1 && txt(k - 1) == "include") {
        facts.thunderkittens = true;
      }
      continue;
    }
    if (t.kind == TokenKind::OP) {
      // A launch, kernel<<<grid, block>>>: << then < (nothing else spells that in C++).
      if (op(k, "<<") && op(k + 1, "<")) facts.launch = true;
      continue;
    }
    if (t.kind != TokenKind::NAME) continue;
    const std::string_view w = txt(k);
    if (!kCppFirstBytes(w) && !w.ends_with("TileScheduler")) continue;
    // Preprocessor includes: #include <hip/...>, "kittens.cuh".
    if (w == "include" && k >= 1 && op(k - 1, "#")) {
      if (op(k + 1, "<") && txt(k + 2) == "hip" && op(k + 3, "/")) facts.hip = true;
      continue;
    }
    if (w == "kittens" && (op(k + 1, "::") || (k >= 1 && txt(k - 1) == "namespace"))) {
      facts.thunderkittens = true;
    }
    if (starts(w, "hip") && w.size() > 3 && w[3] >= 'A' && w[3] <= 'Z' && op(k + 1, "(")) {
      facts.hip = true;
    }
    if (starts(w, "__builtin_amdgcn_")) {
      facts.hip = true;
      if (w.find("_fp8") != std::string_view::npos || w.find("_bf8") != std::string_view::npos) {
        out.add(Feature::FP8);
      }
      if (w.find("fp4") != std::string_view::npos) out.add(Feature::FP4);
    }
    if (starts(w, "cublas") || starts(w, "hipblas")) facts.library = true;
    if (w == "__global__") {
      // A definition: its parameter list is followed by a body before any `;`.
      size_t j = k + 1;
      while (j < toks.size() && !op(j, "{") && !op(j, ";")) ++j;
      if (op(j, "{")) {
        ++facts.kernels;
        facts.global_kernel = true;
      }
    }
    if ((w == "asm" || w == "__asm__" || w == "__asm") &&
        (op(k + 1, "(") || (txt(k + 1) == "volatile" && op(k + 2, "(")) ||
         (txt(k + 1) == "__volatile__" && op(k + 2, "(")))) {
      const size_t open = op(k + 1, "(") ? k + 1 : k + 2;
      const uint16_t depth = toks[open].depth;
      for (size_t j = open + 1; j < toks.size(); ++j) {
        if (toks[j].kind == TokenKind::OP && toks[j].depth == depth && txt(j) == ")") break;
        if (toks[j].kind != TokenKind::STRING) continue;
        const std::string_view ptx = source::token_body(text, toks[j]);
        ptx_features(ptx, out);
      }
      continue;
    }
    if (w == "if" && (op(k + 1, "(") || (txt(k + 1) == "constexpr" && op(k + 2, "(")))) {
      const size_t open = op(k + 1, "(") ? k + 1 : k + 2;
      const uint16_t depth = toks[open].depth;
      size_t close = open + 1;
      while (close < toks.size() && !(toks[close].kind == TokenKind::OP &&
                                      toks[close].depth == depth && txt(close) == ")")) {
        ++close;
      }
      if (compares_shape(text, toks.data(), open + 1, close)) ++out.shape_branches;
      continue;
    }
    if (const std::optional<Feature> f = cpp_name_feature(w)) {
      out.add(*f);
    } else if (is(w, "barrier") && k >= 2 && op(k - 1, "::") && txt(k - 2) == "cuda") {
      out.add(Feature::MBARRIER);
    }
  }
}

// Adds the languages one C++ text (an embedded source, or a file when `file`) makes present.
void add_cpp_languages(const CppFacts& facts, bool file, Techniques& out) {
  if (facts.thunderkittens) out.add(Language::THUNDERKITTENS);
  if (facts.library) out.add(Language::LIBRARY);
  if (file) {
    out.add(facts.hip ? Language::HIP : Language::CUDA_FILE);
  } else if (facts.hip) {
    out.add(Language::HIP);
  } else if (facts.global_kernel || facts.launch) {
    out.add(Language::CUDA);
  }
}

// The fp8 and fp4 a name's last part says (a dtype of any library: torch.float8_e4m3fn,
// aiter's dtypes.fp8, cutlass.Float4E2M1FN, tl.float8e4nv, ...).
std::optional<Feature> dtype_feature(std::string_view last) {
  if (starts(last, "float8") || starts(last, "Float8") || starts(last, "fp8") ||
      starts(last, "e4m3") || starts(last, "e5m2")) {
    return Feature::FP8;
  }
  if (starts(last, "float4") || starts(last, "Float4") || starts(last, "fp4") ||
      starts(last, "e2m1")) {
    return Feature::FP4;
  }
  return std::nullopt;
}

// An order of names that compares their bytes only when their lengths agree.
bool shorter_first(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

// The Python side, read through the code model: imports, decorators, dotted names resolved,
// keyword arguments, shape branches.
class PythonReader {
 public:
  PythonReader(const source::PythonModel& py, Techniques& out) : py_(py), out_(out) {
    bound_.reserve(py.bindings().size());
    for (const source::Binding& b : py.bindings()) bound_.push_back(b.name);
    std::sort(bound_.begin(), bound_.end(), shorter_first);
    bound_.erase(std::unique(bound_.begin(), bound_.end()), bound_.end());
  }

  void run() {
    for (const std::string& m : py_.imported_modules()) {
      if (m == "torch" || starts(m, "torch.")) out_.add(Language::PYTORCH);
      if (m == "aiter" || starts(m, "aiter.") || m == "hipblaslt" || starts(m, "hipblaslt.") ||
          m == "cuda.compute" || starts(m, "cuda.compute.")) {
        out_.add(Language::LIBRARY);
      }
    }
    const auto& sts = py_.statements();
    for (uint32_t i = 0; i < sts.size(); ++i) {
      const source::Statement& st = sts[i];
      if (st.kind == source::StatementKind::DECORATOR) decorator(i);
      if (st.kind == source::StatementKind::IF || st.kind == source::StatementKind::ELIF) {
        if (compares_shape(py_.text(), py_.tokens().data(), st.begin + 1, st.colon)) {
          ++out_.shape_branches;
        }
      }
      if (st.kind == source::StatementKind::DEF && st.scope == 0 &&
          py_.name(st.begin + 1) == "custom_kernel") {
        entry_ = true;
      }
    }
    if (py_.function_named("custom_kernel")) entry_ = true;
    uint32_t st = 0;  // the statement of token k
    for (uint32_t k = 0; k < py_.size(); ++k) {
      while (st + 1 < sts.size() && sts[st + 1].begin <= k) ++st;
      const Token& t = py_.tokens()[k];
      if (t.kind != TokenKind::NEWLINE) lines_.add(py_.text(), t);
      if (t.kind == TokenKind::STRING) {
        // A string that names a library loaded through ctypes.
        const std::string_view body = source::token_body(py_.text(), t);
        if (body.find("libcublas") != std::string_view::npos ||
            body.find("libhipblas") != std::string_view::npos) {
          out_.add(Language::LIBRARY);
        }
        continue;
      }
      if (t.kind != TokenKind::NAME || (k > 0 && py_.op(k - 1, "."))) continue;
      const std::string_view w = py_.name(k);
      if (w == "warp_specialize" && py_.op(k + 1, "=") && t.depth > 0) {
        out_.add(Feature::WARP_SPECIALIZATION);
      }
      // The dotted name from here: its parts are whole tokens; only a name bound in the code (an
      // import, an alias) or a builtin is resolved.
      uint32_t end = k + 1;
      std::string_view last = w;
      while (py_.op(end, ".") && py_.is_name(end + 1)) {
        last = py_.name(end + 1);
        end += 2;
      }
      if (kPythonPartBytes(w) || kPythonPartBytes(last)) by_parts(w, last);
      // A CUDA runtime or library function called through ctypes (lib.cudaGraphLaunch(...)).
      if (end > k + 1 && kCppFirstBytes(last)) {
        if (const std::optional<Feature> f = cpp_name_feature(last)) out_.add(*f);
        if (starts(last, "cublas") || starts(last, "hipblas")) out_.add(Language::LIBRARY);
        if (starts(last, "cuLaunchKernel") || starts(last, "cuModuleLoad")) {
          out_.add(Language::CUDA);
        }
      }
      // Resolved only where by_resolved can read it: a name of its last part (an alias's own
      // definition holds the name, so every alias is read there), or a builtin that makes a
      // name from a string.
      const bool builtin = w == "getattr" || w == "__import__";
      if ((builtin || resolved_last(last)) &&
          (builtin || std::binary_search(bound_.begin(), bound_.end(), w, shorter_first))) {
        const source::PythonModel::Dotted d = py_.dotted(k, st);
        if (!d.path.empty()) by_resolved(d.path, d.last, d.end);
      }
      k = end - 1;
    }
  }

  [[nodiscard]] const LineSet& lines() const { return lines_; }
  // Whether the code defines the harness's entry point, custom_kernel.
  [[nodiscard]] bool defines_entry() const { return entry_; }

 private:
  void decorator(uint32_t i) {
    const source::Statement& st = py_.statements()[i];
    const uint32_t b = st.begin + 1;
    uint32_t e = b;
    while (e < st.end && !py_.op(e, "(")) ++e;
    const source::Value v = py_.eval(b, e, st.scope, i);
    std::string path;
    v.each([&](const source::Value& x) {
      if (path.empty() && x.kind == source::Value::Kind::OBJECT) path = x.text;
    });
    if (path == "triton.jit") {
      out_.add(Language::TRITON);
      ++out_.kernels;
    } else if (path == "triton.autotune") {
      out_.add(Feature::AUTOTUNE);
      if (e < st.end) {
        const uint32_t close = py_.closing(e);
        for (uint32_t j = e + 1; j < close; ++j) {
          if (!py_.is_name(j) || py_.op(j - 1, ".")) continue;
          const source::PythonModel::Dotted c = py_.dotted(j);
          if (c.path == "triton.Config" && py_.op(c.end, "(")) ++out_.autotune_configs;
          j = c.end - 1;
        }
      }
    } else if (path == "cutlass.cute.kernel") {
      out_.add(Language::CUTE_DSL);
      ++out_.kernels;
    } else if (path == "cutlass.cute.jit") {
      out_.add(Language::CUTE_DSL);
    } else if (path == "helion.kernel") {
      out_.add(Language::HELION);
      ++out_.kernels;
      if (e < st.end) helion_configs(e);
    }
  }

  // helion.kernel(..., configs=[a, b, ...]): autotuned over the list's entries.
  void helion_configs(uint32_t open) {
    const uint32_t close = py_.closing(open);
    const auto& toks = py_.tokens();
    for (uint32_t j = open + 1; j < close; ++j) {
      if (!(py_.name(j) == "configs" && py_.op(j + 1, "=") &&
            toks[j].depth == toks[open].depth + 1)) {
        continue;
      }
      out_.add(Feature::AUTOTUNE);
      if (!py_.op(j + 2, "[")) return;
      const uint32_t end = py_.closing(j + 2);
      uint32_t entries = 0;
      bool pending = false;
      for (uint32_t e = j + 3; e < end; ++e) {
        if (py_.op(e, ",") && toks[e].depth == toks[j + 2].depth + 1) {
          entries += pending ? 1 : 0;
          pending = false;
        } else {
          pending = true;
        }
      }
      out_.autotune_configs += entries + (pending ? 1 : 0);
      return;
    }
  }

  // The rules that read a name's first or last part alone, whatever it resolves to.
  void by_parts(std::string_view root, std::string_view last) {
    if (split_k_name(last) || split_k_name(root)) out_.add(Feature::SPLIT_K);
    if (last == "multi_processor_count" || last == "NUM_SMS" || last == "num_sms") {
      out_.add(Feature::PERSISTENT);
    } else if (last == "TensorDescriptor" || last == "make_tiled_tma_atom" ||
               last == "CopyBulkTensorTileG2SOp" || last == "CopyBulkTensorTileS2GOp") {
      out_.add(Feature::TMA);
    } else if (last == "CopyG2SOp") {
      out_.add(Feature::ASYNC_COPY);
    } else if (last == "SmemAllocator") {
      out_.add(Feature::SHARED_MEMORY);
    } else if (last == "mbarrier_init" || last == "mbarrier_wait" || last == "mbarrier_arrive") {
      out_.add(Feature::MBARRIER);
    }
  }

  // Whether by_resolved reads a dotted name ending in `last`: one of its names, a CuTe MMA
  // operation, or a dtype.
  static bool resolved_last(std::string_view last) {
    if (last.size() < 3) return false;
    switch (last[0]) {
      case 'd':
        return is(last, "dot") || is(last, "dot_scaled");
      case 'g':
        return is(last, "gemm") || is(last, "graph");
      case 'm':
        return is(last, "make_tiled_mma") || is(last, "make_tensor_descriptor") ||
               is(last, "make_graphed_callables");
      case '_':
        return is(last, "_experimental_descriptor_load") || is(last, "_scaled_mm") ||
               is(last, "_scaled_grouped_mm");
      case 'C':
        return is(last, "CUDAGraph");
      case 'S':
        return is(last, "Stream");
      case 's':
        return is(last, "stream");
      case 'E':
        return is(last, "ExternalStream");
      case 'c':
        return is(last, "compile");
      case 'M':
        return starts(last, "Mma");
      default:
        return dtype_feature(last).has_value();
    }
  }

  // The rules that read a dotted name resolved through the code's bindings; `end` is the token
  // after it.
  void by_resolved(const std::string& r, std::string_view last, uint32_t end) {
    if (r == "torch._scaled_mm" || r == "torch._scaled_grouped_mm" || starts(r, "aiter.") ||
        r == "aiter" || starts(r, "cuda.compute") || starts(r, "hipblaslt")) {
      out_.add(Language::LIBRARY);
    }
    if (r == "triton.language.dot" || r == "triton.language.dot_scaled" ||
        r == "helion.language.dot" || r == "cutlass.cute.gemm" ||
        r == "cutlass.cute.make_tiled_mma" ||
        (starts(r, "cutlass.cute.nvgpu.") && starts(last, "Mma") && last.ends_with("Op"))) {
      out_.add(Feature::TENSOR_CORES);
    } else if (r == "triton.language.make_tensor_descriptor" ||
               r == "triton.language._experimental_descriptor_load") {
      out_.add(Feature::TMA);
    } else if (r == "torch.cuda.CUDAGraph" || r == "torch.cuda.graph" ||
               r == "torch.cuda.make_graphed_callables" || r == "torch.cuda.graphs.CUDAGraph") {
      out_.add(Feature::CUDA_GRAPHS);
    } else if (r == "torch.cuda.Stream" || r == "torch.cuda.stream" ||
               r == "torch.cuda.ExternalStream") {
      out_.add(Feature::STREAMS);
    }
    // A dtype of torch, triton, cutlass (CuTe DSL), aiter, ...: its last part.
    if (r.find('.') != std::string::npos &&
        (starts(r, "torch.") || starts(r, "triton.") || starts(r, "cutlass.") ||
         starts(r, "aiter.") || starts(r, "helion."))) {
      if (const std::optional<Feature> f = dtype_feature(last)) out_.add(*f);
    }
    // torch.compile(mode="reduce-overhead" or "max-autotune"): CUDA graphs. tl.dot_scaled(...,
    // "e2m1", ...): the operands' formats.
    if ((r == "torch.compile" || r == "triton.language.dot_scaled") && py_.op(end, "(")) {
      const uint32_t close = py_.closing(end);
      for (uint32_t j = end + 1; j < close; ++j) {
        if (py_.tokens()[j].kind != TokenKind::STRING) continue;
        const std::string_view s = source::token_body(py_.text(), py_.tokens()[j]);
        if (r == "torch.compile") {
          const bool graphs = s == "reduce-overhead" ||
                              (starts(s, "max-autotune") && s != "max-autotune-no-cudagraphs") ||
                              s == "triton.cudagraphs";
          if (graphs) out_.add(Feature::CUDA_GRAPHS);
        } else if (const std::optional<Feature> f = dtype_feature(s)) {
          out_.add(*f);
        }
      }
    }
  }

  const source::PythonModel& py_;
  Techniques& out_;
  LineSet lines_;
  // Names some statement binds, each once, in shorter_first's order.
  std::vector<std::string_view> bound_;
  bool entry_ = false;
};

}  // namespace

std::string_view to_string(Language language) {
  return kLanguageNames[static_cast<size_t>(language)];
}
std::string_view to_string(Feature feature) { return kFeatureNames[static_cast<size_t>(feature)]; }

std::optional<Language> parse_language(std::string_view name) {
  for (size_t i = 0; i < kLanguages; ++i) {
    if (kLanguageNames[i] == name) return static_cast<Language>(i);
  }
  return std::nullopt;
}
std::optional<Feature> parse_feature(std::string_view name) {
  for (size_t i = 0; i < kFeatures; ++i) {
    if (kFeatureNames[i] == name) return static_cast<Feature>(i);
  }
  return std::nullopt;
}

Techniques classify(const source::CodeModel& model) {
  Techniques out;
  if (model.cpp_file()) {
    const source::CppSource& file = model.cpp_sources().front();
    CppFacts facts;
    LineSet lines;
    read_cpp(file.text, file.tokens, out, facts, &lines);
    out.kernels += facts.kernels;
    add_cpp_languages(facts, true, out);
    out.lines = lines.count();
    out.kernel_lines = out.lines;
  } else {
    PythonReader reader(model.python(), out);
    reader.run();
    LineSet kernel_lines;
    for (const source::CppSource& s : model.cpp_sources()) {
      CppFacts facts;
      LineSet own;
      read_cpp(s.text, s.tokens, out, facts, s.folded ? &own : &kernel_lines);
      out.kernels += facts.kernels;
      add_cpp_languages(facts, false, out);
    }
    out.lines = reader.lines().count();
    out.kernel_lines = kernel_lines.count();
    // A code that defines the entry point and uses no technology runs plain PyTorch: the harness
    // gives it PyTorch tensors (`a @ b`).
    if (out.languages == 0 && reader.defines_entry()) out.add(Language::PYTORCH);
  }
  if (out.languages == 0) out.add(Language::PYTHON);
  for (size_t i = 0; i < kLanguages; ++i) {
    if (out.has(static_cast<Language>(i))) {
      out.language = static_cast<Language>(i);
      break;
    }
  }
  return out;
}

Techniques classify(std::string_view code, std::string_view file_name) {
  const source::CodeModel model(code, source::is_cpp_source(code, file_name));
  return classify(model);
}

CodeFile code_file(const Techniques& t, std::string_view code, std::string_view file_name) {
  if (!source::is_cpp_source(code, file_name)) return CodeFile::PYTHON;
  return t.has(Language::HIP) ? CodeFile::HIP : CodeFile::CUDA;
}

CodeFile code_file(std::string_view code, std::string_view file_name) {
  if (!source::is_cpp_source(code, file_name)) return CodeFile::PYTHON;
  return code_file(classify(code, file_name), code, file_name);
}

namespace {

// Per CodeFile, in its order: the file's extension and the Markdown fence's language.
constexpr std::array<std::array<std::string_view, 2>, 3> kCodeFileNames = {{
    {".py", "python"},
    {".cu", "cuda"},
    {".hip", "hip"},
}};

}  // namespace

std::string_view file_extension(CodeFile file) {
  return kCodeFileNames[static_cast<size_t>(file)][0];
}

std::string_view fence_language(CodeFile file) {
  return kCodeFileNames[static_cast<size_t>(file)][1];
}

std::vector<std::string_view> vocabulary() {
  std::vector<std::string_view> out = {
      // statements, decorators and their arguments, keyword arguments
      "import", "from", "elif", "jit", "autotune", "Config", "kernel", "configs", "warp_specialize",
      // Python names by their parts, and the modules and last parts resolved names end in
      "multi_processor_count", "NUM_SMS", "num_sms", "TensorDescriptor", "make_tiled_tma_atom",
      "CopyBulkTensorTileG2SOp", "CopyBulkTensorTileS2GOp", "CopyG2SOp", "SmemAllocator",
      "mbarrier_init", "mbarrier_wait", "mbarrier_arrive", "torch", "triton", "cutlass", "helion",
      "aiter", "hipblaslt", "compute", "_scaled_mm", "_scaled_grouped_mm", "dot", "dot_scaled",
      "gemm", "make_tiled_mma", "Mma", "make_tensor_descriptor", "_experimental_descriptor_load",
      "float8", "float4", "Float8", "Float4", "fp8", "fp4", "e4m3", "e5m2", "e2m1", "CUDAGraph",
      "graph", "graphs", "make_graphed_callables", "compile", "reduce-overhead", "max-autotune",
      "triton.cudagraphs", "custom_kernel", "Stream", "stream", "ExternalStream", "shape", "size",
      "seq_len", "batch", "num_tokens",
      // split_k's names
      "SPLIT_K", "split_k", "splitk", "SPLITK", "num_splits", "NUM_SPLITS",
      // embedded sources: the compiling calls and what makes a string C++
      "load_inline", "compile_kernel", "RawKernel", "RawModule", "SourceModule", "#include",
      "__global__", "__device__", "extern",
      // C++: languages, kernels, launches, asm
      "include", "kittens", "hip", "__builtin_amdgcn_", "cublas", "hipblas", "asm", "<<<",
      // C++ names of the features
      "mma_sync", "wmma", "MMA_Atom", "TiledMMA", "UMMA", "SM80_16x8", "SM90_64x", "SM100_MMA",
      "CUtensorMap", "cuTensorMapEncodeTiled", "make_tma_copy", "SM90_TMA_", "SM100_TMA_",
      "__pipeline_memcpy_async", "memcpy_async", "cp_async_wait", "SM80_CP_ASYNC", "__shared__",
      "ClusterBarrier", "ClusterTransactionBarrier", "barrier", "warpgroup_reg_alloc",
      "warpgroup_reg_dealloc", "cudaDevAttrMultiProcessorCount",
      "hipDeviceAttributeMultiprocessorCount", "multiProcessorCount", "TileScheduler", "__nv_fp8",
      "__hip_fp8", "float_e4m3_t", "float_e5m2_t", "fp8_e4m3", "fp8_e5m2", "__nv_fp4", "__hip_fp4",
      "float_e2m1_t", "fp4_e2m1", "fp8e4m3", "fp8e5m2", "fp4e2m1", "Float8_e4m3", "Float8_e5m2",
      "Float4_e2m1", "kFloat8_e4m3", "kFloat8_e5m2", "kFloat4_e2m1", "__amd_fp8", "__amd_fp4",
      "_fp8", "_bf8", "CUDA_R_8F_E4M3", "CUDA_R_8F_E5M2", "CUDA_R_4F_E2M1", "HIP_R_8F_E4M3",
      "HIP_R_8F_E5M2", "HIP_R_4F_E2M1", "cudaGraphLaunch", "cudaGraphInstantiate",
      "cudaGraphExecUpdate", "cuGraphLaunch", "cudaStreamBeginCapture", "hipGraphLaunch",
      "hipGraphInstantiate", "hipGraphExecUpdate", "hipStreamBeginCapture", "cudaStreamCreate",
      "hipStreamCreate", "getStreamFromPool",
      // ctypes: the driver loading compiled code, libraries named in strings
      "cuLaunchKernel", "cuModuleLoad", "libcublas", "libhipblas",
      // PTX mnemonics
      "mma", "wgmma", "tcgen05", "cp.async", "mbarrier", "setmaxnreg",
      // PTX types of fp8 and fp4 operands and scales
      ".e4m3", ".e5m2", ".e2m1", "kind::mxf4", ".ue4m3"};
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string languages_text(const Techniques& t) {
  std::string s;
  for (size_t i = 0; i < kLanguages; ++i) {
    if (!t.has(static_cast<Language>(i))) continue;
    if (!s.empty()) s += ',';
    s += kLanguageNames[i];
  }
  return s;
}

std::string features_text(const Techniques& t) {
  std::string s;
  for (size_t i = 0; i < kFeatures; ++i) {
    if (!t.has(static_cast<Feature>(i))) continue;
    if (!s.empty()) s += ',';
    s += kFeatureNames[i];
  }
  return s;
}

}  // namespace kbdata::techniques
