// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QDateTime>
#include <QString>
#include <optional>

namespace marquee::store {

/** @brief A sign-in lockout in force: which of the two limits, and until when (it ends by itself). */
struct SignInLock {
    bool locked = false;
    QString scope; ///< "name" or "address"
    QDateTime until;
};

/**
 * @brief Sign-in throttling per staff name and per client address (table sign_in_throttle, migration 029), shared
 * by every instance of a fleet. Failures are counted for the lockout time; the failure that reaches a limit locks
 * that name or address out for the lockout time and is audited (session.sign_in_locked) in the same transaction.
 */
class SignInThrottle
{
public:
    struct Limits {
        int failuresPerName = 5;
        int failuresPerAddress = 30;
        int lockoutSeconds = 300;
    };
    SignInThrottle(const Database &database, Limits limits);

    /** @brief The lockout in force for @p name or @p address (locked false when none); std::nullopt on error. */
    std::optional<SignInLock> lockout(const QString &name, const QString &address);
    /** @brief Count a wrong password; the lockout it started, if it reached a limit (locked false otherwise). */
    std::optional<SignInLock> recordFailure(const QString &name, const QString &address);
    /** @brief A right password: the name's count starts again (the address's keeps running). */
    bool recordSuccess(const QString &name);

private:
    const Database &m_database;
    const Limits m_limits;
};

} // namespace marquee::store
