#include "output_files.hpp"
#include "input.hpp"

#include <herd/core/error.hpp>
#include <herd/core/fnv1a.hpp>
#include <herd/io/output_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

namespace herd::cli {

namespace {

struct NamedFile {
  char const* option;
  std::string const* path;
  bool hdf5 = false;  ///< written through HDF5, which needs a regular file
};

// The outputs of the command `o` runs.
std::vector<NamedFile> outputs_of(Options const& o) {
  if (o.command == "partition") return {{"--csv", &o.csv}};
  if (o.command == "convert") return {{"--output", &o.output, true}};
  return {{"--csv", &o.csv},
          {"--json", &o.json},
          {"--profile-steps", &o.profile_steps},
          {"--record", &o.record},
          {"--checkpoint", &o.checkpoint, true},
          {"--output", &o.output, true}};
}

std::vector<NamedFile> inputs_of(Options const& o) {
  std::vector<NamedFile> inputs;
  if (!is_generator(o.graph)) inputs.push_back({"--graph", &o.graph});
  inputs.push_back({"--attributes", &o.attributes});
  inputs.push_back({"--scenario", &o.scenario});
  if (!o.resume.empty()) inputs.push_back({"resume", &o.resume, true});
  return inputs;
}

std::string spelt(NamedFile const& f) { return std::string(f.option) + " " + *f.path; }

// The HDF5 file signature, where the library puts it for a file without a user block.
constexpr std::string_view hdf5_signature("\x89HDF\r\n\x1a\n", 8);

// What the input `path` holds, as this process sees it: its size and a hash of its bytes (all of
// them up to 16 MiB, else 64 blocks of 64 KiB, the last ending with the file), and for an HDF5
// file its path made absolute. A FIFO is not opened: a reader that came and went would let its
// writer start, then break its pipe. A regular file is opened without blocking and measured by its
// descriptor, should the path have changed in between.
std::string seen_in(std::string const& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    return errno == ENOENT || errno == ENOTDIR ? "no file" : "a file it cannot open";
  if (!S_ISREG(status.st_mode)) return "no regular file";
  int const fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "a file it cannot open";
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return "no regular file";
  }
  constexpr std::uint64_t whole = std::uint64_t{1} << 24, block = std::uint64_t{1} << 16, blocks = 64;
  static_assert(whole >= block * blocks);
  auto const size = static_cast<std::uint64_t>(status.st_size);
  std::vector<char> buffer(static_cast<std::size_t>(size <= whole ? size : block));
  std::uint64_t hash = fnv1a_basis;
  bool hdf5 = false;
  auto const take = [&](std::uint64_t at, std::uint64_t length) {
    std::uint64_t got = 0;
    while (got < length) {
      auto const n = ::pread(fd, buffer.data() + got, length - got, static_cast<off_t>(at + got));
      if (n <= 0) return false;  // an error, or a file that shrank
      got += static_cast<std::uint64_t>(n);
    }
    if (at == 0) hdf5 = std::string_view(buffer.data(), std::min<std::uint64_t>(length, 8)) == hdf5_signature;
    hash = fnv1a(std::string_view(buffer.data(), length), hash);
    return true;
  };
  bool read = true;
  if (size <= whole)
    read = take(0, size);
  else
    for (std::uint64_t k = 0; k < blocks && read; ++k)
      read = take(k + 1 == blocks ? size - block : (size - block) / (blocks - 1) * k, block);
  ::close(fd);
  if (!read) return std::to_string(size) + " bytes it cannot read";
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  // Every rank opens an HDF5 input together through MPI-IO, which needs one file: copies in each
  // rank's folder serve only for text.
  return (hdf5 ? "the file " + absolute_path(path) + " of " : std::string()) + std::to_string(size) +
         " bytes of hash " + text;
}

}  // namespace

std::string absolute_path(std::string const& path) {
  std::error_code failed;
  auto const absolute = std::filesystem::absolute(path, failed);
  return failed ? path : absolute.lexically_normal().string();
}

std::vector<SeenFile> files_as_seen(Options const& o) {
  std::vector<SeenFile> seen;
  if (o.command == "partition") return seen;  // rank 0 models the partitions alone
  auto inputs = inputs_of(o);
  // The checkpoint first: its arguments name the other files.
  std::stable_partition(inputs.begin(), inputs.end(),
                        [](NamedFile const& f) { return std::string(f.option) == "resume"; });
  for (auto const& f : inputs)
    // Rank 0 reads the scenario alone and hands it on: the others need not see it.
    if (!f.path->empty() && *f.path != "-" && std::string(f.option) != "--scenario")
      seen.push_back({std::string(f.option) == "resume" ? *f.path : spelt(f), seen_in(*f.path)});
  // The ranks write an HDF5 output together: one file, not one in each rank's folder.
  for (auto const& f : outputs_of(o))
    if (f.hdf5 && !f.path->empty()) seen.push_back({spelt(f), "a file named " + absolute_path(*f.path)});
  return seen;
}

void check_distinct_files(Options const& o) {
  auto const outputs = outputs_of(o);
  auto const inputs = inputs_of(o);
  auto identities = [](std::vector<NamedFile> const& files) {
    std::vector<std::optional<io::FileIdentity>> ids;
    ids.reserve(files.size());
    for (auto const& f : files) ids.push_back(io::identity_of(*f.path));
    return ids;
  };
  auto const output_ids = identities(outputs), input_ids = identities(inputs);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    auto const& out = output_ids[k];
    // Devices, FIFOs and standard output (even redirected to a file) may take several outputs.
    if (!out || !out->regular || io::names_a_descriptor(*outputs[k].path)) continue;
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      // A resumed run writes its checkpoint over the one it started from when asked to.
      if (std::string(inputs[j].option) == "resume" && std::string(outputs[k].option) == "--checkpoint") continue;
      if (input_ids[j] == out)
        throw UsageError{spelt(outputs[k]) + ": is the input " + spelt(inputs[j]) + "; write the output elsewhere"};
    }
    for (std::size_t j = 0; j < k; ++j)
      if (output_ids[j] == out)
        throw UsageError{spelt(outputs[k]) + ": is also " + spelt(outputs[j]) + "; give each output its own file"};
  }
}

void check_outputs(Options const& o) {
  for (auto const& f : outputs_of(o)) {
    if (f.path->empty()) continue;
    if (std::string(f.option) == "--record") {
      // Appending to a file that exists changes nothing; a new one shows whether the folder takes files.
      auto const target = io::output_target(f.option, *f.path);
      if (target.kind == io::OutputTarget::Kind::replace) {
        bool const existed = io::identity_of(*f.path)->absolute.empty();
        std::FILE* file = std::fopen(f.path->c_str(), "ab");
        require(file != nullptr, spelt(f) + ": cannot write the file (" + std::strerror(errno) + ")");
        std::fclose(file);
        // The file tried, at the end of any symlink: the link itself stays.
        if (!existed) std::remove(target.target.c_str());
      }
      continue;
    }
    auto const target = io::output_target(f.option, *f.path);
    if (f.hdf5) io::replaced_file(*f.path, spelt(f));
    // The folder takes the file the output is written to before it is renamed into place.
    if (target.kind == io::OutputTarget::Kind::replace)
      io::remove_temporary(io::temporary_beside(target.target, spelt(f)));
  }
}

void write_output(std::string const& path, std::string const& content) {
  io::write_output(io::output_target("", path), content);
}

FinishedOutputs::~FinishedOutputs() {
  for (auto const& f : files_) io::remove_temporary(f.temporary);
}

void FinishedOutputs::add(io::WrittenFile file) {
  if (!file.temporary.empty()) files_.push_back(std::move(file));
}

void FinishedOutputs::add(std::string const& path, std::string const& content) {
  auto target = io::output_target("", path);
  if (target.kind == io::OutputTarget::Kind::replace)
    add(io::write_beside(target, content));
  else
    streams_.emplace_back(std::move(target), content);
}

void FinishedOutputs::put_in_place() {
  for (auto const& [target, content] : streams_) io::write_output(target, content);
  streams_.clear();
  while (!files_.empty()) {
    auto const f = files_.front();
    files_.erase(files_.begin());
    io::replace_with(f.temporary, f.target);
  }
}

void append_line(std::string const& path, std::string const& line) {
  if (path == "-") {
    io::write_output(io::output_target("--record", path), line + "\n");
    return;
  }
  std::FILE* file = std::fopen(path.c_str(), "ab");
  require(file != nullptr, path + ": cannot append to the file (" + std::strerror(errno) + ")");
  std::string const text = line + "\n";
  bool const written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  bool const closed = std::fclose(file) == 0;
  require(written && closed, path + ": appending to the file failed (" + std::strerror(errno) + ")");
}

}  // namespace herd::cli
