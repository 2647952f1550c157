// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/eventrepository.h"
#include "logging.h"

#include "core/isotime.h"

#include <QJsonDocument>
#include <QLoggingCategory>


namespace marquee::store {

QJsonObject FeedEvent::toJson() const
{
    return QJsonObject{{QStringLiteral("event_id"), eventId},
                       {QStringLiteral("cursor"), cursor},
                       {QStringLiteral("type"), type},
                       {QStringLiteral("aggregate_id"), aggregateId},
                       {QStringLiteral("payload"), payload},
                       {QStringLiteral("created_at"), toIsoUtc(createdAt)}};
}

EventRepository::EventRepository(const Database &database)
    : m_database(database)
{
}

int EventRepository::publish(bool waitForOthers, int batch)
{
    QSqlQuery *query = m_database.prepared(QStringLiteral("SELECT mq_publish_feed(?, ?)"));
    if (!query)
        return -1;
    query->addBindValue(batch);
    query->addBindValue(waitForOthers);
    if (!execQuery(*query, "publish feed") || !query->next()) {
        m_database.resetAfterError(query->lastError());
        return -1;
    }
    const int numbered = query->value(0).toInt();
    query->finish();
    return numbered < 0 ? 0 : numbered;
}

std::optional<QList<FeedEvent>> EventRepository::events(qint64 afterCursor, int limit)
{
    if (publish(/*waitForOthers=*/true) < 0)
        return std::nullopt;
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT feed_position, event_id, event_type, aggregate_id, payload::text, created_at FROM outbox "
        " WHERE feed_position > ? ORDER BY feed_position LIMIT ?"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(afterCursor);
    query.addBindValue(limit);
    if (!execQuery(query, "read feed")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    QList<FeedEvent> events;
    while (query.next())
        events.append({query.value(0).toLongLong(), query.value(1).toLongLong(), query.value(2).toString(), query.value(3).toString(),
                       QJsonDocument::fromJson(query.value(4).toString().toUtf8()).object(), query.value(5).toDateTime()});
    query.finish();
    return events;
}

std::optional<EventRepository::ScopedPage> EventRepository::eventsOf(const QString &owner, qint64 afterCursor, int limit, int scanLimit)
{
    if (publish(/*waitForOthers=*/true) < 0)
        return std::nullopt;
    // The aggregate is a hold, an order or a booking id (a uuid); the CASE keeps anything else from being cast.
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "WITH scanned AS ("
        "  SELECT feed_position, event_id, event_type, aggregate_id, payload, created_at, "
        "         CASE WHEN aggregate_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN aggregate_id::uuid END AS agg "
        "    FROM outbox WHERE feed_position > :after ORDER BY feed_position LIMIT :scan) "
        "SELECT feed_position, event_id, event_type, aggregate_id, payload::text, created_at, "
        "       agg IS NOT NULL AND (EXISTS (SELECT 1 FROM orders o WHERE o.order_id = agg AND o.owner = :owner) "
        "                         OR EXISTS (SELECT 1 FROM holds h WHERE h.hold_id = agg AND h.owner = :owner) "
        "                         OR EXISTS (SELECT 1 FROM bookings b JOIN orders o ON o.order_id = b.order_id "
        "                                     WHERE b.booking_id = agg AND o.owner = :owner)) "
        "  FROM scanned ORDER BY feed_position"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.bindValue(QStringLiteral(":after"), afterCursor);
    query.bindValue(QStringLiteral(":scan"), scanLimit);
    query.bindValue(QStringLiteral(":owner"), owner);
    if (!execQuery(query, "read own feed")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    ScopedPage page;
    page.nextCursor = afterCursor;
    while (query.next()) {
        if (page.events.size() == limit)
            break; // full: resume after the last event served, so nothing of this caller's is stepped over
        page.nextCursor = query.value(0).toLongLong();
        if (!query.value(6).toBool())
            continue;
        page.events.append({query.value(0).toLongLong(), query.value(1).toLongLong(), query.value(2).toString(), query.value(3).toString(),
                            QJsonDocument::fromJson(query.value(4).toString().toUtf8()).object(), query.value(5).toDateTime()});
    }
    query.finish();
    return page;
}

std::optional<EventRepository::OutboxLag> EventRepository::outboxLag()
{
    QSqlQuery query(m_database.connection());
    // Both parts are index lookups (outbox_unpublished, outbox_feed_position), cheap to scrape often.
    prepareQuery(query, QStringLiteral("SELECT NULL::text, count(*) FROM outbox WHERE feed_position IS NULL "
                                       "UNION ALL SELECT consumer, GREATEST((SELECT coalesce(max(feed_position), 0) FROM outbox) - cursor, 0) "
                                       "FROM outbox_consumers"));
    if (!execQuery(query, "read the outbox lag"))
        return std::nullopt;
    OutboxLag lag;
    while (query.next()) {
        if (query.value(0).isNull())
            lag.unpublished = query.value(1).toLongLong();
        else
            lag.behindByConsumer.append({query.value(0).toString(), query.value(1).toLongLong()});
    }
    return lag;
}

std::optional<qint64> EventRepository::consumerCursor(const QString &consumer)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT cursor FROM outbox_consumers WHERE consumer = ?"));
    query.addBindValue(consumer);
    if (!execQuery(query, "read consumer cursor"))
        return std::nullopt;
    return query.next() ? query.value(0).toLongLong() : 0;
}

std::optional<bool> EventRepository::wasDelivered(const QString &consumer, qint64 eventId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT 1 FROM outbox_deliveries WHERE consumer = ? AND event_id = ?"));
    query.addBindValue(consumer);
    query.addBindValue(eventId);
    if (!execQuery(query, "read delivery"))
        return std::nullopt;
    return query.next();
}

bool EventRepository::markDelivered(const QString &consumer, const FeedEvent &event)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return false;
    QSqlQuery delivered(db);
    prepareQuery(delivered, QStringLiteral("INSERT INTO outbox_deliveries (consumer, event_id) VALUES (?, ?) "
                                           "ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = outbox_deliveries.attempts + 1"));
    delivered.addBindValue(consumer);
    delivered.addBindValue(event.eventId);
    if (!execQuery(delivered, "record delivery"))
        return false;
    // GREATEST: a cursor never moves backwards, even if two relays ran (each delivery is deduped above).
    QSqlQuery cursor(db);
    prepareQuery(cursor, QStringLiteral("INSERT INTO outbox_consumers (consumer, cursor) VALUES (?, ?) "
                                        "ON CONFLICT (consumer) DO UPDATE SET cursor = GREATEST(outbox_consumers.cursor, EXCLUDED.cursor), updated_at = now()"));
    cursor.addBindValue(consumer);
    cursor.addBindValue(event.cursor);
    if (!execQuery(cursor, "advance consumer cursor"))
        return false;
    return transaction.commit();
}

} // namespace marquee::store
