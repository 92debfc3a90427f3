import Logging

/// Reads `--name value` / `--name=value` options, `--flag` booleans and positional arguments: the
/// one argument reader of `pass-server`, `pass-server-bench`, `fake-apns` and `fleet`.
///
/// Every option is declared up front (`valued` takes a value, `booleans` does not), so anything
/// else is a usage error naming it; an argument is quoted back escaped (`LogText`), never raw.
package struct OptionParser {
    package private(set) var options: [String: String] = [:]
    package private(set) var flags: Set<String> = []
    package private(set) var positional: [String] = []

    /// Problems found by the collecting initializer, in argument order (the throwing one throws the first).
    package private(set) var problems: [UsageError] = []

    /// `valued` options take a value; `booleans` do not (names without the leading `--`); a name
    /// in both is a bare flag or, written `--name=value`, a value. `positionals`: whether arguments
    /// that are not options are kept (else a usage error). Throws the first problem.
    package init(_ arguments: [String], valued: Set<String>, booleans: Set<String> = [], positionals: Bool = true) throws(UsageError) {
        self.init(collecting: arguments, valued: valued, booleans: booleans, positionals: positionals)
        if let first = problems.first { throw first }
    }

    /// Reads every argument and keeps every problem in `problems`, for a caller that reports
    /// them together with others (the configuration).
    package init(collecting arguments: [String], valued: Set<String>, booleans: Set<String> = [], positionals: Bool = true) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                if positionals {
                    positional.append(argument)
                } else {
                    problems.append(UsageError("unexpected argument '\(LogText.escape(argument))'"))
                }
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0].dropFirst(2))
            if booleans.contains(name), parts.count == 1 {
                flags.insert(name)
            } else if valued.contains(name) {
                if parts.count == 2 {
                    options[name] = String(parts[1])
                } else if index < arguments.count {
                    options[name] = arguments[index]
                    index += 1
                } else {
                    problems.append(UsageError("--\(name) needs a value"))
                }
            } else {
                problems.append(UsageError("unknown option '\(LogText.escape(argument))'"))
            }
        }
    }

    /// The value of `--name`, which must be given and not empty.
    package func required(_ name: String) throws(UsageError) -> String {
        guard let value = options[name], !value.isEmpty else { throw UsageError("--\(name) is required") }
        return value
    }

    /// The value of `--name` read as a number, `fallback` when it is not given.
    package func number<T: LosslessStringConvertible>(_ name: String, _ fallback: T) throws(UsageError) -> T {
        guard let text = options[name] else { return fallback }
        guard let value = T(text) else { throw UsageError("--\(name) must be a number") }
        return value
    }
}
