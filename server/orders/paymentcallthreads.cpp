// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/paymentcallthreads.h"

#include "store/database.h"

namespace marquee::payments {

PaymentCallThreads::PaymentCallThreads(const store::Database &database, int threads, const QString &threadName)
    : m_queue(threadName, threads, 1, false,
              [](qint64, std::vector<std::function<void()>> &calls) {
                  for (std::function<void()> &call : calls)
                      call();
              },
              [&database] { database.closeThreadConnection(); })
{
}

void PaymentCallThreads::run(std::function<void()> call)
{
    m_queue.push(0, std::move(call));
}

} // namespace marquee::payments
