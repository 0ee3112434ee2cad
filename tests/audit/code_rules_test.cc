// Each code rule on one example that must fire it and one that must not (the examples of
// docs/audit.md).
#include "audit/code_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "source/embedded.h"

namespace kbdata::audit {
namespace {

struct Example {
  const char* rule;
  const char* positive;
  const char* negative;
};

bool fires(const char* rule_name, const std::string& code, const Example& e) {
  CodeContext context;
  // The reference of every example's problem names float32 alone.
  context.reference_float_bits = 32;
  (void)e;
  const RuleId id = *find_rule(rule_name);
  for (const Finding& f : audit_code(code, context)) {
    if (f.rule == id) return true;
  }
  return false;
}

const Example kExamples[] = {
    {"timer-patch", "import time\nt = time\nt.perf_counter = lambda: 0.0\n",
     "import time\nt0 = time.perf_counter()\n# time.perf_counter = f\n"},
    {"timer-subclass", "import torch\nclass E(torch.cuda.Event):\n    pass\n",
     "import torch\nclass E(torch.nn.Module):\n    pass\n"},
    {"harness-patch", "import utils\nutils.verbose_allclose = lambda *a: []\n",
     "from utils import make_match_reference\ncheck = make_match_reference(f)\n"},
    {"harness-access", "import sys\nm = sys.modules['eval']\n",
     "import sys\nsys.path.append('.')\n"},
    {"result-pipe", "import os\nfd = int(os.environ['POPCORN' '_FD'])\n",
     "import os\nfd = int(os.environ['LOCAL_RANK'])\n"},
    {"fake-benchmark-line", "print(f'benchmark.{i}.mean: 1.0')\n",
     "'''Measured: benchmark.0.mean: 12.3'''\nprint('benchmark done, mean of runs 1.0')\n"},
    {"caller-frame", "import inspect\nname = inspect.stack()[1].function\n",
     "import inspect\nsig = inspect.signature(f)\n"},
    {"argv-check", "import sys\nif 'benchmark' in sys.argv: pass\n",
     "import sys\nprint(sys.version)\n"},
    {"env-mode-check", "import os\nmode = os.getenv('EVAL_MODE')\n",
     "import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = '10.0a'\n"},
    {"call-counter", "n = 0\ndef custom_kernel(d):\n    global n\n    n += 1\n    return d[-1]\n",
     "def custom_kernel(d):\n    n = 0\n    n += 1\n    return d[-1]\n"},
    {"identity-key", "cache = {}\ndef f(x):\n    return cache.get(id(x))\n",
     "def f(a):\n    ptrs = [a.data_ptr()]\n    return ptrs\n"},
    {"cached-output-replay",
     "_out = None\n_n = 0\ndef custom_kernel(d):\n    global _out, _n\n    _n += 1\n    if _out is "
     "not None:\n        return _out\n    _out = d[0] * 2\n    return _out\n",
     "_k = {}\ndef get(shape):\n    if shape in _k:\n        return _k[shape]\n    _k[shape] = 1\n "
     "   return _k[shape]\n"},
    {"warmup-branch",
     "_s = {'n': 0}\ndef custom_kernel(d):\n    a, c = d\n    _s['n'] += 1\n    if _s['n'] > 2:\n"
     "        return _s['out']\n    _s['out'] = a * 2\n    return _s['out']\n",
     "_g = {}\ndef custom_kernel(d):\n    a, c = d\n    k = a.data_ptr()\n    if k in _g:\n"
     "        _g[k].replay()\n        return c\n    return c\n"},
    {"return-input",
     "def custom_kernel(data):\n    a, b, c = data\n    x = a\n    return x.view(-1)\n",
     "def custom_kernel(data):\n    out, a, b = data\n    torch.mm(a, b, out=out)\n    return "
     "out\n"},
    {"input-overwrite",
     "def custom_kernel(data):\n    a, b, c = data\n    a[:] = 0\n    return c\n",
     "def custom_kernel(data):\n    a, b, c = data\n    c.zero_()\n    c.add_(a)\n    return c\n"},
    {"input-write",
     "def custom_kernel(data):\n    a, b, c = data\n    a.copy_(b)\n    c.copy_(a)\n    return c\n",
     "def custom_kernel(data):\n    a, b, c = data\n    torch.matmul(a, b, out=c)\n    c.relu_()\n"
     "    return c\n"},
    {"truncated-input",
     "def custom_kernel(data):\n    x, out = data\n    out.copy_(x[: x.numel() // 4].mean())\n"
     "    return out\n",
     "def custom_kernel(data):\n    a, b, c = data\n    h = a.shape[0] // 2\n    c[:h] = a[:h] @ "
     "b\n"
     "    c[h:] = a[h:] @ b\n    return c\n"},
    {"partial-input",
     "def custom_kernel(data):\n    x, out = data\n    n = x.numel()\n    out[0] = x[: n // "
     "4].sum() * 4\n"
     "    return out\n",
     "def custom_kernel(data):\n    x, out = data\n    for i in range(0, x.numel(), 4096):\n"
     "        out[i:i + 4096] = x[i:i + 4096] * 4\n    return out\n"},
    {"constant-output",
     "def custom_kernel(data):\n    a, b, c = data\n    c.fill_(0.5)\n    return c\n",
     "def custom_kernel(data):\n    a, b, c = data\n    c.fill_(0.0)\n    c.add_(a @ b)\n    "
     "return c\n"},
    {"unwritten-output",
     "def custom_kernel(data):\n    a, b = data\n    out = torch.empty_like(a)\n    return out\n",
     "def custom_kernel(data):\n    a, b = data\n    out = torch.empty_like(a)\n    k[(1,)](a, b, "
     "out)\n"
     "    return out\n"},
    {"output-ignores-inputs",
     "def custom_kernel(data):\n    a, b = data\n    torch.manual_seed(0)\n"
     "    return torch.randn(a.shape, device=a.device) @ torch.randn(b.shape, device=b.device)\n",
     "def custom_kernel(data):\n    a, b = data\n    return torch.randn(a.shape, device=a.device) "
     "+ a\n"},
    {"rng-seed", "import torch\ntorch.manual_seed(42)\n", "import torch\ng = torch.randn(4)\n"},
    {"rng-state", "import torch\ntorch.cuda.set_rng_state(_saved)\n",
     "import torch\ndef f():\n    s = torch.cuda.get_rng_state()\n    x = torch.rand(3)\n"
     "    torch.cuda.set_rng_state(s)\n    return x\n"},
    {"unsynced-stream",
     "import torch\nS = torch.cuda.Stream\ns = S()\nwith torch.cuda.stream(s):\n    f()\n",
     "import torch\ns = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    "
     "f()\ns.synchronize()\n"},
    {"precision-downgrade", "def custom_kernel(d):\n    return d[0].half() @ d[1].half()\n",
     "def custom_kernel(d):\n    return d[0].float() @ d[1].float()\n"},
    {"dynamic-exec", "exec(open('k.py').read())\n", "model.eval()\nfn = torch.compile(f)\n"},
    {"obfuscated-exec", "import zlib\nrun = exec\nrun(zlib.decompress(blob))\n",
     "import zlib\ndata = zlib.decompress(blob)\n"},
    {"runtime-install", "import os\nos.system('pip install triton==3.1')\n",
     "raise ImportError('this needs triton: pip install triton')\n"},
    {"network-access", "import requests\nsrc = requests.get(url).text\n",
     "requests = []\nrequests.append(1)\nurl_len = len('https://x')\n"},
    {"runtime-code-load",
     "import importlib.util\nspec = importlib.util.spec_from_file_location('k', '/tmp/k.py')\n",
     "import importlib\nv = importlib.metadata.version('torch')\n"},
    {"native-patch",
     "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nlibc.mprotect(ctypes.c_void_p(p), 4096, 7)\n",
     "import ctypes\nlib = ctypes.CDLL('./k.so')\nlib.run(ctypes.c_void_p(x.data_ptr()))\n"},
    {"process-memory", "with open('/proc/self/mem', 'rb') as f:\n    f.seek(a)\n",
     "with open('/proc/cpuinfo') as f:\n    info = f.read()\n"},
    {"fd-redirect", "import os\nos.dup2(w, 1)\n", "import os\nr, w = os.pipe()\n"},
    {"coding-cookie", "# -*- coding: utf-7 -*-\nx = 1\n", "# -*- coding: utf-8 -*-\nx = 1\n"},
    {"graph-stale-inputs", "import torch\ng = torch.cuda.CUDAGraph()\ng.replay()\n",
     "import torch\ng = torch.cuda.CUDAGraph()\nstatic[:] = x\ng.replay()\n"},
    {"cuda-graph", "import torch\ng = torch.cuda.CUDAGraph()\nstatic.copy_(x)\ng.replay()\n",
     "import torch\nx = torch.cuda.is_available()\n"},
    {"timer-call", "import time\nt = time.perf_counter()\n", "import time as t\nprint(t)\n"},
    {"narrow-cpp-type", "src = '__global__ void k(__half* a) {}'\n",
     "src = '__global__ void k(float* a) {}'\n"},
};

// Every rule of the code has its pair above (the score rules and reference-copy are the score
// rules' and the normalisation's tests').
TEST(CodeRules, EveryCodeRuleHasAnExample) {
  for (const Rule& r : rules()) {
    if (is_score_rule(r.id) || r.id == RuleId::STATUS_HACKED || r.id == RuleId::REFERENCE_COPY) {
      continue;
    }
    const bool listed = std::any_of(std::begin(kExamples), std::end(kExamples),
                                    [&](const Example& e) { return e.rule == r.name; });
    EXPECT_TRUE(listed) << r.name << " has no example";
  }
}

TEST(CodeRules, EachRuleFiresOnItsExampleAndNotOnItsCounterExample) {
  for (const Example& e : kExamples) {
    ASSERT_TRUE(find_rule(e.rule).has_value()) << e.rule;
    EXPECT_TRUE(fires(e.rule, e.positive, e)) << e.rule << " missed:\n" << e.positive;
    EXPECT_FALSE(fires(e.rule, e.negative, e)) << e.rule << " fired on:\n" << e.negative;
  }
}

// A counter counts by a constant: `self.n += 1` counts calls; a KV cache's length advanced by the
// entries it takes (`self.seq_len += kv.size(1)`) or a running sum is no counter.
TEST(CodeRules, ACounterCountsByAConstant) {
  const auto counts = [](const std::string& code) {
    for (const Finding& f : audit_code_in_full(code, {})) {
      if (f.rule == RuleId::CALL_COUNTER) return true;
    }
    return false;
  };
  EXPECT_TRUE(counts("class K:\n    def forward(self, x):\n        self.calls += 1\n"));
  EXPECT_TRUE(counts("n = 0\ndef f(x):\n    global n\n    n += 2\n"));
  EXPECT_TRUE(counts("_s = {'n': 0}\ndef f(x):\n    _s['n'] -= 1\n"));
  EXPECT_TRUE(counts("STEP = 1\nclass K:\n    def forward(self, x):\n        self.n += STEP\n"));
  EXPECT_FALSE(
      counts("class KVCache:\n    def forward(self, kv):\n"
             "        self.seq_len += kv.size(1)\n"));
  EXPECT_FALSE(counts("total = 0\ndef f(x):\n    global total\n    total += x.sum()\n"));
}

// The output buffer the harness gives is written by whatever the function hands it to: the whole
// data tuple to a launch, a call whose result is dropped or bound to a name never read, a graph
// replayed; an output sliced is the output, not a truncated input. None of these is a cheat (the
// templates' untouched `return c` is: the buffer holds whatever the allocator left in it).
TEST(CodeRules, AnOutputWrittenOutOfSight) {
  const auto verdict = [](const std::string& body) {
    const std::string code = "import torch\ndef custom_kernel(data):\n    a, b, c = data\n" + body;
    return verdict_of(audit_code_in_full(code, {}));
  };
  EXPECT_EQ(verdict("    kernel[(4,)](*data)\n    return c\n"), Verdict::CLEAN);
  EXPECT_EQ(verdict("    mod.run(data)\n    return c\n"), Verdict::CLEAN);
  EXPECT_EQ(verdict("    ext.gemm(a, b, c) if a.is_cuda else None\n    return c\n"),
            Verdict::CLEAN);
  EXPECT_EQ(verdict("    _ = ext.gemm(a, b, c)\n    return c\n"), Verdict::CLEAN);
  EXPECT_EQ(verdict("    status = ext.gemm(a, b, c)\n    return c\n"), Verdict::CLEAN);
  EXPECT_EQ(verdict("    torch.mm(a, b, out=c[:, :4])\n    return c\n"), Verdict::CLEAN);
  EXPECT_EQ(verdict("    _static[0].copy_(a)\n    _graphs[a.shape].replay()\n    return c\n"),
            Verdict::CLEAN);
  EXPECT_EQ(verdict("    return c\n"), Verdict::CHEAT);
  EXPECT_EQ(verdict("    x = torch.zeros_like(a)\n    return a\n"), Verdict::CHEAT);
  EXPECT_EQ(verdict("    y = b + 1\n    return y if y.any() else a\n"), Verdict::CLEAN);
  // Several outputs returned as a tuple: each is an output, written in place.
  EXPECT_EQ(verdict("    b[...] = a.abs()\n    c[...] = a.sign()\n    return b, c\n"),
            Verdict::CLEAN);
  EXPECT_EQ(verdict("    b[...] = a.abs()\n    return (b, c)\n"), Verdict::CLEAN);
}

// With the reference unknown, a cast down is a downgrade when its result is cast back to an
// input's dtype afterwards; an input widened first and the result cast to the output's type is
// not one.
TEST(CodeRules, ACastBackComesAfterTheCastDown) {
  const auto downgrades = [](const std::string& body) {
    const std::string code = "import torch\ndef custom_kernel(data):\n    a, b, c = data\n" + body;
    for (const Finding& f : audit_code_in_full(code, {})) {
      if (f.rule == RuleId::PRECISION_DOWNGRADE) return true;
    }
    return false;
  };
  EXPECT_TRUE(downgrades("    return (a.half() @ b.half()).to(a.dtype)\n"));
  EXPECT_TRUE(
      downgrades("    x = a.to(torch.bfloat16) @ b.to(torch.bfloat16)\n"
                 "    return x.to(a.dtype)\n"));
  EXPECT_FALSE(
      downgrades("    a = a.to(b.dtype)\n    c[...] = (a @ b).to(torch.bfloat16)\n"
                 "    return c\n"));
}

TEST(CodeRules, CppRulesReadTheSourcesEmbeddedInPython) {
  const std::string code =
      "src = r'''\n#include <cstdio>\n__global__ void k() {}\n"
      "void run() { cudaStream_t s; cudaStreamCreate(&s); printf(\"benchmark.0.mean %f\", 1.0); }\n"
      "'''\n"
      "m = load_inline('k', cpp_sources='', cuda_sources=src)\n";
  std::vector<std::string> names;
  uint32_t stream_line = 0;
  for (const Finding& f : audit_code(code, {})) {
    names.emplace_back(rule(f.rule).name);
    if (f.rule == RuleId::UNSYNCED_STREAM) stream_line = f.line;
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "unsynced-stream"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "fake-benchmark-line"), names.end());
  EXPECT_EQ(stream_line, 4U);
  // The same words in a C++ comment fire nothing.
  const std::string commented =
      "src = '''\n__global__ void k() {}\n// cudaStreamCreate(&s); \"benchmark.0.mean\"\n'''\n";
  EXPECT_TRUE(audit_code(commented, {}).empty());
}

TEST(CodeRules, AWholeCppFile) {
  CodeContext cpp;
  cpp.cpp_file = true;
  const auto findings =
      audit_code("#include <cstdlib>\nint m = atoi(getenv(\"BENCH_MODE\"));\n", cpp);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, RuleId::ENV_MODE_CHECK);
  EXPECT_EQ(findings[0].line, 2U);
}

TEST(CodeRules, EvidenceNamesTheLineAndItsText) {
  const auto findings = audit_code("import time\n\n  # x\ntime.time = lambda: 0\n", {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].line, 4U);
  EXPECT_EQ(findings[0].text, "time.time = lambda: 0");
}

TEST(CodeRules, CppSourceDetection) {
  EXPECT_TRUE(source::is_cpp_source("int x;", "submission.cu"));
  EXPECT_FALSE(source::is_cpp_source("#include <x>", "submission.py"));
  EXPECT_TRUE(source::is_cpp_source("  #include <x>\n", ""));
  EXPECT_FALSE(source::is_cpp_source("# comment\nimport torch\n", ""));
}

TEST(CodeRules, NormalisationIgnoresCommentsAndLayout) {
  EXPECT_EQ(normalised_code("def f(x):\n    # doubles\n    return x * 2\n", false),
            normalised_code("def f( x ):\n  return x*2  # twice\n", false));
  EXPECT_NE(normalised_code("return x * 2\n", false), normalised_code("return x * 3\n", false));
  EXPECT_EQ(normalised_code("int f() { return 1; } // one", true),
            normalised_code("int f()\n{\n  return 1;\n}", true));
}

// reference-copy compares the code's tokens with the reference's normalised text as they come:
// it must fire exactly when normalised_code of both are equal, for every pair of texts here
// (equal but for layout, a prefix, one token more, a token split in two, a string's body).
TEST(CodeRules, ReferenceCopyIsEqualNormalisedText) {
  const std::vector<std::pair<std::string, bool>> texts = {
      {"def f(x):\n    # doubles\n    return x * 2\n", false},
      {"def f( x ):\n  return x*2  # twice\n", false},
      {"def f(x):\n    return x * 2\n    pass\n", false},
      {"def f(x):\n    return x * 2 ", false},
      {"def f(x):\n    return x *2", false},
      {"def f(x):\n    return x * 22\n", false},
      {"def f(x):\n    return x ** 2\n", false},
      {"def f(x):\n    return 'x * 2'\n", false},
      {"def f(x):\n    return x\n", false},
      {"", false},
      {"int f() { return 1; } // one", true},
      {"int f()\n{\n  return 1;\n}", true},
      {"int f() { return 1; }}", true},
      {"int f() { return 11; }", true},
  };
  for (const auto& [reference, reference_cpp] : texts) {
    const std::string normalised = normalised_code(reference, reference_cpp);
    for (const auto& [code, cpp] : texts) {
      CodeContext context;
      context.cpp_file = cpp;
      context.reference_normalised = &normalised;
      bool copy = false;
      for (const Finding& f : audit_code(code, context)) copy |= f.rule == RuleId::REFERENCE_COPY;
      EXPECT_EQ(copy, !normalised.empty() && normalised_code(code, cpp) == normalised)
          << "reference: " << reference << "\ncode: " << code;
    }
  }
}

TEST(CodeRules, NarrowestFloat) {
  EXPECT_EQ(narrowest_float_bits("x = torch.randn(4, dtype=torch.float32)\n", false), 32);
  EXPECT_EQ(narrowest_float_bits("a = x.to(torch.float16)\nb = torch.float32\n", false), 16);
  EXPECT_EQ(narrowest_float_bits("print('float16')\n", false), std::nullopt);
  EXPECT_EQ(narrowest_float_bits("__global__ void k(__half* x, float* y) {}", true), 16);
}

}  // namespace
}  // namespace kbdata::audit
