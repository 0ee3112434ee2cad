// The platform's tables (src/platform/schema.sql, compiled in): what `kbdata synth --db` creates
// before it seeds them, and what the tests build databases from.
#pragma once

namespace kbdata::platform {

// The text of src/platform/schema.sql.
extern const char* const kSchemaSql;

}  // namespace kbdata::platform
