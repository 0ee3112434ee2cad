#include "parquet/write/provenance.h"

#include "common/version.h"

namespace kbdata::parquet {

void apply_provenance(const Provenance& provenance, WriterOptions& options) {
  std::vector<KeyValue>& kv = options.key_value_metadata;
  kv.clear();
  for (const KeyValue& pair : provenance.carried) {
    if (pair.key.rfind("kbdata.", 0) != 0) kv.push_back(pair);
  }
  kv.push_back({"kbdata.version", std::string(kVersion)});
  if (!provenance.command.empty()) kv.push_back({"kbdata.command", provenance.command});
  if (!provenance.rule.empty()) kv.push_back({"kbdata.rule", provenance.rule});
  if (!provenance.source.empty()) kv.push_back({"kbdata.source", provenance.source});
  kv.insert(kv.end(), provenance.more.begin(), provenance.more.end());
  options.created_by = std::string("kbdata version ") + kVersion;
}

}  // namespace kbdata::parquet
