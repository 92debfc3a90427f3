import Foundation
import HTTPServer
import Storage
import Synchronization

/// The names and roles of admin tokens, remembered by token hash, so a check-in records who
/// scanned, and a read route knows whether its caller may see download links, without a second
/// token lookup per request (the route's preflight has already checked the token, revocation
/// included, on this very request; a token's name and role never change). Bounded: forgotten all
/// at once when full.
final class TokenNames: Sendable {
    static let capacity = 1_024

    /// What is remembered of one token.
    struct Entry: Sendable {
        var name: String
        var role: AdminRole
    }

    private let entries = Mutex<[[UInt8]: Entry]>([:])

    /// The name of the request's token, which its preflight accepted for `role`.
    func name(of request: Request, role: AdminRole, store: any Store) throws -> String {
        try entry(of: request, role: role, store: store).name
    }

    /// The role of the request's token, which its preflight accepted for `role` (an admin token
    /// passes a viewer's preflight: this tells the two apart).
    func role(of request: Request, accepted role: AdminRole, store: any Store) throws -> AdminRole {
        try entry(of: request, role: role, store: store).role
    }

    private func entry(of request: Request, role: AdminRole, store: any Store) throws -> Entry {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { throw AdminAuthentication.unauthorized }
        let hash = try TokenVault.hash(String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces))
        if let entry = entries.withLock({ $0[hash] }) { return entry }
        let token = try AdminAuthentication.check(request, role: role, store: store)
        let entry = Entry(name: token.name, role: token.role)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[hash] = entry
        }
        return entry
    }
}
