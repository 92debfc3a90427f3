import CMicroHTTPD

extension HTTPServer {
    /// Starts libmicrohttpd on an already listening socket with every option in one array.
    func startDaemon(listening fd: Int32) -> OpaquePointer? {
        let configuration = core.configuration
        let cls = Unmanaged.passUnretained(core).toOpaque()
        var options: [MHD_OptionItem] = [
            // First, so that even start-up diagnostics go to our logger.
            MHD_OptionItem(option: .EXTERNAL_LOGGER, value: optionValue(errorLogCallback), ptr_value: cls),
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(fd), ptr_value: nil),
            MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.maxHeaderSize, ptr_value: nil),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: optionValue(uriCallback), ptr_value: cls),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: optionValue(completedCallback), ptr_value: cls),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: optionValue(connectionNotification), ptr_value: cls),
            MHD_OptionItem(option: .UNESCAPE_CALLBACK, value: optionValue(keepEscapes), ptr_value: nil),
            // Strict parsing (e.g. HTTP/1.1 without Host is 400): fewer ways to smuggle requests past a proxy.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 1, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        return options.withUnsafeMutableBufferPointer { buffer in
            // The accept policy enforces the per-client cap (libmicrohttpd's own would count proxies too).
            shim_MHD_start_daemon(flags, acceptPolicy, cls, accessHandler, cls, buffer.baseAddress)
        }
    }
}
