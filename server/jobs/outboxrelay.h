// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QUrl>
#include <atomic>

namespace marquee::store {
class Database;
class EventRepository;
class TicketRepository;
class BookingRepository;
struct FeedEvent;
}

namespace marquee::jobs {

/** @brief Where the relay sends the outbox. */
struct OutboxRelayConfig {
    QStringList webhookUrls;       ///< each gets every event, at least once, in feed order (http:// or https://)
    QByteArray webhookSecret;      ///< HMAC-SHA256 key for X-Signature; empty: unsigned
    QString spoolDirectory;        ///< booking.confirmed → one ticket message file each; empty: off
    int intervalMs = 500;          ///< how often to look for new events
    int initialBackoffMs = 500;    ///< first retry delay after a failed delivery, doubled per failure
    int maxBackoffMs = 60000;
    int batch = 100;
    int timeoutMs = 10000;         ///< per webhook request
};

/**
 * @brief Publishes the transactional outbox: numbers newly committed events (mq_publish_feed) and delivers them,
 * at least once and in feed order, to each consumer — every configured webhook subscriber and the notification
 * spool. Each consumer has its own durable cursor and delivery log (outbox_consumers, outbox_deliveries); a
 * failed delivery stops that consumer only and is retried with exponential backoff. Webhook bodies are the feed's
 * event JSON, signed like the payment provider's (`X-Signature: sha256=<hex HMAC-SHA256 of the raw body>`), with
 * `X-Event-Id` so that subscribers can dedupe.
 */
class OutboxRelay : public QThread
{
public:
    OutboxRelay(store::EventRepository &events, store::TicketRepository &tickets, const store::Database &database,
                OutboxRelayConfig config);
    ~OutboxRelay() override;
    void stopAndWait();
    /**
     * @brief Where the notification spool finds the customer's e-mail and phone: the booking, not the event (the
     * feed is readable by every device, so personal data stays out of event payloads). Call before start().
     */
    void setBookings(store::BookingRepository *bookings) { m_bookings = bookings; }
    /** @brief Deliveries acknowledged so far (all consumers). */
    qint64 delivered() const { return m_delivered.load(); }
    /** @brief Failed delivery attempts so far (all consumers). */
    qint64 failures() const { return m_failures.load(); }

    /** @brief The consumer name of a webhook URL in outbox_consumers ("webhook:" + URL). */
    static QString webhookConsumer(const QString &url);
    static QString spoolConsumer() { return QStringLiteral("notification-spool"); }

protected:
    void run() override;

private:
    struct Consumer {
        QString name;
        QUrl url; ///< empty for the spool
        qint64 nextAttemptMs = 0;
        int backoffMs = 0;
    };
    void drain(Consumer &consumer);
    bool deliver(const Consumer &consumer, const store::FeedEvent &event);
    bool spool(const store::FeedEvent &event);

    store::EventRepository &m_events;
    store::TicketRepository &m_tickets;
    store::BookingRepository *m_bookings = nullptr;
    const store::Database &m_database;
    const OutboxRelayConfig m_config;
    QList<Consumer> m_consumers;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_delivered{0};
    std::atomic<qint64> m_failures{0};
};

/**
 * @brief A blocking HTTP/1.1 POST for threads without an event loop (http and https). Returns the status code,
 * or 0 with @p error when no response arrived within @p timeoutMs.
 */
int blockingPost(const QUrl &url, const QByteArray &body, const QList<QPair<QByteArray, QByteArray>> &headers, int timeoutMs,
                 QString *error);

} // namespace marquee::jobs
