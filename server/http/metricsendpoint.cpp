// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/metricsendpoint.h"
#include "logging.h"

#include "http/serverpool.h"
#include "metrics/requestmetrics.h"
#include "runtime/servercontext.h"

#include <QEventLoop>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QLoggingCategory>
#include <QSemaphore>

namespace marquee::http {

using metrics::prometheus::family;
using metrics::prometheus::sample;
using metrics::prometheus::escapeLabel;

MetricsEndpoint::MetricsEndpoint(ServerContext &context, const ServerPool &pool)
    : m_context(context)
    , m_pool(pool)
{
}

MetricsEndpoint::~MetricsEndpoint()
{
    if (m_thread) {
        m_thread->quit();
        m_thread->wait();
    }
}

bool MetricsEndpoint::start(const QHostAddress &address, quint16 port)
{
    auto ready = std::make_shared<QSemaphore>();
    auto result = std::make_shared<std::pair<quint16, QString>>();
    m_thread.reset(QThread::create([this, address, port, ready, result] {
        QThread::currentThread()->setObjectName(QStringLiteral("metrics"));
        QHttpServer server;
        server.route(QStringLiteral("/metrics"), QHttpServerRequest::Method::Get, [this] {
            QHttpServerResponse response("text/plain; version=0.0.4; charset=utf-8", collect(m_context, m_pool));
            return response;
        });
        const quint16 bound = server.listen(address, port);
        result->first = bound;
        if (bound == 0)
            result->second = QStringLiteral("cannot serve metrics on %1:%2").arg(address.toString()).arg(port);
        ready->release();
        if (bound == 0)
            return;
        QEventLoop loop; // QThread::quit() ends it
        loop.exec();
        m_context.database.closeThreadConnection();
    }));
    m_thread->start();
    ready->acquire();
    m_port = result->first;
    m_error = result->second;
    if (m_port == 0) {
        m_thread->wait();
        m_thread.reset();
        return false;
    }
    qCInfo(lcHttp) << "metrics on" << address.toString() << m_port;
    return true;
}

QByteArray MetricsEndpoint::collect(ServerContext &context, const ServerPool &pool)
{
    QByteArray out;
    out.reserve(64 * 1024);
    pool.requestMetrics().writePrometheus(out);

    family(out, "marquee_hold_refused_from_memory_total", "counter",
           "Holds refused by the fast path without asking the database (seats proven taken).");
    sample(out, "marquee_hold_refused_from_memory_total", {}, double(context.holdService.fastPath().refusals()));
    family(out, "marquee_hold_refused_while_queued_total", "counter",
           "Holds refused from memory after waiting in a show's batch queue.");
    sample(out, "marquee_hold_refused_while_queued_total", {}, double(context.holdService.batcher().refusedWhileQueued()));
    family(out, "marquee_hold_batches_total", "counter", "Hold batches decided, one database transaction each.");
    sample(out, "marquee_hold_batches_total", {}, double(context.holdService.batcher().batches()));
    family(out, "marquee_hold_batched_requests_total", "counter",
           "Hold requests decided in batches (divided by marquee_hold_batches_total: the mean batch size).");
    sample(out, "marquee_hold_batched_requests_total", {}, double(context.holdService.batcher().batchedRequests()));

    family(out, "marquee_waiting_room_join_batches_total", "counter", "Waiting-room join batches written.");
    sample(out, "marquee_waiting_room_join_batches_total", {}, double(context.waitingRoom.joinBatches()));
    family(out, "marquee_waiting_room_joins_total", "counter", "Waiting-room joins written in batches.");
    sample(out, "marquee_waiting_room_joins_total", {}, double(context.waitingRoom.batchedJoins()));

    family(out, "marquee_live_subscribers", "gauge", "WebSocket seat-map subscribers of this process.");
    sample(out, "marquee_live_subscribers", {}, double(context.seatMaps.feed().subscriberCount()));
    family(out, "marquee_http_open_connections", "gauge", "Open HTTP connections of this process.");
    sample(out, "marquee_http_open_connections", {}, double(context.connections.open()));

    // What needs the database last: a database that does not answer leaves the in-memory figures above intact.
    const int sessions = context.database.sessionsOfThisProcess();
    family(out, "marquee_database_up", "gauge", "1 when the database answered this scrape.");
    sample(out, "marquee_database_up", {}, sessions >= 0 ? 1 : 0);
    if (sessions < 0)
        return out;
    family(out, "marquee_database_sessions", "gauge", "Database sessions this process holds (one per thread that uses it).");
    sample(out, "marquee_database_sessions", {}, sessions);

    if (const auto lag = context.events.outboxLag()) {
        family(out, "marquee_outbox_unpublished_events", "gauge", "Committed outbox events not yet numbered into the feed.");
        sample(out, "marquee_outbox_unpublished_events", {}, double(lag->unpublished));
        family(out, "marquee_outbox_consumer_lag_events", "gauge", "Feed events a consumer (webhook, spool) has not handled yet.");
        for (const auto &[consumer, behind] : lag->behindByConsumer)
            sample(out, "marquee_outbox_consumer_lag_events", "consumer=\"" + escapeLabel(consumer) + '"', double(behind));
    }
    if (const auto rooms = context.waitingRooms.rooms()) {
        family(out, "marquee_waiting_room_ranked", "gauge", "People ranked in a show's waiting room so far.");
        for (const auto &room : *rooms)
            if (room.enabled)
                sample(out, "marquee_waiting_room_ranked", "show=\"" + QByteArray::number(room.showId) + '"', double(room.rankedUpto));
        family(out, "marquee_waiting_room_admitted", "gauge", "People admitted from a show's waiting room so far.");
        for (const auto &room : *rooms)
            if (room.enabled)
                sample(out, "marquee_waiting_room_admitted", "show=\"" + QByteArray::number(room.showId) + '"', double(room.admittedUpto));
        family(out, "marquee_waiting_room_admit_rate", "gauge", "Admissions per second the room is pacing at.");
        for (const auto &room : *rooms)
            if (room.enabled)
                sample(out, "marquee_waiting_room_admit_rate", "show=\"" + QByteArray::number(room.showId) + '"', room.admitRatePerSecond);
    }
    return out;
}

} // namespace marquee::http
