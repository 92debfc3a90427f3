import Foundation

/// Result of running a command-line tool in a test.
public struct CommandResult: Sendable {
    public let status: Int32
    public let output: String
    public let error: String
}

/// Runs a tool (looked up on PATH) and waits; stderr goes to a file so pipes cannot deadlock.
public func run(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
    let errorHandle = try FileHandle(forWritingTo: errorPath)
    process.standardOutput = output
    process.standardError = errorHandle
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try errorHandle.close()
    let errorText = (try? String(contentsOf: errorPath, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(at: errorPath)
    return CommandResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self), error: errorText)
}
