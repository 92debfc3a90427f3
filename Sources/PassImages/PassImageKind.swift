public import PassBundle

// The images of an event ticket an organizer may upload (`PassImageKind`, named as Wallet names
// the files), with the room Wallet gives each. A new kind is a new case in PassBundle and a new
// row in `shape`'s table; the checks, the scaling and the file names follow from that row.
extension PassImageKind: CustomStringConvertible {
    /// The file name without scale or extension: `icon` for `icon.png` and `icon@2x.png`.
    public var fileStem: String { rawValue }

    /// The kind's name in messages ("the strip").
    public var description: String { rawValue }

    /// The room Wallet gives each image on an event ticket, in points (one point is one pixel at @1x,
    /// two at @2x, three at @3x):
    ///
    /// | kind       | box (points) | how the image must fill it                                  |
    /// |------------|--------------|-------------------------------------------------------------|
    /// | icon       | 29 × 29      | exactly: square                                             |
    /// | logo       | 160 × 50     | fits inside, any proportions                                |
    /// | strip      | 375 × 98     | exactly: 375:98 (event tickets; other pass styles differ)   |
    /// | background | 180 × 220    | fits inside, any proportions                                |
    /// | thumbnail  | 90 × 90      | fits inside, between 2:3 (tall) and 3:2 (wide)              |
    /// | footer     | 286 × 15     | fits inside, any proportions                                |
    /// | artwork    | 358 × 448    | exactly: 358:448 (a poster's picture)                       |
    /// | primaryLogo | 126 × 30    | fits inside, any proportions (a poster's logo)              |
    /// | secondaryLogo | 135 × 12  | fits inside, any proportions (a poster's second logo)       |
    ///
    /// "Exactly" kinds are scaled to the box and lose at most `PassImageShape.aspectTolerance` of
    /// their width or height to a centred crop; "fits inside" kinds keep their proportions and touch
    /// the box on one side. Wallet crops a thumbnail outside 2:3…3:2 itself, so we refuse it instead.
    public var shape: PassImageShape {
        switch self {
        case .icon: .exact(ImageSize(width: 29, height: 29))
        case .logo: .fitting(ImageSize(width: 160, height: 50), aspectRatios: nil)
        case .strip: .exact(ImageSize(width: 375, height: 98))
        case .background: .fitting(ImageSize(width: 180, height: 220), aspectRatios: nil)
        case .thumbnail: .fitting(ImageSize(width: 90, height: 90), aspectRatios: (2.0 / 3.0)...(3.0 / 2.0))
        case .footer: .fitting(ImageSize(width: 286, height: 15), aspectRatios: nil)
        case .artwork: .exact(ImageSize(width: 358, height: 448))
        case .primaryLogo: .fitting(ImageSize(width: 126, height: 30), aspectRatios: nil)
        case .secondaryLogo: .fitting(ImageSize(width: 135, height: 12), aspectRatios: nil)
        }
    }
}
