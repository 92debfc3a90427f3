import HTTPClient

/// The push relay's transport: the shared `HTTPClient` (keep-alive connections reused between
/// requests; any status is an answer, the body capped).
struct HTTPClientRelayTransport: RelayTransport {
    let client: HTTPClient

    init(caFile: String? = nil) {
        client = HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile, maxResponseBody: 64 << 10, pooledHandles: 2))
    }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) -> RelayTransportResult {
        let request = HTTPRequest(method: "POST", url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body, timeout: timeout)
        do {
            let response = try client.send(request)
            return .answered(status: response.status, body: response.body)
        } catch {
            switch error.code {
            case .connectionRefused, .unresolvedHost, .tls: return .unreachable(error.description)
            case .connectionDropped, .timedOut, .responseTooLarge, .invalidRequest, .addressNotAllowed, .other: return .failed(error.description)
            }
        }
    }
}
