// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QImage>
#include <QList>
#include <QString>
#include <QTimeZone>

class QPainter;

namespace marquee::app {

/** @brief One ticket as printed. */
struct PrintedTicket {
    QString ticketId;
    QString seatId;
    QString row;
    int number = 0;
    QString tier;
    qint64 priceMinor = 0;
    QString qr; ///< the signed payload, MQ1.<payload>.<signature>
};

/** @brief Everything on the tickets and the receipt of one booking. */
struct BookingPrint {
    QString title;
    QDateTime startsAt;
    QString timeZone; ///< IANA zone of the venue (the show's time_zone): the printed time is the venue's
    QString venue;
    QString screen;
    QString currency;
    QString bookingRef;
    QString bookingId;  ///< the server's booking id (for the ticket journal and reconciliation)
    qint64 showId = 0;
    qint64 totalMinor = 0;
    QString paymentIntentId;
    QString paymentMethod; ///< "Card" etc.
    QList<PrintedTicket> tickets;
};

/** @brief The zone the booking's times are printed in: its timeZone, else the app's venue zone. */
QTimeZone printZone(const BookingPrint &booking);
/** @brief The show's date and time as the ticket prints it: "Sat 5 Dec 2026 · 13:15", in the venue's zone. */
QString ticketTimeText(const BookingPrint &booking);
/** @brief The show's date and time as the receipt prints it (short format, in the venue's zone). */
QString receiptShowTimeText(const BookingPrint &booking);

/** @brief A QR code of @p text (libqrencode, error correction M) as a black-on-white image, @p module px per module, with quiet zone. */
QImage qrImage(const QByteArray &text, int module = 8);

/** @brief Draw one ticket into @p area (any paint device: PDF page, raster image). */
void paintTicket(QPainter &painter, const QRectF &area, const BookingPrint &booking, const PrintedTicket &ticket);
/** @brief Draw the receipt into @p area. */
void paintReceipt(QPainter &painter, const QRectF &area, const BookingPrint &booking);

/** @brief Tickets (one 80×150 mm page each) and the receipt into one PDF for a CUPS printer. */
bool writePdf(const BookingPrint &booking, const QString &path, QString *error);

/** @brief ESC/POS for an 80 mm thermal printer (576 dots): each ticket and the receipt as a raster image with a cut. */
QByteArray escPosJob(const BookingPrint &booking);
/** @brief ESC/POS "GS v 0" raster of @p image (thresholded to black and white, width padded to bytes). */
QByteArray escPosRaster(const QImage &image);
/**
 * @brief Send raw bytes to a printer: "tcp://host:9100" or a device/file path. Fails with a message for people
 * ("The printer is offline", "The printer is out of paper") when it can tell.
 */
bool sendToPrinter(const QByteArray &data, const QString &target, QString *error, int timeoutMs = 4000);

} // namespace marquee::app

namespace marquee::app {
/** @brief The print data as JSON, for the journal (reprints need nothing else). */
QJsonObject toJson(const BookingPrint &booking);
BookingPrint bookingPrintFromJson(const QJsonObject &object);
} // namespace marquee::app
