// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/sessiondevicerepository.h"

#include "core/tokenhash.h"

#include <QSqlError>
#include <QSqlQuery>

namespace marquee::store {

SessionDeviceRepository::SessionDeviceRepository(const Database &database)
    : m_database(database)
{
}

bool SessionDeviceRepository::bind(const QString &token, qint64 deviceId)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "UPDATE sessions SET device_id = ? WHERE token_hash = ? AND ended_at IS NULL AND device_id IS NULL"));
    if (!statement)
        return false;
    statement->addBindValue(deviceId);
    statement->addBindValue(QString::fromLatin1(tokenHash(token)));
    if (!execQuery(*statement, "bind session to device")) {
        m_database.resetAfterError(statement->lastError());
        return false;
    }
    return statement->numRowsAffected() == 1;
}

bool SessionDeviceRepository::discard(const QString &token)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral("UPDATE sessions SET ended_at = now() WHERE token_hash = ? AND ended_at IS NULL"));
    if (!statement)
        return false;
    statement->addBindValue(QString::fromLatin1(tokenHash(token)));
    if (!execQuery(*statement, "discard session")) {
        m_database.resetAfterError(statement->lastError());
        return false;
    }
    return true;
}

} // namespace marquee::store
