import Foundation
import PassServerTesting
import Testing

/// A Python `unittest` script under bench/, run with Debian's python3 (`make test` installs it;
/// the scripts need only the standard library). Every case named must be reported as passed and
/// no other case run, so that a script that ran none, or lost one, cannot pass.
func expectPythonUnitTests(_ script: String, cases: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let result = try run("/usr/bin/python3", [root.appendingPathComponent(script).path, "-v"], in: root.path)
    // unittest reports on standard error: one "name (module.Class.name) ... ok" line per case.
    let report = result.error + result.output
    #expect(result.status == 0, "\(report)", sourceLocation: sourceLocation)
    for name in cases {
        #expect(report.contains("\(name) (") && report.contains(".\(name)) ... ok"), "\(name) did not pass:\n\(report)", sourceLocation: sourceLocation)
    }
    #expect(report.contains("Ran \(cases.count) tests"), "\(report)", sourceLocation: sourceLocation)
}
