/// One call of the Wallet API on a class or an object, sent alone or as a part of a batch.
public enum GoogleWalletCall: Sendable {
    case insert(GoogleWalletClient.Resource, body: [UInt8])
    case get(GoogleWalletClient.Resource, id: String)
    case patch(GoogleWalletClient.Resource, id: String, body: [UInt8])
    case addMessage(GoogleWalletClient.Resource, id: String, body: [UInt8])

    /// Method, absolute path (below the API's origin) and body; the path is the API endpoint's
    /// path (`/walletobjects/v1`), the resource and the percent-encoded id.
    var request: (method: String, path: String, body: [UInt8]?) {
        switch self {
        case .insert(let resource, let body): ("POST", "/\(resource.rawValue)", body)
        case .get(let resource, let id): ("GET", "/\(resource.rawValue)/\(PathEncoding.segment(id))", nil)
        case .patch(let resource, let id, let body): ("PATCH", "/\(resource.rawValue)/\(PathEncoding.segment(id))", body)
        case .addMessage(let resource, let id, let body): ("POST", "/\(resource.rawValue)/\(PathEncoding.segment(id))/addMessage", body)
        }
    }

    /// `scheme://host:port` of a URL.
    static func origin(of url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<(rest.firstIndex(of: "/") ?? url.endIndex)])
    }

    /// The path of a URL below its origin (`/walletobjects/v1`), without a trailing slash.
    static func path(of url: String) -> String {
        var path = String(url.dropFirst(origin(of: url).count))
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
