// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"
#include "store/auditentry.h"
#include "store/database.h"
#include "store/principal.h"

#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <functional>
#include <optional>

namespace marquee::store {

/** @brief Result of a staff sign-in. */
struct NewSession {
    QString token;
    qint64 sessionId = 0;
    qint64 staffId = 0;
    Role role = Role::Cashier;
    QDateTime expiresAt;
};

/** @brief What a re-authentication decided. */
struct Reauth {
    enum class Kind { Elevated, WrongSecret, NoPin, SessionEnded, Error };
    Kind kind = Kind::Error;
    QDateTime elevatedUntil;
    int attemptsLeft = 0; ///< WrongSecret: failures allowed before the session ends
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
    /**
     * @param idleLockSeconds a session unused this long is locked (only re-authentication unlocks it). Activity is
     * written at most once per cache lifetime, so the lock may come up to @p cacheSeconds late.
     */
    explicit AuthRepository(const Database &database, int cacheSeconds = 10, int idleLockSeconds = 15 * 60);

    /**
     * @brief The caller @p token belongs to; nothing when it is unknown, revoked or expired — or when the database
     * could not be asked, which sets @p databaseDown (if given) so that the caller answers 503 rather than telling a
     * till or kiosk that its token is no longer valid. A database error is never cached.
     */
    std::optional<Principal> authenticate(const QString &token, bool *databaseDown = nullptr);
    /** @brief Enrol a device of venue @p venueId (0: the venue of a database of one venue, else none yet); returns
     *  its bearer token, or nothing when the name is taken or on error. */
    std::optional<QString> addDevice(const QString &name, Role role, QString *error, qint64 venueId = 0);
    /** @brief Add a staff member; false when the name is taken or on error. */
    bool addStaff(const QString &name, Role role, const QString &password, QString *error);
    /** @brief Sign a staff member in; nothing on a wrong name or password (indistinguishable on purpose). */
    std::optional<NewSession> createSession(const QString &name, const QString &password, int ttlSeconds);
    /** @brief End a session now (sign-out); @p audit is appended in the same transaction, only when this call ended it. */
    bool endSession(const Principal &session, const std::optional<AuditEntry> &audit = std::nullopt);
    /**
     * @brief Check the session's staff password or PIN again (exactly one of them non-empty). Right: the session is
     * unlocked and elevated for @p elevationSeconds. Wrong: counted; the kMaxFailedReauths-th failure ends the session.
     * @p auditOf gives the audit row of the decision, appended in its transaction: both commit or neither does.
     */
    Reauth reauthenticate(const Principal &session, const QString &password, const QString &pin, int elevationSeconds,
                          const std::function<AuditEntry(const Reauth &decided)> &auditOf = {});
    /** @brief Set the staff member's PIN after checking their password (@p audit in the same transaction); false
     *  with @p error when refused. */
    bool setPin(const Principal &session, const QString &password, const QString &pin, QString *error, bool *wrongPassword,
                const std::optional<AuditEntry> &audit = std::nullopt);
    static constexpr int kMaxFailedReauths = 5;
    /**
     * @brief Forget every cached token lookup: the next request of every caller is decided on the database again.
     * Called by the ChangeListener when any instance revoked a device, disabled staff or ended a session; a lookup that
     * was in flight when this ran is not cached (it may have read the row before the change committed).
     */
    void clearCache();

    /** @brief Revoke the device named @p name (its token stops working on every instance); false with @p error when
     *  there is none or it is revoked already. @p audit is appended in the same transaction. */
    bool revokeDevice(const QString &name, const Principal &actor, QString *error);
    /** @brief Make the device named @p name one of venue @p venueId (its keys feed and its door follow on every
     *  instance at once); false with @p error when there is no such device or venue. Audited (device.venue). */
    bool setDeviceVenue(const QString &name, qint64 venueId, const Principal &actor, QString *error);
    /** @brief Disable the staff member named @p name and end their open sessions; false with @p error when there is
     *  none or they are disabled already. Audited as revokeDevice(). */
    bool disableStaff(const QString &name, const Principal &actor, QString *error);

private:
    const Database &m_database;
    const int m_cacheSeconds;
    const int m_idleLockSeconds;
    struct CacheEntry {
        std::optional<Principal> principal;
        qint64 fetchedAtMs = 0;
    };
    QMutex m_mutex;
    QHash<QByteArray, CacheEntry> m_cache;
    quint64 m_generation = 0; ///< bumped by clearCache(); a lookup begun under an older one is not cached
};

} // namespace marquee::store
