#include <herd/core/error.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/io/text/edge_list_parser.hpp>

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
  std::size_t line_number = 0, position = 0;
  auto fail = [&](std::string const& what) { throw Error(name + ":" + std::to_string(line_number) + ": " + what); };
  std::vector<std::string> header, fields;
  std::vector<std::vector<std::string>> values;  // [column][row], as text until every row is seen
  std::vector<std::size_t> lines;                // line number of each row
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(position, end - position);
    position = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!split_csv(line, header.empty() ? header : fields)) fail("unterminated or misplaced double quote");
    if (values.empty()) {
      std::unordered_set<std::string> seen;
      for (auto const& column : header) {
        if (column.empty()) fail("the header has an empty column name");
        if (!seen.insert(column).second) fail("the header names column '" + column + "' twice");
      }
      values.resize(header.size());
      continue;
    }
    if (fields.size() != header.size())
      fail("expected " + std::to_string(header.size()) + " fields as in the header, found " +
           std::to_string(fields.size()));
    for (std::size_t c = 0; c < fields.size(); ++c) values[c].push_back(std::move(fields[c]));
    lines.push_back(line_number);
  }
  line_number = 0;
  require(!header.empty(), name + ": the file holds no header line");
  require(!lines.empty(), name + ": the file holds a header but no agents");

  AttributeTable table;
  table.rows = lines.size();
  for (std::size_t c = 0; c < header.size(); ++c) {
    auto const& column = values[c];
    if (header[c] == "id" || header[c] == "agent_id") {
      require(table.ids.empty(), name + ": both 'id' and 'agent_id' columns: which one names the agent?");
      std::unordered_set<std::int64_t> seen;
      for (std::size_t r = 0; r < column.size(); ++r) {
        std::int64_t id = 0;
        line_number = lines[r];
        if (!parse_integer(column[r], id) || id < 0)
          fail(header[c] + " '" + column[r] + "' is not a non-negative integer agent id");
        if (!seen.insert(id).second) fail("agent id " + column[r] + " appears twice");
        table.ids.push_back(id);
      }
      continue;
    }
    AttributeColumn out;
    out.name = header[c];
    std::int64_t integer = 0;
    double real = 0.0;
    if (std::all_of(column.begin(), column.end(), [&](auto const& v) { return parse_integer(v, integer); })) {
      out.kind = AttributeColumn::Kind::integer;
      for (auto const& v : column) out.integers.push_back(parse_integer(v, integer) ? integer : 0);
    } else if (std::all_of(column.begin(), column.end(), [&](auto const& v) { return parse_real(v, real); })) {
      out.kind = AttributeColumn::Kind::real;
      for (auto const& v : column) out.reals.push_back(parse_real(v, real) ? real : 0.0);
    } else {
      out.kind = AttributeColumn::Kind::category;
      std::unordered_map<std::string, std::int64_t> codes;
      for (auto const& v : column) {
        auto const [it, added] = codes.emplace(v, static_cast<std::int64_t>(out.categories.size()));
        if (added) out.categories.push_back(v);
        out.integers.push_back(it->second);
      }
    }
    table.columns.push_back(std::move(out));
  }
  return table;
}

}  // namespace herd
