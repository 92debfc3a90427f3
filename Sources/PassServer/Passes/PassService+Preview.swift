import Foundation
import PassBundle
import PassIdentifiers
import Storage

extension PassService {
    /// pass.json of `pass` as it is built now (rendered and validated, not signed), for showing
    /// the pass front on a page, with the labels of the template's `language` texts.
    func preview(_ pass: StoredPass, event: Event, language: String = "en") throws -> (pass: PassDefinition, strings: [String: String]) {
        let (template, design) = try designedTemplate(for: event)
        let definition = try PassBundle.renderPassDefinition(
            template: template, data: ticketData(for: pass, event: event), design: design, signer: signer, options: options
        )
        let text = template.passStrings(language: language) ?? ""
        return (definition, Self.strings(text))
    }

    /// pass.json of a sample ticket of `event` with its design (what every ticket of the event
    /// shares, the template's defaults for the extra fields), for the design page's preview.
    func samplePreview(event: Event, language: String = "en") throws -> (pass: PassDefinition, strings: [String: String]) {
        guard let passType, let serial = SerialNumber("sample-ticket") else { throw PassServiceError("stored pass has an invalid identifier") }
        let (template, design) = try designedTemplate(for: event)
        let sample = try ticketData(
            passTypeIdentifier: passType, serialNumber: serial, attendeeName: "Sample Attendee", seat: "A-12", cancelled: false,
            cancellationReason: nil, event: event
        )
        let definition = try PassBundle.renderPassDefinition(template: template, data: sample, design: design, signer: signer, options: options)
        let path = "\(templates.root)/\(event.template)/\(language).lproj/pass.strings"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return (definition, Self.strings(text))
    }

    /// The `"KEY" = "Value";` pairs of a `.strings` text (comments and anything else skipped).
    static func strings(_ text: String) -> [String: String] {
        var strings: [String: String] = [:]
        let pattern = /"((?:[^"\\]|\\.)*)"\s*=\s*"((?:[^"\\]|\\.)*)"\s*;/
        for match in text.matches(of: pattern) {
            strings[unescape(match.1)] = unescape(match.2)
        }
        return strings
    }

    private static func unescape(_ text: Substring) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                out.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
