/// One extra per-ticket field a template declares in `fields.json` beside its `pass.json`
/// (ticket type, gate, …). pass.json shows it through the `{{extra.<name>}}` placeholder.
///
/// `fields.json` is `{"fields": [ … ]}`, each field an object:
///
/// | key | meaning |
/// |---|---|
/// | `name` | required; a letter then letters or digits, at most 32 (`gate`, `ticketType`) |
/// | `type` | required; `string`, `integer` or `enum` |
/// | `required` | optional, default `false`: every ticket must have a value |
/// | `maxLength` | `string` only: 1–1000 Unicode scalars, default 200 |
/// | `multiline` | `string` only, default `false`: the text may contain line breaks |
/// | `minimum`, `maximum` | `integer` only: inclusive bounds within ±9007199254740991 |
/// | `values` | `enum` only, required: 1–100 distinct texts of 1–64 scalars |
/// | `default` | optional: the text the pass shows for a ticket without a value (else empty) |
///
/// The file is read when the template loads and is not part of the signed bundle.
public struct TemplateField: Sendable, Equatable {
    /// What values the field takes.
    public enum Kind: Sendable, Equatable {
        /// Text of at most `maxLength` Unicode scalars; line breaks only when `multiline`.
        case string(maxLength: Int, multiline: Bool)
        /// A whole number within the bounds.
        case integer(minimum: Int64, maximum: Int64)
        /// One of `values`, exactly.
        case enumeration(values: [String])
    }

    public var name: String
    public var kind: Kind
    public var required: Bool
    /// What the pass shows when a ticket has no value for the field.
    public var defaultText: String?

    public init(name: String, kind: Kind, required: Bool = false, defaultText: String? = nil) {
        self.name = name
        self.kind = kind
        self.required = required
        self.defaultText = defaultText
    }

    /// The file beside pass.json that declares a template's fields.
    public static let fileName = "fields.json"

    /// The largest integer magnitude accepted: every such integer is exact in a JSON number.
    public static let largestInteger: Int64 = 9_007_199_254_740_991

    /// Names the application fills in itself and that a template may not declare.
    public static let reservedNames: Set<String> = ["voidReason"]
}
