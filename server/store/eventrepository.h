// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <optional>

namespace marquee::store {

/** @brief One outbox event as the feed serves it. */
struct FeedEvent {
    qint64 cursor = 0;  ///< its position in the feed (resume with after=cursor)
    qint64 eventId = 0; ///< its identity; consumers dedupe by it
    QString type;
    QString aggregateId;
    QJsonObject payload;
    QDateTime createdAt;

    /** @brief {event_id, cursor, type, aggregate_id, payload, created_at}. */
    QJsonObject toJson() const;
};

/**
 * @brief The transactional outbox as an ordered, resumable feed, and the bookkeeping of its consumers.
 *
 * Writers insert into `outbox` inside their own transactions. Feed positions are handed out after commit by
 * mq_publish_feed() (002_tickets.sql), one publisher at a time, so paging by position never skips an event whose
 * transaction committed late (the outbox gap); see the comment there.
 */
class EventRepository
{
public:
    explicit EventRepository(const Database &database);

    /**
     * @brief Number the events (and revocations) committed since the last call. Returns how many were numbered,
     * -1 on error. A background publisher (@p waitForOthers false) returns 0 at once when another publisher is
     * busy (it will have numbered them when it commits); a reader passes true and queues behind it, so that its
     * page includes every event committed before the call.
     */
    int publish(bool waitForOthers = false, int batch = 1000);
    /** @brief Events after feed position @p afterCursor, in feed order, at most @p limit (publishes first). */
    std::optional<QList<FeedEvent>> events(qint64 afterCursor, int limit);

    /** @brief A page of the feed as one caller may see it: its events and where to resume. */
    struct ScopedPage {
        QList<FeedEvent> events;
        qint64 nextCursor = 0; ///< past the last event served, or past everything looked at that was someone else's
    };
    /**
     * @brief As events(), but only the events of holds, orders and bookings whose owner is @p owner ("device:7",
     * "session:12"). At most @p scanLimit feed positions are looked at per call, so a caller with few sales of its
     * own costs a bounded read; nextCursor then moves past the others' events it skipped.
     */
    std::optional<ScopedPage> eventsOf(const QString &owner, qint64 afterCursor, int limit, int scanLimit);

    /** @brief How far the outbox's delivery is behind (for GET /metrics). */
    struct OutboxLag {
        qint64 unpublished = 0; ///< committed events not yet numbered into the feed
        QList<QPair<QString, qint64>> behindByConsumer; ///< consumer → numbered events it has not handled yet
    };
    /** @brief The outbox's lag now; std::nullopt on error. */
    std::optional<OutboxLag> outboxLag();
    /** @brief Where consumer @p consumer has got to in the feed (0 when new); std::nullopt on error. */
    std::optional<qint64> consumerCursor(const QString &consumer);
    /** @brief True when @p consumer has already handled @p eventId (at-least-once delivery, dedupe by id). */
    std::optional<bool> wasDelivered(const QString &consumer, qint64 eventId);
    /** @brief Record that @p consumer handled @p event and move its cursor past it, in one transaction. */
    bool markDelivered(const QString &consumer, const FeedEvent &event);

private:
    const Database &m_database;
};

} // namespace marquee::store
