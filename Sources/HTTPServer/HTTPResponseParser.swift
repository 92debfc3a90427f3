/// An incremental HTTP/1.1 response parser (RFC 9112): status line, fields, and a body framed by
/// `Content-Length`, by the chunked transfer coding, or by the end of the connection.
///
/// Pure: the connection feeds it whatever `recv` returned and reads back a response once
/// `isComplete`; no sockets here, so every framing rule is tested with plain byte arrays. The one
/// response parser of the phone fleet's client and of the tests' raw `TestClient`.
package struct HTTPResponseParser {
    /// A response the parser cannot read, or a connection that ended in the middle of one.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package enum Code: Sendable, Equatable {
            /// The bytes are not HTTP/1.x this parser understands.
            case protocolError
            /// The peer closed the connection before the response was complete.
            case connectionClosed
        }

        package let code: Code
        package let message: String

        init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        package var description: String { message }
    }

    /// One complete response.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        /// The body, when the parser keeps it.
        package var body: [UInt8]
        /// Body bytes received, kept or not.
        package var bodyLength: Int
        /// The first bytes of the body (up to four), kept or not: enough to recognise a zip archive.
        package var bodyPrefix: [UInt8]

        /// The first field named `name` (ASCII case-insensitive).
        package func header(_ name: String) -> String? {
            headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private enum State: Equatable {
        case head, fixed(Int), chunkSize, chunkData(Int), chunkDataEnd, trailers, untilClose, done
    }

    /// Longest status line plus fields, and longest chunk-size or trailer line, accepted.
    package static let maxHeadBytes = 64 << 10
    package static let maxLineBytes = 8 << 10

    private var state: State = .head
    /// The head collected so far, or the current chunk-size / trailer line.
    private var pending: [UInt8] = []
    private let keepBody: Bool
    private let headRequest: Bool
    private let interimResponses: Bool
    private var response = Response(status: 0, headers: [], body: [], bodyLength: 0, bodyPrefix: [])
    /// The connection cannot carry another request after this response.
    package private(set) var closeAfter = false
    /// At least one byte of a response arrived.
    package private(set) var receivedAny = false

    /// `keepBody: false` keeps only the body's length and first bytes. `headRequest`: the answer
    /// to a HEAD has no body. `interimResponses`: a 1xx answer (100 Continue) is a response of its
    /// own, for a caller that waits for it; otherwise it is skipped for the final one.
    package init(keepBody: Bool, headRequest: Bool = false, interimResponses: Bool = false) {
        self.keepBody = keepBody
        self.headRequest = headRequest
        self.interimResponses = interimResponses
    }

    package var isComplete: Bool { state == .done }

    /// The parsed response; meaningful once `isComplete`.
    package var result: Response { response }

    /// Consumes bytes and returns how many it used: all of them, unless the response completed
    /// before their end (the rest would be a response nobody asked for).
    package mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> Int {
        if !bytes.isEmpty { receivedAny = true }
        var index = 0
        while index < bytes.count {
            switch state {
            case .done:
                return index
            case .head:
                let (used, found) = collect(bytes, from: index, untilBlankLine: true)
                index += used
                guard pending.count <= Self.maxHeadBytes else { throw Failure(.protocolError, "response head over \(Self.maxHeadBytes) bytes") }
                if found { try parseHead() }
            case .fixed(let remaining):
                let used = min(remaining, bytes.count - index)
                appendBody(bytes, from: index, count: used)
                index += used
                state = remaining == used ? .done : .fixed(remaining - used)
            case .chunkData(let remaining):
                let used = min(remaining, bytes.count - index)
                appendBody(bytes, from: index, count: used)
                index += used
                state = remaining == used ? .chunkDataEnd : .chunkData(remaining - used)
            case .chunkSize, .chunkDataEnd, .trailers:
                let (used, found) = collect(bytes, from: index, untilBlankLine: false)
                index += used
                guard pending.count <= Self.maxLineBytes else { throw Failure(.protocolError, "chunked framing line too long") }
                if found { try finishLine() }
            case .untilClose:
                appendBody(bytes, from: index, count: bytes.count - index)
                index = bytes.count
            }
        }
        return index
    }

    /// The peer closed the connection: completes a body delimited by the close, otherwise fails.
    package mutating func endOfStream() throws(Failure) {
        switch state {
        case .done: return
        case .untilClose: state = .done
        case .head where !receivedAny: throw Failure(.connectionClosed, "connection closed before a response")
        default: throw Failure(.connectionClosed, "connection closed in the middle of a response")
        }
    }

    // MARK: Pieces

    /// Moves bytes into `pending` up to and including the end of a line (or of the head); returns
    /// the bytes used and whether the end was found.
    private mutating func collect(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, untilBlankLine: Bool) -> (Int, Bool) {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            pending.append(byte)
            index += 1
            guard byte == 0x0A else { continue }
            if !untilBlankLine { return (index - start, true) }
            let count = pending.count
            if count >= 4, pending[count - 2] == 0x0D, pending[count - 3] == 0x0A, pending[count - 4] == 0x0D {
                return (index - start, true)
            }
        }
        return (index - start, false)
    }

    private mutating func appendBody(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) {
        guard count > 0 else { return }
        response.bodyLength += count
        if response.bodyPrefix.count < 4 {
            response.bodyPrefix.append(contentsOf: bytes[start..<(start + min(count, 4 - response.bodyPrefix.count))])
        }
        if keepBody { response.body.append(contentsOf: bytes[start..<(start + count)]) }
    }

    private mutating func parseHead() throws(Failure) {
        let lines = Self.lines(pending)
        pending.removeAll(keepingCapacity: true)
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.") else {
            throw Failure(.protocolError, "not an HTTP/1.x status line")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].utf8.count == 3, let status = Int(parts[1]), (100...599).contains(status) else {
            throw Failure(.protocolError, "bad status code in the status line")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else { throw Failure(.protocolError, "malformed header field") }
            let value = line[line.index(after: colon)...].trimmingSpaceAndTab()
            headers.append((String(line[..<colon]), value))
        }
        // An interim answer (100 Continue, 103 Early Hints): the real one follows.
        if status < 200 {
            guard interimResponses else { return }
            response.status = status
            response.headers = headers
            state = .done
            return
        }
        response.status = status
        response.headers = headers
        try frameBody(httpMinor: statusLine.hasPrefix("HTTP/1.0") ? 0 : 1)
    }

    private mutating func frameBody(httpMinor: Int) throws(Failure) {
        let connection = response.headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingSpaceAndTab() } }
        closeAfter = connection.contains("close") || (httpMinor == 0 && !connection.contains("keep-alive"))
        if headRequest || response.status == 204 || response.status == 304 {
            state = .done
            return
        }
        let codings = response.headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingSpaceAndTab() } }
        if !codings.isEmpty {
            // Chunked last frames the body; any other final coding runs to the close (RFC 9112 §6.3).
            if codings.last == "chunked" {
                state = .chunkSize
            } else {
                state = .untilClose
                closeAfter = true
            }
            return
        }
        let lengths = response.headers.filter { $0.name.lowercased() == "content-length" }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingSpaceAndTab() } }
        guard let first = lengths.first else {
            state = .untilClose
            closeAfter = true
            return
        }
        guard lengths.allSatisfy({ $0 == first }), first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), first.utf8.count <= 15,
            let length = Int(first)
        else { throw Failure(.protocolError, "invalid Content-Length") }
        if keepBody { response.body.reserveCapacity(length) }
        state = length == 0 ? .done : .fixed(length)
    }

    /// A complete chunk-size, chunk-end or trailer line is in `pending`.
    private mutating func finishLine() throws(Failure) {
        guard pending.count >= 2, pending[pending.count - 2] == 0x0D else {
            throw Failure(.protocolError, "chunked framing line without CRLF")
        }
        let line = pending[..<(pending.count - 2)]
        pending.removeAll(keepingCapacity: true)
        switch state {
        case .chunkSize:
            // chunk-size [ ; extensions ]; whitespace before the extensions is tolerated.
            let digits = line.prefix { $0 != 0x3B && $0 != 0x20 && $0 != 0x09 }
            guard !digits.isEmpty, digits.count <= 12, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0 else {
                throw Failure(.protocolError, "invalid chunk size")
            }
            state = size == 0 ? .trailers : .chunkData(size)
        case .chunkDataEnd:
            guard line.isEmpty else { throw Failure(.protocolError, "chunk data longer than its size") }
            state = .chunkSize
        case .trailers:
            if line.isEmpty { state = .done }
        default:
            break
        }
    }

    /// The head split at CRLF (the final blank line dropped).
    private static func lines(_ head: [UInt8]) -> [String] {
        var lines: [String] = []
        var start = 0
        var index = 0
        while index + 1 < head.count {
            if head[index] == 0x0D, head[index + 1] == 0x0A {
                lines.append(String(decoding: head[start..<index], as: UTF8.self))
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        return lines
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingSpaceAndTab() -> String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
