/// How an image must fill the box Wallet gives it, and the pixel sizes it is scaled to.
///
/// Uploads come once, at the largest scale (@3x); the @2x and @1x files are made from them. So an
/// upload must already have the @3x pixels: scaling never enlarges.
public enum PassImageShape: Sendable, Hashable {
    /// Fills `box` exactly: the image's proportions must match the box's within `aspectTolerance`,
    /// and it must be at least three times the box in both directions (an icon at least 87×87).
    /// The small mismatch allowed is cropped away evenly from both edges.
    case exact(ImageSize)
    /// Fits inside `box` with its own proportions, touching it on one side: at @3x the image must
    /// reach three times the box's width or three times its height (a logo at least 480 pixels wide
    /// or 150 high). `aspectRatios`, when set, bounds width over height.
    case fitting(ImageSize, aspectRatios: ClosedRange<Double>?)

    /// How far an `exact` image's width-to-height ratio may stray from the box's: 2 %, so a
    /// 1125×298 strip (1.3 % narrower than 375:98) is accepted and loses 4 rows to the crop.
    public static let aspectTolerance = 0.02

    /// The scales Wallet loads, smallest first: `icon.png`, `icon@2x.png`, `icon@3x.png`.
    public static let scales = 1...3

    /// The box in points.
    public var box: ImageSize {
        switch self {
        case .exact(let box), .fitting(let box, _): box
        }
    }

    /// Whether an image of `size` pixels has proportions this shape takes.
    public func acceptsProportions(of size: ImageSize) -> Bool {
        switch self {
        case .exact(let box):
            abs(size.aspectRatio / box.aspectRatio - 1) <= Self.aspectTolerance
        case .fitting(_, let ratios):
            ratios?.contains(size.aspectRatio) ?? true
        }
    }

    /// The smallest upload, at @3x: both sides for `exact`, one side or the other for `fitting`.
    public var minimumUpload: ImageSize { box.scaled(by: Self.scales.upperBound) }

    /// Whether an image of `size` pixels already holds the @3x detail (see `minimumUpload`).
    public func isLargeEnough(_ size: ImageSize) -> Bool {
        let minimum = minimumUpload
        switch self {
        case .exact: return size.width >= minimum.width && size.height >= minimum.height
        case .fitting: return size.width >= minimum.width || size.height >= minimum.height
        }
    }

    /// The pixel size of the file at `scale` made from an upload of `source` pixels: the box itself
    /// for `exact`; for `fitting`, the source shrunk by one factor until it fits the box (never
    /// below one pixel).
    public func pixelSize(at scale: Int, from source: ImageSize) -> ImageSize {
        let target = box.scaled(by: scale)
        switch self {
        case .exact:
            return target
        case .fitting:
            let factor = min(Double(target.width) / Double(source.width), Double(target.height) / Double(source.height), 1)
            return ImageSize(
                width: min(target.width, max(1, Int((Double(source.width) * factor).rounded()))),
                height: min(target.height, max(1, Int((Double(source.height) * factor).rounded())))
            )
        }
    }
}
