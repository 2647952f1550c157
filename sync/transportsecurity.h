// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QSslConfiguration>
#include <QString>
#include <QUrl>
#include <optional>

namespace marquee::sync {

/**
 * @brief How a device reaches marquee-server: HTTPS and WSS verified against the venue CA, and plain http:// or
 * ws:// only to this machine (loopback) unless the operator said otherwise.
 *
 * The app installs one policy for the whole process at start (install()); every ApiClient and live feed
 * created afterwards follows it, and each may be given another (tests). A refused URL never reaches the network:
 * the request fails at once with refusal()'s message.
 */
struct TransportPolicy {
    /** @brief Plain http:// and ws:// to any host (--allow-insecure-http): the UI then shows a warning. */
    bool allowInsecureHttp = false;
    /** @brief Set: HTTPS and WSS trust exactly this configuration's CAs (--ca-file); unset: the system's CAs. */
    std::optional<QSslConfiguration> tls;

    /** @brief Why @p url may not be used, or an empty string when it may. */
    QString refusal(const QUrl &url) const;
    /** @brief Whether @p url is plain text to another machine (allowed only with allowInsecureHttp). */
    static bool isInsecure(const QUrl &url);
    static bool isLoopback(const QUrl &url);

    /**
     * @brief A client configuration that trusts only the CA certificates in @p caFile (PEM), verifies the server
     * and its host name, and speaks TLS 1.2 or later. std::nullopt and @p error when the file holds no certificate.
     */
    static std::optional<QSslConfiguration> venueTls(const QString &caFile, QString *error);
    /** @brief The same for the CA certificates in @p pem (a venue CA stored at pairing). */
    static std::optional<QSslConfiguration> venueTlsFromPem(const QByteArray &pem, QString *error);

    /** @brief The process's policy (the default: no insecure http, the system's CAs). */
    static const TransportPolicy &current();
    static void install(const TransportPolicy &policy);
};

} // namespace marquee::sync
