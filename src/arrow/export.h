// A result table as Arrow (docs/results.md, "Arrow"): the table's schema as a struct of its
// columns, and a stream of one struct array per batch, through the C Data and C Stream Interfaces
// (c_data.h). Columns are exported as
//
//   INT64 "l", SCORE / FACTOR / DOUBLE "g", BOOL "b" (bit-packed), TIMESTAMP "tsu:UTC",
//   STRING and JSON "U" (large_string; "u", string, when asked), a list column "+L"
//   (large_list) of its type
//
// every field nullable, with a validity bitmap when it has nulls; each field's metadata names its
// meaning (kbdata.type: score, factor, json, ...), the schema's metadata the table's kbdata.rule.
// The arrays point into the table's sealed batches (result::Batch: offsets, bytes, bits, values)
// without copying them (but int32 string offsets); each array keeps its batch alive until it is
// released.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/c_data.h"
#include "result/table.h"

namespace kbdata::arrow {

// How STRING and JSON columns are exported: large_string ("U", the batches' own int64 offsets:
// no copy), or string ("u", int32 offsets copied per batch, for a consumer that asks for it; a
// batch with 2 GiB of text or more cannot be one and fails the stream).
enum class StringLayout { LARGE_STRING, STRING };

// Where a stream's batches come from: next() gives the next sealed batch, or nullptr at the end.
// It may block (a scan still making them) and throws to fail the stream (the exception's text is
// get_last_error's). The stream owns its source and destroys it when released.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  [[nodiscard]] virtual std::shared_ptr<const result::Batch> next() = 0;
};

// Fills `out` (a structure the caller owns, unreleased or never filled) with the schema of
// `columns`: a struct ("+s") whose children are the columns, `rule` in its metadata (kbdata.rule)
// when not empty. The caller releases it (out->release(out)). Throws std::bad_alloc.
void export_schema(const std::vector<result::Column>& columns, const std::string& rule,
                   ArrowSchema* out, StringLayout strings = StringLayout::LARGE_STRING);

// Fills `out` with a fresh stream of `table`'s batches (sealing the open one: result::ResultTable
// batches()), from the first: one struct array per batch, then the end. The stream holds the
// batches itself: it may outlive `table`, and rows added to the table later are not in it. Every
// call makes a new stream; the caller releases each (out->release(out)). Throws std::bad_alloc.
void export_stream(result::ResultTable& table, ArrowArrayStream* out,
                   StringLayout strings = StringLayout::LARGE_STRING);

// Fills `out` with a stream of `columns` whose batches `source` gives as get_next asks for them
// (a table streamed while it is made).
void export_stream(std::vector<result::Column> columns, std::string rule,
                   std::unique_ptr<BatchSource> source, ArrowArrayStream* out,
                   StringLayout strings = StringLayout::LARGE_STRING);

}  // namespace kbdata::arrow
