// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "httpresponse.h"
#include "payments/orderservice.h"

#include <functional>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/**
 * @brief Answer a request whose work calls a payment provider. Provider calls block for up to the provider timeout
 * (10 s by default) each, and a worker thread that blocks stalls every other connection it serves; so @p work runs
 * on ServerContext::paymentCalls while the worker parks the request (HttpResponse::longPoll) and goes on serving.
 * The worker is woken when the work is done. If the work outlasts its bound (three provider timeouts plus 10 s) the
 * client gets 503 payment_busy while the work completes in the background; every such call may be repeated (confirm
 * returns the stored result, a release or cancellation is idempotent). Outside a worker (dispatch() called directly)
 * the work runs inline. **Currently always inline** (kOffloadPaymentCalls in paymentcalls.cpp): see there.
 */
HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work);

} // namespace marquee::http
