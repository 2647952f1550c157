// SPDX-License-Identifier: AGPL-3.0-or-later
#include "ticketprinter.h"
#include "core/money.h"
#include "venueclock.h"

#include <QFile>
#include <QLocale>
#include <QPainter>
#include <QPdfWriter>
#include <QTcpSocket>
#include <QUrl>
#include <qrencode.h>

namespace marquee::app {

QImage qrImage(const QByteArray &text, int module)
{
    QRcode *code = QRcode_encodeString8bit(text.constData(), 0, QR_ECLEVEL_M);
    if (!code)
        return {};
    const int quiet = 4;
    const int size = (code->width + 2 * quiet) * module;
    QImage image(size, size, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setPen(Qt::NoPen);
    painter.setBrush(Qt::black);
    for (int y = 0; y < code->width; ++y)
        for (int x = 0; x < code->width; ++x)
            if (code->data[y * code->width + x] & 1)
                painter.drawRect((x + quiet) * module, (y + quiet) * module, module, module);
    painter.end();
    QRcode_free(code);
    return image;
}

namespace {
/**
 * A printed page laid out in fractions of its width, so PDF pages and 576-dot rasters look alike: white, black ink,
 * text from the top at y. The painter is restored when it goes.
 */
struct PrintPage {
    PrintPage(QPainter &painter, const QRectF &area)
        : painter(painter)
        , w(area.width())
        , pad(w * 0.06)
        , y(pad)
    {
        painter.save();
        painter.translate(area.topLeft());
        painter.fillRect(QRectF(0, 0, w, area.height()), Qt::white);
        painter.setPen(Qt::black);
    }
    ~PrintPage() { painter.restore(); }
    /** @brief Set the font for text @p size (a fraction of the width) high and give the box of its line at y. */
    QRectF textBox(qreal size, bool bold)
    {
        QFont f(QStringLiteral("DejaVu Sans"));
        f.setPointSizeF(10);
        f.setBold(bold);
        f.setPixelSize(int(w * size));
        painter.setFont(f);
        return QRectF(pad, y, w - 2 * pad, w * size * 1.5);
    }

    QPainter &painter;
    const qreal w;
    const qreal pad;
    qreal y;
};
} // namespace

QTimeZone printZone(const BookingPrint &booking)
{
    return booking.timeZone.isEmpty() ? appVenueZone() : venueZone(booking.timeZone);
}

QString ticketTimeText(const BookingPrint &booking)
{
    return venueTimeText(booking.startsAt, printZone(booking), QObject::tr("ddd d MMM yyyy · HH:mm", "date format"));
}

QString receiptShowTimeText(const BookingPrint &booking)
{
    return venueTimeText(booking.startsAt, printZone(booking), QLocale::ShortFormat);
}

void paintTicket(QPainter &painter, const QRectF &area, const BookingPrint &booking, const PrintedTicket &ticket)
{
    PrintPage page(painter, area);
    const qreal w = page.w;
    const qreal pad = page.pad;
    qreal &y = page.y;
    auto line = [&](const QString &text, qreal size, bool bold, qreal gap) {
        painter.drawText(page.textBox(size, bold), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine, text);
        y += w * size * 1.5 + w * gap;
    };
    line(QStringLiteral("MARQUEE"), 0.05, true, 0.01);
    line(booking.title, 0.08, true, 0.01);
    line(ticketTimeText(booking), 0.05, false, 0.0);
    line(booking.venue + QStringLiteral(" · ") + booking.screen, 0.045, false, 0.02);
    line(QObject::tr("Row %1   Seat %2").arg(ticket.row).arg(ticket.number), 0.075, true, 0.0);
    line(QObject::tr("%1 · %2").arg(ticket.tier, formatMoney(ticket.priceMinor, booking.currency)), 0.045, false, 0.02);
    const QImage qr = qrImage(ticket.qr.toUtf8(), 6);
    const qreal qrSize = std::min(w - 2 * pad, area.height() - y - w * 0.12);
    if (!qr.isNull() && qrSize > 0) {
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.drawImage(QRectF((w - qrSize) / 2, y, qrSize, qrSize), qr);
        y += qrSize + w * 0.01;
    }
    line(QObject::tr("Booking %1").arg(booking.bookingRef), 0.045, true, 0.0);
}

void paintReceipt(QPainter &painter, const QRectF &area, const BookingPrint &booking)
{
    PrintPage page(painter, area);
    const qreal w = page.w;
    qreal &y = page.y;
    const QLocale locale;
    auto row = [&](const QString &left, const QString &right, qreal size, bool bold) {
        const QRectF box = page.textBox(size, bold);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, left);
        if (!right.isEmpty())
            painter.drawText(box, Qt::AlignRight | Qt::AlignVCenter, right);
        y += w * size * 1.6;
    };
    row(QObject::tr("MARQUEE — RECEIPT"), {}, 0.055, true);
    row(venueTimeText(QDateTime::currentDateTimeUtc(), printZone(booking), QLocale::ShortFormat, locale), {}, 0.04, false);
    row(QObject::tr("Booking %1").arg(booking.bookingRef), {}, 0.045, true);
    row(booking.title, {}, 0.045, false);
    row(receiptShowTimeText(booking) + QStringLiteral(" · ") + booking.screen, {}, 0.04, false);
    y += w * 0.02;
    for (const PrintedTicket &t : booking.tickets)
        row(QObject::tr("Row %1 Seat %2 (%3)").arg(t.row).arg(t.number).arg(t.tier), formatMoney(t.priceMinor, booking.currency), 0.04, false);
    y += w * 0.02;
    row(QObject::tr("Total"), formatMoney(booking.totalMinor, booking.currency), 0.055, true);
    row(QObject::tr("Paid by %1").arg(booking.paymentMethod), {}, 0.04, false);
    row(QObject::tr("Payment %1").arg(booking.paymentIntentId), {}, 0.035, false);
}

bool writePdf(const BookingPrint &booking, const QString &path, QString *error)
{
    QPdfWriter writer(path);
    if (!QFile(path).open(QIODevice::WriteOnly)) {
        if (error)
            *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    writer.setTitle(QObject::tr("Tickets %1").arg(booking.bookingRef));
    writer.setCreator(QStringLiteral("Marquee"));
    writer.setResolution(300);
    writer.setPageSize(QPageSize(QSizeF(80, 150), QPageSize::Millimeter, QStringLiteral("Ticket"), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter;
    if (!painter.begin(&writer)) {
        if (error)
            *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    const QRectF page(0, 0, writer.width(), writer.height());
    bool first = true;
    for (const PrintedTicket &ticket : booking.tickets) {
        if (!first)
            writer.newPage();
        first = false;
        paintTicket(painter, page, booking, ticket);
    }
    if (!first)
        writer.newPage();
    paintReceipt(painter, page, booking);
    painter.end();
    return true;
}

QByteArray escPosRaster(const QImage &source)
{
    const QImage image = source.convertToFormat(QImage::Format_Grayscale8);
    const int widthBytes = (image.width() + 7) / 8;
    QByteArray out;
    out += QByteArray("\x1d\x76\x30\x00", 4); // GS v 0, normal density
    out += char(widthBytes & 0xff);
    out += char((widthBytes >> 8) & 0xff);
    out += char(image.height() & 0xff);
    out += char((image.height() >> 8) & 0xff);
    for (int y = 0; y < image.height(); ++y) {
        const uchar *line = image.constScanLine(y);
        for (int b = 0; b < widthBytes; ++b) {
            uchar byte = 0;
            for (int bit = 0; bit < 8; ++bit) {
                const int x = b * 8 + bit;
                if (x < image.width() && line[x] < 128)
                    byte |= uchar(0x80 >> bit);
            }
            out += char(byte);
        }
    }
    return out;
}

QByteArray escPosJob(const BookingPrint &booking)
{
    constexpr int dots = 576; // 72 mm printable at 203 dpi
    QByteArray job("\x1b\x40", 2); // ESC @: initialise
    auto page = [&](auto paint, int height) {
        QImage image(dots, height, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        paint(painter, QRectF(0, 0, dots, height));
        painter.end();
        job += escPosRaster(image);
        job += QByteArray("\n\n\n\x1d\x56\x42\x00", 7); // feed and partial cut (GS V 66 0)
    };
    for (const PrintedTicket &ticket : booking.tickets)
        page([&](QPainter &p, const QRectF &r) { paintTicket(p, r, booking, ticket); }, 1080);
    page([&](QPainter &p, const QRectF &r) { paintReceipt(p, r, booking); }, 520 + 40 * int(booking.tickets.size()));
    return job;
}

bool sendToPrinter(const QByteArray &data, const QString &target, QString *error, int timeoutMs)
{
    if (target.startsWith(QLatin1String("tcp://"))) {
        const QUrl url(target);
        QTcpSocket socket;
        socket.connectToHost(url.host(), quint16(url.port(9100)));
        if (!socket.waitForConnected(timeoutMs)) {
            *error = QObject::tr("The printer is offline (%1).").arg(socket.errorString());
            return false;
        }
        qint64 written = 0;
        while (written < data.size()) {
            const qint64 n = socket.write(data.constData() + written, data.size() - written);
            if (n < 0 || !socket.waitForBytesWritten(timeoutMs)) {
                *error = QObject::tr("The printer stopped taking data (%1).").arg(socket.errorString());
                return false;
            }
            written += n;
        }
        socket.disconnectFromHost();
        return true;
    }
    QFile device(target);
    if (!device.open(QIODevice::WriteOnly | QIODevice::Append)) {
        *error = QObject::tr("The printer is offline (%1).").arg(device.errorString());
        return false;
    }
    if (device.write(data) != data.size() || !device.flush()) {
        // A USB thermal printer without paper refuses writes: ENOSPC/EIO.
        *error = QObject::tr("The printer is out of paper or jammed (%1).").arg(device.errorString());
        return false;
    }
    return true;
}

} // namespace marquee::app

#include <QJsonArray>

namespace marquee::app {

QJsonObject toJson(const BookingPrint &b)
{
    QJsonArray tickets;
    for (const PrintedTicket &t : b.tickets)
        tickets.append(QJsonObject{{QStringLiteral("ticket_id"), t.ticketId}, {QStringLiteral("seat_id"), t.seatId},
                                   {QStringLiteral("row"), t.row},             {QStringLiteral("number"), t.number},
                                   {QStringLiteral("tier"), t.tier},           {QStringLiteral("price_minor"), t.priceMinor},
                                   {QStringLiteral("qr"), t.qr}});
    return {{QStringLiteral("title"), b.title},
            {QStringLiteral("starts_at"), b.startsAt.toUTC().toString(Qt::ISODate)},
            {QStringLiteral("time_zone"), b.timeZone},
            {QStringLiteral("venue"), b.venue},
            {QStringLiteral("screen"), b.screen},
            {QStringLiteral("currency"), b.currency},
            {QStringLiteral("booking_ref"), b.bookingRef},
            {QStringLiteral("booking_id"), b.bookingId},
            {QStringLiteral("show_id"), b.showId},
            {QStringLiteral("amount_minor"), b.totalMinor},
            {QStringLiteral("payment_intent_id"), b.paymentIntentId},
            {QStringLiteral("payment_method"), b.paymentMethod},
            {QStringLiteral("tickets"), tickets}};
}

BookingPrint bookingPrintFromJson(const QJsonObject &o)
{
    BookingPrint b;
    b.title = o.value(QStringLiteral("title")).toString();
    b.startsAt = QDateTime::fromString(o.value(QStringLiteral("starts_at")).toString(), Qt::ISODate);
    b.timeZone = o.value(QStringLiteral("time_zone")).toString(); // absent in journals written before it was kept
    b.venue = o.value(QStringLiteral("venue")).toString();
    b.screen = o.value(QStringLiteral("screen")).toString();
    b.currency = o.value(QStringLiteral("currency")).toString();
    b.bookingRef = o.value(QStringLiteral("booking_ref")).toString();
    b.bookingId = o.value(QStringLiteral("booking_id")).toString();
    b.showId = o.value(QStringLiteral("show_id")).toInteger();
    b.totalMinor = o.value(QStringLiteral("amount_minor")).toInteger();
    b.paymentIntentId = o.value(QStringLiteral("payment_intent_id")).toString();
    b.paymentMethod = o.value(QStringLiteral("payment_method")).toString();
    for (const QJsonValue &v : o.value(QStringLiteral("tickets")).toArray()) {
        const QJsonObject t = v.toObject();
        b.tickets.append({t.value(QStringLiteral("ticket_id")).toString(), t.value(QStringLiteral("seat_id")).toString(),
                          t.value(QStringLiteral("row")).toString(), t.value(QStringLiteral("number")).toInt(),
                          t.value(QStringLiteral("tier")).toString(), t.value(QStringLiteral("price_minor")).toInteger(),
                          t.value(QStringLiteral("qr")).toString()});
    }
    return b;
}

} // namespace marquee::app
