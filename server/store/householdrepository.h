// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/authrepository.h"
#include "store/database.h"
#include "store/holdrepository.h"

#include <QJsonArray>
#include <optional>

namespace marquee::store {

/**
 * @brief Seats a manager keeps back for house use. A house hold is an ordinary hold owned by "house", placed
 * by mq_place_hold (all or nothing, never touching held or sold seats) with a TTL of kTtlSeconds, released
 * explicitly; placing and releasing are audited in the same transaction.
 */
class HouseHoldRepository
{
public:
    static constexpr int kTtlSeconds = 400 * 24 * 3600;
    static QString owner() { return QStringLiteral("house"); }

    explicit HouseHoldRepository(const Database &database);

    /** @brief Like HoldRepository::placeHold, for the house, with the manager's @p reason. */
    HoldDecision place(const Principal &manager, const QString &idempotencyKey, const QByteArray &requestHash, qint64 showId,
                      const QStringList &seatIds, const QString &reason);
    /** @brief Live house holds of a show: [{hold_id, seat_ids, reason, created_at, expires_at}]. */
    std::optional<QJsonArray> list(qint64 showId);
    /** @brief Release a house hold; found = false when there is no such house hold. */
    HoldRepository::Release release(const Principal &manager, const QString &holdId, const QString &reason);

private:
    const Database &m_database;
};

} // namespace marquee::store
