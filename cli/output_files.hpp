#pragma once

// The files a command writes, checked before any work (docs/cli.md, "Output files"): each can be
// written, none is also an input or another output.

#include "options.hpp"

#include <herd/io/output_file.hpp>

#include <string>
#include <utility>
#include <vector>

namespace herd::cli {

/// Throws UsageError when an output is the same file as an input (--graph, --attributes, the
/// checkpoint resumed) or as another output, compared by identity (device and inode, or the
/// resolved path), not by spelling. Devices, FIFOs and standard output may take several outputs.
void check_distinct_files(Options const& options);

/// `path` made absolute against this process's working folder; as given where that fails.
std::string absolute_path(std::string const& path);

/// A file the ranks of a run open together, as this rank sees it.
struct SeenFile {
  std::string name;         ///< the option and the path given, as messages spell them
  std::string description;  ///< what is there: compared between ranks, quoted in messages
};

/// The files every rank opens (the checkpoint resumed, the --graph and --attributes files, the
/// HDF5 outputs), as this rank sees them: an input's size and a hash of its bytes (all of them up
/// to 16 MiB, else 64 blocks of 64 KiB spread over the file), with its path made absolute where it
/// is an HDF5 file; an HDF5 output's path made absolute. Ranks whose descriptions differ would read
/// other inputs, or open other files where MPI-IO needs one. Not the scenario, which rank 0 reads
/// alone, nor anything of `herd partition`, whose model rank 0 makes alone. Reads no FIFO or
/// device (an input there is read once). Throws only std::bad_alloc.
std::vector<SeenFile> files_as_seen(Options const& options);

/// Throws herd::Error naming the option and path unless every output can be written: a mistyped
/// path fails at once, not after the run. Leaves no file behind.
void check_outputs(Options const& options);

/// Writes `content` to the output `path` (herd::io::write_output: devices in place, "-" to
/// standard output, files atomically). Throws herd::Error naming the path.
void write_output(std::string const& path, std::string const& content);

/// A command's outputs, put in place together once every one is written: a command that fails on
/// any of them leaves none (an earlier file of the name stays whole). What is not put in place is
/// removed when this goes.
class FinishedOutputs {
 public:
  FinishedOutputs() = default;
  FinishedOutputs(FinishedOutputs const&) = delete;
  FinishedOutputs& operator=(FinishedOutputs const&) = delete;
  ~FinishedOutputs();

  /// A file complete under its temporary name (none where `file.temporary` is empty).
  void add(io::WrittenFile file);
  /// The output `path` with `content`: a file is written beside its target now; a device or
  /// standard output, which cannot be taken back, is written by put_in_place. Throws herd::Error
  /// naming the path.
  void add(std::string const& path, std::string const& content);
  /// Writes the devices and standard output, then renames the files into place. Throws
  /// herd::Error naming the output that failed.
  void put_in_place();

 private:
  std::vector<io::WrittenFile> files_;
  std::vector<std::pair<io::OutputTarget, std::string>> streams_;
};

/// Appends `line` and a newline to `path` in one write, creating the file if needed.
void append_line(std::string const& path, std::string const& line);

}  // namespace herd::cli
