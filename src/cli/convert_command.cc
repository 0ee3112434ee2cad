#include "cli/convert_command.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/file.h"
#include "parquet/compression.h"
#include "parquet/file_reader.h"
#include "parquet/write/copy_file.h"
#include "parquet/write/file_writer.h"
#include "parquet/write/provenance.h"

namespace kbdata::cli {
namespace {

using parquet::WriterOptions;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Whether `text` ends in a size suffix (then it is bytes, not rows).
bool has_size_suffix(const std::string& text) {
  return !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()));
}

WriterOptions writer_options(const ConvertOptions& options) {
  WriterOptions w;
  std::optional<parquet::Codec> codec = parquet::codec_from_name(options.compression);
  if (!codec) {
    throw UsageError("unknown compression '" + options.compression +
                     "'; use none, snappy, gzip, zstd, lz4_raw or brotli");
  }
  w.codec = *codec;
  if (options.level) {
    std::optional<parquet::CompressionLevels> levels = parquet::compression_levels(w.codec);
    if (!levels) {
      throw UsageError(std::string("--level does not apply to ") + parquet::to_string(w.codec));
    }
    if (*options.level < levels->min || *options.level > levels->max) {
      throw UsageError("--level " + std::to_string(*options.level) + " is out of range for " +
                       parquet::to_string(w.codec) + ": " + std::to_string(levels->min) + ".." +
                       std::to_string(levels->max));
    }
    w.level = options.level;
  }
  if (options.page_version != 1 && options.page_version != 2) {
    throw UsageError("--page-version must be 1 or 2");
  }
  w.page_version = options.page_version;
  std::string encoding = lower(options.encoding);
  if (encoding == "auto") {
    w.encoding = parquet::ValueEncoding::AUTO;
  } else if (encoding == "plain") {
    w.encoding = parquet::ValueEncoding::PLAIN;
  } else if (encoding == "delta") {
    w.encoding = parquet::ValueEncoding::DELTA;
  } else {
    throw UsageError("unknown --encoding '" + options.encoding + "'; use auto, plain or delta");
  }
  if (options.row_group_size) {
    const std::string& text = *options.row_group_size;
    std::optional<uint64_t> size = parse_byte_size(text);
    if (!size || *size == 0) {
      throw UsageError("--row-group-size '" + text +
                       "' is neither a row count (100000) nor a size (64MB, 128MiB)");
    }
    if (has_size_suffix(text)) {
      w.row_group_bytes = *size;
      w.row_group_rows = INT64_MAX;
    } else {
      w.row_group_rows = static_cast<int64_t>(std::min<uint64_t>(*size, INT64_MAX));
      w.row_group_bytes = SIZE_MAX;
    }
  }
  if (options.page_size) {
    std::optional<uint64_t> size = parse_byte_size(*options.page_size);
    if (!size || *size == 0) {
      throw UsageError("--page-size '" + *options.page_size +
                       "' is not a size in bytes (65536, 1MiB)");
    }
    w.page_bytes = static_cast<size_t>(std::min<uint64_t>(*size, INT32_MAX));
  }
  w.page_checksums = options.checksums;
  return w;
}

void add_provenance(WriterOptions& w, const ConvertOptions& options,
                    const parquet::FileMetaData& source) {
  // The source's key-value metadata is kept (it carries e.g. ARROW:schema, which other readers
  // use to restore their types), except kbdata's own provenance, which is replaced.
  parquet::Provenance provenance;
  provenance.command = options.command_line;
  provenance.carried = source.key_value_metadata;
  parquet::apply_provenance(provenance, w);
}

}  // namespace

std::optional<uint64_t> parse_byte_size(const std::string& text) {
  uint64_t number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || rest == begin) return std::nullopt;
  std::string suffix = lower(std::string(rest, end));
  uint64_t unit = 0;
  if (suffix.empty() || suffix == "b")
    unit = 1;
  else if (suffix == "kb")
    unit = 1000;
  else if (suffix == "mb")
    unit = 1000 * 1000;
  else if (suffix == "gb")
    unit = 1000 * 1000 * 1000;
  else if (suffix == "kib")
    unit = 1024;
  else if (suffix == "mib")
    unit = 1024 * 1024;
  else if (suffix == "gib")
    unit = 1024 * 1024 * 1024;
  else
    return std::nullopt;
  if (number > UINT64_MAX / unit) return std::nullopt;
  return number * unit;
}

void run_convert(const ConvertOptions& options, std::FILE* progress) {
  if (options.output.empty()) {
    throw UsageError("convert needs the file to write: kbdata convert IN OUT (or -o OUT)");
  }
  WriterOptions w = writer_options(options);     // usage errors before any input is read
  w.threads = command_threads(options.threads);  // reading and compressing
  // Page CRCs are verified where the input has them: a damaged page is an error at its place, never
  // copied into a file that would then carry a fresh, valid CRC over the damage (--checksums).
  auto reader = parquet::FileReader::open(options.input, {.verify_checksums = true});
  add_provenance(w, options, reader->metadata());
  if (reader->schema().leaves().empty()) {
    UnsupportedError error("the file has no leaf columns, so its rows cannot be rewritten");
    error.locate_file(reader->name());
    throw error;
  }

  AtomicOutputFile output(options.output);
  parquet::FileWriter writer(output, reader->metadata().schema, w);
  Progress line(progress, "convert");
  parquet::copy_file(*reader, writer, line.callback(), w.threads);
  line.finish();
  writer.close();
  output.commit();
}

void add_convert_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Rewrite a Parquet file with kbdata's writer: page indexes, bounded row groups and pages,\n"
      "the chosen codec and encodings; same schema and values. Page checksums of IN are verified\n"
      "where present (a damaged page is an error). OUT appears only when complete.");
  cmd->add_option("IN", options->input, "Parquet file to read")->required();
  // OUT, or -o/--out as every other command writes its file: one of the two.
  CLI::Option* out = cmd->add_option("OUT", options->output,
                                     "Parquet file to write (a regular file it replaces keeps its "
                                     "mode; never IN, a folder or a special file)");
  cmd->add_option("-o,--out", options->output, "The same as OUT")->excludes(out);
  cmd->add_option("--compression,-z", options->compression,
                  "Codec: none, snappy, gzip, zstd, lz4_raw, brotli (lz4_raw decompresses "
                  "fastest; snappy for readers older than 2022)")
      ->capture_default_str();
  cmd->add_option("--level", options->level,
                  "Compression level (zstd 1..22, default 3; gzip 1..9, default 6; "
                  "brotli 0..11, default 8)");
  cmd->add_option("--row-group-size", options->row_group_size,
                  "Rows per row group (100000), or bytes with a unit (64MB, 128MiB); "
                  "default: 100000 rows and 64 MiB, whichever comes first");
  cmd->add_option("--page-size", options->page_size,
                  "Data page size in bytes before compression, with an optional unit "
                  "(default 1MiB; a page also holds at most 20000 rows)");
  cmd->add_option("--page-version", options->page_version, "Data page version: 1 or 2")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
  cmd->add_option("--encoding", options->encoding,
                  "auto (dictionary, falling back to plain), plain, or delta "
                  "(DELTA_BINARY_PACKED integers, DELTA_LENGTH_BYTE_ARRAY strings)")
      ->capture_default_str();
  cmd->add_flag("--checksums", options->checksums, "Store a CRC-32 in every page header");
  add_threads_option(*cmd, options->threads);
  commands.push_back({cmd, [options] {
                        options->command_line = invoked_command_line();
                        run_convert(*options, stderr);
                      }});
}

}  // namespace kbdata::cli
