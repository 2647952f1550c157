// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orderstate.h"
#include "corelogging.h"

namespace marquee {

QString toString(OrderState state)
{
    switch (state) {
    case OrderState::Created:
        return QStringLiteral("CREATED");
    case OrderState::PendingPayment:
        return QStringLiteral("PENDING_PAYMENT");
    case OrderState::Paid:
        return QStringLiteral("PAID");
    case OrderState::Confirmed:
        return QStringLiteral("CONFIRMED");
    case OrderState::Failed:
        return QStringLiteral("FAILED");
    case OrderState::Expired:
        return QStringLiteral("EXPIRED");
    case OrderState::Cancelled:
        return QStringLiteral("CANCELLED");
    case OrderState::RefundPending:
        return QStringLiteral("REFUND_PENDING");
    case OrderState::Refunded:
        return QStringLiteral("REFUNDED");
    }
    return {};
}

std::optional<OrderState> orderStateFromString(const QString &text)
{
    for (OrderState state : {OrderState::Created, OrderState::PendingPayment, OrderState::Paid, OrderState::Confirmed,
                             OrderState::Failed, OrderState::Expired, OrderState::Cancelled, OrderState::RefundPending,
                             OrderState::Refunded}) {
        if (toString(state) == text)
            return state;
    }
    return std::nullopt;
}

const QList<OrderTransition> &orderTransitions()
{
    using S = OrderState;
    static const QList<OrderTransition> table = {
        {S::Created, S::PendingPayment},      // the provider accepted the payment intent
        {S::Created, S::Failed},              // the provider refused to create the intent
        {S::PendingPayment, S::Paid},         // captured (webhook, confirm's status query, or the reconciler)
        {S::PendingPayment, S::Failed},       // declined
        {S::PendingPayment, S::Expired},      // nobody paid within the payment window; the intent was cancelled
        {S::PendingPayment, S::Cancelled},    // abandoned by the customer before paying
        {S::Paid, S::Confirmed},              // seats booked held → booked in one transaction
        {S::Paid, S::RefundPending},          // paid, but the hold was lost: the money goes back
        {S::Confirmed, S::RefundPending},     // a booking cancelled with money to give back
        {S::Confirmed, S::Cancelled},         // a booking cancelled with nothing to give back
        {S::RefundPending, S::Refunded},      // the provider refunded
    };
    return table;
}

bool canTransition(OrderState from, OrderState to)
{
    for (const OrderTransition &t : orderTransitions()) {
        if (t.from == from && t.to == to)
            return true;
    }
    return false;
}

std::optional<OrderState> checkTransition(OrderState from, OrderState to, const QString &orderId)
{
    if (canTransition(from, to))
        return to;
    qCWarning(lcOrders).noquote() << "refused illegal order transition" << toString(from) << "->" << toString(to)
                                  << (orderId.isEmpty() ? QString() : QStringLiteral("for order ") + orderId);
    return std::nullopt;
}

bool isSettled(OrderState state)
{
    return state == OrderState::Confirmed || isFinal(state);
}

bool isFinal(OrderState state)
{
    for (const OrderTransition &t : orderTransitions()) {
        if (t.from == state)
            return false;
    }
    return true;
}

} // namespace marquee
