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
  constexpr std::size_t block = 1 << 20, longest_line = 1 << 20;
  std::string text;
  std::size_t line = 1, line_start = 0;
  std::vector<char> buffer(block);
  while (file) {
    file.read(buffer.data(), static_cast<std::streamsize>(block));
    auto const got = static_cast<std::size_t>(file.gcount());
    for (std::size_t k = 0; k < got; ++k) {
      char const c = buffer[k];
      if (c == '\n') {
        ++line;
        line_start = text.size() + k + 1;
      } else if (c == '\0') {
        throw Error(path + ":" + std::to_string(line) + ": a NUL byte: not a text file");
      }
    }
    text.append(buffer.data(), got);
    require(text.size() - line_start <= longest_line, path + ":" + std::to_string(line) + ": a line longer than " +
                                                          std::to_string(longest_line) + " bytes: not a text file");
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

HostEdgeList parse_edge_list(std::string_view text, std::string const& path, EdgeIds id_mode) {
  HostEdgeList edges;
  long long largest = -1, declared_agents = -1, base = 0;
  bool first_data_line = true;
  std::size_t line_number = 0, position = 0;
  std::string_view fields[8];
  auto fail = [&](std::string const& what) { throw Error(path + ":" + std::to_string(line_number) + ": " + what); };
  constexpr long long max_agents = std::numeric_limits<agent_index>::max();
  long long const max_id = id_mode == EdgeIds::dense ? max_agents : std::numeric_limits<long long>::max();

  while (position < text.size()) {
    std::size_t end = text.find('\n', position);
    if (end == std::string::npos) end = text.size();
    std::string_view const line(text.data() + position, end - position);
    position = end + 1;
    ++line_number;
    int const count = split(line, fields);
    if (count == 0 || fields[0][0] == '#' || fields[0][0] == '%') continue;
    if (first_data_line) {
      first_data_line = false;
      if (count == 4 && (fields[2] == "u" || fields[2] == "d")) {  // .lg header: nv,ne,u|d,name
        if (!parse_id(fields[0], declared_agents) || declared_agents <= 0 || declared_agents > max_agents)
          fail("the header's agent count '" + std::string(fields[0]) + "' is not a positive agent count");
        base = 1;
        edges.directed = fields[2] == "d";
        continue;
      }
    }
    if (count != 2 && count != 3)
      fail("expected two agent ids and an optional weight, found " + std::to_string(count) + " fields");
    long long ids[2];
    for (int k = 0; k < 2; ++k) {
      if (!parse_id(fields[k], ids[k])) fail("'" + std::string(fields[k]) + "' is not an integer agent id");
      ids[k] -= base;
      if (ids[k] < 0) fail("agent id " + std::string(fields[k]) + " is below the first id " + std::to_string(base));
      if (ids[k] >= max_id)
        fail("agent id " + std::string(fields[k]) + " exceeds the largest supported id " +
             std::to_string(max_id - 1 + base));
      if (declared_agents > 0 && ids[k] >= declared_agents)
        fail("agent id " + std::string(fields[k]) + " exceeds the header's agent count " +
             std::to_string(declared_agents));
      largest = std::max(largest, ids[k]);
    }
    if (count == 3) {
      float weight;
      if (!parse_weight(fields[2], weight)) fail("'" + std::string(fields[2]) + "' is not a non-negative weight");
      if (edges.weights.size() != edges.sources.size()) fail("a weight appears after lines without weights");
      edges.weights.push_back(weight);
    } else if (!edges.weights.empty()) {
      fail("this line has no weight but earlier lines do");
    }
    edges.sources.push_back(ids[0]);
    edges.targets.push_back(ids[1]);
  }
  require(!edges.sources.empty(), path + ": the file holds no edges");
  if (declared_agents > 0)
    edges.num_agents = static_cast<agent_index>(declared_agents);
  else if (largest < max_agents)
    edges.num_agents = static_cast<agent_index>(largest + 1);
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
