#include "source/python_imports.h"

namespace kbdata::source {

std::vector<std::string> add_import_bindings(std::string_view text,
                                             const std::vector<const Token*>& tokens, size_t k,
                                             ImportAliases& aliases) {
  const TokenView v(text, tokens);
  std::vector<std::string> modules;
  if (v.name(k, "import")) {
    size_t j = k + 1;
    while (v.is_name(j)) {
      TokenView::Dotted d = v.dotted(j, aliases);
      std::string_view bound = v.txt(j);
      std::string target = std::string(bound);
      size_t end = d.end;
      if (v.name(end, "as") && v.is_name(end + 1)) {
        bound = v.txt(end + 1);
        target = d.resolved;
        end += 2;
      }
      aliases[bound] = std::move(target);
      modules.push_back(std::move(d.resolved));
      j = end;
      if (!v.op(j, ",")) break;
      ++j;
    }
  } else if (v.name(k, "from") && v.is_name(k + 1)) {
    TokenView::Dotted d = v.dotted(k + 1, aliases);
    size_t j = d.end;
    if (!v.name(j, "import")) return modules;
    ++j;
    if (v.op(j, "(")) ++j;
    while (v.is_name(j)) {
      std::string_view bound = v.txt(j);
      std::string target = d.resolved + "." + std::string(v.txt(j));
      if (v.name(j + 1, "as") && v.is_name(j + 2)) {
        bound = v.txt(j + 2);
        j += 3;
      } else {
        ++j;
      }
      aliases[bound] = std::move(target);
      if (!v.op(j, ",")) break;
      ++j;
    }
    modules.push_back(std::move(d.resolved));
  }
  return modules;
}

}  // namespace kbdata::source
