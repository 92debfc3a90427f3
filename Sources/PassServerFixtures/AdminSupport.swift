/// Helpers shared by the admin API, job and process tests (the test targets add their own).
package enum AdminSupport {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Sleeps without holding a cooperative thread.
    package static func pause(_ seconds: Double) async {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
    }
}
