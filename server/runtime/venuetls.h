// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QHostAddress>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace marquee {

/**
 * @brief The venue's own certificate authority and the server certificate HAProxy presents (marquee-admin tls).
 *
 * One directory holds everything: ca.crt (the venue CA, given to every device as --ca-file), ca.key, server.crt,
 * server.key and server.pem (certificate then key in one file, as HAProxy's `crt` wants it). Keys are EC P-256
 * (what HAProxy, OpenSSL and Qt all accept), written 0600 through a temporary file, so a reader never sees half a
 * key. Certificates are signed with SHA-256; the server certificate names its DNS names and IP addresses as
 * subject alternative names, which is what TLS clients verify the host against.
 */
class VenueTls
{
public:
    /** @brief What the server certificate is for. */
    struct Subject {
        QStringList dnsNames;
        QList<QHostAddress> addresses;
    };
    /** @brief What `tls show` prints. */
    struct Summary {
        QString caSubject;
        QString caFingerprint; ///< SHA-256 of ca.crt's DER, upper-case hex pairs joined by ':'
        QDateTime caNotAfter;
        Subject server;
        QString serverFingerprint;
        QDateTime serverNotAfter;
    };

    static constexpr int kCaDays = 10 * 365;
    static constexpr int kServerDays = 825;

    /** @brief The file names inside the directory. */
    static QString caCertificateFile(const QString &dir);
    static QString caKeyFile(const QString &dir);
    static QString serverCertificateFile(const QString &dir);
    static QString serverKeyFile(const QString &dir);
    static QString bundleFile(const QString &dir);

    /**
     * @brief Parse --name and --ip values into a Subject: DNS names are letters, digits and '-' in dot-separated
     * labels (no wildcards, lower-cased), IPs are IPv4 or IPv6 literals. At least one of either. std::nullopt and
     * @p error otherwise.
     */
    static std::optional<Subject> subject(const QStringList &names, const QStringList &ips, QString *error);

    /** @brief A new CA and server certificate in @p dir (created 0700 when missing). Refuses to replace any
     *  existing file unless @p force. */
    static bool init(const QString &dir, const Subject &subject, bool force, QString *error);
    /** @brief A new server key and certificate signed by the CA in @p dir; an empty @p subject keeps the names and
     *  addresses of the current certificate. */
    static bool rotate(const QString &dir, const Subject &subject, QString *error);
    /** @brief Read and check the directory: the server certificate must be signed by the CA and match its key. */
    static std::optional<Summary> show(const QString &dir, QString *error);

    /** @brief SHA-256 fingerprint of the first certificate in @p pem, or an empty string when there is none. */
    static QString fingerprint(const QByteArray &pem);
};

} // namespace marquee
