// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/paymentcalls.h"

#include "runtime/servercontext.h"

namespace marquee::http {

HttpResponse answerPaymentCall(ServerContext &context, std::function<HttpResponse()> work)
{
    return answerOnThreads(context.paymentCalls, std::move(work));
}

HttpResponse answerOnThreads(payments::PaymentCallThreads &threads, std::function<HttpResponse()> work)
{
    HttpResponse response;
    response.deferred = [&threads, work = std::move(work)](std::function<void(HttpResponse)> answer) mutable {
        threads.run([work = std::move(work), answer = std::move(answer)] { answer(work()); });
    };
    return response;
}

} // namespace marquee::http
