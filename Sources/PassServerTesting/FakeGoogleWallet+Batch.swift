// The fake's batch endpoint, after Google's batch format: a `multipart/mixed` POST to `/batch`
// whose `application/http` parts are whole requests (request line, fields, body), at most 1,000;
// the answer is `multipart/mixed` with one `application/http` part per request, `Content-ID`
// `<response-…>` of the request's own. Parts share the batch's bearer token.

import ByteEncoding
import Certificates
import Foundation
import HTTPServer

extension FakeGoogleWallet {
    /// The most parts Google takes in one batch.
    public static let maxBatchParts = 1000

    func batch(_ request: Request) throws -> Response {
        guard let contentType = request.headers["Content-Type"], contentType.lowercased().hasPrefix("multipart/mixed"),
            let boundary = Self.parameter("boundary", of: contentType)
        else {
            record(request, kind: .batch, status: 400)
            return Self.googleError(400, "INVALID_ARGUMENT", "A batch request is multipart/mixed with a boundary.", reason: "invalid")
        }
        if let failure = takeFailure(method: "POST", kind: .batch) { return scriptedAnswer(failure, to: request, kind: .batch) }
        let parts = Self.split(request.body, boundary: boundary)
        guard parts.count <= Self.maxBatchParts else {
            record(request, kind: .batch, status: 400)
            return Self.googleError(400, "INVALID_ARGUMENT", "A batch request holds at most \(Self.maxBatchParts) calls.", reason: "invalid")
        }
        let answerBoundary = "batch_" + Hex.encode(SecureRandom.bytes(8))
        var body: [UInt8] = []
        for part in parts {
            let (outer, inner) = Self.head(part)
            let contentID = outer["content-id"].map { "<response-\($0.trimmingCharacters(in: CharacterSet(charactersIn: "<>")))>" }
            let answer = answerPart(inner, authorization: request.headers["Authorization"])
            // A scripted drop inside a batch breaks the whole batch's connection.
            if answer.stream != nil { return answer }
            var head = "--\(answerBoundary)\r\nContent-Type: application/http\r\n"
            if let contentID { head += "Content-ID: \(contentID)\r\n" }
            head += "\r\nHTTP/1.1 \(answer.status) \(Self.reason(answer.status))\r\nContent-Type: application/json; charset=UTF-8\r\n"
            head += "Content-Length: \(answer.body.count)\r\n\r\n"
            body += Array(head.utf8) + answer.body + Array("\r\n".utf8)
        }
        body += Array("--\(answerBoundary)--\r\n".utf8)
        record(request, kind: .batch, status: 200)
        return Response(status: 200, headers: ["Content-Type": "multipart/mixed; boundary=\(answerBoundary)"], body: body)
    }

    /// The answer to one part's request, through the same routes as a request of its own.
    private func answerPart(_ message: ArraySlice<UInt8>, authorization: String?) -> Response {
        let (fields, body) = Self.head(message)
        let line = (fields[":line"] ?? "").split(separator: " ")
        guard line.count == 3, line[2].hasPrefix("HTTP/") else {
            return Self.googleError(400, "INVALID_ARGUMENT", "A batch part is not an HTTP request.", reason: "invalid")
        }
        let method = String(line[0])
        var path = String(line[1])
        if let scheme = path.range(of: "://"), let slash = path[scheme.upperBound...].firstIndex(of: "/") { path = String(path[slash...]) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 3, segments[0] == "walletobjects", segments[1] == "v1",
            let kind = Kind(rawValue: segments[2]), kind == .eventTicketClass || kind == .eventTicketObject
        else { return Self.googleError(404, "NOT_FOUND", "No such method: \(method) \(path)", reason: "notFound") }
        let id = segments.count > 3 ? segments[3].removingPercentEncoding : nil
        let action: Action? =
            switch (method, segments.count, segments.last) {
            case ("POST", 3, _): .insert
            case ("GET", 4, _): .get
            case ("PATCH", 4, _): .patch
            case ("POST", 5, "addMessage"): .addMessage
            default: nil
            }
        guard let action else { return Self.googleError(404, "NOT_FOUND", "No such method: \(method) \(path)", reason: "notFound") }
        var headers: HTTPHeaders = [:]
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        if let type = fields["content-type"] { headers.add(name: "Content-Type", value: type) }
        let inner = Request(
            method: HTTPMethod(rawValue: method), path: path, headers: headers, body: Array(body), parameters: id.map { ["id": $0] } ?? [:]
        )
        return (try? handle(inner, kind: kind, action: action)) ?? Self.scripted(500)
    }

    private static func parameter(_ name: String, of contentType: String) -> String? {
        for item in contentType.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")) }
            if pair.count == 2, pair[0].lowercased() == name { return pair[1] }
        }
        return nil
    }

    /// The parts between the boundary lines, each without its surrounding CRLFs.
    private static func split(_ body: [UInt8], boundary: String) -> [ArraySlice<UInt8>] {
        let text = Data(body)
        let delimiter = Data("\r\n--\(boundary)".utf8)
        // A leading CRLF lets the first delimiter match like the others.
        let data = Data("\r\n".utf8) + text
        var parts: [ArraySlice<UInt8>] = []
        var cursor = data.startIndex
        var previous: Data.Index?
        while let found = data.range(of: delimiter, in: cursor..<data.endIndex) {
            if let previous { parts.append(ArraySlice(data[previous..<found.lowerBound])) }
            var next = found.upperBound
            if data[next...].starts(with: Data("--".utf8)) { break }
            if data[next...].starts(with: Data("\r\n".utf8)) { next += 2 }
            previous = next
            cursor = next
        }
        return parts
    }

    /// Lowercased fields (the first line, if it has no colon, as `:line`) and the rest after the blank line.
    private static func head(_ bytes: ArraySlice<UInt8>) -> ([String: String], ArraySlice<UInt8>) {
        let data = Data(bytes)
        guard let blank = data.range(of: Data("\r\n\r\n".utf8)) else { return ([:], []) }
        var fields: [String: String] = [:]
        for (index, line) in String(decoding: data[data.startIndex..<blank.lowerBound], as: UTF8.self).components(separatedBy: "\r\n").enumerated() {
            if let colon = line.firstIndex(of: ":"), !(index == 0 && line.contains(" HTTP/")) {
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            } else if index == 0 {
                fields[":line"] = line
            }
        }
        return (fields, ArraySlice(data[blank.upperBound...]))
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 409: "Conflict"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: status >= 500 ? "Internal Server Error" : "Error"
        }
    }
}
