// Images made at run time for the benchmarks with libvips: camera frames (JPEG) for the scanner
// benchmark and a whole event design (every image kind of the classic event ticket, at the largest
// size Wallet uses) for the bundle benchmark. Nothing is committed.

import CVips
import Foundation
import PassBundle
import PassImages

enum BenchImages {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    enum Encoding {
        case png, jpeg
    }

    /// Interleaved 8-bit RGB `samples` of `width`×`height` encoded by libvips.
    static func encode(rgb samples: [UInt8], width: Int, height: Int, as encoding: Encoding) throws -> [UInt8] {
        try Vips.start()
        guard let image = samples.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }) else { throw Failure(description: "libvips could not take the \(width)×\(height) image") }
        defer { g_object_unref(image) }
        image.pointee.Type = VIPS_INTERPRETATION_sRGB
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = switch encoding {
        case .png: shim_vips_pngsave_buffer(image, &buffer, &length)
        case .jpeg: shim_vips_jpegsave_buffer(image, &buffer, &length)
        }
        guard status == 0, let buffer else { throw Failure(description: "libvips could not write the \(encoding)") }
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// The classic event ticket's image kinds a design can replace (the dashboard's form offers
    /// these): icon, logo, strip, background and thumbnail.
    static let designKinds: [PassImageKind] = [.icon, .logo, .strip, .background, .thumbnail]

    /// An upload for `kind` at its largest size (@3x of its box): a gradient with fine noise, so it
    /// compresses about as badly as a photograph does, deterministic for a given `seed`.
    static func upload(for kind: PassImageKind, seed: UInt64 = 1) throws -> [UInt8] {
        let box = kind.shape.box
        let (width, height) = (box.width * 3, box.height * 3)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let offset = (y * width + x) * 3
                let noise = Int(state & 0x1F)
                samples[offset] = UInt8(min(255, x * 200 / width + noise))
                samples[offset + 1] = UInt8(min(255, y * 200 / height + noise))
                samples[offset + 2] = UInt8(min(255, 120 + noise))
            }
        }
        return try encode(rgb: samples, width: width, height: height, as: .png)
    }

    /// Every design kind checked and scaled as an upload is (`PassImageCheck`), as the files a
    /// designed template takes (`Template.designed(images:)`).
    static func designImages() throws -> [PassImageKind: [String: [UInt8]]] {
        var images: [PassImageKind: [String: [UInt8]]] = [:]
        for (index, kind) in designKinds.enumerated() {
            images[kind] = try PassImageCheck.check(try upload(for: kind, seed: UInt64(index + 1)), as: kind).scaled().bundleFiles
        }
        return images
    }
}
