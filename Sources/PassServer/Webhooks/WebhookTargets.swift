import HTTPClient

/// Where webhooks may be sent: checked when an endpoint is registered or changed, and again before
/// every delivery against the addresses its host resolves to then (the delivery then connects to
/// those addresses only, `HTTPRequest.pinnedAddresses`), so a host that later resolves elsewhere
/// (DNS rebinding) reaches nothing it should not. Pure, apart from the resolver it is given.
///
/// Without `allowPrivate` a target must be `https` and every address of its host public: no
/// loopback, private (RFC 1918, shared 100.64/10, unique local fc00::/7, site local), link-local,
/// unspecified, multicast, documentation, benchmarking or otherwise reserved address, in IPv4 or
/// IPv6, including the IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4).
/// With it (WEBHOOK_ALLOW_PRIVATE_TARGETS: a receiver on this host or its network) loopback,
/// private and link-local addresses and `http` are accepted too; the others never are.
struct WebhookTargets: Sendable {
    var allowPrivate: Bool
    /// The longest URL accepted.
    static let maxURLLength = 2_048

    /// What kind of address an address is.
    enum Scope: String, Sendable, Equatable {
        case global
        case loopback
        case privateNetwork = "private"
        case linkLocal = "link-local"
        case unspecified
        case multicast
        case reserved
    }

    /// Why a URL or an address is refused, in words for the organizer.
    struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The URL read and checked (scheme, no credentials, an allowed literal address); its host's
    /// addresses are checked by `addresses(of:resolve:)`.
    func target(_ url: String) throws(Refusal) -> URLTarget {
        guard url.utf8.count <= Self.maxURLLength else { throw Refusal(message: "is longer than \(Self.maxURLLength) characters") }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw Refusal(message: "must not contain spaces or control characters") }
        let target: URLTarget
        do {
            target = try URLTarget.parse(url)
        } catch {
            throw Refusal(message: "is not an absolute http(s) URL (\(error.message))")
        }
        guard !target.hasCredentials else {
            throw Refusal(message: "must not contain a user name or password (receivers verify the signature instead)")
        }
        if let literal = target.literalAddress { try check(literal) }
        guard target.scheme == "https" || allowPrivate else {
            throw Refusal(message: "must be https (http only with WEBHOOK_ALLOW_PRIVATE_TARGETS, for a receiver on this host or network)")
        }
        return target
    }

    /// Every address `target`'s host resolves to now, each allowed; the first refused one or a
    /// failed resolution is thrown.
    func addresses(of target: URLTarget, resolve: (String) throws(HTTPClientError) -> [IPAddress]) throws(Refusal) -> [IPAddress] {
        let addresses: [IPAddress]
        do {
            addresses = try resolve(target.host)
        } catch {
            throw Refusal(message: "cannot be resolved (\(error.message))")
        }
        for address in addresses { try check(address, host: target.host) }
        return addresses
    }

    /// Throws when `address` may not be a target.
    func check(_ address: IPAddress, host: String? = nil) throws(Refusal) {
        let scope = Self.scope(of: address)
        let local = [.loopback, .privateNetwork, .linkLocal].contains(scope)
        if scope == .global || (local && allowPrivate) { return }
        let subject = host.map { "\($0) resolves to \(address)" } ?? "\(address)"
        let hint = local ? " (allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS)" : ""
        throw Refusal(message: "\(subject), a\(scope == .unspecified ? "n" : "") \(scope.rawValue) address\(hint)")
    }

    /// The kind of an address; IPv6 forms carrying an IPv4 address are the IPv4 address's kind.
    static func scope(of address: IPAddress) -> Scope {
        let b = address.bytes
        guard address.isIPv6 else { return scope(ipv4: b) }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : .unspecified }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
        if b[0..<10].allSatisfy({ $0 == 0 }) && ((b[10] == 0xFF && b[11] == 0xFF) || (b[10] == 0 && b[11] == 0)) {
            return scope(ipv4: Array(b[12..<16]))
        }
        // 64:ff9b::/96, NAT64's well-known prefix: the IPv4 address it translates to.
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return scope(ipv4: Array(b[12..<16])) }
        // 64:ff9b:1::/48, local-use NAT64.
        if b[0..<6] == [0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01] { return .privateNetwork }
        // 2002::/16, 6to4: the IPv4 address of its relay.
        if b[0] == 0x20 && b[1] == 0x02 { return scope(ipv4: Array(b[2..<6])) }
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0xFE && (b[1] & 0xC0) == 0x80 { return .linkLocal }
        // fec0::/10 (site local, deprecated) and fc00::/7 (unique local).
        if b[0] == 0xFE && (b[1] & 0xC0) == 0xC0 { return .privateNetwork }
        if (b[0] & 0xFE) == 0xFC { return .privateNetwork }
        // 2001::/32 Teredo, 2001:db8::/32 documentation, 2001:10::/28 and 2001:20::/28 ORCHID.
        if b[0] == 0x20 && b[1] == 0x01 {
            if b[2] == 0 && b[3] == 0 { return .reserved }
            if b[2] == 0x0D && b[3] == 0xB8 { return .reserved }
            if b[2] == 0 && (b[3] >> 4 == 1 || b[3] >> 4 == 2) { return .reserved }
        }
        // 3fff::/20, documentation (RFC 9637).
        if b[0] == 0x3F && b[1] == 0xFF && (b[2] & 0xF0) == 0 { return .reserved }
        // Global unicast is 2000::/3; the rest (100::/64 discard among it) is not assigned for it.
        return (b[0] & 0xE0) == 0x20 ? .global : .reserved
    }

    private static func scope(ipv4 b: [UInt8]) -> Scope {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return .unspecified
        case (10, _, _): return .privateNetwork
        case (100, 64...127, _): return .privateNetwork
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (172, 16...31, _): return .privateNetwork
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (198, 51, 100), (203, 0, 113): return .reserved
        case (192, 168, _): return .privateNetwork
        case (198, 18...19, _): return .reserved
        case (224...239, _, _): return .multicast
        case (240...255, _, _): return .reserved
        default: return .global
        }
    }
}
