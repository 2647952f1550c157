// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/paymentcalls.h"

#include "runtime/servercontext.h"

namespace marquee::http {

HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work)
{
    return answerOnThreads(context.paymentCalls, std::move(work));
}

HttpResponse answerOnThreads(payments::PaymentCallThreads &threads, std::function<payments::ServiceReply()> work)
{
    HttpResponse response;
    response.deferred = [&threads, work = std::move(work)](std::function<void(HttpResponse)> answer) mutable {
        threads.run(std::move(work), [answer = std::move(answer)](payments::ServiceReply reply) {
            HttpResponse decided = HttpResponse::json(reply.status, reply.body);
            if (reply.status == 429)
                decided.withHeader("Retry-After", QByteArray::number(reply.body.value(QStringLiteral("retry_after_s")).toInt(1)));
            if (reply.status == 401)
                decided.withHeader("WWW-Authenticate", "Bearer realm=\"marquee\"");
            answer(std::move(decided));
        });
    };
    return response;
}

} // namespace marquee::http
