import Foundation
import PassServer

// Standard output is a pipe under process supervisors: flush each line.
setvbuf(stdout, nil, _IOLBF, 0)
exit(CommandLineInterface.run(Array(CommandLine.arguments.dropFirst())))
