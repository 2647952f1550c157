// SPDX-License-Identifier: AGPL-3.0-or-later
// The printed ticket: PDF rendered back to an image with pdftoppm, its QR decoded with zxing-cpp; ESC/POS bytes.
#include "printedqr.h"
#include "ticketprinter.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include "tests/support/machinezone.h"

using namespace marquee::app;
using marquee::apptest::decodeQr;

using marquee::test::MachineZone;

namespace {
BookingPrint sampleBooking(const QString &qr)
{
    BookingPrint booking;
    booking.title = QStringLiteral("The Long Night");
    booking.startsAt = QDateTime(QDate(2026, 12, 24), QTime(19, 30), Qt::UTC);
    booking.venue = QStringLiteral("Marquee Centrum");
    booking.screen = QStringLiteral("Screen 1");
    booking.currency = QStringLiteral("EUR");
    booking.bookingRef = QStringLiteral("MQ7K2P");
    booking.totalMinor = 2500;
    booking.paymentIntentId = QStringLiteral("pi_123");
    booking.paymentMethod = QStringLiteral("card");
    booking.tickets.append({QStringLiteral("t-1"), QStringLiteral("F7"), QStringLiteral("F"), 7, QStringLiteral("standard"), 1250, qr});
    return booking;
}


/** @brief A 13:15 show in Pune (07:45 UTC), ₹800 a seat. */
BookingPrint puneBooking()
{
    BookingPrint booking = sampleBooking(QStringLiteral("MQ1.AQAAAAFwdW5l.c2lnbmF0dXJl"));
    booking.startsAt = QDateTime(QDate(2026, 12, 5), QTime(7, 45), Qt::UTC);
    booking.timeZone = QStringLiteral("Asia/Kolkata");
    booking.currency = QStringLiteral("INR");
    booking.totalMinor = 80000;
    booking.tickets.first().priceMinor = 80000;
    return booking;
}

QString pdfText(const QString &pdf)
{
    QProcess process;
    process.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
    if (!process.waitForFinished(60000) || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput());
}
} // namespace

TEST(TicketPrinter, PrintsTheShowTimeInTheVenuesZoneOnAUtcMachine)
{
    const MachineZone machine("UTC");
    const QLocale previous;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
    const BookingPrint booking = puneBooking();
    // Not 07:45, the machine's reading of the same instant; the zone is named since the machine's differs.
    EXPECT_EQ(ticketTimeText(booking), QStringLiteral("Sat 5 Dec 2026 · 13:15 IST"));
    EXPECT_TRUE(receiptShowTimeText(booking).contains(QStringLiteral("13:15"))) << qPrintable(receiptShowTimeText(booking));
    // The journal keeps the zone, so a reprint says the same.
    EXPECT_EQ(ticketTimeText(bookingPrintFromJson(toJson(booking))), ticketTimeText(booking));

    if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty()) {
        QLocale::setDefault(previous);
        GTEST_SKIP() << "pdftotext (poppler-utils) is not installed";
    }
    QTemporaryDir dir;
    const QString pdf = dir.filePath(QStringLiteral("pune.pdf"));
    QString error;
    ASSERT_TRUE(writePdf(booking, pdf, &error)) << error.toStdString();
    const QString text = pdfText(pdf);
    QLocale::setDefault(previous);
    ASSERT_FALSE(text.isEmpty());
    EXPECT_TRUE(text.contains(QStringLiteral("13:15 IST"))) << qPrintable(text);
    EXPECT_FALSE(text.contains(QStringLiteral("07:45"))) << qPrintable(text);
    EXPECT_TRUE(text.contains(QStringLiteral("₹800.00"))) << qPrintable(text);
}

TEST(TicketPrinter, QrImageDecodesBackToTheText)
{
    const QByteArray text = "MQ1.AQAAAAEx8d0.c2lnbmF0dXJl";
    const QImage image = qrImage(text, 6);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(decodeQr(image), QString::fromLatin1(text));
}

TEST(TicketPrinter, PdfTicketRendersWithAReadableQr)
{
    if (marquee::apptest::pdftoppmProgram().isEmpty())
        GTEST_SKIP() << "pdftoppm (poppler-utils) is not installed";
    QTemporaryDir dir;
    const QString qr = QStringLiteral("MQ1.AQAAAAFhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ei0xMjM0NTY3ODkw.") + QString(86, QLatin1Char('S'));
    const QString pdf = dir.filePath(QStringLiteral("ticket.pdf"));
    QString error;
    ASSERT_TRUE(writePdf(sampleBooking(qr), pdf, &error)) << error.toStdString();
    ASSERT_GT(QFileInfo(pdf).size(), 1000);

    const QImage page = marquee::apptest::renderPdfPage(pdf, 1, dir.path(), &error);
    ASSERT_FALSE(page.isNull()) << error.toStdString();
    EXPECT_EQ(decodeQr(page), qr);
    // Keep a copy with the screenshots for people to look at.
    QDir().mkpath(QStringLiteral(MARQUEE_SCREENSHOT_DIR));
    page.save(QStringLiteral(MARQUEE_SCREENSHOT_DIR "/ticket-pdf-page1.png"));
}

TEST(TicketPrinter, EscPosJobIsARasterWithCuts)
{
    const BookingPrint booking = sampleBooking(QStringLiteral("MQ1.x.y"));
    const QByteArray job = escPosJob(booking);
    EXPECT_TRUE(job.startsWith("\x1b\x40"));
    EXPECT_EQ(job.count("\x1d\x76\x30\x00"), 2) << "one raster per ticket plus the receipt";
    EXPECT_EQ(job.count(QByteArray("\x1d\x56\x42\x00", 4)), 2);
    // 576 dots = 72 bytes per line.
    const qsizetype at = job.indexOf("\x1d\x76\x30");
    EXPECT_EQ(quint8(job[at + 4]), 72);
    EXPECT_EQ(quint8(job[at + 5]), 0);
}

TEST(TicketPrinter, RasterIsBlackWhereTheImageIsDark)
{
    QImage image(16, 2, QImage::Format_RGB32);
    image.fill(Qt::white);
    image.setPixel(0, 0, qRgb(0, 0, 0));
    image.setPixel(15, 1, qRgb(0, 0, 0));
    const QByteArray raster = escPosRaster(image);
    ASSERT_EQ(raster.size(), 8 + 4);
    EXPECT_EQ(quint8(raster[8]), 0x80);
    EXPECT_EQ(quint8(raster[9]), 0x00);
    EXPECT_EQ(quint8(raster[10]), 0x00);
    EXPECT_EQ(quint8(raster[11]), 0x01);
}

TEST(TicketPrinter, SendsToATcpPrinterAndReportsAnOfflineOne)
{
    QTcpServer printer;
    ASSERT_TRUE(printer.listen(QHostAddress::LocalHost));
    QByteArray received;
    QObject::connect(&printer, &QTcpServer::newConnection, [&] {
        QTcpSocket *socket = printer.nextPendingConnection();
        QObject::connect(socket, &QTcpSocket::readyRead, [&, socket] { received += socket->readAll(); });
    });
    const QByteArray job = escPosJob(sampleBooking(QStringLiteral("MQ1.a.b")));
    QString error;
    // sendToPrinter blocks, so the "printer" runs its event loop between tries.
    ASSERT_TRUE(sendToPrinter(job, QStringLiteral("tcp://127.0.0.1:%1").arg(printer.serverPort()), &error)) << error.toStdString();
    for (int i = 0; i < 200 && received.size() < job.size(); ++i)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    EXPECT_EQ(received, job);

    const quint16 port = printer.serverPort();
    printer.close();
    EXPECT_FALSE(sendToPrinter(job, QStringLiteral("tcp://127.0.0.1:%1").arg(port), &error, 1000));
    EXPECT_TRUE(error.contains(QStringLiteral("offline"))) << error.toStdString();
    EXPECT_FALSE(sendToPrinter(job, QStringLiteral("/nonexistent-dir/lp0"), &error));
}

TEST(TicketPrinter, PrintDataRoundTripsThroughJson)
{
    const BookingPrint booking = sampleBooking(QStringLiteral("MQ1.a.b"));
    const BookingPrint back = bookingPrintFromJson(toJson(booking));
    EXPECT_EQ(back.bookingRef, booking.bookingRef);
    EXPECT_EQ(back.startsAt, booking.startsAt);
    ASSERT_EQ(back.tickets.size(), 1);
    EXPECT_EQ(back.tickets.first().qr, QStringLiteral("MQ1.a.b"));
    EXPECT_EQ(back.tickets.first().priceMinor, 1250);
}
