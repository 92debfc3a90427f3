import Benchmarks
import Foundation

// A peer that closes a socket mid-write must not kill the benchmark: writes report EPIPE instead.
signal(SIGPIPE, SIG_IGN)
exit(await BenchmarkCommandLine.run(Array(CommandLine.arguments.dropFirst())))
