// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/orderanswers.h"

#include "core/isotime.h"

namespace marquee::http {

using namespace payments;

HttpResponse orderAnswer(const CreatedOrder &created)
{
    const store::OrderRecord &order = created.order;
    const QJsonObject stored = order.toJson();
    QJsonObject body{{QStringLiteral("order_id"), order.orderId},
                     {QStringLiteral("hold_id"), order.holdId},
                     {QStringLiteral("show_id"), order.showId},
                     {QStringLiteral("amount_minor"), order.amountMinor},
                     {QStringLiteral("currency"), order.currency},
                     {QStringLiteral("payment_intent_id"), created.paymentIntentId},
                     {QStringLiteral("payment_method"), stored.value(QStringLiteral("payment_method"))},
                     {QStringLiteral("state"), toString(OrderState::PendingPayment)},
                     {QStringLiteral("expires_at"), toIsoUtc(order.expiresAt)}};
    for (const QString &field : {QStringLiteral("cash_minor"), QStringLiteral("card_minor"), QStringLiteral("tendered_minor"), QStringLiteral("change_minor")}) {
        if (stored.contains(field))
            body.insert(field, stored.value(field));
    }
    return HttpResponse::json(201, body);
}

HttpResponse orderAnswer(const SettledOrder &settled)
{
    return HttpResponse::json(200, settled.order.confirmAnswer ? settled.order.confirmAnswer->booking : QJsonObject());
}

HttpResponse orderAnswer(const store::OrderRecord &order)
{
    return HttpResponse::json(200, order.toJson());
}

HttpResponse orderAnswer(const WebhookReceipt &receipt)
{
    switch (receipt.kind) {
    case WebhookReceipt::Kind::Duplicate:
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("status"), QStringLiteral("duplicate")}, {QStringLiteral("event_id"), receipt.eventId}});
    case WebhookReceipt::Kind::Ignored:
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("status"), QStringLiteral("ignored")}, {QStringLiteral("event_id"), receipt.eventId}});
    case WebhookReceipt::Kind::Processed:
        break;
    }
    return HttpResponse::json(200, QJsonObject{{QStringLiteral("status"), QStringLiteral("processed")},
                                               {QStringLiteral("event_id"), receipt.eventId},
                                               {QStringLiteral("order_id"), receipt.orderId},
                                               {QStringLiteral("state"), toString(receipt.state)}});
}

HttpResponse orderAnswer(const Cancellation &cancellation)
{
    QJsonObject body{{QStringLiteral("booking_id"), cancellation.bookingId},
                     {QStringLiteral("state"), QStringLiteral("cancelled")},
                     {QStringLiteral("order_id"), cancellation.orderId},
                     {QStringLiteral("order_state"), cancellation.orderState ? toString(*cancellation.orderState) : QString()},
                     {QStringLiteral("fee_minor"), cancellation.feeMinor},
                     {QStringLiteral("refund_minor"), cancellation.refundMinor},
                     {QStringLiteral("currency"), cancellation.currency}};
    if (const auto &refund = cancellation.refund)
        body.insert(QStringLiteral("refund"), QJsonObject{{QStringLiteral("amount_minor"), refund->amountMinor},
                                                          {QStringLiteral("currency"), refund->currency},
                                                          {QStringLiteral("status"), refund->status}});
    return HttpResponse::json(200, body);
}

HttpResponse orderAnswer(const ReleasedHold &released)
{
    return HttpResponse::json(200, QJsonObject{{QStringLiteral("hold_id"), released.holdId},
                                               {QStringLiteral("order_id"), released.orderId},
                                               {QStringLiteral("order_state"), toString(released.orderState)},
                                               {QStringLiteral("state"), QStringLiteral("released")}});
}

HttpResponse orderAnswer(const BookingView &booking)
{
    return HttpResponse::json(200, booking.booking);
}

HttpResponse orderAnswer(const Refusal &refusal)
{
    return HttpResponse::error(apiError(refusal));
}

} // namespace marquee::http
