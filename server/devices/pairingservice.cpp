// SPDX-License-Identifier: AGPL-3.0-or-later
#include "devices/pairingservice.h"

#include <QDateTime>

namespace marquee {

namespace {
// The sign-in throttle's table, under keys of their own: a name no staff member can have (names are checked on
// sign-in by the staff table, never by this key) counts wrong codes from anywhere, and the address is prefixed so
// that wrong codes never lock staff sign-in from the same address.
const QString kFleetKey = QStringLiteral("#device-pairing");

QString addressKey(const QString &address)
{
    return QStringLiteral("pair:") + address;
}

Refusal locked(const store::SignInLock &lock)
{
    // Rounded up, and at least a second: a client that waits this long finds the lockout over.
    const qint64 seconds = qMax<qint64>(1, QDateTime::currentDateTimeUtc().secsTo(lock.until) + 1);
    return {lock.scope == QLatin1String("name") ? ErrorCode::PairingLockedFleetWide : ErrorCode::PairingLockedForAddress,
            QJsonObject{{QStringLiteral("retry_after_s"), seconds}}, {}};
}

Refusal refused(store::Pairing::Decision decision)
{
    using Decision = store::Pairing::Decision;
    switch (decision) {
    case Decision::CodeUsed:
        return {ErrorCode::PairingCodeUsed, {}, {}};
    case Decision::CodeExpired:
        return {ErrorCode::PairingCodeExpired, {}, {}};
    case Decision::NameTaken:
        return {ErrorCode::PairingNameTaken, {}, {}};
    case Decision::Paired:
    case Decision::UnknownCode:
        break;
    }
    return {ErrorCode::PairingCodeNotFound, {}, {}};
}

Refusal storeDown()
{
    return {ErrorCode::PairingStoreUnavailable, {}, {}};
}
} // namespace

PairingService::PairingService(store::PairingRepository &pairings, const store::Database &database, Limits limits)
    : m_pairings(pairings)
    , m_throttle(database, {limits.failuresFleetWide, limits.failuresPerAddress, limits.lockoutSeconds})
{
}

PairingOutcome<PairedDevice> PairingService::pair(const QString &code, const QString &address)
{
    // Not a code at all: refused before the throttle, so a typo is neither counted nor audited.
    if (store::PairingRepository::normalize(code).isEmpty())
        return Refusal{ErrorCode::InvalidPairingCode, {}, {}};
    // Checked before the code is even looked at: once locked, the right code waits too, so guessing gains nothing.
    const auto lock = m_throttle.lockout(kFleetKey, addressKey(address));
    if (!lock)
        return storeDown();
    if (lock->locked)
        return locked(*lock);
    const auto pairing = m_pairings.redeem(code, address);
    if (!pairing)
        return storeDown();
    if (pairing->decision != store::Pairing::Decision::Paired) {
        // Used and expired codes count as well: they are as good a guess as a wrong one.
        const auto started = m_throttle.recordFailure(kFleetKey, addressKey(address));
        return started && started->locked ? locked(*started) : refused(pairing->decision);
    }
    return PairedDevice{pairing->deviceId, pairing->name, pairing->role, pairing->token};
}

} // namespace marquee
