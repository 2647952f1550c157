// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include "seat.h"

#include <optional>

namespace marquee {

/** @brief What best-available needs to know about one seat of one show: the seat and whether it is free. */
struct BestAvailableSeat {
    Seat seat;
    bool available = false;
};

/** @brief A request for "best available for N". */
struct BestAvailableRequest {
    int count = 2;
    /** @brief Tiers from best to worst; the first tier with a fitting block wins. Empty: every tier, as one. */
    QStringList tierOrder;
    /** @brief Include wheelchair spaces (at least one seat of the block is one); otherwise they are never offered. */
    bool wheelchair = false;
    /** @brief Aim near this layout point instead of the centre of the tier (e.g. "nearest to the seats just taken"). */
    std::optional<QPointF> near;
    /** @brief Seats never offered (e.g. seats the customer just lost). */
    QStringList exclude;
};

/**
 * @brief Choose @p request.count adjacent available seats in one row, close to the centre of the best tier,
 * never leaving a single available seat stranded between the block and a taken seat or the row end.
 *
 * Seats are adjacent when their numbers are consecutive and the gap between them is not an aisle (a gap wider
 * than 1.6 times the row's usual seat pitch). Returns the seat ids in row order, or an empty list when no block
 * fits.
 */
QStringList bestAvailable(const QList<BestAvailableSeat> &seats, const BestAvailableRequest &request);

} // namespace marquee
