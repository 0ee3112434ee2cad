// The code model reads Python as Python does: names through every binding form and the
// builtins, constant strings folded, identifiers in NFKC, the coding cookie honoured; C++ sources
// as literals or folded from any expression; strings that are executed as code of their own.
#include "source/code_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/identifiers.h"
#include "source/literals.h"

namespace kbdata::source {
namespace {

// The value of the last statement's expression (an expression statement) of `code`.
Value last_value(const PythonModel& m) {
  const Statement& st = m.statements().back();
  return m.eval(st.begin, st.end, st.scope, static_cast<uint32_t>(m.statements().size() - 1));
}

std::string object_of(const std::string& code) {
  const PythonModel m(code);
  std::string path;
  last_value(m).each([&](const Value& v) {
    if (path.empty() && v.kind == Value::Kind::OBJECT) path = v.text;
  });
  return path;
}

std::string string_of(const std::string& code) {
  const PythonModel m(code);
  const Value v = last_value(m);
  return v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES ? v.text : "<not a string>";
}

TEST(PythonModel, NamesResolveThroughEveryBindingForm) {
  EXPECT_EQ(object_of("import time\nt = time\nt.perf_counter\n"), "time.perf_counter");
  EXPECT_EQ(object_of("import time\nt, u = time, 0\nt.perf_counter\n"), "time.perf_counter");
  EXPECT_EQ(object_of("import os, time\nfor m in (os, time):\n    m\nm.perf_counter\n"),
            "os.perf_counter");
  EXPECT_EQ(object_of("import time\nm: object = time\nm.monotonic\n"), "time.monotonic");
  EXPECT_EQ(object_of("import torch.cuda as tc\ntc.Event\n"), "torch.cuda.Event");
  EXPECT_EQ(object_of("from builtins import exec as run\nrun\n"), "builtins.exec");
  EXPECT_EQ(object_of("run = exec\nrun\n"), "builtins.exec");
  EXPECT_EQ(object_of("import builtins\ngetattr(builtins, 'ex' + 'ec')\n"), "builtins.exec");
  EXPECT_EQ(object_of("__builtins__['exec']\n"), "builtins.exec");
  EXPECT_EQ(object_of("import importlib\nm = importlib.import_module('ti' + 'me')\nm.time\n"),
            "time.time");
  EXPECT_EQ(object_of("import time\nvars(time)['perf_counter']\n"), "time.perf_counter");
  EXPECT_EQ(object_of("with open('x') as f:\n    pass\nf\n"), "builtins.open()");
  // A module never imported is not that module: a list named requests is a list.
  EXPECT_EQ(object_of("requests = []\nrequests.get\n"), "");
  EXPECT_EQ(object_of("requests.get\n"), "");
  // A local shadows a builtin.
  EXPECT_EQ(object_of("def f():\n    id = 3\n    return id\nid\n"), "builtins.id");
}

TEST(PythonModel, ConstantStringsFold) {
  EXPECT_EQ(string_of("'perf_' + 'counter'\n"), "perf_counter");
  EXPECT_EQ(string_of("''.join(['a', 'b', 'c'])\n"), "abc");
  EXPECT_EQ(string_of("'cudaStream{VERB}'.replace('{VERB}', 'Create')\n"), "cudaStreamCreate");
  EXPECT_EQ(string_of("'%s_%s' % ('perf', 'counter')\n"), "perf_counter");
  EXPECT_EQ(string_of("'{}{}'.format('ex', 'ec')\n"), "exec");
  EXPECT_EQ(string_of("a = 'ex'\nf'{a}ec'\n"), "exec");
  EXPECT_EQ(string_of("'\\x73tream'\n"), "stream");
  EXPECT_EQ(string_of("'cexe'[::-1]\n"), "exec");
  EXPECT_EQ(string_of("chr(101) + 'val'\n"), "eval");
  EXPECT_EQ(string_of("bytes.fromhex('65786563').decode()\n"), "exec");
  EXPECT_EQ(string_of("import base64\nbase64.b64decode('ZXhlYw==')\n"), "exec");
  EXPECT_EQ(string_of("s = 'a'\ns += 'b'\ns\n"), "ab");
  // A part it cannot know stays a hole.
  EXPECT_EQ(string_of("'benchmark.' + str(i) + '.mean'\n"), "benchmark.{?}.mean");
  // A NUL byte is no conversion flag (Python: "unsupported format character"): a hole.
  const std::string nul_flag = std::string("'a%") + '\0' + "s' % ('b',)\n";
  EXPECT_EQ(string_of(nul_flag), "a{?}s");
}

TEST(PythonModel, IdentifiersAreReadInNfkc) {
  std::string folded;
  append_nfkc_identifier(folded, "\xef\xbd\x94\xef\xbd\x89\xef\xbd\x8d\xef\xbd\x85");  // ｔｉｍｅ
  EXPECT_EQ(folded, "time");
  EXPECT_EQ(object_of("import time\n\xef\xbd\x94\xef\xbd\x89\xef\xbd\x8d\xef\xbd\x85.sleep\n"),
            "time.sleep");
}

TEST(PythonModel, StatementsScopesAndTheEntryFunction) {
  const PythonModel m(
      "import torch\n\ndef _impl(data):\n    a, b = data\n    if a.shape[0] > 1: return a\n"
      "    return a @ b\n\ncustom_kernel = torch.compile(_impl, mode='max-autotune')\n");
  const auto entry = m.function_named("custom_kernel");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(m.scopes()[*entry].name, "_impl");
  ASSERT_EQ(m.scopes()[*entry].params.size(), 1U);
  size_t returns = 0;
  for (const ReturnFact& r : m.facts().returns)
    returns += m.statements()[r.statement].scope == *entry;
  EXPECT_EQ(returns, 2U);  // the one on the `if` line is a statement of its own
  const PythonModel callable(
      "class K:\n    def __call__(self, data):\n        return data\n"
      "custom_kernel = K()\n");
  const auto call = callable.function_named("custom_kernel");
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(callable.scopes()[*call].name, "__call__");
}

// A model of the structure alone has the statements and scopes and no binding, even when a full
// model built before it on the same thread left its storage behind (the thread's spare vectors).
TEST(PythonModel, StructureAloneResolvesNothing) {
  const std::string code = "import torch as t\nalias = t.float16\ndef f(x):\n    return x\n";
  {
    const PythonModel full(code);
    ASSERT_FALSE(full.lookup("alias", 0, 3).empty());
    EXPECT_EQ(full.object_path("alias", 0, 3), "torch.float16");
  }
  const PythonModel structure(code, {}, ModelParts::STRUCTURE);
  EXPECT_EQ(structure.statements().size(), 4U);
  EXPECT_EQ(structure.scopes().size(), 2U);
  EXPECT_TRUE(structure.bindings().empty());
  EXPECT_TRUE(structure.lookup("alias", 0, 3).empty());
  EXPECT_TRUE(structure.lookup("t", 0, 3).empty());
  // The full model after it reads the bindings again.
  const PythonModel again(code);
  EXPECT_EQ(again.object_path("alias", 0, 3), "torch.float16");
}

TEST(PythonModel, ValueTokensOfAnElement) {
  const PythonModel m("x, y = (a + 1), b\nu, v = data\n");
  for (const Binding& b : m.bindings()) {
    const auto [vb, ve] = m.value_tokens(b);
    std::string text;
    for (uint32_t k = vb; k < ve; ++k) text += std::string(m.txt(k));
    if (b.name == "x") {
      EXPECT_EQ(text, "a+1");
    } else if (b.name == "y") {
      EXPECT_EQ(text, "b");
    } else if (b.name == "u") {
      EXPECT_EQ(vb, ve);  // data's element: not written out
    }
  }
}

TEST(CodeModel, CppSourcesLiteralAndFolded) {
  const std::string code =
      "HEAD = '#include <cuda.h>\\n'\n"
      "src = HEAD + ''.join(['__global__ void k() {', ' cudaStream', 'Create(&s); }'])\n"
      "m = load_inline('m', cpp_sources='', cuda_sources=src)\n"
      "doc = 1\n"
      "'''#include <nothing.h> in a docstring'''\n";
  const CodeModel model(code, false);
  ASSERT_EQ(model.cpp_sources().size(), 1U);  // the pieces are part of the folded source
  const CppSource& s = model.cpp_sources().front();
  EXPECT_TRUE(s.folded);
  EXPECT_TRUE(s.passed_to_compiler);
  bool create = false;
  for (const Token& t : s.tokens) create = create || token_text(s.text, t) == "cudaStreamCreate";
  EXPECT_TRUE(create);
}

TEST(CodeModel, ExecutedStringsAreCode) {
  const CodeModel model("run = exec\nrun('import time\\ntime.sleep = None')\n", false);
  ASSERT_EQ(model.executed().size(), 1U);
  const PythonModel& inner = model.executed().front().model->python();
  EXPECT_EQ(inner.imported_modules(), std::vector<std::string>{"time"});
}

TEST(CodeModel, CodingCookie) {
  EXPECT_EQ(python_coding_cookie("# -*- coding: utf-7 -*-\nx = 1\n"), "utf-7");
  EXPECT_EQ(python_coding_cookie("#!/usr/bin/python\n# vim: set fileencoding=latin-1 :\n"),
            "latin-1");
  EXPECT_EQ(python_coding_cookie("x = 1\n# coding: utf-7\n"), std::nullopt);
  const CodeModel model("# -*- coding: utf-7 -*-\n# hidden+AAo-import time+AAo-\n", false);
  ASSERT_TRUE(model.coding_cookie().has_value());
  EXPECT_TRUE(model.decoded());
  EXPECT_EQ(model.python().imported_modules(), std::vector<std::string>{"time"});
}

TEST(CodeModel, StatementStringsAreProse) {
  const CodeModel model("'''doc'''\nx = '''not doc'''\n", false);
  EXPECT_TRUE(model.statement_string(0));
  EXPECT_FALSE(model.statement_string(4));
}

}  // namespace
}  // namespace kbdata::source
