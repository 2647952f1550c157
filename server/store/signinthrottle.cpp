// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/signinthrottle.h"
#include "logging.h"

#include "core/isotime.h"
#include "store/staffrepository.h"

#include <QJsonObject>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QSqlError>

namespace marquee::store {

SignInThrottle::SignInThrottle(const Database &database, Limits limits)
    : m_database(database)
    , m_limits(limits)
{
}

std::optional<SignInLock> SignInThrottle::lockout(const QString &name, const QString &address)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT scope, locked_until FROM sign_in_throttle "
                                       " WHERE ((scope = 'name' AND key = ?) OR (scope = 'address' AND key = ?)) AND locked_until > now() "
                                       " ORDER BY locked_until DESC LIMIT 1"));
    query.addBindValue(name.left(200));
    query.addBindValue(address.left(200));
    if (!execQuery(query, "read sign-in lockout"))
        return std::nullopt;
    SignInLock lock;
    if (query.next()) {
        lock.locked = true;
        lock.scope = query.value(0).toString();
        lock.until = query.value(1).toDateTime();
    }
    return lock;
}

std::optional<SignInLock> SignInThrottle::recordFailure(const QString &name, const QString &address)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return std::nullopt;
    // A count older than the lockout time, or one whose lockout has ended, starts again at this failure.
    QSqlQuery count(db);
    prepareQuery(count, QStringLiteral(
        "INSERT INTO sign_in_throttle AS t (scope, key, failures) VALUES (?, ?, 1) "
        "ON CONFLICT (scope, key) DO UPDATE SET "
        "  failures = CASE WHEN t.window_start <= now() - make_interval(secs => ?) OR coalesce(t.locked_until <= now(), false) "
        "                  THEN 1 ELSE t.failures + 1 END, "
        "  window_start = CASE WHEN t.window_start <= now() - make_interval(secs => ?) OR coalesce(t.locked_until <= now(), false) "
        "                      THEN now() ELSE t.window_start END, "
        "  locked_until = CASE WHEN coalesce(t.locked_until <= now(), false) THEN NULL ELSE t.locked_until END "
        "RETURNING failures"));
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("UPDATE sign_in_throttle SET locked_until = now() + make_interval(secs => ?) "
                                      " WHERE scope = ? AND key = ? RETURNING locked_until"));
    SignInLock started;
    const struct {
        QString scope;
        QString key;
        int limit;
    } scopes[] = {{QStringLiteral("name"), name.left(200), m_limits.failuresPerName},
                  {QStringLiteral("address"), address.left(200), m_limits.failuresPerAddress}};
    for (const auto &scope : scopes) {
        if (scope.key.isEmpty())
            continue;
        count.addBindValue(scope.scope);
        count.addBindValue(scope.key);
        count.addBindValue(m_limits.lockoutSeconds);
        count.addBindValue(m_limits.lockoutSeconds);
        if (!execQuery(count, "count sign-in failure") || !count.next())
            return std::nullopt;
        const int failures = count.value(0).toInt();
        count.finish();
        // Exactly at the limit: one lockout (and one audit row) per run of failures, however many race past it.
        if (failures != scope.limit)
            continue;
        lock.addBindValue(m_limits.lockoutSeconds);
        lock.addBindValue(scope.scope);
        lock.addBindValue(scope.key);
        if (!execQuery(lock, "start sign-in lockout") || !lock.next())
            return std::nullopt;
        const QDateTime until = lock.value(0).toDateTime();
        lock.finish();
        if (!started.locked || until > started.until)
            started = SignInLock{true, scope.scope, until};
        qCWarning(lcStore).noquote() << "sign-in locked for" << scope.scope << scope.key << "until" << toIsoUtc(until) << "after" << failures
                                     << "wrong passwords";
        if (!StaffRepository::appendAudit(db, Principal::system(QStringLiteral("sign-in")),
                                          {QStringLiteral("session.sign_in_locked"), scope.scope + QLatin1Char(':') + scope.key, QString(),
                                           QJsonObject{{QStringLiteral("scope"), scope.scope},
                                                       {QStringLiteral("failures"), failures},
                                                       {QStringLiteral("locked_until"), toIsoUtc(until)}}}))
            return std::nullopt;
    }
    // Now and then, forget counts nobody has added to for a while (a sprayed list of names leaves many rows).
    if (QRandomGenerator::global()->bounded(100) == 0) {
        QSqlQuery tidy(db);
        prepareQuery(tidy, QStringLiteral("DELETE FROM sign_in_throttle WHERE window_start < now() - make_interval(secs => ?) "
                                          "   AND coalesce(locked_until < now(), true)"));
        tidy.addBindValue(2 * m_limits.lockoutSeconds);
        if (!execQuery(tidy, "forget old sign-in failures"))
            return std::nullopt;
    }
    if (!tx.commit())
        return std::nullopt;
    return started;
}

bool SignInThrottle::recordSuccess(const QString &name)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("DELETE FROM sign_in_throttle WHERE scope = 'name' AND key = ?"));
    query.addBindValue(name.left(200));
    return execQuery(query, "clear sign-in failures");
}

} // namespace marquee::store
