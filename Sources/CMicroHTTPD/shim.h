#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: pass every option through one MHD_OPTION_ARRAY. */
static inline struct MHD_Daemon *shim_MHD_start_daemon(unsigned int flags, MHD_AcceptPolicyCallback accept_policy,
                                                       void *accept_policy_cls, MHD_AccessHandlerCallback handler,
                                                       void *handler_cls, struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_cls, handler, handler_cls, MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic: return the client's socket address, or NULL. */
static inline const struct sockaddr *shim_MHD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* MHD_get_connection_info is variadic: return the connection's socket, or -1. */
static inline int shim_MHD_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* MHD_get_connection_info is variadic: return the size of the request head in bytes, or 0. */
static inline size_t shim_MHD_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* MHD_get_connection_info is variadic: return the connection's socket context (set by the
   connection-notification callback when the connection started), or NULL. */
static inline void *shim_MHD_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

#endif
