public import PassBundle
internal import ByteEncoding
internal import Certificates

/// One scaled file of a `PassImageSet`.
public struct PassImageFile: Sendable, Hashable {
    /// The name in a pass bundle: `strip.png`, `strip@2x.png`, `strip@3x.png`.
    public let name: String
    /// 1, 2 or 3.
    public let scale: Int
    /// Pixel size.
    public let size: ImageSize
    /// The PNG.
    public let png: [UInt8]

    /// The file of `kind` at `scale`, named accordingly.
    public init(kind: PassImageKind, scale: Int, size: ImageSize, png: [UInt8]) {
        self.name = Self.name(of: kind, at: scale)
        self.scale = scale
        self.size = size
        self.png = png
    }

    /// `icon.png` at 1, `icon@2x.png` at 2.
    public static func name(of kind: PassImageKind, at scale: Int) -> String {
        scale == 1 ? "\(kind.fileStem).png" : "\(kind.fileStem)@\(scale)x.png"
    }
}

/// The @1x, @2x and @3x PNGs of one image, with the address it is stored under.
public struct PassImageSet: Sendable, Hashable {
    /// What the image is for.
    public let kind: PassImageKind
    /// One file per scale, smallest first.
    public let files: [PassImageFile]
    /// Lowercase hex SHA-256 of the set as stored: for each file in order its name, a zero byte,
    /// its length as eight big-endian bytes, then its PNG. It addresses what is kept and put into
    /// bundles (so a store can check a blob against its key, and one upload used as two kinds makes
    /// two sets), not the upload, whose bytes are not kept.
    public let contentAddress: String

    /// A set of `files` for `kind`, its address computed.
    public init(kind: PassImageKind, files: [PassImageFile]) throws(PassImageError) {
        self.kind = kind
        self.files = files
        var stored: [UInt8] = []
        stored.reserveCapacity(files.reduce(0) { $0 + $1.name.utf8.count + 9 + $1.png.count })
        for file in files {
            stored += Array(file.name.utf8)
            stored.append(0)
            stored += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(file.png.count) >> (8 * UInt64($0))) }
            stored += file.png
        }
        do {
            contentAddress = Hex.encode(try Digest.sha256().hash(stored))
        } catch {
            throw .processingFailed(reason: "cannot hash the image set: \(error)")
        }
    }

    /// The file at `scale`, if the set has one.
    public func file(at scale: Int) -> PassImageFile? { files.first { $0.scale == scale } }

    /// The files by bundle name, as a template's file table takes them.
    public var bundleFiles: [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.png) })
    }
}
