import HTTPServer
import Mail

/// Building blocks for the server-rendered pages: escaping, the page shell and the HTML response
/// with its security headers.
///
/// Pages are assembled from strings; everything that did not come from this source file's author
/// (attendee names, event titles, query parameters) goes through `HTML.escape` first.
enum HTML {
    /// `text` safe to place in element content and in double- or single-quoted attribute values
    /// (the same escaping as the ticket emails').
    static func escape(_ text: String) -> String {
        HTMLText.escape(text)
    }

    /// A complete document: `lang`, viewport for phones, the stylesheet, and `scripts` loaded from
    /// `/assets/` (never inline: the Content-Security-Policy forbids inline script).
    ///
    /// `title` is escaped here; `body` is markup the caller built with `escape`.
    static func document(title: String, language: String = "en", body: String, scripts: [String] = []) -> String {
        let scriptTags = scripts.map { #"<script src="/assets/\#(escape($0))" defer></script>"# }.joined()
        return """
            <!DOCTYPE html>
            <html lang="\(escape(language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <link rel="stylesheet" href="/assets/site.css">
            \(scriptTags)
            </head>
            <body>
            \(body)
            </body>
            </html>
            """
    }

    /// The headers every HTML response carries: no inline or foreign script, no framing, no
    /// sniffing, and no `Referer` (download tokens are part of page URLs).
    static let securityHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "private, no-store"),
    ]
}

extension Response {
    /// An HTML page (`text/html; charset=utf-8`) with `HTML.securityHeaders`.
    static func html(_ document: String, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
        html(Array(document.utf8), status: status, headers: headers)
    }

    /// An HTML page already encoded as UTF-8 (a cached one), with `HTML.securityHeaders`.
    static func html(_ document: [UInt8], status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
        var all = headers
        all.add(name: "Content-Type", value: "text/html; charset=utf-8")
        for header in HTML.securityHeaders where !all.contains(header.name) {
            all.add(name: header.name, value: header.value)
        }
        return Response(status: status, headers: all, body: document)
    }
}
