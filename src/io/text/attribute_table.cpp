#include <herd/core/error.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/io/text/edge_list_parser.hpp>
#include <herd/io/text/shown_field.hpp>

#include "line_ends.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

namespace herd {

namespace {

// Splits one CSV line into fields; quoted fields may hold commas and "" for a quote.
// Returns false on an unterminated quote or text after a closing quote.
bool split_csv(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::size_t i = 0;
  while (true) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return false;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != ',') return false;
    } else {
      auto const comma = std::min(line.find(',', i), line.size());
      field.assign(line.substr(i, comma - i));
      i = comma;
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

// A problem on line `line` of `name`.
Details::LineError line_error(std::string const& name, std::size_t line, std::string const& what) {
  std::string message = name;
  message += ':';
  message += std::to_string(line);
  message += ": ";
  message += what;
  return {message, line};
}

bool parse_integer(std::string const& text, std::int64_t& value) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

bool parse_real(std::string const& text, double& value) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

}  // namespace

AttributeTable read_attribute_table(std::string const& path) {
  return parse_attribute_table(read_text_file(path), path);
}

AttributeTable parse_attribute_table(std::string_view text, std::string const& name) {
  auto const lines = Details::split_attribute_lines(text, name);
  require(!lines.header.empty(), name + ": the file holds no header line");
  require(!lines.lines.empty(), name + ": the file holds a header but no agents");
  AttributeTable table;
  table.rows = lines.lines.size();
  for (std::size_t c = 0; c < lines.header.size(); ++c) {
    auto const& column = lines.values[c];
    if (Details::is_id_column(lines.header[c])) {
      require(table.ids.empty(), name + ": both 'id' and 'agent_id' columns: which one names the agent?");
      table.ids = Details::agent_ids(column, lines.lines, lines.header[c], name);
      continue;
    }
    table.columns.push_back(Details::typed_column(lines.header[c], column, Details::kind_of(column)));
  }
  table.lines = lines.lines;
  return table;
}

namespace Details {

AttributeLines split_attribute_lines(std::string_view text, std::string const& name, std::size_t first_line,
                                     std::vector<std::string> header) {
  std::size_t line_number = first_line - 1, position = 0;
  auto fail = [&](std::string const& what) { throw line_error(name, line_number, what); };
  AttributeLines out;
  bool const given_header = !header.empty();
  std::vector<std::string> fields;
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(position, end - position);
    position = end + 1;
    ++line_number;
    // Lines ended by a carriage return alone: the rows would pass for a header's columns.
    if (Details::holds_carriage_return(line)) fail(Details::carriage_return_inside);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!split_csv(line, header.empty() ? header : fields)) fail("unterminated or misplaced double quote");
    if (out.values.empty()) {
      if (!given_header) {
        std::unordered_set<std::string> seen;
        for (auto const& column : header) {
          if (column.empty()) fail("the header has an empty column name");
          if (!seen.insert(column).second) fail("the header names column " + io::quoted_field(column) + " twice");
        }
      }
      out.values.resize(header.size());
      if (!given_header) continue;
    }
    if (fields.size() != header.size())
      fail("expected " + std::to_string(header.size()) + " fields as in the header, found " +
           std::to_string(fields.size()));
    for (std::size_t c = 0; c < fields.size(); ++c) out.values[c].push_back(std::move(fields[c]));
    out.lines.push_back(line_number);
  }
  out.values.resize(header.size());
  out.header = std::move(header);
  return out;
}

AttributeColumn::Kind kind_of(std::vector<std::string> const& values) {
  std::int64_t integer = 0;
  double real = 0.0;
  if (std::all_of(values.begin(), values.end(), [&](auto const& v) { return parse_integer(v, integer); }))
    return AttributeColumn::Kind::integer;
  if (std::all_of(values.begin(), values.end(), [&](auto const& v) { return parse_real(v, real); }))
    return AttributeColumn::Kind::real;
  return AttributeColumn::Kind::category;
}

AttributeColumn typed_column(std::string name, std::vector<std::string> const& values, AttributeColumn::Kind kind) {
  AttributeColumn out;
  out.name = std::move(name);
  out.kind = kind;
  std::int64_t integer = 0;
  double real = 0.0;
  if (kind == AttributeColumn::Kind::integer) {
    for (auto const& v : values) out.integers.push_back(parse_integer(v, integer) ? integer : 0);
  } else if (kind == AttributeColumn::Kind::real) {
    for (auto const& v : values) out.reals.push_back(parse_real(v, real) ? real : 0.0);
  } else {
    std::unordered_map<std::string, std::int64_t> codes;
    for (auto const& v : values) {
      auto const [it, added] = codes.emplace(v, static_cast<std::int64_t>(out.categories.size()));
      if (added) out.categories.push_back(v);
      out.integers.push_back(it->second);
    }
  }
  return out;
}

bool is_id_column(std::string const& name) { return name == "id" || name == "agent_id"; }

std::optional<global_id> agent_id_of(std::string const& text) {
  std::int64_t id = 0;
  if (!parse_integer(text, id) || id < 0 || id > largest_agent_id) return std::nullopt;
  return static_cast<global_id>(id);
}

std::string bad_agent_id(std::string const& column, std::string const& text) {
  // Digits alone are an id too large (beyond 64 bits, or the one id kept back), not a malformed one.
  bool const digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  std::string const shown =
      text.size() <= 80 ? io::quoted_field(text) : "of " + std::to_string(text.size()) + " digits";
  return digits ? column + " " + shown + " exceeds the largest supported agent id " + std::to_string(largest_agent_id)
                : column + " " + io::quoted_field(text) + " is not a non-negative integer agent id";
}

std::string repeated_agent_id(global_id id) { return "agent id " + std::to_string(id) + " appears twice"; }

std::vector<global_id> agent_ids(std::vector<std::string> const& values, std::vector<std::size_t> const& lines,
                                 std::string const& column, std::string const& name) {
  std::vector<global_id> ids;
  std::unordered_set<global_id> seen;
  for (std::size_t r = 0; r < values.size(); ++r) {
    auto fail = [&](std::string const& what) { throw line_error(name, lines[r], what); };
    auto const id = agent_id_of(values[r]);
    if (!id) fail(bad_agent_id(column, values[r]));
    if (!seen.insert(*id).second) fail(repeated_agent_id(*id));
    ids.push_back(*id);
  }
  return ids;
}

}  // namespace Details

}  // namespace herd
