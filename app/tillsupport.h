// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/money.h"
#include "seatmapmodel.h"
#include "ticketprinter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace marquee::app {

/**
 * @brief What a customer may hand over in cash for @p totalMinor: for the notes 5, 10, 20, 50 and 100 (in major
 * units of a currency with @p decimals minor digits), the next round sum above the total; at most four, ascending,
 * each once. Integer arithmetic only.
 */
QList<qint64> cashSuggestionsMinor(qint64 totalMinor, int decimals = 2);

/** @brief The ESC/POS "generate pulse" command that opens the cash drawer on pin 2 (ESC p 0 t1 t2). */
QByteArray drawerKickCommand();

/**
 * @brief The print data of a booking: @p show as `GET /shows/{id}` returns it, @p booking as the confirm or
 * `GET /bookings` answer, rows/numbers/tiers/prices from @p seatMap when it shows the same show.
 */
BookingPrint bookingPrintFor(const QJsonObject &show, const QJsonObject &booking, const SeatMapModel *seatMap, const QString &paymentMethod);

} // namespace marquee::app
