// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"
#include "store/database.h"

#include <QDateTime>
#include <optional>

namespace marquee::store {

/** @brief A pairing code as shown to the operator once (its hash is all the database keeps). */
struct PairingCode {
    QString code;        ///< 8 Crockford base32 characters, shown as XXXX-XXXX
    QDateTime expiresAt;
};

/** @brief What redeeming a code decided (mq_redeem_pairing_code). */
struct Pairing {
    enum class Decision { Paired, UnknownCode, CodeUsed, CodeExpired, NameTaken };
    Decision decision = Decision::UnknownCode;
    qint64 deviceId = 0;
    QString name;
    QString role;
    QString token; ///< the new device's bearer token (Paired only): shown to the device once, only its hash stored
};

/**
 * @brief One-time pairing codes for devices (migration 036): marquee-admin creates them as the owner, the server
 * redeems them through mq_redeem_pairing_code, the only way its role can create a device.
 */
class PairingRepository
{
public:
    static constexpr int kCodeLength = 8;
    static constexpr int kValidSeconds = 15 * 60;

    explicit PairingRepository(const Database &database);

    /**
     * @brief A new code for the device @p name with @p role (kiosk or till), valid @p validSeconds; an unused code
     * for the same name is replaced. Refused when a device of that name exists.
     */
    std::optional<PairingCode> create(const QString &name, Role role, int validSeconds, QString *error);
    /**
     * @brief Redeem @p code (any case, dashes and spaces ignored, O read as 0 and I, L as 1) and audit the outcome
     * (device.paired or device.pair_refused, with the client @p address) in the same transaction. std::nullopt on a
     * database error (nothing changed).
     */
    std::optional<Pairing> redeem(const QString &code, const QString &address);
    /** @brief @p code in canonical form (upper-case Crockford base32, 8 characters), or empty when it cannot be one. */
    static QString normalize(const QString &code);
    /** @brief The code as shown: XXXX-XXXX. */
    static QString display(const QString &code);

private:
    const Database &m_database;
};

} // namespace marquee::store
