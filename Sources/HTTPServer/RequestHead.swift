/// Where libmicrohttpd found the parts of a request head in its read buffer, as byte offsets from
/// the start of the method: enough to tell whether it dropped bytes between them.
///
/// libmicrohttpd 0.9.75 parses the head in place and hands out NUL-terminated strings, so a NUL
/// byte inside a header value or the request target silently cuts it short: `Transfer-Encoding:
/// chunked\0x` reaches the application as `chunked`, while a proxy may have read something else.
/// Nothing in its API shows the cut, but the positions do: in place, consecutive parts of the
/// head are separated by exactly one space or one line break (CRLF or LF, whose bytes it zeroes),
/// so any larger gap means bytes were dropped. A header stored outside the head was rebuilt by
/// libmicrohttpd from continuation lines (obsolete line folding). Only addresses are compared;
/// no byte outside the strings libmicrohttpd hands out is read. When the request line itself is
/// not where an in-place parse puts it (another libmicrohttpd), the check stays silent.
struct RequestHead {
    /// Length of the method (it starts at offset 0).
    var methodLength: Int
    /// Offset and length of the raw request target.
    var target: (start: Int, length: Int)
    /// Offset and length of the HTTP version.
    var version: (start: Int, length: Int)
    /// Each header's name start and value end, in arrival order.
    var fields: [(start: Int, end: Int)]
    /// Bytes of the whole head (request line through the empty line), as libmicrohttpd reports it.
    var size: Int

    /// Why the head must be refused, or nil (also when the layout is not the one described above).
    var problem: String? {
        guard size > 0, (1..<size).contains(target.start), (1..<size).contains(version.start) else { return nil }
        guard target.start == methodLength + 1, version.start == target.start + target.length + 1 else {
            return "The request line contains a NUL byte or stray whitespace."
        }
        var previousEnd = version.start + version.length
        for field in fields {
            guard field.start > previousEnd, field.end <= size else {
                return "A header is folded over several lines (obsolete line folding)."
            }
            guard field.start - previousEnd <= 2 else { return "A header line contains a NUL byte." }
            previousEnd = field.end
        }
        guard (2...4).contains(size - previousEnd) else { return "A header line contains a NUL byte." }
        return nil
    }
}
