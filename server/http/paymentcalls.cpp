// SPDX-License-Identifier: AGPL-3.0-or-later
#include "paymentcalls.h"

#include "servercontext.h"
#include "store/database.h"

namespace marquee::http {

PaymentCallThreads::PaymentCallThreads(const store::Database &database, int threads)
    : m_queue(QStringLiteral("payments"), threads, 1, false,
              [](qint64, std::vector<Call> &calls) {
                  for (Call &call : calls) {
                      const payments::ServiceReply reply = call.work();
                      call.answer(HttpResponse::json(reply.status, reply.body));
                  }
              },
              [&database] { database.closeThreadConnection(); })
{
}

void PaymentCallThreads::run(std::function<payments::ServiceReply()> work, std::function<void(HttpResponse)> answer)
{
    m_queue.push(0, Call{std::move(work), std::move(answer)});
}

HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work)
{
    HttpResponse response;
    response.deferred = [&context, work = std::move(work)](std::function<void(HttpResponse)> answer) mutable {
        context.paymentCalls.run(std::move(work), std::move(answer));
    };
    return response;
}

} // namespace marquee::http
