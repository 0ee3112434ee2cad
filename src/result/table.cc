#include "result/table.h"

#include <algorithm>
#include <stdexcept>

namespace kbdata::result {
namespace {

void push_bit(std::vector<uint8_t>& bits, int64_t i, bool set) {
  if (i % 8 == 0) bits.push_back(0);
  if (set) bits.back() |= static_cast<uint8_t>(1u << (i % 8));
}

bool bit(const std::vector<uint8_t>& bits, int64_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

}  // namespace

Value to_value(const Cell& cell) {
  return std::visit(
      [](const auto& v) -> Value {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, List>) {
          throw std::logic_error("result::to_value: a list is no value");
        } else {
          return Value{v};
        }
      },
      cell);
}

namespace {

// Whether a Value, or a Cell that is not a list, may be of `type`: read where it is (a cell's
// text is never copied to be checked).
template <typename V>
bool scalar_matches(const V& value, ColumnType type) {
  if (std::holds_alternative<std::monostate>(value)) return true;
  switch (type) {
    case ColumnType::INT64:
    case ColumnType::TIMESTAMP:
      return std::holds_alternative<int64_t>(value);
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return std::holds_alternative<double>(value);
    case ColumnType::BOOL:
      return std::holds_alternative<bool>(value);
    case ColumnType::STRING:
    case ColumnType::JSON:
      return std::holds_alternative<std::string>(value);
  }
  return false;
}

}  // namespace

bool value_matches(const Value& value, ColumnType type) { return scalar_matches(value, type); }

bool cell_matches(const Cell& cell, const Column& column) {
  if (std::holds_alternative<std::monostate>(cell)) return true;
  if (column.list) {
    const List* list = std::get_if<List>(&cell);
    if (list == nullptr || column.type == ColumnType::JSON) return false;
    for (const Value& item : *list) {
      if (!value_matches(item, column.type)) return false;
    }
    return true;
  }
  return !std::holds_alternative<List>(cell) && scalar_matches(cell, column.type);
}

Values::Values(ColumnType type) : type_(type) {
  if (type_ == ColumnType::STRING || type_ == ColumnType::JSON) offsets_.push_back(0);
}

void Values::append(const Value& value) {
  if (!value_matches(value, type_))
    throw std::logic_error("result::Values: a value of another type");
  const bool present = !std::holds_alternative<std::monostate>(value);
  push_bit(validity_, size_, present);
  if (!present) ++null_count_;
  switch (type_) {
    case ColumnType::INT64:
    case ColumnType::TIMESTAMP:
      ints_.push_back(present ? std::get<int64_t>(value) : 0);
      break;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      doubles_.push_back(present ? std::get<double>(value) : 0.0);
      break;
    case ColumnType::BOOL:
      push_bit(bits_, size_, present && std::get<bool>(value));
      break;
    case ColumnType::STRING:
    case ColumnType::JSON:
      if (present) bytes_ += std::get<std::string>(value);
      offsets_.push_back(static_cast<int64_t>(bytes_.size()));
      break;
  }
  ++size_;
}

Value Values::at(int64_t i) const {
  if (!bit(validity_, i)) return Value{};
  switch (type_) {
    case ColumnType::INT64:
    case ColumnType::TIMESTAMP:
      return ints_[i];
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return doubles_[i];
    case ColumnType::BOOL:
      return bit(bits_, i);
    case ColumnType::STRING:
    case ColumnType::JSON:
      return bytes_.substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  return Value{};
}

ColumnData::ColumnData(const Column& column) : list_(column.list), values_(column.type) {
  if (list_) list_offsets_.push_back(0);
}

void ColumnData::append(const Cell& cell) {
  if (!list_) {
    values_.append(to_value(cell));
    return;
  }
  const bool present = !std::holds_alternative<std::monostate>(cell);
  const List* items = std::get_if<List>(&cell);
  if (present && items == nullptr) {
    throw std::logic_error("result::ColumnData: a value in a list column");
  }
  if (items != nullptr) {
    for (const Value& item : *items) values_.append(item);
  }
  push_bit(list_validity_, rows_, present);
  if (!present) ++list_nulls_;
  list_offsets_.push_back(values_.size());
  ++rows_;
}

Cell ColumnData::at(int64_t row) const {
  if (!list_) {
    return std::visit([](auto&& v) -> Cell { return Cell{std::move(v)}; }, values_.at(row));
  }
  if (!bit(list_validity_, row)) return Cell{};
  List items;
  for (int64_t i = list_offsets_[row]; i < list_offsets_[row + 1]; ++i) {
    items.push_back(values_.at(i));
  }
  return items;
}

ResultTable::ResultTable(std::vector<Column> columns, std::string rule, int64_t batch_rows)
    : columns_(std::move(columns)), rule_(std::move(rule)), batch_rows_(batch_rows) {
  if (batch_rows_ < 1) throw std::logic_error("ResultTable: batches need at least one row");
}

void ResultTable::section(std::string title) {
  sections_.push_back(Section{std::move(title), rows_});
}

void ResultTable::leaderboard_shown(int64_t leaderboard_id, const std::string& problem_name) {
  (void)leaderboard_index(leaderboard_id, problem_name);
}

int32_t ResultTable::leaderboard_index(int64_t leaderboard_id, const std::string& problem_name) {
  for (size_t i = 0; i < leaderboards_.size(); ++i) {
    if (leaderboards_[i].id == leaderboard_id) return static_cast<int32_t>(i);
  }
  leaderboards_.push_back(Leaderboard{leaderboard_id, problem_name});
  return static_cast<int32_t>(leaderboards_.size() - 1);
}

void ResultTable::add_row(std::vector<Cell> cells, std::optional<int64_t> leaderboard_id,
                          const std::string& problem_name) {
  if (cells.size() != columns_.size()) {
    throw std::logic_error("ResultTable::add_row: " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(columns_.size()) + " columns");
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (!cell_matches(cells[i], columns_[i])) {
      throw std::logic_error("ResultTable::add_row: cell of the wrong type for " +
                             columns_[i].name);
    }
  }
  if (!open_) {
    open_ = std::make_unique<Batch>();
    for (const Column& c : columns_) open_->columns.emplace_back(c);
  }
  for (size_t i = 0; i < cells.size(); ++i) open_->columns[i].append(cells[i]);
  ++open_->rows;
  ++rows_;
  row_leaderboards_.push_back(leaderboard_id ? leaderboard_index(*leaderboard_id, problem_name)
                                             : -1);
  if (open_->rows >= batch_rows_) end_batch();
}

void ResultTable::end_batch() {
  if (open_ && open_->rows > 0) sealed_.push_back(std::shared_ptr<const Batch>(std::move(open_)));
  open_.reset();
}

const ResultTable::Leaderboard* ResultTable::row_leaderboard(int64_t row) const {
  const int32_t index = row_leaderboards_.at(static_cast<size_t>(row));
  return index < 0 ? nullptr : &leaderboards_[static_cast<size_t>(index)];
}

void ResultTable::visit(
    const std::function<void(const std::string& title)>& on_section,
    const std::function<void(std::vector<Cell>&& cells, const Leaderboard* leaderboard)>& on_row) {
  size_t next_section = 0;
  const auto start_sections_up_to = [&](int64_t row) {
    while (next_section < sections_.size() && sections_[next_section].first_row <= row) {
      on_section(sections_[next_section++].title);
    }
  };
  int64_t row = 0;
  for (const std::shared_ptr<const Batch>& batch : batches()) {
    for (int64_t r = 0; r < batch->rows; ++r, ++row) {
      start_sections_up_to(row);
      std::vector<Cell> cells;
      cells.reserve(batch->columns.size());
      for (const ColumnData& column : batch->columns) cells.push_back(column.at(r));
      on_row(std::move(cells), row_leaderboard(row));
    }
  }
  start_sections_up_to(rows_);
}

ResultTable map_rows(ResultTable& in, std::vector<Column> columns,
                     const std::function<std::vector<Cell>(std::vector<Cell>&&)>& map) {
  ResultTable out(std::move(columns), in.rule());
  for (const ResultTable::Leaderboard& l : in.leaderboards()) {
    out.leaderboard_shown(l.id, l.problem_name);
  }
  in.visit([&](const std::string& title) { out.section(title); },
           [&](std::vector<Cell>&& cells, const ResultTable::Leaderboard* leaderboard) {
             if (leaderboard != nullptr) {
               out.add_row(map(std::move(cells)), leaderboard->id, leaderboard->problem_name);
             } else {
               out.add_row(map(std::move(cells)));
             }
           });
  for (const std::string& line : in.summary_lines()) out.summary(line);
  return out;
}

const std::vector<std::shared_ptr<const Batch>>& ResultTable::batches() {
  end_batch();
  return sealed_;
}

Projection::Projection(const std::vector<Column>& all, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const Column& c) { return c.name == name; });
    if (it == all.end()) throw std::logic_error("projection of a column the table lacks: " + name);
    indexes_.push_back(static_cast<size_t>(it - all.begin()));
    columns_.push_back(*it);
  }
}

void Projection::rename(const std::string& name, std::string shown) {
  const auto it = std::find_if(columns_.begin(), columns_.end(),
                               [&](const Column& c) { return c.name == name; });
  if (it == columns_.end()) throw std::logic_error("rename of a column not projected: " + name);
  it->name = std::move(shown);
}

std::vector<Cell> Projection::row(std::vector<Cell>&& cells) const {
  std::vector<Cell> out;
  out.reserve(indexes_.size());
  for (size_t i : indexes_) out.push_back(cells[i]);
  return out;
}

ResultTable Projection::table(ResultTable& in,
                              const std::function<void(std::vector<Cell>&)>& before) const {
  return map_rows(in, columns_, [&](std::vector<Cell>&& cells) {
    if (before) before(cells);
    return row(std::move(cells));
  });
}

std::vector<std::shared_ptr<const Batch>> ResultTable::take_batches() {
  std::vector<std::shared_ptr<const Batch>> taken = std::move(sealed_);
  sealed_.clear();
  return taken;
}

}  // namespace kbdata::result
