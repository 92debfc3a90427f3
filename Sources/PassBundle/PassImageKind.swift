/// The images a pass bundle may carry, by Apple's file names (`artwork` is `artwork.png`,
/// `artwork@2x.png`, `artwork@3x.png`).
public enum PassImageKind: String, Sendable, Hashable, Codable, CaseIterable {
    case icon
    case logo
    case strip
    case thumbnail
    case background
    case footer
    /// A poster's full-bleed picture.
    case artwork
    /// A poster's logo at the top.
    case primaryLogo
    /// A poster's second, smaller logo.
    case secondaryLogo

    /// The kind of a bundle path (`artwork@2x.png`, `en.lproj/logo.png`); nil for anything else.
    public init?(path: String) {
        guard let file = path.split(separator: "/").last, file.hasSuffix(".png") else { return nil }
        var name = file.dropLast(4)
        for scale in ["@2x", "@3x"] where name.hasSuffix(scale) { name = name.dropLast(scale.count) }
        self.init(rawValue: String(name))
    }
}

extension Template {
    /// The kinds of image among the template's files, localized ones included.
    public var imageKinds: Set<PassImageKind> { Set(filePaths.compactMap(PassImageKind.init(path:))) }
}
