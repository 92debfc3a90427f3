package import PassServerCLI
import Synchronization

/// Captures what a command prints.
package final class CapturedOutput: Sendable {
    private let out = Mutex<[String]>([])
    private let err = Mutex<[String]>([])
    package var standardOutput: String { out.withLock { $0.joined(separator: "\n") } }
    package var standardError: String { err.withLock { $0.joined(separator: "\n") } }

    package init() {}

    package func context(environment: [String: String] = [:]) -> CommandContext {
        CommandContext(
            environment: environment,
            standardOutput: { line in self.out.withLock { $0.append(line) } },
            standardError: { line in self.err.withLock { $0.append(line) } },
            isTerminal: false
        )
    }
}
