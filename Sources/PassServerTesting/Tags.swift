public import Testing

extension Tag {
    /// Suites that start processes: the built `pass-server`, `pass-server-bench` or `fake-apns`
    /// programs, or a browser. Slow and heavy on a shared machine; `EndToEndTagTests` keeps every
    /// such suite tagged.
    @Tag public static var endToEnd: Self
}
