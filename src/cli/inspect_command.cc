#include "cli/inspect_command.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cli/input_file.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "parquet/file_reader.h"
#include "report/text.h"
#include "tabular/value_format.h"

namespace kbdata::cli {
namespace {

using parquet::ColumnDescriptor;
using parquet::ColumnMetaData;
using parquet::FileReader;
using parquet::SchemaNode;
using parquet::Statistics;

constexpr size_t kMaxStatChars = 40;

// A statistics value (PLAIN bytes of one value, without a length prefix for BYTE_ARRAY) rendered
// as text by the column's type, or nullopt if its size does not fit the type.
std::optional<std::string> render_stat(const ColumnDescriptor& column, const std::string& bytes) {
  auto values = parquet::ValueBuffer::for_type(column.physical, column.type_length);
  std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (values.is_binary()) {
    values.append_binary(span);
  } else {
    if (static_cast<int>(bytes.size()) != values.width) return std::nullopt;
    values.data.assign(span.begin(), span.end());
    values.count = 1;
  }
  std::string text;
  tabular::append_text_value(text, column, values, 0);
  return text;
}

std::string truncate_display(const std::string& text) {
  // Count code points, cut at kMaxStatChars.
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (points == kMaxStatChars) return text.substr(0, i) + "…";
      ++points;
    }
  }
  return text;
}

// Min and max of a chunk: the typed fields 5-6 when present, else the deprecated 1-2, which old
// writers filled with a signed comparison and are meaningful for numbers only.
struct MinMax {
  std::optional<std::string> min, max;
};
MinMax chunk_min_max(const ColumnDescriptor& column, const Statistics& stats) {
  MinMax out;
  if (stats.min_value || stats.max_value) {
    if (stats.min_value) out.min = render_stat(column, *stats.min_value);
    if (stats.max_value) out.max = render_stat(column, *stats.max_value);
    return out;
  }
  bool numeric = column.physical != parquet::PhysicalType::BYTE_ARRAY &&
                 column.physical != parquet::PhysicalType::FIXED_LEN_BYTE_ARRAY &&
                 column.physical != parquet::PhysicalType::INT96;
  if (numeric) {
    if (stats.min) out.min = render_stat(column, *stats.min);
    if (stats.max) out.max = render_stat(column, *stats.max);
  }
  return out;
}

// A chunk's page index, read when the chunk has one.
struct ChunkPages {
  std::optional<parquet::OffsetIndex> offsets;
  std::optional<parquet::ColumnIndex> columns;
  std::string error;  // why the chunk's index could not be read; inspect shows the rest anyway
  [[nodiscard]] bool any() const { return offsets || columns; }
  [[nodiscard]] size_t page_count() const {
    return offsets ? offsets->page_locations.size() : columns ? columns->null_pages.size() : 0;
  }
};

ChunkPages read_chunk_pages(FileReader& reader, int row_group, int leaf) {
  ChunkPages out;
  try {
    out.offsets = reader.offset_index(row_group, leaf);
    out.columns = reader.column_index(row_group, leaf);
    if (out.offsets && out.columns) {
      const auto& chunk = reader.metadata()
                              .row_groups[static_cast<size_t>(row_group)]
                              .columns[static_cast<size_t>(leaf)];
      parquet::check_page_counts(*out.offsets, *out.columns, chunk.column_index_offset.value_or(0));
    }
  } catch (const FormatError& error) {
    out = ChunkPages{};
    out.error = error.what();
  }
  return out;
}

// "column+offset, 12 pages", "offset, 3 pages", "" without an index.
std::string page_index_text(const ChunkPages& pages) {
  if (!pages.error.empty()) return "unreadable";
  if (!pages.any()) return "";
  std::string kinds = pages.columns && pages.offsets ? "column+offset"
                      : pages.columns                ? "column"
                                                     : "offset";
  size_t n = pages.page_count();
  return fmt::format("{}, {} page{}", kinds, n, n == 1 ? "" : "s");
}

const char* boundary_order_text(parquet::BoundaryOrder order) {
  switch (order) {
    case parquet::BoundaryOrder::ASCENDING:
      return "ASCENDING";
    case parquet::BoundaryOrder::DESCENDING:
      return "DESCENDING";
    default:
      return "UNORDERED";
  }
}

// One page of a chunk's page index, its fields as far as the indexes give them.
struct PageRow {
  std::optional<int64_t> first_row, rows, offset, compressed;
  std::optional<bool> null_page;
  std::optional<int64_t> nulls;
  std::optional<std::string> min, max;
};

std::vector<PageRow> page_rows(const ColumnDescriptor& column, const ChunkPages& pages,
                               int64_t group_rows) {
  std::vector<PageRow> out(pages.page_count());
  for (size_t i = 0; i < out.size(); ++i) {
    PageRow& r = out[i];
    if (pages.offsets) {
      const auto& loc = pages.offsets->page_locations[i];
      r.first_row = loc.first_row_index;
      r.rows = parquet::page_row_count(*pages.offsets, i, group_rows);
      r.offset = loc.offset;
      r.compressed = loc.compressed_page_size;
    }
    if (pages.columns) {
      const auto& ci = *pages.columns;
      r.null_page = ci.null_pages[i];
      if (ci.null_counts) r.nulls = (*ci.null_counts)[i];
      if (!ci.null_pages[i]) {
        r.min = render_stat(column, ci.min_values[i]);
        r.max = render_stat(column, ci.max_values[i]);
      }
    }
  }
  return out;
}

template <typename T>
std::string opt_text(const std::optional<T>& v) {
  if (!v) return "";
  if constexpr (std::is_same_v<T, bool>) {
    return *v ? "yes" : "no";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return truncate_display(*v);
  } else {
    return std::to_string(*v);
  }
}

// An optional value as a member: null without one.
template <typename T>
void optional_member(JsonWriter& json, std::string_view name, const std::optional<T>& v) {
  if (v) {
    json.member(name, *v);
  } else {
    json.key(name).null();
  }
}

std::string encodings_text(const std::vector<parquet::Encoding>& encodings) {
  std::string out;
  for (auto e : encodings) {
    if (!out.empty()) out += ",";
    out += parquet::to_string(e);
  }
  return out;
}

// "optional binary name (STRING)" in the style of parquet-mr's schema printer.
void schema_lines(const SchemaNode& node, int depth, std::string& out) {
  std::string indent(static_cast<size_t>(depth) * 2, ' ');
  std::string annotation;
  if (node.logical.kind != parquet::LogicalType::Kind::NONE) {
    annotation = " (" + parquet::to_string(node.logical) + ")";
  } else if (node.converted) {
    annotation = std::string(" (") + parquet::to_string(*node.converted) + ")";
  }
  std::string repetition = parquet::to_string(node.repetition);
  for (auto& c : repetition) c = static_cast<char>(std::tolower(c));
  if (node.is_leaf) {
    std::string type = parquet::to_string(node.physical);
    for (auto& c : type) c = static_cast<char>(std::tolower(c));
    if (node.physical == parquet::PhysicalType::FIXED_LEN_BYTE_ARRAY) {
      type = fmt::format("fixed_len_byte_array({})", node.type_length);
    }
    out += fmt::format("{}{} {} {}{};\n", indent, repetition, type, node.name, annotation);
    return;
  }
  if (depth == 1 && node.children.empty() && node.name.empty()) return;
  out += depth == 0
             ? fmt::format("{}message {}{} {{\n", indent, node.name, annotation)
             : fmt::format("{}{} group {}{} {{\n", indent, repetition, node.name, annotation);
  for (const auto& child : node.children) schema_lines(child, depth + 1, out);
  out += indent + "}\n";
}

void schema_json(JsonWriter& json, const SchemaNode& node) {
  json.begin_object();
  json.member("name", node.name);
  json.member("repetition", parquet::to_string(node.repetition));
  if (node.is_leaf) {
    json.member("physical_type", parquet::to_string(node.physical));
    if (node.physical == parquet::PhysicalType::FIXED_LEN_BYTE_ARRAY) {
      json.member("type_length", node.type_length);
    }
  }
  if (node.logical.kind != parquet::LogicalType::Kind::NONE) {
    json.member("logical_type", parquet::to_string(node.logical));
  }
  if (node.converted) json.member("converted_type", parquet::to_string(*node.converted));
  if (node.field_id) json.member("field_id", *node.field_id);
  if (!node.is_leaf) {
    json.key("children").begin_array();
    for (const auto& child : node.children) schema_json(json, child);
    json.end_array();
  }
  json.end_object();
}

// Text values of keys and strings in metadata may hold any bytes; tables want UTF-8.
std::string utf8(const std::string& bytes) {
  std::string out;
  append_utf8_repaired(out, bytes);
  return out;
}

// A column chunk's "page_index": the pages the index gives, or else why it could not be read
// (nothing when the chunk has none).
void page_index_json(JsonWriter& json, const ColumnDescriptor& leaf, const ChunkPages& pages,
                     int64_t group_rows) {
  if (pages.any()) {
    json.key("page_index").begin_object();
    json.member("column_index", pages.columns.has_value());
    json.member("offset_index", pages.offsets.has_value());
    if (pages.columns) {
      json.member("boundary_order", boundary_order_text(pages.columns->boundary_order));
    }
    json.key("pages").begin_array();
    size_t i = 0;
    for (const PageRow& r : page_rows(leaf, pages, group_rows)) {
      json.begin_object();
      json.member("page", static_cast<uint64_t>(i++));
      optional_member(json, "first_row", r.first_row);
      optional_member(json, "rows", r.rows);
      optional_member(json, "offset", r.offset);
      optional_member(json, "compressed_bytes", r.compressed);
      optional_member(json, "null_page", r.null_page);
      optional_member(json, "null_count", r.nulls);
      optional_member(json, "min", r.min);
      optional_member(json, "max", r.max);
      json.end_object();
    }
    json.end_array();
    json.end_object();
  } else if (!pages.error.empty()) {
    json.key("page_index").begin_object().member("error", pages.error).end_object();
  }
}

// A column chunk's object in "row_groups": its metadata, page index and statistics.
void chunk_json(JsonWriter& json, FileReader& reader, int g, int c) {
  const auto& leaves = reader.schema().leaves();
  const auto& group = reader.metadata().row_groups[g];
  const auto& chunk = group.columns[c];
  json.begin_object();
  json.member("path", leaves[c].dotted_path);
  if (!chunk.meta_data) {
    json.key("metadata").null();
    json.end_object();
    return;
  }
  const ColumnMetaData& m = *chunk.meta_data;
  json.member("physical_type", parquet::to_string(m.type));
  json.member("codec", parquet::to_string(m.codec));
  json.key("encodings").begin_array();
  for (auto e : m.encodings) json.string(parquet::to_string(e));
  json.end_array();
  json.member("num_values", m.num_values);
  json.member("compressed_bytes", m.total_compressed_size);
  json.member("uncompressed_bytes", m.total_uncompressed_size);
  json.member("data_page_offset", m.data_page_offset);
  if (m.dictionary_page_offset) {
    json.member("dictionary_page_offset", *m.dictionary_page_offset);
  }
  if (chunk.column_index_offset) json.member("column_index_offset", *chunk.column_index_offset);
  if (chunk.offset_index_offset) json.member("offset_index_offset", *chunk.offset_index_offset);
  ChunkPages pages = read_chunk_pages(reader, g, c);
  page_index_json(json, leaves[c], pages, group.num_rows);
  if (m.statistics) {
    const MinMax mm = chunk_min_max(leaves[c], *m.statistics);
    const std::optional<int64_t>& nulls = m.statistics->null_count;
    const std::optional<int64_t>& distinct = m.statistics->distinct_count;
    json.key("statistics");
    if (!nulls && !distinct && !mm.min && !mm.max) {
      json.null();  // statistics that say nothing kbdata reads
    } else {
      json.begin_object();
      if (nulls) json.member("null_count", *nulls);
      if (distinct) json.member("distinct_count", *distinct);
      if (mm.min) json.member("min", *mm.min);
      if (mm.max) json.member("max", *mm.max);
      json.end_object();
    }
  }
  json.end_object();
}

// The --json document (docs/cli.md, "inspect"), by the one writer of JSON documents, indented
// by two spaces; texts from the file (names, keys, values, statistics) with invalid UTF-8
// repaired.
std::string inspect_json(FileReader& reader) {
  const auto& meta = reader.metadata();
  const auto& leaves = reader.schema().leaves();
  JsonWriter json(JsonWriter::Style::INDENTED);
  json.begin_object();
  json.member("file", reader.name());
  json.member("size_bytes", reader.file().size());
  optional_member(json, "created_by", meta.created_by);
  json.member("format_version", meta.version);
  json.member("num_rows", meta.num_rows);
  json.member("num_row_groups", static_cast<uint64_t>(meta.row_groups.size()));
  json.member("footer_bytes", reader.footer_length());
  json.key("schema");
  schema_json(json, reader.schema().root());
  json.key("columns").begin_array();
  for (const auto& leaf : leaves) {
    json.begin_object();
    json.member("path", leaf.dotted_path);
    json.member("physical_type", parquet::to_string(leaf.physical));
    if (leaf.logical.kind != parquet::LogicalType::Kind::NONE) {
      json.member("logical_type", parquet::to_string(leaf.logical));
    }
    if (leaf.converted) json.member("converted_type", parquet::to_string(*leaf.converted));
    json.member("max_definition_level", leaf.max_def);
    json.member("max_repetition_level", leaf.max_rep);
    json.end_object();
  }
  json.end_array();
  json.key("key_value_metadata").begin_array();
  for (const auto& kv : meta.key_value_metadata) {
    json.begin_object();
    json.member("key", kv.key);
    optional_member(json, "value", kv.value);
    json.end_object();
  }
  json.end_array();
  json.key("row_groups").begin_array();
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const auto& group = meta.row_groups[g];
    json.begin_object();
    json.member("index", static_cast<uint64_t>(g));
    json.member("num_rows", group.num_rows);
    json.member("total_byte_size", group.total_byte_size);
    json.key("columns").begin_array();
    for (size_t c = 0; c < group.columns.size(); ++c) {
      chunk_json(json, reader, static_cast<int>(g), static_cast<int>(c));
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.take();
}

std::string inspect_text(FileReader& reader, bool show_pages) {
  const auto& meta = reader.metadata();
  const auto& leaves = reader.schema().leaves();
  std::string out;
  out += fmt::format("file:        {} ({} bytes)\n", reader.name(), reader.file().size());
  out += fmt::format("created by:  {}\n", meta.created_by ? utf8(*meta.created_by) : "(unknown)");
  out += fmt::format("version:     {}\n", meta.version);
  out += fmt::format("rows:        {} in {} row group{}\n", meta.num_rows, meta.row_groups.size(),
                     meta.row_groups.size() == 1 ? "" : "s");
  out += fmt::format("footer:      {} bytes\n", reader.footer_length());
  if (meta.key_value_metadata.empty()) {
    out += "metadata:    (none)\n";
  } else {
    out += "metadata:\n";
    for (const auto& kv : meta.key_value_metadata) {
      out += fmt::format("  {} ({} bytes)\n", utf8(kv.key), kv.value ? kv.value->size() : 0);
    }
  }
  out += "\nschema:\n";
  std::string schema;
  schema_lines(reader.schema().root(), 0, schema);
  for (size_t start = 0; start < schema.size();) {
    size_t end = schema.find('\n', start);
    out += "  " + schema.substr(start, end - start) + "\n";
    start = end + 1;
  }
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const auto& group = meta.row_groups[g];
    out += fmt::format("\nrow group {}: {} rows, {} bytes uncompressed\n", g, group.num_rows,
                       group.total_byte_size);
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"column", "type", "codec", "encodings", "compressed", "uncompressed", "values",
                    "nulls", "min", "max", "page index"});
    std::string page_tables;
    std::string index_errors;
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const auto& chunk = group.columns[c];
      if (!chunk.meta_data) {
        rows.push_back(
            {leaves[c].dotted_path, "(no metadata)", "", "", "", "", "", "", "", "", ""});
        continue;
      }
      const ColumnMetaData& m = *chunk.meta_data;
      std::string nulls, min, max;
      if (m.statistics) {
        if (m.statistics->null_count) nulls = std::to_string(*m.statistics->null_count);
        MinMax mm = chunk_min_max(leaves[c], *m.statistics);
        if (mm.min) min = truncate_display(*mm.min);
        if (mm.max) max = truncate_display(*mm.max);
      }
      rows.push_back({leaves[c].dotted_path, parquet::to_string(m.type),
                      parquet::to_string(m.codec), encodings_text(m.encodings),
                      std::to_string(m.total_compressed_size),
                      std::to_string(m.total_uncompressed_size), std::to_string(m.num_values),
                      nulls, min, max, ""});
      ChunkPages pages = read_chunk_pages(reader, static_cast<int>(g), static_cast<int>(c));
      rows.back().back() = page_index_text(pages);
      if (!pages.error.empty()) {
        index_errors += fmt::format("page index of row group {}, column {}: {}\n", g,
                                    leaves[c].dotted_path, pages.error);
      }
      if (show_pages && pages.any()) {
        page_tables += fmt::format(
            "\npages of row group {}, column {}{}:\n", g, leaves[c].dotted_path,
            pages.columns ? fmt::format(" (boundary order {})",
                                        boundary_order_text(pages.columns->boundary_order))
                          : std::string());
        std::vector<std::vector<std::string>> table;
        table.push_back({"page", "first row", "rows", "offset", "compressed", "null page", "nulls",
                         "min", "max"});
        size_t i = 0;
        for (const PageRow& r : page_rows(leaves[c], pages, group.num_rows)) {
          table.push_back({std::to_string(i++), opt_text(r.first_row), opt_text(r.rows),
                           opt_text(r.offset), opt_text(r.compressed), opt_text(r.null_page),
                           opt_text(r.nulls), opt_text(r.min), opt_text(r.max)});
        }
        page_tables +=
            report::format_table(table, {true, true, true, true, true, false, true, false, false});
      }
    }
    out += report::format_table(
        rows, {false, false, false, false, true, true, true, true, false, false, false});
    out += index_errors;
    out += page_tables;
  }
  return out;
}

}  // namespace

void run_inspect(const InspectOptions& options, std::FILE* out) {
  auto reader = FileReader::open(open_input_file(options.path, options.verbose ? stderr : nullptr));
  std::string text =
      options.json ? inspect_json(*reader) + "\n" : inspect_text(*reader, options.pages);
  report::write_all(out, text);
}

void add_inspect_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Describe a Parquet file: schema, row groups, column chunks, statistics");
  cmd->add_option("FILE", options->path,
                  "Parquet file, or hf://datasets/OWNER/NAME[@REV]/PATH (needs the network unless "
                  "the hub's cache holds it)")
      ->required();
  cmd->add_flag("--verbose,-v", options->verbose,
                "Report an hf:// file's requests and bytes fetched on stderr");
  cmd->add_flag("--json", options->json, "Print the description as JSON");
  cmd->add_flag("--pages", options->pages,
                "Also print each column chunk's pages from its page index");
  commands.push_back({cmd, [options] { run_inspect(*options, stdout); }});
}

}  // namespace kbdata::cli
