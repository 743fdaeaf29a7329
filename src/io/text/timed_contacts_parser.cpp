#include <herd/io/text/shown_field.hpp>
#include <herd/io/text/timed_contacts_parser.hpp>

#include <herd/core/error.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include "line_ends.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

namespace herd {

namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

// The next field of `line` from `at`, or an empty view at the end of the line.
std::string_view next_field(std::string_view line, std::size_t& at) {
  while (at < line.size() && is_separator(line[at])) ++at;
  std::size_t const begin = at;
  while (at < line.size() && !is_separator(line[at])) ++at;
  return line.substr(begin, at - begin);
}

enum class Parsed { yes, no, too_large };

Parsed parse_integer(std::string_view text, long long& value) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || end != text.data() + text.size()) return Parsed::no;
  return error == std::errc() ? Parsed::yes : error == std::errc::result_out_of_range ? Parsed::too_large : Parsed::no;
}

}  // namespace

namespace Details {

std::pair<std::size_t, std::string> parse_timed_lines(std::string_view text, std::string const& name,
                                                      std::size_t first_line, TimedLines& out) {
  std::size_t line_number = first_line - 1, begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    auto const line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    std::size_t at = 0;
    auto const t = next_field(line, at);
    if (t.empty() || t[0] == '#' || t[0] == '%') continue;
    auto const i = next_field(line, at);
    auto const j = next_field(line, at);
    // "name:line: what 'field' problem (a line is: time id id)"
    auto const failure = [&](char const* what, std::string_view field = {}, char const* problem = "") {
      std::string message = name + ":" + std::to_string(line_number) + ": " + what;
      if (!field.empty()) message.append(" ").append(io::quoted_field(field)).append(" ").append(problem);
      return std::make_pair(line_number, message + " (a line is: time id id)");
    };
    long long time = 0, a = 0, b = 0;
    // Lines ended by a carriage return alone: the contacts after the first would read as
    // further columns.
    if (Details::holds_carriage_return(line)) return failure(Details::carriage_return_inside);
    if (j.empty()) return failure("expected a time and two agent ids");
    if (auto const read = parse_integer(t, time); read == Parsed::too_large)
      return failure("the time", t, "lies outside the times read, -2^63 to 2^63 - 1");
    else if (read != Parsed::yes)
      return failure("the time", t, "is not an integer");
    for (auto [field, id] : {std::pair{i, &a}, std::pair{j, &b}}) {
      if (auto const read = parse_integer(field, *id); read == Parsed::too_large && field[0] != '-')
        return failure("the agent id", field, "exceeds the largest id read, 2^63 - 1");
      else if (read != Parsed::yes || *id < 0)
        return failure("the agent id", field, "is not a non-negative integer");
    }
    out.times.push_back(time);
    out.first.push_back(a);
    out.second.push_back(b);
  }
  return {0, {}};
}

std::string no_timed_contacts(std::string const& name) { return name + ": no contacts (a line is: time id id)"; }

}  // namespace Details

TimedContacts parse_timed_contacts(std::string_view text, std::string const& name) {
  auto const [bad_line, problem] = Details::first_non_text_line(text, 1);
  require(bad_line == 0, name + ":" + std::to_string(bad_line) + ": " + problem);
  Details::TimedLines lines;
  auto const [failed_line, failure] = Details::parse_timed_lines(text, name, 1, lines);
  require(failed_line == 0, failure);
  require(!lines.times.empty(), Details::no_timed_contacts(name));
  TimedContacts contacts;
  contacts.times = std::move(lines.times);
  // Agents are numbered in increasing order of their ids, whatever order they first meet in.
  std::vector<long long> ids(lines.first);
  ids.insert(ids.end(), lines.second.begin(), lines.second.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  require(ids.size() <= static_cast<std::size_t>(std::numeric_limits<agent_index>::max()),
          name + ": more agents than an agent index holds");
  contacts.num_agents = static_cast<agent_index>(ids.size());
  Details::number_timed_agents(ids, lines, contacts);
  contacts.ids.assign(ids.begin(), ids.end());
  return contacts;
}

namespace Details {

void number_timed_agents(std::vector<long long> const& ids, TimedLines const& lines, TimedContacts& contacts) {
  auto const index = [&](long long id) {
    return static_cast<agent_index>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  contacts.first.resize(lines.first.size());
  contacts.second.resize(lines.second.size());
  for (std::size_t k = 0; k < lines.first.size(); ++k) {
    contacts.first[k] = index(lines.first[k]);
    contacts.second[k] = index(lines.second[k]);
  }
}

}  // namespace Details

TimedContacts read_timed_contacts(std::string const& path) { return parse_timed_contacts(read_text_file(path), path); }

}  // namespace herd
