// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/authrepository.h"
#include "logging.h"

#include "core/tokenhash.h"
#include "store/staffrepository.h"

#include <QJsonObject>
#include <QLoggingCategory>
#include <QSqlError>
#include <QRegularExpression>


namespace marquee::store {

AuthRepository::AuthRepository(const Database &database, int cacheSeconds, int idleLockSeconds)
    : m_database(database)
    , m_cacheSeconds(cacheSeconds)
    , m_idleLockSeconds(idleLockSeconds)
{
}

void AuthRepository::clearCache()
{
    QMutexLocker lock(&m_mutex);
    m_cache.clear();
    ++m_generation;
}

namespace {
/**
 * @brief One audited change of one device, in its own transaction: @p update (an UPDATE of devices … RETURNING
 * device_id, role) with @p values must change a row, else @p missing is the error; the audit row @p action names the
 * device and carries @p details with its role.
 */
bool changeDevice(const Database &database, const QString &update, const QVariantList &values, const QString &action, QJsonObject details,
                  const QString &missing, const Principal &actor, QString *error)
{
    QSqlDatabase db = database.connection();
    Transaction tx(db);
    if (!tx.isActive()) {
        *error = db.lastError().text();
        return false;
    }
    QSqlQuery query(db);
    prepareQuery(query, update);
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!execQuery(query, qPrintable(action))) {
        *error = query.lastError().text();
        return false;
    }
    if (!query.next()) {
        *error = missing;
        return false;
    }
    const qint64 deviceId = query.value(0).toLongLong();
    details.insert(QStringLiteral("role"), query.value(1).toString());
    query.finish();
    if (!StaffRepository::appendAudit(db, actor, {action, QStringLiteral("device:%1").arg(deviceId), QString(), details}) || !tx.commit()) {
        *error = db.lastError().text();
        return false;
    }
    return true;
}
} // namespace

bool AuthRepository::revokeDevice(const QString &name, const Principal &actor, QString *error)
{
    if (!changeDevice(m_database, QStringLiteral("UPDATE devices SET revoked_at = now() WHERE name = ? AND revoked_at IS NULL RETURNING device_id, role"),
                      {name}, QStringLiteral("device.revoke"), QJsonObject{{QStringLiteral("name"), name}},
                      QStringLiteral("there is no device named '%1' that is not revoked already").arg(name), actor, error))
        return false;
    clearCache(); // this process at once; the others through the notification of the commit
    return true;
}

bool AuthRepository::setDeviceVenue(const QString &name, qint64 venueId, const Principal &actor, QString *error)
{
    QSqlQuery venue(m_database.connection());
    prepareQuery(venue, QStringLiteral("SELECT 1 FROM venues WHERE venue_id = ?"));
    venue.addBindValue(venueId);
    if (!execQuery(venue, "find venue")) {
        *error = venue.lastError().text();
        return false;
    }
    if (!venue.next()) {
        *error = QStringLiteral("there is no venue %1").arg(venueId);
        return false;
    }
    if (!changeDevice(m_database, QStringLiteral("UPDATE devices SET venue_id = ? WHERE name = ? AND revoked_at IS NULL RETURNING device_id, role"),
                      {venueId, name}, QStringLiteral("device.venue"), QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("venue_id"), venueId}},
                      QStringLiteral("there is no device named '%1' that is not revoked").arg(name), actor, error))
        return false;
    clearCache(); // this process at once; the others through the notification of the commit
    return true;
}

bool AuthRepository::disableStaff(const QString &name, const Principal &actor, QString *error)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive()) {
        *error = db.lastError().text();
        return false;
    }
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("UPDATE staff SET disabled_at = now() WHERE name = ? AND disabled_at IS NULL RETURNING staff_id, role"));
    query.addBindValue(name);
    if (!execQuery(query, "disable staff")) {
        *error = query.lastError().text();
        return false;
    }
    if (!query.next()) {
        *error = QStringLiteral("there is no staff member named '%1' who is not disabled already").arg(name);
        return false;
    }
    const qint64 staffId = query.value(0).toLongLong();
    const QString role = query.value(1).toString();
    query.finish();
    QSqlQuery end(db);
    prepareQuery(end, QStringLiteral("UPDATE sessions SET ended_at = now() WHERE staff_id = ? AND ended_at IS NULL"));
    end.addBindValue(staffId);
    if (!execQuery(end, "end sessions of disabled staff")) {
        *error = end.lastError().text();
        return false;
    }
    const int ended = end.numRowsAffected();
    if (!StaffRepository::appendAudit(db, actor, {QStringLiteral("staff.disable"), QStringLiteral("staff:%1").arg(staffId), QString(),
                                                  QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("role"), role},
                                                              {QStringLiteral("sessions_ended"), ended}}})
        || !tx.commit()) {
        *error = db.lastError().text();
        return false;
    }
    clearCache();
    return true;
}

std::optional<Principal> AuthRepository::authenticate(const QString &token, bool *databaseDown)
{
    if (databaseDown)
        *databaseDown = false;
    const auto unreachable = [databaseDown]() -> std::optional<Principal> {
        if (databaseDown)
            *databaseDown = true;
        return std::nullopt; // fail closed, and do not cache a database error
    };
    if (token.isEmpty() || token.size() > 200)
        return std::nullopt;
    const QByteArray hash = tokenHash(token);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    quint64 generation = 0;
    {
        QMutexLocker lock(&m_mutex);
        generation = m_generation;
        const auto it = m_cache.constFind(hash);
        if (it != m_cache.constEnd() && now - it->fetchedAtMs < m_cacheSeconds * 1000) {
            const auto &principal = it->principal;
            if (principal && principal->expiresAt.isValid() && principal->expiresAt.toMSecsSinceEpoch() <= now)
                return std::nullopt;
            return principal;
        }
    }
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT 'device', d.device_id, 0, d.name, d.role, NULL::timestamptz, NULL::timestamptz, false, "
        "       coalesce(d.venue_id, (SELECT min(v.venue_id) FROM venues v HAVING count(*) = 1)) FROM devices d "
        " WHERE d.token_hash = :h AND d.revoked_at IS NULL "
        "UNION ALL "
        "SELECT 'session', s.session_id, st.staff_id, st.name, st.role, s.expires_at, s.elevated_until, "
        "       s.last_active_at <= now() - make_interval(secs => :idle), "
        "       (SELECT coalesce(sd.venue_id, (SELECT min(v.venue_id) FROM venues v HAVING count(*) = 1)) FROM devices sd "
        "         WHERE sd.device_id = s.device_id) FROM sessions s "
        "  JOIN staff st USING (staff_id) "
        " WHERE s.token_hash = :h AND s.ended_at IS NULL AND s.expires_at > now() AND st.disabled_at IS NULL"));
    if (!statement)
        return unreachable();
    QSqlQuery &query = *statement;
    query.bindValue(QStringLiteral(":h"), QString::fromLatin1(hash));
    query.bindValue(QStringLiteral(":idle"), m_idleLockSeconds);
    if (!execQuery(query, "authenticate")) {
        m_database.resetAfterError(query.lastError());
        return unreachable();
    }
    std::optional<Principal> principal;
    if (query.next()) {
        Principal p;
        p.kind = query.value(0).toString() == QLatin1String("device") ? Principal::Kind::Device : Principal::Kind::Session;
        p.id = query.value(1).toLongLong();
        p.staffId = query.value(2).toLongLong();
        p.name = query.value(3).toString();
        p.role = roleFromString(query.value(4).toString()).value_or(Role::Kiosk);
        p.expiresAt = query.value(5).toDateTime();
        p.elevatedUntil = query.value(6).toDateTime();
        p.locked = query.value(7).toBool();
        p.venueId = query.value(8).toLongLong();
        principal = p;
    }
    query.finish();
    // Activity is recorded once per cache lifetime: an active session misses the cache at least that often.
    if (principal && principal->kind == Principal::Kind::Session && !principal->locked) {
        QSqlQuery *touch = m_database.prepared(QStringLiteral("UPDATE sessions SET last_active_at = now() WHERE session_id = ?"));
        if (!touch)
            return unreachable();
        touch->addBindValue(principal->id);
        if (!execQuery(*touch, "record session activity")) {
            m_database.resetAfterError(touch->lastError());
            return unreachable();
        }
    }
    QMutexLocker lock(&m_mutex);
    if (generation != m_generation)
        return principal; // a revocation came in while this was read: the answer may predate it, so it is not kept
    if (m_cache.size() > 100000)
        m_cache.clear();
    m_cache.insert(hash, CacheEntry{principal, now});
    return principal;
}

std::optional<QString> AuthRepository::addDevice(const QString &name, Role role, QString *error, qint64 venueId)
{
    if (!isDeviceRole(role)) {
        *error = QStringLiteral("a device's role is kiosk or till");
        return std::nullopt;
    }
    const QString token = newBearerToken();
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO devices (name, role, token_hash, venue_id) "
                                       "VALUES (?, ?, ?, coalesce(?, (SELECT min(venue_id) FROM venues HAVING count(*) = 1))) "
                                       "ON CONFLICT (name) DO NOTHING"));
    query.addBindValue(name);
    query.addBindValue(toString(role));
    query.addBindValue(QString::fromLatin1(tokenHash(token)));
    query.addBindValue(venueId > 0 ? QVariant(venueId) : QVariant(QMetaType::fromType<qint64>()));
    if (!execQuery(query, "add device")) {
        *error = query.lastError().text();
        return std::nullopt;
    }
    if (query.numRowsAffected() != 1) {
        *error = QStringLiteral("a device named '%1' already exists").arg(name);
        return std::nullopt;
    }
    return token;
}

bool AuthRepository::addStaff(const QString &name, Role role, const QString &password, QString *error)
{
    if (isDeviceRole(role)) {
        *error = QStringLiteral("a staff member's role is cashier, manager or admin");
        return false;
    }
    if (password.size() < 8) {
        *error = QStringLiteral("the password must have at least 8 characters");
        return false;
    }
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO staff (name, role, password_hash) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING"));
    query.addBindValue(name);
    query.addBindValue(toString(role));
    query.addBindValue(hashPassword(password));
    if (!execQuery(query, "add staff")) {
        *error = query.lastError().text();
        return false;
    }
    if (query.numRowsAffected() != 1) {
        *error = QStringLiteral("a staff member named '%1' already exists").arg(name);
        return false;
    }
    return true;
}

std::optional<NewSession> AuthRepository::createSession(const QString &name, const QString &password, int ttlSeconds)
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT staff_id, role, password_hash FROM staff WHERE name = ? AND disabled_at IS NULL"));
    query.addBindValue(name);
    if (!execQuery(query, "find staff"))
        return std::nullopt;
    // Hash even for an unknown name so that timing does not reveal which names exist.
    static const QString dummy = hashPassword(QStringLiteral("not-a-password"));
    const bool found = query.next();
    const QString stored = found ? query.value(2).toString() : dummy;
    const bool ok = verifyPassword(password, stored);
    if (!found || !ok)
        return std::nullopt;
    NewSession session;
    session.token = newBearerToken();
    session.role = roleFromString(query.value(1).toString()).value_or(Role::Cashier);
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral("INSERT INTO sessions (staff_id, token_hash, expires_at) "
                                        "VALUES (?, ?, now() + make_interval(secs => ?)) RETURNING expires_at, session_id"));
    insert.addBindValue(query.value(0).toLongLong());
    insert.addBindValue(QString::fromLatin1(tokenHash(session.token)));
    insert.addBindValue(ttlSeconds);
    if (!execQuery(insert, "create session") || !insert.next())
        return std::nullopt;
    session.expiresAt = insert.value(0).toDateTime();
    session.sessionId = insert.value(1).toLongLong();
    session.staffId = query.value(0).toLongLong();
    return session;
}

bool AuthRepository::endSession(const Principal &session, const std::optional<AuditEntry> &audit)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("UPDATE sessions SET ended_at = now() WHERE session_id = ? AND ended_at IS NULL"));
    query.addBindValue(session.id);
    const bool ok = execQuery(query, "end session")
        && (query.numRowsAffected() == 0 || !audit || StaffRepository::appendAudit(db, session, *audit)) && tx.commit();
    clearCache();
    return ok;
}

Reauth AuthRepository::reauthenticate(const Principal &session, const QString &password, const QString &pin, int elevationSeconds,
                                     const std::function<AuditEntry(const Reauth &decided)> &auditOf)
{
    Reauth out;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    // The row lock serialises concurrent guesses, so the failure count cannot be raced past its limit.
    QSqlQuery read(db);
    prepareQuery(read, QStringLiteral("SELECT st.password_hash, coalesce(st.pin_hash, ''), s.failed_reauths FROM sessions s "
                                      "  JOIN staff st USING (staff_id) "
                                      " WHERE s.session_id = ? AND s.ended_at IS NULL AND s.expires_at > now() FOR UPDATE OF s"));
    read.addBindValue(session.id);
    if (!execQuery(read, "read session for reauth"))
        return out;
    if (!read.next()) {
        out.kind = Reauth::Kind::SessionEnded;
        return out;
    }
    const QString stored = pin.isEmpty() ? read.value(0).toString() : read.value(1).toString();
    if (stored.isEmpty()) {
        out.kind = Reauth::Kind::NoPin;
        return out;
    }
    const int failures = read.value(2).toInt();
    QSqlQuery write(db);
    if (verifyPassword(pin.isEmpty() ? password : pin, stored)) {
        prepareQuery(write, QStringLiteral("UPDATE sessions SET failed_reauths = 0, last_active_at = now(), "
                                           "elevated_until = now() + make_interval(secs => ?) WHERE session_id = ? RETURNING elevated_until"));
        write.addBindValue(elevationSeconds);
        write.addBindValue(session.id);
        if (!execQuery(write, "elevate session") || !write.next())
            return out;
        out.kind = Reauth::Kind::Elevated;
        out.elevatedUntil = write.value(0).toDateTime();
    } else {
        const bool last = failures + 1 >= kMaxFailedReauths;
        prepareQuery(write, QStringLiteral("UPDATE sessions SET failed_reauths = failed_reauths + 1, elevated_until = NULL, "
                                           "ended_at = CASE WHEN ? THEN now() END WHERE session_id = ?"));
        write.addBindValue(last);
        write.addBindValue(session.id);
        if (!execQuery(write, "count failed reauth"))
            return out;
        out.kind = last ? Reauth::Kind::SessionEnded : Reauth::Kind::WrongSecret;
        out.attemptsLeft = kMaxFailedReauths - failures - 1;
    }
    if ((auditOf && !StaffRepository::appendAudit(db, session, auditOf(out))) || !tx.commit()) {
        out.kind = Reauth::Kind::Error;
        return out;
    }
    // The cached principal carries the old elevation and lock; the next request must see the new ones.
    clearCache();
    return out;
}

bool AuthRepository::setPin(const Principal &session, const QString &password, const QString &pin, QString *error, bool *wrongPassword,
                            const std::optional<AuditEntry> &audit)
{
    *wrongPassword = false;
    static const QRegularExpression digits(QStringLiteral("^[0-9]{4,8}$"));
    if (!digits.match(pin).hasMatch()) {
        *error = QStringLiteral("A PIN is 4 to 8 digits.");
        return false;
    }
    QSqlDatabase db = m_database.connection();
    QSqlQuery read(db);
    prepareQuery(read, QStringLiteral("SELECT password_hash FROM staff WHERE staff_id = ? AND disabled_at IS NULL"));
    read.addBindValue(session.staffId);
    if (!execQuery(read, "read staff for pin") || !read.next()) {
        *error = QStringLiteral("The staff record cannot be read.");
        return false;
    }
    if (!verifyPassword(password, read.value(0).toString())) {
        *wrongPassword = true;
        *error = QStringLiteral("The password is wrong.");
        return false;
    }
    Transaction tx(db);
    QSqlQuery write(db);
    prepareQuery(write, QStringLiteral("UPDATE staff SET pin_hash = ? WHERE staff_id = ?"));
    write.addBindValue(hashPassword(pin));
    write.addBindValue(session.staffId);
    if (!tx.isActive() || !execQuery(write, "set pin") || (audit && !StaffRepository::appendAudit(db, session, *audit)) || !tx.commit()) {
        *error = QStringLiteral("The PIN could not be stored.");
        return false;
    }
    return true;
}

} // namespace marquee::store
