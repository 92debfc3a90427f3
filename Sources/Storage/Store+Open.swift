import Foundation

/// Opens the store a database URL names:
/// - `postgres://…` or `postgresql://…`: a `PostgresStore` (the URL goes to libpq as is);
/// - `sqlite:///absolute/path.db` or `sqlite://relative/path.db`: a `SQLiteStore`
///   (parent directories are created, unless `options.createIfMissing` is off: then a missing
///   file is a `.notFound` error).
///
/// A protocol cannot carry a static factory callable as `Store.open(…)`, so this is a function.
public func openStore(url: String, options: StoreOptions = StoreOptions()) throws -> any Store {
    if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
        return PostgresStore(url: url, options: options)
    }
    let prefix = "sqlite://"
    guard url.hasPrefix(prefix) else {
        throw StorageError(.invalidValue, "database URL must start with postgres://, postgresql:// or sqlite://")
    }
    var path = String(url.dropFirst(prefix.count))
    if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
    path = path.removingPercentEncoding ?? path
    guard !path.isEmpty, path != "/" else {
        throw StorageError(.invalidValue, "sqlite:// URL needs a file path")
    }
    guard options.createIfMissing || FileManager.default.fileExists(atPath: path) else {
        throw StorageError(.notFound, "the SQLite database \(path) does not exist")
    }
    return try SQLiteStore(path: path, options: options)
}
