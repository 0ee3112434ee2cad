// A text's tokens seen by index (the caller leaves out what it does not read, comments say), with
// the tests rules make of the token at an index, each false (or empty) past the end, and dotted
// names resolved through import bindings (source/python_imports.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "source/tokens.h"

namespace kbdata::source {

// Bound name -> the dotted name it stands for.
using ImportAliases = std::unordered_map<std::string_view, std::string>;

class TokenView {
 public:
  // Borrows both: they must outlive the view.
  TokenView(std::string_view text, const std::vector<const Token*>& tokens)
      : text_(text), tokens_(tokens) {}

  [[nodiscard]] std::string_view text() const { return text_; }
  [[nodiscard]] size_t size() const { return tokens_.size(); }
  [[nodiscard]] const Token& at(size_t k) const { return *tokens_[k]; }

  [[nodiscard, gnu::always_inline]] std::string_view txt(size_t k) const {
    return k < tokens_.size() ? token_text(text_, *tokens_[k]) : std::string_view();
  }
  [[nodiscard, gnu::always_inline]] bool op(size_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, *tokens_[k], TokenKind::OP, s);
  }
  [[nodiscard, gnu::always_inline]] bool name(size_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, *tokens_[k], TokenKind::NAME, s);
  }
  [[nodiscard]] bool is_name(size_t k) const {
    return k < tokens_.size() && tokens_[k]->kind == TokenKind::NAME;
  }
  // A Python NEWLINE, or past the end.
  [[nodiscard]] bool newline(size_t k) const {
    return k >= tokens_.size() || tokens_[k]->kind == TokenKind::NEWLINE;
  }
  // The first token of a logical line, or after a `;`.
  [[nodiscard]] bool line_start(size_t k) const {
    return k == 0 || newline(k - 1) || op(k - 1, ";");
  }
  // The index of the bracket closing the one at k, or size().
  [[nodiscard]] size_t closing(size_t k) const {
    const uint16_t depth = tokens_[k]->depth;
    for (size_t j = k + 1; j < tokens_.size(); ++j) {
      if (tokens_[j]->kind == TokenKind::OP && tokens_[j]->depth == depth &&
          (txt(j) == ")" || txt(j) == "]" || txt(j) == "}")) {
        return j;
      }
    }
    return tokens_.size();
  }

  // The dotted name NAME (. NAME)* at k, its root resolved through `aliases`.
  struct Dotted {
    std::string resolved;
    std::string_view last;  // its last part
    size_t parts = 0;
    size_t end = 0;  // one past its last token
  };
  [[nodiscard]] Dotted dotted(size_t k, const ImportAliases& aliases) const {
    Dotted d;
    const std::string_view root = txt(k);
    const auto it = aliases.find(root);
    d.resolved = it != aliases.end() ? it->second : std::string(root);
    d.last = root;
    d.parts = 1;
    size_t j = k + 1;
    while (op(j, ".") && is_name(j + 1)) {
      d.resolved += '.';
      d.resolved += txt(j + 1);
      d.last = txt(j + 1);
      ++d.parts;
      j += 2;
    }
    d.end = j;
    return d;
  }

 private:
  std::string_view text_;
  const std::vector<const Token*>& tokens_;
};

}  // namespace kbdata::source
