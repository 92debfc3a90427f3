internal import CQRencode
import Foundation

/// A camera frame showing one QR code, made for the scanner's tests and benchmarks: a ticket's
/// code (libqrencode, medium error correction, as passes carry it) printed on white with its quiet
/// zone, lying on a grey, unevenly lit background, turned by `angle`, softened by a Gaussian blur
/// and a little sensor noise. Greyscale, one byte a pixel, row by row; written out as PNG (no
/// compression library needed: stored deflate blocks) or as a Y4M video for a fake camera.
public struct QRFrame: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let width: Int
    public let height: Int
    /// Luminance, row by row.
    public var pixels: [UInt8]

    /// - Parameters:
    ///   - moduleSize: pixels per QR module before the turn.
    ///   - angle: the turn, in degrees.
    ///   - blur: the Gaussian blur's standard deviation in pixels (0: none).
    ///   - noise: the sensor noise's amplitude in grey levels (uniform, from a fixed seed).
    public init(
        message: String, width: Int = 640, height: Int = 480, moduleSize: Double = 6, angle: Double = 0, blur: Double = 0,
        noise: Int = 0
    ) throws {
        guard let symbol = QRcode_encodeString8bit(message, 0, QR_ECLEVEL_M) else {
            throw Failure(description: "libqrencode could not encode \(message.utf8.count) bytes (errno \(errno))")
        }
        defer { QRcode_free(symbol) }
        let modules = Int(symbol.pointee.width)
        let dark = (0..<modules * modules).map { symbol.pointee.data[$0] & 1 == 1 }
        let side = Double(modules + 8)  // with the four-module quiet zone on each side
        let (cosine, sine) = (cos(angle * .pi / 180), sin(angle * .pi / 180))
        let (centreX, centreY) = (Double(width) / 2, Double(height) / 2)
        var pixels = [UInt8](repeating: 0, count: width * height)
        // Four samples a pixel, so the turned edges are grey as a camera sees them.
        let offsets = [0.25, 0.75]
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for dy in offsets {
                    for dx in offsets {
                        let (px, py) = (Double(x) + dx - centreX, Double(y) + dy - centreY)
                        let u = (cosine * px + sine * py) / moduleSize + side / 2
                        let v = (-sine * px + cosine * py) / moduleSize + side / 2
                        if u >= 0, v >= 0, u < side, v < side {
                            let (mx, my) = (Int(u) - 4, Int(v) - 4)
                            let isDark = (0..<modules).contains(mx) && (0..<modules).contains(my) && dark[my * modules + mx]
                            sum += isDark ? 24 : 232
                        } else {
                            // A table top lit from the left.
                            sum += 150 - 60 * Double(x) / Double(width) + 20 * Double(y) / Double(height)
                        }
                    }
                }
                pixels[y * width + x] = UInt8(max(0, min(255, sum / 4)))
            }
        }
        self.width = width
        self.height = height
        self.pixels = blur > 0 ? Self.gaussian(pixels, width: width, height: height, sigma: blur) : pixels
        if noise > 0 {
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for index in self.pixels.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let offset = Int(state >> 33) % (2 * noise + 1) - noise
                self.pixels[index] = UInt8(max(0, min(255, Int(self.pixels[index]) + offset)))
            }
        }
    }

    /// A separable Gaussian blur, edges clamped.
    static func gaussian(_ input: [UInt8], width: Int, height: Int, sigma: Double) -> [UInt8] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var across = [Double](repeating: 0, count: input.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for (index, weight) in kernel.enumerated() {
                    sum += weight * Double(input[y * width + min(width - 1, max(0, x + index - radius))])
                }
                across[y * width + x] = sum
            }
        }
        var output = [UInt8](repeating: 0, count: input.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for (index, weight) in kernel.enumerated() {
                    sum += weight * across[min(height - 1, max(0, y + index - radius)) * width + x]
                }
                output[y * width + x] = UInt8(max(0, min(255, sum.rounded())))
            }
        }
        return output
    }

    // MARK: Files

    /// The frame as an 8-bit greyscale PNG.
    public var png: [UInt8] {
        var rows: [UInt8] = []
        rows.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            rows.append(0)  // filter: none
            rows.append(contentsOf: pixels[(y * width)..<((y + 1) * width)])
        }
        return Self.png(width: width, height: height, imageData: Self.storedZlib(rows))
    }

    /// A PNG whose header claims `width`×`height` greyscale pixels, with `imageData` as its one
    /// IDAT chunk as given (a header-only check sees the size; decoding what follows fails).
    public static func png(width: Int, height: Int, imageData: [UInt8]) -> [UInt8] {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            let typed = Array(type.utf8) + data
            file += bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
        }
        // Bit depth 8, colour type 0 (greyscale), deflate, adaptive filtering, no interlace.
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 0, 0, 0, 0])
        chunk("IDAT", imageData)
        chunk("IEND", [])
        return file
    }

    /// The frame as a YUV4MPEG2 video of `frames` identical 4:2:0 frames at `fps` (Chromium's
    /// fake camera plays such a file in a loop); the chroma planes are neutral grey.
    public func y4m(frames: Int = 10, fps: Int = 10) -> [UInt8] {
        var video = Array("YUV4MPEG2 W\(width) H\(height) F\(fps):1 Ip A1:1 C420jpeg\n".utf8)
        let chroma = [UInt8](repeating: 128, count: 2 * ((width + 1) / 2) * ((height + 1) / 2))
        for _ in 0..<frames {
            video += Array("FRAME\n".utf8)
            video += pixels
            video += chroma
        }
        return video
    }

    /// zlib data of `bytes` in stored (uncompressed) deflate blocks.
    public static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(bytes.count, start + 65_535)
            let length = UInt16(end - start)
            out.append(end == bytes.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
