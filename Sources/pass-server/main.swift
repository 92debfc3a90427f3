import Foundation
import PassServerCLI

// A peer that closes a socket mid-write must not kill the server: writes report EPIPE instead.
signal(SIGPIPE, SIG_IGN)
exit(CommandLineInterface.run(Array(CommandLine.arguments.dropFirst())))
