#pragma once

// Plain-text edge lists (SNAP, .lg, CSV) parsed on the host. Free of Kokkos, so the parser can be
// fuzzed on its own; herd/io/edge_list_reader.hpp adds the copy to a device.

#include <herd/core/types.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace herd {

/// An edge list read into host memory.
struct HostEdgeList {
  agent_index num_agents = 0;
  std::vector<global_id> sources;
  std::vector<global_id> targets;
  std::vector<float> weights;            ///< empty unless the file has a third column
  std::vector<layer_index> layers;       ///< empty, or one layer per edge
  std::vector<std::string> layer_names;  ///< what the layers are, by number (may be empty)
  bool directed = false;                 ///< the file says its edges are one-way (an .lg header "nv,ne,d,name")
};

/// How a parser treats agent ids.
enum class EdgeIds {
  dense,  ///< ids are agent indices: the agent count is the largest id + 1 (or the .lg header's)
  any     ///< any non-negative 64-bit ids (SNAP user ids); compact_ids() then numbers them densely
};

/// Parses an edge list: two non-negative agent ids, an optional weight and, after a weight, an
/// optional layer name per line, separated by spaces, tabs or commas; lines starting with '#' or
/// '%' are comments (SNAP style). A first line "nv,ne,u,graph" (or ",d,") is the header of the .lg
/// format: nv agents, ids from 1. Otherwise ids start at 0. The layers are numbered in the byte
/// order of their names (layer_names). Throws herd::Error naming `name`, the line and the problem.
HostEdgeList parse_edge_list(std::string_view text, std::string const& name, EdgeIds ids = EdgeIds::dense);

/// Reads and parses the edge-list file `path` (see parse_edge_list).
HostEdgeList read_edge_list(std::string const& path, EdgeIds ids = EdgeIds::dense);

/// Renumbers the agents of an edge list read with EdgeIds::any to 0..n-1 in increasing order of
/// their ids, counting also the agents `more` names (agents without edges, e.g. from an attribute
/// table). Returns the original id of each agent. Throws if there are more agents than an
/// agent_index holds.
std::vector<global_id> compact_ids(HostEdgeList& edges, std::vector<global_id> const& more);

/// What read_text_file accepts, and how its messages call the file.
struct TextLimits {
  std::size_t longest_line = std::size_t{1} << 20;  ///< bytes a line may hold; 0: any (JSON on one line)
  std::size_t largest = 0;                          ///< bytes the file may hold; 0: any
  char const* what = "file";                        ///< "the scenario file": in "cannot open the ..."
};

/// The whole contents of a file, without a leading UTF-8 byte-order mark; throws herd::Error
/// naming the file (and the line) if it cannot be read, holds a NUL byte or exceeds `limits`.
std::string read_text_file(std::string const& path, TextLimits const& limits = {});

namespace Details {

/// Lines longer than this are no text: read_text_file and mpi::read_edge_list refuse them.
inline constexpr std::size_t longest_line = TextLimits{}.longest_line;
inline constexpr char const* nul_byte = "a NUL byte: not a text file";
std::string long_line();  ///< "a line longer than ... bytes: not a text file"

/// The first line of `text` (numbered from `first_line`) that holds a NUL byte or is longer than
/// longest_line, and its problem; {0, ""} when there is none.
std::pair<std::size_t, std::string> first_non_text_line(std::string_view text, std::size_t first_line);

/// What an edge list's first data line says of the whole file. An .lg header "nv,ne,u|d,name"
/// gives the agent count, ids from 1 and the direction; any other first line leaves ids from 0.
struct EdgeListFormat {
  long long declared_agents = -1;  ///< the header's agent count; -1 without a header
  long long declared_edges = -1;   ///< the header's edge count (its edge lines); -1 without a header
  long long base = 0;              ///< the first agent id
  bool directed = false;
  std::size_t header_end = 0;  ///< the byte after the header line; 0 without a header
  bool complete = false;       ///< the first data line was seen whole (ended by a newline)
};

/// The format of the edge list that begins with `text`. Throws herd::Error naming `name` and the
/// line of a bad header.
EdgeListFormat edge_list_format(std::string_view text, std::string const& name);

/// Where a header declares its edge lines: the message for a file `name` that holds `lines`
/// others, a truncated or altered file; else empty.
std::string declared_edges_error(std::string const& name, EdgeListFormat const& format, long long lines);

/// The kinds of edge line, by their fields: two ids; ids and a weight; ids, a weight and a layer.
/// Every line of a file is of one kind.
enum EdgeLineKind { plain_line, weighted_line, layered_line, edge_line_kinds };

/// A layer name: a letter, then letters, digits, '_', '-' or '.', at most 64 bytes.
bool is_layer_name(std::string_view text);
/// is_layer_name's rule, for messages.
inline constexpr char const* layer_name_rule = "a letter, then letters, digits, '_', '-' or '.', at most 64 bytes";

/// Whole lines of an edge list parsed under a format: their edges, and the first problem. The
/// edges' layers are numbered by the first appearance of their names in these lines
/// (edges.layer_names) until number_layers puts them in the order of the whole file's names.
struct EdgeLines {
  HostEdgeList edges;
  long long largest = -1;                      ///< the largest id read, less the format's base
  std::size_t first_of[edge_line_kinds] = {};  ///< the first line of each kind (0: none)
  std::size_t error_line = 0;                  ///< the first line that could not be read (0: none)
  std::string error;                           ///< its problem
  bool too_many_layers = false;                ///< more than max_layers names (their lines have layer 0)
};

/// Parses the lines of `text`, the first of which is line `first_line` of its file; lines that
/// begin before byte `skip` of `text` (the header's) are passed over. Stops at the first bad line,
/// or once lines with and without a weight have both been seen, as one of them is then wrong.
/// Text that is no text (see first_non_text_line) is for the caller to refuse first.
EdgeLines parse_edge_lines(std::string_view text, EdgeListFormat const& format, std::size_t first_line,
                           std::size_t skip, EdgeIds ids);

/// The first problem of an edge list parsed in pieces, "name:line: problem", from the first bad
/// line of all pieces (0: none) with its problem and the first line of each kind over all pieces;
/// empty when there is none.
std::string edge_list_error(std::string const& name, std::size_t error_line, std::string const& error,
                            std::size_t const (&first_of)[edge_line_kinds]);

/// The first line that breaks the rule the first edge line's kind sets (0: none), from the first
/// line of each kind.
std::size_t first_mixed_line(std::size_t const (&first_of)[edge_line_kinds]);

/// "name: more than ... layers", where a file names more layers than a graph holds.
std::string too_many_layers(std::string const& name);

/// Renumbers the layers of `edges`, numbered by the first appearance of edges.layer_names, by
/// their place in `names`: the sorted names of the whole file, which hold them all.
void number_layers(HostEdgeList& edges, std::vector<std::string> const& names);

}  // namespace Details

}  // namespace herd
