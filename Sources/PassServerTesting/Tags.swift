public import Testing

extension Tag {
    /// Suites that start processes: the built `pass-server`, `pass-server-bench` or `fake-apns`
    /// programs, or a browser. Slow and heavy on a shared machine, so a quick run can leave them
    /// out (`swift test --skip-build --skip tag:endToEnd`).
    @Tag public static var endToEnd: Self
}
