internal import CQRencode
import Foundation

/// A QR code symbol made by libqrencode (byte mode, so any text goes through as its UTF-8 bytes),
/// and drawn as SVG for pages: printable, sharp at any size, and no image format to decode.
struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still read.
    enum ErrorCorrection: Sendable {
        case low, medium, quartile, high

        fileprivate var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    struct EncodingError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Modules on a side, quiet zone not included.
    let size: Int
    /// The QR version (1–40) libqrencode chose: the smallest that holds the message.
    let version: Int
    /// Row by row, true for a dark module.
    let modules: [Bool]

    /// Light modules around the symbol that readers need to find it (the standard's four).
    static let quietZone = 4

    /// Encodes `message` as its UTF-8 bytes.
    ///
    /// - Throws: `EncodingError` if the message is too long for a QR code at this level (a little
    ///   over 2,300 bytes at `.medium`) or libqrencode fails otherwise.
    init(_ message: String, errorCorrection: ErrorCorrection = .medium) throws {
        try self.init(bytes: Array(message.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes `bytes` as they are (byte mode).
    init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium) throws {
        guard !bytes.isEmpty else { throw EncodingError(message: "An empty message has no QR code.") }
        errno = 0
        // version 0: the smallest version that fits.
        guard let symbol = bytes.withUnsafeBufferPointer({ QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, errorCorrection.level) })
        else {
            let code = errno
            throw EncodingError(
                message: code == ERANGE
                    ? "The message (\(bytes.count) bytes) is too long for a QR code."
                    : "libqrencode could not encode the message (errno \(code))."
            )
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits describe its role in the symbol.
        modules = (0..<width * width).map { symbol.pointee.data[$0] & 1 == 1 }
        size = width
        version = Int(symbol.pointee.version)
    }

    /// Whether the module at (`x`, `y`) is dark; outside the symbol (the quiet zone) is light.
    func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// An `<svg>` element: a white square with the quiet zone and one `<path>` of the dark modules
    /// (each row's runs as rectangles), one unit per module, scaled by whoever places it.
    ///
    /// `label` is the image's accessible name (escaped). The path is built here from the module
    /// grid (digits and `Mhvz` only), so it is the one markup made outside an `HTML` literal.
    func svg(label: String) -> HTML {
        let side = size + 2 * Self.quietZone
        var path = ""
        path.reserveCapacity(size * size)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let drawing = HTML(unsafeRaw: ##"<rect width="\##(side)" height="\##(side)" fill="#fff"/><path fill="#000" d="\##(path)"/>"##)
        return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)" role="img" aria-label="\#(label)" shape-rendering="crispEdges">\#(drawing)</svg>"#
    }
}
