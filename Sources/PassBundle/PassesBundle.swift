// Several signed passes as one `.pkpasses` file: what Wallet adds in one step ("Add All"), the way
// an order's tickets are offered together. The file is a plain zip whose entries are the `.pkpass`
// archives at its root, stored (each is compressed already); its MIME type is
// `application/vnd.apple.pkpasses`, and Apple takes at most ten passes in one.

/// Builds `.pkpasses` files and splits a larger set of passes into files Wallet takes.
public enum PassesBundle {
    /// The most passes one `.pkpasses` file may hold.
    public static let maxPasses = 10
    public static let mimeType = "application/vnd.apple.pkpasses"

    /// The `.pkpasses` archive of `passes` (each a signed `.pkpass`, under a name that ends in
    /// `.pkpass`, unique, with no folder). Refuses an empty set, more than `maxPasses`, and names
    /// that are not plain `.pkpass` file names.
    public static func archive(_ passes: [(name: String, bundle: [UInt8])]) throws(PassBundleError) -> [UInt8] {
        guard !passes.isEmpty else { throw PassBundleError(.zipFailed, "a .pkpasses file holds at least one pass") }
        guard passes.count <= maxPasses else {
            throw PassBundleError(.zipFailed, "a .pkpasses file holds at most \(maxPasses) passes, not \(passes.count)")
        }
        var names: Set<String> = []
        for pass in passes {
            guard pass.name.hasSuffix(".pkpass"), pass.name.count > ".pkpass".count, !pass.name.contains("/"), !pass.name.contains("\\"),
                !pass.name.hasPrefix("."), names.insert(pass.name).inserted
            else { throw PassBundleError(.zipFailed, "'\(pass.name)' is not a unique .pkpass file name") }
        }
        return try TemplateArchive([]).tail(passes.map { (path: $0.name, bytes: $0.bundle) })
    }

    /// How `count` passes are offered as `.pkpasses` files: as few files as Wallet allows, of sizes
    /// that differ by one at most (12 passes: two files of 6), as ranges of the passes in order.
    public static func parts(of count: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let files = (count + maxPasses - 1) / maxPasses
        let small = count / files
        let larger = count % files
        var ranges: [Range<Int>] = []
        var start = 0
        for index in 0..<files {
            let size = small + (index < larger ? 1 : 0)
            ranges.append(start..<(start + size))
            start += size
        }
        return ranges
    }
}
