// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee::store {

/** @brief Where a PostgreSQL database is and how to log in. */
struct DatabaseConfig {
    QString host; ///< A host name, or an absolute path to a unix-socket directory.
    int port = 5432;
    QString database = QStringLiteral("marquee");
    QString user = QStringLiteral("marquee");
    QString password;
    /** @brief Fail fast on a database that does not answer (not part of the URL; the server's options set them). */
    int connectTimeoutSeconds = 10;   ///< libpq connect_timeout: opening a connection gives up after this (at least 2)
    int statementTimeoutMs = 0;       ///< PostgreSQL statement_timeout of every connection; 0: none
    int keepaliveIdleSeconds = 0;     ///< TCP keepalives on the connection (idle time before the first probe); 0: the OS default

    /**
     * @brief Parse `postgresql://user:password@host:port/database`; a socket directory may be given as
     * `postgresql:///database?host=/path`. std::nullopt with @p error on bad input.
     */
    static std::optional<DatabaseConfig> fromUrl(const QString &url, QString *error = nullptr);
    /** @brief The same settings as a URL (password elided when @p withPassword is false). */
    QString toUrl(bool withPassword = false) const;
};

} // namespace marquee::store
