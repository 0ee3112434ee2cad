// The audit reads code as Python does, so a rewrite that keeps a kernel's meaning keeps its
// verdict: every labelled kernel (tests/data/audit), rewritten through renamed locals, aliases of
// its imports, strings split in two (adjacent or joined with +) and assignments turned into tuple
// targets, each alone and all together, gets the verdict of the original.
//
// KBDATA_DUMP_REWRITES=DIR writes each rewritten kernel there (to check with Python that they
// still parse: `python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" FILE`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "audit/code_rules.h"
#include "source/embedded.h"
#include "source/python_model.h"
#include "source/tokens.h"
#include "support/run_kbdata.h"

namespace kbdata::audit {
namespace {

using source::Token;
using source::TokenKind;

// Edits at token positions, applied from the end so that offsets stay valid.
struct Edit {
  size_t begin;
  size_t end;
  std::string text;
};

std::string apply(const std::string& text, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.begin > b.begin || (a.begin == b.begin && a.end > b.end);
  });
  std::string out = text;
  size_t limit = text.size();
  for (const Edit& e : edits) {
    if (e.end > limit) continue;  // overlapping: the later edit wins
    out.replace(e.begin, e.end - e.begin, e.text);
    limit = e.begin;
  }
  return out;
}

bool after_dot(const std::string& text, const std::vector<Token>& t, size_t k) {
  size_t j = k;
  while (j > 0) {
    --j;
    if (t[j].kind == TokenKind::COMMENT) continue;
    return source::token_is(text, t[j], TokenKind::OP, ".");
  }
  return false;
}

const std::set<std::string> kKeep = {"custom_kernel", "self", "cls",   "data",  "True",
                                     "False",         "None", "print", "super", "object"};

// Locals and module names the code binds by assignment, for-targets and parameters, renamed with
// a suffix wherever they stand as names (never after a dot, never as a keyword argument's name).
std::string rename_locals(const std::string& text) {
  const std::vector<Token> t = source::tokenize_python(text);
  std::set<std::string> bound;
  std::set<std::string> excluded = kKeep;
  const auto txt = [&](size_t k) { return std::string(source::token_text(text, t[k])); };
  const auto op = [&](size_t k, const char* s) {
    return k < t.size() && source::token_is(text, t[k], TokenKind::OP, s);
  };
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].kind != TokenKind::NAME) continue;
    const std::string w = txt(k);
    if (after_dot(text, t, k)) {
      excluded.insert(w);  // an attribute somewhere: keep the name everywhere
      continue;
    }
    if (k > 0 && (txt(k - 1) == "import" || txt(k - 1) == "as" || txt(k - 1) == "from" ||
                  txt(k - 1) == "def" || txt(k - 1) == "class" || txt(k - 1) == "global" ||
                  txt(k - 1) == "nonlocal")) {
      excluded.insert(w);
    }
    // NAME = at a line start (not ==, not a keyword argument), NAME in a for target.
    const bool statement_start =
        k == 0 || t[k - 1].kind == TokenKind::NEWLINE || (t[k - 1].kind == TokenKind::COMMENT);
    if (statement_start && op(k + 1, "=")) bound.insert(w);
    if (k > 0 && txt(k - 1) == "for") bound.insert(w);
    // A keyword argument or a default: keep the name (renaming would change the call).
    if (t[k].depth > 0 && op(k + 1, "=") && k > 0 && (op(k - 1, "(") || op(k - 1, ","))) {
      excluded.insert(w);
    }
  }
  std::vector<Edit> edits;
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].kind != TokenKind::NAME || after_dot(text, t, k)) continue;
    const std::string w = txt(k);
    if (bound.count(w) == 0 || excluded.count(w) > 0 || w.starts_with("__")) continue;
    edits.push_back({t[k].begin, t[k].end, w + "_r"});
  }
  return apply(text, std::move(edits));
}

// Every module-level name an import binds gets an alias right after its import, and every use of
// it (not in an import, never after a dot) goes through the alias.
std::string alias_imports(const std::string& text) {
  const source::PythonModel model(text);
  std::vector<Edit> edits;
  std::map<std::string, std::string> alias;
  for (const source::Binding& b : model.bindings()) {
    if (b.kind != source::Binding::Kind::IMPORT || b.scope != 0) continue;
    const std::string name(b.name);
    if (name.starts_with("__") || alias.count(name) > 0) continue;
    const source::Statement& st = model.statements()[b.statement];
    // After the import's line: the same indentation.
    const Token& last = model.tokens()[st.end - 1];
    size_t eol = text.find('\n', last.end);
    if (eol == std::string::npos) eol = text.size();
    std::string indent(source::python_indent(text, model.tokens()[st.begin]), ' ');
    const std::string a = name + "_alias";
    alias[name] = a;
    edits.push_back({eol, eol, "\n" + indent + a + " = " + name});
  }
  const std::vector<Token>& t = model.tokens();
  for (uint32_t k = 0; k < t.size(); ++k) {
    if (t[k].kind != TokenKind::NAME || (k > 0 && model.op(k - 1, "."))) continue;
    const auto it = alias.find(std::string(model.name(k)));
    if (it == alias.end()) continue;
    const uint32_t st = model.statement_of(k);
    if (model.statements()[st].kind == source::StatementKind::IMPORT) continue;
    if (k + 1 < t.size() && model.op(k + 1, "=") && t[k].depth > 0) continue;  // keyword
    edits.push_back({t[k].begin, t[k].end, it->second});
  }
  return apply(text, std::move(edits));
}

// Every one-line string literal of two bytes or more (not an f-string) split in two: by
// adjacency where it stands beside another literal, else as ("a" + "b").
std::string split_strings(const std::string& text, bool plus) {
  const std::vector<Token> t = source::tokenize_python(text);
  std::vector<Edit> edits;
  for (size_t k = 0; k < t.size(); ++k) {
    const Token& s = t[k];
    if (s.kind != TokenKind::STRING || s.triple_quoted() || !s.closed()) continue;
    if ((s.flags & source::kTokenFormat) != 0) continue;
    const std::string_view whole = source::token_text(text, s);
    const uint32_t body_begin = source::token_body_begin(text, s);
    const std::string_view body = source::token_body(text, s);
    if (body.size() < 2) continue;
    // A split point not inside an escape.
    size_t at = body.size() / 2;
    while (at > 0 &&
           body.substr(at > 4 ? at - 4 : 0, at > 4 ? 4 : at).find('\\') != std::string_view::npos) {
      --at;
    }
    if (at == 0) continue;
    const std::string head(whole.substr(0, body_begin - s.begin));  // prefix and quote
    const std::string quote(1, whole[body_begin - s.begin - 1]);
    const std::string first = head + std::string(body.substr(0, at)) + quote;
    const std::string second = head + std::string(body.substr(at)) + quote;
    const bool adjacent = (k > 0 && t[k - 1].kind == TokenKind::STRING) ||
                          (k + 1 < t.size() && t[k + 1].kind == TokenKind::STRING);
    const std::string replacement =
        plus && !adjacent ? "(" + first + " + " + second + ")" : first + " " + second;
    edits.push_back({s.begin, s.end, replacement});
  }
  return apply(text, std::move(edits));
}

// `NAME = value` becomes `NAME, _unpacked = (value), 0`.
std::string tuple_targets(const std::string& text) {
  const source::PythonModel model(text);
  std::vector<Edit> edits;
  for (const source::Statement& st : model.statements()) {
    if (st.kind != source::StatementKind::SIMPLE || st.end < st.begin + 3) continue;
    if (!model.is_name(st.begin) || !model.op(st.begin + 1, "=")) continue;
    bool more = false;  // a second `=` at the top level: a chain of targets
    for (uint32_t k = st.begin + 2; k < st.end; ++k) {
      more = more || (model.op(k, "=") && model.tokens()[k].depth == 0);
    }
    if (more) continue;
    const Token& name = model.tokens()[st.begin];
    const Token& first = model.tokens()[st.begin + 2];
    const Token& last = model.tokens()[st.end - 1];
    edits.push_back({name.end, name.end, ", _unpacked"});
    edits.push_back({first.begin, first.begin, "("});
    edits.push_back({last.end, last.end, "), 0"});
  }
  return apply(text, std::move(edits));
}

Verdict verdict(const std::string& code, const CodeContext& context) {
  return verdict_of(audit_code(code, context));
}

TEST(RewriteProperty, RewritesThatKeepTheMeaningKeepTheVerdict) {
  const char* dump = std::getenv("KBDATA_DUMP_REWRITES");
  size_t kernels = 0;
  for (const char* group : {"cheat", "honest"}) {
    const std::filesystem::path dir = std::filesystem::path(KBDATA_TEST_DATA) / "audit" / group;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (source::is_cpp_source("", name)) continue;  // C++ files: nothing of Python to rewrite
      const std::string code = kbdata::testing::read_file(entry.path().string());
      CodeContext context;
      const size_t bits_at = code.find("reference-float-bits: ");
      if (bits_at != std::string::npos) {
        context.reference_float_bits = std::atoi(code.c_str() + bits_at + 22);
      }
      const Verdict original = verdict(code, context);
      ++kernels;
      const std::vector<std::pair<std::string, std::string>> rewrites = {
          {"rename", rename_locals(code)},
          {"alias", alias_imports(code)},
          {"split", split_strings(code, false)},
          {"plus", split_strings(code, true)},
          {"tuple", tuple_targets(code)},
          {"all", tuple_targets(split_strings(alias_imports(rename_locals(code)), true))},
      };
      for (const auto& [how, rewritten] : rewrites) {
        EXPECT_EQ(verdict(rewritten, context), original)
            << group << "/" << name << " rewritten by " << how << ":\n"
            << rewritten;
        if (dump != nullptr) {
          std::ofstream(std::filesystem::path(dump) / (std::string(group) + "_" + how + "_" + name))
              << rewritten;
        }
      }
    }
  }
  EXPECT_GE(kernels, 100U);
}

}  // namespace
}  // namespace kbdata::audit
