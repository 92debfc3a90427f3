import COpenSSL

/// Loads OpenSSL's "default" and "legacy" providers once per process.
///
/// Loading any provider explicitly disables the implicit default provider, so both are loaded.
/// "legacy" is needed for `.p12` files exported with RC2/3DES (older Keychain exports).
enum OpenSSLProviders {
    private static let loaded: Bool = {
        let defaultLoaded = OSSL_PROVIDER_load(nil, "default") != nil
        let legacyLoaded = OSSL_PROVIDER_load(nil, "legacy") != nil
        OpenSSLErrorQueue.clear()
        return defaultLoaded && legacyLoaded
    }()

    /// Makes sure the providers are loaded; returns false if "legacy" is unavailable.
    @discardableResult
    static func ensureLoaded() -> Bool { loaded }
}
