/// Who the client is, from the socket peer and `X-Forwarded-For`, believing only trusted proxies.
///
/// The peer's own address is the answer unless the peer is a trusted proxy. Then the
/// `X-Forwarded-For` entries (every field line, joined in order, split at commas) are read from
/// the right, the end each proxy appends to: trusted addresses are skipped, and the first address
/// that is not trusted is the client. Entries to the left of it were written by the client itself
/// and are never read, so prepending entries cannot change who a client is. When every entry is
/// trusted, the leftmost is the client.
///
/// An entry that is not a plain IP address (`unknown`, a host name, an address with a port, an
/// empty item) stops the walk, and the client is the address to its right: the proxy that handed
/// it over, or the peer. A client can thus never pick its identity by sending garbage; a proxy
/// that writes such entries for real clients makes them share its address, which is visible in
/// the log rather than exploitable.
public enum ClientAddress {
    /// The client for `peer` (nil when the socket is not IP) and the `X-Forwarded-For` values.
    public static func resolve(peer: IPAddress?, forwardedFor: [String], trusted: [AddressRange]) -> IPAddress? {
        guard let peer, trusted.contains(peer), !forwardedFor.isEmpty else { return peer }
        var client = peer
        for value in forwardedFor.reversed() {
            for entry in value.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let address = parse(entry) else { return client }
                client = address
                if !trusted.contains(address) { return address }
            }
        }
        return client
    }

    /// One entry: optional spaces around an IPv4 or IPv6 address; `[v6]` brackets are allowed.
    static func parse(_ entry: Substring) -> IPAddress? {
        var text = entry.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        return IPAddress(text)
    }
}
