import Foundation

extension WalletEventDetails {
    /// The longest URL accepted: far above any real link, well below what bloats pass.json.
    public static let maxURLLength = 2048
    /// At most this many featured actions (Wallet shows two cards).
    public static let maxFeaturedActions = 2
    /// The longest NFC message Wallet sends in full, in UTF-8 bytes (it cuts longer ones).
    public static let maxNFCMessageBytes = 64
    /// The most performer names accepted.
    public static let maxPerformers = 20

    /// Every problem with these details, each naming its field; empty when they may be stored.
    ///
    /// Texts must be non-empty when given, at most a bounded number of Unicode scalars, and free
    /// of control characters; URLs absolute `https` with a host and no user name; coordinates in
    /// range; at most two featured actions of the types Apple lists for event tickets; the NFC key
    /// a P-256 public key. What a poster needs on top is `PosterCheck`'s.
    public func validate() -> [Issue] {
        var issues: [Issue] = []
        func text(_ value: String?, _ field: String, maxLength: Int = 200) {
            if let value, let problem = Self.textProblem(value, maxLength: maxLength) { issues.append(Issue(field: field, message: problem)) }
        }
        text(venueName, "venueName")
        text(venueRegionName, "venueRegionName")
        text(venueRoom, "venueRoom", maxLength: 100)
        text(entranceDescription, "entranceDescription", maxLength: 500)
        text(admissionLevel, "admissionLevel", maxLength: 100)
        text(eventLogoText, "eventLogoText", maxLength: 100)
        if let venueLocation {
            if !venueLocation.latitude.isFinite || !(-90...90).contains(venueLocation.latitude) {
                issues.append(Issue(field: "venueLocation.latitude", message: "must be between -90 and 90 degrees"))
            }
            if !venueLocation.longitude.isFinite || !(-180...180).contains(venueLocation.longitude) {
                issues.append(Issue(field: "venueLocation.longitude", message: "must be between -180 and 180 degrees"))
            }
        }

        switch kind {
        case .livePerformance(let performerNames):
            if performerNames.count > Self.maxPerformers {
                issues.append(Issue(field: "kind.performerNames", message: "must list at most \(Self.maxPerformers) names, found \(performerNames.count)"))
            }
            for (index, name) in performerNames.enumerated() { text(name, "kind.performerNames[\(index)]") }
        case .sports(let sports):
            for (key, value) in sports.tags {
                text(value, "kind." + key, maxLength: key.hasSuffix("Abbreviation") ? 10 : 100)
            }
        default: break
        }

        for (key, value) in guide.urls {
            if let value, let problem = Self.urlProblem(value) { issues.append(Issue(field: "guide." + key, message: problem)) }
        }
        if let email = guide.contactVenueEmail, let problem = Self.emailProblem(email) {
            issues.append(Issue(field: "guide.contactVenueEmail", message: problem))
        }
        if let phone = guide.contactVenuePhoneNumber, let problem = Self.phoneProblem(phone) {
            issues.append(Issue(field: "guide.contactVenuePhoneNumber", message: problem))
        }

        if featuredActions.count > Self.maxFeaturedActions {
            issues.append(Issue(field: "featuredActions", message: "must hold at most \(Self.maxFeaturedActions) actions, found \(featuredActions.count)"))
        }
        for (index, action) in featuredActions.enumerated() {
            if !FeaturedActionType.eventTicketTypes.contains(action.type) {
                let known = FeaturedActionType.eventTicketTypes.map(\.rawValue).joined(separator: ", ")
                issues.append(Issue(field: "featuredActions[\(index)].type", message: "\"\(action.type)\" is not a featured action of event tickets (\(known))"))
            }
            if let problem = Self.urlProblem(action.url) { issues.append(Issue(field: "featuredActions[\(index)].url", message: problem)) }
        }

        if let nfc {
            if let message = nfc.message {
                if let problem = Self.textProblem(message, maxLength: Self.maxNFCMessageBytes) {
                    issues.append(Issue(field: "nfc.message", message: problem))
                } else if message.utf8.count > Self.maxNFCMessageBytes {
                    issues.append(Issue(field: "nfc.message", message: "must be at most \(Self.maxNFCMessageBytes) bytes in UTF-8, found \(message.utf8.count)"))
                }
            }
            if let key = nfc.encryptionPublicKey, !Self.isP256PublicKey(key) {
                issues.append(Issue(field: "nfc.encryptionPublicKey", message: "must be the Base64 of an X.509 SubjectPublicKeyInfo holding a P-256 public key"))
            }
        }
        return issues
    }

    /// Empty, too long, or holding control characters (U+0000–U+001F, U+007F–U+009F).
    static func textProblem(_ text: String, maxLength: Int) -> String? {
        if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "must not be empty (leave it out instead)" }
        if text.unicodeScalars.count > maxLength { return "must be at most \(maxLength) characters (Unicode scalars)" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { return "must not contain control characters" }
        return nil
    }

    /// An absolute `https` URL with a host, without user name or password, at most `maxURLLength` bytes.
    static func urlProblem(_ url: String) -> String? {
        if url.utf8.count > maxURLLength { return "must be at most \(maxURLLength) bytes" }
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "must not contain spaces or control characters"
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme else { return "is not an absolute URL" }
        guard scheme.lowercased() == "https" else { return "must use https, found \(scheme):" }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        if components.user != nil || components.password != nil { return "must not carry a user name or password" }
        return nil
    }

    /// `local@domain.tld`: one `@`, something before it, a dot inside the domain, at most 254 bytes.
    static func emailProblem(_ email: String) -> String? {
        let invalid = "is not an email address"
        guard email.utf8.count <= 254, !email.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return invalid
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].count >= 3, parts[1].dropFirst().dropLast().contains(".") else { return invalid }
        return nil
    }

    /// A phone number as people write it: an optional leading `+`, then 3 to 20 digits with spaces,
    /// `-`, `.`, `/` or parentheses between them; at most 32 characters.
    static func phoneProblem(_ phone: String) -> String? {
        let invalid = "is not a phone number (digits, optionally a leading +, spaces, - . / and parentheses)"
        let bytes = Array(phone.utf8)
        guard bytes.count <= 32 else { return invalid }
        let body = bytes.first == UInt8(ascii: "+") ? bytes.dropFirst() : bytes[...]
        let separators = Set(" -./()".utf8)
        guard body.allSatisfy({ (48...57).contains($0) || separators.contains($0) }) else { return invalid }
        let digits = body.filter { (48...57).contains($0) }.count
        return (3...20).contains(digits) ? nil : invalid
    }

    /// The DER header of an X.509 SubjectPublicKeyInfo for an id-ecPublicKey on prime256v1,
    /// up to the BIT STRING's unused-bits byte; the point follows (65 bytes uncompressed, 33 compressed).
    private static func p256Header(spkiLength: UInt8, bitStringLength: UInt8) -> [UInt8] {
        [0x30, spkiLength, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
         0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, bitStringLength, 0x00]
    }

    /// Whether `base64` decodes to a P-256 SubjectPublicKeyInfo (the shape only: the point is not
    /// checked to lie on the curve).
    public static func isP256PublicKey(_ base64: String) -> Bool {
        guard base64.utf8.count <= 200, let data = Data(base64Encoded: base64) else { return false }
        let bytes = [UInt8](data)
        let uncompressed = p256Header(spkiLength: 0x59, bitStringLength: 0x42)
        if bytes.count == uncompressed.count + 65, bytes.starts(with: uncompressed) { return bytes[uncompressed.count] == 0x04 }
        let compressed = p256Header(spkiLength: 0x39, bitStringLength: 0x22)
        if bytes.count == compressed.count + 33, bytes.starts(with: compressed) { return [0x02, 0x03].contains(bytes[compressed.count]) }
        return false
    }
}
