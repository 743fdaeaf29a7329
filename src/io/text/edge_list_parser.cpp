#include <herd/io/text/edge_list_parser.hpp>
#include <herd/io/text/shown_field.hpp>

#include <herd/core/error.hpp>

#include "line_ends.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace herd {

namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

// Splits one line into at most 8 fields; returns how many there were.
int split(std::string_view line, std::string_view* fields) {
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_separator(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t const begin = i;
    while (i < line.size() && !is_separator(line[i])) ++i;
    if (count < 8) fields[count] = line.substr(begin, i - begin);
    ++count;
  }
  return count;
}

bool parse_id(std::string_view text, long long& value) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool parse_weight(std::string_view text, float& value) {
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && std::isfinite(value) && value >= 0.0f;
}

// A number a float cannot hold: too large, or too small but for 0 (from_chars says so).
bool beyond_float(std::string_view text) {
  float value = 0.0f;
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc::result_out_of_range && end == text.data() + text.size() && text[0] != '-';
}

constexpr std::size_t longest_layer_name = 64;
// What spreadsheets put before the text of a CSV they save as UTF-8.
constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";

// Layer names numbered by first appearance. Lines of one layer tend to come together, so the
// last name found is tried first.
struct LayerNumbers {
  layer_index last = 0;
  layer_index number(std::string_view name, std::vector<std::string>& names, bool& too_many) {
    if (last < names.size() && names[last] == name) return last;
    auto const found = std::find(names.begin(), names.end(), name);
    if (found != names.end()) return last = static_cast<layer_index>(found - names.begin());
    if (names.size() == static_cast<std::size_t>(max_layers)) {
      too_many = true;
      return 0;
    }
    names.emplace_back(name);
    return last = static_cast<layer_index>(names.size() - 1);
  }
};

}  // namespace

std::string read_text_file(std::string const& path, TextLimits const& limits) {
  std::string const what = limits.what;
  // A folder opens as a stream that reads nothing, which would pass for an empty file.
  std::error_code ignored;
  require(!std::filesystem::is_directory(path, ignored), path + ": is a directory, not a " + what);
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    int const reason = errno;
    throw Error(path + ": cannot open the " + what +
                (reason != 0 ? std::string(" (") + std::strerror(reason) + ")" : ""));
  }
  // Read in blocks, so that a stream that is no text file (/dev/zero, a binary) stops at its first
  // NUL byte, overlong line or size limit instead of filling the memory (a pipe has no size).
  constexpr std::size_t block = 1 << 20;
  std::size_t const longest_line = limits.longest_line > 0 ? limits.longest_line : ~std::size_t{0};
  std::string text;
  std::size_t line = 1, line_start = 0;
  std::vector<char> buffer(block);
  while (file) {
    file.read(buffer.data(), static_cast<std::streamsize>(block));
    auto const got = static_cast<std::size_t>(file.gcount());
    // A byte-order mark is no part of the first line's length, as for ranks reading in parts.
    if (text.empty() && got >= 3 && std::string_view(buffer.data(), 3) == byte_order_mark) line_start = 3;
    for (std::size_t k = 0; k < got; ++k) {
      char const c = buffer[k];
      if (c == '\n') {
        require(text.size() + k - line_start <= longest_line,
                path + ":" + std::to_string(line) + ": " + Details::long_line());
        ++line;
        line_start = text.size() + k + 1;
      } else if (c == '\0') {
        // An HDF5 file where text was asked for: through a pipe, a population file too, which HDF5
        // reads only from a regular file (it seeks).
        if ((text.empty() ? std::string_view(buffer.data(), got) : std::string_view(text)).substr(0, 8) ==
            std::string_view("\x89HDF\r\n\x1a\n", 8)) {
          std::error_code ignored;
          std::string message = path;
          message.append(": an HDF5 file, not a text ").append(what);
          if (!std::filesystem::is_regular_file(path, ignored))
            message.append(" (HDF5 reads a regular file, not a pipe or a device)");
          throw Error(message);
        }
        throw Error(path + ":" + std::to_string(line) + ": " + Details::nul_byte);
      }
    }
    text.append(buffer.data(), got);
    require(text.size() - line_start <= longest_line, path + ":" + std::to_string(line) + ": " + Details::long_line());
    if (limits.largest != 0 && text.size() > limits.largest) {
      std::string message = path;
      message.append(": is larger than ")
          .append(std::to_string(limits.largest >> 20))
          .append(" MiB: not a ")
          .append(what);
      throw Error(message);
    }
  }
  require(!file.bad(), path + ": cannot read the " + what);
  // Spreadsheets save CSV with a UTF-8 byte-order mark, which would otherwise become part of the
  // first column's name (an "id" column no longer recognised) or of the first agent id.
  if (text.compare(0, 3, byte_order_mark) == 0) text.erase(0, 3);
  return text;
}

HostEdgeList read_edge_list(std::string const& path, EdgeIds ids) {
  return parse_edge_list(read_text_file(path), path, ids);
}

namespace Details {

EdgeListFormat edge_list_format(std::string_view text, std::string const& name) {
  EdgeListFormat format;
  std::size_t line_number = 0, position = 0;
  std::string_view fields[8];
  while (position < text.size()) {
    std::size_t end = text.find('\n', position);
    format.complete = end != std::string::npos;
    if (end == std::string::npos) end = text.size();
    std::string_view const line(text.data() + position, end - position);
    position = end + 1;
    ++line_number;
    int const count = split(line, fields);
    if (count == 0 || fields[0][0] == '#' || fields[0][0] == '%') continue;
    if (count == 4 && (fields[2] == "u" || fields[2] == "d")) {  // .lg header: nv,ne,u|d,name
      constexpr long long max_agents = std::numeric_limits<agent_index>::max();
      if (!parse_id(fields[0], format.declared_agents) || format.declared_agents <= 0)
        throw Error(name + ":" + std::to_string(line_number) + ": the header's agent count " +
                    io::quoted_field(fields[0]) + " is not a positive agent count");
      if (format.declared_agents > max_agents)
        throw Error(name + ":" + std::to_string(line_number) + ": the header's agent count " +
                    io::quoted_field(fields[0]) + " exceeds the largest supported count " + std::to_string(max_agents));
      if (!parse_id(fields[1], format.declared_edges) || format.declared_edges < 0)
        throw Error(name + ":" + std::to_string(line_number) + ": the header's edge count " +
                    io::quoted_field(fields[1]) + " is not a count of edges");
      format.base = 1;
      format.directed = fields[2] == "d";
      format.header_end = std::min(position, text.size());
    }
    return format;
  }
  format.complete = false;
  return format;
}

std::string declared_edges_error(std::string const& name, EdgeListFormat const& format, long long lines) {
  if (format.declared_edges < 0 || format.declared_edges == lines) return {};
  auto const counted = [](long long n, char const* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  return name + ": the header declares " + counted(format.declared_edges, "edge") + " but the file holds " +
         counted(lines, "edge line") + " (a truncated or altered file?)";
}

EdgeLines parse_edge_lines(std::string_view text, EdgeListFormat const& format, std::size_t first_line,
                           std::size_t skip, EdgeIds id_mode) {
  EdgeLines out;
  LayerNumbers layers;
  auto& edges = out.edges;
  long long const base = format.base, declared_agents = format.declared_agents;
  std::size_t line_number = first_line - 1, position = 0;
  std::string_view fields[8];
  constexpr long long max_agents = std::numeric_limits<agent_index>::max();
  long long const max_id = id_mode == EdgeIds::dense ? max_agents : std::numeric_limits<long long>::max();
  auto fail = [&](std::string what) {
    out.error_line = line_number;
    out.error = std::move(what);
  };
  // Room for every line at once: growing by doubling would hold up to twice the edges' bytes.
  auto const lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  edges.sources.reserve(lines);
  edges.targets.reserve(lines);

  while (position < text.size() && out.error_line == 0) {
    std::size_t const line_begin = position;
    std::size_t end = text.find('\n', position);
    if (end == std::string::npos) end = text.size();
    std::string_view const line(text.data() + position, end - position);
    position = end + 1;
    ++line_number;
    if (line_begin < skip) continue;
    // Lines ended by a carriage return alone: the next line's ids would read as a weight and a
    // layer (or, after a '#', as a comment).
    if (Details::holds_carriage_return(line)) {
      fail(Details::carriage_return_inside);
      break;
    }
    int const count = split(line, fields);
    if (count == 0 || fields[0][0] == '#' || fields[0][0] == '%') continue;
    if (count < 2 || count > 4) {
      fail("expected two agent ids, an optional weight and an optional layer, found " + std::to_string(count) +
           " fields");
      break;
    }
    long long ids[2];
    for (int k = 0; k < 2 && out.error_line == 0; ++k) {
      if (!parse_id(fields[k], ids[k])) {
        // Digits beyond 64 bits are an id too large, not a malformed one.
        bool const digits = fields[k].find_first_not_of("0123456789") == std::string_view::npos;
        fail(digits ? "agent id " +
                          (fields[k].size() <= 80 ? std::string(fields[k])
                                                  : "of " + std::to_string(fields[k].size()) + " digits") +
                          " exceeds the largest supported id " + std::to_string(max_id - 1 + base)
                    : io::quoted_field(fields[k]) + " is not an integer agent id");
        break;
      }
      // The id as read, not as written: leading zeros could make the text any length.
      std::string const read = std::to_string(ids[k]);
      ids[k] -= base;
      if (ids[k] < 0)
        fail("agent id " + read + " is below the first id " + std::to_string(base));
      else if (ids[k] >= max_id)
        fail("agent id " + read + " exceeds the largest supported id " + std::to_string(max_id - 1 + base));
      else if (declared_agents > 0 && ids[k] >= declared_agents)
        fail("agent id " + read + " exceeds the header's agent count " + std::to_string(declared_agents));
    }
    if (out.error_line != 0) break;
    float weight = 0.0f;
    if (count >= 3 && !parse_weight(fields[2], weight)) {
      std::string const field(fields[2]);
      if (beyond_float(fields[2]))
        fail(io::quoted_field(field) + " lies beyond a 32-bit float's range of weights");
      else
        fail(io::quoted_field(field) + " is not a non-negative weight" +
             (count == 3 && is_layer_name(fields[2]) ? " (a layer comes fourth, after a weight)" : ""));
      break;
    }
    layer_index layer = 0;
    if (count == 4) {
      if (!is_layer_name(fields[3])) {
        fail(io::quoted_field(fields[3]) + " is not a layer name (" + layer_name_rule + ")");
        break;
      }
      layer = layers.number(fields[3], edges.layer_names, out.too_many_layers);
    }
    int const kind = count - 2;
    if (out.first_of[kind] == 0) {
      out.first_of[kind] = line_number;
      if (count >= 3) edges.weights.reserve(lines);
      if (count == 4) edges.layers.reserve(lines);
    }
    if (count >= 3) edges.weights.push_back(weight);
    if (count == 4) edges.layers.push_back(layer);
    out.largest = std::max({out.largest, ids[0], ids[1]});
    edges.sources.push_back(ids[0]);
    edges.targets.push_back(ids[1]);
    // Lines of two kinds: one kind is wrong, and the later lines cannot change which.
    if (std::count_if(std::begin(out.first_of), std::end(out.first_of), [](std::size_t f) { return f != 0; }) > 1)
      break;
  }
  return out;
}

std::pair<std::size_t, std::string> first_non_text_line(std::string_view text, std::size_t first_line) {
  std::size_t line = first_line, position = 0;
  while (position < text.size()) {
    std::size_t end = text.find('\n', position);
    if (end == std::string::npos) end = text.size();
    std::string_view const here(text.data() + position, end - position);
    if (here.find('\0') != std::string_view::npos) return {line, nul_byte};
    if (here.size() > longest_line) return {line, long_line()};
    position = end + 1;
    ++line;
  }
  return {0, {}};
}

bool is_layer_name(std::string_view text) {
  auto const letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto const digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.empty() || text.size() > longest_layer_name || !letter(text[0])) return false;
  return std::all_of(text.begin(), text.end(),
                     [&](char c) { return letter(c) || digit(c) || c == '_' || c == '-' || c == '.'; });
}

std::string long_line() { return "a line longer than " + std::to_string(longest_line) + " bytes: not a text file"; }

std::string edge_list_error(std::string const& name, std::size_t error_line, std::string const& error,
                            std::size_t const (&first_of)[edge_line_kinds]) {
  std::size_t const mixed = first_mixed_line(first_of);
  if (error_line != 0 && (mixed == 0 || error_line < mixed))
    return name + ":" + std::to_string(error_line) + ": " + error;
  if (mixed == 0) return {};
  int rule = 0, breaker = 0;  // the kinds of the first edge line and of the line that breaks its rule
  for (int k = 0; k < edge_line_kinds; ++k) {
    if (first_of[k] != 0 && first_of[k] < mixed) rule = k;
    if (first_of[k] == mixed) breaker = k;
  }
  // What the breaking line has that the rule's lines have not, or lacks that they have.
  char const* const what = breaker > rule ? (breaker == layered_line ? "a layer appears after lines without layers"
                                                                     : "a weight appears after lines without weights")
                                          : (rule == layered_line ? "this line has no layer but earlier lines do"
                                                                  : "this line has no weight but earlier lines do");
  return name + ":" + std::to_string(mixed) + ": " + what;
}

std::size_t first_mixed_line(std::size_t const (&first_of)[edge_line_kinds]) {
  // The kind of the first edge line sets the rule; the first line of another kind breaks it.
  std::size_t rule = 0, breaker = 0;
  for (auto const first : first_of)
    if (first != 0 && (rule == 0 || first < rule)) rule = first;
  for (auto const first : first_of)
    if (first != 0 && first != rule && (breaker == 0 || first < breaker)) breaker = first;
  return breaker;
}

std::string too_many_layers(std::string const& name) {
  return name + ": more than " + std::to_string(max_layers) + " layer names (a graph holds at most " +
         std::to_string(max_layers) + " layers)";
}

void number_layers(HostEdgeList& edges, std::vector<std::string> const& names) {
  std::vector<layer_index> place(edges.layer_names.size());
  for (std::size_t l = 0; l < place.size(); ++l)
    place[l] =
        static_cast<layer_index>(std::lower_bound(names.begin(), names.end(), edges.layer_names[l]) - names.begin());
  for (auto& layer : edges.layers) layer = place[layer];
  edges.layer_names = names;
}

}  // namespace Details

HostEdgeList parse_edge_list(std::string_view text, std::string const& name, EdgeIds ids) {
  auto const format = Details::edge_list_format(text, name);
  // Renumbered, its ids would lose their base of 1 and the agents it declares without edges.
  require(ids == EdgeIds::dense || format.declared_agents <= 0,
          name + ": an .lg header numbers the agents 1 to " + std::to_string(format.declared_agents) +
              " already: the file is read as it stands, not renumbered");
  auto lines = Details::parse_edge_lines(text, format, 1, format.header_end, ids);
  auto const problem = Details::edge_list_error(name, lines.error_line, lines.error, lines.first_of);
  if (!problem.empty()) throw Error(problem);
  require(!lines.edges.sources.empty(), name + ": the file holds no edges");
  require(!lines.too_many_layers, Details::too_many_layers(name));
  auto const count = Details::declared_edges_error(name, format, static_cast<long long>(lines.edges.sources.size()));
  if (!count.empty()) throw Error(count);
  HostEdgeList edges = std::move(lines.edges);
  auto names = edges.layer_names;
  std::sort(names.begin(), names.end());
  Details::number_layers(edges, names);
  edges.directed = format.directed;
  if (format.declared_agents > 0)
    edges.num_agents = static_cast<agent_index>(format.declared_agents);
  else if (lines.largest < std::numeric_limits<agent_index>::max())
    edges.num_agents = static_cast<agent_index>(lines.largest + 1);
  return edges;
}

std::vector<global_id> compact_ids(HostEdgeList& edges, std::vector<global_id> const& more) {
  std::vector<global_id> ids;
  ids.reserve(edges.sources.size() + edges.targets.size() + more.size());
  ids.insert(ids.end(), edges.sources.begin(), edges.sources.end());
  ids.insert(ids.end(), edges.targets.begin(), edges.targets.end());
  ids.insert(ids.end(), more.begin(), more.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  require(ids.size() < static_cast<std::size_t>(std::numeric_limits<agent_index>::max()),
          std::to_string(ids.size()) + " distinct agent ids: more than the supported " +
              std::to_string(std::numeric_limits<agent_index>::max() - 1) + " agents");
  auto index_of = [&](global_id id) { return std::lower_bound(ids.begin(), ids.end(), id) - ids.begin(); };
  for (auto& id : edges.sources) id = index_of(id);
  for (auto& id : edges.targets) id = index_of(id);
  edges.num_agents = static_cast<agent_index>(ids.size());
  return ids;
}

}  // namespace herd
