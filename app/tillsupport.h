// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "seatmapmodel.h"
#include "ticketprinter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace marquee::app {

/**
 * @brief An amount typed at the till ("40", "40.5", "40,50", "1 234.00") → minor units, or nullopt when it is
 * not a non-negative amount with at most @p decimals decimals. Integer arithmetic only: money is never a float.
 */
std::optional<qint64> parseAmountInput(const QString &text, int decimals = 2);

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

/** @brief "HH:mm" of an ISO time in local time, or the text itself. */
QString localTimeText(const QString &isoTime, const QString &format = QStringLiteral("HH:mm"));

} // namespace marquee::app
