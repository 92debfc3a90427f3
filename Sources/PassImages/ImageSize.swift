/// A width and height: points for Apple's boxes (`PassImageShape`), pixels for images.
public struct ImageSize: Hashable, Sendable, CustomStringConvertible {
    /// Horizontal extent.
    public let width: Int
    /// Vertical extent.
    public let height: Int

    /// A size of `width` by `height`.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width over height, as a real number.
    public var aspectRatio: Double { Double(width) / Double(height) }

    /// Both sides multiplied by `factor` (a box in points at @2x is twice as many pixels).
    public func scaled(by factor: Int) -> ImageSize { ImageSize(width: width * factor, height: height * factor) }

    /// `1125×294`.
    public var description: String { "\(width)×\(height)" }
}
