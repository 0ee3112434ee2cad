#include "source/python_imports.h"

namespace kbdata::source {
namespace {

class Reader {
 public:
  Reader(std::string_view text, const std::vector<const Token*>& tokens)
      : text_(text), tokens_(tokens) {}

  [[nodiscard]] std::string_view txt(size_t k) const {
    return k < tokens_.size() ? token_text(text_, *tokens_[k]) : std::string_view();
  }
  [[nodiscard]] bool op(size_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, *tokens_[k], TokenKind::OP, s);
  }
  [[nodiscard]] bool name(size_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, *tokens_[k], TokenKind::NAME, s);
  }
  [[nodiscard]] bool is_name(size_t k) const {
    return k < tokens_.size() && tokens_[k]->kind == TokenKind::NAME;
  }

  // The dotted name NAME (. NAME)* at k, its root resolved through `aliases`; `end` is one past it.
  [[nodiscard]] std::string dotted(size_t k, const ImportAliases& aliases, size_t& end) const {
    const std::string_view root = txt(k);
    const auto it = aliases.find(root);
    std::string resolved = it != aliases.end() ? it->second : std::string(root);
    end = k + 1;
    while (op(end, ".") && is_name(end + 1)) {
      resolved += '.';
      resolved += txt(end + 1);
      end += 2;
    }
    return resolved;
  }

 private:
  std::string_view text_;
  const std::vector<const Token*>& tokens_;
};

}  // namespace

std::vector<std::string> add_import_bindings(std::string_view text,
                                             const std::vector<const Token*>& tokens, size_t k,
                                             ImportAliases& aliases) {
  const Reader r(text, tokens);
  std::vector<std::string> modules;
  if (r.name(k, "import")) {
    size_t j = k + 1;
    while (r.is_name(j)) {
      size_t end = 0;
      std::string module = r.dotted(j, aliases, end);
      std::string_view bound = r.txt(j);
      std::string target = std::string(bound);
      if (r.name(end, "as") && r.is_name(end + 1)) {
        bound = r.txt(end + 1);
        target = module;
        end += 2;
      }
      aliases[bound] = std::move(target);
      modules.push_back(std::move(module));
      j = end;
      if (!r.op(j, ",")) break;
      ++j;
    }
  } else if (r.name(k, "from") && r.is_name(k + 1)) {
    size_t j = 0;
    std::string module = r.dotted(k + 1, aliases, j);
    if (!r.name(j, "import")) return modules;
    ++j;
    if (r.op(j, "(")) ++j;
    while (r.is_name(j)) {
      std::string_view bound = r.txt(j);
      std::string target = module + "." + std::string(r.txt(j));
      if (r.name(j + 1, "as") && r.is_name(j + 2)) {
        bound = r.txt(j + 2);
        j += 3;
      } else {
        ++j;
      }
      aliases[bound] = std::move(target);
      if (!r.op(j, ",")) break;
      ++j;
    }
    modules.push_back(std::move(module));
  }
  return modules;
}

}  // namespace kbdata::source
