// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The server's logging categories, declared once: include this header instead of declaring a category by hand.
// Enable one at run time with QT_LOGGING_RULES, e.g. "marquee.store.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHttp)     ///< marquee.http: requests, connections, the live feed's sockets
Q_DECLARE_LOGGING_CATEGORY(lcStore)    ///< marquee.store: PostgreSQL connections, statements that failed, migrations
Q_DECLARE_LOGGING_CATEGORY(lcEmbedded) ///< marquee.store.embedded: the private PostgreSQL cluster's start and stop
Q_DECLARE_LOGGING_CATEGORY(lcJobs)     ///< marquee.jobs: reaper and reconciler
Q_DECLARE_LOGGING_CATEGORY(lcRelay)    ///< marquee.relay: the outbox relay and event webhooks
Q_DECLARE_LOGGING_CATEGORY(lcQueue)    ///< marquee.queue: the waiting room
Q_DECLARE_LOGGING_CATEGORY(lcPayments) ///< marquee.payments: orders, confirms, refunds and provider calls

#include <QByteArray>

namespace marquee {

/** @brief How each log line is written (--log-format). */
enum class LogFormat {
    Text, ///< Qt's default line, with ` request_id=…` when the line belongs to a request (for people)
    Json, ///< one JSON object a line: time (UTC), level, category, message, request_id (for the journal and log shippers)
};

/** @brief Route every Qt message of this process through @p format, on standard error. */
void installLogFormat(LogFormat format);

/**
 * @brief While it lives, every line logged on this thread carries @p requestId: the request being served (its
 * X-Request-Id), so that a store error deep below a route can be traced back to the request and the proxy's log.
 */
class RequestIdScope
{
public:
    explicit RequestIdScope(const QByteArray &requestId);
    ~RequestIdScope();
    RequestIdScope(const RequestIdScope &) = delete;
    RequestIdScope &operator=(const RequestIdScope &) = delete;

private:
    QByteArray m_previous;
};

/** @brief The request id of the current thread's RequestIdScope; empty outside one. */
QByteArray currentRequestId();

} // namespace marquee
