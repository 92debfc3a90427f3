// Google's batch requests: up to 1,000 calls as the `application/http` parts of one
// `multipart/mixed` POST to `<origin>/batch`, answered by one `multipart/mixed` answer whose parts
// are the calls' answers, matched by `Content-ID` (`<item-N>` → `<response-item-N>`).

import ByteEncoding
import Certificates
import HTTPClient

extension GoogleWalletClient {
    /// The most calls Google takes in one batch request.
    public static let maxBatchCalls = 1000

    /// Sends `calls` in as few batch requests as Google allows and answers each call in order.
    /// A 401 to the batch, or to single parts, gets one fresh token and one more try of those.
    public func batch(_ calls: [GoogleWalletCall]) -> [GoogleWalletAnswer] {
        var answers: [GoogleWalletAnswer] = []
        answers.reserveCapacity(calls.count)
        var start = 0
        while start < calls.count {
            let chunk = Array(calls[start..<min(start + Self.maxBatchCalls, calls.count)])
            answers += batchChunk(chunk)
            start += chunk.count
        }
        return answers
    }

    private func batchChunk(_ calls: [GoogleWalletCall]) -> [GoogleWalletAnswer] {
        var answers = sendBatch(calls)
        // Parts refused for their token (it expired between grant and part): once more, together.
        let unauthorized = answers.indices.filter { answers[$0].status == 401 }
        guard !unauthorized.isEmpty else { return answers }
        if let token = tokens.cachedToken { tokens.invalidate(token) }
        let retried = sendBatch(unauthorized.map { calls[$0] })
        for (index, answer) in zip(unauthorized, retried) { answers[index] = answer }
        return answers
    }

    private func sendBatch(_ calls: [GoogleWalletCall]) -> [GoogleWalletAnswer] {
        let boundary = "batch_" + Hex.encode(SecureRandom.bytes(12))
        let basePath = GoogleWalletCall.path(of: endpoints.api)
        let body = Self.multipartBody(calls, basePath: basePath, boundary: boundary)
        let url = GoogleWalletCall.origin(of: endpoints.api) + "/batch"
        return authorized { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "multipart/mixed; boundary=\(boundary)")],
                body: body, timeout: timeout
            )
        } answer: { response in
            guard (200..<300).contains(response.status) else {
                return Array(repeating: .googleError(GoogleAPIError(response: response)), count: calls.count)
            }
            return Self.readBatchAnswer(response, count: calls.count)
        } failed: { failure in
            Array(repeating: failure, count: calls.count)
        }
    }

    static func multipartBody(_ calls: [GoogleWalletCall], basePath: String, boundary: String) -> [UInt8] {
        var out: [UInt8] = []
        for (index, call) in calls.enumerated() {
            let (method, path, body) = call.request
            var part = "--\(boundary)\r\nContent-Type: application/http\r\nContent-ID: <item-\(index + 1)>\r\n\r\n"
            part += "\(method) \(basePath)\(path) HTTP/1.1\r\nAccept: application/json\r\n"
            if let body {
                part += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n\r\n"
                out += Array(part.utf8) + body + Array("\r\n".utf8)
            } else {
                // The blank line ends the head; the CRLF before the next boundary belongs to the boundary.
                out += Array((part + "\r\n\r\n").utf8)
            }
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    /// One answer per call from a batch answer; a call without a readable part is a transport failure.
    static func readBatchAnswer(_ response: HTTPResponse, count: Int) -> [GoogleWalletAnswer] {
        let missing = GoogleWalletAnswer.transportFailure(HTTPClientError(.other, "the batch answer has no readable part for this call"))
        var answers = Array(repeating: missing, count: count)
        guard let contentType = response[header: "content-type"], let boundary = Multipart.boundary(of: contentType) else { return answers }
        for part in Multipart.parts(of: response.body, boundary: boundary) {
            let (headers, content) = Multipart.splitHead(part)
            guard let id = headers["content-id"], let index = Multipart.itemNumber(id), (1...count).contains(index),
                let inner = Multipart.httpResponse(content)
            else { continue }
            answers[index - 1] =
                (200..<300).contains(inner.status)
                ? .success(status: inner.status, body: inner.body) : .googleError(GoogleAPIError(response: inner))
        }
        return answers
    }
}

/// Reading `multipart/mixed` bodies and the HTTP messages inside their parts.
enum Multipart {
    /// The `boundary` parameter of a `multipart/mixed` content type.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t\"") }
            if pair.count == 2, pair[0].lowercased() == "boundary", !pair[1].isEmpty { return pair[1] }
        }
        return nil
    }

    /// The parts between `--boundary` lines, without their CRLFs.
    static func parts(of body: [UInt8], boundary: String) -> [ArraySlice<UInt8>] {
        let delimiter = Array("--\(boundary)".utf8)
        var starts: [Int] = []
        var index = 0
        while index + delimiter.count <= body.count {
            if body[index] == delimiter[0], body[index..<(index + delimiter.count)].elementsEqual(delimiter) {
                starts.append(index)
                index += delimiter.count
            } else {
                index += 1
            }
        }
        var parts: [ArraySlice<UInt8>] = []
        for (position, start) in starts.enumerated() where position + 1 < starts.count {
            var from = start + delimiter.count
            var to = starts[position + 1]
            if body[from..<min(from + 2, to)].elementsEqual([13, 10]) { from += 2 }
            if to - 2 >= from, body[(to - 2)..<to].elementsEqual([13, 10]) { to -= 2 }
            parts.append(body[from..<to])
        }
        return parts
    }

    /// A head (lowercased field names) and what follows the blank line.
    static func splitHead(_ bytes: ArraySlice<UInt8>) -> (headers: [String: String], rest: ArraySlice<UInt8>) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var cut = bytes.startIndex
        while cut + 4 <= bytes.endIndex, !bytes[cut..<(cut + 4)].elementsEqual(separator) { cut += 1 }
        guard cut + 4 <= bytes.endIndex else { return ([:], bytes[bytes.endIndex...]) }
        var headers: [String: String] = [:]
        let lines = String(decoding: bytes[bytes.startIndex..<cut], as: UTF8.self).components(separatedBy: "\r\n")
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: " \t").lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        // The first line of an HTTP message is its start line, kept apart.
        if let first = lines.first, !first.contains(":") || first.hasPrefix("HTTP/") { headers[":start"] = first }
        return (headers, bytes[(cut + 4)...])
    }

    /// N of `<response-item-N>` or `<item-N>`.
    static func itemNumber(_ contentID: String) -> Int? {
        let trimmed = contentID.trimmingCharacters(in: "<> ")
        guard let dash = trimmed.lastIndex(of: "-") else { return nil }
        return Int(trimmed[trimmed.index(after: dash)...])
    }

    /// The HTTP answer inside a part: `HTTP/1.1 200 OK`, fields, a blank line, the body.
    static func httpResponse(_ bytes: ArraySlice<UInt8>) -> HTTPResponse? {
        let (headers, body) = splitHead(bytes)
        guard let start = headers[":start"], start.hasPrefix("HTTP/") else { return nil }
        let fields = start.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { return nil }
        let named = headers.filter { $0.key != ":start" }.map { (name: $0.key, value: $0.value) }
        return HTTPResponse(status: status, headers: named, body: Array(body))
    }
}

extension StringProtocol {
    /// Without the leading and trailing characters in `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
