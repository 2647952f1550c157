// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/orderstate.h"

#include <gtest/gtest.h>

using namespace marquee;

namespace {
const QList<OrderState> kAll = {OrderState::Created, OrderState::PendingPayment, OrderState::Paid,
                                OrderState::Confirmed, OrderState::Failed, OrderState::Expired,
                                OrderState::Cancelled, OrderState::RefundPending, OrderState::Refunded};
}

TEST(OrderState, NamesRoundTrip)
{
    for (OrderState state : kAll)
        EXPECT_EQ(orderStateFromString(toString(state)), state) << toString(state).toStdString();
    EXPECT_EQ(toString(OrderState::PendingPayment), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(toString(OrderState::RefundPending), QStringLiteral("REFUND_PENDING"));
    EXPECT_FALSE(orderStateFromString(QStringLiteral("pending_payment")).has_value());
    EXPECT_FALSE(orderStateFromString(QString()).has_value());
}

TEST(OrderState, HappyPathIsLegal)
{
    EXPECT_TRUE(canTransition(OrderState::Created, OrderState::PendingPayment));
    EXPECT_TRUE(canTransition(OrderState::PendingPayment, OrderState::Paid));
    EXPECT_TRUE(canTransition(OrderState::Paid, OrderState::Confirmed));
    EXPECT_TRUE(canTransition(OrderState::Paid, OrderState::RefundPending));
    EXPECT_TRUE(canTransition(OrderState::RefundPending, OrderState::Refunded));
    EXPECT_TRUE(canTransition(OrderState::Confirmed, OrderState::RefundPending));
}

TEST(OrderState, IllegalTransitionsAreRefused)
{
    // Money must never be skipped: no confirm without PAID, no way back out of a final state.
    EXPECT_FALSE(checkTransition(OrderState::PendingPayment, OrderState::Confirmed, QStringLiteral("o1")).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Created, OrderState::Paid).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Failed, OrderState::Paid).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Refunded, OrderState::Confirmed).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Expired, OrderState::Paid).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Confirmed, OrderState::Paid).has_value());
    EXPECT_FALSE(checkTransition(OrderState::Paid, OrderState::Failed).has_value());
    EXPECT_EQ(checkTransition(OrderState::Paid, OrderState::Confirmed), OrderState::Confirmed);
    // A state is never a transition to itself.
    for (OrderState state : kAll)
        EXPECT_FALSE(canTransition(state, state)) << toString(state).toStdString();
}

TEST(OrderState, FinalStatesHaveNoWayOut)
{
    for (OrderState state : kAll) {
        const bool final = state == OrderState::Failed || state == OrderState::Expired || state == OrderState::Cancelled
            || state == OrderState::Refunded;
        EXPECT_EQ(isFinal(state), final) << toString(state).toStdString();
        for (OrderState to : kAll) {
            if (final) {
                EXPECT_FALSE(canTransition(state, to));
            }
        }
    }
    EXPECT_TRUE(isSettled(OrderState::Confirmed));
    EXPECT_FALSE(isSettled(OrderState::PendingPayment));
    EXPECT_FALSE(isSettled(OrderState::Paid));
    EXPECT_FALSE(isSettled(OrderState::RefundPending));
}

TEST(OrderState, EveryNonFinalStateCanReachAFinalOne)
{
    // No order can get stuck: from every state some path ends in a final state.
    for (OrderState start : kAll) {
        QList<OrderState> frontier{start};
        QList<OrderState> seen{start};
        bool reached = isFinal(start);
        while (!frontier.isEmpty() && !reached) {
            const OrderState s = frontier.takeFirst();
            for (const OrderTransition &t : orderTransitions()) {
                if (t.from == s && !seen.contains(t.to)) {
                    seen << t.to;
                    frontier << t.to;
                    reached = reached || isFinal(t.to);
                }
            }
        }
        EXPECT_TRUE(reached) << toString(start).toStdString();
    }
}
