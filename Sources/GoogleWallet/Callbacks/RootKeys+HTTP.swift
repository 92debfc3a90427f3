public import HTTPClient

extension RootKeys {
    /// Root keys fetched with `client` from `url` (GOOGLE_WALLET_KEYS_URL): a GET answered 200 with
    /// the key list; any other answer or a transport failure is a failed fetch.
    public convenience init(url: String, client: HTTPClient, refreshInterval: Duration = .seconds(60)) {
        self.init(refreshInterval: refreshInterval) {
            let response = try client.send(HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")], timeout: .seconds(10)))
            guard response.status == 200 else { throw RootKeysFetchError(status: response.status) }
            return response.body
        }
    }
}

/// Google's keys URL answered something else than 200.
struct RootKeysFetchError: Error, CustomStringConvertible {
    var status: Int
    var description: String { "the keys URL answered \(status)" }
}
