// The sampled checks of a fetched pass: pass.json names the pass and carries the organizer's new
// venue; for a smaller sample, Wallet's own check of manifest and signature (PassVerifier).

import Foundation

/// Which checks one fetch gets: slots are sampled evenly (every n-th), so a run of any size checks
/// passes spread over the whole fleet.
struct FetchChecks {
    var content: Bool
    var signature: Bool

    init(slot: Int, configuration: FleetConfiguration) {
        content = FleetConfiguration.stride(configuration.contentSample).map { slot % $0 == 0 } ?? false
        // Offset by one so small samples do not all land on the content sample's slots.
        signature = FleetConfiguration.stride(configuration.signatureSample).map { (slot + 1) % $0 == 0 } ?? false
    }

    var needsBody: Bool { content || signature }
}

extension FleetDriver {
    /// Runs the sampled checks on a pass of pass index `pass`; false when it is not what the
    /// organizer's edit should have produced (counted in `state`).
    func check(_ response: ClientResponse, pass: Int, checks: FetchChecks, state: StormState) -> Bool {
        guard checks.needsBody else { return true }
        let files: [String: [UInt8]]
        do throws(FleetError) {
            files = try PassArchive.files(response.body, named: checks.signature ? nil : ["pass.json"])
        } catch {
            if checks.content { state.contentMismatches += 1 }
            if checks.signature { state.signatureFailures += 1 }
            return false
        }
        var good = true
        if checks.content {
            state.contentChecked += 1
            if !passJSONMatches(files["pass.json"], pass: pass, venue: state.venue) {
                state.contentMismatches += 1
                good = false
            }
        }
        if checks.signature, let verifier {
            state.signaturesChecked += 1
            do throws(FleetError) {
                try verifier.verify(files)
                if let missing = configuration.expectedFiles.first(where: { files[$0] == nil }) {
                    throw FleetError(.invalidPass, "the pass has no \(missing)")
                }
            } catch {
                state.signatureFailures += 1
                good = false
            }
        }
        return good
    }

    private func passJSONMatches(_ bytes: [UInt8]?, pass: Int, venue: String) -> Bool {
        guard let bytes, let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
            object["serialNumber"] as? String == serials[pass],
            let token = object["authenticationToken"] as? String, "ApplePass " + token == authorizations[pass]
        else { return false }
        return Self.strings(in: object).contains(venue)
    }

    /// Every string value anywhere in a JSON value (field values sit in nested arrays).
    private static func strings(in value: Any) -> [String] {
        switch value {
        case let text as String: [text]
        case let array as [Any]: array.flatMap(strings(in:))
        case let object as [String: Any]: object.values.flatMap(strings(in:))
        default: []
        }
    }
}
