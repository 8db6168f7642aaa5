// Ctrl-C and kill: stop at once, remove temporary files, never leave a partial output.
#pragma once

namespace ptq {

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it starts later) and starts
// a thread that takes them from a signalfd: on one it removes the temporary files of unfinished atomic
// writes (RemoveTemporaryFilesBeforeExit, which lets a commit in progress finish first), prints
// "ptq: interrupted (SIGINT)" and exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
// A signal ignored when ptq starts (e.g. SIGINT of a background job in a script) stays ignored.
// REQUIRES: called before any other thread is started.
void StopCleanlyOnInterrupt();

// The exit code once a command has finished (stdout flushed): `code`, or 128 + the signal number when
// SIGINT or SIGTERM arrived before this call (then it does not return). A signal that arrives later
// no longer changes how ptq ends.
int ExitCodeUnlessInterrupted(int code);

}  // namespace ptq
