#include "source/code_model.h"

#include <algorithm>
#include <array>

#include "source/embedded.h"
#include "source/literals.h"

namespace kbdata::source {
namespace {

// The calls that compile strings as C++, and which positional arguments hold sources:
// load_inline(name, cpp_sources, cuda_sources, ...), compile_kernel(source, name, ...), cupy's
// RawKernel(code, name) and RawModule(code=...), pycuda's SourceModule(source).
struct CompilingCall {
  std::string_view name;
  std::array<int, 2> positional;  // -1: none
};
constexpr CompilingCall kCompilingCalls[] = {
    {"load_inline", {1, 2}}, {"compile_kernel", {0, -1}}, {"_compile_kernel", {0, -1}},
    {"RawKernel", {0, -1}},  {"RawModule", {0, -1}},      {"SourceModule", {0, -1}},
};
constexpr std::string_view kSourceKeywords[] = {"cpp_sources", "cuda_sources", "code",
                                                "kernel_source", "source"};

const CompilingCall* compiling_call(std::string_view name) {
  for (const CompilingCall& c : kCompilingCalls) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The strings of a value: itself, a sequence's items, alternatives.
void strings_of(const Value& v, std::vector<const Value*>& out, int depth = 0) {
  if (depth > 8) return;
  if (v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES) {
    out.push_back(&v);
  } else if (v.kind == Value::Kind::SEQ || v.kind == Value::Kind::ANY_OF) {
    for (const Value& i : v.items) strings_of(i, out, depth + 1);
  }
}

// The compiling call the name at token k calls: by its name, or (not after a dot) through what
// the name is bound to (li = load_inline; from ... import load_inline as li); null for none.
const CompilingCall* compiling_call_at(const PythonModel& py, uint32_t k) {
  const std::string_view w = py.name(k);
  const CompilingCall* call = compiling_call(w);
  if (call != nullptr || (k > 0 && py.op(k - 1, "."))) return call;
  const uint32_t st = py.statement_of(k);
  const Value v =
      py.value_of_name(w, st < py.statements().size() ? py.statements()[st].scope : 0, st);
  v.each([&](const Value& f) {
    if (call == nullptr && f.kind == Value::Kind::OBJECT) {
      call = compiling_call(std::string_view(f.text).substr(f.text.rfind('.') + 1));
    }
  });
  return call;
}

// The deepest executed strings are followed.
constexpr int kMaxExecDepth = 2;

}  // namespace

CodeModel::CodeModel(std::string_view code, bool cpp_file, int depth, PythonLexStart start)
    : text_(code), cpp_file_(cpp_file), depth_(depth), start_(start) {
  if (cpp_file_) return;
  std::optional<std::string> cookie = python_coding_cookie(code);
  if (cookie && !is_utf8_encoding(*cookie)) {
    decoded_ = decode_to_utf8(code, *cookie);
    if (decoded_) text_ = *decoded_;
    cookie_ = std::move(cookie);
  }
}

CodeModel::~CodeModel() = default;

const PythonModel& CodeModel::python() const {
  if (!python_) {
    python_ = std::make_unique<PythonModel>(cpp_file_ ? std::string_view() : text_, start_);
  }
  return *python_;
}

bool CodeModel::statement_string(uint32_t k) const {
  const PythonModel& py = python();
  if (!py.is_kind(k, TokenKind::STRING)) return false;
  const uint32_t st = py.statement_of(k);
  if (st >= py.statements().size()) return false;
  const Statement& s = py.statements()[st];
  if (s.kind != StatementKind::SIMPLE) return false;
  for (uint32_t j = s.begin; j < s.end; ++j) {
    if (!py.is_kind(j, TokenKind::STRING)) return false;
  }
  return true;
}

const std::vector<CppSource>& CodeModel::cpp_sources() const {
  if (!cpp_) find_cpp_sources();
  return *cpp_;
}

void CodeModel::find_cpp_sources() const {
  cpp_ = std::make_unique<std::vector<CppSource>>();
  if (cpp_file_) {
    CppSource s;
    s.text = text_;
    tokenize_cpp(text_, 1, 0, s.tokens, Comments::DROP);
    s.passed_to_compiler = true;
    cpp_->push_back(std::move(s));
    return;
  }
  const PythonModel& py = python();
  std::vector<uint32_t> taken;  // literal tokens made sources
  const auto add_literal = [&](uint32_t k, bool passed) {
    if (std::find(taken.begin(), taken.end(), k) != taken.end()) {
      if (passed) {
        for (CppSource& s : *cpp_) {
          if (!s.folded && s.python_token == k) s.passed_to_compiler = true;
        }
      }
      return;
    }
    taken.push_back(k);
    const Token& t = py.tokens()[k];
    const std::string_view body = token_body(py.text(), t);
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return;  // nothing in it
    CppSource s;
    s.text = py.text();
    tokenize_cpp(token_body(py.text(), t), t.line, token_body_begin(py.text(), t), s.tokens,
                 Comments::DROP);
    s.python_token = k;
    s.passed_to_compiler = passed;
    cpp_->push_back(std::move(s));
  };
  const uint32_t n = static_cast<uint32_t>(py.size());
  // Strings given to a compiling call, or written to a file while they read as C++.
  for (uint32_t k = 0; k + 1 < n; ++k) {
    if (!py.is_name(k) || !py.op(k + 1, "(")) continue;
    const std::string_view w = py.name(k);
    const CompilingCall* call = compiling_call_at(py, k);
    const bool write = w == "write" && k > 0 && py.op(k - 1, ".");
    if (call == nullptr && !write) continue;
    const uint32_t open = k + 1;
    const uint32_t close = py.closing(open);
    const uint32_t st = py.statement_of(k);
    const uint32_t scope = st < py.statements().size() ? py.statements()[st].scope : 0;
    const uint16_t depth = py.tokens()[open].depth + 1;
    int positional = 0;
    uint32_t b = open + 1;
    for (uint32_t j = open + 1; j <= close && j <= n; ++j) {
      const bool boundary =
          j == close || j == n || (py.op(j, ",") && py.tokens()[j].depth == depth);
      if (!boundary) continue;
      if (j > b) {
        bool wanted = false;
        uint32_t vb = b;
        if (py.is_name(b) && py.op(b + 1, "=")) {
          const std::string_view kw = py.name(b);
          wanted = call != nullptr &&
                   std::find(std::begin(kSourceKeywords), std::end(kSourceKeywords), kw) !=
                       std::end(kSourceKeywords);
          vb = b + 2;
        } else {
          wanted = write ? positional == 0
                         : call != nullptr && (call->positional[0] == positional ||
                                               call->positional[1] == positional);
          ++positional;
        }
        if (wanted) {
          const Value v = py.eval(vb, j, scope, st);
          std::vector<const Value*> strings;
          strings_of(v, strings);
          for (const Value* s : strings) {
            if (s->literal != 0) {
              if (!write || reads_as_cpp(s->text)) add_literal(s->literal - 1, true);
              continue;
            }
            if (s->text.empty() || (write && !reads_as_cpp(s->text))) continue;
            // Its pieces are part of it, not sources of their own.
            taken.insert(taken.end(), s->pieces.begin(), s->pieces.end());
            folded_.push_back(std::make_unique<std::string>(s->text));
            CppSource src;
            src.text = *folded_.back();
            tokenize_cpp(src.text, py.tokens()[k].line, 0, src.tokens, Comments::DROP);
            src.python_token = k;
            src.passed_to_compiler = true;
            src.folded = true;
            cpp_->push_back(std::move(src));
          }
        }
      }
      b = j + 1;
    }
  }
  // Literals that read as C++ on their own, docstrings excepted.
  for (uint32_t k = 0; k < n; ++k) {
    if (!py.is_kind(k, TokenKind::STRING)) continue;
    if (!reads_as_cpp(token_body(py.text(), py.tokens()[k]))) continue;
    if (statement_string(k)) continue;
    add_literal(k, false);
  }
  std::stable_sort(cpp_->begin(), cpp_->end(), [](const CppSource& a, const CppSource& b) {
    return a.python_token < b.python_token;
  });
}

const std::vector<ExecutedCode>& CodeModel::executed() const {
  if (executed_) return *executed_;
  executed_ = std::make_unique<std::vector<ExecutedCode>>();
  if (cpp_file_ || depth_ >= kMaxExecDepth) return *executed_;
  for (const CallFact& c : python().facts().calls) {
    if (!c.function.is_object("builtins.exec") && !c.function.is_object("builtins.eval")) {
      continue;
    }
    const Arg* source = nullptr;
    for (const Arg& a : c.args) {
      if (a.keyword.empty() && a.star == 0) {
        source = &a;
        break;
      }
    }
    if (source == nullptr) continue;
    std::vector<std::string> texts;
    source->value.each([&](const Value& v) {
      if ((v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES ||
           v.kind == Value::Kind::CODE) &&
          !v.text.empty()) {
        texts.push_back(v.text);
      }
    });
    for (std::string& text : texts) {
      folded_.push_back(std::make_unique<std::string>(std::move(text)));
      ExecutedCode e;
      e.call = c.callee;
      const std::string& t = *folded_.back();
      e.model = std::make_unique<CodeModel>(t, is_cpp_source(t, ""), depth_ + 1);
      executed_->push_back(std::move(e));
    }
  }
  return *executed_;
}

}  // namespace kbdata::source
