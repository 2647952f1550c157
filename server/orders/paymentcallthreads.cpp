// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/paymentcallthreads.h"

#include "store/database.h"

namespace marquee::payments {

PaymentCallThreads::PaymentCallThreads(const store::Database &database, int threads, const QString &threadName)
    : m_queue(threadName, threads, 1, false,
              [](qint64, std::vector<Call> &calls) {
                  for (Call &call : calls)
                      call.answer(call.work());
              },
              [&database] { database.closeThreadConnection(); })
{
}

void PaymentCallThreads::run(std::function<ServiceReply()> work, std::function<void(ServiceReply)> answer)
{
    m_queue.push(0, Call{std::move(work), std::move(answer)});
}

} // namespace marquee::payments
