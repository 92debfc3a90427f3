public import PassIdentifiers

// Identifiers bind as their text, so queries interpolate them as they are:
// `WHERE serial_number = \(serialNumber)`.

extension PassTypeIdentifier: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension SerialNumber: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension DeviceLibraryIdentifier: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension PushToken: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension RelayPushToken: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension PushService: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}
