public import Foundation

/// An uploaded image as stored, scaled to Wallet's three resolutions (`pass_images`).
public struct PassImageRecord: Sendable, Equatable {
    /// The SHA-256 (hex) of what was produced: the same image uploaded twice is one row.
    public var id: String
    /// Which image of a pass it is (`logo`, `strip`, …), as the application names it.
    public var kind: String
    /// The @1x size in pixels (points).
    public var width: Int
    public var height: Int
    /// The PNG files at @1x, @2x and @3x.
    public var image1x: [UInt8]
    public var image2x: [UInt8]
    public var image3x: [UInt8]
    public var createdAt: Date

    public init(id: String, kind: String, width: Int, height: Int, image1x: [UInt8], image2x: [UInt8], image3x: [UInt8], createdAt: Date) {
        self.id = id
        self.kind = kind
        self.width = width
        self.height = height
        self.image1x = image1x
        self.image2x = image2x
        self.image3x = image3x
        self.createdAt = createdAt
    }
}

extension PassImageRecord {
    /// The bytes of the three PNGs together: what the image adds to each pass carrying it.
    public var byteCount: Int { image1x.count + image2x.count + image3x.count }

    static let columns = SQLQuery(unsafeRaw: "id, kind, width, height, image_1x, image_2x, image_3x, created_at")

    init(row: SQLRow) throws {
        id = try row.string("id")
        kind = try row.string("kind")
        width = try row.int("width")
        height = try row.int("height")
        image1x = try row.bytes("image_1x")
        image2x = try row.bytes("image_2x")
        image3x = try row.bytes("image_3x")
        createdAt = try row.date("created_at")
    }
}
