// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/idempotencyrepository.h"

#include <QSqlQuery>

namespace marquee::store {

IdempotencyRepository::IdempotencyRepository(const Database &database)
    : m_database(database)
{
}

std::optional<StoredReply> IdempotencyRepository::storedReply(const QString &owner, const QString &key, bool *ok)
{
    *ok = false;
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT request_hash, response_status, response_body::text FROM idempotency_keys "
        " WHERE owner = ? AND key = ? AND expires_at > now()"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(owner);
    query.addBindValue(key);
    if (!execQuery(query, "stored reply")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    *ok = true;
    std::optional<StoredReply> reply;
    if (query.next())
        reply = StoredReply{query.value(0).toString().toLatin1(), query.value(1).toInt(), query.value(2).toString().toUtf8()};
    query.finish();
    return reply;
}

} // namespace marquee::store
