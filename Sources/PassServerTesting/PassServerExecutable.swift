public import Foundation
public import SystemSupport

/// Runs the built `pass-server` binary (or `pass-server-bench`) as a child process.
public enum PassServerExecutable {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// The package root, found from this file's path (Sources/PassServerTesting/…).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `.build/debug/pass-server` (built by `swift build --build-tests`).
    public static var path: String { path(of: "pass-server") }

    /// `.build/debug/<program>`: `pass-server` or `pass-server-bench`.
    public static func path(of program: String) -> String {
        for candidate in [".build/debug/\(program)", ".build/x86_64-unknown-linux-gnu/debug/\(program)"] {
            let url = packageRoot.appendingPathComponent(candidate)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(program)").path
    }

    /// Starts the binary; the caller owns the process.
    public static func launch(
        _ arguments: [String], environment: [String: String], currentDirectory: URL? = nil, program: String = "pass-server"
    ) throws -> ChildProcess {
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (key, value) in environment { base[key] = value }
        return try ChildProcess(
            path(of: program), arguments, environment: base, directory: (currentDirectory ?? packageRoot).path,
            standardOutput: .pipe, standardError: .pipe
        )
    }

    /// Runs to completion and returns the exit status and output.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil, program: String = "pass-server"
    ) throws -> Result {
        let process = try launch(arguments, environment: environment, currentDirectory: currentDirectory, program: program)
        let (output, error) = try process.readToEnd()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: error, as: UTF8.self)
        )
    }
}
