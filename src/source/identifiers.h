// Python identifiers as Python reads them: NFKC-normalised (PEP 3131), so that `ｔｉｍｅ`
// (full-width letters) and `𝐭𝐢𝐦𝐞` (mathematical bold) are the name `time`. Only identifiers are
// normalised: keywords are matched as written, and strings keep their bytes (getattr(m, "ｔｉｍｅ")
// is another attribute).
#pragma once

#include <string>
#include <string_view>

namespace kbdata::source {

// Appends to `out` the NFKC form of identifier `name` (UTF-8): each character the table of
// identifier characters NFKC changes (tools/unicode/make_nfkc_table.py) is replaced by its form,
// every other byte is kept. Exact whenever the result is ASCII (no ASCII character comes from
// composing two others), which is every name a rule compares; a name of other scripts may differ
// from Python's in how combining marks compose, which never makes it equal to another name.
// Invalid UTF-8 is kept as it is.
void append_nfkc_identifier(std::string& out, std::string_view name);

}  // namespace kbdata::source
