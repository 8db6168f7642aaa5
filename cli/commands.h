// The ptq subcommands. Each parses its own arguments (argv[0] is "ptq", argv[1] the subcommand)
// and returns the process exit code; errors are thrown as ptq::Error and mapped in main.cc.
#pragma once

namespace ptq {

int RunCommand(int argc, char** argv);    // ptq run
int BenchCommand(int argc, char** argv);  // ptq bench
int CalibrateCommand(int argc, char** argv);   // ptq calibrate
int MergeStatsCommand(int argc, char** argv);  // ptq merge-stats
int RewriteCommand(int argc, char** argv);     // ptq rewrite
int QuantizeCommand(int argc, char** argv);    // ptq quantize
int CompareCommand(int argc, char** argv);     // ptq compare
int InspectCommand(int argc, char** argv);     // ptq inspect

}  // namespace ptq
