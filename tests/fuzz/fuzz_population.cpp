// Any bytes as the contents of a population file: the fuzzer writes a well-formed HDF5 file whose
// attributes, dataset types, shapes and values come from the bytes, and Herd's population readers
// must either throw herd::Error or return a graph a step can walk. HDF5's own parser is not the
// target (its format is its maintainers'): what Herd makes of what HDF5 hands it is.
//
// Input layout:
//   byte 0: which parts exist (bit 0 herd_format, 1 format_version 1 (else byte 5), 2 /graph,
//           3 attribute agents, 4 attribute entries, 5 attribute directed, 6 weights, 7 /agents/x);
//   byte 1: row offsets' type (low nibble) and neighbours' type (high nibble), each mod 12;
//   byte 2: weights' type (low nibble), /agents/x's type (high nibble); bit 3 of the high nibble
//           adds a categories attribute;
//   byte 3: agents + 1 offsets (0-15); byte 4: entries (0-63), bit 7 makes neighbours 2-D;
//   byte 5: the stated version or a bias for the stated counts; byte 6: checksum damage (bit 0
//           overwrites every dataset's checksum with byte 7), bit 1 adds /graph/layers of the
//           type in its high nibble, bit 2 their names;
//   then one byte per value: integers are the signed byte, 0x80 standing for 2^40 and 0x7f for
//   -2^40; reals are the byte / 16, 255 NaN and 254 -1.

#include <herd/core/error.hpp>
#include <herd/io/hdf5/file.hpp>
#include <herd/io/hdf5/population.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using herd::io::h5::File;
using herd::io::h5::Type;

std::string scratch;

struct Bytes {
  std::uint8_t const* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
};

Type type_from(unsigned nibble) { return static_cast<Type>(nibble % 12); }

// n values written as int64 or float64 and converted by HDF5 into the dataset's type.
void write_values(File& file, std::string const& name, Type type, std::vector<std::uint64_t> const& extents,
                  Bytes& in) {
  std::uint64_t n = 1;
  for (auto e : extents) n *= e;
  file.create_dataset(name, type, extents);
  if (n == 0) return;
  if (herd::io::h5::is_floating(type)) {
    std::vector<double> values(n);
    for (auto& v : values) {
      auto const b = in.next();
      v = b == 255 ? std::nan("") : b == 254 ? -1.0 : b / 16.0;
    }
    file.write_rows(name, Type::f64, 0, extents[0], values.data());
  } else {
    std::vector<std::int64_t> values(n);
    for (auto& v : values) {
      auto const b = static_cast<std::int8_t>(in.next());
      v = b == -128 ? (std::int64_t{1} << 40) : b == 127 ? -(std::int64_t{1} << 40) : b;
    }
    file.write_rows(name, Type::i64, 0, extents[0], values.data());
  }
}

void write_file(Bytes& in) {
  auto const parts = in.next(), types = in.next(), more_types = in.next();
  std::uint64_t const offsets = in.next() % 16;
  auto const entries_byte = in.next();
  std::uint64_t const entries = entries_byte % 64;
  auto const stated = in.next(), damage = in.next(), wrong_sum = in.next();
  auto file = File::create(scratch, MPI_COMM_SELF);
  if (parts & 1) file.set_attribute("/", "herd_format", std::string("herd-population"));
  file.set_attribute("/", "format_version", std::int64_t{(parts & 2) ? 1 : static_cast<std::int8_t>(stated)});
  if (!(parts & 4)) return;
  file.create_group("/graph");
  auto const bias = static_cast<std::int64_t>(static_cast<std::int8_t>(stated) % 3);
  if (parts & 8) file.set_attribute("/graph", "agents", static_cast<std::int64_t>(offsets) - 1 + bias);
  if (parts & 16) file.set_attribute("/graph", "entries", static_cast<std::int64_t>(entries) + bias);
  if (parts & 32) file.set_attribute("/graph", "directed", bias == 0 ? std::int64_t{0} : bias + 1);
  std::vector<std::string> datasets = {"/graph/row_offsets", "/graph/neighbours"};
  write_values(file, datasets[0], type_from(types & 15), {offsets}, in);
  if (entries_byte & 128)
    write_values(file, datasets[1], type_from(types >> 4), {entries / 2, 2}, in);
  else
    write_values(file, datasets[1], type_from(types >> 4), {entries}, in);
  if (parts & 64) {
    datasets.push_back("/graph/weights");
    write_values(file, datasets.back(), type_from(more_types & 15), {entries}, in);
  }
  if (damage & 2) {
    datasets.push_back("/graph/layers");
    write_values(file, datasets.back(), type_from(damage >> 4), {entries}, in);
    if (damage & 4) file.set_attribute(datasets.back(), "names", std::string("home\nwork"));
  }
  if (parts & 128) {
    file.create_group("/agents");
    datasets.push_back("/agents/x");
    write_values(file, datasets.back(), type_from((more_types >> 4) & 7), {offsets == 0 ? 0 : offsets - 1}, in);
    if (more_types & 128) file.set_attribute(datasets.back(), "categories", std::string("a\nb\nc"));
  }
  if (damage & 1)
    for (auto const& d : datasets) file.set_attribute(d, "checksum", static_cast<std::int64_t>(wrong_sum));
  file.close();
}

// A graph that was accepted must be one a step can walk: the sanitizers and these checks catch
// anything the reader let through.
void walk(herd::HostCsr const& g) {
  auto const n = g.num_agents();
  if (g.row_offsets.size() != static_cast<std::size_t>(n) + 1 || g.row_offsets.front() != 0 ||
      g.row_offsets.back() != g.neighbours.size() || (!g.weights.empty() && g.weights.size() != g.neighbours.size()) ||
      (!g.layers.empty() && (g.weights.empty() || g.layers.size() != g.neighbours.size())))
    std::abort();
  for (auto layer : g.layers)
    if (layer >= herd::max_layers) std::abort();
  for (herd::agent_index i = 0; i < n; ++i) {
    auto const begin = g.row_offsets[static_cast<std::size_t>(i)], end = g.row_offsets[static_cast<std::size_t>(i) + 1];
    if (end < begin) std::abort();
    for (auto e = begin; e < end; ++e) {
      if (g.neighbours[e] < 0 || g.neighbours[e] >= n) std::abort();
      if (e > begin && g.neighbours[e - 1] == g.neighbours[e] && (g.layers.empty() || g.layers[e - 1] >= g.layers[e]))
        std::abort();
      if (!g.weights.empty() && !(std::isfinite(g.weights[e]) && g.weights[e] >= 0.0f)) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  char const* dir = std::getenv("TMPDIR");
  scratch = std::string(dir != nullptr ? dir : "/tmp") + "/herd_fuzz_population_" + std::to_string(::getpid()) + ".h5";
  std::atexit([] {
    std::remove(scratch.c_str());
    MPI_Finalize();
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  Bytes in{data, size};
  try {
    write_file(in);
  } catch (herd::Error const&) {
    return 0;  // a file HDF5 would not write (none is expected): nothing to read
  }
  try {
    bool directed = false;
    walk(herd::io::read_population_graph(scratch, MPI_COMM_SELF, &directed));
    auto const x = herd::io::read_population_attribute(scratch, "x", MPI_COMM_SELF);
    if (x && x->kind == herd::AttributeColumn::Kind::category)
      for (auto code : x->integers)
        if (code < 0 || static_cast<std::size_t>(code) >= x->categories.size()) std::abort();
  } catch (herd::Error const&) {
  }
  return 0;
}
