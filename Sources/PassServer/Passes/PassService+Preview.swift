import Foundation
import PassBundle
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
