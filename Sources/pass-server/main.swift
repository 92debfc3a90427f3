import Foundation
import PassServer

exit(CommandLineInterface.run(Array(CommandLine.arguments.dropFirst())))
