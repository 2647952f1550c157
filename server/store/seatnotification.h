// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/seatstatus.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace marquee::store {

/**
 * @brief One notification of channel `marquee_seats`: seats of a show that a committed UPDATE of show_seats set to
 * one status, whoever made it (sql/functions/mq_notify_seats.sql). Without a status (a seat list too long for one
 * notification, or a status this build does not know) it says only that the show changed: re-read it.
 */
struct SeatNotification {
    static constexpr const char *kChannel = "marquee_seats";

    QString origin; ///< the writer's Database::instanceId(); empty for marquee-admin and plain SQL
    qint64 showId = 0;
    std::optional<SeatStatus> status;
    QStringList seatIds;

    /** @brief The notification in @p payload; nullopt for one that names no show. */
    static std::optional<SeatNotification> parse(const QString &payload);
};

/**
 * @brief One notification of channel `marquee_shows`: a show's prices or its waiting room changed, whoever changed
 * them (sql/functions/mq_notify_seats.sql: "prices:<show>" or "waiting_room:<show>").
 */
struct ShowNotification {
    static constexpr const char *kChannel = "marquee_shows";
    enum class Kind {
        Prices,     ///< the show's prices: its seat maps are built again
        WaitingRoom ///< its waiting room was switched on or off or changed
    };

    Kind kind = Kind::Prices;
    qint64 showId = 0;

    /** @brief The notification in @p payload; nullopt for one of another kind or that names no show. */
    static std::optional<ShowNotification> parse(const QString &payload);
};

} // namespace marquee::store
