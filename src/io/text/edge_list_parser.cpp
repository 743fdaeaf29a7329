#include <herd/io/text/edge_list_parser.hpp>

#include <herd/core/error.hpp>

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

}  // namespace

std::string read_text_file(std::string const& path) {
  // A folder opens as a stream that reads nothing, which would pass for an empty file.
  std::error_code ignored;
  require(!std::filesystem::is_directory(path, ignored), path + ": is a directory, not a file");
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    int const reason = errno;
    throw Error(path + ": cannot open the file" + (reason != 0 ? std::string(" (") + std::strerror(reason) + ")" : ""));
  }
  // Read in blocks, so that a stream that is no text file (/dev/zero, a binary) stops at its first
  // NUL byte or overlong line instead of filling the memory.
  constexpr std::size_t block = 1 << 20;
  using Details::longest_line;
  std::string text;
  std::size_t line = 1, line_start = 0;
  std::vector<char> buffer(block);
  while (file) {
    file.read(buffer.data(), static_cast<std::streamsize>(block));
    auto const got = static_cast<std::size_t>(file.gcount());
    for (std::size_t k = 0; k < got; ++k) {
      char const c = buffer[k];
      if (c == '\n') {
        require(text.size() + k - line_start <= longest_line,
                path + ":" + std::to_string(line) + ": " + Details::long_line());
        ++line;
        line_start = text.size() + k + 1;
      } else if (c == '\0') {
        throw Error(path + ":" + std::to_string(line) + ": " + Details::nul_byte);
      }
    }
    text.append(buffer.data(), got);
    require(text.size() - line_start <= longest_line, path + ":" + std::to_string(line) + ": " + Details::long_line());
  }
  require(!file.bad(), path + ": cannot read the file");
  // Spreadsheets save CSV with a UTF-8 byte-order mark, which would otherwise become part of the
  // first column's name (an "id" column no longer recognised) or of the first agent id.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
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
      if (!parse_id(fields[0], format.declared_agents) || format.declared_agents <= 0 ||
          format.declared_agents > max_agents)
        throw Error(name + ":" + std::to_string(line_number) + ": the header's agent count '" + std::string(fields[0]) +
                    "' is not a positive agent count");
      format.base = 1;
      format.directed = fields[2] == "d";
      format.header_end = std::min(position, text.size());
    }
    return format;
  }
  format.complete = false;
  return format;
}

EdgeLines parse_edge_lines(std::string_view text, EdgeListFormat const& format, std::size_t first_line,
                           std::size_t skip, EdgeIds id_mode) {
  EdgeLines out;
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
    int const count = split(line, fields);
    if (count == 0 || fields[0][0] == '#' || fields[0][0] == '%') continue;
    if (count != 2 && count != 3) {
      fail("expected two agent ids and an optional weight, found " + std::to_string(count) + " fields");
      break;
    }
    long long ids[2];
    for (int k = 0; k < 2 && out.error_line == 0; ++k) {
      if (!parse_id(fields[k], ids[k])) {
        fail("'" + std::string(fields[k]) + "' is not an integer agent id");
        break;
      }
      ids[k] -= base;
      if (ids[k] < 0)
        fail("agent id " + std::string(fields[k]) + " is below the first id " + std::to_string(base));
      else if (ids[k] >= max_id)
        fail("agent id " + std::string(fields[k]) + " exceeds the largest supported id " +
             std::to_string(max_id - 1 + base));
      else if (declared_agents > 0 && ids[k] >= declared_agents)
        fail("agent id " + std::string(fields[k]) + " exceeds the header's agent count " +
             std::to_string(declared_agents));
    }
    if (out.error_line != 0) break;
    if (count == 3) {
      float weight;
      if (!parse_weight(fields[2], weight)) {
        fail("'" + std::string(fields[2]) + "' is not a non-negative weight");
        break;
      }
      if (out.first_weighted == 0) {
        out.first_weighted = line_number;
        edges.weights.reserve(lines);
      }
      edges.weights.push_back(weight);
    } else if (out.first_plain == 0) {
      out.first_plain = line_number;
    }
    out.largest = std::max({out.largest, ids[0], ids[1]});
    edges.sources.push_back(ids[0]);
    edges.targets.push_back(ids[1]);
    // Lines with and without weights: one kind is wrong, and the later lines cannot change which.
    if (out.first_plain != 0 && out.first_weighted != 0) break;
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

std::string long_line() { return "a line longer than " + std::to_string(longest_line) + " bytes: not a text file"; }

std::string edge_list_error(std::string const& name, std::size_t error_line, std::string const& error,
                            std::size_t first_plain, std::size_t first_weighted) {
  // The kind of the first edge line sets the rule; the first line of the other kind breaks it.
  std::size_t mixed = 0;
  std::string what;
  if (first_plain != 0 && first_weighted != 0) {
    mixed = std::max(first_plain, first_weighted);
    what = first_plain < first_weighted ? "a weight appears after lines without weights"
                                        : "this line has no weight but earlier lines do";
  }
  if (error_line != 0 && (mixed == 0 || error_line < mixed))
    return name + ":" + std::to_string(error_line) + ": " + error;
  if (mixed != 0) return name + ":" + std::to_string(mixed) + ": " + what;
  return {};
}

}  // namespace Details

HostEdgeList parse_edge_list(std::string_view text, std::string const& name, EdgeIds ids) {
  auto const format = Details::edge_list_format(text, name);
  auto lines = Details::parse_edge_lines(text, format, 1, format.header_end, ids);
  auto const problem =
      Details::edge_list_error(name, lines.error_line, lines.error, lines.first_plain, lines.first_weighted);
  if (!problem.empty()) throw Error(problem);
  require(!lines.edges.sources.empty(), name + ": the file holds no edges");
  HostEdgeList edges = std::move(lines.edges);
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
