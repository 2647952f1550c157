// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "httpresponse.h"
#include "keyedbatchqueue.h"
#include "payments/orderservice.h"

#include <functional>

namespace marquee {
struct ServerContext;
namespace store {
class Database;
}
} // namespace marquee

namespace marquee::http {

/**
 * @brief The threads that run requests calling a payment provider (answerPaymentCall). A provider call blocks for
 * up to the provider timeout (10 s by default), up to three times per request; on an HTTP worker that would stall
 * every other connection the worker serves. These threads live as long as the server and each keeps its own
 * database connection, so an offloaded call costs a hand-over, not a new connection.
 */
class PaymentCallThreads
{
public:
    PaymentCallThreads(const store::Database &database, int threads);

    /** @brief Calls in flight at most; more wait their turn (only payment requests wait, never a worker). */
    static constexpr int kDefaultThreads = 16;

    /** @brief Run @p work on one of the threads and pass its reply, as an HTTP response, to @p answer. */
    void run(std::function<payments::ServiceReply()> work, std::function<void(HttpResponse)> answer);

private:
    struct Call {
        std::function<payments::ServiceReply()> work;
        std::function<void(HttpResponse)> answer;
    };
    /** One queue (key 0) and batches of one: each thread takes the oldest call. Last: its threads run calls. */
    KeyedBatchQueue<Call> m_queue;
};

/**
 * @brief Answer a request whose work calls a payment provider: @p work runs on ServerContext::paymentCalls while
 * the worker thread defers the answer (HttpResponse::deferred) and goes on serving its other connections. Every
 * such request may be repeated safely (confirm returns the stored result; a release or cancellation is idempotent).
 */
HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work);

} // namespace marquee::http
