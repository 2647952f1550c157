// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"
#include "database.h"

#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <optional>

namespace marquee::store {

/** @brief The authenticated caller of a request. */
struct Principal {
    enum class Kind { Device, Session };
    Kind kind = Kind::Device;
    qint64 id = 0;       ///< device_id or session_id
    qint64 staffId = 0;  ///< for sessions
    QString name;        ///< device or staff name
    Role role = Role::Kiosk;
    QDateTime expiresAt; ///< sessions only

    /** @brief Stable owner string stored on holds, orders and idempotency keys: "device:7", "session:12". */
    QString owner() const;
};

/** @brief Result of a staff sign-in. */
struct NewSession {
    QString token;
    Role role = Role::Cashier;
    QDateTime expiresAt;
};

/**
 * @brief Devices, staff, sessions and bearer-token lookup. Only SHA-256 hashes of tokens are stored.
 *
 * Token lookups are cached in memory for a few seconds so that the hot path (a hold) costs one database
 * round trip, not two; a revoked device or ended session is refused at the latest after the cache lifetime.
 */
class AuthRepository
{
public:
    explicit AuthRepository(const Database &database, int cacheSeconds = 10);

    std::optional<Principal> authenticate(const QString &token);
    /** @brief Enrol a device; returns its bearer token, or nothing when the name is taken or on error. */
    std::optional<QString> addDevice(const QString &name, Role role, QString *error);
    /** @brief Add a staff member; false when the name is taken or on error. */
    bool addStaff(const QString &name, Role role, const QString &password, QString *error);
    /** @brief Sign a staff member in; nothing on a wrong name or password (indistinguishable on purpose). */
    std::optional<NewSession> createSession(const QString &name, const QString &password, int ttlSeconds);
    /** @brief End a session now (sign-out). */
    bool endSession(qint64 sessionId);
    void clearCache();

private:
    const Database &m_database;
    const int m_cacheSeconds;
    struct CacheEntry {
        std::optional<Principal> principal;
        qint64 fetchedAtMs = 0;
    };
    QMutex m_mutex;
    QHash<QByteArray, CacheEntry> m_cache;
};

} // namespace marquee::store
