#include "source/embedded.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>

#include "source/substrings.h"

namespace kbdata::source {
namespace {

bool is_op(std::string_view text, const Token& t, std::string_view op) {
  return token_is(text, t, TokenKind::OP, op);
}

// Calls whose arguments are compiled as C++, and the keyword arguments that hold sources. An
// empty list of keywords means the first positional argument (and kernel_source=).
struct CompilingCall {
  std::string_view name;
  bool first_positional;
};
constexpr CompilingCall kCalls[] = {
    {"load_inline", false}, {"compile_kernel", true}, {"_compile_kernel", true},
    {"RawKernel", true},    {"RawModule", false},     {"SourceModule", true},
};
constexpr std::string_view kSourceKeywords[] = {"cpp_sources", "cuda_sources", "code",
                                                "kernel_source", "source"};

}  // namespace

bool may_embed_cpp(std::string_view text) {
  static const Substrings telltales = [] {
    std::vector<std::string_view> words;
    for (const CompilingCall& c : kCalls) words.push_back(c.name);
    for (std::string_view w : {"#include", "__global__", "__device__", "extern \"C\""}) {
      words.push_back(w);
    }
    return Substrings(words);
  }();
  return telltales.any_in(text);
}

bool reads_as_cpp(std::string_view body) {
  // #include first: rare elsewhere, and most sources start with one.
  return body.find("#include") != std::string_view::npos ||
         body.find("__global__") != std::string_view::npos ||
         body.find("__device__") != std::string_view::npos ||
         body.find("extern \"C\"") != std::string_view::npos;
}

std::vector<EmbeddedSource> embedded_cpp_sources(std::string_view text,
                                                 const std::vector<Token>& tokens) {
  const size_t n = tokens.size();
  // Names bound to strings: NAME = "..." "..." + "..." (and NAME += ...), at any depth of code.
  std::unordered_map<std::string_view, std::vector<uint32_t>> bound;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (tokens[i].kind != TokenKind::NAME) continue;
    if (i > 0 && is_op(text, tokens[i - 1], ".")) continue;
    const bool assign = is_op(text, tokens[i + 1], "=") || is_op(text, tokens[i + 1], "+=");
    if (!assign) continue;
    if (i > 0 && tokens[i - 1].kind != TokenKind::NEWLINE && !is_op(text, tokens[i - 1], ";") &&
        tokens[i - 1].kind != TokenKind::COMMENT) {
      continue;  // a keyword argument or part of a longer target
    }
    std::vector<uint32_t> strings;
    size_t j = i + 2;
    for (; j < n && tokens[j].kind != TokenKind::NEWLINE; ++j) {
      if (tokens[j].kind == TokenKind::STRING) {
        strings.push_back(static_cast<uint32_t>(j));
      } else if (!is_op(text, tokens[j], "+") && !is_op(text, tokens[j], "(") &&
                 !is_op(text, tokens[j], ")") && tokens[j].kind != TokenKind::COMMENT) {
        break;
      }
    }
    if (strings.empty()) continue;
    auto& list = bound[token_text(text, tokens[i])];
    if (is_op(text, tokens[i + 1], "=")) list.clear();
    list.insert(list.end(), strings.begin(), strings.end());
  }

  std::vector<uint32_t> passed;
  const auto take = [&](size_t j) {
    if (tokens[j].kind == TokenKind::STRING) {
      passed.push_back(static_cast<uint32_t>(j));
    } else if (tokens[j].kind == TokenKind::NAME) {
      auto it = bound.find(token_text(text, tokens[j]));
      if (it != bound.end()) passed.insert(passed.end(), it->second.begin(), it->second.end());
    }
  };
  for (size_t i = 0; i + 1 < n; ++i) {
    if (tokens[i].kind != TokenKind::NAME || !is_op(text, tokens[i + 1], "(")) continue;
    const std::string_view name = token_text(text, tokens[i]);
    const CompilingCall* call = nullptr;
    for (const CompilingCall& c : kCalls) {
      if (c.name == name) call = &c;
    }
    if (call == nullptr) continue;
    const uint16_t depth = tokens[i + 1].depth;  // the call's own depth; arguments are deeper
    bool first = true;                           // in the first positional argument
    bool in_kw = false;                          // in a source keyword's value
    bool at_arg = true;                          // at the start of an argument
    for (size_t j = i + 2; j < n; ++j) {
      const Token& t = tokens[j];
      if (t.depth == depth && is_op(text, t, ")")) break;
      if (t.depth == depth + 1 && is_op(text, t, ",")) {
        first = false;
        in_kw = false;
        at_arg = true;
        continue;
      }
      if (at_arg && t.depth == depth + 1 && t.kind == TokenKind::NAME && j + 1 < n &&
          is_op(text, tokens[j + 1], "=")) {
        const std::string_view kw = token_text(text, t);
        in_kw = std::find(std::begin(kSourceKeywords), std::end(kSourceKeywords), kw) !=
                std::end(kSourceKeywords);
        first = false;
        ++j;
        at_arg = false;
        continue;
      }
      at_arg = false;
      if (in_kw || (first && call->first_positional)) take(j);
    }
  }

  std::vector<EmbeddedSource> out;
  std::sort(passed.begin(), passed.end());
  passed.erase(std::unique(passed.begin(), passed.end()), passed.end());
  for (size_t i = 0; i < n; ++i) {
    if (tokens[i].kind != TokenKind::STRING) continue;
    const bool given = std::binary_search(passed.begin(), passed.end(), static_cast<uint32_t>(i));
    if (given || reads_as_cpp(token_body(text, tokens[i]))) {
      out.push_back({static_cast<uint32_t>(i), given});
    }
  }
  return out;
}

std::vector<Token> tokenize_embedded(std::string_view text, const Token& string) {
  return tokenize_cpp(token_body(text, string), string.line, string.body_begin);
}

bool is_cpp_source(std::string_view code, std::string_view file_name) {
  for (std::string_view ext : {".cu", ".cuh", ".cpp", ".cc", ".hip", ".h", ".hpp"}) {
    if (file_name.ends_with(ext)) return true;
  }
  if (!file_name.empty()) return false;
  size_t i = 0;
  while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
  const std::string_view rest = code.substr(i);
  return rest.starts_with("#include") || rest.starts_with("#pragma");
}

}  // namespace kbdata::source
