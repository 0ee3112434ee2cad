// The screen in front of the code rules (audit/code_screen.h) never changes a finding: audit_code
// (screen first) and audit_code_in_full (every rule's pass) agree on the labelled set, on synth's
// kernels of every language, on those kernels with each rule's telltale spliced into their code,
// strings and comments, and on random texts made of the bytes the lexers treat specially. And the
// screen does decide most honest kernels on its own.
#include "audit/code_screen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "audit/code_rules.h"
#include "source/embedded.h"
#include "support/guarded_text.h"
#include "support/random_text.h"
#include "support/run_kbdata.h"
#include "synth/code_generator.h"

namespace kbdata::audit {
namespace {

std::string describe(const std::vector<Finding>& findings) {
  std::string s;
  for (const Finding& f : findings) {
    s += std::string(rule(f.rule).name) + "@" + std::to_string(f.line) + "[" + f.text + "] ";
  }
  return s;
}

// The contexts a code is audited under: no reference, references of several widths, and one whose
// normalised text is `reference` (when given).
std::vector<CodeContext> contexts(const std::string* reference) {
  std::vector<CodeContext> out(1);
  for (int bits : {4, 8, 16, 32, 64}) {
    CodeContext c;
    c.reference_float_bits = bits;
    c.reference_normalised = reference;
    out.push_back(c);
  }
  return out;
}

void expect_agree(const std::string& code, const CodeContext& context, const std::string& what) {
  const std::vector<Finding> screened = audit_code(code, context);
  const std::vector<Finding> full = audit_code_in_full(code, context);
  EXPECT_TRUE(screened == full) << what << "\nscreened: " << describe(screened)
                                << "\nfull:     " << describe(full) << "\n--- code:\n"
                                << code;
}

std::vector<std::string> synth_codes(size_t per_language) {
  std::vector<std::string> out;
  for (synth::Language language :
       {synth::Language::TRITON, synth::Language::CUDA_INLINE, synth::Language::HIP_INLINE,
        synth::Language::CUTE_DSL, synth::Language::PYTORCH}) {
    for (uint64_t lineage = 0; lineage < per_language; ++lineage) {
      std::string code;
      synth::generate_code({lineage * 104729 + 7, static_cast<uint32_t>(lineage % 3), language},
                           "nvfp4_gemm", code);
      out.push_back(std::move(code));
    }
  }
  return out;
}

TEST(CodeScreen, AgreesWithTheFullPassOnTheLabelledSet) {
  const std::string reference = normalised_code("def ref_kernel(data):\n    return data\n", false);
  for (const char* group : {"cheat", "honest"}) {
    const std::filesystem::path dir = std::filesystem::path(KBDATA_TEST_DATA) / "audit" / group;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string code = kbdata::testing::read_file(entry.path().string());
      for (CodeContext c : contexts(&reference)) {
        c.cpp_file = source::is_cpp_source(code, entry.path().filename().string());
        expect_agree(code, c, entry.path().string());
      }
    }
  }
}

TEST(CodeScreen, AgreesWithTheFullPassOnSynthKernelsAndDecidesMostOfThemAlone) {
  const std::vector<std::string> codes = synth_codes(120);
  size_t screened = 0;
  std::map<std::string, size_t> reasons;
  for (const std::string& code : codes) {
    // A reference equal to the code itself: reference-copy must fire through the screen too.
    const std::string itself = normalised_code(code, false);
    for (const CodeContext& c : contexts(&itself)) expect_agree(code, c, "synth");
    CodeContext bf16;
    bf16.reference_float_bits = 16;
    const Screen screen = screen_python(code, bf16);
    screened += screen.full ? 0 : 1;
    if (screen.full) ++reasons[screen.reason];
  }
  for (const auto& [reason, n] : reasons) std::printf("full pass: %zu for %s\n", n, reason.c_str());
  // Only the planted cheats (about 1 in 200) and a few kernels that name a rule's word (such as
  // torch.cuda.synchronize's stream) need the full pass.
  EXPECT_GT(screened, codes.size() * 9 / 10) << screened << " of " << codes.size();
}

// Each rule's telltale, and forms around the screen's edges: words after a dot or a newline, a
// `def custom_kernel` after `;` or a continuation, a comment between an attribute and its `=`.
const char* const kSplices[] = {
    "import time\ntime.perf_counter = lambda: 0.0\n",
    // A `def custom_kernel` inside a function or a class is not the entry; one inside an `if` is.
    "def c(q):\n    i = 1\n    def custom_kernel(data):\n        x, y = data\n        return z\n",
    "class K:\n    def custom_kernel(data):\n        x, y = data\n        return z\n",
    "if True:\n    def custom_kernel(data):\n        x, y = data\n        return z\n",
    // An operator before `+=`, or apart before `=`: the lexer reads a target before it (no Python;
    // the full pass decides).
    "_state = {}\ndef custom_kernel(data):\n    _state[\"calls\"] ++= 1\n    return data\n",
    "import time\ntime.perf_counter -+= 1\n",
    "import time\ntime.perf_counter + = 1\n",
    // `+=` to a name in the middle of a statement, or after a byte no token holds: the full pass
    // reads the statement's first name as the root.
    "class K:\n    def f(self):\n        self.call\x01\x07s += 1\n",
    "class K:\n    def f(self):\n        self.call + s += 1\n",
    "class K:\n    def f(self):\n        self.calls$ += 1\n",
    "class E(torch.cuda.Event):\n    pass\n",
    "import utils\nutils.verbose_allclose = lambda *a: []\n",
    "input_t.x = 1\n",
    "m = sys.modules['eval']\n",
    "x = (a.\n# c\nb = 3)\n",
    "x = (a.b # c\n = 3)\n",
    "custom_kernel.calls += 1\n",
    "global n\nn += 1\n",
    "key = x.data_ptr()\n",
    "cache[id(x)] = y\n",
    "exec(base64.b64decode('cHJpbnQ='))\n",
    "y = torch.compile(f)\n",
    "compile = 1\n",
    "x.\\\ncompile('1', 's', 'exec')\n",
    "x = a.\ncompile('1', 's', 'exec')\n",
    "x = a\n.compile('1', 's', 'exec')\n",
    "x = (.compile('1', 's', 'exec'))\nreturn .eval('1')\ny = 1.compile('1', 's', 'exec')\n",
    "print('benchmark.0.mean: 1.0')\n",
    "os.system('pip install x')\n",
    "s = torch.cuda.Stream()\n",
    "g = torch.cuda.CUDAGraph()\ng.replay()\n",
    "f = inspect.stack()\n",
    "v = os.environ.get('BENCH_MODE')\n",
    "x = a.half()\n",
    "def f(x):\n    y = x.half()\n    return y.to(x.dtype)\n",
    "from torch import float16 as h\ndef f(x):\n    return x.to(h).to(x.dtype)\n",
    "x = a.to(torch.float8_e4m3fn)\n",
    "x = float(a)\n",
    "src = '__global__ void k(__half* a) { cudaStream_t s; cudaStreamCreate(&s); }'\n",
    "decl = 'torch::Tensor f(__nv_fp8_e4m3 a);'\n",
    "s = '#include <x>\\ntorch::Tensor f(torch::Tensor a, torch::Tensor b) { a.mul_(b); return b; "
    "}'\n",
    "s = '#include <x>\\ntorch::Tensor f(torch::Tensor a, torch::Tensor b) { a . add_ /* c */ (b); "
    "return b; }'\n",
    "s = '#include <x>\\ntorch::Tensor f(torch::Tensor a) { auto o = torch::full({4}, 1.f); "
    "return o; }'\n",
    "s = '#include <x>\\ntorch::Tensor f(torch::Tensor a, torch::Tensor b) { a.zero_(); "
    "return b; }'\n",
    "m = load_inline('m', cpp_sources='torch::Tensor f(torch::Tensor a, torch::Tensor b) "
    "{ a.div_(b); return b; }')\n",
    "def custom_kernel(data):\n    return data\n",
    "def custom_kernel(data):\n    a, b, c = data\n    c.zero_()\n    return a[:128]\n",
    "x = 1; def custom_kernel(data):\n    return data\n",
    "def \\\n custom_kernel(data):\n    return data[0]\n",
    "def custom_kernel(\n    data):\n    return data\n",
    "s = \"\"\"\ndef custom_kernel(data):\n    return data\n\"\"\"\n",
    "# def custom_kernel(data): return data\n",
    "r\"\\\"\" ; x.y = 2\n",
    "t = '''unterminated\n",
    "u = 'one line\n",
    "\r\nx.y = 1\r\n",
    "a = 1\rb.c = 2\r",
    "POPCORN_FD\n",
    "t = time\nt.perf_counter = lambda: 0.0\n",
    "\xef\xbd\x94ime.perf_counter = f\n",
    "# -*- coding: utf-7 -*-\n",
    "vars(time).update(perf_counter=f)\n",
    "setattr(time, 'perf_' + 'counter', f)\n",
    "run = exec\nrun('x = 1')\n",
    "custom_kernel = torch.compile(_impl)\n",
    "_s['n'] += 1\n",
    "m = load_inline('m', cpp_sources='', cuda_sources=''.join(['cudaStream', 'Create(&s);']))\n",
    "src = 'void f() {}'\nm = load_inline('m', cpp_sources=src)\n",
    "src = 'void f() { cudaStreamCreate(&s); }'\nm = load_inline('m', cpp_sources=[src])\n",
    "s = '__global__ void k() { getenv(\"POPCORN\" \"_FD\"); }'\n",
    "libc.mprotect(p, 4096, 7)\n",
    "os.dup2(w, 1)\n",
    "f = open('/proc/self/mem', 'rb')\n",
    "def custom_kernel(data):\n    a, b = data\n    out = torch.empty_like(a)\n    return out\n",
    "def custom_kernel(data):\n    x, out = data\n    out[0] = x[:x.numel() // 4].sum() * 4\n"
    "    return out\n",
};

// The vocabulary is what the screen looks for: every entry once, and each, written where some rule
// reads it (as a call, after a dot, indexed by a mode's name, or in a string; the floating-point
// names under a reference wider than any), sends a code the screen decides alone otherwise to the
// full pass.
TEST(CodeScreen, EveryWordOfItsVocabularySendsACodeToTheFullPass) {
  const std::vector<std::string_view> words = screen_vocabulary();
  EXPECT_TRUE(std::is_sorted(words.begin(), words.end()));
  EXPECT_EQ(std::adjacent_find(words.begin(), words.end()), words.end());
  for (std::string_view w : {"perf_counter", "float16", "benchmark.", "__nv_fp8", "install"}) {
    EXPECT_NE(std::find(words.begin(), words.end(), w), words.end()) << w;
  }
  CodeContext context;
  context.reference_float_bits = 128;
  const std::string quiet = "import torch\n\ndef f(x):\n    return x + 1\n";
  ASSERT_FALSE(screen_python(quiet, context).full);
  for (std::string_view w : words) {
    if (w == "custom_kernel") continue;  // where the function rules look, not a trigger
    const std::string word(w);
    const std::string code = quiet + "y = " + word + "(x)\nz = x." + word + "\nu = os." + word +
                             "[\"BENCH_MODE\"]\ns = \"" + word +
                             "\"\nt = \"__global__ void k() { " + word + " v; }\"\n";
    // The full pass, or (a C++ name's part) the C++ rules on the string that reads as C++.
    const Screen screen = screen_python(code, context);
    const bool to_cpp_rules = std::any_of(screen.cpp.begin(), screen.cpp.end(),
                                          [](const Screen::Cpp& c) { return !c.types_only; });
    EXPECT_TRUE(screen.full || to_cpp_rules) << word;
  }
}

// Every name a rule compares, whether or not the screen's vocabulary holds it, in each place a rule
// reads a name (a call, an attribute read or assigned, a module's attribute replaced, a method of
// custom_kernel's data, an import, a string, embedded C++): the screen and the full pass agree. The
// names are the identifier-like literals of code_rules.cc itself, so a word a new rule compares is
// checked without anyone adding it here.
TEST(CodeScreen, AgreesWithTheFullPassOnEveryNameTheRulesCompare) {
  const std::string rules =
      kbdata::testing::read_file(std::string(KBDATA_SOURCE_DIR) + "/src/audit/code_rules.cc");
  std::vector<std::string> names;
  for (size_t at = rules.find('"'); at != std::string::npos; at = rules.find('"', at + 1)) {
    const size_t end = rules.find('"', at + 1);
    if (end == std::string::npos) break;
    const std::string literal = rules.substr(at + 1, end - at - 1);
    at = end;
    const bool identifier =
        literal.size() >= 3 &&
        (std::isalpha(static_cast<unsigned char>(literal[0])) != 0 || literal[0] == '_') &&
        std::all_of(literal.begin(), literal.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
        });
    if (identifier) names.push_back(literal);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  ASSERT_GT(names.size(), 150U) << "the rules' names were not found in code_rules.cc";
  // No word of the vocabulary in the rest of the code ("time", "os"): the name alone decides.
  const std::string quiet = "import torch\n\ndef f(x):\n    return x + 1\n";
  for (const std::string& w : names) {
    const std::string codes[] = {
        quiet + "y = " + w + "(x)\n",
        quiet + "z = x." + w + "\n",
        quiet + "x." + w + " = f\n",
        quiet + "time." + w + " = f\n",
        quiet + "torch.cuda." + w + " = f\n",
        quiet + "x." + w + "(y)\n",
        quiet + "def custom_kernel(data):\n    a, b = data\n    a." + w + "(b)\n    return a\n",
        quiet + "def custom_kernel(data):\n    a, out = data\n    r = " + w + "(a)\n    return r\n",
        quiet + "s = \"" + w + "\"\n",
        quiet + "import " + w + "\n",
        quiet + "from " + w + " import q\n",
        quiet + "from x import " + w + "\n",
        quiet + "t = \"__global__ void k() { " + w +
            "(v); }\"\nm = load_inline('m', cpp_sources=t)\n",
    };
    for (const std::string& code : codes) {
      for (int bits : {0, 16, 32}) {
        CodeContext context;
        if (bits != 0) context.reference_float_bits = bits;
        expect_agree(code, context, w + " (reference of " + std::to_string(bits) + " bits)");
      }
    }
  }
}

// With the reference unknown, precision-downgrade fires only on a cast below 32 bits and a cast
// back to an input's dtype after it in the same scope: the screen decides a code that names such a
// type but has no such pair on its own, and sends one that may have it to the full pass.
TEST(CodeScreen, DecidesNarrowTypesWithTheReferenceUnknownByTheirScopes) {
  const CodeContext unknown;
  const std::string fires[] = {
      "import torch\ndef f(x):\n    y = x.to(torch.float16)\n    return y.to(x.dtype)\n",
      "def f(x):\n    y = x.half()\n    z = y @ y\n    return z.to(x.dtype)\n",
      "from torch import float16\ndef g(x):\n    y = x.to(float16)\n    return y.to(x.dtype)\n",
      "from torch import (bfloat16 as lo,\n    float32)\ndef g(x):\n    return "
      "x.to(lo).to(x.dtype)\n",
      "import torch\nlow = torch.bfloat16\ndef g(x):\n    return x.type(low).to(x.  # c\n"
      "dtype)\n",
      "import torch\ny = a.to(torch.float8_e4m3fn)\nz = y.to(a.dtype)\n",
  };
  for (const std::string& code : fires) {
    const std::vector<Finding> full = audit_code_in_full(code, unknown);
    ASSERT_EQ(full.size(), 1U) << code << describe(full);
    EXPECT_EQ(full[0].rule, RuleId::PRECISION_DOWNGRADE) << code;
    EXPECT_TRUE(screen_python(code, unknown).full) << code;
    expect_agree(code, unknown, "fires");
  }
  const std::string quiet[] = {
      // The cast down in a Triton kernel, the cast back in another function (synth's kernels).
      "import torch\nimport triton.language as tl\ndef k(acc):\n    c = acc.to(tl.float16)\n"
      "    return c\n\ndef small(a, b, c):\n    return torch.matmul(a.float(), b.float())"
      ".to(c.dtype)\n",
      // No cast back; a cast back to something other than a dtype; a dtype's attribute.
      "import torch\ndef f(x):\n    return x.to(torch.float16)\n",
      "import torch\ndef f(x, y):\n    return x.half().to(y.device)\n",
      "import torch\ndef f(x, o):\n    return x.to(torch.bfloat16).to(o.dtype.element_ty)\n",
      // The cast back before the cast down; a type in a string or a comment; a name that is not
      // imported (`half = n // 2`).
      "import torch\ndef f(x):\n    y = x.to(x.dtype)\n    return y.half()\n",
      "import torch\ndef f(x):\n    s = 'torch.float16'  # x.half()\n    return x.to(x.dtype)\n",
      "def f(x, n):\n    half = n // 2\n    return x[:half].to(x.dtype)\n",
  };
  for (const std::string& code : quiet) {
    EXPECT_FALSE(screen_python(code, unknown).full) << code;
    expect_agree(code, unknown, "quiet");
  }
  // With a reference wider than the type, the type alone sends the code to the full pass.
  CodeContext fp32;
  fp32.reference_float_bits = 32;
  EXPECT_TRUE(screen_python(quiet[1], fp32).full);
  EXPECT_TRUE(screen_python("from torch import float16\n", fp32).full);
}

// A C++ name that holds a fill method's name (`stage_prefill_launch`) is no call of it: the screen
// decides such a code alone; the same source calling `a.fill_(0)` goes to the C++ rules.
TEST(CodeScreen, TellsAFillMethodFromANameThatHoldsIt) {
  const std::string quiet =
      "from torch.utils.cpp_extension import load_inline\n"
      "src = r'''\n#include <torch/extension.h>\n"
      "torch::Tensor stage_prefill_launch(torch::Tensor a, torch::Tensor c) { return c; }\n'''\n"
      "m = load_inline(name='m', cpp_sources='torch::Tensor stage_prefill_launch(torch::Tensor, "
      "torch::Tensor);', cuda_sources=src, functions=['stage_prefill_launch'])\n";
  const CodeContext unknown;
  const Screen screen = screen_python(quiet, unknown);
  EXPECT_FALSE(screen.full) << screen.reason;
  expect_agree(quiet, unknown, "prefill");
  std::string writes = quiet;
  writes.replace(writes.find("{ return c; }"), 13, "{ a.fill_(0); return c; }");
  const Screen to_cpp = screen_python(writes, unknown);
  EXPECT_TRUE(to_cpp.full || (!to_cpp.cpp.empty() && !to_cpp.cpp[0].types_only));
  const std::vector<Finding> found = audit_code(writes, unknown);
  ASSERT_EQ(found.size(), 1U) << describe(found);
  EXPECT_EQ(found[0].rule, RuleId::INPUT_OVERWRITE);
  expect_agree(writes, unknown, "fill_");
}

TEST(CodeScreen, AgreesWithTheFullPassWhereARulesTelltaleIsSplicedIn) {
  const std::vector<std::string> codes = synth_codes(6);
  std::mt19937_64 rng(7);
  for (const std::string& code : codes) {
    for (const char* splice : kSplices) {
      // At a line start, inside a line, after the last line and inside the code's first string.
      std::vector<size_t> at = {0, code.size()};
      for (int k = 0; k < 3; ++k) {
        size_t p = rng() % code.size();
        if (k == 0) {
          while (p > 0 && code[p - 1] != '\n') --p;
        }
        at.push_back(p);
      }
      const size_t quote = code.find("\"\"\"");
      if (quote != std::string::npos) at.push_back(quote + 3);
      for (size_t p : at) {
        const std::string spliced = code.substr(0, p) + splice + code.substr(p);
        for (const CodeContext& c : contexts(nullptr)) {
          expect_agree(spliced, c, std::string("splice ") + splice);
        }
      }
    }
  }
}

TEST(CodeScreen, AgreesWithTheFullPassOnRandomTexts) {
  // Words the rules and the screen look for, and the bytes that start strings, comments, lines,
  // brackets and continuations.
  const std::vector<std::string> pieces = {"def ",
                                           "custom_kernel",
                                           "(data)",
                                           ":\n",
                                           "    ",
                                           "return ",
                                           "data",
                                           "[0]",
                                           "a, b, c = data\n",
                                           "\"",
                                           "'",
                                           "\"\"\"",
                                           "'''",
                                           "r\"",
                                           "#",
                                           "\\",
                                           "\n",
                                           "\r",
                                           "\r\n",
                                           " ",
                                           "\t",
                                           "(",
                                           ")",
                                           "[",
                                           "]",
                                           "{",
                                           "}",
                                           "=",
                                           "+=",
                                           ".",
                                           ";",
                                           "x",
                                           "y.z",
                                           "time",
                                           "compile",
                                           "half",
                                           "__global__",
                                           "__half",
                                           "#include",
                                           "float8_e4m3fn",
                                           "torch",
                                           "0x1f",
                                           "1e+5",
                                           ":128",
                                           "zero_()",
                                           "POPCORN_FD",
                                           "benchmark."};
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const std::string text = kbdata::testing::random_text(rng, pieces, 60);
    for (const CodeContext& c : contexts(nullptr)) expect_agree(text, c, "random");
  }
}

// Mostly what the screen lets through, with the forms at its edges: the function rules' shapes,
// attributes across comments, newlines and continuations, C++ strings with types.
const std::vector<std::string>& quiet_pieces() {
  static const std::vector<std::string> pieces = {
      "def ",
      "custom_kernel",
      "(data",
      ")",
      ":\n",
      "    ",
      "return ",
      "data",
      "[0]",
      "[:128]",
      "a, b, c = data\n",
      "a",
      ".zero_()",
      ".view(",
      "\"",
      "'",
      "\"\"\"",
      "'''",
      "#",
      "\\",
      "\n",
      "\r",
      "\r\n",
      " ",
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      "=",
      "+=",
      ".",
      ";",
      "x",
      "y",
      "half",
      "float16",
      "bfloat16",
      "torch",
      ".to(",
      ".dtype",
      "def f(x):\n",
      "from torch import ",
      "(\"__global__ void k(__half* p, __nv_fp8_e4m3 q) {}\")",
      "\"#include <x>\\n// __nv_fp4_e2m1\\nfloat f;\"",
      "0x1f",
      ", ",
      "k = 1\n",
      "@dec\n",
      "class C:\n",
      "self",
      "if ",
      "else",
      "  # note\n"};
  return pieces;
}

// Random texts of up to `max_pieces` quiet pieces, each held to the full pass under every context
// of no reference; how many of them the screen decided alone, of how many.
std::pair<size_t, size_t> agree_on_quiet_texts(uint64_t seed, int rounds, size_t max_pieces) {
  std::mt19937_64 rng(seed);
  size_t decided = 0, total = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::string text = kbdata::testing::random_text(rng, quiet_pieces(), max_pieces);
    for (const CodeContext& c : contexts(nullptr)) {
      expect_agree(text, c, "random");
      decided += screen_python(text, c).full ? 0 : 1;
      ++total;
    }
    if (::testing::Test::HasFailure()) break;
  }
  return {decided, total};
}

TEST(CodeScreen, AgreesWithTheFullPassOnRandomTextsItDecidesAlone) {
  const auto [decided, total] = agree_on_quiet_texts(13, 4000, 50);
  EXPECT_GT(decided, total / 4) << decided << " of " << total;
}

// Texts of thousands of bytes: names, `=` and brackets across the screen's 64-byte blocks, code
// between strings and comments of every length, the line of a `def custom_kernel` far in. Most
// hold a `+=` to a name in the middle of a statement (no Python: the screen leaves it to the full
// pass), so fewer are decided alone than of the short ones.
TEST(CodeScreen, AgreesWithTheFullPassOnLongTextsItDecidesAlone) {
  const auto [decided, total] = agree_on_quiet_texts(19, 150, 1500);
  EXPECT_GT(decided, total / 10) << decided << " of " << total;
}

// The screen reads code in blocks of 64 bytes: a name that runs across a block's edge is one name
// (`xtime` holds no vocabulary word, `time` would be one), and brackets counted across the edges
// leave `def custom_kernel` at depth 0, wherever the edges fall.
TEST(CodeScreen, DecidesAloneWhateverItsBlocksCut) {
  for (size_t pad = 1; pad < 200; ++pad) {
    const std::string names = "x = (" + std::string(pad, 'y') + "time)\n";
    const std::string brackets = "a = [" + std::string(pad, '1') + "]\n";
    for (const std::string& text :
         {names + names + names,
          brackets + brackets + "def custom_kernel(data):\n    return 1\n"}) {
      const Screen screen = screen_python(text, CodeContext{});
      EXPECT_FALSE(screen.full) << "pad " << pad << ":\n" << text;
      expect_agree(text, CodeContext{}, "pad " + std::to_string(pad));
    }
  }
  // A closing bracket with none open (the lexer keeps the depth at 0), then one left open: the
  // `def` after it is inside brackets, where the function rules do not look, wherever the edges
  // fall.
  for (size_t pad = 0; pad < 140; ++pad) {
    const std::string text = "x = 1" + std::string(pad, ' ') + ") (1,\n" + std::string(70, ' ') +
                             "\n2,\ndef custom_kernel(data):\n    return data\n";
    expect_agree(text, CodeContext{}, "open bracket, pad " + std::to_string(pad));
  }
  const std::string kernel = std::string(300, '\n') + "b = (1,\n" + std::string(150, ' ') +
                             "2)\ndef custom_kernel(d):\n  return 1\n";
  const Screen screen = screen_python(kernel, CodeContext{});
  ASSERT_FALSE(screen.full);
  ASSERT_TRUE(screen.custom_kernel.has_value());
  EXPECT_EQ(screen.custom_kernel->line, 303U);
}

// Texts that end where a page the process may not read starts: the screen's vector loads (and
// the first look's two bytes past each block) stop before the text's end, at every length around
// a block's, with the code, a string or a comment last.
TEST(CodeScreen, ReadsNothingPastTheText) {
  kbdata::testing::GuardedText guarded(4096);
  const std::string code = "x = torch.float16(y)  # a\ns = '#include <x>\\n__half h;'\n";
  for (size_t size = 0; size <= 200; ++size) {
    std::string text;
    while (text.size() < size) text += code;
    text.resize(size);
    const std::string_view placed = guarded.place(text);
    for (const CodeContext& c : contexts(nullptr)) {
      EXPECT_EQ(screen_python(placed, c).full, screen_python(text, c).full) << size;
      EXPECT_TRUE(audit_code(placed, c) == audit_code(text, c)) << size;
    }
  }
}

TEST(CodeScreen, AgreesWithTheFullPassOnTheTypesOfRandomEmbeddedCpp) {
  // C++ bodies (in a Python string that reads as C++) where only narrow-cpp-type can fire: the
  // types among comments, strings, character literals, raw strings, numbers that swallow letters
  // and escapes, over several lines.
  const std::vector<std::string> pieces = {"__nv_fp8_e4m3",
                                           "__half2",
                                           "half",
                                           "__hip_fp4",
                                           "bf16",
                                           "float",
                                           "double",
                                           "__nv_bfloat16",
                                           " ",
                                           "\n",
                                           "\\n",
                                           "\\t",
                                           "//",
                                           "/*",
                                           "*/",
                                           "'",
                                           "\\\"",
                                           "R\\\"(",
                                           ")\\\"",
                                           "\"",
                                           "R\"(",
                                           ")\"",
                                           "R\"d(",
                                           ")d\"",
                                           "1'0",
                                           "1.",
                                           "0x1p+",
                                           "x",
                                           ".",
                                           "(",
                                           ")",
                                           ";",
                                           "*",
                                           "u8",
                                           "L",
                                           "\\\n",
                                           "a_"};
  std::mt19937_64 rng(17);
  size_t decided = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string body = "#include <x>\n" + kbdata::testing::random_text(rng, pieces, 60);
    const std::string code = "x = 1\nsrc = \"\"\"" + body + "\"\"\"\ny = 2\n";
    for (const CodeContext& c : contexts(nullptr)) {
      expect_agree(code, c, "embedded C++");
      const Screen screen = screen_python(code, c);
      decided += !screen.full && !screen.cpp.empty() && screen.cpp[0].types_only ? 1 : 0;
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(decided, 3000U) << decided;
}

}  // namespace
}  // namespace kbdata::audit
