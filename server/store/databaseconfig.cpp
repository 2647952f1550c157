// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/databaseconfig.h"

#include <QUrl>
#include <QUrlQuery>

namespace marquee::store {

std::optional<DatabaseConfig> DatabaseConfig::fromUrl(const QString &text, QString *error)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("postgresql") && url.scheme() != QLatin1String("postgres"))) {
        if (error)
            *error = QStringLiteral("expected a URL like postgresql://user:password@host:5432/database");
        return std::nullopt;
    }
    DatabaseConfig config;
    const QUrlQuery query(url);
    config.host = query.hasQueryItem(QStringLiteral("host")) ? query.queryItemValue(QStringLiteral("host"), QUrl::FullyDecoded)
                                                              : url.host();
    if (config.host.isEmpty())
        config.host = QStringLiteral("localhost");
    config.port = url.port(5432);
    const QString path = url.path(QUrl::FullyDecoded);
    if (path.size() > 1)
        config.database = path.mid(1);
    if (!url.userName().isEmpty())
        config.user = url.userName(QUrl::FullyDecoded);
    config.password = url.password(QUrl::FullyDecoded);
    return config;
}

QString DatabaseConfig::toUrl(bool withPassword) const
{
    QUrl url;
    url.setScheme(QStringLiteral("postgresql"));
    url.setUserName(user);
    if (withPassword && !password.isEmpty())
        url.setPassword(password);
    if (host.startsWith(QLatin1Char('/'))) {
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("host"), host);
        url.setQuery(query);
    } else {
        url.setHost(host);
    }
    url.setPort(port);
    url.setPath(QLatin1Char('/') + database);
    return url.toString();
}

} // namespace marquee::store
