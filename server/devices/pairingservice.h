// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"
#include "store/pairingrepository.h"
#include "store/signinthrottle.h"

#include <variant>

namespace marquee {

/**
 * @brief What pairing ends in: the device, or a Refusal (a catalogue code and its data). The pairing route alone
 * turns either into HTTP (server/http/pairingroutes.cpp).
 */
template<typename T> using PairingOutcome = std::variant<T, Refusal>;

/** @brief A device just paired: who it is, and the bearer token it is shown once (only its hash is stored). */
struct PairedDevice {
    qint64 deviceId = 0;
    QString name;
    QString role;
    QString token;
};

/**
 * @brief Device pairing: a device trades the one-time code marquee-admin device add --pairing printed for its
 * token, once. Wrong, used and expired codes are counted like wrong sign-in passwords (store::SignInThrottle), per
 * client address and fleet-wide, under keys of their own; the code is redeemed by PostgreSQL
 * (store::PairingRepository, mq_redeem_pairing_code), which creates the device and uses the code in one transaction.
 * Thread-safe like the repositories.
 */
class PairingService
{
public:
    /** @brief How many wrong codes lock pairing out, from anywhere and from one address, and for how long. */
    struct Limits {
        int failuresFleetWide = 20;
        int failuresPerAddress = 5;
        int lockoutSeconds = 300;
    };
    PairingService(store::PairingRepository &pairings, const store::Database &database, Limits limits);

    /** @brief POST /api/v1/devices/pair: redeem @p code sent from the client @p address. */
    PairingOutcome<PairedDevice> pair(const QString &code, const QString &address);

private:
    store::PairingRepository &m_pairings;
    store::SignInThrottle m_throttle;
};

} // namespace marquee
