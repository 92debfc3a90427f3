import Foundation
import HTTPServer
import Storage
import Synchronization

/// The names of the admin tokens that scan, remembered by token hash, so a check-in records who
/// scanned without a second token lookup per scan (the route's preflight has already checked the
/// token, revocation included, on this very request). Bounded: forgotten all at once when full.
final class TokenNames: Sendable {
    static let capacity = 1_024
    private let names = Mutex<[[UInt8]: String]>([:])

    /// The name of the request's token, which its preflight accepted for `role`.
    func name(of request: Request, role: AdminRole, store: any Store) throws -> String {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { throw AdminAuthentication.unauthorized }
        let hash = try TokenVault.hash(String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces))
        if let name = names.withLock({ $0[hash] }) { return name }
        let token = try AdminAuthentication.check(request, role: role, store: store)
        names.withLock { names in
            if names.count >= Self.capacity { names.removeAll() }
            names[hash] = token.name
        }
        return token.name
    }
}
