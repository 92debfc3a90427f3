import HTTPServer

/// Markup for the server-rendered pages, escaped by construction (the way `SQLQuery` keeps values
/// apart from SQL): the literal parts of an `HTML` string literal are markup, an interpolated
/// `String` or number is text and is escaped, an interpolated `HTML` is markup built the same way
/// and is appended as it is.
///
/// ```swift
/// let row: HTML = "<tr><td>\(ticket.attendeeName)</td><td><a href=\"\(url: link)\">open</a></td></tr>"
/// ```
///
/// Text is escaped for element content and for double- or single-quoted attribute values, so an
/// interpolation is safe in either place (attribute values are always quoted here). A link target
/// goes through `\(url:)`, which lets only http(s) and relative URLs through. The one way to
/// insert markup that was not built like this is `HTML(unsafeRaw:)`, kept for the QR code's SVG
/// (`QRCode`), which is drawn from libqrencode's module grid and contains no text.
struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The markup, ready to send. (Deliberately not `CustomStringConvertible`: markup pasted into
    /// a `String` interpolation would read as text and be escaped a second time.)
    private(set) var markup: String

    /// Markup that was not built from an `HTML` literal. Only for generated markup that holds no
    /// outside text (the QR code's SVG).
    init(unsafeRaw markup: String) {
        self.markup = markup
    }

    /// A literal: markup. `StaticString`, so only text written in the source can be a literal.
    init(stringLiteral literal: StaticString) {
        markup = literal.description
    }

    init(stringInterpolation: StringInterpolation) {
        markup = stringInterpolation.markup
    }

    /// The fragments one after the other, with `separator` between them.
    init(joining fragments: some Sequence<HTML>, separator: HTML = "") {
        var markup = ""
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { markup += separator.markup }
            markup += fragment.markup
        }
        self.markup = markup
    }

    /// No markup at all.
    static let empty: HTML = ""

    var isEmpty: Bool { markup.isEmpty }

    static func + (lhs: HTML, rhs: HTML) -> HTML {
        HTML(unsafeRaw: lhs.markup + rhs.markup)
    }

    static func += (lhs: inout HTML, rhs: HTML) {
        lhs.markup += rhs.markup
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// The literal's own text: markup.
        mutating func appendLiteral(_ literal: StaticString) {
            markup += literal.description
        }

        /// Text: escaped.
        mutating func appendInterpolation(_ text: String) {
            HTML.appendText(text, to: &markup)
        }

        /// Text: escaped.
        mutating func appendInterpolation(_ text: Substring) {
            HTML.appendText(String(text), to: &markup)
        }

        /// A number, as its digits.
        mutating func appendInterpolation(_ number: some BinaryInteger) {
            markup += String(number)
        }

        /// Markup: appended as it is.
        mutating func appendInterpolation(_ html: HTML) {
            markup += html.markup
        }

        /// Markup when present, nothing when nil.
        mutating func appendInterpolation(_ html: HTML?) {
            if let html { markup += html.markup }
        }

        /// Fragments one after the other.
        mutating func appendInterpolation(_ fragments: [HTML]) {
            for fragment in fragments { markup += fragment.markup }
        }

        /// A link target (`href`, `src`, `action`): `HTML.safeURL(url)`, escaped.
        mutating func appendInterpolation(url: String) {
            HTML.appendText(HTML.safeURL(url), to: &markup)
        }

        /// An image's `src`: `HTML.safeImageURL(url)`, escaped.
        mutating func appendInterpolation(imageURL url: String) {
            HTML.appendText(HTML.safeImageURL(url), to: &markup)
        }
    }

    /// `url` when it is an http(s) URL or relative (a path, a query, a fragment), otherwise `#`:
    /// `javascript:`, `data:` or any other scheme never becomes a link target, whatever its case
    /// or the spaces and control characters before it (browsers ignore those when they read a
    /// scheme). Protocol-relative `//host` is refused too: links to other sites are spelled out.
    static func safeURL(_ url: String) -> String {
        let scalars = url.unicodeScalars.drop { $0.value <= 0x20 }
        if scalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "#" }
        let text = String(String.UnicodeScalarView(scalars))
        if text.hasPrefix("//") || text.hasPrefix("\\") || text.hasPrefix("/\\") { return "#" }
        // A scheme is whatever comes before the first ':' when no '/', '?' or '#' comes earlier.
        guard let colon = text.firstIndex(of: ":") else { return text }
        if let delimiter = text.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }), delimiter < colon { return text }
        let scheme = text[..<colon].lowercased()
        return scheme == "http" || scheme == "https" ? text : "#"
    }

    /// `url` as an image source: what `safeURL` lets through, or a PNG or JPEG inlined as
    /// `data:image/png;base64,…` (Base64 characters only, so nothing but a picture can follow);
    /// otherwise `#`. The Content-Security-Policy allows `data:` for images alone.
    static func safeImageURL(_ url: String) -> String {
        for prefix in ["data:image/png;base64,", "data:image/jpeg;base64,"] where url.hasPrefix(prefix) {
            let payload = url.utf8.dropFirst(prefix.utf8.count)
            let base64 = payload.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2F || byte == 0x3D
            }
            return base64 ? url : "#"
        }
        return safeURL(url)
    }

    /// `text` as element content or a quoted attribute value: `& < > " '` as character
    /// references, scalar by scalar (a quote followed by a combining mark is one `Character` in
    /// Swift but still a quote to a browser). Bidirectional embedding, override and isolate
    /// controls become numeric references, so they are visible in the source and cannot be
    /// smuggled past a reviewer; the other control characters, which have no business in a page,
    /// become U+FFFD (tab and line breaks stay).
    static func appendText(_ text: String, to markup: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: markup += "&amp;"
            case 0x3C: markup += "&lt;"
            case 0x3E: markup += "&gt;"
            case 0x22: markup += "&quot;"
            case 0x27: markup += "&#39;"
            case 0x09, 0x0A, 0x0D: markup.unicodeScalars.append(scalar)
            case 0x00...0x1F, 0x7F...0x9F: markup += "\u{FFFD}"
            case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                markup += "&#x\(String(scalar.value, radix: 16, uppercase: true));"
            default: markup.unicodeScalars.append(scalar)
            }
        }
    }

    /// A complete document: `lang`, viewport for phones, the stylesheet, and `scripts` loaded from
    /// `/assets/` (never inline: the Content-Security-Policy forbids inline script).
    static func document(title: String, language: String = "en", body: HTML, scripts: [String] = []) -> HTML {
        let scriptTags = HTML(joining: scripts.map { #"<script src="/assets/\#($0)" defer></script>"# as HTML })
        return """
            <!DOCTYPE html>
            <html lang="\(language)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
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

extension HTML {
    /// A page encoded as UTF-8 once, to be cached and sent many times. Made only from `HTML`.
    struct Encoded: CacheableValue {
        fileprivate let bytes: [UInt8]
        var byteCount: Int { bytes.count }
    }

    var encoded: Encoded { Encoded(bytes: Array(markup.utf8)) }
}

extension Response {
    /// An HTML page (`text/html; charset=utf-8`) with `HTML.securityHeaders`. It takes `HTML`
    /// only: a `String` cannot become a page without going through the escaping interpolation.
    static func html(_ page: HTML, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
        html(page.encoded, status: status, headers: headers)
    }

    /// A page encoded already (a cached one), with `HTML.securityHeaders`.
    static func html(_ page: HTML.Encoded, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
        var all = headers
        all.add(name: "Content-Type", value: "text/html; charset=utf-8")
        for header in HTML.securityHeaders where !all.contains(header.name) {
            all.add(name: header.name, value: header.value)
        }
        return Response(status: status, headers: all, body: page.bytes)
    }
}
