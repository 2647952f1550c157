// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/httpresponse.h"
#include "orders/paymentcallthreads.h"

#include <functional>

namespace marquee {
struct ServerContext;
} // namespace marquee

namespace marquee::http {

/**
 * @brief Answer a request whose work calls a payment provider: @p work runs on ServerContext::paymentCalls while
 * the worker thread defers the answer (HttpResponse::deferred) and goes on serving its other connections. Every
 * such request may be repeated safely (confirm returns the stored result; a release or cancellation is idempotent).
 */
HttpResponse answerPaymentCall(ServerContext &context, std::function<HttpResponse()> work);

/** @brief As answerPaymentCall(), on @p threads (the sign-in's password hashing: ServerContext::passwordHashing). */
HttpResponse answerOnThreads(payments::PaymentCallThreads &threads, std::function<HttpResponse()> work);

} // namespace marquee::http
