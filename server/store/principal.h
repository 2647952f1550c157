// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"

#include <QDateTime>
#include <QString>

namespace marquee::store {

/**
 * @brief The authenticated caller of a request — or, as System, the server acting on its own on an outside party's
 * verified word (a refund made at the payment provider, a sign-in lockout), so that the audit log names it.
 */
struct Principal {
    enum class Kind { Device, Session, System };
    Kind kind = Kind::Device;
    qint64 id = 0;       ///< device_id or session_id
    qint64 staffId = 0;  ///< for sessions
    QString name;        ///< device or staff name
    Role role = Role::Kiosk;
    QDateTime expiresAt; ///< sessions only
    /** @brief Sessions only: re-authenticated (password or PIN) until then; see AuthRepository::reauthenticate. */
    QDateTime elevatedUntil;
    /** @brief Sessions only: idle past the inactivity limit; only re-authentication is accepted until unlocked. */
    bool locked = false;
    /** @brief The venue this caller serves: a device's own (devices.venue_id; in a database of one venue, a device
     *  without one is of that venue), a session's the device it signed in on; 0: none (a session at no device, a
     *  device not yet given a venue among several). Scopes the ticket keys it is given and the tickets its door
     *  admits. */
    qint64 venueId = 0;

    /** @brief True while a recent re-authentication lets this session refund, override and open the drawer. */
    bool isElevated() const { return elevatedUntil.isValid() && elevatedUntil > QDateTime::currentDateTimeUtc(); }

    /** @brief Stable owner string stored on holds, orders and idempotency keys: "device:7", "session:12"
     *  ("system:<name>" for System). */
    QString owner() const;

    /** @brief The server itself acting for @p name ("provider", "sign-in"): never a request's caller. */
    static Principal system(const QString &name)
    {
        Principal p;
        p.kind = Kind::System;
        p.name = name;
        p.role = Role::Admin;
        return p;
    }
};

} // namespace marquee::store
