#pragma once

// A rank under mpiexec stops when its launcher is gone: one that outlived a killed mpiexec would
// finish its run and leave outputs that look complete.

namespace herd::cli {

/// Remembers this process's parent when it was started by an MPI launcher (Open MPI's mpiexec,
/// Hydra, a PMIx launcher), and starts a thread that checks it five times a second; a process
/// started by hand may outlive its shell on purpose.
void remember_launcher();

/// Ends the process with exit status 1, and no output, if the launcher remembered has ended (the
/// process was handed to another parent). The watcher calls it; so does the command right before
/// it writes a final output, which the watcher's next look could come too late for.
void stop_if_launcher_gone();

}  // namespace herd::cli
