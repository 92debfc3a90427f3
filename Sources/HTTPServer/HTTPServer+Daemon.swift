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
            // The cap is the accept policy's (`ConnectionRegistry`); libmicrohttpd's own limit, split
            // over the workers, is set so that no worker reaches it even holding every connection
            // with as many again closing.
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: Self.libraryConnectionLimit(configuration), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            // Sized for the largest head within the limits (`ServerConfiguration.connectionMemoryLimit`);
            // the limits themselves are checked once the headers are in (`ServerCore.prepare`).
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: optionValue(uriCallback), ptr_value: cls),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: optionValue(completedCallback), ptr_value: cls),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: optionValue(connectionNotification), ptr_value: cls),
            MHD_OptionItem(option: .UNESCAPE_CALLBACK, value: optionValue(keepEscapes), ptr_value: nil),
            // Strict parsing (e.g. HTTP/1.1 without Host is 400): fewer ways to smuggle requests past a proxy.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 1, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        // poll(2), not epoll: with epoll, libmicrohttpd 0.9.75's MHD_quiesce_daemon and a worker
        // both take the listening socket out of the worker's epoll set without a lock, and the
        // one that loses the race aborts the process ("Failed to remove listen FD from epoll
        // set"). With poll, quiescing only signals each worker through its ITC channel. A worker
        // polls its own connections (a share of `maxConnections`), so poll's cost per call stays small.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        return options.withUnsafeMutableBufferPointer { buffer in
            // The accept policy enforces both connection caps (`ConnectionRegistry`).
            shim_MHD_start_daemon(flags, acceptPolicy, cls, accessHandler, cls, buffer.baseAddress)
        }
    }

    /// libmicrohttpd's connection limit: twice the server's cap for every worker thread.
    static func libraryConnectionLimit(_ configuration: ServerConfiguration) -> Int {
        min(2 * configuration.maxConnections * max(configuration.threads, 1), Int(Int32.max))
    }
}
