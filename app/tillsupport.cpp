// SPDX-License-Identifier: AGPL-3.0-or-later
#include "tillsupport.h"
#include "venueclock.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLocale>
#include <QRegularExpression>

namespace marquee::app {

QList<qint64> cashSuggestionsMinor(qint64 totalMinor, int decimals)
{
    QList<qint64> suggestions;
    if (totalMinor <= 0)
        return suggestions;
    qint64 major = 1;
    for (int i = 0; i < decimals; ++i)
        major *= 10;
    for (const qint64 note : {5, 10, 20, 50, 100}) {
        const qint64 step = note * major;
        if (totalMinor % step == 0)
            continue; // the total itself: that is "exact", not a note handed over
        const qint64 roundUp = (totalMinor / step + 1) * step;
        if (!suggestions.contains(roundUp) && suggestions.size() < 4)
            suggestions.append(roundUp);
    }
    return suggestions;
}

QByteArray drawerKickCommand()
{
    // ESC p m t1 t2: pulse on connector pin 2 (m = 0), 50 ms on (t1 = 25 × 2 ms), 500 ms off (t2 = 250 × 2 ms).
    return QByteArray("\x1b\x70\x00\x19\xfa", 5);
}

BookingPrint bookingPrintFor(const QJsonObject &show, const QJsonObject &booking, const SeatMapModel *seatMap, const QString &paymentMethod)
{
    BookingPrint print;
    print.title = show.value(QStringLiteral("title")).toString();
    print.startsAt = QDateTime::fromString(show.value(QStringLiteral("starts_at")).toString(), Qt::ISODateWithMs);
    print.timeZone = QString::fromUtf8(showZone(show).id());
    print.venue = show.value(QStringLiteral("venue")).toObject().value(QStringLiteral("name")).toString();
    print.screen = show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString();
    print.currency = booking.value(QStringLiteral("currency")).toString(show.value(QStringLiteral("currency")).toString());
    print.bookingRef = booking.value(QStringLiteral("booking_ref")).toString();
    print.totalMinor = booking.value(QStringLiteral("amount_minor")).toInteger();
    print.paymentIntentId = booking.value(QStringLiteral("payment_intent_id")).toString();
    print.paymentMethod = paymentMethod;
    const bool sameShow = seatMap && seatMap->showId() == show.value(QStringLiteral("show_id")).toInteger();
    for (const QJsonValue &value : booking.value(QStringLiteral("tickets")).toArray()) {
        const QJsonObject object = value.toObject();
        PrintedTicket ticket;
        ticket.ticketId = object.value(QStringLiteral("ticket_id")).toString();
        ticket.seatId = object.value(QStringLiteral("seat_id")).toString();
        ticket.qr = object.value(QStringLiteral("qr")).toString();
        const int index = sameShow ? seatMap->indexOf(ticket.seatId) : -1;
        if (index >= 0) {
            const MapSeat &seat = seatMap->seats()[size_t(index)];
            ticket.row = seat.row;
            ticket.number = seat.number;
            ticket.tier = seat.tier;
            ticket.priceMinor = seat.priceMinor;
        } else {
            // Without the map the seat id is all we know ("F7" → row F, seat 7), the tier price stays unknown.
            static const QRegularExpression split(QStringLiteral("^([A-Za-z]+)(\\d+)$"));
            const QRegularExpressionMatch match = split.match(ticket.seatId);
            ticket.row = match.hasMatch() ? match.captured(1) : ticket.seatId;
            ticket.number = match.hasMatch() ? match.captured(2).toInt() : 0;
        }
        print.tickets.append(ticket);
    }
    if (print.tickets.size() > 0 && print.totalMinor > 0) {
        // Tickets whose price is unknown share what is left of the total, so the tickets add up to the receipt.
        qint64 known = 0;
        int unknown = 0;
        for (const PrintedTicket &ticket : print.tickets)
            ticket.priceMinor > 0 ? void(known += ticket.priceMinor) : void(++unknown);
        if (unknown > 0 && print.totalMinor > known)
            for (PrintedTicket &ticket : print.tickets)
                if (ticket.priceMinor == 0)
                    ticket.priceMinor = (print.totalMinor - known) / unknown;
    }
    return print;
}

} // namespace marquee::app
