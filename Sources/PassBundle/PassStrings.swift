import Foundation

/// The `pass.strings` texts an imported template needs for what PassServer itself writes into a
/// pass: the status (`STATUS_VALID` …), the seat of a ticket without one (`GENERAL_ADMISSION`)
/// and the cancellation back field. The same texts as the bundled event-ticket template's.
enum PassStrings {
    /// The keys with their English and Japanese texts.
    static let texts: [(key: String, en: String, ja: String)] = [
        ("STATUS_VALID", "Valid", "有効"),
        ("STATUS_CANCELLED", "Cancelled", "キャンセル済み"),
        ("STATUS_CHECKED_IN", "Checked in", "入場済み"),
        ("GENERAL_ADMISSION", "General admission", "自由席"),
        ("CANCELLATION", "Cancellation", "キャンセルについて"),
        ("CANCELLED_NO_REASON", "This ticket has been cancelled.", "このチケットはキャンセルされました。"),
    ]

    /// The text of a strings file: UTF-16 with a byte order mark, or UTF-8; nil for anything else.
    static func decode(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return String(data: Data(bytes), encoding: .utf16)
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// `existing` (UTF-8 or UTF-16, nil for a new file) with every key it lacks added in the
    /// language of `folder` (`ja.lproj`; English unless Japanese), as UTF-8.
    static func merged(_ existing: [UInt8]?, folder: String) -> [UInt8] {
        var text = existing.flatMap(decode) ?? ""
        let language = folder.lowercased().prefix { $0 != "-" && $0 != "_" && $0 != "." }
        let missing = texts.filter { !text.contains("\"\($0.key)\"") }
        guard !missing.isEmpty else { return existing ?? [] }
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        text += "/* The ticket's status and cancellation, written by the ticket server. */\n"
        for entry in missing {
            text += "\"\(entry.key)\" = \"\(language == "ja" ? entry.ja : entry.en)\";\n"
        }
        return Array(text.utf8)
    }

    /// `files` with PassServer's keys in every localization's `pass.strings`, and an English one
    /// when the template has no localization.
    static func adding(to files: [String: [UInt8]]) -> [String: [UInt8]] {
        var files = files
        var folders = Set(files.keys.compactMap { path -> String? in
            let components = path.split(separator: "/")
            return components.count == 2 && components[0].hasSuffix(".lproj") ? String(components[0]) : nil
        })
        if folders.isEmpty { folders = ["en.lproj"] }
        for folder in folders {
            let path = folder + "/pass.strings"
            files[path] = merged(files[path], folder: folder)
        }
        return files
    }
}
