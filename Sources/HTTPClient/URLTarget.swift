internal import CCurl

/// Where a URL leads, as libcurl itself reads it (`curl_url`): so what a caller checks is what the
/// transfer connects to, with no second parser that could read the same text another way.
public struct URLTarget: Sendable, Equatable {
    /// `http` or `https`, lowercased.
    public var scheme: String
    /// The host, lowercased; an IPv6 literal without its brackets.
    public var host: String
    /// The port, the scheme's default when the URL names none.
    public var port: Int
    /// Whether the URL carries a user name or password.
    public var hasCredentials: Bool

    /// The host when it is an address literal (a host name must be resolved).
    public var literalAddress: IPAddress? { IPAddress(host) }

    /// Reads an absolute `http://` or `https://` URL; `.invalidRequest` naming the problem otherwise.
    public static func parse(_ url: String) throws(HTTPClientError) -> URLTarget {
        guard let handle = curl_url() else { throw HTTPClientError(.other, "libcurl cannot parse URLs") }
        defer { curl_url_cleanup(handle) }
        let set = curl_url_set(handle, CURLUPART_URL, url, 0)
        guard set == CURLUE_OK else {
            throw HTTPClientError(.invalidRequest, "not a URL: \(String(cString: curl_url_strerror(set)))")
        }
        func part(_ which: CURLUPart, flags: Int32 = 0) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &out, UInt32(flags)) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPClientError(.invalidRequest, "the scheme must be http or https")
        }
        guard var host = part(CURLUPART_HOST)?.lowercased(), !host.isEmpty else { throw HTTPClientError(.invalidRequest, "the URL names no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let portText = part(CURLUPART_PORT, flags: CURLU_DEFAULT_PORT), let port = Int(portText), (1...65_535).contains(port) else {
            throw HTTPClientError(.invalidRequest, "the URL's port is not a port")
        }
        let credentials = part(CURLUPART_USER) != nil || part(CURLUPART_PASSWORD) != nil
        return URLTarget(scheme: scheme, host: host, port: port, hasCredentials: credentials)
    }
}
