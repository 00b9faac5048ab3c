// The command-line front end: parses arguments, runs one subcommand, and maps
// errors to messages on stderr and exit codes. Nothing here throws to the
// caller.
#pragma once

namespace mergelens {

// Exit codes of the mergelens binary.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // the work failed at run time (I/O, a bug)
  kExitUsage = 2,    // bad usage or bad input, named in the message
};

// Runs the CLI with main()'s arguments; returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace mergelens
