// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jobs/outboxrelay.h"
#include "store/joblease.h"
#include "logging.h"

#include "core/tokenhash.h"
#include "store/bookingrepository.h"
#include "store/database.h"
#include "store/eventrepository.h"
#include "store/ticketrepository.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QSslSocket>
#include <QTcpSocket>
#include <memory>


namespace marquee::jobs {

namespace {
qint64 monotonicMs()
{
    static QElapsedTimer timer = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return timer.elapsed();
}
} // namespace

int blockingPost(const QUrl &url, const QByteArray &body, const QList<QPair<QByteArray, QByteArray>> &headers, int timeoutMs,
                 QString *error)
{
    const bool tls = url.scheme() == QLatin1String("https");
    if (!url.isValid() || (!tls && url.scheme() != QLatin1String("http")) || url.host().isEmpty()) {
        *error = QStringLiteral("unsupported URL %1").arg(url.toString());
        return 0;
    }
    QDeadlineTimer deadline(timeoutMs);
    std::unique_ptr<QTcpSocket> socket;
    if (tls) {
        auto ssl = std::make_unique<QSslSocket>();
        ssl->connectToHostEncrypted(url.host(), quint16(url.port(443)));
        if (!ssl->waitForEncrypted(int(deadline.remainingTime()))) {
            *error = ssl->errorString();
            return 0;
        }
        socket = std::move(ssl);
    } else {
        socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(url.host(), quint16(url.port(80)));
        if (!socket->waitForConnected(int(deadline.remainingTime()))) {
            *error = socket->errorString();
            return 0;
        }
    }
    QByteArray path = url.path(QUrl::FullyEncoded).toLatin1();
    if (path.isEmpty())
        path = "/";
    if (url.hasQuery())
        path += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    QByteArray request = "POST " + path + " HTTP/1.1\r\nHost: " + url.authority().toLatin1()
        + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto &header : headers)
        request += header.first + ": " + header.second + "\r\n";
    request += "\r\n" + body;
    socket->write(request);
    while (socket->bytesToWrite() > 0) {
        if (!socket->waitForBytesWritten(int(deadline.remainingTime()))) {
            *error = socket->errorString();
            return 0;
        }
    }
    // Only the status line matters: a 2xx acknowledges the event.
    QByteArray response;
    while (!response.contains("\r\n")) {
        if (deadline.hasExpired() || (!socket->waitForReadyRead(int(deadline.remainingTime())) && socket->bytesAvailable() == 0)) {
            *error = QStringLiteral("no response: %1").arg(socket->errorString());
            return 0;
        }
        response += socket->readAll();
    }
    const QList<QByteArray> statusLine = response.left(response.indexOf("\r\n")).split(' ');
    bool ok = false;
    const int status = statusLine.size() >= 2 && statusLine[0].startsWith("HTTP/1.") ? statusLine[1].toInt(&ok) : 0;
    socket->abort();
    if (!ok) {
        *error = QStringLiteral("not an HTTP response");
        return 0;
    }
    return status;
}

OutboxRelay::OutboxRelay(store::EventRepository &events, store::TicketRepository &tickets, const store::Database &database,
                         OutboxRelayConfig config)
    : m_events(events)
    , m_tickets(tickets)
    , m_database(database)
    , m_config(std::move(config))
{
    setObjectName(QStringLiteral("outbox-relay"));
    for (const QString &url : m_config.webhookUrls)
        m_consumers.append({webhookConsumer(url), QUrl(url), 0, 0});
    if (!m_config.spoolDirectory.isEmpty())
        m_consumers.append({spoolConsumer(), QUrl(), 0, 0});
}

OutboxRelay::~OutboxRelay()
{
    stopAndWait();
}

void OutboxRelay::stopAndWait()
{
    m_stop = true;
    wait();
}

QString OutboxRelay::webhookConsumer(const QString &url)
{
    return QStringLiteral("webhook:") + url;
}

void OutboxRelay::run()
{
    if (!m_config.spoolDirectory.isEmpty() && !QDir().mkpath(m_config.spoolDirectory))
        qCWarning(lcRelay) << "cannot create the notification spool" << m_config.spoolDirectory;
    // Several instances on one database: each numbers (mq_publish_feed serialises that, and it keeps every
    // instance's GET /api/v1/events and /revocations current), but only the lease holder delivers, so that a
    // subscriber gets each event once and not once per instance.
    store::JobLease lease(m_database, store::FleetJob::OutboxRelay);
    while (!m_stop) {
        // Numbering runs even without consumers: it keeps GET /api/v1/events and /revocations cheap to read.
        m_events.publish();
        if (!m_consumers.empty() && lease.holdOrTake()) {
            for (Consumer &consumer : m_consumers) {
                if (m_stop)
                    break;
                if (monotonicMs() >= consumer.nextAttemptMs)
                    drain(consumer);
            }
        }
        for (int slept = 0; slept < m_config.intervalMs && !m_stop; slept += 10)
            QThread::msleep(10);
    }
    lease.release();
    m_database.closeThreadConnection();
}

void OutboxRelay::drain(Consumer &consumer)
{
    const auto cursor = m_events.consumerCursor(consumer.name);
    if (!cursor)
        return;
    const auto events = m_events.events(*cursor, m_config.batch);
    if (!events)
        return;
    for (const store::FeedEvent &event : *events) {
        if (m_stop)
            return;
        // Delivered before a crash but the cursor did not move: skip it (dedupe by event id), only advance.
        const auto already = m_events.wasDelivered(consumer.name, event.eventId);
        if (!already)
            return;
        if (!*already && !deliver(consumer, event)) {
            ++m_failures;
            // In order, at least once: stop here and retry this event after a growing delay (with jitter, so that
            // many servers do not hammer a recovering subscriber in step).
            consumer.backoffMs = consumer.backoffMs ? qMin(consumer.backoffMs * 2, m_config.maxBackoffMs) : m_config.initialBackoffMs;
            const int jitter = int(QRandomGenerator::global()->bounded(consumer.backoffMs / 4 + 1));
            consumer.nextAttemptMs = monotonicMs() + consumer.backoffMs + jitter;
            return;
        }
        if (!m_events.markDelivered(consumer.name, event))
            return; // redelivered next round; the subscriber dedupes by event id
        if (!*already)
            ++m_delivered;
        consumer.backoffMs = 0;
        consumer.nextAttemptMs = 0;
    }
}

bool OutboxRelay::deliver(const Consumer &consumer, const store::FeedEvent &event)
{
    if (consumer.url.isEmpty())
        return spool(event);
    const QByteArray body = QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact);
    QList<QPair<QByteArray, QByteArray>> headers{{"X-Event-Id", QByteArray::number(event.eventId)}, {"X-Event-Type", event.type.toUtf8()}};
    if (!m_config.webhookSecret.isEmpty())
        headers.append({"X-Signature", "sha256=" + hmacSha256Hex(m_config.webhookSecret, body)});
    QString error;
    const int status = blockingPost(consumer.url, body, headers, m_config.timeoutMs, &error);
    if (status >= 200 && status < 300)
        return true;
    qCInfo(lcRelay) << "webhook" << consumer.url.toString() << "did not take event" << event.eventId << ":"
                    << (status ? QStringLiteral("HTTP %1").arg(status) : error);
    return false;
}

bool OutboxRelay::spool(const store::FeedEvent &event)
{
    if (event.type != QLatin1String("booking.confirmed"))
        return true; // not a notification: nothing to do, but handled
    const QString bookingId = event.payload.value(QStringLiteral("booking_id")).toString(event.aggregateId);
    const auto tickets = m_tickets.validTicketsOfBooking(bookingId);
    if (!tickets)
        return false;
    QJsonArray ticketArray;
    for (const store::IssuedTicket &ticket : *tickets)
        ticketArray.append(QJsonObject{{QStringLiteral("ticket_id"), ticket.ticketId},
                                       {QStringLiteral("seat_id"), ticket.seatId},
                                       {QStringLiteral("qr"), ticket.qr}});
    QJsonObject message{{QStringLiteral("event_id"), event.eventId},
                        {QStringLiteral("kind"), QStringLiteral("tickets")},
                        {QStringLiteral("booking_id"), bookingId},
                        {QStringLiteral("booking"), event.payload},
                        {QStringLiteral("tickets"), ticketArray}};
    // Contact details when the booking has them (given with the order); the demo sends nothing, it only spools.
    QString email = event.payload.value(QStringLiteral("email")).toString();
    QString phone = event.payload.value(QStringLiteral("phone")).toString();
    if (m_bookings && email.isEmpty() && phone.isEmpty()) {
        const auto contact = m_bookings->contactOf(bookingId);
        if (!contact)
            return false; // retried with backoff
        email = contact->email;
        phone = contact->phone;
    }
    QJsonArray channels;
    if (!email.isEmpty())
        channels.append(QJsonObject{{QStringLiteral("channel"), QStringLiteral("email")}, {QStringLiteral("to"), email}});
    if (!phone.isEmpty())
        channels.append(QJsonObject{{QStringLiteral("channel"), QStringLiteral("sms")}, {QStringLiteral("to"), phone}});
    message.insert(QStringLiteral("channels"), channels);

    // One file per event id: a redelivery rewrites the same file with the same content (dedupe by event id).
    // Written atomically and readable by the owner only: the QR codes in it admit their bearer.
    QSaveFile file(QDir(m_config.spoolDirectory).filePath(QStringLiteral("event-%1.json").arg(event.eventId, 12, 10, QLatin1Char('0'))));
    if (!file.open(QIODevice::WriteOnly)) {
        qCWarning(lcRelay) << "cannot write to the notification spool:" << file.errorString();
        return false;
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(message).toJson(QJsonDocument::Indented));
    return file.commit();
}

} // namespace marquee::jobs
