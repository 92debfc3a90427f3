import Testing

/// Reading and patching PNG chunks, to inspect outputs and to forge headers.
enum PNGFile {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The chunk types of `bytes` in order (`IHDR`, `IDAT`, …); fails the test if the chunk
    /// structure is broken.
    static func chunkTypes(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        #expect(bytes.starts(with: signature), "not a PNG", sourceLocation: sourceLocation)
        var types: [String] = []
        var offset = signature.count
        while offset + 12 <= bytes.count {
            let length = Int(bigEndian32(bytes, at: offset))
            types.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
            offset += 12 + length
        }
        #expect(offset == bytes.count, "chunks do not end at the end of the file", sourceLocation: sourceLocation)
        return types
    }

    /// `png` with its IHDR width and height replaced (and the chunk's CRC redone): the header claims
    /// `width`×`height` while the pixel data stays that of the original, small image.
    static func withHeader(_ png: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var bytes = png
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), 5 more bytes, CRC.
        write(width, into: &bytes, at: 16)
        write(height, into: &bytes, at: 20)
        write(crc32(bytes[12..<29]), into: &bytes, at: 29)
        return bytes
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func write(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    /// The CRC-32 PNG chunks carry (polynomial 0xEDB88320, reflected), bit by bit.
    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
