#pragma once

// How Herd writes a file, so that an output never destroys what it should not (docs/cli.md,
// "Output files"):
// - a path that names a device, a FIFO or a socket (/dev/null, /dev/stdout, a pipe) is written in
//   place, never replaced;
// - a regular file, a new name, or a symlink to either is written under a unique temporary name
//   beside its target (the symlink's final target) and renamed over the target once complete, so
//   the symlink stays and a reader never sees half a file;
// - "-" is standard output.

#include <sys/types.h>
#include <optional>
#include <string>

namespace herd::io {

/// Where an output's bytes go.
struct OutputTarget {
  enum class Kind { replace, in_place, standard_output };
  Kind kind = Kind::replace;
  std::string path;  ///< as given
  /// replace: the file renamed over (a symlink's final target, else `path`); otherwise `path`.
  std::string target;
};

/// How an output named `path` is written, from what the name is; throws herd::Error naming
/// `option` and `path` when it cannot be: an empty name, a directory, a read-only file or device,
/// a name that cannot be looked up. A new name in a folder that takes no files (or none at all)
/// is found when the file is made (temporary_beside, or opening a device).
OutputTarget output_target(std::string const& option, std::string const& path);

/// Whether `path` names the file or pipe behind this process's standard output (/dev/stdout,
/// /proc/self/fd/1, the file it was redirected to): written through its descriptor, not opened anew.
bool is_standard_output(std::string const& path);

/// The file an output written beside its target and renamed into place (an HDF5 file) replaces:
/// the final target of `path`, which must be a regular file or a new name; throws herd::Error
/// naming `named` (else `path`) otherwise.
std::string replaced_file(std::string const& path, std::string const& named = {});

/// Creates an empty file under a unique name beside `target` (mkstemp: a file of the user's with
/// the name is never touched) and returns its name; throws herd::Error naming `named` (else
/// `target`) when the folder takes no file.
std::string temporary_beside(std::string const& target, std::string const& named = {});

/// Renames `temporary` over `target`, giving it the mode `target` had (or that of a new file), and
/// flushes the folder's entry to storage. Throws herd::Error; `temporary` is removed on failure.
void replace_with(std::string const& temporary, std::string const& target);

/// Removes a file temporary_beside() made and that will not be put in place.
void remove_temporary(std::string const& temporary);

/// Has the signal handler below also remove `temporary`, which another rank made with
/// temporary_beside() and this process writes with it (a parallel HDF5 file): whichever rank a
/// signal ends, the file goes, also where mpiexec then kills the rank that made it outright.
void share_temporary(std::string const& temporary);
/// Undoes share_temporary(): the rank that made the file puts it in place or removes it.
void unshare_temporary(std::string const& temporary);

/// Removes the temporary files made by temporary_beside() and not yet put in place or removed,
/// as the signal handler below does: for a process about to end at once (std::_Exit).
void remove_remembered_temporaries();

/// From now on, SIGINT, SIGTERM, SIGHUP and SIGPIPE (where not ignored) first remove the temporary files
/// made by temporary_beside() and not yet put in place or removed, then end the process as the
/// signal does: a job stopped at its time limit or by Ctrl-C leaves no half-written file beside its
/// outputs. For a program's main(); a handler of the program's own stays.
void remove_temporaries_on_signals();

/// Whether `path`, or a link on its way, names a descriptor the process holds (/dev/stdout,
/// /dev/fd/N, /proc/self/fd/N): such an output is written through it, never replaced.
bool names_a_descriptor(std::string const& path);

/// Writes `content` as `target` says: in place, to standard output, or atomically.
void write_output(OutputTarget const& target, std::string const& content);

/// A complete file under its temporary name (temporary_beside), flushed to storage, that
/// replace_with puts in place as `target`: outputs written this way can appear together.
struct WrittenFile {
  std::string temporary;  ///< empty where there is nothing to put in place
  std::string target;
};

/// Writes `content` to a temporary file beside `target` (a replace target) and flushes it. Throws
/// herd::Error naming the output, and leaves no temporary file, when writing fails.
WrittenFile write_beside(OutputTarget const& target, std::string const& content);

/// What makes two paths one file: the device and inode of an existing file, else the absolute
/// path its name resolves to. Paths of different spellings, hard links and symlinks compare equal.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::string absolute;  ///< for a file that does not exist yet
  bool regular = true;   ///< false for devices, FIFOs and sockets, which many outputs may share
  bool operator==(FileIdentity const& other) const {
    if (absolute.empty() != other.absolute.empty()) return false;
    return absolute.empty() ? device == other.device && inode == other.inode : absolute == other.absolute;
  }
};

/// The identity of the file `path` names; empty for "-" (standard output) and an empty name.
std::optional<FileIdentity> identity_of(std::string const& path);

}  // namespace herd::io
