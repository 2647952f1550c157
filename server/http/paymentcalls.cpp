// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/paymentcalls.h"

#include "runtime/servercontext.h"

namespace marquee::http {

HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work)
{
    HttpResponse response;
    response.deferred = [&context, work = std::move(work)](std::function<void(HttpResponse)> answer) mutable {
        context.paymentCalls.run(std::move(work), [answer = std::move(answer)](payments::ServiceReply reply) {
            answer(HttpResponse::json(reply.status, reply.body));
        });
    };
    return response;
}

} // namespace marquee::http
