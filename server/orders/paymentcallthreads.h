// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "batching/keyedbatchqueue.h"

#include <functional>

namespace marquee::store {
class Database;
}

namespace marquee::payments {

/**
 * @brief The threads that run work calling a payment provider. A provider call blocks for up to the provider
 * timeout (10 s by default), up to three times per request; on an HTTP worker that would stall every other
 * connection the worker serves. These threads live as long as the server and each keeps its own database
 * connection, so an offloaded call costs a hand-over, not a new connection.
 */
class PaymentCallThreads
{
public:
    /** @brief @p threadName names the threads (and so their database connections): "payments", "passwords". */
    PaymentCallThreads(const store::Database &database, int threads, const QString &threadName = QStringLiteral("payments"));

    /** @brief Calls in flight at most; more wait their turn (only payment requests wait, never a worker). */
    static constexpr int kDefaultThreads = 16;

    /** @brief Run @p call on one of the threads (it answers its request itself, on that thread). */
    void run(std::function<void()> call);

private:
    /** One queue (key 0) and batches of one: each thread takes the oldest call. Last: its threads run calls. */
    KeyedBatchQueue<std::function<void()>> m_queue;
};

} // namespace marquee::payments
