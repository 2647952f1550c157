// SPDX-License-Identifier: AGPL-3.0-or-later
#include "paymentcalls.h"

#include "apiserver.h"
#include "servercontext.h"

#include <QDateTime>
#include <QMutex>
#include <QThreadPool>
#include <memory>
#include <optional>

namespace marquee::http {

namespace {
HttpResponse toHttp(const payments::ServiceReply &reply)
{
    return HttpResponse::json(reply.status, reply.body);
}

struct PendingReply {
    QMutex mutex;
    std::optional<payments::ServiceReply> reply;
};
} // namespace

HttpResponse answerPaymentCall(ServerContext &context, std::function<payments::ServiceReply()> work)
{
    // Held back (inline, as before) until its cost is measured: with the offload on, the flash-sale test saw order
    // and confirm p50 near 4 s at load 10-20 (one run of two; each call opens a fresh database connection on its pool
    // thread). docs/acceptance/issue-3.md, G2.
    constexpr bool kOffloadPaymentCalls = false;
    std::function<void()> wake = kOffloadPaymentCalls ? ApiServer::wakeOfCurrentRequest() : std::function<void()>();
    if (!wake)
        return toHttp(work());
    auto pending = std::make_shared<PendingReply>();
    context.paymentCalls.start([&context, pending, work = std::move(work), wake] {
        payments::ServiceReply reply = work();
        // Pool threads come and go: never leave a connection behind on one (it would stay open for the process).
        context.database.closeThreadConnection();
        {
            QMutexLocker lock(&pending->mutex);
            pending->reply = std::move(reply);
        }
        wake();
    });
    HttpResponse response;
    response.longPollUntilMs = QDateTime::currentMSecsSinceEpoch() + 3 * qint64(context.config.payments.providerTimeoutMs) + 10000;
    response.longPoll = [pending](bool timedOut) -> std::optional<HttpResponse> {
        QMutexLocker lock(&pending->mutex);
        if (pending->reply)
            return toHttp(*pending->reply);
        if (!timedOut)
            return std::nullopt;
        return HttpResponse::error(ApiError{503, QStringLiteral("payment_busy"),
                                            QStringLiteral("The payment provider is slow; the request is still being completed. Repeat it shortly."),
                                            {}});
    };
    return response;
}

} // namespace marquee::http
