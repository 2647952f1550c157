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
